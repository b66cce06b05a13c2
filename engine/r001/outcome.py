"""The R001 / R000 win conditions (see engine/outcome.py for the documented order): Bn, Pn, Zn, Cn over
the living players, checked once per batch (AMB-06)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.outcome import Outcome, Termination, Winner
from engine.roles import RoleId
from engine.table import Table


@dataclass(frozen=True, slots=True)
class R001Counts:
    bandits: int  # Bn
    police: int  # Pn
    poison: int  # Zn
    civilians: int  # Cn


def r001_counts(state: Table) -> R001Counts:
    """Bn, Pn, Zn, Cn over the living players, per the flags (AMB-01, AMB-07, AMB-44)."""
    flags = state.flags
    bn = pn = zn = cn = 0
    for p in state.players:
        if not p.alive:
            continue
        role = p.role
        if role in (RoleId.BANDIT, RoleId.GHOST):
            bn += 1
        elif role is RoleId.POLICE:
            pn += 1
        elif role is RoleId.POISON:
            zn += 1
        elif role is RoleId.CIVILIAN:
            if p.possessed:
                bn += 1
                if flags.gp_possessed_counts_as_civilian:
                    cn += 1
            else:
                cn += 1
        elif flags.guardian_counted_in_win_checks:
            if role is RoleId.BANDIT_GUARDIAN:
                bn += 1
            elif role is RoleId.POLICE_GUARDIAN and not p.converted:
                pn += 1
            else:  # a single guardian, or a converted police-guardian (works as a civilian)
                cn += 1
    return R001Counts(bn, pn, zn, cn)


def r001_outcome(state: Table) -> Outcome | None:
    """The R001/R000 conditions on the current living players (see the module docstring)."""
    flags = state.flags
    c = r001_counts(state)
    police_side = c.police + (c.poison if flags.win_poison_prevents_police_wipeout else 0)
    a = c.bandits == 0
    b_police = police_side == 0
    b_civ = c.civilians == 0
    b = b_police or b_civ
    c2 = False
    if flags.r001_condition2_enabled and (c.bandits >= 1 or not flags.r001_condition2_requires_bandit):
        z = c.poison if flags.r001_condition2_counts_poison else 0
        c2 = c.bandits >= c.police + z + c.civilians - 1
    if a and b:
        winner = {"draw": None, "police": Winner.POLICE, "bandits": Winner.BANDITS}[
            flags.r001_simultaneous_a_and_b
        ]
        return Outcome(Termination.BOTH_WIPED_OUT, winner)
    if a:
        return Outcome(Termination.BANDITS_WIPED_OUT, Winner.POLICE)
    if b_police:
        return Outcome(Termination.POLICE_WIPED_OUT, Winner.BANDITS)
    if b_civ:
        return Outcome(Termination.CIVILIANS_WIPED_OUT, Winner.BANDITS)
    if c2:
        return Outcome(Termination.BANDIT_PARITY, Winner.BANDITS)
    return None
