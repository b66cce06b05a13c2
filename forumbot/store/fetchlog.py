"""The fetch log and the poll runs: every HTTP exchange with a board and every poll, so "when did forumbot
last look, and what did the board answer?" always has an answer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlmodel import col, select

from forumbot.fetches import FetchRecord
from forumbot.i18n import _
from forumbot.store.base import BoardLike, _aware, _board_id, _unit
from forumbot.store.db import Store
from forumbot.store.models import FetchLogRow, PollRunRow


@dataclass(frozen=True, slots=True)
class FetchLogEntry:
    at: datetime
    method: str
    url: str
    status: int | None
    ok: bool
    error: str
    elapsed_ms: int
    size: int
    tid: int | None
    page: int | None


@dataclass(frozen=True, slots=True)
class PollRun:
    id: int
    started_at: datetime
    finished_at: datetime
    full: bool
    tids: tuple[int, ...]
    requests: int
    pages_read: int
    new_posts: int
    new_revisions: int
    state_changes: int
    errors: int
    notes: tuple[str, ...] = field(default_factory=tuple)


def _fetch_rows(
    board_id: int, fetches: Iterable[FetchRecord], *, tid: int | None, page: int | None, error: str = ""
) -> list[FetchLogRow]:
    rows = [
        FetchLogRow(
            board_id=board_id,
            at=f.at,
            method=f.method,
            url=f.url,
            status=f.status,
            ok=f.ok,
            error=f.error,
            elapsed_ms=round(f.elapsed * 1000),
            size=f.size,
            tid=tid,
            page=page,
        )
        for f in fetches
    ]
    if error and rows:  # the last exchange answered, but its page was an error page
        last = rows[-1]
        last.ok = False
        last.error = f"{last.error}; {error}" if last.error else error
    return rows


def record_fetches(
    store: Store,
    board: BoardLike,
    fetches: Sequence[FetchRecord],
    *,
    tid: int | None = None,
    page: int | None = None,
    error: str = "",
    at: datetime | None = None,
    url: str = "",
) -> None:
    """Log HTTP exchanges; ``error`` marks the last one (or, with none, adds a row for ``url``)."""
    with _unit(store, _("the fetch log")) as s:
        bid = _board_id(s, board)
        assert bid is not None
        rows = _fetch_rows(bid, fetches, tid=tid, page=page, error=error)
        if not rows and error:
            rows = [
                FetchLogRow(
                    board_id=bid,
                    at=at or datetime.now(UTC),
                    url=url,
                    ok=False,
                    error=error,
                    tid=tid,
                    page=page,
                )
            ]
        s.add_all(rows)


def record_poll(
    store: Store,
    board: BoardLike,
    *,
    started_at: datetime,
    finished_at: datetime,
    full: bool,
    tids: Sequence[int],
    requests: int,
    pages_read: int,
    new_posts: int,
    new_revisions: int,
    state_changes: int,
    errors: int,
    notes: Sequence[str] = (),
) -> int:
    """Log one poll run. Returns its id."""
    _aware(started_at, finished_at)
    with _unit(store, _("the poll log")) as s:
        bid = _board_id(s, board)
        assert bid is not None
        row = PollRunRow(
            board_id=bid,
            started_at=started_at,
            finished_at=finished_at,
            full=full,
            tids=list(tids),
            requests=requests,
            pages_read=pages_read,
            new_posts=new_posts,
            new_revisions=new_revisions,
            state_changes=state_changes,
            errors=errors,
            notes=list(notes),
        )
        s.add(row)
        s.flush()
        assert row.id is not None
        return row.id


def fetch_log(store: Store, board: BoardLike, *, limit: int = 100) -> list[FetchLogEntry]:
    """The latest ``limit`` HTTP exchanges with the board, oldest first."""
    with store.session() as s:
        bid = _board_id(s, board, create=False)
        if bid is None:
            return []
        rows = s.exec(
            select(FetchLogRow)
            .where(FetchLogRow.board_id == bid)
            .order_by(col(FetchLogRow.id).desc())
            .limit(limit)
        ).all()
        return [
            FetchLogEntry(r.at, r.method, r.url, r.status, r.ok, r.error, r.elapsed_ms, r.size, r.tid, r.page)
            for r in reversed(rows)
        ]


def poll_runs(store: Store, board: BoardLike, *, limit: int = 20) -> list[PollRun]:
    """The latest polls of the board, oldest first."""
    with store.session() as s:
        bid = _board_id(s, board, create=False)
        if bid is None:
            return []
        rows = s.exec(
            select(PollRunRow)
            .where(PollRunRow.board_id == bid)
            .order_by(col(PollRunRow.id).desc())
            .limit(limit)
        ).all()
        out: list[PollRun] = []
        for r in reversed(rows):
            assert r.id is not None
            out.append(
                PollRun(
                    r.id,
                    r.started_at,
                    r.finished_at,
                    r.full,
                    tuple(r.tids),
                    r.requests,
                    r.pages_read,
                    r.new_posts,
                    r.new_revisions,
                    r.state_changes,
                    r.errors,
                    tuple(r.notes),
                )
            )
        return out
