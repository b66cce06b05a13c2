"""What `forumbot watch` did, now the runner's (forumbot/watch.py was folded into forumbot/runner): the
deadlines of a game file are the void cutoff and the close plus the grace minute, nothing is due before
that minute is over, and `run` ticks on its schedule."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import schedule

from forumbot.config import game_from_dict
from forumbot.runner.plan import MomentKind, due
from forumbot.runner.steps import BoardSteps
from forumbot.runner.tick import Runner, run_forever
from forumbot.store.db import open_store

GAME = game_from_dict(
    {
        "game": {"ruleset": "R001"},
        "board": {"url": "https://bbs.example.com/"},
        "players": {"roster": ["甲", "乙"]},
        "timetable": {"first_night": "2026-06-03"},
        "days": [{"day": 1, "vote": 3}, {"day": 2, "vote": 5}],
    }
)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_r001_deadlines_are_the_void_cutoff_and_the_close_plus_one_minute(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "g.db")) as store:
        ms = BoardSteps(GAME, store).plan()
    assert [(m.key, m.kind, m.at) for m in ms[:3]] == [
        ("night1/deadline", MomentKind.NIGHT_DEADLINE, at("2026-06-03 09:01")),  # 17:01 Beijing
        ("day1/void_cutoff", MomentKind.VOID_CUTOFF, at("2026-06-04 04:31")),  # 12:31 Beijing
        ("day1/close", MomentKind.CLOSE, at("2026-06-04 05:01")),  # 13:01 Beijing
    ]
    # night 2 after day 1, and the night after the file's last day (it may end the game)
    assert [m.key for m in ms[3:]] == ["night2/deadline", "day2/void_cutoff", "day2/close", "night3/deadline"]


def test_r004_days_have_the_change_cutoff(tmp_path: Path) -> None:
    game = game_from_dict(
        {
            "game": {"ruleset": "R004"},
            "board": {"url": "https://bbs.example.com/"},
            "players": {"roster": ["甲", "乙"]},
            "timetable": {"first_night": "2026-06-03"},
            "days": [{"day": 1, "vote": 3}],
        }
    )
    with open_store(str(tmp_path / "g.db")) as store:
        kinds = [m.kind for m in BoardSteps(game, store).plan()]
    assert MomentKind.CHANGE_CUTOFF in kinds and MomentKind.VOID_CUTOFF not in kinds


def test_nothing_is_due_before_the_grace_minute_ends(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "g.db")) as store:
        ms = BoardSteps(GAME, store).plan()
    done = {"night1/deadline"}
    assert due(ms, done, at("2026-06-04 04:30:59")) == []
    assert [m.kind for m in due(ms, done, at("2026-06-04 04:31"))] == [MomentKind.VOID_CUTOFF]


class _Steps:
    game_id = 1

    def __init__(self) -> None:
        self.reads = 0

    def plan(self) -> list:  # type: ignore[type-arg]
        return []

    def read(self) -> str:
        self.reads += 1
        return ""

    def run(self, moment: object, now: datetime) -> object:
        raise AssertionError("nothing is planned")

    def ready_early(self, moment: object, now: datetime) -> bool:
        raise AssertionError("nothing is planned")

    def send(self) -> str:
        return ""


def test_run_ticks_now_and_then_on_the_schedule() -> None:
    steps = _Steps()
    with open_store("sqlite://") as store:
        store.create_tables()
        runner = Runner(store, steps, clock=lambda: at("2026-06-01 00:00"), log=lambda _l: None)  # type: ignore[arg-type]
        sched = schedule.Scheduler()
        loops = [0]

        def stop() -> bool:
            loops[0] += 1
            if loops[0] == 2:
                for job in sched.jobs:  # pretend the interval has passed
                    job.next_run = datetime.now()
            return loops[0] > 3

        run_forever(runner, 300, scheduler=sched, sleep=lambda _s: None, stop=stop)
    assert steps.reads == 2  # once at start, once when the job came due
