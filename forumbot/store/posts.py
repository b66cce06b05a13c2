"""Posts and their revisions: the units of work that store a parsed page, and the queries a judge needs.

Why: a judge's ruling may rest on what a post said before it was edited or deleted, so writing is
lossless and idempotent:

- :func:`record_thread_page` writes one parsed page in ONE transaction (a process killed mid-poll
  leaves whole pages or nothing). Re-reading a page that has not changed writes no new post, revision
  or event: only ``last_seen_at`` (and ``seen_count``) move.
- A revision is keyed by :func:`content_hash` of the normalised text, the quotes (whom they quote) and
  the state. The HTML and the edit marker are kept but not hashed: the API and PC views render them
  differently, and a switch of source must not look like an edit.
- Nothing is deleted: a post that vanished is marked DELETED (:func:`mark_vanished`), with an event.

Queries return frozen dataclasses (:class:`StoredPost` with its :class:`StoredRevision` list,
:class:`StoredEvent`, :class:`StoredThread`, :class:`EditEvidence`). Times are aware UTC datetimes.
Functions take ``board`` as a :class:`~forumbot.board.BoardConfig` or its root URL. Raises StoreError
when the database refuses a write.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from forumbot.errors import StoreError
from forumbot.fetches import FetchRecord
from forumbot.i18n import _
from forumbot.parsers.records import EditMarker, Post, PostState, QuoteRef, ThreadPage, TimeSource
from forumbot.store import pagewrite
from forumbot.store.base import BoardLike, _aware, _board_id, _unit
from forumbot.store.db import Store
from forumbot.store.models import EventRow, PostRow, RevisionRow
from forumbot.store.pagechanges import PageResult as PageResult
from forumbot.store.pagechanges import StateChange as StateChange
from forumbot.store.pagechanges import content_hash as content_hash
from forumbot.store.pagechanges import post_hash as post_hash
from forumbot.store.readpath import bump_versions


@dataclass(frozen=True, slots=True)
class StoredRevision:
    """One distinct content of a post, as forumbot first saw it."""

    id: int
    number: int  # 1 = the first content seen
    content_hash: str
    text: str
    html: str
    quotes: tuple[QuoteRef, ...]
    mentions: tuple[str, ...]
    title: str
    state: PostState
    edit: EditMarker | None
    source: str
    first_seen: datetime
    last_seen: datetime
    seen_count: int

    @property
    def quoted_pids(self) -> tuple[int, ...]:
        return tuple(q.pid for q in self.quotes if q.pid is not None)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    id: int
    pid: int
    tid: int
    at: datetime
    kind: str  # state | revised | reverted | edit_marker | deleted | restored
    old_state: PostState | None
    new_state: PostState | None
    revision_id: int | None
    note: str


@dataclass(frozen=True, slots=True)
class StoredPost:
    """A post with everything forumbot knows: its revisions oldest first, and its events."""

    pid: int
    tid: int
    floor: int | None
    page: int | None
    author: str
    uid: int | None
    posted_at: datetime
    posted_until: datetime
    time_source: TimeSource
    first: bool
    state: PostState
    first_seen: datetime
    last_seen: datetime
    last_edit: EditMarker | None  # the latest edit marker seen
    current: StoredRevision
    revisions: tuple[StoredRevision, ...]
    events: tuple[StoredEvent, ...] = ()

    @property
    def text(self) -> str:
        return self.current.text

    @property
    def first_revision(self) -> StoredRevision:
        return self.revisions[0]

    @property
    def deleted(self) -> bool:
        return self.state is PostState.DELETED

    @property
    def edited(self) -> bool:
        """More than one content seen, or the board's edit marker on any of them."""
        return len(self.revisions) > 1 or self.last_edit is not None or any(r.edit for r in self.revisions)

    def to_post(self, revision: StoredRevision | None = None) -> Post:
        """The parser record of this post as it read in ``revision`` (default: the current one)."""
        rev = revision or self.current
        return Post(
            pid=self.pid,
            tid=self.tid,
            author=self.author,
            uid=self.uid,
            floor=self.floor,
            posted_at=self.posted_at,
            posted_until=self.posted_until,
            time_source=self.time_source,
            text=rev.text,
            html=rev.html,
            quotes=rev.quotes,
            mentions=rev.mentions,
            edit=rev.edit,
            state=self.state if rev is self.current else rev.state,
            first=self.first,
            title=rev.title,
        )


@dataclass(frozen=True, slots=True)
class EditEvidence:
    """Why forumbot thinks a post was (or was not) edited. Truthy when edited."""

    pid: int
    edited: bool
    revisions: int
    markers: tuple[EditMarker, ...] = ()
    reasons: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.edited


def record_thread_page(
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
    return pagewrite.record_page(
        store, board, page, seen_at=seen_at, fetches=fetches, ppp=ppp, skip_pids=skip_pids
    )


def mark_vanished(
    store: Store,
    board: BoardLike,
    tid: int,
    seen_pids: Collection[int],
    *,
    at: datetime,
    note: str = "not on any page of a complete read of the thread",
) -> list[StateChange]:
    """Mark DELETED every stored post of ``tid`` not in ``seen_pids`` (call after reading EVERY page).

    The content stays: only the state changes, with an event. Returns the changes.
    """
    _aware(at)
    seen = set(seen_pids)
    changes: list[StateChange] = []
    with _unit(store, _("deletions in thread {tid}").format(tid=tid)) as s:
        bid = _board_id(s, board)
        assert bid is not None
        rows = s.exec(
            select(PostRow)
            .where(PostRow.board_id == bid, PostRow.tid == tid, PostRow.state != PostState.DELETED.value)
            .order_by(col(PostRow.id))  # the thread's order, the same on every backend (no physical order)
        ).all()
        for row in rows:
            if row.pid in seen:
                continue
            assert row.id is not None
            old = PostState(row.state)
            full_note = f"{note} (last seen {row.last_seen_at.isoformat()} on page {row.page})"
            s.add(
                EventRow(
                    board_id=bid,
                    post_id=row.id,
                    pid=row.pid,
                    tid=row.tid,
                    at=at,
                    kind="deleted",
                    old_state=old.value,
                    new_state=PostState.DELETED.value,
                    revision_id=row.current_revision_id,
                    note=full_note,
                )
            )
            row.state = PostState.DELETED.value
            changes.append(StateChange(row.pid, row.tid, old, PostState.DELETED, at, full_note))
        if changes:
            s.flush()
            bump_versions(s.connection(), bid, {c.tid for c in changes})
    return changes


def _revision(r: RevisionRow) -> StoredRevision:
    assert r.id is not None
    return StoredRevision(
        id=r.id,
        number=r.number,
        content_hash=r.content_hash,
        text=r.text,
        html=r.html,
        quotes=tuple(QuoteRef(q.get("pid"), q.get("author", ""), q.get("text", "")) for q in r.quotes),
        mentions=tuple(r.mentions),
        title=r.title,
        state=PostState(r.state),
        edit=EditMarker(r.edit_by, r.edit_at, r.edit_raw) if r.edit_by is not None else None,
        source=r.source,
        first_seen=r.first_seen_at,
        last_seen=r.last_seen_at,
        seen_count=r.seen_count,
    )


def _event(e: EventRow) -> StoredEvent:
    assert e.id is not None
    return StoredEvent(
        id=e.id,
        pid=e.pid,
        tid=e.tid,
        at=e.at,
        kind=e.kind,
        old_state=PostState(e.old_state) if e.old_state else None,
        new_state=PostState(e.new_state) if e.new_state else None,
        revision_id=e.revision_id,
        note=e.note,
    )


def _stored_posts(s: Session, rows: Sequence[PostRow], ids: Any = None) -> list[StoredPost]:
    """The rows as StoredPosts with their revisions and events. ``ids``: a SELECT of the rows' ids (the
    query that found them), so the revisions and events are found by a subquery rather than by one
    parameter per post (PostgreSQL refuses more than 65,535 in a statement)."""
    if ids is None:
        ids = [r.id for r in rows]
    revs: dict[int, list[StoredRevision]] = {}
    events: dict[int, list[StoredEvent]] = {}
    if rows:
        for rv in s.exec(
            select(RevisionRow).where(col(RevisionRow.post_id).in_(ids)).order_by(col(RevisionRow.number))
        ):
            revs.setdefault(rv.post_id, []).append(_revision(rv))
        for ev in s.exec(select(EventRow).where(col(EventRow.post_id).in_(ids)).order_by(col(EventRow.id))):
            events.setdefault(ev.post_id, []).append(_event(ev))
    out: list[StoredPost] = []
    for r in rows:
        assert r.id is not None
        rlist = revs.get(r.id, [])
        if not rlist:
            raise StoreError(_("post {pid} has no revision: the store is inconsistent").format(pid=r.pid))
        current = next((x for x in rlist if x.id == r.current_revision_id), rlist[-1])
        out.append(
            StoredPost(
                pid=r.pid,
                tid=r.tid,
                floor=r.floor,
                page=r.page,
                author=r.author,
                uid=r.uid,
                posted_at=r.posted_at,
                posted_until=r.posted_until,
                time_source=TimeSource(r.time_source),
                first=r.first,
                state=PostState(r.state),
                first_seen=r.first_seen_at,
                last_seen=r.last_seen_at,
                last_edit=EditMarker(r.edit_by, r.edit_at) if r.edit_by is not None else None,
                current=current,
                revisions=tuple(rlist),
                events=tuple(events.get(r.id, [])),
            )
        )
    return out


def thread_posts(
    store: Store,
    board: BoardLike,
    tid: int,
    *,
    author: str | None = None,
    uid: int | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    include_deleted: bool = True,
) -> list[StoredPost]:
    """The posts of ``tid`` in pid order, with all revisions; ``since``/``until`` bound ``posted_at``
    (both inclusive, aware datetimes)."""
    _aware(since, until)
    with store.session() as s:
        bid = _board_id(s, board, create=False)
        if bid is None:
            return []
        where = [PostRow.board_id == bid, PostRow.tid == tid]
        if author is not None:
            where.append(PostRow.author == author)
        if uid is not None:
            where.append(PostRow.uid == uid)
        if since is not None:
            where.append(PostRow.posted_at >= since)
        if until is not None:
            where.append(PostRow.posted_at <= until)
        if not include_deleted:
            where.append(PostRow.state != PostState.DELETED.value)
        rows = s.exec(select(PostRow).where(*where).order_by(col(PostRow.pid))).all()
        return _stored_posts(s, rows, select(col(PostRow.id)).where(*where))


def get_post(store: Store, board: BoardLike, pid: int) -> StoredPost | None:
    """One post with all its revisions and events, or None if forumbot never saw it."""
    with store.session() as s:
        bid = _board_id(s, board, create=False)
        if bid is None:
            return None
        row = s.exec(select(PostRow).where(PostRow.board_id == bid, PostRow.pid == pid)).first()
        return _stored_posts(s, [row])[0] if row is not None else None


def first_revision(store: Store, board: BoardLike, pid: int) -> StoredRevision | None:
    """What the post said when forumbot first saw it."""
    post = get_post(store, board, pid)
    return post.first_revision if post else None


def was_edited(store: Store, board: BoardLike, pid: int) -> EditEvidence:
    """Edit evidence for ``pid``: more than one revision seen, and/or the board's edit marker.

    Neither alone is enough (the marker is missing for quick or admin edits; a revision is missed
    when forumbot did not look in between), so both are reported.
    """
    post = get_post(store, board, pid)
    if post is None:
        return EditEvidence(pid, False, 0, (), (_("never seen"),))
    reasons: list[str] = []
    if len(post.revisions) > 1:
        reasons.append(_("{count} different contents seen").format(count=len(post.revisions)))
    markers: list[EditMarker] = []
    for r in post.revisions:
        if r.edit is not None and r.edit not in markers:
            markers.append(r.edit)
    if post.last_edit is not None and all(
        (m.by, m.at) != (post.last_edit.by, post.last_edit.at) for m in markers
    ):
        markers.append(post.last_edit)
    if markers:
        marks = _("; ").join(m.raw or _("{by} at {at}").format(by=m.by, at=m.at) for m in markers)
        reasons.append(_("edit marker: {markers}").format(markers=marks))
    return EditEvidence(pid, bool(reasons), len(post.revisions), tuple(markers), tuple(reasons))


def post_events(
    store: Store,
    board: BoardLike,
    *,
    tid: int | None = None,
    pid: int | None = None,
    since: datetime | None = None,
) -> list[StoredEvent]:
    """Events (state changes, revisions, deletions) in the order they were recorded."""
    with store.session() as s:
        bid = _board_id(s, board, create=False)
        if bid is None:
            return []
        q = select(EventRow).where(EventRow.board_id == bid)
        if tid is not None:
            q = q.where(EventRow.tid == tid)
        if pid is not None:
            q = q.where(EventRow.pid == pid)
        if since is not None:
            q = q.where(EventRow.at >= since)
        return [_event(e) for e in s.exec(q.order_by(col(EventRow.id)))]
