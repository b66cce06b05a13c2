"""Events: what the engine says, to whom.

Every resolution returns an ordered tuple of :class:`Event`. Each carries an :class:`Audience`:

* ``PUBLIC``  — the case post / day-start post / vote-result post (never a hidden identity);
* ``GROUP``   — a private group (police, bandits, killers, lovers, kidnapped), named by :class:`GroupId`;
* ``PLAYER``  — one player (by role name);
* ``JUDGE``   — a note for the judge team only (reminders, warnings, random draws with their seed).

``text`` is the Chinese wording to post or send (the rules' own where they give one); ``data`` holds the
same facts as JSON-able values for the caller (names, labels, counters).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from engine.outcome import Outcome
from engine.roles import GroupId
from engine.state import GameState


class AudienceKind(StrEnum):
    PUBLIC = "public"
    GROUP = "group"
    PLAYER = "player"
    JUDGE = "judge"


@dataclass(frozen=True, slots=True)
class Audience:
    kind: AudienceKind
    name: str | None = None  # the GroupId value or the player's name

    def __str__(self) -> str:
        return self.kind.value if self.name is None else f"{self.kind.value}:{self.name}"

    @staticmethod
    def parse(text: str) -> Audience:
        """``"public"``, ``"judge"``, ``"group:police"``, ``"player:Cal"`` → Audience."""
        kind, _, name = text.partition(":")
        return Audience(AudienceKind(kind), name or None)


PUBLIC = Audience(AudienceKind.PUBLIC)
JUDGE = Audience(AudienceKind.JUDGE)


def to_group(group: GroupId) -> Audience:
    return Audience(AudienceKind.GROUP, group.value)


@lru_cache(maxsize=4096)
def to_player(name: str) -> Audience:
    return Audience(AudienceKind.PLAYER, name)


class EventKind(StrEnum):
    # public
    CASE_POST = "case_post"  # R001: 死者名单 + 杀文 / 今晚平安夜
    DAY_START = "day_start"  # R004: 前一天出局角色名单 / 昨夜无人出局
    EXECUTION = "execution"  # X 被处决，身份：… / R004: X 出局
    GUARDED_EXECUTION = "guarded_execution"  # AMB-50 wording
    DOUBLE_KILL = "double_kill"  # 双杀票数 (AMB-40)
    NO_EXECUTION = "no_execution"  # 平安夜，无人票死 / 无人出局
    DROWNING = "drowning"  # X 淹死
    SENT_OFF = "sent_off"  # AMB-33
    RED_CARD = "red_card"  # R004 红牌罚下
    GAME_OVER = "game_over"  # winner + every identity
    # private
    CHECK_RESULT = "check_result"
    EXTRA_CHECK_GRANTED = "extra_check_granted"
    POISON_CHECKED = "poison_checked"  # 警察已经验过您，知晓您的身份了
    POSSESSION = "possession"  # 附体成功 / 附体未生效 / 你方人员遭遇附体，但未生效 / possessed notice
    PLEDGE = "pledge"  # 目标为毒药，X 依生死状同死
    GUARDIAN_CONVERTED = "guardian_converted"  # R000-G2 rule 6
    LAST_WORDS = "last_words"  # an executed police officer's one post; R004 last-words eligibility
    OUT_NOTICE = "out_notice"  # R004 feedback 1
    SPY_RESULT = "spy_result"
    REJOIN = "rejoin"  # 归队
    LOVERS = "lovers"
    KIDNAPPED = "kidnapped"
    AUTHORITY = "authority"  # 威权: must pass / 你获得<威权>
    ALERT = "alert"  # 警戒
    FORFEITED = "forfeited"  # a late or void submission
    NOTE = "note"  # judge note


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    audience: Audience
    text: str
    data: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def public(self) -> bool:
        return self.audience.kind is AudienceKind.PUBLIC


def event(kind: EventKind, audience: Audience, text: str, **data: Any) -> Event:
    return Event(kind, audience, text, MappingProxyType(data))


def event_to_dict(ev: Event) -> dict[str, Any]:
    return {"kind": ev.kind.value, "audience": str(ev.audience), "text": ev.text, "data": _plain(ev.data)}


def event_from_dict(data: Mapping[str, Any]) -> Event:
    return Event(
        EventKind(data["kind"]),
        Audience.parse(data["audience"]),
        data["text"],
        MappingProxyType(dict(data.get("data", {}))),
    )


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list | frozenset | set):
        items = [_plain(v) for v in value]
        return sorted(items) if isinstance(value, frozenset | set) else items
    return value


@dataclass(frozen=True, slots=True)
class Resolution:
    """What a resolution step returns: the new state and the ordered events it produced.

    ``out`` lists who went out in this step, in order (R004: the eliminated part of the out-list;
    R001: the dead list of the case post, or the day's eliminations).
    """

    state: GameState
    events: tuple[Event, ...] = ()
    out: tuple[str, ...] = ()

    @property
    def outcome(self) -> Outcome | None:
        return self.state.outcome

    def public(self) -> tuple[Event, ...]:
        return tuple(e for e in self.events if e.public)

    def to(self, audience: Audience | str) -> tuple[Event, ...]:
        aud = Audience.parse(audience) if isinstance(audience, str) else audience
        return tuple(e for e in self.events if e.audience == aud)
