"""``forumbot poll``'s idle check (forumbot.poll.poll_store): an idle poll on an SQLite store is read and
recorded through sqlite3 exactly as the ORM records it, and anything else goes to the ORM poll with the
forum list already asked (no second request, every exchange logged once)."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from forumbot.board import SourceKind
from forumbot.client import BoardClient, forget_login_failures
from forumbot.errors import LoginFailed, StoreBusy
from forumbot.exampleboard.server import LiveBoard
from forumbot.poll import PollReport, poll, poll_store
from forumbot.store import Store, open_store
from forumbot.store.fetchlog import fetch_log, poll_runs
from forumbot.store.idle import IdleStore
from forumbot.store.logins import login_failures, record_login_failure
from forumbot.store.threads import get_thread, update_thread
from tests.boards import ROOT
from tests.conftest import FakeClock, make_board

TIDS = [2, 3, 4]
DAYS = [(2, "discussion", 1), (3, "vote", 1), (4, "vote", 2)]
JUDGE_TIME = datetime(2026, 6, 5, 3, 0, 0, tzinfo=UTC)  # a day after the fake board's posts


def new_client(**overrides: Any) -> BoardClient:
    """A client as one ``forumbot poll`` process makes it, on a clock of its own (so that two runs of
    the same steps see the same times)."""
    clock = FakeClock(wall0=JUDGE_TIME)
    return BoardClient(make_board(**overrides), sleep=clock.sleep, clock=clock.monotonic, now=clock.now)


def orm_poll(client: BoardClient, path: Path | str, tids: list[int] = TIDS) -> PollReport:
    """What ``forumbot poll`` did before the idle check: everything through the ORM."""
    with open_store(path) as store:
        report = poll(client, store, client.config, tids, progress=False)
        for tid, kind, day in DAYS:
            if tid in report.threads and report.threads[tid].complete:
                update_thread(store, client.config, tid, kind=kind, day=day)
    return report


def idle_poll(client: BoardClient, path: Path | str, tids: list[int] = TIDS) -> PollReport:
    return poll_store(client, path, client.config, tids, thread_days=DAYS, progress=False)


def rows(path: Path, table: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(path)
    try:
        return con.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()
    finally:
        con.close()


def requests_logged(path: Path | str) -> int:
    with open_store(path) as store:
        return len(fetch_log(store, ROOT, limit=10_000))


@pytest.mark.parametrize("source", [SourceKind.PC, SourceKind.API])
def test_an_idle_poll_is_recorded_as_the_orm_records_it(
    fake_board: LiveBoard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: SourceKind
) -> None:
    for tid in TIDS:
        fake_board.add_thread(tid, 23)
    reports: dict[str, PollReport] = {}
    for way in ("orm", "idle"):
        path = tmp_path / f"{way}.db"
        with new_client(source=source) as client:
            orm_poll(client, path)  # the first read
            if way == "orm":
                reports[way] = orm_poll(client, path)
            else:
                with monkeypatch.context() as m:
                    m.setattr("forumbot.store.db.open_store", None)  # any use of the ORM fails
                    reports[way] = idle_poll(client, path)
    assert reports["idle"].requests == 1 and reports["idle"].ok
    assert {o.reason for o in reports["idle"].threads.values()} == {"unchanged"}
    assert dataclasses.asdict(reports["idle"]) == dataclasses.asdict(reports["orm"])
    for table in ("poll_processes", "fetch_log", "thread_reads", "poll_runs", "threads", "posts"):
        assert rows(tmp_path / "idle.db", table) == rows(tmp_path / "orm.db", table), table


def test_a_changed_thread_is_read_with_the_list_already_asked(fake_board: LiveBoard, tmp_path: Path) -> None:
    for tid in TIDS:
        fake_board.add_thread(tid, 23)
    path = tmp_path / "s.db"
    with new_client() as client:
        idle_poll(client, path)
        fake_board.reply(3, "饺子", "投票：包子")
        n = len(fake_board.requests)
        report = idle_poll(client, path)
    asked = fake_board.requests[n:]
    assert asked == [
        ROOT + "forum.php?mod=forumdisplay&fid=3&page=1",  # once, by the idle check
        ROOT + "forum.php?mod=viewthread&tid=3&page=3",
    ]
    assert report.requests == 2 and report.new_posts == 1
    assert (report.threads[2].reason, report.threads[3].reason) == ("unchanged", "new replies")
    assert requests_logged(path) == 1 + 3 * 3 + 2  # the first poll, then this one: each exchange once
    with open_store(path) as store:
        run = poll_runs(store, ROOT)[-1]
        assert (run.requests, run.new_posts) == (2, 1)
        thread = get_thread(store, ROOT, 3)
        assert thread is not None and (thread.kind, thread.day) == ("vote", 1)


def test_a_failed_forum_list_is_logged_once_and_the_threads_read_directly(
    fake_board: LiveBoard, tmp_path: Path
) -> None:
    fake_board.add_thread(2, 12)
    path = tmp_path / "s.db"
    with new_client(retries=0) as client:
        idle_poll(client, path, [2])
        fake_board.reply(2, "饺子", "x")
        fake_board.fail_next = [lambda: (503, fake_board.headers(), b"down")]
        n = len(fake_board.requests)
        report = idle_poll(client, path, [2])
    assert len(fake_board.requests) - n == 2  # the list (failed), then thread 2's last page
    assert report.threads[2].reason == "no forum list" and report.new_posts == 1
    assert [e.tid for e in report.errors] == [None]
    assert report.notes == ["版块 3 的列表读取失败：逐个直接检查关注的主题"]
    with open_store(path) as store:
        logged = fetch_log(store, ROOT)[-2:]
    assert [(e.status, e.ok) for e in logged] == [(503, False), (200, True)]


def test_the_first_poll_and_a_full_poll_take_the_orm_path(fake_board: LiveBoard, tmp_path: Path) -> None:
    fake_board.add_thread(2, 12)
    path = tmp_path / "new" / "s.db"
    with new_client() as client:
        first = idle_poll(client, path, [2])  # no store yet: the ORM makes it
        full = poll_store(client, path, client.config, [2], full=True, progress=False)
    assert first.threads[2].reason == "first read" and first.new_posts == 12
    assert full.threads[2].reason == "full" and full.pages_read == 2


def test_a_store_the_idle_check_cannot_write_goes_to_the_orm(fake_board: LiveBoard, tmp_path: Path) -> None:
    fake_board.add_thread(2, 12)
    path = tmp_path / "s.db"
    with new_client() as client:
        idle_poll(client, path, [2])
        con = sqlite3.connect(path)
        con.execute("ALTER TABLE poll_runs DROP COLUMN notes")  # as a store from before that column
        con.close()
        n = len(fake_board.requests)
        report = idle_poll(client, path, [2])
    assert len(fake_board.requests) - n == 1  # the list is not asked twice
    assert report.ok and report.threads[2].reason == "unchanged"
    assert len(rows(path, "poll_runs")) == 2  # the column added back by the ORM, which recorded this poll


def test_a_busy_store_names_the_other_writer(fake_board: LiveBoard, tmp_path: Path) -> None:
    fake_board.add_thread(2, 12)
    path = tmp_path / "s.db"
    with new_client() as client:
        idle_poll(client, path, [2])
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        opened = IdleStore.open(path, ROOT, busy_timeout=0.05)
        assert opened is not None
        with opened as idle, pytest.raises(StoreBusy, match="正忙"):
            idle.record_idle_poll(
                started_at=JUDGE_TIME,
                finished_at=JUDGE_TIME,
                tids=[2],
                fetches=[],
                reads=[],
                requests=0,
                notes=[],
            )
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert len(rows(path, "poll_runs")) == 1  # nothing was written


@pytest.mark.parametrize("where", ["memory", "postgres", "missing", "other board"])
def test_only_an_sqlite_file_that_knows_the_board_is_opened_for_the_idle_check(
    fake_board: LiveBoard, tmp_path: Path, where: str
) -> None:
    fake_board.add_thread(2, 3)
    path = tmp_path / "s.db"
    with new_client() as client:
        idle_poll(client, path, [2])
    url = {
        "memory": ":memory:",
        "postgres": "postgresql://judge@127.0.0.1/forumbot",
        "missing": str(tmp_path / "nowhere.db"),
        "other board": str(path),
    }[where]
    assert IdleStore.open(url, "http://other.example.com/" if where == "other board" else ROOT) is None
    assert IdleStore.open(path, ROOT) is not None


@pytest.mark.postgres
def test_a_postgresql_store_polls_through_the_orm(
    fake_board: LiveBoard, pg_schema_store: Callable[[], Store]
) -> None:
    store = pg_schema_store()
    with store.engine.connect() as conn:
        schema = conn.exec_driver_sql("SHOW search_path").scalar()
    url = store.engine.url.update_query_dict({"options": f"-csearch_path={schema}"})
    fake_board.add_thread(2, 12)
    with new_client() as client:
        first = idle_poll(client, url.render_as_string(hide_password=False), [2])
        again = idle_poll(client, url.render_as_string(hide_password=False), [2])
    assert first.new_posts == 12 and again.threads[2].reason == "unchanged" and again.requests == 1
    assert [r.requests for r in poll_runs(store, ROOT)] == [3, 1]
    thread = get_thread(store, ROOT, 2)
    assert thread is not None and (thread.kind, thread.day) == ("discussion", 1)


def test_a_login_asked_during_the_idle_check_goes_through_the_store_s_record(
    fake_board: LiveBoard, tmp_path: Path
) -> None:
    """A login wall on the forum list makes the client log in again: the store's record of failed logins
    is asked first (here: a failure a minute ago forbids another try), as in an ORM poll."""
    fake_board.add_thread(2, 12)
    path = tmp_path / "s.db"
    with new_client() as client:
        idle_poll(client, path, [2])
    with open_store(path) as store:
        refused = LoginFailed(ROOT + "member.php", "登录失败，您还可以尝试 4 次")
        record_login_failure(store, ROOT, "法官大人", refused, at=JUDGE_TIME - timedelta(minutes=1))
    forget_login_failures()
    with new_client(username="法官大人", password="wrong", retries=0) as client:
        client.session.cookies.set("test_2132_auth", "stale", domain="bbs.example.com", path="/")
        assert client.logged_in  # a cookie from an earlier login: the idle check may run
        fake_board.fail_next = [fake_board.login_wall]  # the forum list: log in again
        n = len(fake_board.requests)
        report = idle_poll(client, path, [2])
    # The list, then thread 2 read directly: each time the store's guard said no.
    assert [(e.tid, e.kind) for e in report.errors] == [(None, "LoginFailed"), (2, "LoginFailed")]
    assert all("forumbot login --retry" in e.message for e in report.errors)
    assert not any("loginsubmit" in url for url in fake_board.requests[n:])  # no login was tried
    with open_store(path) as store:
        assert len(login_failures(store, ROOT)) == 1
