"""Rule sets, found by name in a registry (ids, aliases, Chinese names).

A rule set is data (id, names, roles it may use, flag defaults, the day procedure) plus a few hooks
(check a night action, resolve a night, evaluate the win conditions). Variants of one family differ in
data only: R000-GP is R001 without condition 2 (AMB-02); the guardian variants add guardian roles.

>>> get_ruleset("鬼毒").id
'R001'
>>> get_ruleset("双守护").day_procedure
'r001'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from engine import night_r001, night_r004
from engine.actions import Night, NightAction
from engine.errors import UnknownRuleSetError
from engine.events import Resolution
from engine.flags_night import NightFlags
from engine.outcome import Outcome, Table, r001_outcome, r004_outcome
from engine.roles import ROLE_TABLES, RoleId, RoleSpec

CheckHook = Callable[[Any, NightAction, Night | None], None]
ResolveHook = Callable[[Any, Night, int | None], Resolution]
OutcomeHook = Callable[[Table], Outcome | None]


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One rule set: data plus hooks. ``flags`` are its defaults (NightFlags with its overrides)."""

    id: str
    name_zh: str
    family: str  # "r001" or "r004": which role table and night module
    day_procedure: str  # "r001" or "r004": which day procedure the day engine runs
    aliases: tuple[str, ...]
    roles: tuple[RoleId, ...]  # roles a setup of this rule set may hold
    source: str  # the seed document
    win_check: str  # "per_batch" (R001/R000, AMB-06) or "per_elimination" (R004, §e.3)
    check_action: CheckHook
    resolve_night: ResolveHook
    outcome: OutcomeHook
    flag_overrides: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    proxy_vote_limit: int | None = None  # per player per game; None: not limited by the rules
    description: str = ""

    @property
    def flags(self) -> NightFlags:
        """The night flags this rule set starts with (the proposals, with this rule set's overrides)."""
        return replace(NightFlags(), **dict(self.flag_overrides))

    def default_flags(self) -> NightFlags:
        return self.flags

    def role(self, role: RoleId) -> RoleSpec:
        return ROLE_TABLES[self.family][role]

    @property
    def role_table(self) -> Mapping[RoleId, RoleSpec]:
        return MappingProxyType({r: ROLE_TABLES[self.family][r] for r in self.roles})


_R001_BASE = (RoleId.BANDIT, RoleId.POLICE, RoleId.CIVILIAN)

R001 = RuleSet(
    id="R001",
    name_zh="12人鬼毒（童年武侠版杀）",
    family="r001",
    day_procedure="r001",
    aliases=("001", "R1", "鬼毒", "12人鬼毒", "鬼毒规则", "童年武侠", "02-童年武侠版杀", "童年武侠版杀"),
    roles=(*_R001_BASE, RoleId.GHOST, RoleId.POISON),
    source="001_0279a62299bf74d9.txt",
    win_check="per_batch",
    check_action=night_r001.check_action,
    resolve_night=night_r001.resolve,
    outcome=r001_outcome,
    proxy_vote_limit=2,
    description="12 players: 2 police, 2 bandits (one the ghost), 1 poison, 7 civilians; R001 §一–五.",
)

R000_GP = RuleSet(
    id="R000-GP",
    name_zh="鬼匪毒药（2.0花样玩法一）",
    family="r001",
    day_procedure="r001",  # AMB-49
    aliases=("000-GP", "GP", "鬼匪", "毒药", "鬼匪毒药", "毒药鬼匪", "鬼匪/毒药", "花样玩法一"),
    roles=(*_R001_BASE, RoleId.GHOST, RoleId.POISON),
    source="000_0805cc305c5f9327.txt",
    win_check="per_batch",
    check_action=night_r001.check_action,
    resolve_night=night_r001.resolve,
    outcome=r001_outcome,
    flag_overrides=MappingProxyType({"r001_condition2_enabled": False}),  # AMB-02
    proxy_vote_limit=2,
    description="Ghost bandit + poison on the '2.0' base game (R001's cycle, AMB-49); wins A/B/C/D.",
)

R000_G1 = RuleSet(
    id="R000-G1",
    name_zh="守护神（2.0花样玩法二）",
    family="r001",
    day_procedure="r001",
    aliases=("000-G1", "G1", "守护神", "单守护", "单守护神", "花样玩法二"),
    roles=(*_R001_BASE, RoleId.GUARDIAN),
    source="000_0805cc305c5f9327.txt",
    win_check="per_batch",
    check_action=night_r001.check_action,
    resolve_night=night_r001.resolve,
    outcome=r001_outcome,
    flag_overrides=MappingProxyType({"r001_condition2_enabled": False}),
    proxy_vote_limit=2,
    description="One guardian (立场自选) added to an equal police/bandit game.",
)

R000_G2 = RuleSet(
    id="R000-G2",
    name_zh="双守护",
    family="r001",
    day_procedure="r001",
    aliases=("000-G2", "G2", "双守护", "双守护神", "双守护规则", "警神匪神"),
    roles=(*_R001_BASE, RoleId.POLICE_GUARDIAN, RoleId.BANDIT_GUARDIAN),
    source="000_0805cc305c5f9327.txt",
    win_check="per_batch",
    check_action=night_r001.check_action,
    resolve_night=night_r001.resolve,
    outcome=r001_outcome,
    flag_overrides=MappingProxyType({"r001_condition2_enabled": False}),
    proxy_vote_limit=2,
    description="A police-guardian (警神) and a bandit-guardian (匪神) with camp-limited protection.",
)

R004 = RuleSet(
    id="R004",
    name_zh="杀人游戏",
    family="r004",
    day_procedure="r004",
    aliases=("004", "R4", "杀人游戏", "杀人游戏规则", "【规则】杀人游戏", "刀边"),
    roles=tuple(ROLE_TABLES["r004"]),
    source="004_c8101a0fa9b55afe.txt",
    win_check="per_elimination",
    check_action=night_r004.check_action,
    resolve_night=night_r004.resolve,
    outcome=r004_outcome,
    description="Multi-role rule set (12 roles), presets for 18–35 players.",
)


def _key(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).strip().upper()
    for ch in " -_/（）()【】":
        text = text.replace(ch, "")
    return text


_REGISTRY: dict[str, RuleSet] = {}
_ALIASES: dict[str, str] = {}


def register(ruleset: RuleSet) -> None:
    """Add a rule set (and its aliases). A name already taken by another rule set is an error."""
    for name in (ruleset.id, *ruleset.aliases):
        key = _key(name)
        if _ALIASES.get(key, ruleset.id) != ruleset.id:
            raise ValueError(f"name {name!r} already belongs to {_ALIASES[key]}")
        _ALIASES[key] = ruleset.id
    _REGISTRY[ruleset.id] = ruleset


for _rs in (R001, R000_GP, R000_G1, R000_G2, R004):
    register(_rs)


def get_ruleset(name: str) -> RuleSet:
    """The rule set called ``name`` (id, alias or Chinese name; case, width and dashes ignored).

    Raises UnknownRuleSetError listing the known names.
    """
    if name in _REGISTRY:  # fast path: an exact id (what a GameState holds)
        return _REGISTRY[name]
    rid = _ALIASES.get(_key(name))
    if rid is None:
        known = "; ".join(f"{rs.id} ({', '.join(rs.aliases[:4])})" for rs in _REGISTRY.values())
        raise UnknownRuleSetError(f"no rule set called {name!r}; known: {known}")
    return _REGISTRY[rid]


def all_rulesets() -> tuple[RuleSet, ...]:
    return tuple(_REGISTRY.values())
