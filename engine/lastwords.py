"""Last words (遗言): who may leave them, where, until when, and what waits for them.

R001 §四.5.3 (AMB-31): a police officer executed by the vote gets exactly one post in [讨论], between the
verdict and the next case post. The judges give the police the night's check result and post the new
case post only once he has posted it, at the latest at the next night's deadline (17:00); after that his
words are forfeited.

R004 (遗言, AMB-77): the first *L* roles out get a last-words slot (a red-carded role uses a slot but gets
no words). They submit their words before the next discussion day starts; the director publishes them in
the day-start post (公示前一天出局角色名单及遗言). Words not submitted by then are forfeited. No Discuz! code
is allowed in them (:func:`last_words_text_problem`).

``engine.last_words_windows(state, due)`` asks the game's rule set (``RuleSet.last_words_windows``);
the builders here are the families' readings. The engine has no clock and no timetable: the caller
gives the one moment the rule set's deadline is (R001: the next night's deadline; R004: the start of
the next discussion day) and, for each player, when his words were posted (R001: read from the
discussion thread; R004: received by the director). A post at exactly the deadline's minute is in
time, like a night submission (forum times are to the minute).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, tzinfo
from enum import StrEnum

from engine.flags_night import NightFlags
from engine.state import GameState, Phase

__all__ = [
    "HeldRelease",
    "LastWordsStatus",
    "LastWordsWindow",
    "held_until",
    "last_words_text_problem",
    "police_officer_window",
    "publishable_last_words",
    "slot_windows",
]


class LastWordsStatus(StrEnum):
    OPEN = "open"  # he may still post / submit them
    POSTED = "posted"  # posted in time
    FORFEITED = "forfeited"  # the deadline passed without them


@dataclass(frozen=True, slots=True)
class LastWordsWindow:
    """One player's right to leave last words.

    ``where``: ``"discussion"`` (R001: his own single post in [讨论]) or ``"director"`` (R004: submitted
    to the director, published in the day-start post). ``due``: the deadline (inclusive, to the minute).
    ``holds``: the judges' items that wait for these words (R001: ``check_result`` and ``case_post`` of
    night ``round``; R004: the ``day_start`` post of day ``round``). ``bbcode_allowed``: R004 forbids
    Discuz! code in them.
    """

    player: str
    round: int
    where: str
    due: datetime
    holds: tuple[str, ...]
    bbcode_allowed: bool
    rule: str

    def status(self, at: datetime, posted_at: datetime | None) -> LastWordsStatus:
        """Where he stands at moment ``at`` given when (if ever) his words were posted."""
        if posted_at is not None and posted_at <= self.due and posted_at <= at:
            return LastWordsStatus.POSTED
        return LastWordsStatus.FORFEITED if at > self.due else LastWordsStatus.OPEN

    def reason_zh(self, at: datetime, posted_at: datetime | None) -> str:
        """The judge's one-line reading of this window at ``at`` (Chinese)."""
        s = self.status(at, posted_at)
        if s is LastWordsStatus.POSTED:
            return f"{self.player} 已留遗言（{self.rule}）"
        if s is LastWordsStatus.FORFEITED:
            return f"{self.player} 未在截止前留遗言，视为放弃（{self.rule}）"
        place = "于[讨论]发表一次" if self.where == "discussion" else "向导演提交（不得使用Discuz!代码）"
        return f"{self.player} 可{place}遗言，截止前等待（{self.rule}）"


def police_officer_window(state: GameState, due: datetime) -> tuple[LastWordsWindow, ...]:
    """R001 §四.5.3: the executed police officer's one post in [讨论]."""
    name = state.police_last_words
    if name is None:
        return ()
    return (
        LastWordsWindow(
            player=name,
            round=state.round,
            where="discussion",
            due=due,
            holds=("check_result", "case_post"),
            bbcode_allowed=True,
            rule="R001 §四.5.3, AMB-31",
        ),
    )


def slot_windows(state: GameState, due: datetime) -> tuple[LastWordsWindow, ...]:
    """R004 遗言: the roles with a slot out since the last day-start post, due before the next one."""
    out = state.since_day_start if state.phase is Phase.NIGHT else state.day_start_out
    return tuple(
        LastWordsWindow(
            player=name,
            round=state.round,
            where="director",
            due=due,
            holds=("day_start",),
            bbcode_allowed=False,
            rule="R004 遗言, AMB-77",
        )
        for name in out
        if name in state.lastwords
    )


@dataclass(frozen=True, slots=True)
class HeldRelease:
    """When the items held for last words go out.

    ``released_at``: the moment the hold is lifted — when the last of the awaited words was posted, or the
    deadline for those never posted (at the latest ``ready_at``, when the items themselves were ready,
    e.g. the night's submissions); None while some words are still awaited at ``at`` (``pending``).
    Nothing to wait for and no ``ready_at``: released at ``at``. ``forfeited``: who lost his words;
    ``reason``: the judge's line (Chinese).
    """

    holds: tuple[str, ...]
    waits_for: tuple[str, ...]
    released_at: datetime | None
    forfeited: tuple[str, ...]
    reason: str
    pending: tuple[str, ...] = ()

    @property
    def held(self) -> bool:
        """Whether the items must still wait at the moment asked."""
        return self.released_at is None


def held_until(
    windows: tuple[LastWordsWindow, ...],
    posted: Mapping[str, datetime],
    at: datetime,
    *,
    ready_at: datetime | None = None,
    display_tz: tzinfo | None = None,
) -> HeldRelease:
    """Whether the items the windows hold may go out at ``at``, and from when.

    ``posted``: player → when his words were posted (absent: not yet / never). No window: nothing is
    held (released at ``ready_at``, or at ``at``). ``display_tz``: the board's zone for the reason's times.
    """
    holds = tuple(dict.fromkeys(h for w in windows for h in w.holds))
    waits = tuple(w.player for w in windows)
    lifts: list[datetime] = []
    forfeited: list[str] = []
    pending: list[str] = []
    for w in windows:
        when = posted.get(w.player)
        s = w.status(at, when)
        if s is LastWordsStatus.POSTED:
            assert when is not None
            lifts.append(when)
        elif s is LastWordsStatus.FORFEITED:
            lifts.append(w.due)
            forfeited.append(w.player)
        else:
            pending.append(w.player)
    if pending:
        due = min(w.due for w in windows if w.player in pending)
        local = due.astimezone(display_tz) if display_tz is not None else due
        why = f"等待 {'、'.join(pending)} 的遗言（最迟至截止 {local.month}/{local.day} {local:%H:%M}）"
        return HeldRelease(holds, waits, None, tuple(forfeited), why, tuple(pending))
    lifted = max(lifts) if lifts else None
    if ready_at is not None:
        lifted = ready_at if lifted is None else max(lifted, ready_at)
    if lifted is None:
        lifted = at  # nothing to wait for
    reason = (
        "无需等待遗言"
        if not windows
        else "遗言已发布"
        if not forfeited
        else f"{'、'.join(forfeited)} 放弃遗言"
    )
    return HeldRelease(holds, waits, lifted, tuple(forfeited), reason)


_BBCODE = re.compile(r"\[/?(?:[a-z]+|\*)(?:=[^\]]*)?\]", re.I)


def last_words_text_problem(text: str, *, bbcode_allowed: bool) -> str | None:
    """Why these words may not be published as they are (Chinese), or None. R004: no Discuz! code."""
    if bbcode_allowed:
        return None
    found = sorted({m.group(0) for m in _BBCODE.finditer(text)})
    if found:
        return f"遗言中禁止使用Discuz!代码（{' '.join(found[:5])}）"
    return None


def publishable_last_words(window: LastWordsWindow, text: str, flags: NightFlags) -> tuple[str | None, str]:
    """(the text to publish, or None if refused; the judge's note in Chinese) for words received.

    Discuz! code in R004 words is refused (the role may resubmit before ``window.due``) or stripped,
    per ``flags.r004_last_words_with_code`` (a new reading filed under AMB-77).
    """
    problem = last_words_text_problem(text, bbcode_allowed=window.bbcode_allowed)
    if problem is None:
        return text, ""
    if flags.r004_last_words_with_code == "stripped":
        return _BBCODE.sub("", text).strip(), f"{problem}：已去除代码后公示"
    return None, f"{problem}：不予公示，可在截止前重新提交"
