"""One step of the game's timetable, and the loop that repeats it.

``tick(now)`` is idempotent: it recomputes the plan from the store, records any new moment in the ledger,
reads what changed on the board, then does every due moment in the game's order, each one claimed in the
ledger before its work and marked done after it. ``forumbot tick`` (for cron or a systemd timer) calls it
once; ``forumbot run`` calls it on a ``schedule`` every few minutes. Both are the same code, so a judge can
switch between them at any time, and a runner killed at any instant is picked up by the next tick.

What a moment *does* (read the board completely, resolve a night, judge a day, write the outbox items) is
the job of a :class:`Steps` object: the desk's workflow behind a small interface, so this module holds only
the order and the bookkeeping and is tested with fake steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import schedule

from forumbot.i18n import _
from forumbot.runner import ledger
from forumbot.runner.ledger import MomentStatus
from forumbot.runner.plan import Moment, due
from forumbot.store.db import Store


class Delay(Exception):
    """The moment cannot be done yet (the board is down, a read is incomplete): try again next tick."""


class WaitForJudge(Exception):
    """The moment needs a judge first (no roles stored, a doubt only a judge can settle)."""


@dataclass(frozen=True)
class StepResult:
    note: str = ""
    result: dict[str, Any] = field(default_factory=dict)


class Steps(Protocol):
    """The desk's workflow as the runner sees it."""

    game_id: int

    def plan(self) -> list[Moment]:
        """Every moment of the game, in order (from the game file and what the store says)."""
        ...

    def read(self) -> str:
        """An incremental read of the watched threads; returns a one-line summary; raises on failure."""
        ...

    def run(self, moment: Moment, now: datetime) -> StepResult:
        """Do the moment's work; idempotent; raises :class:`Delay` or :class:`WaitForJudge`."""
        ...

    def send(self) -> str:
        """Send what the judges approved; returns a one-line summary."""
        ...


@dataclass
class TickReport:
    at: datetime
    read: str = ""
    read_error: str = ""
    done: list[str] = field(default_factory=list)
    delayed: dict[str, str] = field(default_factory=dict)
    waiting: dict[str, str] = field(default_factory=dict)
    sent: str = ""
    send_error: str = ""

    def lines(self) -> list[str]:
        """The tick's status lines for the judge (``forumbot tick``/``run``), in the judge's language."""
        out = [_("read: {summary}").format(summary=self.read or self.read_error)]
        out += [_("done: {moment}").format(moment=k) for k in self.done]
        out += [_("delayed: {moment}: {why}").format(moment=k, why=why) for k, why in self.delayed.items()]
        out += [
            _("waiting for a judge: {moment}: {why}").format(moment=k, why=why)
            for k, why in self.waiting.items()
        ]
        if self.sent or self.send_error:
            out.append(_("outbox: {sent}").format(sent=self.sent or self.send_error))
        return out


class Runner:
    """The timetable keeper for one game: ``tick`` once, or ``run`` on a schedule."""

    def __init__(
        self,
        store: Store,
        steps: Steps,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        log: Callable[[str], None] = print,
    ) -> None:
        self.store = store
        self.steps = steps
        self.clock = clock
        self.log = log

    def sync(self) -> list[Moment]:
        """Record every moment of the current plan in the ledger; return the plan."""
        moments = self.steps.plan()
        with self.store.session() as s:
            for m in moments:
                ledger.ensure(s, self.steps.game_id, m.key, m.kind.value, m.round, m.at, m.deadline)
            s.commit()
        return moments

    def done_keys(self) -> set[str]:
        with self.store.session() as s:
            recs = ledger.records(s, self.steps.game_id)
        return {k for k, r in recs.items() if r.status is MomentStatus.DONE}

    def tick(self) -> TickReport:
        now = self.clock()
        report = TickReport(at=now)
        try:
            report.read = self.steps.read()
        except Exception as exc:  # the board is down: moments needing it will say so themselves
            report.read_error = f"{type(exc).__name__}: {exc}"
        while True:
            moments = self.sync()
            todo = due(moments, self.done_keys(), now)
            if not todo:
                break
            m = todo[0]
            if not self._do(m, now, report):
                break  # a moment that could not be done holds back everything after it
        try:
            report.sent = self.steps.send()
        except Exception as exc:
            report.send_error = f"{type(exc).__name__}: {exc}"
        for line in report.lines():
            self.log(line)
        return report

    def _set(self, m: Moment, status: MomentStatus, now: datetime, note: str, result: dict[str, Any]) -> None:
        with self.store.session() as s:
            ledger.finish(s, self.steps.game_id, m.key, status, now, note, result)
            s.commit()

    def _do(self, m: Moment, now: datetime, report: TickReport) -> bool:
        with self.store.session() as s:
            ledger.claim(s, self.steps.game_id, m.key, now)
            s.commit()
        try:
            res = self.steps.run(m, now)
        except Delay as exc:
            self._set(m, MomentStatus.DELAYED, now, str(exc), {})
            report.delayed[m.key] = str(exc)
            return False
        except WaitForJudge as exc:
            self._set(m, MomentStatus.WAITING, now, str(exc), {})
            report.waiting[m.key] = str(exc)
            return False
        except Exception as exc:  # a board error or a bug: keep the reason, try again next tick
            why = f"{type(exc).__name__}: {exc}"
            self._set(m, MomentStatus.DELAYED, now, why, {})
            report.delayed[m.key] = why
            return False
        self._set(m, MomentStatus.DONE, now, res.note, res.result)
        report.done.append(m.key)
        return True


def run_forever(
    runner: Runner,
    every_seconds: float,
    *,
    scheduler: schedule.Scheduler | None = None,
    sleep: Callable[[float], None] = time.sleep,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Tick now, then every ``every_seconds`` on a ``schedule``, until ``stop()`` says so."""
    sched = scheduler or schedule.Scheduler()
    runner.tick()
    sched.every(max(1, round(every_seconds))).seconds.do(runner.tick)
    while not stop():
        sched.run_pending()
        sleep(1)
