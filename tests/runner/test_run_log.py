"""``forumbot run``'s log (issue 22 f): every line starts with its time in the board's zone, and once the
plan is complete the board is no longer read and ``run`` stops instead of polling a finished game."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import schedule

from forumbot.runner.tick import Runner, run_forever
from forumbot.store.db import Store, open_store
from tests.runner.test_tick import FakeSteps, r001_plan

BJ = ZoneInfo("Asia/Shanghai")
STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\] ")


class CountingSteps(FakeSteps):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.reads = 0
        self.sends = 0

    def read(self) -> str:
        self.reads += 1
        return super().read()

    def send(self) -> str:
        self.sends += 1
        return "0 sent"


@pytest.fixture
def store() -> Iterator[Store]:
    st = open_store("sqlite://")
    st.create_tables()
    yield st
    st.close()


def test_each_log_line_starts_with_its_time_in_the_boards_zone(store: Store) -> None:
    steps = CountingSteps(r001_plan(2))
    now = datetime(2026, 6, 3, 9, 5, 7, tzinfo=UTC)  # 17:05:07 in Beijing
    lines: list[str] = []
    Runner(store, steps, clock=lambda: now, log=lines.append, tz=BJ).tick()
    assert lines and all(STAMP.match(line) for line in lines)
    assert {STAMP.match(line).group(1) for line in lines} == {"2026-06-03 17:05:07"}  # type: ignore[union-attr]


def test_a_complete_plan_is_not_read_again(store: Store) -> None:
    steps = CountingSteps(r001_plan(1))
    end = steps.moments[-1].at + timedelta(hours=1)
    lines: list[str] = []
    runner = Runner(store, steps, clock=lambda: end, log=lines.append, tz=BJ)
    first = runner.tick()  # does every moment: the plan is complete after it
    assert first.complete and steps.reads == 1
    lines.clear()
    again = runner.tick()
    assert again.complete and steps.reads == 1  # no read of a finished game
    assert steps.sends == 2  # what the judges approved is still sent
    assert any("计划已完成" in line for line in lines)


def test_an_unfinished_plan_is_not_complete(store: Store) -> None:
    steps = CountingSteps(r001_plan(2))
    runner = Runner(store, steps, clock=lambda: steps.moments[0].at, log=lambda _l: None, tz=BJ)
    assert not runner.tick().complete and steps.reads == 1


def test_run_stops_once_the_plan_is_complete(store: Store) -> None:
    steps = CountingSteps(r001_plan(1))
    times = [steps.moments[0].at]  # the first tick: only night 1 is due

    lines: list[str] = []
    runner = Runner(store, steps, clock=lambda: times[0], log=lines.append, tz=BJ)
    sched = schedule.Scheduler()
    loops = [0]

    def sleep(_s: float) -> None:
        loops[0] += 1
        times[0] = steps.moments[-1].at + timedelta(hours=1)  # the game's last moment has passed
        for job in sched.jobs:  # pretend the interval has passed
            job.next_run = datetime.now()

    run_forever(runner, 300, scheduler=sched, sleep=sleep, stop=lambda: loops[0] > 50)
    assert loops[0] < 50  # it stopped by itself, not by ``stop``
    assert steps.ran == [m.key for m in steps.moments]
    assert steps.reads == 2  # the first tick and the one that finished the plan: no more
    assert sched.jobs == []
    assert "计划已完成" in lines[-1] and "停止" in lines[-1] and STAMP.match(lines[-1])
