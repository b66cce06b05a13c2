"""Incremental polls don't trust the reply count alone (issue 8, point 8).

A deletion and a new post leave the reply count as it was. The forum list must also show the same
last-post time and last poster as at the last complete read, and that time must be older than the
read by more than the list's precision: a touch list (no last-post time) proves nothing, a PC list's
minute cannot tell two posts of the same minute apart.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from forumbot.board import SourceKind
from forumbot.client import BoardClient
from forumbot.exampleboard.server import LiveBoard
from forumbot.poll import PollReport, poll
from forumbot.store import Store
from forumbot.store.posts import thread_posts
from tests.boards import ROOT, small_board
from tests.conftest import FakeClock

BOARD = ROOT


def run(client: BoardClient, store: Store, tids: list[int]) -> PollReport:
    return poll(client, store, client.config, tids, progress=False)


def test_a_deletion_and_a_new_post_on_a_touch_list_are_not_unchanged(
    rsps: Any, make_client: Callable[..., BoardClient], store: Store
) -> None:
    board = small_board()
    board.mock(rsps, writes=False)
    board.add_thread(2, 14)
    client = make_client(source=SourceKind.TOUCH)
    run(client, store, [2])
    board.delete(3)
    new = board.reply(2, "包子", "投票：烧卖")  # the reply count is 13 again
    report = run(client, store, [2])
    assert report.threads[2].reason == "the forum list shows no last-post time"
    assert new in report.new_pids
    assert new in {p.pid for p in thread_posts(store, BOARD, 2)}


def test_a_new_post_in_the_same_minute_as_the_last_read_is_read(
    fake_board: LiveBoard, client: BoardClient, store: Store, clock: FakeClock
) -> None:
    """PC list: minute precision. Read at 12:59:30, a post deleted and one added at 12:59:50."""
    fake_board.add_thread(2, 14)
    last = fake_board.posts_of(2)[-1]
    clock.advance((last.at - clock.now()).total_seconds() + 20)  # our read: 20 s after the last post
    run(client, store, [2])
    fake_board.delete(3)
    new = fake_board.reply(2, "包子", "投票：烧卖")
    fake_board.post(new).at = last.at + timedelta(seconds=35)  # the same minute as the last post
    fake_board.post(new).author = last.author  # and the same last poster
    clock.advance(600)
    report = run(client, store, [2])
    assert report.threads[2].reason == "last post too close to the last read"
    assert new in report.new_pids


def test_a_new_last_poster_alone_is_a_change(
    fake_board: LiveBoard, client: BoardClient, store: Store, clock: FakeClock
) -> None:
    fake_board.add_thread(2, 14)
    run(client, store, [2])
    last = fake_board.posts_of(2)[-1]
    fake_board.delete(last.pid)
    new = fake_board.reply(2, "不同的人", "我来了")
    fake_board.post(new).at = last.at  # same count, same minute, another poster
    report = run(client, store, [2])
    assert report.threads[2].reason == "new last poster"
    assert new in report.new_pids


def test_an_old_quiet_thread_still_costs_nothing(
    fake_board: LiveBoard, client: BoardClient, store: Store, clock: FakeClock
) -> None:
    fake_board.add_thread(2, 14)
    run(client, store, [2])
    n = len(fake_board.requests)
    report = run(client, store, [2])
    assert report.threads[2].reason == "unchanged"
    assert len(fake_board.requests) - n == 1  # the forum list only
