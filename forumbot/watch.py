"""Running on the game's timetable: poll politely all day, and read everything again at each deadline.

Between deadlines an incremental poll every few minutes is enough (one request when nothing changed).
At a deadline — R001's void cutoff (12:30) and vote close (13:00), R004's change cutoff and close, a
revote's deadline — edits and deletions anywhere in the thread matter, so the watcher runs a full poll
one minute after the deadline and hands the moment to ``on_deadline`` (which tallies and writes the
drafts). The decision of what to do at a given instant is a pure function (:func:`due`), so it is
tested without a clock; :func:`run_forever` wraps it in ``schedule``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum

import schedule

from forumbot.config import Game

GRACE = timedelta(minutes=1)  # boards show minutes: wait for the deadline minute to be over


class MomentKind(StrEnum):
    VOID_CUTOFF = "void_cutoff"
    CHANGE_CUTOFF = "change_cutoff"
    CLOSE = "close"


@dataclass(frozen=True, order=True)
class Moment:
    at: datetime  # UTC: when to act (the deadline plus the grace minute)
    day: int
    kind: MomentKind
    deadline: datetime  # the deadline itself


def moments(game: Game) -> list[Moment]:
    """Every deadline of the game file at which a full re-read is due, in time order."""
    out: list[Moment] = []
    for d in game.days:
        if game.ruleset == "R004":
            out.append(Moment(d.change_cutoff + GRACE, d.day, MomentKind.CHANGE_CUTOFF, d.change_cutoff))
        else:
            out.append(Moment(d.void_cutoff + GRACE, d.day, MomentKind.VOID_CUTOFF, d.void_cutoff))
        out.append(Moment(d.closes + GRACE, d.day, MomentKind.CLOSE, d.closes))
    return sorted(out)


@dataclass
class WatchState:
    handled: set[Moment] = field(default_factory=set)


def due(all_moments: list[Moment], state: WatchState, now: datetime) -> list[Moment]:
    """The deadlines whose moment has come and that were not handled yet.

    Deadlines already long past when the watcher starts are handled once too: a judge who starts
    forumbot after 13:00 still wants the full read and the count.
    """
    return [m for m in all_moments if m.at <= now and m not in state.handled]


@dataclass
class Watcher:
    game: Game
    run_poll: Callable[[bool], object]  # full: bool -> a poll report
    on_deadline: Callable[[Moment], bool | None]  # False: not done (the read was incomplete), retry
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    state: WatchState = field(default_factory=WatchState)
    log: Callable[[str], None] = print

    def tick(self) -> list[Moment]:
        now = self.clock()
        todo = due(moments(self.game), self.state, now)
        if todo:
            local = now.astimezone(self.game.tz)  # the board's zone, as every judge reads the times
            self.log(
                f"{local:%Y-%m-%d %H:%M} ({self.game.timezone}): deadline reached "
                f"({', '.join(m.kind for m in todo)}): full read"
            )
            self.run_poll(True)
            for m in todo:
                # A deadline whose read was incomplete stays due: the next tick reads and judges again.
                if self.on_deadline(m) is not False:
                    self.state.handled.add(m)
        else:
            self.run_poll(False)
        return todo


def run_forever(
    watcher: Watcher,
    every_minutes: float,
    *,
    scheduler: schedule.Scheduler | None = None,
    sleep: Callable[[float], None] = time.sleep,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Tick now, then every ``every_minutes``, until ``stop()`` says so (Ctrl-C in the CLI)."""
    sched = scheduler or schedule.Scheduler()
    watcher.tick()
    sched.every(max(1, round(every_minutes * 60))).seconds.do(watcher.tick)
    while not stop():
        sched.run_pending()
        sleep(1)
