"""forumbot opens the days' threads itself ([threads]): night N's case post opens day N's discussion
thread as its first floor, the vote thread follows with the day's deadlines and the vote format, the
board's answer gives the tids and the runner binds them to the day; a tid in the game file wins; an
unclear answer is settled by reading the forum list, never by posting again."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from forumbot.config import ThreadsConfig
from forumbot.runner.fastplay import FastClock, play
from forumbot.runner.ledger import MomentStatus, records
from forumbot.store import outbox as repo
from tests.runner.test_public_words import assert_public
from tests.runner.yexiao import SCENARIO, START, board, open_runner

AFTER_NIGHT2 = datetime(2026, 6, 4, 10, 0, tzinfo=UTC)  # 6/4 18:00 Beijing: night 2 resolved


def without_day2_threads(p: Any) -> None:
    """Day 2 without tids in the file (forumbot opens them); day 1 keeps its own (the file wins)."""
    game = p.steps.game
    days = tuple(replace(d, discussion_tid=None, vote_tid=None) if d.day == 2 else d for d in game.days)
    game = replace(game, days=days, threads=ThreadsConfig(fid=3))
    p.steps.game = p.steps.desk.game = p.steps.outbox.game = game


def played_to_night2(tmp: Path, *, unclear: bool = False) -> Iterator[Any]:
    clock = FastClock(START)
    with board(clock) as b:
        if unclear:  # the board stores the new thread but its answer is lost (a proxy's 502)
            real = b.writer.answer_post

            def lossy(path: str, raw: bytes, cookie: str) -> tuple[int, bytes, dict[str, str]]:
                status, body, headers = real(path, raw, cookie)
                if "action=newthread" in path and status == 301:
                    return 502, b"<html><body>502 Bad Gateway</body></html>", {}
                return status, body, headers

            b.writer.answer_post = lossy  # type: ignore[method-assign]
        p = open_runner(b.url, tmp / "game.db", clock)
        without_day2_threads(p)
        play(p.runner, clock, until=AFTER_NIGHT2, board_moments=SCENARIO.moments())
        yield p, b
        p.store.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from played_to_night2(Path(tmp_path_factory.mktemp("threads")))


def test_the_file_s_tid_wins_for_day_1(played: Any) -> None:
    p, _b = played
    item = p.steps.outbox.get(p.steps.outbox.by_key("night1/case_post"))
    assert item.dest == "reply" and item.tid == 2


def test_night_2_opens_day_2_s_discussion_thread_with_the_case_post_and_its_vote_thread(played: Any) -> None:
    p, b = played
    case = p.steps.outbox.get(p.steps.outbox.by_key("night2/case_post"))
    vote = p.steps.outbox.get(p.steps.outbox.by_key("day2/vote_thread"))
    assert case.dest == vote.dest == "newthread" and case.status == vote.status == "sent"
    assert case.subject == "【夜宵杀】第2日 讨论帖" and vote.subject == "【夜宵杀】第2日 投票帖"
    assert b.writer.threads == {case.result_tid: (3, case.subject), vote.result_tid: (3, vote.subject)}
    first = next(w for w in b.writer.posts if w.tid == case.result_tid)
    assert first.text == case.body and "死者：汤圆" in case.body  # the case post is the first floor
    assert "投票截止：6月5日 13:00" in vote.body and "废票截止：6月5日 12:30" in vote.body
    assert "投票：名字" in vote.body
    assert_public(vote.body, tuple(p.steps.game.roster))  # no rule id, field name or code
    day2 = p.steps.game.day(2)
    assert (day2.discussion_tid, day2.vote_tid) == (case.result_tid, vote.result_tid)
    assert p.steps.desk.game.day(2).vote_tid == vote.result_tid  # the desk judges the bound thread


def test_an_unclear_answer_is_settled_from_the_forum_list_and_nothing_is_posted_twice(tmp_path: Path) -> None:
    p, b = next(played_to_night2(tmp_path, unclear=True))
    case = p.steps.outbox.get(p.steps.outbox.by_key("night2/case_post"))
    vote = p.steps.outbox.get(p.steps.outbox.by_key("day2/vote_thread"))
    assert case.status == vote.status == "sent"
    for item in (case, vote):  # went through 待核实 (unknown) and was found in the forum list
        steps = [e.new_status for e in repo.log(p.store, item.id)]
        assert "unknown" in steps and steps[-1] == "sent", steps
    assert len(b.writer.threads) == 2 and {case.result_tid, vote.result_tid} == set(b.writer.threads)
    assert p.steps.game.day(2).vote_tid == vote.result_tid


def test_day_2_s_moments_wait_for_its_threads(tmp_path: Path) -> None:
    """A vote thread not sent (not approved: no auto_approve for it) delays the day's cutoff."""
    clock = FastClock(START)
    with board(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        without_day2_threads(p)
        settings = p.steps.outbox.settings
        p.steps.outbox.settings = replace(
            settings, auto_approve=frozenset(settings.auto_approve) - {"day_thread"}
        )
        play(p.runner, clock, until=datetime(2026, 6, 5, 4, 40, tzinfo=UTC), board_moments=SCENARIO.moments())
        with p.store.session() as s:
            rec = records(s, p.steps.game_id).get("day2/void_cutoff")
        assert rec is not None and rec.status is not MomentStatus.DONE
        assert "投票帖" in rec.note and "day2/vote_thread" in rec.note
        p.store.close()
