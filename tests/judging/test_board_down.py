"""Issue 8, "never confidently wrong": the example game (data/examples/meishi) with the board down at
the day's deadline. While the board is down nothing final happens (a provisional tally that says why, no
state change, the close refused with a clear message); once the board is back, the day is judged exactly as
with no fault. (The runner's own moment at a deadline is tested in tests/runner/test_board_down.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
import responses

from forumbot.client import BoardClient
from forumbot.desk import Desk, read_submissions, vote_count_draft
from forumbot.errors import ForumbotError, ReadIncomplete
from forumbot.exampleboard.model import load_scenario
from forumbot.exampleboard.server import LiveBoard
from forumbot.poll import poll
from forumbot.store import Store, open_store
from tests.judging.conftest import BOARD_URL, EXAMPLE, example_game, example_roles


@contextmanager
def flaky_board() -> Iterator[LiveBoard]:
    """The example's board behind responses; ``board.down = True`` takes it down (503)."""
    scenario = load_scenario(EXAMPLE / "scenario.toml")
    board = LiveBoard(scenario, now=min(scenario.snapshots.values()))
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        board.mock(mock, BOARD_URL)
        yield board


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def judge_at_deadlines(store: Store, *, fault: bool) -> tuple[Desk, list[str]]:
    """Play night 1 and day 1 with the judge's reads; ``fault``: the board is down at 13:01."""
    desk = Desk(example_game(store.url), store, by="test-judge")
    desk.setup(roles=example_roles())
    desk.night_entries(1, read_submissions(EXAMPLE / "night1.toml"))
    desk.night_resolve(1)
    now = [utc("2026-06-04 03:00")]  # 11:00 in Beijing
    log: list[str] = []
    with flaky_board() as fb:
        client = BoardClient(desk.game.board, sleep=lambda _s: None, now=lambda: now[0])

        def read(full: bool) -> None:
            try:
                tids = desk.game.watched_tids()
                report = poll(client, store, desk.game.board, tids, full=full, progress=False)
                if not report.ok:
                    log.append(report.failure_message())
            except ForumbotError as exc:
                log.append(str(exc))
            desk.refresh()

        fb.use("s1")
        read(False)  # 11:00: an incremental read
        fb.use("s2")
        now[0] = utc("2026-06-04 05:01")  # 13:01: the void cutoff and the close are past
        fb.down = fault
        read(True)
        if fault:
            assert log, "the failed read says so"
            judged = desk.tally(1)
            assert judged.provisional and judged.read_reasons
            assert all("poll --full" in why for why in judged.read_reasons)
            with pytest.raises(ReadIncomplete, match="不能结算"):
                desk.close_day(1)
            assert desk.require_state().phase.value == "day"  # no state change
            assert [v.label for v in desk.live_history()][-1] == "night 1"
            fb.down = False
            now[0] = utc("2026-06-04 05:06")  # 13:06: the board is back
            read(True)
    return desk, log


def test_the_board_down_at_the_close_gives_no_verdict_then_the_same_one(tmp_path: Path, store: Store) -> None:
    desk, _log = judge_at_deadlines(store, fault=True)
    with open_store(tmp_path / "reference.db") as ref_store:
        ref, _ = judge_at_deadlines(ref_store, fault=False)
        want = ref.tally(1)
        got = desk.tally(1)
        assert not got.provisional and not want.provisional
        assert got.result.final_tally == want.result.final_tally
        assert dict(got.result.strikes_after) == dict(want.result.strikes_after)
        assert [(v.pid, v.status) for v in got.result.verdicts] == [
            (v.pid, v.status) for v in want.result.verdicts
        ]
        assert vote_count_draft(desk, got) == vote_count_draft(ref, want)
        assert "烧卖 被处决，身份：杀手" in vote_count_draft(desk, got)
        cutoff = desk.day(1).void_cutoff
        running = vote_count_draft(desk, desk.tally(1, as_of=cutoff))
        assert running == vote_count_draft(ref, ref.tally(1, as_of=cutoff))
        assert "被处决" not in running and "实时统计" in running
        assert desk.close_day(1).out == ref.close_day(1).out == ("烧卖",)
