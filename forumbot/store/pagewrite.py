"""Storing one parsed page in a handful of SQL statements (issue 12, point 4).

Why: the ORM writer flushed each new post, then its first revision, then the post again (three round
trips per post: 34–35 statements for a new 10-post page, 7–8 for a page that had not changed), which
capped a poll at about 670 posts per CPU-second on SQLite and 400 on PostgreSQL. This writer reads
what it needs in two SELECTs, decides everything in Python, then writes each table once:

1. the board and the thread (one SELECT, the board LEFT JOIN the thread);
2. the page's stored posts with every revision's hash (one SELECT: an unchanged re-read is settled
   here, by comparing the page's content hashes with the stored ones);
3. the thread UPDATE (or INSERT), new posts (one multi-row INSERT … RETURNING), new revisions (one
   multi-row INSERT … RETURNING), the posts' new state (one executemany UPDATE), re-seen revisions
   (one executemany UPDATE), events and the fetch log (one INSERT each).

PostgreSQL goes further (issue 21: writes <= 1.5x the bare driver's CPU), a new page in two
statements: the thread's UPDATE, the load of the stored posts and the new rows' ids (drawn from the
tables' sequences) in one (_OPEN_SQL); then each new post with its first revision, already linked to
it, and the threads' versions bumped, in one executemany (_insert_new_posts). A re-read takes the
opening statement and the two executemany UPDATEs.

The semantics are exactly those of the writer it replaced (kept as the oracle in
tests/store/orm_writer.py and compared table by table, ids included, on SQLite and PostgreSQL): the
same rows, the same revision numbers, the same events in the same order, the same :class:`PageResult`.
Rows get their ids in the page's order, as before, so events and current revisions point at the
same ids. One transaction per page: a failure stores nothing and raises StoreError.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, Connection, Table, bindparam, insert, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import SQLModel

from forumbot.board import BoardConfig
from forumbot.errors import StoreError
from forumbot.fetches import FetchRecord
from forumbot.i18n import _
from forumbot.parsers.records import Post, PostState, ThreadPage
from forumbot.store.base import BoardLike
from forumbot.store.db import Store
from forumbot.store.dberrors import short_reason
from forumbot.store.models import UTCDateTime
from forumbot.store.pagechanges import PageResult, StateChange, post_hash
from forumbot.store.readpath import bump_versions

_T = SQLModel.metadata.tables
BOARDS: Table = _T["boards"]
THREADS: Table = _T["threads"]
POSTS: Table = _T["posts"]
REVISIONS: Table = _T["post_revisions"]
EVENTS: Table = _T["post_events"]
FETCH_LOG: Table = _T["fetch_log"]

CHUNK = 500  # pids per SELECT: far below every backend's parameter limit, whatever the page size

# The post columns a page can change (written back in one executemany UPDATE).
_POST_STATE = (
    "page",
    "floor",
    "author",
    "uid",
    "posted_at",
    "posted_until",
    "time_source",
    "state",
    "current_revision_id",
    "revision_count",
    "edit_by",
    "edit_at",
    "last_seen_at",
    "last_source",
)

_UPDATE_POSTS = (
    update(POSTS)
    .where(POSTS.c.id == bindparam("b_id"))
    .values({name: bindparam(f"b_{name}") for name in _POST_STATE})
)
_RESEE_REVISIONS = (
    update(REVISIONS)
    .where(REVISIONS.c.id == bindparam("b_id"))
    .values(
        last_seen_at=bindparam("b_last_seen_at"),
        seen_count=REVISIONS.c.seen_count + 1,
        edit_by=bindparam("b_edit_by"),
        edit_at=bindparam("b_edit_at"),
        edit_raw=bindparam("b_edit_raw"),
    )
)

_RESEE_SQL = (
    "UPDATE post_revisions SET last_seen_at = {m}, seen_count = post_revisions.seen_count + 1,"
    " edit_by = {m}, edit_at = {m}, edit_raw = {m} WHERE id = {m}"
)


def _insert_many(
    conn: Connection, table: Table, rows: list[dict[str, Any]], returning: tuple[str, ...] = ()
) -> list[Any]:
    """INSERT ``rows`` (all with the same keys) in one statement, rows in order; the RETURNING rows.

    SQLite: a multi-row INSERT in the driver's SQL (below). PostgreSQL: ``INSERT … SELECT FROM
    unnest(arrays)``, one array parameter per column, also in the driver's SQL. Why: psycopg parses the
    SQL of every statement with more than 50 parameters afresh (its cache stops there), which was 40%
    of the CPU of storing a page.
    """
    if conn.dialect.name == "sqlite":
        return _sqlite_insert(conn, table, rows, returning)
    if conn.dialect.name != "postgresql" or len(rows) < 2:
        stmt = insert(table)
        if returning:
            return list(conn.execute(stmt.returning(*(table.c[n] for n in returning)), rows))
        conn.execute(stmt, rows)
        return []
    names = tuple(rows[0])
    sql, converters = _unnest_sql(conn, table, names, returning)
    params = tuple(
        [r[name] for r in rows] if convert is None else [convert(r[name]) for r in rows]
        for name, convert in zip(names, converters, strict=True)
    )
    result = conn.exec_driver_sql(sql, params)
    return list(result) if returning else []


_Converters = list[Callable[[Any], Any] | None]
_UNNEST: dict[tuple[str, tuple[str, ...], tuple[str, ...]], tuple[str, _Converters]] = {}


def _json_text(value: Any) -> str | None:
    """JSON's text, as SQLAlchemy's JSON type writes it (``json.dumps``, ASCII escapes)."""
    return None if value is None else json.dumps(value)


def _unnest_sql(
    conn: Connection, table: Table, names: tuple[str, ...], returning: tuple[str, ...]
) -> tuple[str, _Converters]:
    """The ``INSERT … SELECT FROM unnest`` statement for these columns (the driver's SQL), and each
    column's converter (the column type's own bind step: aware datetimes to naive UTC; JSON to its
    text)."""
    key = (table.name, names, returning)
    found = _UNNEST.get(key)
    if found is not None:
        return found
    dialect = conn.dialect
    quote = dialect.identifier_preparer.quote
    args: list[str] = []
    items: list[str] = []
    converters: _Converters = []
    for i, name in enumerate(names):
        ctype = table.c[name].type
        if isinstance(ctype, JSON):
            args.append("CAST(%s AS TEXT[])")
            items.append(f"CAST(u.c{i} AS JSON)")
            converters.append(_json_text)
            continue
        args.append(f"CAST(%s AS {ctype.compile(dialect=dialect)}[])")
        items.append(f"u.c{i}")
        if isinstance(ctype, UTCDateTime):
            converters.append(_naive_time)  # its bind hook without SQLAlchemy's wrapper around it
        else:
            converters.append(ctype.bind_processor(dialect))  # None: the driver takes the value as it is
    sql = (
        f"INSERT INTO {quote(table.name)} ({', '.join(quote(n) for n in names)}) "
        f"SELECT {', '.join(items)} FROM unnest({', '.join(args)}) "
        f"AS u({', '.join(f'c{i}' for i in range(len(names)))})"
    )
    if returning:
        sql += f" RETURNING {', '.join(quote(n) for n in returning)}"
    found = _UNNEST[key] = (sql, converters)
    return found


# --------------------------------------------------------------------------- the driver's own SQL
# Why: the statements of a page cost far more in SQLAlchemy than in the database (building each
# statement, its cache key, a bind hook per value: 6x the bare driver's CPU per post on SQLite). Here
# the SQL is written once per shape and run with exec_driver_sql (events and error handling as
# before), every value converted as the column types would: aware datetimes to naive UTC (SQLite:
# SQLAlchemy's text of it), JSON to its text. The rows stored are the same, byte for byte
# (tests/store/test_pagewrite.py compares them with the ORM writer's). SQLite and PostgreSQL (whose
# new rows still go in through unnest, above); any other backend keeps SQLAlchemy's statements.

_DRIVER_SQL = ("sqlite", "postgresql")
_MARK = {"sqlite": "?", "postgresql": "%s"}
_SQLITE_PARAMS = 999  # SQLite's oldest limit of parameters per statement


def _sqlite_time(value: datetime | None) -> str | None:
    """What UTCDateTime and SQLAlchemy's SQLite DATETIME store: naive UTC, ``YYYY-MM-DD HH:MM:SS.ffffff``."""
    if value is None:
        return None
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.replace(tzinfo=None).isoformat(" ", "microseconds")


def _sqlite_read_time(value: str | None) -> datetime | None:
    """The stored text back as an aware UTC datetime (as UTCDateTime reads it)."""
    if value is None:
        return None
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def _naive_time(value: datetime | None) -> datetime | None:
    """What UTCDateTime hands PostgreSQL's driver: naive UTC."""
    if value is None:
        return None
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.replace(tzinfo=None)


def _aware_time(value: datetime | None) -> datetime | None:
    """PostgreSQL's naive UTC back as an aware UTC datetime."""
    return None if value is None else value.replace(tzinfo=UTC)


def _same_as_last(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``convert`` that gives its last answer again, without working, for the very same object: a
    page's rows carry its one ``seen_at`` four times a post (first and last seen, post and revision)."""
    last: tuple[Any, Any] = (object(), None)

    def remembered(value: Any) -> Any:
        nonlocal last
        seen, out = last  # one tuple, swapped whole: threads see a pair, never half of two
        if value is seen:
            return out
        out = convert(value)
        last = (value, out)
        return out

    return remembered


_WRITE_TIME: dict[str, Callable[[Any], Any]] = {
    "sqlite": _same_as_last(_sqlite_time),
    "postgresql": _same_as_last(_naive_time),
}
_READ_TIME: dict[str, Callable[[Any], Any]] = {"sqlite": _sqlite_read_time, "postgresql": _aware_time}


def _q(name: str) -> str:
    """An identifier quoted (SQLite and PostgreSQL alike: some columns are reserved words)."""
    return f'"{name}"'


@dataclass(frozen=True)
class _Convert:
    """How a row (a dict) becomes a statement's parameters: ``get`` takes the columns' values in order
    (one C call), ``at`` converts those the driver cannot take as they are (by index)."""

    get: Callable[[dict[str, Any]], tuple[Any, ...]]
    at: tuple[tuple[int, Callable[[Any], Any]], ...]


_CONVERT: dict[tuple[str, str, tuple[str, ...]], _Convert] = {}


def _converters(dialect: str, table: Table, names: Sequence[str]) -> _Convert:
    """Each column's conversion, once per shape: times as the column type writes them, JSON as its
    text, anything else as it is."""
    key = (dialect, table.name, tuple(names))
    found = _CONVERT.get(key)
    if found is None:
        at: list[tuple[int, Callable[[Any], Any]]] = []
        for i, name in enumerate(names):
            ctype = table.c[name].type
            if isinstance(ctype, UTCDateTime):
                at.append((i, _WRITE_TIME[dialect]))
            elif isinstance(ctype, JSON):
                at.append((i, _json_text))
        one = names[0] if len(names) == 1 else None
        get = (lambda row: (row[one],)) if one is not None else itemgetter(*names)
        found = _CONVERT[key] = _Convert(get, tuple(at))
    return found


def _values(converters: _Convert, row: dict[str, Any]) -> list[Any]:
    values = list(converters.get(row))
    for i, convert in converters.at:
        values[i] = convert(values[i])
    return values


def _sqlite_insert(
    conn: Connection, table: Table, rows: list[dict[str, Any]], returning: tuple[str, ...]
) -> list[Any]:
    """Multi-row INSERT … RETURNING in the driver's SQL (a few statements for a page of thousands)."""
    names = tuple(rows[0])
    per = max(1, _SQLITE_PARAMS // len(names))
    head = f"INSERT INTO {_q(table.name)} ({', '.join(map(_q, names))}) VALUES "
    one = f"({', '.join('?' * len(names))})"
    tail = f" RETURNING {', '.join(map(_q, returning))}" if returning else ""
    converters = _converters("sqlite", table, names)
    out: list[Any] = []
    for start in range(0, len(rows), per):
        chunk = rows[start : start + per]
        params: list[Any] = []
        for row in chunk:
            params.extend(_values(converters, row))
        result = conn.exec_driver_sql(head + ", ".join([one] * len(chunk)) + tail, tuple(params))
        if returning:
            out.extend(result)
    return out


def _next_ids(conn: Connection, posts: int, revisions: int) -> tuple[list[int], list[int]]:
    """Ids for ``posts`` new posts and ``revisions`` new revisions, drawn from the tables' own sequences
    (PostgreSQL) in one statement, each list ascending: rows inserted with them get the ids a multi-row
    INSERT would have given them, in the same order. Why: the rows then go in through one executemany
    of a plain INSERT (a prepared statement in psycopg's pipeline), which costs the client a fraction of
    binding every column as an array (issue 21: writes ≤ 1.5x the bare driver)."""
    ids: tuple[list[int], list[int]] = ([], [])
    for table, new_id in conn.exec_driver_sql(_NEXT_IDS, (posts, revisions)):
        ids[table].append(new_id)
    return ids


_NEXT_IDS = (
    "SELECT 0, nextval(pg_get_serial_sequence('posts', 'id')) FROM generate_series(1, %s)"
    " UNION ALL SELECT 1, nextval(pg_get_serial_sequence('post_revisions', 'id'))"
    " FROM generate_series(1, %s) ORDER BY 1, 2"
)


def _insert_rows(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """INSERT ``rows`` (all with the same keys, ids included) as one executemany in the driver's SQL."""
    dialect = conn.dialect.name
    names = tuple(rows[0])
    mark = _MARK[dialect]
    marks = ", ".join([mark] * len(names))
    sql = f"INSERT INTO {_q(table.name)} ({', '.join(map(_q, names))}) VALUES ({marks})"
    converters = _converters(dialect, table, names)
    conn.exec_driver_sql(sql, [tuple(_values(converters, row)) for row in rows])


_NEW_POSTS: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[str, _Convert, _Convert]] = {}


def _insert_new_posts(
    conn: Connection,
    board_id: int,
    bump: Collection[int],
    posts: list[dict[str, Any]],
    revisions: list[dict[str, Any]],
) -> None:
    """PostgreSQL: each new post and its first revision in ONE statement (one executemany for the page):
    ``WITH p AS (INSERT INTO posts …) INSERT INTO post_revisions …``, ids given, the post already
    pointing at its revision; the first post's statement also bumps the versions of the threads in
    ``bump`` (the others bump none), as forumbot.store.readpath.bump_versions does. Why: it was three
    executemanys (posts, revisions, then the posts linked to their revisions) and the bump, each a
    statement through SQLAlchemy (issue 21). The two foreign keys between a post and its revision are
    checked at the end of the statement, when both rows are there."""
    key = (tuple(posts[0]), tuple(revisions[0]))
    found = _NEW_POSTS.get(key)
    if found is None:
        p_names, r_names = key
        sql = (
            "WITH v AS (INSERT INTO thread_versions (board_id, tid, version)"
            " SELECT %s, u.tid, 1 FROM unnest(CAST(%s AS INTEGER[])) AS u(tid)"
            " ON CONFLICT (board_id, tid) DO UPDATE SET version = thread_versions.version + 1),"
            f" p AS (INSERT INTO posts ({', '.join(map(_q, p_names))})"
            f" VALUES ({', '.join(['%s'] * len(p_names))}))"
            f" INSERT INTO post_revisions ({', '.join(map(_q, r_names))})"
            f" VALUES ({', '.join(['%s'] * len(r_names))})"
        )
        found = _NEW_POSTS[key] = (
            sql,
            _converters("postgresql", POSTS, p_names),
            _converters("postgresql", REVISIONS, r_names),
        )
    sql, p_conv, r_conv = found
    # The tids as an array's text, so that every row's parameters have the same types (one prepared
    # statement): the first row's is the threads to bump, the others' is empty.
    tids = [_array_text(sorted(bump))] + ["{}"] * (len(posts) - 1)
    conn.exec_driver_sql(
        sql,
        [
            (board_id, t, *_values(p_conv, p), *_values(r_conv, r))
            for t, p, r in zip(tids, posts, revisions, strict=True)
        ],
    )


def _update_many(conn: Connection, table: Table, names: Sequence[str], rows: list[dict[str, Any]]) -> None:
    """``UPDATE table SET names… WHERE id = ?`` for every row (one executemany); ``rows`` carry ``id``."""
    dialect = conn.dialect.name
    mark = _MARK[dialect]
    sql = f"UPDATE {_q(table.name)} SET {', '.join(f'{_q(n)} = {mark}' for n in names)} WHERE id = {mark}"
    converters = _converters(dialect, table, names)
    conn.exec_driver_sql(sql, [(*_values(converters, row), row["id"]) for row in rows])


def _board_key(board: BoardLike) -> str:
    if isinstance(board, BoardConfig):
        return board.key
    return board if board.endswith("/") else board + "/"


def _aware(*values: datetime | None) -> None:
    for v in values:
        if v is not None and (v.tzinfo is None or v.utcoffset() is None):
            raise ValueError(f"the store takes aware datetimes only (got naive {v!r}); use UTC")


@dataclass
class _Rev:
    """A revision as the writer sees it: stored (``id`` known) or about to be inserted."""

    id: int | None
    number: int
    edit_by: str | None = None
    edit_at: datetime | None = None
    edit_raw: str = ""
    values: dict[str, Any] | None = None  # the INSERT's values for a new one (post_id filled later)


@dataclass
class _Row:
    """A post's mutable state, loaded (or new) and changed in Python, then written once."""

    id: int | None
    pid: int
    tid: int
    state: dict[str, Any]
    revisions: dict[str, _Rev] = field(default_factory=dict)  # by content hash
    current: _Rev | None = None


@dataclass
class _Event:
    row: _Row
    kind: str
    old: str | None
    new: str | None
    rev: _Rev
    note: str


def _revision_values(post: Post, h: str, number: int, source: str, at: datetime) -> dict[str, Any]:
    return {
        "number": number,
        "content_hash": h,
        "text": post.text,
        "html": post.html,
        "quotes": [{"pid": q.pid, "author": q.author, "text": q.text} for q in post.quotes],
        "quoted_pids": list(post.quoted_pids),
        "mentions": list(post.mentions),
        "title": post.title,
        "state": str(post.state),
        "edit_by": post.edit.by if post.edit else None,
        "edit_at": post.edit.at if post.edit else None,
        "edit_raw": post.edit.raw if post.edit else "",
        "source": source,
        "first_seen_at": at,
        "last_seen_at": at,
        "seen_count": 1,
    }


_THREAD_IDS_SQL = (
    "SELECT boards.id, threads.id FROM boards LEFT OUTER JOIN threads"
    " ON threads.board_id = boards.id AND threads.tid = {m} WHERE boards.url = {m}"
)


# PostgreSQL: the page opened in one statement (issue 21: writes <= 1.5x the bare driver). The thread is
# updated as it is read (its board's and its own id RETURNED), the page's stored posts come back with
# every revision's hash (the whole re-read check), and ids are drawn from the tables' own sequences for
# what the page will insert: a post id for each pid not stored, a revision id for each of those and for
# each stored post whose content hash is none of its revisions' (the test the writer makes in Python;
# should they ever differ, the writer draws what is missing and leaves the rest unused). One round trip
# and one statement where there were three (the thread's UPDATE, the load, the ids), and ONE row of
# five columns: the stored posts come as one JSON array of the load's rows (_LOAD_SQL's columns), since
# SQLAlchemy describes every column of every row-returning statement afresh (a 26-column result cost
# more than the statement itself). Nothing is drawn when the thread is not stored yet: the UPDATE
# returns no row, and the writer goes the long way.
_OPEN_SQL = (
    "WITH t AS (UPDATE threads SET {sets} FROM boards"
    " WHERE threads.board_id = boards.id AND boards.url = %s AND threads.tid = %s"
    " RETURNING threads.board_id, threads.id),"
    " page AS (SELECT u.pid, u.h FROM unnest(CAST(%s AS INTEGER[]), CAST(%s AS VARCHAR[])) AS u(pid, h)),"
    " stored AS (SELECT posts.* FROM posts JOIN t ON posts.board_id = t.board_id"
    " WHERE posts.pid IN (SELECT pid FROM page))"
    " SELECT t.board_id, t.id,"
    " ARRAY(SELECT nextval(pg_get_serial_sequence('posts', 'id')) FROM page"
    " WHERE NOT EXISTS (SELECT 1 FROM stored WHERE stored.pid = page.pid)),"
    " ARRAY(SELECT nextval(pg_get_serial_sequence('post_revisions', 'id'))"
    " FROM page LEFT OUTER JOIN stored ON stored.pid = page.pid WHERE stored.id IS NULL OR NOT EXISTS"
    " (SELECT 1 FROM post_revisions r WHERE r.post_id = stored.id AND r.content_hash = page.h)),"
    " (SELECT json_agg(json_build_array(stored.id, stored.pid, stored.tid, "
    + ", ".join(f"stored.{_q(n)}" for n in _POST_STATE)
    + ", r.id, r.content_hash, r.number, r.edit_by, r.edit_at, r.edit_raw))"
    " FROM stored LEFT OUTER JOIN post_revisions r ON r.post_id = stored.id)"
    " FROM t"
)
_OPEN: dict[tuple[str, ...], tuple[str, _Convert]] = {}


def _array_text(values: Sequence[int] | Sequence[str]) -> str:
    """A PostgreSQL array's text, for ints and hex digests (nothing to quote or escape) only. Why: the
    driver dumps a list element by element in Python, a regex search per string (issue 21)."""
    return "{" + ",".join(map(str, values)) + "}"


def _json_time(value: str | None) -> datetime | None:
    """A stored time as PostgreSQL's JSON gives it (ISO 8601, naive UTC) as an aware UTC datetime."""
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


@dataclass
class _Opened:
    """What :func:`_open_page` found: the ids of the board and thread, the page's stored posts, and the
    ids drawn for the rows the page will insert (ascending)."""

    board_id: int
    thread_id: int
    stored: dict[int, _Row]
    post_ids: list[int]
    rev_ids: list[int]


def _open_page(
    conn: Connection, key: str, tid: int, changes: dict[str, Any], pids: list[int], hashes: list[str]
) -> _Opened | None:
    """PostgreSQL: the thread's ``changes`` written, the page's stored posts read and ids drawn, in one
    statement (_OPEN_SQL); None when the board or the thread is not stored yet (nothing written)."""
    names = tuple(changes)
    found = _OPEN.get(names)
    if found is None:
        sets = ", ".join(f"{_q(n)} = %s" for n in names)
        found = _OPEN[names] = (_OPEN_SQL.format(sets=sets), _converters("postgresql", THREADS, names))
    sql, converters = found
    params = (*_values(converters, changes), key, tid, _array_text(pids), _array_text(hashes))
    row = conn.exec_driver_sql(sql, params).first()
    if row is None:
        return None
    board_id, thread_id, post_ids, rev_ids, stored_rows = row
    stored: dict[int, _Row] = {}
    if stored_rows:
        _collect(stored, stored_rows, _json_time)
    return _Opened(board_id, thread_id, stored, sorted(post_ids), sorted(rev_ids))


def _store_thread(
    conn: Connection, key: str, tid: int, seen_at: datetime, changes: dict[str, Any]
) -> tuple[int, int]:
    """(board id, thread id), each stored when it is not yet, the thread's ``changes`` written."""
    bid, thread_id = _thread_ids(conn, key, tid)
    if bid is None:
        bid = conn.execute(
            insert(BOARDS).values(url=key, name="", created_at=datetime.now(UTC)).returning(BOARDS.c.id)
        ).scalar_one()
    if thread_id is None:
        thread_id = conn.execute(
            insert(THREADS)
            .values(board_id=bid, tid=tid, first_seen_at=seen_at, **changes)
            .returning(THREADS.c.id)
        ).scalar_one()
    elif conn.dialect.name in _DRIVER_SQL:
        _update_many(conn, THREADS, tuple(changes), [{**changes, "id": thread_id}])
    else:
        conn.execute(update(THREADS).where(THREADS.c.id == thread_id).values(**changes))
    return bid, thread_id


def _thread_ids(conn: Connection, key: str, tid: int) -> tuple[int | None, int | None]:
    """(board id, thread id) in one SELECT; None for what is not stored yet."""
    if conn.dialect.name in _DRIVER_SQL:
        sql = _THREAD_IDS_SQL.format(m=_MARK[conn.dialect.name])
        found = conn.exec_driver_sql(sql, (tid, key)).first()
        return (None, None) if found is None else (found[0], found[1])
    q = (
        select(BOARDS.c.id, THREADS.c.id)
        .select_from(BOARDS.outerjoin(THREADS, (THREADS.c.board_id == BOARDS.c.id) & (THREADS.c.tid == tid)))
        .where(BOARDS.c.url == key)
    )
    found = conn.execute(q).first()
    return (None, None) if found is None else (found[0], found[1])


def _load_rows(conn: Connection, bid: int, pids: Sequence[int]) -> dict[int, _Row]:
    """The page's stored posts (by pid) with every revision's hash: the whole re-read check."""
    p, r = POSTS.c, REVISIONS.c
    rows: dict[int, _Row] = {}
    dialect = conn.dialect.name
    for start in range(0, len(pids), CHUNK):
        chunk = pids[start : start + CHUNK]
        if dialect in _DRIVER_SQL:
            mark = _MARK[dialect]
            sql = _LOAD_SQL.format(m=mark, pids=", ".join([mark] * len(chunk)))
            _collect(rows, conn.exec_driver_sql(sql, (bid, *chunk)), _READ_TIME[dialect])
            continue
        q = (
            select(
                p.id,
                p.pid,
                p.tid,
                *(p[name] for name in _POST_STATE),
                r.id,
                r.content_hash,
                r.number,
                r.edit_by,
                r.edit_at,
                r.edit_raw,
            )
            .select_from(POSTS.outerjoin(REVISIONS, r.post_id == p.id))
            .where(p.board_id == bid, p.pid.in_(chunk))
        )
        _collect(rows, conn.execute(q), None)
    return rows


_POST_TIMES = tuple(n for n in _POST_STATE if isinstance(POSTS.c[n].type, UTCDateTime))
_LOAD_SQL = (
    "SELECT posts.id, posts.pid, posts.tid, "
    + ", ".join(f"posts.{_q(n)}" for n in _POST_STATE)
    + ", post_revisions.id, post_revisions.content_hash, post_revisions.number, post_revisions.edit_by,"
    " post_revisions.edit_at, post_revisions.edit_raw"
    " FROM posts LEFT OUTER JOIN post_revisions ON post_revisions.post_id = posts.id"
    " WHERE posts.board_id = {m} AND posts.pid IN ({pids})"
)


def _collect(rows: dict[int, _Row], found_rows: Any, read_time: Callable[[Any], Any] | None) -> None:
    """The rows of a load SELECT (or the opening statement's JSON of them) into ``rows``; ``read_time``:
    the stored time's conversion when the rows come straight from the driver."""
    state_end = 3 + len(_POST_STATE)
    for found in found_rows:
        pid = found[1]
        row = rows.get(pid)
        if row is None:
            state = dict(zip(_POST_STATE, found[3:state_end], strict=True))
            if read_time is not None:
                for name in _POST_TIMES:
                    state[name] = read_time(state[name])
            row = rows[pid] = _Row(found[0], pid, found[2], state)
        rev_id, h, number, e_by, e_at, e_raw = found[state_end:]
        if rev_id is not None:
            rev = _Rev(rev_id, number, e_by, e_at if read_time is None else read_time(e_at), e_raw)
            row.revisions[h] = rev
            if rev_id == row.state["current_revision_id"]:
                row.current = rev


# What the desk judges of a stored post (forumbot/store/readpath.py): a change bumps the thread's version.
_JUDGED = tuple(name for name in _POST_STATE if name not in ("page", "last_seen_at", "last_source"))


def _judged(row: _Row) -> tuple[Any, ...]:
    current = row.current.id if row.current is not None else None
    markers = tuple((r.id, r.edit_by, r.edit_at, r.edit_raw) for r in row.revisions.values())
    return (current, tuple(row.state[name] for name in _JUDGED), markers)


def _changed_tids(order: list[_Row], judged_before: dict[int, Any], events: list[_Event]) -> set[int]:
    """The threads whose judged content this page changed (their versions are bumped)."""
    changed = {
        row.tid for row in order if row.pid not in judged_before or judged_before[row.pid] != _judged(row)
    }
    return changed | {e.row.tid for e in events}


def _narrow_time(state: dict[str, Any], post: Post) -> None:
    """Keep the narrowest interval consistent with every view (a touch page's "3 分钟前", then PC)."""
    old_width = state["posted_until"] - state["posted_at"]
    new_width = post.posted_until - post.posted_at
    if (
        new_width < old_width
        and state["posted_at"] <= post.posted_until
        and post.posted_at <= state["posted_until"]
    ):
        state["posted_at"], state["posted_until"] = post.posted_at, post.posted_until
        state["time_source"] = str(post.time_source)


def _fetch_values(bid: int, fetches: Sequence[FetchRecord], *, tid: int, page: int) -> list[dict[str, Any]]:
    return [
        {
            "board_id": bid,
            "at": f.at,
            "method": f.method,
            "url": f.url,
            "status": f.status,
            "ok": f.ok,
            "error": f.error,
            "elapsed_ms": round(f.elapsed * 1000),
            "size": f.size,
            "tid": tid,
            "page": page,
        }
        for f in fetches
    ]


def _write_rows(
    conn: Connection,
    order: list[_Row],
    new_rows: list[tuple[_Row, dict[str, Any]]],
    new_revs: list[tuple[_Row, _Rev]],
) -> None:
    """SQLite and other backends: the new posts (their ids RETURNED), their new revisions, then every
    post's state (a new post's: only its current revision, which did not exist when it went in)."""
    driver_sql = conn.dialect.name in _DRIVER_SQL
    if new_rows:
        params = [{**values, **row.state} for row, values in new_rows]
        returned = _insert_many(conn, POSTS, params, ("pid", "id"))
        post_ids: dict[int, int] = {r[0]: r[1] for r in returned}
        for row, _values in new_rows:
            row.id = post_ids[row.pid]
    if new_revs:
        params = [{**(rev.values or {}), "post_id": row.id} for row, rev in new_revs]
        returned = _insert_many(conn, REVISIONS, params, ("post_id", "id"))
        rev_ids: dict[int, int] = {r[0]: r[1] for r in returned}
        for row, rev in new_revs:
            assert row.id is not None
            rev.id = rev_ids[row.id]
    if not order:
        return
    for row in order:
        assert row.current is not None and row.current.id is not None
        row.state["current_revision_id"] = row.current.id
    if driver_sql:
        fresh = {id(row) for row, _values in new_rows}
        stored_rows = [{**row.state, "id": row.id} for row in order if id(row) not in fresh]
        if stored_rows:
            _update_many(conn, POSTS, _POST_STATE, stored_rows)
        if fresh:
            links = [
                {"current_revision_id": row.state["current_revision_id"], "id": row.id} for row, _ in new_rows
            ]
            _update_many(conn, POSTS, ("current_revision_id",), links)
    else:
        params = [{"b_id": row.id, **{f"b_{k}": v for k, v in row.state.items()}} for row in order]
        conn.execute(_UPDATE_POSTS, params)


def _assign_ids_pg(
    conn: Connection,
    opened: _Opened | None,
    order: list[_Row],
    new_rows: list[tuple[_Row, dict[str, Any]]],
    new_revs: list[tuple[_Row, _Rev]],
) -> None:
    """PostgreSQL: every new row gets its id before any goes in, in page order: drawn by the opening
    statement, or here when it did not run or drew too few."""
    drawn_posts, drawn_revs = (opened.post_ids, opened.rev_ids) if opened is not None else ([], [])
    more_posts, more_revs = len(new_rows) - len(drawn_posts), len(new_revs) - len(drawn_revs)
    if more_posts > 0 or more_revs > 0:  # every new post has a new revision
        more = _next_ids(conn, max(more_posts, 0), max(more_revs, 0))
        drawn_posts, drawn_revs = drawn_posts + more[0], drawn_revs + more[1]
    for (row, _values), new_id in zip(new_rows, drawn_posts, strict=False):
        row.id = new_id
    for (_row, rev), new_id in zip(new_revs, drawn_revs, strict=False):
        rev.id = new_id
    for row in order:
        assert row.current is not None and row.current.id is not None
        row.state["current_revision_id"] = row.current.id


def _write_rows_pg(
    conn: Connection,
    board_id: int,
    bump: set[int],
    order: list[_Row],
    new_rows: list[tuple[_Row, dict[str, Any]]],
    new_revs: list[tuple[_Row, _Rev]],
) -> bool:
    """PostgreSQL, ids assigned (_assign_ids_pg): each new post goes in with its first revision, already
    linked to it, the threads in ``bump`` bumped with the first (_insert_new_posts, one executemany for
    the page); a stored post's new revision with the others (one executemany); the stored posts' state
    in one executemany UPDATE. Whether the versions were bumped (only with new posts)."""
    fresh = {id(row) for row, _values in new_rows}
    first: dict[int, dict[str, Any]] = {}  # a new post's one revision, by id(row)
    later: list[dict[str, Any]] = []  # a stored post's new revisions
    for row, rev in new_revs:
        values = {**(rev.values or {}), "post_id": row.id, "id": rev.id}
        if id(row) in fresh:
            first[id(row)] = values
        else:
            later.append(values)
    if new_rows:
        _insert_new_posts(
            conn,
            board_id,
            bump,
            [{**values, **row.state, "id": row.id} for row, values in new_rows],
            [first[id(row)] for row, _values in new_rows],
        )
    if later:
        _insert_rows(conn, REVISIONS, later)
    stored_rows = [{**row.state, "id": row.id} for row in order if id(row) not in fresh]
    if stored_rows:
        _update_many(conn, POSTS, _POST_STATE, stored_rows)
    return bool(new_rows)


def record_page(
    store: Store,
    board: BoardLike,
    page: ThreadPage,
    *,
    seen_at: datetime,
    fetches: Sequence[FetchRecord] = (),
    ppp: int | None = None,
    skip_pids: Collection[int] = (),
) -> PageResult:
    """Store one parsed page (its posts, new revisions, state changes and fetches) in one transaction.

    The contract of :func:`forumbot.store.posts.record_thread_page`, which delegates here.
    ``skip_pids``: pids already stored from an earlier page of the same read; ``ppp``: posts per page
    of the page's source. Raises ValueError for a naive datetime, StoreError when the database refuses.
    """
    _aware(seen_at, *(t for p in page.posts for t in (p.posted_at, p.posted_until)))
    _aware(*(p.edit.at for p in page.posts if p.edit is not None), *(f.at for f in fetches))
    info = page.thread
    for attempt in (1, 2):
        lost = written = False
        try:
            with store.engine.connect() as conn:
                try:
                    with conn.begin():
                        result = _write(conn, board, page, seen_at, fetches, ppp, skip_pids)
                        written = True  # what fails now is the COMMIT
                except (SQLAlchemyError, StoreError):
                    lost = conn.invalidated and not written
                    raise
                return result
        except (SQLAlchemyError, StoreError) as exc:
            # Lost before the COMMIT (SQLAlchemy has dropped the connection), the page was rolled back
            # with the session: it is stored again, once, on a fresh connection. Why: a pooled
            # connection is pinged only after it rested (forumbot/store/db.py), so one that died in
            # the seconds between two pages fails here. Lost during the COMMIT, the page may or may
            # not be stored: the error says the connection was lost, and the next poll reads it again.
            if attempt == 1 and lost:
                continue
            if isinstance(exc, StoreError):
                raise
            raise StoreError(
                _("cannot store page {page} of thread {tid}: {error}").format(
                    page=info.page, tid=info.tid, error=short_reason(exc)
                )
            ) from exc
    raise AssertionError("unreachable: the second attempt returns or raises")


def _write(
    conn: Connection,
    board: BoardLike,
    page: ThreadPage,
    seen_at: datetime,
    fetches: Sequence[FetchRecord],
    ppp: int | None,
    skip_pids: Collection[int],
) -> PageResult:
    info = page.thread
    source = str(page.source)
    whole_view = page.author_filter is None
    # skip_pids is looked up, never copied: a poll passes every pid of the read so far, and copying
    # it on each page made a first read quadratic in the thread's length (issue 21).
    posts: list[Post] = []
    on_page: set[int] = set()
    for p in page.posts:
        if p.pid not in on_page and p.pid not in skip_pids:
            on_page.add(p.pid)
            posts.append(p)

    # -- the board and the thread
    key = _board_key(board)
    changes: dict[str, Any] = {"pages": info.pages, "last_read_at": seen_at}
    if info.fid is not None:
        changes["fid"] = info.fid
    if info.title:
        changes["title"] = info.title
    if whole_view:
        changes["resume_page"] = info.page
        changes["resume_ppp"] = ppp
    dialect = conn.dialect.name
    hashes = [post_hash(p) for p in posts]
    pids = [p.pid for p in posts]
    # PostgreSQL: the usual case (board and thread stored) in one statement, the thread updated as it
    # is read, the page's stored posts read and the new rows' ids drawn (_OPEN_SQL).
    opened = _open_page(conn, key, info.tid, changes, pids, hashes) if dialect == "postgresql" else None
    if opened is not None:
        bid, thread_id, stored = opened.board_id, opened.thread_id, opened.stored
    else:
        bid, thread_id = _store_thread(conn, key, info.tid, seen_at, changes)
        # -- the page's stored posts, and what this sighting changes
        stored = _load_rows(conn, bid, pids) if posts else {}
    judged_before = {pid: _judged(row) for pid, row in stored.items()}  # to bump the threads' versions
    order: list[_Row] = []  # every post of the page, in page order
    new_rows: list[tuple[_Row, dict[str, Any]]] = []
    new_revs: list[tuple[_Row, _Rev]] = []
    reseen: dict[int, _Rev] = {}
    events: list[_Event] = []
    new_posts: list[int] = []
    revised: list[int] = []
    state_changes: list[StateChange] = []

    for post, h in zip(posts, hashes, strict=True):
        row = stored.get(post.pid)
        if row is None:
            tid = post.tid if post.tid is not None else info.tid
            values: dict[str, Any] = {
                "board_id": bid,
                "thread_id": thread_id,
                "pid": post.pid,
                "tid": tid,
                "first": post.first,
                "first_seen_at": seen_at,
            }
            state = {
                "page": info.page if whole_view else None,
                "floor": post.floor if post.floor_exact else None,
                "author": post.author,
                "uid": post.uid,
                "posted_at": post.posted_at,
                "posted_until": post.posted_until,
                "time_source": str(post.time_source),
                "state": str(post.state),
                "current_revision_id": None,
                "revision_count": 1,
                "edit_by": post.edit.by if post.edit else None,
                "edit_at": post.edit.at if post.edit else None,
                "last_seen_at": seen_at,
                "last_source": source,
            }
            row = _Row(None, post.pid, tid, state)
            rev = _Rev(None, 1, values=_revision_values(post, h, 1, source, seen_at))
            row.revisions[h] = row.current = rev
            new_rows.append((row, values))
            new_revs.append((row, rev))
            order.append(row)
            new_posts.append(post.pid)
            continue

        order.append(row)
        st = row.state
        st["last_seen_at"] = seen_at
        st["last_source"] = source
        if whole_view:
            st["page"] = info.page
        if post.floor is not None and post.floor_exact and st["floor"] is None:
            st["floor"] = post.floor
        if not st["author"] and post.author:
            st["author"] = post.author
        if st["uid"] is None and post.uid is not None:
            st["uid"] = post.uid
        _narrow_time(st, post)

        found_rev = row.revisions.get(h)
        revised_now = found_rev is None
        if found_rev is not None:
            rev = found_rev
            if rev.id is not None:
                reseen[rev.id] = rev
            if rev.edit_by is None and post.edit is not None:  # e.g. PC shows what the API strips
                rev.edit_by, rev.edit_at, rev.edit_raw = post.edit.by, post.edit.at, post.edit.raw
            if row.current is not rev:
                note = f"content is again revision {rev.number}"
                events.append(_Event(row, "reverted", None, None, rev, note))
                row.current = rev
        else:
            st["revision_count"] += 1
            number = st["revision_count"]
            rev = _Rev(None, number, values=_revision_values(post, h, number, source, seen_at))
            new_revs.append((row, rev))
            marker = f" ({post.edit.raw or 'edit marker: ' + post.edit.by})" if post.edit else ""
            events.append(_Event(row, "revised", None, None, rev, f"new content: revision {number}{marker}"))
            row.current = rev
            row.revisions[h] = rev
            revised.append(post.pid)

        if post.edit is not None and (st["edit_by"], st["edit_at"]) != (post.edit.by, post.edit.at):
            if not revised_now:  # same content, new marker: an edit forumbot did not see happen
                raw = post.edit.raw or f"edited by {post.edit.by}"
                events.append(_Event(row, "edit_marker", None, None, rev, raw))
            st["edit_by"], st["edit_at"] = post.edit.by, post.edit.at

        old_state = PostState(st["state"])
        if old_state is not post.state:
            kind = "restored" if old_state is PostState.DELETED else "state"
            note = f"{old_state.value} -> {post.state.value} (seen on page {info.page})"
            events.append(_Event(row, kind, old_state.value, post.state.value, rev, note))
            st["state"] = str(post.state)
            state_changes.append(StateChange(post.pid, row.tid, old_state, post.state, seen_at, note))

    # -- the writes: each table once, rows in page order (so ids come out as before)
    driver_sql = dialect in _DRIVER_SQL
    bumped = False
    if dialect == "postgresql":
        _assign_ids_pg(conn, opened, order, new_rows, new_revs)
        bump = _changed_tids(order, judged_before, events)
        bumped = _write_rows_pg(conn, bid, bump, order, new_rows, new_revs)
    else:
        _write_rows(conn, order, new_rows, new_revs)
    if reseen and driver_sql:
        when = _WRITE_TIME[dialect]
        conn.exec_driver_sql(
            _RESEE_SQL.format(m=_MARK[dialect]),
            [
                (when(seen_at), rev.edit_by, when(rev.edit_at), rev.edit_raw, rev_id)
                for rev_id, rev in reseen.items()
            ],
        )
    elif reseen:
        conn.execute(
            _RESEE_REVISIONS,
            [
                {
                    "b_id": rev_id,
                    "b_last_seen_at": seen_at,
                    "b_edit_by": rev.edit_by,
                    "b_edit_at": rev.edit_at,
                    "b_edit_raw": rev.edit_raw,
                }
                for rev_id, rev in reseen.items()
            ],
        )
    if events:
        _insert_many(
            conn,
            EVENTS,
            [
                {
                    "board_id": bid,
                    "post_id": e.row.id,
                    "pid": e.row.pid,
                    "tid": e.row.tid,
                    "at": seen_at,
                    "kind": e.kind,
                    "old_state": e.old,
                    "new_state": e.new,
                    "revision_id": e.rev.id,
                    "note": e.note,
                }
                for e in events
            ],
        )
    if not bumped:
        bump_versions(conn, bid, _changed_tids(order, judged_before, events))
    fetch_rows = _fetch_values(bid, fetches, tid=info.tid, page=info.page)
    if fetch_rows:
        _insert_many(conn, FETCH_LOG, fetch_rows)
    return PageResult(
        tid=info.tid,
        page=info.page,
        pids=tuple(p.pid for p in posts),
        new_posts=tuple(new_posts),
        new_revisions=tuple(revised),
        state_changes=tuple(state_changes),
    )
