"""One step of the game's timetable, and the loop that repeats it.

``tick(now)`` is idempotent: it recomputes the plan from the store, records any new moment in the ledger,
reads what changed on the board, then does every due moment in the game's order, each one claimed in the
ledger before its work and marked done after it. ``forumbot tick`` (for cron or a systemd timer) calls it
once; ``forumbot run`` calls it on a ``schedule`` every few minutes. Both are the same code, so a judge can
switch between them at any time, and a runner killed at any instant is picked up by the next tick.

Every line the runner logs starts with its time in the board's zone (a judge reading the log of a
night's run must know when each read and moment happened, in the time the game's deadlines are in).

Once the plan is complete (every moment of a non-empty plan done: the game is over or the game file's
timetable has run out) a tick no longer reads the board; it still sends what the judges approved (no
request when there is none). ``run`` then stops with «计划已完成» instead of polling a finished game
every few minutes; a judge who adds days to the game file starts it again.

When nothing is due, the next moment may be done before its time if the steps say it is ready
(:meth:`Steps.ready_early`: a night whose every required submission is in, where the game file allows
it); a try that turns out not ready (:class:`NotYet`) leaves the moment pending, as if never tried.

What a moment *does* (read the board completely, resolve a night, judge a day, write the outbox items) is
the job of a :class:`Steps` object: the desk's workflow behind a small interface, so this module holds only
the order and the bookkeeping and is tested with fake steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any, Protocol

import schedule

from forumbot.errors import ForumbotError
from forumbot.i18n import _
from forumbot.labels import moment_words
from forumbot.runner import ledger
from forumbot.runner.ledger import MomentStatus
from forumbot.runner.plan import Moment, due
from forumbot.store.db import Store


class Delay(Exception):
    """The moment cannot be done yet (the board is down, a read is incomplete): try again next tick."""


class WaitForJudge(Exception):
    """The moment needs a judge first (no roles stored, a doubt only a judge can settle)."""


class NotYet(Delay):
    """A moment tried before its time (an early night resolution) is not ready after all: it goes back
    to pending and runs at its time, or early at a later tick."""


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
        """Do the moment's work; idempotent; raises :class:`Delay` or :class:`WaitForJudge`.

        ``now`` may come before ``moment.at`` when :meth:`ready_early` allowed it."""
        ...

    def ready_early(self, moment: Moment, now: datetime) -> bool:
        """May the next moment be done now, before its time (e.g. a night whose every required
        submission is in, where the rules allow it)? Changes nothing; may raise (then: no)."""
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
    not_yet: dict[str, str] = field(default_factory=dict)  # tried early, not ready after all
    early_error: str = ""  # the early check could not read the board
    complete: bool = False  # every moment of the plan is done: nothing more to read
    deferred_until: datetime | None = None  # the board's Retry-After: no request before then
    tz: tzinfo = UTC  # the board's zone, for the times in the lines

    def lines(self) -> list[str]:
        """The tick's status lines for the judge (``forumbot tick``/``run``), in the judge's language."""
        out: list[str] = []
        if self.read or self.read_error or not (self.complete or self.deferred_until):
            out.append(_("read: {summary}").format(summary=self.read or self.read_error))
        out += [_("done: {moment}").format(moment=moment_words(k)) for k in self.done]
        out += [
            _("not yet: {moment}: {why}").format(moment=moment_words(k), why=why)
            for k, why in self.not_yet.items()
        ]
        if self.early_error:
            out.append(_("early check: {error}").format(error=self.early_error))
        out += [
            _("delayed: {moment}: {why}").format(moment=moment_words(k), why=why)
            for k, why in self.delayed.items()
        ]
        out += [
            _("waiting for a judge: {moment}: {why}").format(moment=moment_words(k), why=why)
            for k, why in self.waiting.items()
        ]
        if self.sent or self.send_error:
            out.append(_("outbox: {sent}").format(sent=self.sent or self.send_error))
        if self.complete:
            out.append(_("the plan is done: the board is no longer read"))
        if self.deferred_until is not None:
            out.append(
                _("the board asked us to wait (Retry-After): no request before {at}").format(
                    at=self.deferred_until.astimezone(self.tz).strftime("%Y-%m-%d %H:%M:%S")
                )
            )
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
        tz: tzinfo = UTC,
    ) -> None:
        self.store = store
        self.steps = steps
        self.clock = clock
        self.log = log
        self.tz = tz  # the board's zone: the time each log line starts with

    def say(self, line: str) -> None:
        """Log one line, stamped with the clock's time in the board's zone."""
        stamp = self.clock().astimezone(self.tz).strftime("%Y-%m-%d %H:%M:%S")
        self.log(f"[{stamp}] {line}")

    def plan_complete(self) -> bool:
        """Is every moment of the plan done? False for an empty plan (nothing planned is not "done")."""
        moments = self.sync()
        done = self.done_keys()
        return bool(moments) and all(m.key in done for m in moments)

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

    def rate_limited_until(self, now: datetime) -> datetime | None:
        """Until when the board asked us not to come back (its Retry-After, stored by the steps), if
        later than ``now``; steps without a board (the tests' fakes) are never rate-limited."""
        ask = getattr(self.steps, "rate_limited_until", None)
        return ask(now) if callable(ask) else None

    def tick(self) -> TickReport:
        """One step (see the module doc). While the board's Retry-After has not passed, nothing is
        asked of the board: the tick only says until when it waits (issue 19)."""
        now = self.clock()
        report = TickReport(at=now, tz=self.tz)
        report.deferred_until = self.rate_limited_until(now)
        if report.deferred_until is not None:
            for line in report.lines():
                self.say(line)
            return report
        if self.plan_complete():  # the game is over: no read, only what judges approved is sent
            report.complete = True
            self._send(report)
            return report
        try:
            report.read = self.steps.read()
        except Exception as exc:  # the board is down: moments needing it will say so themselves
            report.read_error = _said(exc)
        while True:
            moments = self.sync()
            done = self.done_keys()
            todo = due(moments, done, now)
            m = todo[0] if todo else self._early(moments, done, now, report)
            if m is None:
                break
            if not self._do(m, now, report):
                break  # a moment that could not be done holds back everything after it
        report.complete = self.plan_complete()
        report.deferred_until = self.rate_limited_until(self.clock())  # a 429 met during this tick
        if report.deferred_until is None:
            self._send(report)
        else:
            for line in report.lines():
                self.say(line)
        return report

    def _send(self, report: TickReport) -> None:
        """Send what the judges approved, then log the tick's lines."""
        try:
            report.sent = self.steps.send()
        except Exception as exc:
            report.send_error = _said(exc)
        for line in report.lines():
            self.say(line)

    def _early(
        self, moments: list[Moment], done: set[str], now: datetime, report: TickReport
    ) -> Moment | None:
        """The next moment, when nothing is due and the steps say it may be done before its time."""
        nxt = next((m for m in moments if m.key not in done), None)
        if nxt is None or nxt.at <= now:
            return None
        try:
            ready = self.steps.ready_early(nxt, now)
        except Exception as exc:  # the board is down: the moment waits for its time
            report.early_error = f"{nxt.key}: {type(exc).__name__}: {exc}"
            return None
        return nxt if ready else None

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
        except NotYet as exc:  # tried early and not ready after all: as if never tried
            self._set(m, MomentStatus.PENDING, now, str(exc), {})
            report.not_yet[m.key] = str(exc)
            return False
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
    """Tick now, then every ``every_seconds`` on a ``schedule``, until ``stop()`` says so or the plan is
    complete (see the module doc: a finished game is not polled)."""
    sched = scheduler or schedule.Scheduler()
    complete = [runner.tick().complete]

    def job() -> Any:
        complete[0] = runner.tick().complete
        return schedule.CancelJob if complete[0] else None

    if not complete[0]:
        sched.every(max(1, round(every_seconds))).seconds.do(job)
    while not complete[0] and not stop():
        sched.run_pending()
        sleep(1)
    if complete[0]:
        runner.say(_("the plan is done: forumbot run stops"))


def _said(exc: Exception) -> str:
    """An error as the judge reads it: our own errors are already one sentence (a board that is down:
    its URL and the cause); anything else keeps its type name, which is what a bug report needs."""
    return str(exc) if isinstance(exc, ForumbotError) else f"{type(exc).__name__}: {exc}"
