"""Guardian rules shared by the night (kill substitution) and the day (execution substitution).

R000-G1 (守护神) and R000-G2 (双守护):

* a protection is *legal* (守护规则1, 3) when the target is alive, is not the guardian himself and has not
  been protected by him before (AMB-42: per guardian by default, or once per game across guardians);
* it is *effective* when, in addition, the guardian is alive and not converted, and (R000-G2 rule 3)
  the police-guardian's target is police/poison or an unpossessed civilian, the bandit-guardian's a bandit
  (possessed included) or an unpossessed civilian. A protection that does not apply does nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from engine.flags_night import NightFlags
from engine.roles import RoleId
from engine.state import Player

GUARDIAN_ROLES = (RoleId.GUARDIAN, RoleId.POLICE_GUARDIAN, RoleId.BANDIT_GUARDIAN)


class GuardianView(Protocol):
    @property
    def players(self) -> Sequence[Player]: ...
    @property
    def flags(self) -> NightFlags: ...
    @property
    def guardian_history(self) -> Mapping[str, tuple[str, ...]]: ...

    def p(self, name: str) -> Player: ...


def protected_before(view: GuardianView, guardian: str) -> set[str]:
    """Everyone ``guardian`` may no longer protect because of 守护规则3 (scope per AMB-42)."""
    if view.flags.guardian_once_per_target_scope == "global":
        out: set[str] = set()
        for names in view.guardian_history.values():
            out.update(names)
        return out
    return set(view.guardian_history.get(guardian, ()))


def legal_protect_targets(view: GuardianView, guardian: str) -> list[str]:
    """Living players ``guardian`` may protect this round (empty ⇒ a forced skip, AMB-41)."""
    used = protected_before(view, guardian)
    return [p.name for p in view.players if p.alive and p.name != guardian and p.name not in used]


def protection_applies(guardian: Player, target: Player) -> bool:
    """R000-G2 rule 3 (camp restriction); a single guardian's protection applies to anyone."""
    if guardian.role is RoleId.POLICE_GUARDIAN:
        return target.role in (RoleId.POLICE, RoleId.POISON) or (
            target.role is RoleId.CIVILIAN and not target.possessed
        )
    if guardian.role is RoleId.BANDIT_GUARDIAN:
        return target.role in (RoleId.BANDIT, RoleId.GHOST) or target.role is RoleId.CIVILIAN
    return True


def effective_protectors(view: GuardianView, protections: Mapping[str, str], target: str) -> list[str]:
    """Guardians whose protection of ``target`` works now, in seating order."""
    tgt = view.p(target)
    if not tgt.alive:
        return []
    out: list[str] = []
    for pl in view.players:
        if protections.get(pl.name) != target:
            continue
        if not pl.alive or pl.converted or pl.name == target:
            continue
        if protection_applies(pl, tgt):
            out.append(pl.name)
    return out
