"""Building a game: :func:`new_game` from known assignments, :func:`draw_roles` by a seeded lot.

:func:`draw_roles` draws with ``random.Random(seed)`` only (record the seed: the same roster, preset and
seed always give the same draw). R001/R000-GP: the bandit list is fixed first, then the ghost is drawn
among the bandits (§五, C-111). R004: 18–35 players from the preset table (AMB-78, AMB-79), 医生/花蝴蝶 as
the director chooses (AMB-70).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.errors import SetupError
from engine.flags_night import NightFlags
from engine.presets import Composition, PresetTable
from engine.roles import GROUP_ZH, GroupId, RoleId
from engine.ruleset import RuleSet, evaluate_outcome, get_ruleset, rules_of
from engine.state import GameState, Player

WARMUP_TEXT = "玩家身份通知完毕，第一回合提交名单截止时间为{deadline}"


def _ruleset(rs: RuleSet | str) -> RuleSet:
    return rs if isinstance(rs, RuleSet) else get_ruleset(rs)


def new_game(
    ruleset: RuleSet | str,
    assignments: Mapping[str, RoleId | str] | Iterable[tuple[str, RoleId | str]],
    *,
    flags: NightFlags | None = None,
    sniper_bullets: int | None = None,
    spy_counted: bool | None = None,
    lastword_slots: int | None = None,
) -> GameState:
    """A game at night 1 with the given name → role assignments (seating order = the order given).

    Roles may be ids or Chinese names. R004 extras: ``sniper_bullets`` (X, default 2), ``spy_counted``
    (default: the flag, else True), ``lastword_slots`` (default: the counted killer-camp roles, L).
    Raises SetupError for duplicate names or roles the rule set does not use.
    """
    rs = _ruleset(ruleset)
    flags = flags or rs.flags
    items = list(assignments.items()) if isinstance(assignments, Mapping) else list(assignments)
    players: list[Player] = []
    seen: set[str] = set()
    for name, role in items:
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise SetupError(f"玩家名字不能为空，前后也不能有空格：「{name}」")
        if name in seen:
            raise SetupError(f"玩家「{name}」出现了两次")
        seen.add(name)
        try:
            rid = role if isinstance(role, RoleId) and role in rs.family_roles else rs.role_id(str(role))
        except KeyError as exc:
            raise SetupError(str(exc.args[0])) from None
        if not rs.may_hold(rid, flags):
            raise SetupError(f"{rs.id} 不用角色{rs.role(rid).name_zh}" + rs.role_refusal_hint(rid))
        players.append(Player(name, rid))
    if not players:
        raise SetupError("一局游戏需要玩家")
    kwargs: dict[str, Any] = rs.setup_fields(
        tuple(players),
        flags,
        sniper_bullets=sniper_bullets,
        spy_counted=spy_counted,
        lastword_slots=lastword_slots,
    )
    return GameState(ruleset_id=rs.id, family=rs.family, players=tuple(players), flags=flags, **kwargs)


@dataclass(frozen=True, slots=True)
class Setup:
    """The result of a draw: the state, each player's private notice, the groups, and the record."""

    state: GameState
    notices: Mapping[str, str]
    groups: Mapping[str, tuple[str, ...]]
    composition: Composition
    seed: int | str
    warnings: tuple[str, ...] = ()
    draw_order: tuple[str, ...] = field(default=())  # the shuffled roster, for the judges' record

    def warmup_post(self, deadline: str) -> str:
        """R001 §二.2: “玩家身份通知完毕，第一回合提交名单截止时间为6月3日下午5时”."""
        return WARMUP_TEXT.format(deadline=deadline)


def draw_roles(
    ruleset: RuleSet | str,
    roster: Sequence[str],
    *,
    seed: int | str,
    preset_table: PresetTable | None = None,
    composition: Composition | None = None,
    flags: NightFlags | None = None,
    variant: str | None = None,
    missing_role: str | None = None,
) -> Setup:
    """Draw roles for ``roster`` with ``random.Random(seed)``.

    Give either ``preset_table`` (parsed from data/rulesets/<id>.toml; the size is ``len(roster)``) or an
    explicit ``composition``. ``variant`` picks 医生/花蝴蝶 ("doctor"/"butterfly", AMB-70; default the flag);
    ``missing_role`` the 21-player fix (AMB-78; default the flag). Raises SetupError (AMB-79 sizes too).
    """
    rs = _ruleset(ruleset)
    flags = flags or rs.flags
    names = list(roster)
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise SetupError(f"名单中有玩家出现了两次：{'、'.join(dupes)}")
    if composition is None:
        if preset_table is None:
            raise SetupError("抽身份需要预设表或写明的配置")
        if preset_table.ruleset_id != rs.id:
            raise SetupError(f"预设表属于 {preset_table.ruleset_id}，不是 {rs.id}")
        composition = preset_table.composition(
            len(names), flags=flags, doctor_or_butterfly=variant, missing_role=missing_role
        )
    if composition.total != len(names):
        raise SetupError(f"配置有 {composition.total} 个角色，名单有 {len(names)} 名玩家")
    rng = random.Random(seed)
    pool = list(names)
    rng.shuffle(pool)
    assigned: dict[str, RoleId] = {}
    i = 0
    bandits: list[str] = []
    for rid, count in composition.roles:
        for name in pool[i : i + count]:
            assigned[name] = rid
            if rid is RoleId.BANDIT:
                bandits.append(name)
        i += count
    # §五: the ghost is drawn among the bandits after the bandit list is fixed (C-111).
    if composition.ghost_from_bandits:
        if len(bandits) < composition.ghost_from_bandits:
            raise SetupError("匪徒不够，无法从中抽出鬼匪")
        ordered = [n for n in names if n in bandits]
        for ghost in rng.sample(ordered, composition.ghost_from_bandits):
            assigned[ghost] = RoleId.GHOST
    state = new_game(
        rs,
        [(n, assigned[n]) for n in names],
        flags=flags,
        sniper_bullets=composition.sniper_bullets,
        spy_counted=composition.spy_counted if flags.r004_spy_counted is None else flags.r004_spy_counted,
    )
    warnings = list(composition.warnings)
    if evaluate_outcome(state) is not None:
        warnings.append("这一配置在开局时已满足胜负条件")
    groups = _groups(state)
    notices = {p.name: _notice(state, p, groups) for p in state.players}
    return Setup(
        state=state,
        notices=MappingProxyType(notices),
        groups=MappingProxyType(groups),
        composition=composition,
        seed=seed,
        warnings=tuple(warnings),
        draw_order=tuple(pool),
    )


def setup_notices(state: GameState) -> tuple[Mapping[str, str], Mapping[str, tuple[str, ...]]]:
    """Each player's private setup notice and the groups, for a state whose roles were given (not drawn):
    the same words :func:`draw_roles` gives a draw, so both ways of setting up tell the players alike."""
    groups = _groups(state)
    notices = {p.name: _notice(state, p, groups) for p in state.players}
    return MappingProxyType(notices), MappingProxyType(groups)


def _groups(state: GameState) -> dict[str, tuple[str, ...]]:
    return {k: v for k, v in rules_of(state).setup_groups(state).items() if v}


def _notice(state: GameState, p: Player, groups: Mapping[str, tuple[str, ...]]) -> str:
    parts = rules_of(state).setup_notice(state, p)
    for group, members in groups.items():
        if p.name in members:
            zh = GROUP_ZH[GroupId(group)]
            parts.append(f"{zh}成员：{'、'.join(members)}。")
    return "".join(parts)
