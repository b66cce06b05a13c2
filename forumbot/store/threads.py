"""The threads forumbot reads, with what the last poll learnt about each (to poll only what changed)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func
from sqlmodel import col, select

from forumbot.i18n import _
from forumbot.store.base import BoardLike, _aware, _board_id, _thread_row, _unit
from forumbot.store.db import Store
from forumbot.store.models import PostRow, ThreadRow


@dataclass(frozen=True, slots=True)
class StoredThread:
    tid: int
    fid: int | None
    title: str
    kind: str | None
    day: int | None
    pages: int | None
    replies: int | None
    last_post_at: datetime | None
    resume_page: int | None
    resume_ppp: int | None
    first_seen: datetime
    last_read: datetime | None
    last_polled: datetime | None
    last_full_poll: datetime | None
    posts: int = 0


def update_thread(
    store: Store,
    board: BoardLike,
    tid: int,
    *,
    replies: int | None = None,
    last_post_at: datetime | None = None,
    polled_at: datetime | None = None,
    full_polled_at: datetime | None = None,
    fid: int | None = None,
    title: str | None = None,
    kind: str | None = None,
    day: int | None = None,
) -> None:
    """Set what a complete read learnt (replies, last post time) or what the game says (kind, day)."""
    _aware(last_post_at, polled_at, full_polled_at)
    with _unit(store, _("thread {tid}").format(tid=tid)) as s:
        bid = _board_id(s, board)
        assert bid is not None
        row = _thread_row(s, bid, tid, polled_at or full_polled_at or datetime.now(UTC))
        for name, value in (
            ("replies", replies),
            ("last_post_at", last_post_at),
            ("last_polled_at", polled_at),
            ("last_full_poll_at", full_polled_at),
            ("fid", fid),
            ("title", title),
            ("kind", kind),
            ("day", day),
        ):
            if value is not None:
                setattr(row, name, value)


def _thread(r: ThreadRow, count: int) -> StoredThread:
    return StoredThread(
        tid=r.tid,
        fid=r.fid,
        title=r.title,
        kind=r.kind,
        day=r.day,
        pages=r.pages,
        replies=r.replies,
        last_post_at=r.last_post_at,
        resume_page=r.resume_page,
        resume_ppp=r.resume_ppp,
        first_seen=r.first_seen_at,
        last_read=r.last_read_at,
        last_polled=r.last_polled_at,
        last_full_poll=r.last_full_poll_at,
        posts=count,
    )


def list_threads(store: Store, board: BoardLike, tids: Collection[int] | None = None) -> list[StoredThread]:
    """Stored threads of the board (all, or those in ``tids``), by tid, with their post counts."""
    with store.session() as s:
        bid = _board_id(s, board, create=False)
        if bid is None:
            return []
        q = select(ThreadRow).where(ThreadRow.board_id == bid)
        if tids is not None:
            q = q.where(col(ThreadRow.tid).in_(list(tids)))
        rows = s.exec(q.order_by(col(ThreadRow.tid))).all()
        counts = dict(
            s.exec(
                select(PostRow.tid, func.count()).where(PostRow.board_id == bid).group_by(col(PostRow.tid))
            ).all()
        )
        return [_thread(r, int(counts.get(r.tid, 0))) for r in rows]


def get_thread(store: Store, board: BoardLike, tid: int) -> StoredThread | None:
    found = list_threads(store, board, [tid])
    return found[0] if found else None
