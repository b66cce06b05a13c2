"""A board that rate-limits us (HTTP 429 or 503 with Retry-After): the runner waits instead of asking
again (issue 19 item 7). With Retry-After 3600 and `run --every 300`, the ticks in the next hour send no
request; the wait is stored, so a runner started again waits too; the run log and `status` say until when
(in Chinese); after it, the runner reads again and the game goes on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import requests

from forumbot.client import _retry_after
from forumbot.commands.run import status_data
from forumbot.runner.fastplay import FastClock
from forumbot.runner.steps import BoardSteps
from forumbot.runner.tick import Runner
from tests.runner.yexiao import START, board, open_runner


def _limited(b: Any, seconds: int, status: int = 429) -> list[str]:
    """Make the board answer every GET with ``status`` and Retry-After; return the list of paths asked."""
    asked: list[str] = []

    def answer(path: str, cookie: str) -> tuple[int, bytes, dict[str, str]]:
        asked.append(path)
        return status, b"<html><body>Too Many Requests</body></html>", {"Retry-After": str(seconds)}

    b.answer_get = answer
    return asked


def test_a_retry_after_longer_than_the_interval_defers_the_next_ticks_until_it_passes(tmp_path: Path) -> None:
    clock = FastClock(START)
    lines: list[str] = []
    with board(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        p.runner.log = lines.append
        p.runner.tz = p.game.tz  # the log in the board's time, as `forumbot run` writes it
        real = b.answer_get
        asked = _limited(b, 3600)
        first = p.runner.tick()
        assert first.read_error and asked  # it asked, and was told to wait an hour
        assert first.deferred_until is not None
        assert abs(first.deferred_until - (START + timedelta(hours=1))) < timedelta(seconds=5)
        n = len(asked)
        for minutes in (5, 10, 55):  # `run --every 300`: the ticks in the hour send nothing
            clock.now = START + timedelta(minutes=minutes)
            report = p.runner.tick()
            assert report.deferred_until is not None and not report.read and not report.read_error
        assert len(asked) == n
        assert any("论坛要求等待（Retry-After）" in line and "09:00" in line for line in lines), lines

        # a runner started again (a new process: new client, new steps) waits as well
        steps = BoardSteps(p.game, p.store, clock=clock)
        again = Runner(p.store, steps, clock=clock, log=lines.append, tz=p.game.tz)
        assert again.tick().deferred_until is not None and len(asked) == n
        data = status_data(p.game, p.store, steps, clock.now)
        assert data["rate_limited_until"] == "2026-06-03 09:00"

        # after the hour, the board answers again and the runner reads it
        b.answer_get = real  # type: ignore[method-assign]
        clock.now = START + timedelta(hours=1, minutes=1)
        report = p.runner.tick()
        assert report.deferred_until is None and "负载过高" not in report.read_error
        assert status_data(p.game, p.store, steps, clock.now)["rate_limited_until"] is None


def test_a_503_with_retry_after_defers_too_and_a_short_one_does_not_hold_the_next_tick(
    tmp_path: Path,
) -> None:
    clock = FastClock(START)
    with board(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        real = b.answer_get
        _limited(b, 120, status=503)
        assert p.runner.tick().deferred_until is not None
        b.answer_get = real  # type: ignore[method-assign]
        clock.now = START + timedelta(minutes=5)  # the next tick of `run --every 300`: the wait is over
        report = p.runner.tick()
        assert report.deferred_until is None and "负载过高" not in report.read_error  # asked, and answered


def test_retry_after_as_an_http_date_counts_from_the_boards_own_date() -> None:
    sent = datetime(2026, 6, 3, 1, 0, tzinfo=UTC)
    resp = requests.Response()
    resp.headers["Date"] = format_datetime(sent, usegmt=True)
    resp.headers["Retry-After"] = format_datetime(sent + timedelta(minutes=30), usegmt=True)
    assert _retry_after(resp) == 1800.0
    resp.headers["Retry-After"] = "not a date"
    assert _retry_after(resp) == 0.0
    resp.headers["Retry-After"] = "90"
    assert _retry_after(resp) == 90.0
