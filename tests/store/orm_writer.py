"""The page writer as it stood before issue 12 (ORM, one flush per new row): the oracle the batched
writer (forumbot/store/pagewrite.py) is checked against, table by table, and the "old" side of
benchmarks/store.py. A verbatim copy of ``record_thread_page`` and the private helpers it used,
so that it keeps working while repo.py is split into modules. Do not "improve" it: it defines the
semantics.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from forumbot.board import BoardConfig
from forumbot.errors import StoreError
from forumbot.fetches import FetchRecord
from forumbot.parsers.records import Post, PostState, QuoteRef, ThreadPage
from forumbot.store.base import BoardLike
from forumbot.store.db import Store
from forumbot.store.models import BoardRow, EventRow, FetchLogRow, PostRow, RevisionRow, ThreadRow
from forumbot.store.posts import PageResult, StateChange, post_hash


def _key(board: BoardLike) -> str:
    if isinstance(board, BoardConfig):
        return board.key
    return board if board.endswith("/") else board + "/"


def _board_id(s: Session, board: BoardLike, *, create: bool = True) -> int | None:
    key = _key(board)
    row = s.exec(select(BoardRow).where(BoardRow.url == key)).first()
    if row is None:
        if not create:
            return None
        row = BoardRow(url=key)
        s.add(row)
        s.flush()
    assert row.id is not None
    return row.id


@contextmanager
def _unit(store: Store, what: str) -> Iterator[Session]:
    """One unit of work: a session committed at the end, rolled back (nothing written) on any error."""
    with store.session() as s:
        try:
            yield s
            s.commit()
        except SQLAlchemyError as exc:
            s.rollback()
            raise StoreError(f"cannot store {what}: {exc}") from exc


def _aware(*values: datetime | None) -> None:
    for v in values:
        if v is not None and (v.tzinfo is None or v.utcoffset() is None):
            raise ValueError(f"the store takes aware datetimes only (got naive {v!r}); use UTC")


def _thread_row(s: Session, board_id: int, tid: int, at: datetime) -> ThreadRow:
    row = s.exec(select(ThreadRow).where(ThreadRow.board_id == board_id, ThreadRow.tid == tid)).first()
    if row is None:
        row = ThreadRow(board_id=board_id, tid=tid, first_seen_at=at)
        s.add(row)
        s.flush()
    return row


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


def _quotes_json(quotes: Iterable[QuoteRef]) -> list[dict[str, Any]]:
    return [{"pid": q.pid, "author": q.author, "text": q.text} for q in quotes]


def _new_revision(post_id: int, number: int, post: Post, h: str, source: str, at: datetime) -> RevisionRow:
    return RevisionRow(
        post_id=post_id,
        number=number,
        content_hash=h,
        text=post.text,
        html=post.html,
        quotes=_quotes_json(post.quotes),
        quoted_pids=list(post.quoted_pids),
        mentions=list(post.mentions),
        title=post.title,
        state=str(post.state),
        edit_by=post.edit.by if post.edit else None,
        edit_at=post.edit.at if post.edit else None,
        edit_raw=post.edit.raw if post.edit else "",
        source=source,
        first_seen_at=at,
        last_seen_at=at,
    )


def record_thread_page_orm(
    store: Store,
    board: BoardLike,
    page: ThreadPage,
    *,
    seen_at: datetime,
    fetches: Sequence[FetchRecord] = (),
    ppp: int | None = None,
    skip_pids: Collection[int] = (),
) -> PageResult:
    """Store one parsed page, its posts, new revisions and state changes, in one transaction.

    ``skip_pids``: pids already stored from an earlier page of the same read (page 1 repeats pinned
    and recommended replies). ``ppp``: posts per page of the page's source, so a later poll can
    resume from the right page even after switching source. Raises StoreError.
    """
    _aware(seen_at, *(t for p in page.posts for t in (p.posted_at, p.posted_until)))
    info = page.thread
    source = str(page.source)
    posts: list[Post] = []
    seen: set[int] = set(skip_pids)
    for p in page.posts:
        if p.pid not in seen:
            seen.add(p.pid)
            posts.append(p)
    new_posts: list[int] = []
    new_revs: list[int] = []
    changes: list[StateChange] = []
    with _unit(store, f"page {info.page} of thread {info.tid}") as s:
        bid = _board_id(s, board)
        assert bid is not None
        thread = _thread_row(s, bid, info.tid, seen_at)
        assert thread.id is not None
        if info.fid is not None:
            thread.fid = info.fid
        if info.title:
            thread.title = info.title
        thread.pages = info.pages
        if page.author_filter is None:
            thread.resume_page = info.page
            thread.resume_ppp = ppp
        thread.last_read_at = seen_at

        pids = [p.pid for p in posts]
        existing: dict[int, PostRow] = {}
        revisions: dict[tuple[int, str], RevisionRow] = {}
        if pids:
            for found in s.exec(select(PostRow).where(PostRow.board_id == bid, col(PostRow.pid).in_(pids))):
                existing[found.pid] = found
            ids = [r.id for r in existing.values()]
            if ids:
                for known in s.exec(select(RevisionRow).where(col(RevisionRow.post_id).in_(ids))):
                    revisions[(known.post_id, known.content_hash)] = known

        def event(
            row: PostRow, kind: str, old: str | None, new: str | None, rev: int | None, note: str
        ) -> None:
            assert row.id is not None
            s.add(
                EventRow(
                    board_id=bid,
                    post_id=row.id,
                    pid=row.pid,
                    tid=row.tid,
                    at=seen_at,
                    kind=kind,
                    old_state=old,
                    new_state=new,
                    revision_id=rev,
                    note=note,
                )
            )

        for post in posts:
            h = post_hash(post)
            row = existing.get(post.pid)
            if row is None:
                row = PostRow(
                    board_id=bid,
                    thread_id=thread.id,
                    pid=post.pid,
                    tid=post.tid if post.tid is not None else info.tid,
                    floor=post.floor if post.floor_exact else None,
                    page=info.page if page.author_filter is None else None,
                    author=post.author,
                    uid=post.uid,
                    posted_at=post.posted_at,
                    posted_until=post.posted_until,
                    time_source=str(post.time_source),
                    first=post.first,
                    state=str(post.state),
                    edit_by=post.edit.by if post.edit else None,
                    edit_at=post.edit.at if post.edit else None,
                    first_seen_at=seen_at,
                    last_seen_at=seen_at,
                    last_source=source,
                    revision_count=1,
                )
                s.add(row)
                s.flush()
                assert row.id is not None
                first_rev = _new_revision(row.id, 1, post, h, source, seen_at)
                s.add(first_rev)
                s.flush()
                row.current_revision_id = first_rev.id
                new_posts.append(post.pid)
                continue

            assert row.id is not None
            row.last_seen_at = seen_at
            row.last_source = source
            if page.author_filter is None:
                row.page = info.page
            if post.floor is not None and post.floor_exact and row.floor is None:
                row.floor = post.floor
            if not row.author and post.author:
                row.author = post.author
            if row.uid is None and post.uid is not None:
                row.uid = post.uid
            _narrow_time(row, post)

            rev = revisions.get((row.id, h))
            revised_now = rev is None
            if rev is not None:
                rev.last_seen_at = seen_at
                rev.seen_count += 1
                if rev.edit_by is None and post.edit is not None:  # e.g. PC shows what the API strips
                    rev.edit_by, rev.edit_at, rev.edit_raw = post.edit.by, post.edit.at, post.edit.raw
                if row.current_revision_id != rev.id:
                    event(row, "reverted", None, None, rev.id, f"content is again revision {rev.number}")
                    row.current_revision_id = rev.id
            else:
                row.revision_count += 1
                rev = _new_revision(row.id, row.revision_count, post, h, source, seen_at)
                s.add(rev)
                s.flush()
                marker = f" ({post.edit.raw or 'edit marker: ' + post.edit.by})" if post.edit else ""
                event(row, "revised", None, None, rev.id, f"new content: revision {rev.number}{marker}")
                row.current_revision_id = rev.id
                revisions[(row.id, h)] = rev
                new_revs.append(post.pid)

            if post.edit is not None and (row.edit_by, row.edit_at) != (post.edit.by, post.edit.at):
                if not revised_now:  # same content, new marker: an edit forumbot did not see happen
                    event(
                        row, "edit_marker", None, None, rev.id, post.edit.raw or f"edited by {post.edit.by}"
                    )
                row.edit_by, row.edit_at = post.edit.by, post.edit.at

            old_state = PostState(row.state)
            if old_state is not post.state:
                kind = "restored" if old_state is PostState.DELETED else "state"
                note = f"{old_state.value} -> {post.state.value} (seen on page {info.page})"
                event(row, kind, old_state.value, post.state.value, rev.id, note)
                row.state = str(post.state)
                changes.append(StateChange(post.pid, row.tid, old_state, post.state, seen_at, note))

        s.add_all(_fetch_rows(bid, fetches, tid=info.tid, page=info.page))
    return PageResult(
        tid=info.tid,
        page=info.page,
        pids=tuple(p.pid for p in posts),
        new_posts=tuple(new_posts),
        new_revisions=tuple(new_revs),
        state_changes=tuple(changes),
    )


def _narrow_time(row: PostRow, post: Post) -> None:
    """Keep the narrowest interval consistent with every view (a touch page's "3 分钟前", then PC)."""
    old_width = row.posted_until - row.posted_at
    new_width = post.posted_until - post.posted_at
    if new_width < old_width and row.posted_at <= post.posted_until and post.posted_at <= row.posted_until:
        row.posted_at, row.posted_until = post.posted_at, post.posted_until
        row.time_source = str(post.time_source)
