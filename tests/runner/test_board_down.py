"""A board that is down at a deadline: the moment is delayed with a clear status, nothing final changes,
and it runs when the board is back (issue 10, Crash-safe)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from forumbot.commands.run import status_data
from forumbot.runner.fastplay import FastClock, play
from forumbot.runner.ledger import MomentStatus, records
from tests.runner.yexiao import SCENARIO, START, board, open_runner

NIGHT1_DUE = START + timedelta(hours=9, minutes=1)  # 6/3 17:01 Beijing


def test_a_board_down_at_the_night_deadline_delays_it_and_it_runs_when_the_board_is_back(
    tmp_path: Path,
) -> None:
    clock = FastClock(START)
    with board(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        p.runner.tick()  # 08:00: nothing due yet
        clock.now = NIGHT1_DUE
        real_get = b.answer_get

        def down(path: str, cookie: str) -> tuple[int, bytes, dict[str, str]]:
            return 503, b"<html><body>Service Unavailable</body></html>", {}

        b.answer_get = down  # type: ignore[method-assign]
        report = p.runner.tick()
        assert "night1/deadline" in report.delayed and not report.done
        with p.store.session() as s:
            rec = records(s, p.steps.game_id)["night1/deadline"]
        assert rec.status is MomentStatus.DELAYED
        assert "主题 8" in rec.note and "完整读取" in rec.note  # says which thread, and what is needed
        # nothing final changed: no night resolved, no submission stored, nothing in the outbox
        assert p.steps.desk.state_labelled("night 1") is None
        assert p.steps.desk.night(1)[1].submissions == ()
        assert p.steps.outbox.items() == []
        status: dict[str, Any] = status_data(p.game, p.store, p.steps, clock.now)
        assert [m["key"] for m in status["stuck"]] == ["night1/deadline"]
        assert status["stuck"][0]["status"] == "delayed" and "主题 8" in status["stuck"][0]["why"]
        assert status["errors"]  # the failed reads are listed

        b.answer_get = real_get  # type: ignore[method-assign]
        clock.now += timedelta(minutes=10)
        report = p.runner.tick()
        assert report.done == ["night1/deadline"]
        assert p.steps.desk.state_labelled("night 1") is not None
        assert {i.kind for i in p.steps.outbox.items()} == {"case_post", "check_result"}
        assert all(i.status == "sent" for i in p.steps.outbox.items())
        assert len(b.writer.posts) == 1 and len(b.writer.pms) == 2


def test_a_revote_called_long_after_the_close_gives_the_players_the_whole_hour(tmp_path: Path) -> None:
    """On time, the revote counts from the 13:00 close (deadline 14:00). When the board was down from
    12:50 to 13:30, the call is made at 13:31: counted from 13:00 the players would have half an hour,
    so it counts from the call (deadline 14:31) in the plan and in the call post alike."""
    clock = FastClock(START)
    with board(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        play(
            p.runner,
            clock,
            until=START + timedelta(days=1, hours=4, minutes=50),
            board_moments=SCENARIO.moments(),
        )
        real_get = b.answer_get

        def down(path: str, cookie: str) -> tuple[int, bytes, dict[str, str]]:
            return 503, b"<html><body>Service Unavailable</body></html>", {}

        b.answer_get = down  # type: ignore[method-assign]
        clock.now = START + timedelta(days=1, hours=5, minutes=1)  # 6/4 13:01 Beijing
        assert "day1/close" in p.runner.tick().delayed
        b.answer_get = real_get  # type: ignore[method-assign]
        clock.now = START + timedelta(days=1, hours=5, minutes=31)  # 13:31: the board is back
        assert p.runner.tick().done == ["day1/close"]
        (m,) = [m for m in p.steps.plan() if m.key == "day1/revote1"]
        assert m.deadline == clock.now + timedelta(hours=1)
        call = next(i for i in p.steps.outbox.items() if i.moment_key == "day1/revote1/call")
        assert "重投截止：6月4日 14:31" in call.body
        p.store.close()
