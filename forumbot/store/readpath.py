"""The read path made for judging: a whole thread in one query, as plain records (issue 12, point 2).

Why: ``repo.thread_posts`` builds ORM and pydantic objects for every post, every revision and every
event, decodes every JSON column, and binds one parameter per post id (a thread over 65,535 posts
fails on PostgreSQL). The desk needs much less: each post's current content (to read the vote), its
first content (attendance counts what was posted), how many contents were seen and whether the board
marked an edit. So this module reads exactly that in ONE statement per thread, whatever its length:

    posts JOIN boards (by URL) LEFT JOIN the current revision LEFT JOIN the first revision (only
    when it differs from the current one), ordered by pid

and hands back :class:`ThreadPost` records. The quotes' and mentions' JSON is kept as the database
text and decoded on first use (most posts quote nobody: ``"[]"`` is answered without decoding).
Rows stream from the database in batches, so peak memory is the records, not the records plus a
copy of the result set.

:class:`ThreadCache` memoises each thread's records with the thread's version (``thread_versions``,
bumped by every writer of posts in the transaction that changes them: :func:`bump_versions`), and
checks the version at each use: attendance, the vote count and the case post's time share one read,
and a long-lived desk (the runner's) never serves a thread that a poll, in this process or another,
changed since.

The records agree with ``repo.thread_posts`` field for field (tests/store/test_readpath.py checks it
on the example games' stores and on random stores): ``to_post()`` is the same Post,
``first_revision`` the same first content, ``revision_count == len(stored.revisions)``, ``edited``
the same as ``StoredPost.edited`` (and ``bool(repo.was_edited(...))``). For the full history of one
post (every revision, every event, every edit marker) ask ``repo.get_post``/``repo.was_edited``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar
from typing import cast as typing_cast

from sqlalchemy import (
    Connection,
    DateTime,
    Table,
    Text,
    and_,
    bindparam,
    cast,
    func,
    literal_column,
    select,
    type_coerce,
    update,
)
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import SQLModel

from forumbot.board import BoardConfig
from forumbot.errors import StoreError
from forumbot.i18n import _
from forumbot.parsers.records import EditMarker, Post, PostState, QuoteRef, TimeSource
from forumbot.store.db import Store
from forumbot.store.dberrors import short_reason
from forumbot.store.models import UTCDateTime

BoardLike = BoardConfig | str
BATCH = 5000  # rows fetched from the database at a time

_EMPTY = ("[]", "null", "")


def board_key(board: BoardLike) -> str:
    """The board's key in the store (its root URL ending in ``/``)."""
    if isinstance(board, BoardConfig):
        return board.key
    return board if board.endswith("/") else board + "/"


def _decode_quotes(raw: str | None) -> tuple[QuoteRef, ...]:
    if raw is None or raw in _EMPTY:
        return ()
    return tuple(QuoteRef(q.get("pid"), q.get("author", ""), q.get("text", "")) for q in json.loads(raw))


def _decode_strings(raw: str | None) -> tuple[str, ...]:
    if raw is None or raw in _EMPTY:
        return ()
    return tuple(json.loads(raw))


class Content:
    """One revision's content as the desk reads it (``StoredRevision``'s judging fields).

    ``quotes`` and ``mentions`` are decoded from the stored JSON on first use.
    """

    __slots__ = (
        "_mentions",
        "_quotes",
        "edit",
        "html",
        "mentions_json",
        "quotes_json",
        "state",
        "text",
        "title",
    )

    def __init__(
        self,
        text: str,
        html: str,
        quotes_json: str | None,
        mentions_json: str | None,
        title: str,
        state: PostState,
        edit: EditMarker | None,
    ) -> None:
        self.text = text
        self.html = html
        self.quotes_json = quotes_json
        self.mentions_json = mentions_json
        self.title = title
        self.state = state
        self.edit = edit
        self._quotes: tuple[QuoteRef, ...] | None = None
        self._mentions: tuple[str, ...] | None = None

    @property
    def quotes(self) -> tuple[QuoteRef, ...]:
        if self._quotes is None:
            self._quotes = _decode_quotes(self.quotes_json)
        return self._quotes

    @property
    def has_quotes(self) -> bool:
        """Whether the content quotes anyone (without decoding the quotes)."""
        return self._quotes != () if self._quotes is not None else self.quotes_json not in (None, *_EMPTY)

    @property
    def quoted_pids(self) -> tuple[int, ...]:
        return tuple(q.pid for q in self.quotes if q.pid is not None)

    @property
    def mentions(self) -> tuple[str, ...]:
        if self._mentions is None:
            self._mentions = _decode_strings(self.mentions_json)
        return self._mentions

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Content):
            return NotImplemented
        return (self.text, self.html, self.quotes, self.mentions, self.title, self.state, self.edit) == (
            other.text,
            other.html,
            other.quotes,
            other.mentions,
            other.title,
            other.state,
            other.edit,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Content(text={self.text!r}, state={self.state.value}, edit={self.edit!r})"


@dataclass(frozen=True, slots=True)
class ThreadPost:
    """A post as the desk judges it: the current content, the first content, and the edit evidence."""

    pid: int
    tid: int
    floor: int | None
    author: str
    uid: int | None
    posted_at: datetime
    posted_until: datetime
    time_source: TimeSource
    first: bool  # the thread's opening post
    state: PostState
    revision_count: int  # different contents seen (1: never changed while forumbot looked)
    last_edit: EditMarker | None  # the latest edit marker the board showed (without its raw text)
    current: Content
    first_revision: Content  # what the post said when forumbot first saw it (== current when one)

    @property
    def text(self) -> str:
        return self.current.text

    @property
    def deleted(self) -> bool:
        return self.state is PostState.DELETED

    @property
    def content_changed(self) -> bool:
        """More than one content seen: forumbot saw the post change."""
        return self.revision_count > 1

    @property
    def edited(self) -> bool:
        """More than one content seen, or the board's edit marker (as ``StoredPost.edited``)."""
        return (
            self.revision_count > 1
            or self.last_edit is not None
            or self.current.edit is not None
            or self.first_revision.edit is not None
        )

    def to_post(self) -> Post:
        """The parser record of this post as it reads now (``StoredPost.to_post()``)."""
        c = self.current
        return Post(
            pid=self.pid,
            tid=self.tid,
            author=self.author,
            uid=self.uid,
            floor=self.floor,
            posted_at=self.posted_at,
            posted_until=self.posted_until,
            time_source=self.time_source,
            text=c.text,
            html=c.html,
            quotes=c.quotes,
            mentions=c.mentions,
            edit=c.edit,
            state=self.state,
            first=self.first,
            title=c.title,
        )


# --------------------------------------------------------------------------- the query

_T = SQLModel.metadata.tables
_BOARDS: Table = _T["boards"]
_POSTS: Table = _T["posts"]
_CUR = _T["post_revisions"].alias("cur")
_FIRST = _T["post_revisions"].alias("first_rev")


def _content_columns(r: Any) -> list[Any]:
    return [
        r.c.id,
        r.c.text,
        r.c.html,
        cast(r.c.quotes, Text),
        cast(r.c.mentions, Text),
        r.c.title,
        r.c.state,
        r.c.edit_by,
        type_coerce(r.c.edit_at, DateTime()),  # mostly NULL: made aware only when present (_aware)
        r.c.edit_raw,
    ]


def _thread_query() -> Any:
    p = _POSTS.c
    return (
        select(
            p.pid,
            p.tid,
            p.floor,
            p.author,
            p.uid,
            p.posted_at,
            p.posted_until,
            p.time_source,
            p.first,
            p.state,
            p.revision_count,
            p.edit_by,
            type_coerce(p.edit_at, DateTime()),
            *_content_columns(_CUR),
            *_content_columns(_FIRST),
        )
        .select_from(
            _POSTS.join(_BOARDS, _BOARDS.c.id == p.board_id)
            .outerjoin(_CUR, and_(_CUR.c.id == p.current_revision_id, _CUR.c.post_id == p.id))
            .outerjoin(
                _FIRST,
                and_(_FIRST.c.post_id == p.id, _FIRST.c.number == 1, _FIRST.c.id != p.current_revision_id),
            )
        )
        .where(_BOARDS.c.url == bindparam("board"), p.tid == bindparam("tid"))
        .order_by(p.pid)
    )


_QUERY = _thread_query()
_N_POST = 13  # columns before the current revision's
_N_CONTENT = 10

_STATES = {s.value: s for s in PostState}
_SOURCES = {s.value: s for s in TimeSource}


_UTC = UTCDateTime()


def _aware(value: datetime | None) -> datetime | None:
    """What the UTCDateTime column type gives back (an aware UTC datetime), for the edit times the
    query reads untyped: most posts have none, and the per-value type hook was 40% of the read."""
    return None if value is None else _UTC.process_result_value(value, None)  # type: ignore[arg-type]


def _content(row: Any, at: int) -> Content:
    _id, text, html, quotes, mentions, title, state, e_by, e_at, e_raw = row[at : at + _N_CONTENT]
    return Content(
        text,
        html,
        quotes,
        mentions,
        title,
        _STATES[state],
        EditMarker(e_by, _aware(e_at), e_raw) if e_by is not None else None,
    )


def read_thread(store: Store, board: BoardLike, tid: int) -> tuple[ThreadPost, ...]:
    """Every stored post of ``tid`` (deleted ones included, as ``repo.thread_posts``), in pid order.

    One SELECT, no parameter per post: any thread length works on SQLite and PostgreSQL. Raises
    StoreError when the store cannot be read or is inconsistent (a post without its current revision).
    """
    try:
        with store.engine.connect() as conn:
            return _read(conn, board_key(board), tid)
    except SQLAlchemyError as exc:
        raise StoreError(
            _("cannot read thread {tid} from the store {store}: {error}").format(
                tid=tid, store=store.safe_url, error=short_reason(exc)
            )
        ) from exc


def _read(conn: Connection, key: str, tid: int) -> tuple[ThreadPost, ...]:
    out: list[ThreadPost] = []
    first_at = _N_POST + _N_CONTENT
    result = conn.execution_options(yield_per=BATCH).execute(_QUERY, {"board": key, "tid": tid})
    for row in result:
        if row[_N_POST] is None:
            raise StoreError(
                _(
                    "post {pid} of thread {tid} has no current revision: the store is "
                    "inconsistent (run `forumbot` store checks, or poll the thread again)"
                ).format(pid=row[0], tid=tid)
            )
        current = _content(row, _N_POST)
        first = current if row[first_at] is None else _content(row, first_at)
        out.append(
            ThreadPost(
                pid=row[0],
                tid=row[1],
                floor=row[2],
                author=row[3],
                uid=row[4],
                posted_at=row[5],
                posted_until=row[6],
                time_source=_SOURCES[row[7]],
                first=bool(row[8]),
                state=_STATES[row[9]],
                revision_count=row[10],
                last_edit=EditMarker(row[11], _aware(row[12])) if row[11] is not None else None,
                current=current,
                first_revision=first,
            )
        )
    return tuple(out)


# --------------------------------------------------------------------------- thread versions

_VERSIONS: Table = _T["thread_versions"]
_VERSION_QUERY = (
    select(_VERSIONS.c.tid, _VERSIONS.c.version)
    .select_from(_VERSIONS.join(_BOARDS, _BOARDS.c.id == _VERSIONS.c.board_id))
    .where(_BOARDS.c.url == bindparam("board"), _VERSIONS.c.tid.in_(bindparam("tids", expanding=True)))
)


def _versions(conn: Connection, key: str, tids: Iterable[int]) -> dict[int, int]:
    wanted = sorted(set(tids))
    found = {t: 0 for t in wanted}  # never written by a writer that counts: version 0
    if wanted:
        for tid, version in conn.execute(_VERSION_QUERY, {"board": key, "tids": wanted}):
            found[tid] = version
    return found


def thread_versions(store: Store, board: BoardLike, tids: Iterable[int]) -> dict[int, int]:
    """Each thread's version (how many writes changed its posts' judged content; 0: none counted)."""
    try:
        with store.engine.connect() as conn:
            return _versions(conn, board_key(board), tids)
    except SQLAlchemyError as exc:
        raise StoreError(
            _("cannot read the threads' versions from the store {store}: {error}").format(
                store=store.safe_url, error=short_reason(exc)
            )
        ) from exc


_BUMP = (
    "INSERT INTO thread_versions (board_id, tid, version) VALUES ({mark}, {mark}, 1)"
    " ON CONFLICT (board_id, tid) DO UPDATE SET version = thread_versions.version + 1"
)


def bump_versions(conn: Connection, board_id: int, tids: Iterable[int]) -> None:
    """Count one change of each thread in ``tids``: call it in the transaction that changes their posts.

    One upsert on SQLite and PostgreSQL (INSERT … ON CONFLICT DO UPDATE); elsewhere an UPDATE, then an
    INSERT for the threads without a row yet."""
    wanted = sorted(set(tids))
    if not wanted:
        return
    v = _VERSIONS.c
    rows = [{"board_id": board_id, "tid": tid, "version": 1} for tid in wanted]
    name = conn.dialect.name
    if name in ("sqlite", "postgresql"):
        # The driver's SQL, one executemany: a multi-row upsert built per call was compiled per call
        # (a quarter of the CPU of storing a page on SQLite, issue 21).
        mark = "?" if name == "sqlite" else "%s"
        conn.exec_driver_sql(_BUMP.format(mark=mark), [(board_id, tid) for tid in wanted])
        return
    done = {tid for (tid,) in conn.execute(select(v.tid).where(v.board_id == board_id, v.tid.in_(wanted)))}
    if done:
        conn.execute(
            update(_VERSIONS).where(v.board_id == board_id, v.tid.in_(done)).values(version=v.version + 1)
        )
    missing = [r for r in rows if r["tid"] not in done]
    if missing:
        conn.execute(_VERSIONS.insert(), missing)


# --------------------------------------------------------------------------- the desk's views of a thread
# Narrower than ThreadPost and streamed: the vote count needs each post's current content, attendance
# each reply's first one; neither needs the other, and neither needs a record kept per post once the
# engine's values are built. Plain values out (no engine types: the store does not know the engine).

_CUR_ONLY = _T["post_revisions"].alias("cur")
_FIRST_ONLY = _T["post_revisions"].alias("rev1")


def _when(value: Any) -> datetime:
    """A stored time read without the column type's per-value hook: SQLite gives the text SQLAlchemy
    wrote (``YYYY-MM-DD HH:MM:SS.ffffff``, UTC), PostgreSQL a naive UTC datetime."""
    if type(value) is str:
        try:
            return datetime.fromisoformat(value + "+00:00")  # one C call; UTC's offset given
        except ValueError:
            value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)  # type: ignore[no-any-return]


def _raw(column: Any) -> Any:
    return type_coerce(column, Text)  # no result processor: _when converts


_COMPILED: dict[tuple[int, str], Any] = {}


def _execute(conn: Connection, query: Any, values: dict[str, Any], *, stream: bool = False) -> Any:
    """``query`` run as the driver's SQL, its rows as the driver gives them (no per-column result
    processing: the readers here convert what they keep). Compiled once per backend."""
    key = (id(query), conn.dialect.name)
    compiled = _COMPILED.get(key)
    if compiled is None:
        compiled = _COMPILED[key] = query.compile(dialect=conn.dialect)
    params = compiled.construct_params(values)
    args = tuple(params[name] for name in compiled.positiontup) if compiled.positional else params
    runner = conn.execution_options(yield_per=BATCH) if stream else conn
    return runner.exec_driver_sql(compiled.string, args)


def _where_thread(query: Any) -> Any:
    return query.where(_BOARDS.c.url == bindparam("board"), _POSTS.c.tid == bindparam("tid"))


def _in_pid_order(query: Any) -> Any:
    # ``pid + 0``: SQLite would otherwise walk the board's (board_id, pid) index over every thread of
    # the board to avoid a sort; so it takes the (board_id, tid) index and sorts this thread's rows.
    return query.order_by(_POSTS.c.pid + literal_column("0"))


def _current_query() -> Any:
    p, c = _POSTS.c, _CUR_ONLY.c
    q = select(
        p.pid,
        p.author,
        p.floor,
        _raw(p.posted_at),
        _raw(p.posted_until),
        p.first,
        p.state,
        p.revision_count,
        c.id,
        c.text,
        cast(c.quotes, Text),
        c.edit_by,
        _raw(c.edit_at),
        c.edit_raw,
    ).select_from(
        _POSTS.join(_BOARDS, _BOARDS.c.id == p.board_id).outerjoin(
            _CUR_ONLY, and_(c.id == p.current_revision_id, c.post_id == p.id)
        )
    )
    return _in_pid_order(_where_thread(q))


_CURRENT = _current_query()


class CurrentPost:
    """A post as the vote count reads it: what it says now and how many contents forumbot saw of it.

    The fields of ``ThreadPost.to_post()`` that :func:`forumbot.parsers.votes.vote_posts` reads (its
    ``VoteSource``), without the HTML, mentions and title; the quotes decoded on first use."""

    __slots__ = (
        "_quoted",
        "author",
        "edit",
        "first",
        "floor",
        "pid",
        "posted_at",
        "posted_until",
        "quotes_json",
        "revision_count",
        "state",
        "text",
    )
    floor_exact = True  # the store keeps a floor only when the view gave the real one

    def __init__(
        self,
        pid: int,
        author: str,
        floor: int | None,
        posted_at: datetime,
        posted_until: datetime,
        text: str,
        quotes_json: str | None,
        edit: EditMarker | None,
        state: PostState,
        first: bool,
        revision_count: int,
    ) -> None:
        self.pid = pid
        self.author = author
        self.floor = floor
        self.posted_at = posted_at
        self.posted_until = posted_until
        self.text = text
        self.quotes_json = quotes_json
        self.edit = edit
        self.state = state
        self.first = first
        self.revision_count = revision_count
        # Most posts quote nobody: their answer is known without decoding anything.
        self._quoted: tuple[int, ...] | None = () if quotes_json is None else None

    @property
    def quoted_pids(self) -> tuple[int, ...]:
        if self._quoted is None:
            quotes = _decode_quotes(self.quotes_json)
            self._quoted = tuple(q.pid for q in quotes if q.pid is not None)
        return self._quoted

    def __repr__(self) -> str:
        return f"CurrentPost(pid={self.pid}, author={self.author!r}, text={self.text!r})"


def current_posts(conn: Connection, key: str, tid: int, batch: int = BATCH) -> Iterator[list[CurrentPost]]:
    """The thread's posts as they read now, in pid order, ``batch`` at a time: a caller that turns each
    batch into its own values keeps one batch in memory, not the thread. Deleted posts included.
    Raises StoreError for a post without its current revision (an inconsistent store)."""
    names: dict[str, str] = {}
    states = _STATES
    out: list[CurrentPost] = []
    rows = _execute(conn, _CURRENT, {"board": key, "tid": tid}, stream=True)
    for pid, author, floor, at, until, first, state, count, rev_id, text, quotes, e_by, e_at, e_raw in rows:
        if rev_id is None:
            raise StoreError(
                _(
                    "post {pid} of thread {tid} has no current revision: the store is "
                    "inconsistent (run `forumbot` store checks, or poll the thread again)"
                ).format(pid=pid, tid=tid)
            )
        posted_at = _when(at)
        out.append(
            CurrentPost(
                pid,
                names.setdefault(author, author),
                floor,
                posted_at,
                posted_at if until == at else _when(until),
                text,
                None if quotes in _EMPTY else quotes,
                None if e_by is None else EditMarker(e_by, None if e_at is None else _when(e_at), e_raw),
                states[state],
                bool(first),
                count,
            )
        )
        if len(out) >= batch:
            yield out
            out = []
    if out:
        yield out


def _first_query(dialect: str) -> Any:
    p, r = _POSTS.c, _FIRST_ONLY.c
    q = select(
        p.pid,
        p.first,
        p.author,
        _raw(p.posted_at),
        p.floor,
        r.id,
        r.text,
        cast(r.quotes, Text),
        _smiley(r.html, dialect),
    ).select_from(
        _POSTS.join(_BOARDS, _BOARDS.c.id == p.board_id).outerjoin(
            _FIRST_ONLY, and_(r.post_id == p.id, r.number == 1)
        )
    )
    return _in_pid_order(_where_thread(q))


def _smiley(html: Any, dialect: str) -> Any:
    """Whether the HTML contains ``smiley`` (Python's ``"smiley" in html``: case-sensitive), computed
    by the database so the HTML itself is not sent."""
    if dialect == "sqlite":
        return func.instr(html, "smiley") > 0
    if dialect == "postgresql":
        return func.strpos(html, "smiley") > 0
    return html  # elsewhere: the HTML, tested in Python


_FIRST_QUERIES: dict[str, Any] = {}


class FirstContent(NamedTuple):
    """A post as attendance reads it: what it said when forumbot first saw it (a later edit does not
    add a post). A named tuple: 100,000 of them are made and dropped in one attendance count."""

    pid: int
    first: bool  # the thread's opening post
    author: str
    posted_at: datetime
    floor: int | None
    text: str
    has_quotes: bool
    smiley_in_html: bool


FirstRow = tuple[int, bool, str, datetime, int | None, str, bool, bool]  # FirstContent's fields


def first_contents(conn: Connection, key: str, tid: int) -> Iterator[FirstContent]:
    """Every stored post of the thread (deleted ones included) with its first content, in pid order.
    Raises StoreError for a post without a first revision (an inconsistent store)."""
    return map(FirstContent._make, first_rows(conn, key, tid))


def first_rows(conn: Connection, key: str, tid: int) -> Iterator[FirstRow]:
    """:func:`first_contents` as plain tuples, in :class:`FirstContent`'s field order: for a reader
    that makes its own record of each post at once (attendance), a named tuple made and dropped per
    post was a third of reading the thread."""
    dialect = conn.dialect.name
    query = _FIRST_QUERIES.get(dialect)
    if query is None:
        query = _FIRST_QUERIES[dialect] = _first_query(dialect)
    names: dict[str, str] = {}
    name = names.setdefault
    when = _when
    empty = (None, *_EMPTY)
    result = _execute(conn, query, {"board": key, "tid": tid}, stream=True)
    for pid, first, author, at, floor, rev_id, text, quotes, smiley in result:
        if rev_id is None:
            raise StoreError(
                _(
                    "post {pid} of thread {tid} has no first revision: the store is "
                    "inconsistent (run `forumbot` store checks, or poll the thread again)"
                ).format(pid=pid, tid=tid)
            )
        yield (
            pid,
            bool(first),
            name(author, author),
            when(at),
            floor,
            text,
            quotes not in empty,
            bool(smiley) if not isinstance(smiley, str) else "smiley" in smiley,
        )


_OPENING = _in_pid_order(
    _where_thread(
        select(_raw(_POSTS.c.posted_at))
        .select_from(_POSTS.join(_BOARDS, _BOARDS.c.id == _POSTS.c.board_id))
        .where(_POSTS.c.first == True)  # noqa: E712 (SQL)
    )
).limit(1)


def opening_post_at(conn: Connection, key: str, tid: int) -> datetime | None:
    """When the thread's opening post (the first one marked so, by pid) was posted; None if not stored."""
    found = _execute(conn, _OPENING, {"board": key, "tid": tid}).first()
    return None if found is None else _when(found[0])


_HAS_PID = _where_thread(
    select(_POSTS.c.id)
    .select_from(_POSTS.join(_BOARDS, _BOARDS.c.id == _POSTS.c.board_id))
    .where(_POSTS.c.pid == bindparam("pid"))
)


def thread_has_post(store: Store, board: BoardLike, tid: int, pid: int) -> bool:
    """Whether post ``pid`` is stored in thread ``tid`` (deleted or not)."""
    try:
        with store.engine.connect() as conn:
            found = conn.execute(_HAS_PID, {"board": board_key(board), "tid": tid, "pid": pid}).first()
    except SQLAlchemyError as exc:
        raise StoreError(
            _("cannot read thread {tid} from the store {store}: {error}").format(
                tid=tid, store=store.safe_url, error=short_reason(exc)
            )
        ) from exc
    return found is not None


T = TypeVar("T")
ThreadView = Callable[[Connection, str, int], T]  # (connection, board key, tid) -> what the desk keeps


class ThreadCache:
    """The desk's reads of the store: each view of a thread built once and shared while the thread is
    unchanged.

    Every use asks the store for the thread's version first (one indexed row) and builds the view again
    when a writer changed the thread since, whichever process wrote: a long-lived desk (the runner's,
    across polls and ticks) never serves stale posts. A view is what the desk keeps of a thread (the
    posts as records, the engine's vote posts, attendance's posts...), built from the rows in the same
    transaction as the version was read. :meth:`clear` drops everything (a desk's ``refresh``); the
    judges' overrides, proxy votes and revote calls are not posts and need nothing.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self._views: dict[tuple[str, int, str], tuple[int, object]] = {}
        self.reads = 0  # views actually built from the posts (for tests and diagnostics)

    def view(self, board: BoardLike, tid: int, name: str, build: ThreadView[T]) -> T:
        """The view ``name`` of thread ``tid`` (``build`` makes it from the rows) as the store holds it
        now. Raises StoreError when the store cannot be read."""
        key = board_key(board)
        try:
            with self.store.engine.connect() as conn:
                # The version first, the rows after, in one transaction: a write committed in between
                # leaves a newer version than the rows read, so the next use builds the view again.
                version = _versions(conn, key, (tid,))[tid]
                found = self._views.get((key, tid, name))
                if found is not None and found[0] == version:
                    return typing_cast(T, found[1])
                value = build(conn, key, tid)
        except SQLAlchemyError as exc:
            raise StoreError(
                _("cannot read thread {tid} from the store {store}: {error}").format(
                    tid=tid, store=self.store.safe_url, error=short_reason(exc)
                )
            ) from exc
        self._views[(key, tid, name)] = (version, value)
        self.reads += 1
        return value

    def posts(self, board: BoardLike, tid: int | None) -> tuple[ThreadPost, ...]:
        """The thread's posts as :class:`ThreadPost` records (``()`` for no thread)."""
        if tid is None:
            return ()
        return self.view(board, tid, "posts", _read)

    def versions(self, board: BoardLike, tids: Iterable[int]) -> dict[int, int]:
        """The threads' versions now (see :func:`thread_versions`)."""
        return thread_versions(self.store, board, tids)

    def forget(self, board: BoardLike, tid: int) -> None:
        """Drop what is kept of thread ``tid`` (to free it: nothing kept is ever stale)."""
        key = board_key(board)
        for found in [k for k in self._views if k[0] == key and k[1] == tid]:
            del self._views[found]

    def clear(self) -> None:
        self._views.clear()
