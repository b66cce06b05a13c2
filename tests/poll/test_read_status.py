"""Judge only what was read: the store knows, per thread, when it was last read completely and how.

Issue 8, point 1 (reading half), point 5 (an API 404 for a page of a thread that exists) and the
"board down at a deadline" test: a poll that cannot read says so, changes nothing stored, and the read
status tells the desk that the day was not read; once the board is back, one poll reads it completely.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta

import pytest
import requests

from forumbot.board import SourceKind
from forumbot.client import BoardClient
from forumbot.exampleboard.render import SYSTEM_ERROR
from forumbot.exampleboard.server import LiveBoard
from forumbot.poll import PollReport, poll
from forumbot.store import Store
from forumbot.store.health import table_counts
from forumbot.store.posts import thread_posts
from forumbot.store.reads import day_read_complete, read_status, running_polls, thread_reads
from tests.boards import ROOT
from tests.conftest import FakeClock

# These tests check each rule by its message's English wording (the msgid); the Chinese a judge
# reads is checked in tests/test_error_language.py.
pytestmark = pytest.mark.usefixtures("english_messages")

BOARD = ROOT


def run(client: BoardClient, store: Store, tids: list[int], *, full: bool = False) -> PollReport:
    return poll(client, store, client.config, tids, full=full, progress=False)


def post_tables(store: Store) -> dict[str, int]:
    c = table_counts(store)
    return {k: c[k] for k in ("boards", "threads", "posts", "post_revisions", "post_events")}


def test_a_thread_never_read_is_not_complete(store: Store, clock: FakeClock) -> None:
    ok, reasons = day_read_complete(store, BOARD, [2, 3], clock.now())
    assert not ok
    assert len(reasons) == 2 and "thread 2 was never read" in reasons[0] and "forumbot poll" in reasons[0]
    status = read_status(store, BOARD, 2)
    assert status.last_complete_read_at is None and status.reads == 0 and status.last_error is None


def test_a_full_poll_after_the_deadline_makes_the_day_complete(
    fake_board: LiveBoard, client: BoardClient, store: Store, clock: FakeClock
) -> None:
    fake_board.add_thread(2, 25)
    fake_board.add_thread(3, 12)
    deadline = clock.now()
    clock.advance(60)
    report = run(client, store, [2, 3], full=True)
    assert report.ok
    status = read_status(store, BOARD, 3)
    assert status.last_complete_read_at is not None and status.last_complete_read_at >= deadline
    assert status.last_full_read_at == status.last_complete_read_at
    assert status.source == "pc" and status.last_error is None and status.last_attempt_complete
    assert day_read_complete(store, BOARD, [2, 3], deadline, full=True) == (True, [])
    # A later deadline is not covered by this read: the reason names the thread and the read's time.
    ok, reasons = day_read_complete(store, BOARD, [2, 3], clock.now() + timedelta(minutes=5), full=True)
    assert not ok and len(reasons) == 2
    assert (
        "last complete read (from page 1" in reasons[0]
        and "before" in reasons[0]
        and "poll --full" in reasons[0]
    )
    [read] = [r for r in thread_reads(store, BOARD, 2)]
    assert (read.first_page, read.last_page, read.pages, read.pages_read) == (1, 3, 3, 3)
    assert read.posts_seen == 25 and read.complete and read.full


def test_an_incremental_read_counts_as_complete_but_not_as_full(
    fake_board: LiveBoard, client: BoardClient, store: Store, clock: FakeClock
) -> None:
    fake_board.add_thread(2, 15)
    run(client, store, [2])
    deadline = clock.now() + timedelta(seconds=30)
    clock.advance(60)
    fake_board.reply(2, "包子", "投票：烧卖")
    report = run(client, store, [2])
    assert report.threads[2].reason == "new replies" and report.threads[2].start_page == 2
    assert day_read_complete(store, BOARD, [2], deadline) == (True, [])
    ok, [reason] = day_read_complete(store, BOARD, [2], deadline, full=True)
    assert not ok and "from page 1 to the last page" in reason


def test_an_unchanged_thread_is_confirmed_by_the_forum_list(
    fake_board: LiveBoard, client: BoardClient, store: Store, clock: FakeClock
) -> None:
    fake_board.add_thread(2, 5)
    run(client, store, [2])
    clock.advance(600)
    deadline = clock.now()
    report = run(client, store, [2])
    assert report.threads[2].reason == "unchanged" and report.pages_read == 0
    status = read_status(store, BOARD, 2)
    assert status.source == "pc forum list" and status.complete_after(deadline)
    assert not status.complete_after(deadline, full=True)


def test_a_failed_read_is_recorded_and_the_last_complete_read_stays(
    fake_board: LiveBoard, make_client: Callable[..., BoardClient], store: Store, clock: FakeClock
) -> None:
    fake_board.add_thread(2, 25)
    client = make_client(retries=0)
    run(client, store, [2], full=True)
    first = read_status(store, BOARD, 2).last_complete_read_at
    clock.advance(3600)
    deadline = clock.now()
    fake_board.fail_next = [lambda: None, lambda: (503, fake_board.headers(), SYSTEM_ERROR.encode())]
    report = run(client, store, [2], full=True)  # page 1 read, page 2: 503
    assert not report.ok and report.incomplete_tids == [2]
    status = read_status(store, BOARD, 2)
    assert status.last_complete_read_at == first and not status.last_attempt_complete
    assert status.last_error_kind == "BoardSystemError" and "system error" in (status.last_error or "")
    ok, [reason] = day_read_complete(store, BOARD, [2], deadline, full=True)
    assert not ok and "the latest read failed" in reason and "system error" in reason
    [_, failed] = thread_reads(store, BOARD, 2)
    assert (failed.first_page, failed.last_page, failed.pages_read, failed.complete) == (1, 1, 1, False)


def test_the_board_down_at_the_deadline_changes_nothing_then_a_poll_reads_it_all(
    fake_board: LiveBoard, make_client: Callable[..., BoardClient], store: Store, clock: FakeClock
) -> None:
    fake_board.add_thread(2, 12)
    fake_board.add_thread(3, 23)
    client = make_client(retries=1)
    run(client, store, [2, 3])
    fake_board.reply(3, "饺子", "投票：烧卖")
    fake_board.edit(5, "改票：包子")
    clock.advance(3600)
    deadline = clock.now()
    before = post_tables(store)

    def refuse() -> None:
        raise requests.ConnectionError("connection refused")

    def down() -> tuple[int, dict[str, str], bytes]:
        return 503, fake_board.headers(), SYSTEM_ERROR.encode()

    # Down: connection refused for the forum list, then 503s for every page.
    fake_board.fail_next = [refuse, refuse] + [down] * 20
    for full in (False, True):
        report = run(client, store, [2, 3], full=full)
        assert not report.ok and report.incomplete_tids == [2, 3]
        assert report.new_posts == 0 and report.state_changes == []
        message = report.failure_message()
        assert (
            "threads 2, 3 were not read completely" in message
            and "provisional" in message
            and "forumbot poll" in message
        )
        assert post_tables(store) == before  # nothing stored changed: no post, revision, deletion
    ok, reasons = day_read_complete(store, BOARD, [2, 3], deadline)
    assert not ok and all("the latest read failed" in r for r in reasons)
    assert read_status(store, BOARD, 3).last_error_kind in ("NetworkError", "BoardSystemError")
    assert running_polls(store, BOARD) == []  # the failed polls are recorded as finished

    fake_board.fail_next = []  # the board is back
    report = run(client, store, [2, 3], full=True)
    assert report.ok and report.failure_message() == ""
    assert day_read_complete(store, BOARD, [2, 3], deadline, full=True) == (True, [])
    texts = {p.pid: p.text for p in thread_posts(store, BOARD, 3)}
    assert "投票：烧卖" in texts.values() and len(texts) == 24
    assert any("改票：包子" in p.text for p in thread_posts(store, BOARD, 2) if p.pid == 5)


def test_an_api_404_for_a_page_of_a_live_thread_falls_back_to_pc_pages(
    fake_board: LiveBoard, make_client: Callable[..., BoardClient], store: Store
) -> None:
    fake_board.add_thread(2, 120)
    api = make_client(source=SourceKind.API, api_ppp=50)
    not_found = {"Version": "4", "Message": {"messageval": "thread_nonexistence", "messagestr": "..."}}
    fake_board.fail_next = [
        lambda: None,  # API page 1 (a full read asks no forum list)
        lambda: (404, fake_board.headers("application/json"), json.dumps(not_found).encode()),
    ]
    report = run(api, store, [2], full=True)
    assert report.ok, report.errors
    outcome = report.threads[2]
    assert outcome.complete and outcome.source == "api,pc"
    assert any("does not exist" in n and "PC page 6" in n for n in report.notes)
    assert [p.pid for p in thread_posts(store, BOARD, 2)] == list(range(1, 121))
    assert outcome.deleted == []  # a full read through two views: nothing falsely deleted
    status = read_status(store, BOARD, 2)
    assert status.source == "api,pc" and status.last_full_read_at is not None
    assert api.current_source() == "api"  # the other threads keep the API


def test_a_thread_that_is_really_gone_is_not_a_complete_read(
    fake_board: LiveBoard, make_client: Callable[..., BoardClient], store: Store, clock: FakeClock
) -> None:
    api = make_client(source=SourceKind.API)
    report = run(api, store, [77], full=True)  # neither the API nor PC pages know thread 77
    assert [e.kind for e in report.errors] == ["ThreadNotFound"]
    assert any("does not exist" in n for n in report.notes)  # the PC pages were asked too
    status = read_status(store, BOARD, 77)
    assert status.last_complete_read_at is None and status.last_error_kind == "ThreadNotFound"
    ok, [reason] = day_read_complete(store, BOARD, [77], clock.now() - timedelta(hours=1))
    assert not ok and "thread 77 never had a complete read" in reason and "thread not found" in reason


def test_a_post_the_parser_skipped_makes_the_read_incomplete_and_deletes_nothing(
    fake_board: LiveBoard, client: BoardClient, store: Store, clock: FakeClock
) -> None:
    fake_board.add_thread(2, 12)
    run(client, store, [2], full=True)
    clock.advance(600)
    deadline = clock.now()
    broken = (
        fake_board.thread_html(2, 1)
        .replace('id="authorposton3"', 'id="x"')
        .replace('id="postmessage_3"', 'id="y"')
    )
    fake_board.fail_next = [lambda: (200, fake_board.headers(), broken.encode())]
    report = run(client, store, [2], full=True)
    assert [e.kind for e in report.errors] == ["UnreadablePost"]
    assert "post 3" in report.errors[0].message and report.threads[2].deleted == []
    assert report.state_changes == []
    stored = {p.pid: p for p in thread_posts(store, BOARD, 2)}
    assert not stored[3].deleted  # not declared deleted on the strength of a page we could not read
    ok, [reason] = day_read_complete(store, BOARD, [2], deadline, full=True)
    assert not ok and "post 3" in reason
