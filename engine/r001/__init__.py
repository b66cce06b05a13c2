"""The r001 family: R001 (12人鬼毒) and the R000 variants (鬼匪毒药, 守护神, 双守护) as subclasses.

Modules: ``night`` (checking and resolving a night), ``day`` (judging the vote thread), ``revote``
(R001's revotes), ``apply`` (executions, drownings, sending off, concession), ``outcome`` (the win
conditions), ``guardians`` (the R000 guardian rules), ``play`` (random legal play).

>>> from engine import get_ruleset
>>> get_ruleset("鬼毒").id
'R001'
>>> get_ruleset("双守护").family
'r001'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial
from types import MappingProxyType
from typing import ClassVar

from engine.actions import Night, NightAction
from engine.day.model import DayInput, DayResult, Override, ProxyVote, RevotePlan, VotePost
from engine.eliminations import resolve_drowning
from engine.eliminations import send_off as core_send_off
from engine.errors import IllegalActionError
from engine.events import Resolution
from engine.flags_day import DayFlags
from engine.flags_night import NightFlags
from engine.lastwords import LastWordsWindow, police_officer_window
from engine.outcome import Outcome
from engine.r001 import apply, day, night, outcome, play, revote
from engine.r001.guardians import GUARDIAN_ROLES
from engine.r001.words import R001_WORDS
from engine.roles import GroupId, RoleId
from engine.ruleset import RuleSet, TimetableDefaults, register
from engine.state import GameState, Player
from engine.table import Table

_BASE = (RoleId.BANDIT, RoleId.POLICE, RoleId.CIVILIAN)


class R001(RuleSet):
    """12 players: 2 police, 2 bandits (one the ghost), 1 poison, 7 civilians; R001 §一–五."""

    id = "R001"
    name_zh = "12人鬼毒（童年武侠版杀）"
    family = "r001"
    grammar = "r001"
    vote_format = "投票格式：投票：名字（理由可写可不写；弃权写「弃权」）"
    night_resolves_early = True
    aliases: ClassVar[tuple[str, ...]] = (
        "001",
        "R1",
        "鬼毒",
        "12人鬼毒",
        "鬼毒规则",
        "童年武侠",
        "02-童年武侠版杀",
        "童年武侠版杀",
    )
    roles: ClassVar[tuple[RoleId, ...]] = (*_BASE, RoleId.GHOST, RoleId.POISON)
    source = "001_0279a62299bf74d9.txt"
    presets_file = "r001.toml"
    description = "12 players: 2 police, 2 bandits (one the ghost), 1 poison, 7 civilians; R001 §一–五."
    win_check_timing = "per_batch"  # AMB-06
    # the vote closes the day after the case post at 13:00; the night ends at 17:00 (R001 §二)
    timetable = TimetableDefaults(vote_close="13:00", night_deadline="17:00", day_length=2)
    reveals_executed_identity = True
    night_words = R001_WORDS
    group_sources = MappingProxyType(
        {"killers": GroupId.BANDITS, "bandits": GroupId.BANDITS, "police": GroupId.POLICE}
    )

    def proxy_vote_limit(self, flags: DayFlags) -> int | None:
        return flags.r001_proxy_limit_per_game  # R001 §四.1.5: 每位玩家只能申请两次代投 (AMB-32)

    # ---- setup ----
    def may_hold(self, role: RoleId, flags: NightFlags) -> bool:
        return role in self.roles or (role in GUARDIAN_ROLES and flags.guardian_with_ghost_poison)

    def role_refusal_hint(self, role: RoleId) -> str:
        if role in GUARDIAN_ROLES:
            return "（守护与鬼匪/毒药同局须在游戏文件 [flags] 设 guardian_with_ghost_poison = true，AMB-48）"
        return ""

    def setup_groups(self, state: GameState) -> dict[str, tuple[str, ...]]:
        return {
            GroupId.BANDITS.value: state.group_members(GroupId.BANDITS),
            GroupId.POLICE.value: state.group_members(GroupId.POLICE),
        }

    def setup_notice(self, state: GameState, player: Player) -> list[str]:
        spec = self.role(player.role)
        label = "杀手（匪）" if player.role is RoleId.GHOST else spec.name_zh
        parts = [f"【身份通知】{player.name}：你的身份是{label}。{spec.notice}"]
        if player.role in (RoleId.BANDIT, RoleId.GHOST) and state.with_role(RoleId.POISON):
            parts.append("提交杀人名单时需附“生死状”：“如果我们错杀毒药，XX与毒药同死。”")
        parts.append("每位玩家本局最多申请两次代投。")
        return parts

    # ---- night ----
    def check_action(self, state: GameState, action: NightAction, night_: Night | None) -> None:
        night.check_action(state, action, night_)

    def resolve_night(self, state: GameState, night_: Night, seed: int | None) -> Resolution:
        return night.resolve(state, night_, seed)

    def resolve_extra_check(self, state: GameState, target: str, *, late: bool) -> Resolution:
        return night.resolve_extra_check(state, target, late=late)

    # ---- day judgement ----
    def judge_day(self, inp: DayInput, as_of: datetime | None) -> DayResult:
        return day.resolve_r001(inp, as_of)

    def check_proxy(self, inp: DayInput, proxy: ProxyVote) -> str | None:
        limit = self.proxy_vote_limit(inp.flags) or 0
        used = inp.proxy_used.get(proxy.player, 0) + sum(
            1 for p in inp.proxy_votes if p.player == proxy.player
        )
        if used >= limit:
            return f"{proxy.player} 的代投次数已用完（每局限{limit}次）"
        return None

    def plan_revote(self, previous: DayResult, called_at: datetime, minutes: int | None) -> RevotePlan:
        return revote.plan_revote(previous, called_at, minutes)

    def resolve_revote(
        self,
        previous: DayResult,
        plan: RevotePlan | None,
        posts: tuple[VotePost, ...],
        *,
        proxy_votes: tuple[ProxyVote, ...],
        overrides: tuple[Override, ...],
        as_of: datetime | None,
    ) -> DayResult:
        return revote.resolve_revote(
            previous, plan, posts, proxy_votes=proxy_votes, overrides=overrides, as_of=as_of
        )

    # ---- day application ----
    def execute(
        self, state: GameState, chosen: str | None, day_: int, tied: frozenset[str] | set[str] | None
    ) -> Resolution:
        return apply.execute(state, chosen, day_, tied)

    def drown(self, state: GameState, names: Iterable[str], day_: int) -> Resolution:
        return apply.resolve_drowning(state, names, day=day_)

    def send_off(self, state: GameState, name: str, day_: int) -> Resolution:
        return apply.send_off(state, name, day_)

    def red_cards(self, state: GameState, names: Iterable[str], day_: int) -> Resolution:
        raise IllegalActionError("红牌是 R004 的规则，本局没有红牌", rule="R004 替补")

    def day_steps(
        self, day_: int, drowned: list[str], sent_off: list[str], red_cards: list[str]
    ) -> list[Callable[[GameState], Resolution]]:
        steps: list[Callable[[GameState], Resolution]] = []
        if drowned:
            steps.append(partial(resolve_drowning, names=drowned, day=day_))
        for name in sent_off:
            steps.append(partial(core_send_off, name=name, day=day_))
        return steps

    def concede(self, state: GameState, side: str) -> Resolution:
        return apply.concede(state, side)

    def surrender(self, state: GameState, agreeing: Iterable[str]) -> Resolution:
        raise IllegalActionError("投降是 R004 的规则；R001 是认输，由法官核实后判定", rule="R001 §三.3")

    def double_kill_pairs(self, state: GameState, day_: int) -> tuple[tuple[str, str], ...]:
        return apply.double_kill_pairs(state, day_)

    # ---- outcome ----
    def last_words_windows(self, state: GameState, due: datetime) -> tuple[LastWordsWindow, ...]:
        return police_officer_window(state, due)

    def win_check(self, table: Table) -> Outcome | None:
        return outcome.r001_outcome(table)

    def final_identity(self, player: Player, state: GameState) -> str:
        label = self.role(player.role).name_zh
        if player.possessed:
            label = "平民（被附体匪）"
        if player.role is RoleId.POLICE_GUARDIAN and player.converted:
            label = "警神（已失去守护能力）"
        if player.role is RoleId.GHOST and state.possession_used:
            label = "鬼匪（已附体）"
        return label

    # ---- random play ----
    def random_night(self, state: GameState, rng: random.Random, act_p: float, late_p: float) -> Night:
        return play.random_night(state, rng, act_p, late_p)

    def random_day_decisions(
        self, state: GameState, rng: random.Random, chosen: str | None, living: list[str]
    ) -> tuple[str | None, frozenset[str] | None, list[str], list[str]]:
        return play.random_day_decisions(state, rng, chosen, living)


class R000GP(R001):
    """Ghost bandit + poison on the '2.0' base game (R001's cycle, AMB-49); wins A/B/C/D."""

    id = "R000-GP"
    name_zh = "鬼匪毒药（2.0花样玩法一）"
    aliases: ClassVar[tuple[str, ...]] = (
        "000-GP",
        "GP",
        "鬼匪",
        "毒药",
        "鬼匪毒药",
        "毒药鬼匪",
        "鬼匪/毒药",
        "花样玩法一",
    )
    source = "000_0805cc305c5f9327.txt"
    presets_file = "r000_gp.toml"
    flag_overrides = MappingProxyType({"r001_condition2_enabled": False})  # AMB-02
    description = "Ghost bandit + poison on the '2.0' base game (R001's cycle, AMB-49); wins A/B/C/D."


class R000G1(R000GP):
    """One guardian (立场自选) added to an equal police/bandit game."""

    id = "R000-G1"
    name_zh = "守护神（2.0花样玩法二）"
    aliases: ClassVar[tuple[str, ...]] = ("000-G1", "G1", "守护神", "单守护", "单守护神", "花样玩法二")
    roles: ClassVar[tuple[RoleId, ...]] = (*_BASE, RoleId.GUARDIAN)
    presets_file = "r000_g1.toml"
    description = "One guardian (立场自选) added to an equal police/bandit game."


class R000G2(R000GP):
    """A police-guardian (警神) and a bandit-guardian (匪神) with camp-limited protection."""

    id = "R000-G2"
    name_zh = "双守护"
    aliases: ClassVar[tuple[str, ...]] = ("000-G2", "G2", "双守护", "双守护神", "双守护规则", "警神匪神")
    roles: ClassVar[tuple[RoleId, ...]] = (*_BASE, RoleId.POLICE_GUARDIAN, RoleId.BANDIT_GUARDIAN)
    presets_file = "r000_g2.toml"
    description = "A police-guardian (警神) and a bandit-guardian (匪神) with camp-limited protection."


for _rs in (R001(), R000GP(), R000G1(), R000G2()):
    register(_rs)
