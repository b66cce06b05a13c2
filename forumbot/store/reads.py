"""What forumbot read, and when: the evidence behind "this day was read completely after its close".

Why: a tally built on a failed or missing read must say so (issue 8: never confidently wrong). Every
poll leaves here, per thread it touched, one :class:`~forumbot.store.models.ThreadReadRow` (complete or
not, with the error) and, while it runs, one :class:`~forumbot.store.models.PollProcessRow` naming the
process (pid, host, start), so that a second process waiting for the store can name the first.

The desk calls :func:`read_status` (one thread) and :func:`day_read_complete` (a day's threads against
a deadline) to decide whether a tally is provisional and whether ``close`` may proceed. Times are
aware UTC datetimes; reasons are in the judge's language (Chinese by default, through the catalogs).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import func
from sqlmodel import col, select

from forumbot.i18n import _
from forumbot.store.base import BoardLike, _aware, _board_id, _key, _unit
from forumbot.store.db import Store
from forumbot.store.models import BoardRow, PollProcessRow, PostRow, ThreadReadRow
from forumbot.store.values import ThreadRead as ThreadRead  # re-exported: its old home
from forumbot.store.values import this_command

DEFAULT_TZ = ZoneInfo("Asia/Shanghai")

# The store's shared helpers under the names the reading records use (forumbot/store/base.py holds them).
board_key = _key
board_id = _board_id
unit = _unit


# --------------------------------------------------------------------------- the running poll


@dataclass(frozen=True, slots=True)
class PollProcess:
    """A poll as recorded when it started: enough to name it to another process."""

    id: int
    board: str
    pid: int
    host: str
    command: str
    started_at: datetime
    finished_at: datetime | None
    ok: bool | None

    @property
    def running(self) -> bool:
        return self.finished_at is None

    def describe(self, tz: ZoneInfo = DEFAULT_TZ) -> str:
        """«forumbot poll (pid 4242 on judge-pc, started 2026-06-04 12:59:30)» in the board's zone."""
        when = self.started_at.astimezone(tz).strftime("%Y-%m-%d %H:%M:%S")
        cmd = self.command or "forumbot poll"
        return _("{command} (pid {pid} on {host}, started {when})").format(
            command=cmd, pid=self.pid, host=self.host or "?", when=when
        )


def start_poll_process(
    store: Store,
    board: BoardLike,
    *,
    at: datetime,
    full: bool,
    tids: Iterable[int],
    command: str | None = None,
) -> int:
    """Record that this process starts polling ``board`` (its pid, host, command). Returns the row id."""
    _aware(at)
    with unit(store, _("the running poll")) as s:
        bid = board_id(s, board)
        assert bid is not None
        row = PollProcessRow(
            board_id=bid,
            pid=os.getpid(),
            host=socket.gethostname(),
            command=command if command is not None else this_command(),
            full=full,
            tids=list(tids),
            started_at=at,
        )
        s.add(row)
        s.flush()
        assert row.id is not None
        return row.id


def finish_poll_process(store: Store, process_id: int, *, at: datetime, ok: bool) -> None:
    """Mark the poll ``process_id`` as finished (ok or not)."""
    _aware(at)
    with unit(store, _("the end of the poll")) as s:
        row = s.get(PollProcessRow, process_id)
        if row is not None:
            row.finished_at = at
            row.ok = ok


def running_polls(store: Store, board: BoardLike | None = None) -> list[PollProcess]:
    """Polls that started and never finished (running now, or killed), newest first."""
    with store.session() as s:
        q = select(PollProcessRow, BoardRow.url).join(BoardRow, col(BoardRow.id) == PollProcessRow.board_id)
        q = q.where(col(PollProcessRow.finished_at).is_(None))
        if board is not None:
            q = q.where(BoardRow.url == board_key(board))
        rows = s.exec(q.order_by(col(PollProcessRow.id).desc())).all()
        return [_process(r, url) for r, url in rows]


def _process(r: PollProcessRow, url: str) -> PollProcess:
    assert r.id is not None
    return PollProcess(r.id, url, r.pid, r.host, r.command, r.started_at, r.finished_at, r.ok)


# --------------------------------------------------------------------------- thread reads


def record_thread_read(
    store: Store,
    board: BoardLike,
    read: ThreadRead,
    *,
    process_id: int | None = None,
) -> None:
    """Log one read of a thread (call once per thread a poll read, complete or failed)."""
    _aware(read.started_at, read.finished_at, read.listed_last_post_at)
    with unit(store, _("the read of thread {tid}").format(tid=read.tid)) as s:
        bid = board_id(s, board)
        assert bid is not None
        s.add(
            ThreadReadRow(
                board_id=bid,
                tid=read.tid,
                process_id=process_id,
                started_at=read.started_at,
                finished_at=read.finished_at,
                full=read.full,
                complete=read.complete,
                source=read.source,
                reason=read.reason,
                first_page=read.first_page,
                last_page=read.last_page,
                pages=read.pages,
                pages_read=read.pages_read,
                posts_seen=read.posts_seen,
                error_kind=read.error_kind,
                error=read.error,
                listed_replies=read.listed_replies,
                listed_last_post_at=read.listed_last_post_at,
                listed_last_poster=read.listed_last_poster,
            )
        )


def _read(r: ThreadReadRow) -> ThreadRead:
    return ThreadRead(
        tid=r.tid,
        started_at=r.started_at,
        finished_at=r.finished_at,
        full=r.full,
        complete=r.complete,
        source=r.source,
        reason=r.reason,
        first_page=r.first_page,
        last_page=r.last_page,
        pages=r.pages,
        pages_read=r.pages_read,
        posts_seen=r.posts_seen,
        error_kind=r.error_kind,
        error=r.error,
        listed_replies=r.listed_replies,
        listed_last_post_at=r.listed_last_post_at,
        listed_last_poster=r.listed_last_poster,
    )


def last_complete_read(store: Store, board: BoardLike, tid: int) -> ThreadRead | None:
    """The latest complete read of ``tid`` (None when it was never read completely)."""
    with store.session() as s:
        bid = board_id(s, board, create=False)
        if bid is None:
            return None
        row = s.exec(
            select(ThreadReadRow)
            .where(
                ThreadReadRow.board_id == bid,
                ThreadReadRow.tid == tid,
                col(ThreadReadRow.complete).is_(True),
            )
            .order_by(col(ThreadReadRow.started_at).desc(), col(ThreadReadRow.id).desc())
            .limit(1)
        ).first()
        return _read(row) if row is not None else None


def newest_post_at(store: Store, board: BoardLike, tid: int) -> datetime | None:
    """The latest ``posted_until`` among the stored posts of ``tid`` (None when none is stored)."""
    with store.session() as s:
        bid = board_id(s, board, create=False)
        if bid is None:
            return None
        value = s.exec(
            select(func.max(PostRow.posted_until)).where(PostRow.board_id == bid, PostRow.tid == tid)
        ).first()
        if value is None:
            return None
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def thread_reads(store: Store, board: BoardLike, tid: int, *, limit: int = 50) -> list[ThreadRead]:
    """The latest ``limit`` reads of ``tid``, oldest first."""
    with store.session() as s:
        bid = board_id(s, board, create=False)
        if bid is None:
            return []
        rows = s.exec(
            select(ThreadReadRow)
            .where(ThreadReadRow.board_id == bid, ThreadReadRow.tid == tid)
            .order_by(col(ThreadReadRow.id).desc())
            .limit(limit)
        ).all()
        return [_read(r) for r in reversed(rows)]


@dataclass(frozen=True, slots=True)
class ThreadReadStatus:
    """How well the store knows one thread.

    ``last_complete_read_at``: when the latest complete read STARTED (every post up to that moment is
    stored; a read that started before a deadline cannot vouch for the state at the deadline).
    ``last_full_read_at``: the same for a complete read from page 1 (edits and deletions checked).
    ``last_error``: the error of the latest read when it failed (None when the latest read was complete).
    """

    tid: int
    last_complete_read_at: datetime | None
    source: str | None  # the view(s) of that complete read
    last_full_read_at: datetime | None
    full_source: str | None
    last_attempt_at: datetime | None
    last_attempt_complete: bool
    last_error: str | None
    last_error_kind: str | None
    reads: int  # how many reads are logged

    @property
    def ever_read_completely(self) -> bool:
        return self.last_complete_read_at is not None

    def complete_after(self, when: datetime, *, full: bool = False) -> bool:
        """True when a complete (``full``: from page 1) read started at or after ``when``."""
        at = self.last_full_read_at if full else self.last_complete_read_at
        return at is not None and at >= when


def read_status(store: Store, board: BoardLike, tid: int) -> ThreadReadStatus:
    """What the store knows about how (and when) thread ``tid`` was read."""
    with store.session() as s:
        bid = board_id(s, board, create=False)
        empty = ThreadReadStatus(tid, None, None, None, None, None, False, None, None, 0)
        if bid is None:
            return empty
        base = select(ThreadReadRow).where(ThreadReadRow.board_id == bid, ThreadReadRow.tid == tid)
        last = s.exec(base.order_by(col(ThreadReadRow.id).desc()).limit(1)).first()
        if last is None:
            return empty
        complete = s.exec(
            base.where(col(ThreadReadRow.complete).is_(True))
            .order_by(col(ThreadReadRow.started_at).desc(), col(ThreadReadRow.id).desc())
            .limit(1)
        ).first()
        full = s.exec(
            base.where(col(ThreadReadRow.complete).is_(True), col(ThreadReadRow.full).is_(True))
            .order_by(col(ThreadReadRow.started_at).desc(), col(ThreadReadRow.id).desc())
            .limit(1)
        ).first()
        n = s.exec(
            select(func.count())
            .select_from(ThreadReadRow)
            .where(ThreadReadRow.board_id == bid, ThreadReadRow.tid == tid)
        ).one()
        return ThreadReadStatus(
            tid=tid,
            last_complete_read_at=complete.started_at if complete else None,
            source=complete.source if complete else None,
            last_full_read_at=full.started_at if full else None,
            full_source=full.source if full else None,
            last_attempt_at=last.started_at,
            last_attempt_complete=last.complete,
            last_error=None if last.complete else (last.error or _("the read did not finish")),
            last_error_kind=None if last.complete else (last.error_kind or None),
            reads=int(n),
        )


def day_read_complete(
    store: Store,
    board: BoardLike,
    tids: Iterable[int],
    after: datetime,
    *,
    full: bool = False,
    tz: ZoneInfo = DEFAULT_TZ,
) -> tuple[bool, list[str]]:
    """Were all ``tids`` read completely by a read that started at or after ``after``?

    ``full=True`` asks for reads from page 1 (what ``close`` needs: edits and deletions up to the
    deadline are known). Returns (True, []) or (False, one reason per thread that falls short,
    naming the thread, the last complete read and the latest error, with what to run).
    """
    _aware(after)
    when = after.astimezone(tz).strftime("%Y-%m-%d %H:%M:%S")
    fix = "forumbot poll --full" if full else "forumbot poll"
    what = _("complete read (from page 1 to the last page)") if full else _("complete read")
    reasons: list[str] = []
    for tid in dict.fromkeys(int(t) for t in tids):
        st = read_status(store, board, tid)
        if st.complete_after(after, full=full):
            continue
        last = st.last_full_read_at if full else st.last_complete_read_at
        if st.reads == 0:
            why = _("thread {tid} was never read").format(tid=tid)
        elif last is None:
            why = _("thread {tid} never had a {what}").format(tid=tid, what=what)
        else:
            stamp = last.astimezone(tz).strftime("%Y-%m-%d %H:%M:%S")
            why = _("thread {tid}'s last {what} started at {stamp}, before {when}").format(
                tid=tid, what=what, stamp=stamp, when=when
            )
        if st.last_error:
            why += _(" (the latest read failed: {error})").format(error=st.last_error)
        reasons.append(
            _("{why}: it needs a {what} after {when}; run {fix}").format(
                why=why, what=what, when=when, fix=fix
            )
        )
    return (not reasons, reasons)
