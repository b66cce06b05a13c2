"""The game's timetable as a plan of moments: what is due when, derived from the game file and the facts
the game has produced so far (a revote called, a night resolved, the game won).

A moment has a stable key (``night2/deadline``, ``day1/close``, ``day1/revote1``), so the ledger in the
store can record that it was done, with what, exactly once, however often the plan is recomputed. The
plan is a pure function: the runner recomputes it on every tick from what the store says, which is why a
runner killed at any instant picks up where it was.

Order matters more than time: the moments of a game form one sequence (night 1, day 1's cutoff, day 1's
close, its revotes, night 2 ...). A moment runs only when every earlier moment is done, so a board that is
down at day 1's close delays day 1's close *and everything after it*, never skips it.

Two kinds of moment exist only once the game has made them owed, like a revote once it is called:

- ``dayN/lastwords``, the end of the last-words window after day N (R001 §四.5.3: an executed police
  officer's one post in [讨论], due at the next night's deadline, before that night's check result and
  case post, which wait for it; R004 遗言: the roles out at day N's close and in night N+1, due when
  discussion day N+1 opens, so after night N+1; ``day0`` is night 1's dead);
- ``nightN/extra_check``, the end of R001's extra check window (§五 毒药4, AMB-15: the police checked the
  poison and may check once more within the window after the first result reached them), right after
  night N.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

GRACE = timedelta(minutes=1)  # boards show minutes: act once the deadline's minute is over


class MomentKind(StrEnum):
    """What a moment is; the runner's steps are chosen by it."""

    NIGHT_DEADLINE = "night_deadline"  # read the groups' threads and PMs, resolve night N, draft its posts
    VOID_CUTOFF = "void_cutoff"  # R001: void votes end (12:30): full read, running count
    CHANGE_CUTOFF = "change_cutoff"  # R004: changes end (the last hour): full read, running count
    CLOSE = "close"  # the vote closes: full read, judge the day, call a revote or close the day
    REVOTE_DEADLINE = "revote_deadline"  # a revote's deadline: full read, judge it, close or call again
    LAST_WORDS = "last_words"  # a last-words window ends: read who left them, release what waits for them
    EXTRA_CHECK = "extra_check"  # R001: the extra check's window ends: read it, answer it privately
    SIGNUP_CLOSE = "signup_close"  # the sign-up thread closes: read it, the roles, the identity notices


@dataclass(frozen=True, order=True)
class Moment:
    """One thing due at one time. Sorted by ``at``, then by the order of the game's sequence."""

    at: datetime  # UTC: when to act (the deadline plus the grace minute)
    seq: int  # position in the game's sequence (ties at one time run in this order)
    key: str  # stable, unique in a game: the ledger's key
    kind: MomentKind = field(compare=False)
    round: int = field(compare=False)  # the night's or the day's number
    deadline: datetime = field(compare=False)  # the deadline itself (UTC)
    number: int = field(default=0, compare=False)  # the revote's number for REVOTE_DEADLINE


@dataclass(frozen=True)
class DayTimes:
    """The times of one game day that the plan needs (all UTC)."""

    day: int
    cutoff: datetime  # the void cutoff (R001) or change cutoff (R004)
    closes: datetime
    night_deadline: datetime  # the next night's deadline (night day+1)


@dataclass(frozen=True)
class Facts:
    """What the game has produced so far, read from the store by the runner.

    ``revotes`` maps a day to its called revotes as (number, deadline); ``last_words`` maps a day N to
    the deadline of the last words owed after it (N = 0: night 1's dead, R004); ``extra_checks`` maps a
    night to the end of its extra check's window (R001); ``over`` is set once a win check ended the
    game.
    """

    revotes: Mapping[int, Sequence[tuple[int, datetime]]] = field(default_factory=dict)
    last_words: Mapping[int, datetime] = field(default_factory=dict)
    extra_checks: Mapping[int, datetime] = field(default_factory=dict)
    over: bool = False


def plan(
    *,
    cutoff_kind: MomentKind,
    night1_deadline: datetime | None,
    days: Sequence[DayTimes],
    facts: Facts = Facts(),
    last_night: bool = False,
    signup_close: datetime | None = None,
) -> list[Moment]:
    """Every moment of the game, in the order they are to be done.

    ``cutoff_kind`` is the rule set's cutoff (VOID_CUTOFF for R001 and R000, CHANGE_CUTOFF for R004).
    Night N's deadline comes from the day before (night 1: the timetable's first night). A game that is
    over plans nothing more: the ledger keeps what was done. ``last_night``: the night after the game
    file's last day is played too (its deadline is that day's ``night_deadline``): a game file often
    lists only the days, and the last night may end the game. ``signup_close``: the sign-up thread's
    close (``[signup]``), the game's first moment.
    """
    out: list[Moment] = []
    seq = 0

    def add(kind: MomentKind, rnd: int, deadline: datetime, key: str, number: int = 0) -> None:
        nonlocal seq
        out.append(Moment(deadline + GRACE, seq, key, kind, rnd, deadline, number))
        seq += 1

    def night(n: int, deadline: datetime) -> None:
        add(MomentKind.NIGHT_DEADLINE, n, deadline, f"night{n}/deadline")
        if n in facts.extra_checks:
            add(MomentKind.EXTRA_CHECK, n, facts.extra_checks[n], f"night{n}/extra_check")

    def last_words(n: int) -> None:
        add(MomentKind.LAST_WORDS, n, facts.last_words[n], f"day{n}/lastwords")

    if signup_close is not None:
        add(MomentKind.SIGNUP_CLOSE, 0, signup_close, "signup/close")
    if night1_deadline is not None:
        night(1, night1_deadline)
        if 0 in facts.last_words:
            last_words(0)
    ordered = sorted(days, key=lambda d: d.day)
    for i, d in enumerate(ordered):
        add(cutoff_kind, d.day, d.cutoff, f"day{d.day}/{cutoff_kind.value}")
        add(MomentKind.CLOSE, d.day, d.closes, f"day{d.day}/close")
        for number, deadline in sorted(facts.revotes.get(d.day, ())):
            add(MomentKind.REVOTE_DEADLINE, d.day, deadline, f"day{d.day}/revote{number}", number)
        has_next = i + 1 < len(ordered) and ordered[i + 1].day == d.day + 1
        plays_night = has_next or (last_night and i + 1 == len(ordered))
        words = facts.last_words.get(d.day)
        # R001's words end at the next night's deadline, before the night's results (which wait for
        # them); R004's when the next day opens, after the night (whose dead owe words too).
        if words is not None and (not plays_night or words <= d.night_deadline):
            last_words(d.day)
            words = None
        if plays_night:
            night(d.day + 1, d.night_deadline)
        if words is not None:
            last_words(d.day)
    return out


def due(moments: Sequence[Moment], done: set[str], now: datetime) -> list[Moment]:
    """The moments to run now, in sequence order: every not-done moment whose time has come, stopping at
    the first one that is not due yet (nothing runs ahead of an earlier moment)."""
    todo: list[Moment] = []
    for m in moments:
        if m.key in done:
            continue
        if m.at > now:
            break
        todo.append(m)
    return todo


def upcoming(moments: Sequence[Moment], done: set[str], limit: int = 5) -> list[Moment]:
    """The next moments not done yet, for ``forumbot status``."""
    return [m for m in moments if m.key not in done][:limit]
