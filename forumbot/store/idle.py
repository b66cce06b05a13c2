"""An idle poll's check and record on an SQLite store, through the standard library's sqlite3.

Why: most polls find nothing new (one forum-list request, every watched thread unchanged), yet a poll
through the ORM paid ~0.5 s CPU to import SQLAlchemy and SQLModel and compile its first statements, far
more than the request itself (issue 12: an idle ``forumbot poll`` ≤ 0.3 s CPU, run every minute from
cron). So forumbot/poll.py first reads here what it needs to tell whether the forum list proves nothing
changed, and when it does, records the poll here in one transaction; any other case (something
changed, a store that is not an SQLite file, a table or column missing, an error) goes to the ORM
path, which holds every other unit of work.

The store's one source of truth stays forumbot/store/models.py: nothing here creates or alters a table,
and the rows written are the rows the ORM writes (the same columns, naive UTC times in SQLAlchemy's
SQLite format, booleans as 0/1, JSON as ``json.dumps``). tests/store/test_idle.py writes an idle poll
both ways and compares every column, and checks that the column lists below are the models' columns.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forumbot.errors import StoreBusy
from forumbot.fetches import FetchRecord
from forumbot.store.values import ThreadRead, store_url, this_command

BUSY_TIMEOUT = 30.0  # as forumbot.store.db: seconds a writer waits for another process

# The columns written, table by table: every column of the model but ``id`` (tests/store/test_idle.py).
# fmt: off
POLL_PROCESS_COLUMNS = (
    "board_id", "pid", "host", "command", "full", "tids", "started_at", "finished_at", "ok",
)
FETCH_LOG_COLUMNS = (
    "board_id", "at", "method", "url", "status", "ok", "error", "elapsed_ms", "size", "tid", "page",
)
THREAD_READ_COLUMNS = (
    "board_id", "tid", "process_id", "started_at", "finished_at", "full", "complete", "source", "reason",
    "first_page", "last_page", "pages", "pages_read", "posts_seen", "error_kind", "error", "listed_replies",
    "listed_last_post_at", "listed_last_poster",
)
POLL_RUN_COLUMNS = (
    "board_id", "started_at", "finished_at", "full", "tids", "requests", "pages_read", "new_posts",
    "new_revisions", "state_changes", "errors", "notes",
)
# fmt: on
WRITTEN = {
    "poll_processes": POLL_PROCESS_COLUMNS,
    "fetch_log": FETCH_LOG_COLUMNS,
    "thread_reads": THREAD_READ_COLUMNS,
    "poll_runs": POLL_RUN_COLUMNS,
}


class IdleStoreUnusable(Exception):
    """This store cannot be read or written here (not a forumbot store yet, an older layout, a database
    error): the ORM path takes over, and says what is wrong if anything is."""


@dataclass(frozen=True, slots=True)
class KnownThread:
    """What the store holds of a watched thread, as far as the idle check needs it."""

    tid: int
    fid: int | None
    pages: int | None
    replies: int | None
    last_post_at: datetime | None
    resume_page: int | None


def _out(value: datetime | None) -> str | None:
    """An aware datetime as the ORM stores it on SQLite (naive UTC, with microseconds)."""
    if value is None:
        return None
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"the store takes aware datetimes only (got naive {value!r}); use UTC")
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


def _in(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


def sqlite_path(url_or_path: str | Path | None) -> Path | None:
    """The file of an SQLite store named by a URL or path; None for anything else (PostgreSQL, an
    in-memory store, a URL with options): those take the ORM path."""
    url = store_url(url_or_path)
    prefix = "sqlite:///"
    if not url.startswith(prefix) or "?" in url:
        return None
    path = url[len(prefix) :]
    return Path(path) if path not in ("", ":memory:") else None


class IdleStore:
    """An existing SQLite store opened with sqlite3 for one board's idle check (``open`` or None)."""

    def __init__(self, con: sqlite3.Connection, path: Path, board_id: int, busy_timeout: float) -> None:
        self.con = con
        self.path = path
        self.board_id = board_id
        self.busy_timeout = busy_timeout

    @classmethod
    def open(
        cls, url_or_path: str | Path | None, board_key: str, *, busy_timeout: float = BUSY_TIMEOUT
    ) -> IdleStore | None:
        """The store at ``url_or_path`` when it is an SQLite file that already knows ``board_key``;
        None otherwise (nothing is created here)."""
        path = sqlite_path(url_or_path)
        if path is None or not path.is_file():
            return None
        try:
            con = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
        except sqlite3.Error:
            return None
        try:
            # The ORM's connection settings (forumbot/store/db.py), so both write alike.
            con.execute("PRAGMA foreign_keys=ON")
            con.execute(f"PRAGMA busy_timeout={max(int(busy_timeout * 1000), 0)}")
            con.execute("PRAGMA journal_mode=WAL")
            row = con.execute("SELECT id FROM boards WHERE url = ?", (board_key,)).fetchone()
        except sqlite3.Error:
            con.close()
            return None
        if row is None:
            con.close()
            return None
        return cls(con, path, int(row[0]), busy_timeout)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> IdleStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, params: Sequence[Any]) -> list[Any]:
        try:
            return self.con.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise IdleStoreUnusable(str(exc)) from exc

    # ------------------------------------------------------------------ reading

    def threads(self, tids: Iterable[int]) -> dict[int, KnownThread]:
        """The stored threads among ``tids``."""
        wanted = sorted(set(tids))
        marks = ",".join("?" * len(wanted))
        rows = self._query(
            "SELECT tid, fid, pages, replies, last_post_at, resume_page FROM threads "
            f"WHERE board_id = ? AND tid IN ({marks})",
            (self.board_id, *wanted),
        )
        return {r[0]: KnownThread(r[0], r[1], r[2], r[3], _in(r[4]), r[5]) for r in rows}

    def last_complete_read(self, tid: int) -> ThreadRead | None:
        """As forumbot.store.reads.last_complete_read."""
        rows = self._query(
            "SELECT tid, started_at, finished_at, full, complete, source, reason, first_page, last_page, "
            "pages, pages_read, posts_seen, error_kind, error, listed_replies, listed_last_post_at, "
            "listed_last_poster FROM thread_reads WHERE board_id = ? AND tid = ? AND complete = 1 "
            "ORDER BY started_at DESC, id DESC LIMIT 1",
            (self.board_id, tid),
        )
        if not rows:
            return None
        r = rows[0]
        started, finished = _in(r[1]), _in(r[2])
        assert started is not None and finished is not None
        return ThreadRead(
            r[0], started, finished, bool(r[3]), bool(r[4]), r[5], r[6], r[7], r[8], r[9], r[10], r[11],
            r[12], r[13], r[14], _in(r[15]), r[16],
        )  # fmt: skip

    def newest_post_at(self, tid: int) -> datetime | None:
        """As forumbot.store.reads.newest_post_at."""
        rows = self._query(
            "SELECT max(posted_until) FROM posts WHERE board_id = ? AND tid = ?", (self.board_id, tid)
        )
        return _in(rows[0][0]) if rows else None

    # ------------------------------------------------------------------ writing

    def record_idle_poll(
        self,
        *,
        started_at: datetime,
        finished_at: datetime,
        tids: Sequence[int],
        fetches: Sequence[FetchRecord],
        reads: Sequence[ThreadRead],
        requests: int,
        notes: Sequence[str],
        thread_days: Sequence[tuple[int, str, int]] = (),
    ) -> None:
        """Record an idle poll in one transaction: the poll's process (finished), the forum-list
        exchanges in the fetch log, one read per watched thread, the poll run, and which thread is which
        day's (``thread_days``: tid, kind, day; later entries win). All or nothing.

        Raises StoreBusy (naming the other writer) when another process holds the store past the busy
        timeout, IdleStoreUnusable on any other database error (nothing was written)."""
        tid_list = json.dumps(list(tids))
        bid = self.board_id
        try:
            self.con.execute("BEGIN IMMEDIATE")
            try:
                cur = self.con.execute(
                    _insert("poll_processes", POLL_PROCESS_COLUMNS),
                    (bid, os.getpid(), socket.gethostname(), this_command(), 0, tid_list,
                     _out(started_at), _out(finished_at), 1),
                )  # fmt: skip
                process_id = cur.lastrowid
                self.con.executemany(
                    _insert("fetch_log", FETCH_LOG_COLUMNS),
                    [
                        (bid, _out(f.at), f.method, f.url, f.status, int(f.ok), f.error,
                         round(f.elapsed * 1000), f.size, None, None)
                        for f in fetches
                    ],
                )  # fmt: skip
                self.con.executemany(
                    _insert("thread_reads", THREAD_READ_COLUMNS),
                    [
                        (bid, r.tid, process_id, _out(r.started_at), _out(r.finished_at), int(r.full),
                         int(r.complete), r.source, r.reason, r.first_page, r.last_page, r.pages,
                         r.pages_read, r.posts_seen, r.error_kind, r.error, r.listed_replies,
                         _out(r.listed_last_post_at), r.listed_last_poster)
                        for r in reads
                    ],
                )  # fmt: skip
                self.con.execute(
                    _insert("poll_runs", POLL_RUN_COLUMNS),
                    (bid, _out(started_at), _out(finished_at), 0, tid_list, requests, 0, 0, 0, 0, 0,
                     json.dumps(list(notes))),
                )  # fmt: skip
                for tid, kind, day in thread_days:
                    self.con.execute(
                        "UPDATE threads SET kind = ?, day = ? WHERE board_id = ? AND tid = ?",
                        (kind, day, bid, tid),
                    )
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            self.con.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                from forumbot.store.db import busy_message

                raise StoreBusy(busy_message(str(self.path), self.busy_timeout)) from exc
            raise IdleStoreUnusable(str(exc)) from exc
        except sqlite3.Error as exc:
            raise IdleStoreUnusable(str(exc)) from exc


def _insert(table: str, columns: Sequence[str]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
