"""The watcher polls lightly between deadlines and reads everything once each deadline has passed."""

from __future__ import annotations

from datetime import UTC, datetime

import schedule

from forumbot.config import game_from_dict
from forumbot.watch import MomentKind, Watcher, WatchState, due, moments, run_forever

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


def test_r001_deadlines_are_the_void_cutoff_and_the_close_plus_one_minute():
    ms = moments(GAME)
    assert [(m.day, m.kind, m.at) for m in ms[:2]] == [
        (1, MomentKind.VOID_CUTOFF, at("2026-06-04 04:31")),  # 12:31 Beijing
        (1, MomentKind.CLOSE, at("2026-06-04 05:01")),  # 13:01 Beijing
    ]
    assert len(ms) == 4


def test_nothing_is_due_before_the_grace_minute_ends():
    assert due(moments(GAME), WatchState(), at("2026-06-04 04:30:59")) == []
    assert [m.kind for m in due(moments(GAME), WatchState(), at("2026-06-04 04:31"))] == [
        MomentKind.VOID_CUTOFF
    ]


def test_each_deadline_gets_one_full_read_and_one_callback():
    now = [at("2026-06-04 03:00")]
    polls: list[bool] = []
    seen: list[tuple[int, str]] = []
    w = Watcher(
        GAME,
        run_poll=polls.append,
        on_deadline=lambda m: seen.append((m.day, m.kind)),
        clock=lambda: now[0],
        log=lambda _msg: None,
    )
    w.tick()
    now[0] = at("2026-06-04 05:05")  # both day-1 deadlines have passed
    w.tick()
    w.tick()
    assert polls == [False, True, False]
    assert seen == [(1, "void_cutoff"), (1, "close")]


def test_run_forever_ticks_on_the_schedule():
    ticks: list[int] = []
    w = Watcher(
        GAME,
        run_poll=lambda full: ticks.append(int(full)),
        on_deadline=lambda m: None,
        clock=lambda: at("2026-06-01 00:00"),
        log=lambda _msg: None,
    )
    sched = schedule.Scheduler()
    loops = [0]

    def stop() -> bool:
        loops[0] += 1
        if loops[0] == 2:
            for job in sched.jobs:  # pretend the interval has passed
                job.next_run = datetime.now()
        return loops[0] > 3

    run_forever(w, 5, scheduler=sched, sleep=lambda _s: None, stop=stop)
    assert ticks == [0, 0]  # once at start, once when the job came due


def test_the_watcher_prints_times_in_the_boards_zone_and_retries_an_unfinished_deadline():
    now = [at("2026-06-04 04:31")]  # 12:31 in Beijing
    lines: list[str] = []
    answers = [False, True]  # the first attempt finds the read incomplete
    w = Watcher(
        GAME,
        run_poll=lambda full: None,
        on_deadline=lambda m: answers.pop(0),
        clock=lambda: now[0],
        log=lines.append,
    )
    w.tick()
    assert lines[0].startswith("2026-06-04 12:31 (Asia/Shanghai)") and "UTC" not in lines[0]
    assert w.state.handled == set()  # still due
    w.tick()
    assert [m.kind for m in w.state.handled] == [MomentKind.VOID_CUTOFF]
