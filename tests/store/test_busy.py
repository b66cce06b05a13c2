"""Two processes, one SQLite store (issue 8, point 7).

A writer waits for another (the busy timeout) instead of dying with a raw «database is locked»; when
the wait runs out, the error names the other forumbot process (pid, host, command, start) from the
``poll_processes`` row a running poll keeps.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from forumbot.errors import StoreBusy, StoreError
from forumbot.store import open_store
from forumbot.store.base import ensure_board
from forumbot.store.reads import finish_poll_process, running_polls, start_poll_process

BOARD = "http://bbs.example.com/"
NOW = datetime(2026, 6, 4, 5, 0, tzinfo=UTC)


def _hold_the_write_lock(path: Path, seconds: float, ready: threading.Event) -> None:
    """Another writer: takes the store's write lock in a unit of work and keeps it ``seconds``."""
    other = open_store(path)
    try:
        with other.session() as s:
            s.execute(text("UPDATE boards SET name = 'held' WHERE 1 = 1"))
            ready.set()
            time.sleep(seconds)
            s.commit()
    finally:
        other.close()


def test_a_writer_waits_for_another_within_the_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    store = open_store(path, busy_timeout=10)
    ensure_board(store, BOARD)
    ready = threading.Event()
    holder = threading.Thread(target=_hold_the_write_lock, args=(path, 0.8, ready))
    holder.start()
    assert ready.wait(5)
    started = time.monotonic()
    start_poll_process(store, BOARD, at=NOW, full=False, tids=[2])  # waits, then writes
    waited = time.monotonic() - started
    holder.join()
    assert waited >= 0.5
    [running] = running_polls(store, BOARD)
    assert running.pid == os.getpid()
    store.close()


def test_a_writer_that_gives_up_names_the_running_poll(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    store = open_store(path, busy_timeout=0.3)
    pid = start_poll_process(store, BOARD, at=NOW, full=True, tids=[2, 3], command="forumbot poll --full")
    ready = threading.Event()
    holder = threading.Thread(target=_hold_the_write_lock, args=(path, 2.0, ready))
    holder.start()
    assert ready.wait(5)
    with pytest.raises(StoreBusy) as info:
        ensure_board(store, "http://other.example.com/")
    holder.join()
    message = str(info.value)
    assert "forumbot poll --full" in message and f"pid {os.getpid()}" in message
    assert socket.gethostname() in message and "2026-06-04 05:00:00" in message
    assert "正忙" in message and "0.3" in message
    assert "database is locked" not in message
    assert isinstance(info.value, StoreError)
    finish_poll_process(store, pid, at=NOW, ok=True)
    assert running_polls(store) == []
    store.close()


def test_two_real_processes_one_named_by_the_other(tmp_path: Path) -> None:
    """A second process holds the store as a running poll; this one gives up and names it."""
    path = tmp_path / "shared.db"
    open_store(path).close()
    script = textwrap.dedent(
        f"""
        import sys, time
        from datetime import datetime, UTC
        from sqlalchemy import text
        from forumbot.store import open_store
        from forumbot.store.reads import start_poll_process
        store = open_store({str(path)!r})
        start_poll_process(store, {BOARD!r}, at=datetime(2026, 6, 4, 5, 0, tzinfo=UTC), full=False,
                           tids=[3], command="forumbot poll")
        with store.session() as s:
            s.execute(text("UPDATE boards SET name = 'busy' WHERE 1 = 1"))
            print("holding", flush=True)
            time.sleep(5)
            s.commit()
        """
    )
    other = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "holding"
        with pytest.raises(StoreBusy) as info:  # even opening the store needs the write lock a moment
            store = open_store(path, busy_timeout=0.3)
            ensure_board(store, "http://second.example.com/")
        assert f"pid {other.pid}" in str(info.value) and "forumbot poll" in str(info.value)
    finally:
        other.wait(20)
        if other.stdout is not None:
            other.stdout.close()


def test_a_crashed_poll_is_named_as_no_longer_running(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    store = open_store(path)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from datetime import datetime, UTC; from forumbot.store import open_store;"
            "from forumbot.store.reads import start_poll_process;"
            f"start_poll_process(open_store({str(path)!r}), {BOARD!r},"
            " at=datetime.now(UTC), full=False, tids=[])",
        ],
        check=True,
    )
    assert done.returncode == 0  # that "poll" ended without finishing its row (as after kill -9)
    from forumbot.store.db import busy_message

    assert "已不在运行" in busy_message(str(path), 30)
    store.close()


def test_the_default_busy_timeout_is_thirty_seconds(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    store.close()


def test_an_older_store_gets_the_new_tables_when_opened(tmp_path: Path) -> None:
    """A store made before the read log existed: opening it (even for reading) adds the new tables."""
    path = tmp_path / "old.db"
    store = open_store(path)
    with store.engine.begin() as conn:
        for name in ("thread_reads", "login_failures", "poll_processes"):
            conn.exec_driver_sql(f"DROP TABLE {name}")
    store.close()
    again = open_store(path, create=False)
    from forumbot.store.reads import read_status

    assert read_status(again, BOARD, 3).reads == 0
    again.close()
