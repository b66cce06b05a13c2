"""A 13-player R001 variant with a new role, 猎人 (the hunter), defined here and nowhere else.

Nothing in engine/ or forumbot/ knows about it: the role, its night action, its night word and its rule
set are this package's, and ``engine.register`` adds them (the role row to the r001 table, the action
kind to the engine's table, the rule set by name); ``engine.unregister`` takes them away again.

The reading chosen (a made-up rule, written as a judge would post it):

    猎人（平民阵营）：每晚可私信法官「开枪：X」预先登记开枪目标（以当晚截止前最后一条为准，可不登记）。
    猎人当晚被杀或白天被处决时，以他出局前最后一晚登记的目标开枪：X 随即出局（死因：被猎人击毙），
    夜里出局者与当晚死者一同公布，白天出局者随处决结果公布。淹死、判出局不开枪；目标已出局则枪声落空。

So the shot is resolved by the engine, within the same resolution as the hunter's death, through the
engine's generic "on death, the role may act" hook: the night word is ``armed`` (engine/lastacts.py keeps
the on-time submission in ``GameState.armed``), and :meth:`Hunter.resolve_armed` fires it. Police who
check the hunter learn 猎人 (R001's checks answer identities). Thirteen players: R001's twelve (2 police,
2 bandits with the ghost among them, 1 poison, 7 civilians) plus the hunter (presets.toml).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar

from engine import (
    JUDGE,
    PUBLIC,
    R001,
    ActionKind,
    Camp,
    Cause,
    Event,
    EventKind,
    GameState,
    IllegalActionError,
    Night,
    NightAction,
    NightWord,
    Resolution,
    RoleId,
    RoleSpec,
    WinSide,
)

HERE = Path(__file__).parent

HUNTER = RoleId.extend("hunter")
SHOOT = ActionKind.extend("shoot")
SHOT = Cause.extend("shot")  # 被猎人击毙


@dataclass(frozen=True, slots=True)
class Shoot:
    """The hunter's registered shot: whom he takes with him if he goes out."""

    kind: ClassVar[ActionKind] = SHOOT
    target: str
    by: str | None = None


HUNTER_ROLE = RoleSpec(
    HUNTER,
    "猎人",
    Camp.CIVILIANS,
    WinSide.CIVILIAN,
    check_label="猎人",
    reveal_label="猎人",
    night_actions=(SHOOT,),
    notice="每晚可私信法官「开枪：X」登记目标；当晚被杀或白天被处决时开枪，X 随即出局。",
)

SHOOT_WORD = NightWord(
    SHOOT,
    "开枪",
    keywords=("开枪", "枪杀"),
    roles=(HUNTER,),
    action=Shoot,
    armed=True,  # kept until he goes out, then fired (the engine's generic hook)
)

#: the causes a shot fires on: killed at night (or in a guardian's place), executed (or in his place)
FIRES_ON = frozenset({Cause.KILLED, Cause.GUARDED_KILL, Cause.EXECUTED, Cause.GUARDED_EXECUTION})


class Hunter(R001):
    """R001 plus one 猎人: 13 players."""

    id = "X-HUNTER"
    name_zh = "13人鬼毒猎人局"
    aliases: ClassVar[tuple[str, ...]] = ("hunter", "猎人局")
    roles: ClassVar[tuple[RoleId, ...]] = (*R001.roles, HUNTER)
    extra_roles: ClassVar[tuple[RoleSpec, ...]] = (HUNTER_ROLE,)
    night_words: ClassVar[tuple[NightWord, ...]] = (*R001.night_words, SHOOT_WORD)
    presets_file = ""  # read by the test from this package: presets.toml
    description = "R001 plus a hunter (猎人) who shoots one player when killed at night or executed."

    def check_action(self, state: GameState, action: NightAction, night_: Night | None) -> None:
        if not isinstance(action, Shoot):
            super().check_action(state, action, night_)
            return
        hunter = action.by
        if hunter is None or not state.has(hunter) or state.player(hunter).role is not HUNTER:
            raise IllegalActionError(f"{hunter} 不是猎人，不能登记开枪", rule="X-HUNTER 猎人")
        if not state.is_alive(hunter):
            raise IllegalActionError(f"{hunter} 已出局，不能再登记开枪", rule="X-HUNTER 猎人")
        if action.target == hunter:
            raise IllegalActionError("猎人不能向自己开枪", rule="X-HUNTER 猎人")
        if not state.is_alive(action.target):
            raise IllegalActionError(f"{action.target} 已出局，不能作为开枪目标", rule="X-HUNTER 猎人")

    def resolve_armed(self, state: GameState, holder: str, action: NightAction) -> Resolution:
        assert isinstance(action, Shoot)
        cause = state.player(holder).cause
        if cause not in FIRES_ON:
            note = f"{holder}（猎人）因{cause}出局，不开枪"
            return Resolution(state, (Event(EventKind.NOTE, JUDGE, note),))
        target = action.target
        if not state.is_alive(target):
            note = f"{holder}（猎人）登记的目标 {target} 已出局，枪声落空"
            return Resolution(state, (Event(EventKind.NOTE, JUDGE, note),))
        players = tuple(
            replace(p, alive=False, cause=SHOT, out_round=state.round) if p.name == target else p
            for p in state.players
        )
        after = replace(state, players=players, out_order=(*state.out_order, target))
        at_night = cause in (Cause.KILLED, Cause.GUARDED_KILL)
        kind = EventKind.CASE_POST if at_night else EventKind.EXECUTION
        text = f"{holder} 是猎人，出局时开枪：{target} 出局"
        data = MappingProxyType({"shot": target, "hunter": holder})
        return Resolution(after, (Event(kind, PUBLIC, text, data),), (target,))
