"""R004 (杀人游戏): the multi-role rule set (12 roles), presets for 18–35 players.

Modules: ``night`` (checking and resolving a night: the out-list, steps 1–7, and the feedback), ``day``
(judging the vote thread: one vote and one change, yellow cards, 威权), ``apply`` (the vote
elimination, red cards, 威权, surrender), ``outcome`` (the win conditions), ``play`` (random play).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial
from types import MappingProxyType
from typing import ClassVar

from engine.actions import Night, NightAction
from engine.day.model import DayInput, DayResult, ProxyVote
from engine.eliminations import resolve_red_cards
from engine.errors import IllegalActionError
from engine.events import JUDGE, Event, EventKind, Resolution, event
from engine.flags_night import NightFlags
from engine.lastwords import LastWordsWindow, slot_windows
from engine.outcome import Outcome
from engine.r004 import apply, day, night, outcome, play
from engine.r004.words import R004_WORDS
from engine.roles import ROLE_TABLES, GroupId, RoleId, WinSide
from engine.ruleset import RuleSet, TimetableDefaults, register
from engine.state import GameState, Player
from engine.table import Table
from engine.vocab import NightWord


class R004(RuleSet):
    """Multi-role rule set (12 roles), presets for 18–35 players."""

    id = "R004"
    name_zh = "杀人游戏"
    family = "r004"
    grammar = "r004"
    vote_format = "投票格式：\n投票对象：名字\n投票理由：……\n（改票写「改票对象：名字」「改票理由：……」）"
    aliases: ClassVar[tuple[str, ...]] = ("004", "R4", "杀人游戏", "杀人游戏规则", "【规则】杀人游戏", "刀边")
    roles: ClassVar[tuple[RoleId, ...]] = tuple(ROLE_TABLES["r004"])
    source = "004_c8101a0fa9b55afe.txt"
    presets_file = "r004.toml"
    description = "Multi-role rule set (12 roles), presets for 18–35 players."
    # two calendar days (one more with a weekend), closing 21:00; nights end 2 h after the close (AMB-85)
    case_post_title = "第{n}讨论日"  # the day-start post (AMB-88)
    has_applications = True  # 延时/加速申请 in the process thread
    last_words_due = "next_day_opens"  # 遗言: before the next discussion day starts
    day_discipline = "yellow_cards"  # 黄牌 instead of strikes
    timetable = TimetableDefaults(vote_close="21:00", day_length=2, weekend_extra_day=True, night_hours=2)
    day_cutoff = "change_cutoff"  # no change in the last hour
    night_words = R004_WORDS
    group_sources = MappingProxyType(
        {"killers": GroupId.KILLERS, "bandits": GroupId.KILLERS, "police": GroupId.POLICE}
    )

    # ---- the night vocabulary ----
    def submit_refusal(self, state: GameState, word: NightWord, author: str) -> str | None:
        if word.kind == "authority":  # only the eliminated holder passes 威权 on (R004 市长·威权)
            if state.authority_pending != author:
                return f"{author} 现在不需要移交威权（不是出局的威权持有者）"
            return None
        return super().submit_refusal(state, word, author)

    def check_hand_over(
        self, state: GameState, word: NightWord, author: str, to: str
    ) -> IllegalActionError | None:
        if to == author:
            return IllegalActionError("威权须交给另一名角色", rule="R004 市长·威权")
        if not state.is_alive(to):
            return IllegalActionError(f"{to} 已出局，不能获得威权", rule="R004 市长·威权")
        return None

    def signs_group_action(self, state: GameState, name: str) -> bool:
        # the engine wants a kill's ``by`` to be a 杀手; a sniper who rejoined submits for the group unsigned
        return state.has(name) and state.player(name).role is RoleId.KILLER

    substitutions_per_role = 1  # 替补: each role may be substituted once

    # ---- setup ----
    def setup_fields(
        self,
        players: tuple[Player, ...],
        flags: NightFlags,
        *,
        sniper_bullets: int | None,
        spy_counted: bool | None,
        lastword_slots: int | None,
    ) -> dict[str, object]:
        counted = spy_counted if spy_counted is not None else flags.r004_spy_counted
        counted = True if counted is None else counted
        kc = sum(
            1
            for p in players
            if self.role(p.role).side is WinSide.KILLER_COUNTED and (p.role is not RoleId.SPY or counted)
        )
        mayor = next((p.name for p in players if p.role is RoleId.MAYOR), None)
        has_sniper = any(p.role is RoleId.SNIPER for p in players)
        return {
            "sniper_bullets": (2 if sniper_bullets is None else sniper_bullets) if has_sniper else 0,
            "spy_counted": counted,
            "lastword_slots": kc if lastword_slots is None else lastword_slots,
            "authority_holder": mayor,
        }

    def setup_groups(self, state: GameState) -> dict[str, tuple[str, ...]]:
        return {
            GroupId.KILLERS.value: state.group_members(GroupId.KILLERS),
            GroupId.POLICE.value: state.group_members(GroupId.POLICE),
        }

    def setup_notice(self, state: GameState, player: Player) -> list[str]:
        spec = self.role(player.role)
        parts = [f"【身份通知】{player.name}：你的身份是{spec.name_zh}（{spec.camp.value}）。{spec.notice}"]
        if player.role is RoleId.SNIPER:
            parts.append(f"本局狙击次数 X={state.sniper_bullets}。")
        if player.role is RoleId.SPY and not state.spy_counted:
            parts.append("本局间谍不算轮次。")
        if player.role is RoleId.MAYOR:
            parts.append("你持有<威权>。")
        return parts

    # ---- night ----
    def check_action(self, state: GameState, action: NightAction, night_: Night | None) -> None:
        night.check_action(state, action, night_)

    def resolve_night(self, state: GameState, night_: Night, seed: int | None) -> Resolution:
        return night.resolve(state, night_, seed)

    # ---- day judgement ----
    def judge_day(self, inp: DayInput, as_of: datetime | None) -> DayResult:
        return day.resolve_r004(inp, as_of)

    def check_proxy(self, inp: DayInput, proxy: ProxyVote) -> str | None:
        if proxy.at >= inp.times.change_deadline:
            return "关门前一小时不允许代投"
        if not proxy.abstain and not (proxy.target or "").strip():
            return "代投须给出明确的投票对象（不可设立投票条件）"
        return None

    # ---- day application ----
    def execute(
        self, state: GameState, chosen: str | None, day_: int, tied: frozenset[str] | set[str] | None
    ) -> Resolution:
        return apply.execute(state, chosen, day_, tied)

    def drown(self, state: GameState, names: Iterable[str], day_: int) -> Resolution:
        raise IllegalActionError("淹死是 R001/R000 的规则；R004 用黄牌和红牌", rule="R004")

    def send_off(self, state: GameState, name: str, day_: int) -> Resolution:
        return apply.send_off(state, name, day_)

    def red_cards(self, state: GameState, names: Iterable[str], day_: int) -> Resolution:
        return apply.resolve_red_cards(state, names, day=day_)

    def day_steps(
        self, day_: int, drowned: list[str], sent_off: list[str], red_cards: list[str]
    ) -> list[Callable[[GameState], Resolution]]:
        return [partial(resolve_red_cards, names=red_cards, day=day_)] if red_cards else []

    def close_day_notes(self, state: GameState, day_: int) -> list[Event]:
        if not state.authority_pending:
            return []
        note = event(
            EventKind.NOTE,
            JUDGE,
            f"{state.authority_pending} 须在下一讨论日开始前交出<威权>，否则由法官随机指定",
            amb="AMB-61",
        )
        return [note]

    def pass_authority(self, state: GameState, to: str | None, seed: int | str | None) -> Resolution:
        return apply.pass_authority(state, to, seed=seed)

    def concede(self, state: GameState, side: str) -> Resolution:
        raise IllegalActionError("R004 没有认输，只有杀手阵营可以投降", rule="R004 投降")

    def surrender(self, state: GameState, agreeing: Iterable[str]) -> Resolution:
        return apply.surrender(state, agreeing)

    def surrender_group(self, state: GameState) -> tuple[str, ...]:
        return apply.surrender_group(state)

    # ---- outcome ----
    def last_words_windows(self, state: GameState, due: datetime) -> tuple[LastWordsWindow, ...]:
        return slot_windows(state, due)

    def win_check(self, table: Table) -> Outcome | None:
        return outcome.r004_outcome(table)

    # ---- random play ----
    def random_night(self, state: GameState, rng: random.Random, act_p: float, late_p: float) -> Night:
        return play.random_night(state, rng, act_p, late_p)

    def random_day_decisions(
        self, state: GameState, rng: random.Random, chosen: str | None, living: list[str]
    ) -> tuple[str | None, frozenset[str] | None, list[str], list[str]]:
        return play.random_day_decisions(state, rng, chosen, living)


register(R004())
