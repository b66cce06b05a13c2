"""The lossless store, on every backend: round trips, idempotent re-reads, revisions, states, queries."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from forumbot.board import BoardConfig
from forumbot.errors import StoreError
from forumbot.fetches import FetchRecord
from forumbot.parsers.records import EditMarker, PostState, QuoteRef, Source, TimeSource
from forumbot.store import Store, pagewrite
from forumbot.store.base import boards
from forumbot.store.fetchlog import fetch_log, poll_runs, record_fetches, record_poll
from forumbot.store.health import check_consistency, table_counts
from forumbot.store.posts import (
    content_hash,
    first_revision,
    get_post,
    mark_vanished,
    post_events,
    record_thread_page,
    thread_posts,
    was_edited,
)
from forumbot.store.threads import get_thread, update_thread
from tests.conftest import TEST_UA
from tests.store.helpers import BOARD, T0, edited, page, post

NOW = datetime(2026, 6, 4, 3, 0, 0, tzinfo=UTC)


def at(minutes: float) -> datetime:
    return NOW + timedelta(minutes=minutes)


def test_a_page_round_trips(store: Store) -> None:
    q = QuoteRef(1, "饺子", "投票：包子")
    p = post(2, "我同意楼上\n投票：包子", quotes=(q,), floor=2)
    fetch = FetchRecord(
        "GET", BOARD + "forum.php?mod=viewthread&tid=3&page=1", 200, NOW, True, "", 0.0123, 999
    )
    res = record_thread_page(store, BOARD, page([post(1), p]), seen_at=NOW, fetches=[fetch], ppp=10)
    assert res.new_posts == (1, 2) and res.new_revisions == () and res.state_changes == ()
    [s1, s2] = thread_posts(store, BOARD, 3)
    assert (s2.pid, s2.tid, s2.floor, s2.page, s2.author, s2.uid) == (2, 3, 2, 1, p.author, p.uid)
    assert s2.posted_at == p.posted_at and s2.posted_at.tzinfo is not None
    assert s2.time_source is TimeSource.TEXT
    assert s2.text == "我同意楼上\n投票：包子"
    assert s2.current.html == p.html
    assert s2.current.quotes == (q,) and s2.current.quoted_pids == (1,)
    assert s2.first_seen == NOW == s2.last_seen
    assert s2.state is PostState.NORMAL and not s2.edited
    assert s1.first and not s2.first
    assert s2.to_post() == replace(p, floor_exact=True)
    thread = get_thread(store, BOARD, 3)
    assert thread is not None
    assert (thread.title, thread.fid, thread.pages, thread.resume_page, thread.resume_ppp) == (
        "【美食杀】第一日投票帖",
        3,
        1,
        1,
        10,
    )
    assert thread.posts == 2 and thread.replies is None
    [log] = fetch_log(store, BOARD)
    assert (log.url, log.status, log.ok, log.elapsed_ms, log.size, log.tid, log.page) == (
        fetch.url,
        200,
        True,
        12,
        999,
        3,
        1,
    )
    assert check_consistency(store) == []


def test_times_round_trip_exactly(store: Store) -> None:
    odd = datetime(2026, 6, 4, 9, 30, 15, 123456, tzinfo=timezone(timedelta(hours=8)))
    p = replace(post(1), posted_at=odd, posted_until=odd + timedelta(seconds=59, microseconds=1))
    seen = datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-5)))
    record_thread_page(store, BOARD, page([p]), seen_at=seen)
    [s] = thread_posts(store, BOARD, 3)
    assert s.posted_at == odd and s.posted_at.utcoffset() == timedelta(0)
    assert s.posted_until == odd + timedelta(seconds=59, microseconds=1)
    assert s.first_seen == seen and s.first_seen.tzinfo is UTC
    assert s.first_seen.replace(tzinfo=None) == datetime(2027, 1, 1, 4, 59, 59, 999999)


def test_naive_datetimes_are_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="aware"):
        record_thread_page(store, BOARD, page([post(1)]), seen_at=datetime(2026, 6, 4, 3, 0))
    assert table_counts(store)["posts"] == 0


def test_rereading_stores_nothing_new(store: Store) -> None:
    pg = page([post(1), post(2, quotes=(QuoteRef(1, "x"),)), post(3, edit=EditMarker("x", T0, "raw"))])
    record_thread_page(store, BOARD, pg, seen_at=at(0))
    before = table_counts(store)
    res = record_thread_page(store, BOARD, pg, seen_at=at(5))
    after = table_counts(store)
    assert res.new_posts == res.new_revisions == res.state_changes == ()
    assert before == after
    [p1, _, _] = thread_posts(store, BOARD, 3)
    assert p1.first_seen == at(0) and p1.last_seen == at(5)
    assert p1.current.first_seen == at(0) and p1.current.last_seen == at(5) and p1.current.seen_count == 2
    assert post_events(store, BOARD) == []


def test_whitespace_and_html_differences_are_not_revisions(store: Store) -> None:
    record_thread_page(store, BOARD, page([post(1, "投票：饺子\n理由  很多")]), seen_at=at(0))
    api_view = replace(post(1, " 投票：饺子 \n\n理由 很多\u00a0", html="<div>other markup</div>"))
    res = record_thread_page(store, BOARD, page([api_view], source=Source.API), seen_at=at(1))
    assert res.new_revisions == ()


@pytest.mark.usefixtures("english_messages")  # checked by the English wording (the msgid)
def test_an_edit_keeps_every_revision(store: Store) -> None:
    p = post(5, "投票：饺子")
    record_thread_page(store, BOARD, page([p]), seen_at=at(0))
    res = record_thread_page(store, BOARD, page([edited(p, "投票：包子")]), seen_at=at(10))
    assert res.new_revisions == (5,)
    s = get_post(store, BOARD, 5)
    assert s is not None
    assert [r.text for r in s.revisions] == ["投票：饺子", "投票：包子"]
    assert [r.number for r in s.revisions] == [1, 2]
    assert s.current.number == 2 and s.text == "投票：包子"
    assert s.first_revision.text == "投票：饺子" and s.first_revision.first_seen == at(0)
    assert s.current.edit is not None and s.current.edit.by == p.author
    assert [e.kind for e in s.events] == ["revised"]
    first = first_revision(store, BOARD, 5)
    assert first is not None and first.text == "投票：饺子"
    ev = was_edited(store, BOARD, 5)
    assert ev and ev.revisions == 2 and len(ev.markers) == 1
    assert any("2 different contents" in r for r in ev.reasons)


def test_reverting_to_an_earlier_content_is_an_event_not_a_revision(store: Store) -> None:
    p = post(5, "投票：饺子")
    record_thread_page(store, BOARD, page([p]), seen_at=at(0))
    record_thread_page(store, BOARD, page([edited(p, "投票：包子", marker=False)]), seen_at=at(1))
    res = record_thread_page(store, BOARD, page([p]), seen_at=at(2))
    assert res.new_revisions == ()
    s = get_post(store, BOARD, 5)
    assert s is not None and len(s.revisions) == 2
    assert s.current.number == 1 and s.current.last_seen == at(2)
    assert [e.kind for e in s.events] == ["revised", "reverted"]
    assert check_consistency(store) == []


@pytest.mark.usefixtures("english_messages")  # checked by the English wording (the msgid)
def test_edit_evidence(store: Store) -> None:
    quiet = post(1, "a")
    marked = post(2, "b", edit=EditMarker("管理员", T0, "本帖最后由 管理员 于 2026-6-4 09:10 编辑"))
    changed = post(3, "c")
    record_thread_page(store, BOARD, page([quiet, marked, changed]), seen_at=at(0))
    record_thread_page(store, BOARD, page([quiet, marked, replace(changed, text="c2")]), seen_at=at(1))
    assert not was_edited(store, BOARD, 1)
    by_marker = was_edited(store, BOARD, 2)
    assert by_marker and by_marker.revisions == 1 and by_marker.markers[0].by == "管理员"
    by_content = was_edited(store, BOARD, 3)
    assert by_content and by_content.markers == ()  # a quick or admin edit: no marker, still caught
    never = was_edited(store, BOARD, 99)
    assert not never and never.reasons == ("never seen",)


def test_a_marker_seen_later_on_the_same_content(store: Store) -> None:
    p = post(4, "投票：饺子")
    record_thread_page(store, BOARD, page([p], source=Source.API), seen_at=at(0))  # v4 strips it
    with_marker = replace(p, edit=EditMarker(p.author, T0, "本帖最后由 x 于 y 编辑"))
    res = record_thread_page(store, BOARD, page([with_marker]), seen_at=at(1))
    assert res.new_revisions == ()
    s = get_post(store, BOARD, 4)
    assert s is not None and len(s.revisions) == 1
    assert s.current.edit is not None and s.last_edit is not None
    assert [e.kind for e in s.events] == ["edit_marker"]
    assert was_edited(store, BOARD, 4)


def test_state_changes_are_events_and_revisions(store: Store) -> None:
    p = post(6, "投票：饺子")
    record_thread_page(store, BOARD, page([p]), seen_at=at(0))
    blocked = replace(p, text="该帖被管理员或版主屏蔽", html="", state=PostState.BLOCKED)
    res = record_thread_page(store, BOARD, page([blocked]), seen_at=at(1))
    [ch] = res.state_changes
    assert (ch.pid, ch.old, ch.new, ch.at) == (6, PostState.NORMAL, PostState.BLOCKED, at(1))
    s = get_post(store, BOARD, 6)
    assert s is not None and s.state is PostState.BLOCKED
    assert s.first_revision.text == "投票：饺子" and s.first_revision.state is PostState.NORMAL
    assert [e.kind for e in s.events] == ["revised", "state"]
    assert s.events[1].old_state is PostState.NORMAL and s.events[1].new_state is PostState.BLOCKED


def test_vanished_posts_are_marked_deleted_and_may_come_back(store: Store) -> None:
    record_thread_page(store, BOARD, page([post(1), post(2), post(3)]), seen_at=at(0))
    changes = mark_vanished(store, BOARD, 3, {1, 3}, at=at(5))
    assert [(c.pid, c.old, c.new) for c in changes] == [(2, PostState.NORMAL, PostState.DELETED)]
    assert mark_vanished(store, BOARD, 3, {1, 3}, at=at(6)) == []  # already marked
    s = get_post(store, BOARD, 2)
    assert s is not None and s.deleted and s.text == post(2).text  # the content stays
    assert s.events[-1].kind == "deleted" and "last seen" in s.events[-1].note
    res = record_thread_page(store, BOARD, page([post(2)]), seen_at=at(7))
    assert [(c.old, c.new) for c in res.state_changes] == [(PostState.DELETED, PostState.NORMAL)]
    s = get_post(store, BOARD, 2)
    assert s is not None and not s.deleted and [e.kind for e in s.events] == ["deleted", "restored"]
    assert len(s.revisions) == 1


def test_duplicates_on_a_page_and_already_seen_pids_are_skipped(store: Store) -> None:
    record_thread_page(store, BOARD, page([post(1), post(9), post(2)]), seen_at=at(0))
    res = record_thread_page(
        store, BOARD, page([post(9), post(3), post(3)], number=2, pages=2), seen_at=at(1), skip_pids={9}
    )
    assert res.pids == (3,)
    assert get_post(store, BOARD, 9) is not None
    assert get_post(store, BOARD, 9).page == 1  # type: ignore[union-attr]


def test_queries_by_author_and_time(store: Store) -> None:
    posts = [post(i, author="饺子" if i % 2 else "包子", at=T0 + timedelta(minutes=i)) for i in range(1, 9)]
    record_thread_page(store, BOARD, page(posts), seen_at=at(0))
    assert [p.pid for p in thread_posts(store, BOARD, 3, author="饺子")] == [1, 3, 5, 7]
    since, until = T0 + timedelta(minutes=3), T0 + timedelta(minutes=6)
    assert [p.pid for p in thread_posts(store, BOARD, 3, since=since, until=until)] == [3, 4, 5, 6]
    assert [p.pid for p in thread_posts(store, BOARD, 3, author="包子", since=since)] == [4, 6, 8]
    assert thread_posts(store, BOARD, 4) == []
    assert thread_posts(store, "http://other.example.com", 3) == []


def test_boards_are_kept_apart(store: Store) -> None:
    other = BoardConfig(url="http://other.example.com", user_agent=TEST_UA)
    record_thread_page(store, BOARD, page([post(1, "here")]), seen_at=at(0))
    record_thread_page(store, other, page([post(1, "there")]), seen_at=at(0))
    assert get_post(store, BOARD, 1).text == "here"  # type: ignore[union-attr]
    assert get_post(store, other, 1).text == "there"  # type: ignore[union-attr]
    assert boards(store) == [BOARD, "http://other.example.com/"]


def test_a_failed_page_leaves_nothing_half_written(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    record_thread_page(store, BOARD, page([post(1)]), seen_at=at(0))
    before = table_counts(store)

    def boom(*a: object, **k: object) -> list[object]:
        raise RuntimeError("killed between the posts and the fetch log")

    monkeypatch.setattr(pagewrite, "_fetch_values", boom)  # the batched writer (issue 12)
    with pytest.raises(RuntimeError):
        record_thread_page(store, BOARD, page([post(1, "changed"), post(2)]), seen_at=at(1))
    assert table_counts(store) == before
    assert get_post(store, BOARD, 1).text == post(1).text  # type: ignore[union-attr]
    assert check_consistency(store) == []


def test_thread_bookkeeping_and_poll_runs(store: Store) -> None:
    record_thread_page(store, BOARD, page([post(1)], number=2, pages=3), seen_at=at(0), ppp=50)
    update_thread(store, BOARD, 3, replies=12, last_post_at=at(-1), polled_at=at(1), kind="vote", day=1)
    t = get_thread(store, BOARD, 3)
    assert t is not None
    assert (t.pages, t.resume_page, t.resume_ppp, t.replies, t.kind, t.day) == (3, 2, 50, 12, "vote", 1)
    assert t.last_post_at == at(-1) and t.last_polled == at(1) and t.last_read == at(0)
    run_id = record_poll(
        store,
        BOARD,
        started_at=at(0),
        finished_at=at(1),
        full=True,
        tids=[3],
        requests=3,
        pages_read=2,
        new_posts=1,
        new_revisions=0,
        state_changes=0,
        errors=0,
        notes=["ok"],
    )
    [run] = poll_runs(store, BOARD)
    assert run.id == run_id and run.tids == (3,) and run.notes == ("ok",) and run.full


def test_error_rows_in_the_fetch_log(store: Store) -> None:
    rec = FetchRecord("GET", BOARD + "x", 200, NOW, True, "", 0.0, 10)
    record_fetches(store, BOARD, [rec], tid=3, page=2, error="ThreadNotFound: gone")
    record_fetches(store, BOARD, [], tid=4, error="NetworkError", at=NOW, url=BOARD + "y")
    a, b = fetch_log(store, BOARD)
    assert (a.ok, a.error, a.status) == (False, "ThreadNotFound: gone", 200)
    assert (b.ok, b.url, b.status) == (False, BOARD + "y", None)


def test_hash_is_stable_and_ignores_quote_excerpts() -> None:
    q1 = (QuoteRef(5, "饺子", "投票：包子"),)
    q2 = (QuoteRef(5, "饺子", "投票：包…"),)
    assert content_hash("a  b", q1, PostState.NORMAL) == content_hash(" a b ", q2, "normal")
    assert content_hash("a", q1, PostState.NORMAL) != content_hash("a", (), PostState.NORMAL)
    assert content_hash("a", (), PostState.NORMAL) != content_hash("a", (), PostState.BLOCKED)
    assert len(content_hash("", (), "normal")) == 64


@pytest.mark.usefixtures("english_messages")  # checked by the English wording (the msgid)
def test_open_store_errors() -> None:
    from forumbot.store import open_store
    from forumbot.store.db import store_url

    assert store_url(None) == "sqlite:///forumbot.db"
    assert store_url(":memory:") == "sqlite://"
    assert store_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert store_url("sqlite:///x.db") == "sqlite:///x.db"
    with pytest.raises(StoreError):
        open_store("nosuchdriver://x/y")
    with pytest.raises(StoreError, match="cannot connect"):
        open_store("postgresql+psycopg://nobody:secret@127.0.0.1:1/none")


@pytest.mark.usefixtures("english_messages")  # checked by the English wording (the msgid)
def test_opening_without_create_needs_an_existing_store(tmp_path: Path) -> None:
    from forumbot.store import open_store

    with pytest.raises(StoreError, match="no store at"):
        open_store(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()
    import sqlite3

    sqlite3.connect(tmp_path / "empty.db").close()
    with pytest.raises(StoreError, match="holds no forumbot store"):
        open_store(tmp_path / "empty.db", create=False)
    open_store(tmp_path / "real.db").close()
    open_store(tmp_path / "real.db", create=False).close()
