"""Opening the store: an SQLite file by default, any SQLAlchemy URL (PostgreSQL via psycopg) otherwise.

Why a separate module (as in SQLModel's tutorial): models say what is stored, this module says where,
and the store's modules (posts, threads, fetchlog, records) do each unit of work inside
``with store.session()``.

SQLite gets foreign keys switched on, a busy timeout (a writer waits up to 30 s for another process:
two ``forumbot poll`` at once, or a judge's tally while a poll writes), WAL for files, and real
``BEGIN IMMEDIATE`` statements for files: a unit of work takes the write lock when it starts, so a
second writer WAITS for it (with a plain ``BEGIN`` it would read first and then fail at once with
«database is locked», the busy timeout unused). When the wait runs out, :class:`StoreBusy` names the
other forumbot process from the ``poll_processes`` table (pid, host, command, start). An in-memory
store (``":memory:"``) keeps one shared connection, so every session sees the same data.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Table, event, inspect
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, DisconnectionError, IntegrityError, SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine

from forumbot.errors import StoreBusy, StoreError, StoreReadOnly
from forumbot.i18n import _
from forumbot.store import models
from forumbot.store.dberrors import (
    SQLITE_READONLY,
    is_read_only,
    read_only_error,
    short_reason,
    sqlite_code,
    store_error,
)
from forumbot.store.values import DEFAULT_STORE as DEFAULT_STORE  # re-exported: its old home
from forumbot.store.values import store_url as store_url

BUSY_TIMEOUT = 30.0  # seconds a writer waits for another process before giving up
PING_AFTER_IDLE = 5.0  # seconds a pooled server connection may rest before it is pinged on checkout


@dataclass
class StoreMode:
    """How an open store may be used, shared with its engine's event hooks: ``read_only`` once the
    database says (or the judge asked) that it may be read but not written."""

    read_only: bool = False


@dataclass
class Store:
    """An open store. Pass it to the functions of the store's modules; close it when done.

    ``read_only``: the store may be read but not written (a read-only file or mount, SQLite's
    ``mode=ro`` or ``query_only``, a PostgreSQL read-only transaction or role). Reading commands work
    on it: nothing is written when it is opened or read (what a read would keep for later, such as a
    judged day's carry-over, is not kept); a write raises StoreReadOnly naming the store (issue 22)."""

    engine: Engine
    url: str
    mode: StoreMode = field(default_factory=StoreMode)

    @property
    def read_only(self) -> bool:
        return self.mode.read_only

    def session(self) -> Session:
        """A session for one unit of work (``with store.session() as s: ... s.commit()``)."""
        return Session(self.engine, expire_on_commit=False)

    def create_tables(self, names: tuple[str, ...] | None = None) -> None:
        """Create missing tables, and add the columns a newer forumbot defines to a store made by an older
        one (never alters, drops or rewrites what is there: an old store keeps every post it holds).

        ``names``: only these tables (default: the store's and the games'). On a read-only store
        nothing is written: when every table and column is there this does nothing, otherwise it raises
        StoreReadOnly naming what is missing (a store made by an older forumbot, to be opened once
        with write access)."""
        names = names or models.TABLE_NAMES + models.GAME_TABLE_NAMES
        tables = [SQLModel.metadata.tables[name] for name in names]
        if self.read_only:
            try:
                missing = missing_schema(self.engine, tables)
            except SQLAlchemyError as exc:
                raise store_error(exc, self.label, self.sqlite_path) from exc
            if missing:
                raise StoreReadOnly(
                    _(
                        "the store {store} is read-only and was made by an older forumbot: it lacks "
                        "{missing}. Open it once with write access (any command, e.g. `forumbot status`) "
                        "so that forumbot adds them; nothing was written."
                    ).format(store=self.label, missing=", ".join(missing))
                )
            return
        try:
            SQLModel.metadata.create_all(self.engine, tables=tables)
            add_missing_columns(self.engine, tables)
        except SQLAlchemyError as exc:
            raise StoreError(
                _("cannot create the store's tables in {store}: {error}").format(
                    store=self.safe_url, error=short_reason(exc)
                )
            ) from exc

    @property
    def label(self) -> str:
        """The store as a judge knows it, for messages: the SQLite file's path, else the URL without
        its password."""
        return self.sqlite_path or self.safe_url

    @property
    def sqlite_path(self) -> str | None:
        """The SQLite file of this store (None in memory or on a server)."""
        return sqlite_file(make_url(self.url))

    def read_only_error(self) -> StoreReadOnly:
        """The StoreReadOnly a write to this store raises: names it, says why and what to do."""
        return read_only_error(self.label, self.sqlite_path)

    @property
    def safe_url(self) -> str:
        """The URL without its password, for messages."""
        return make_url(self.url).render_as_string(hide_password=True)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def upsert_insert(dialect: str) -> Any:
    """The ``insert`` construct of backend ``dialect`` ("sqlite" or "postgresql"), which has
    ``on_conflict_do_update``. Imported when used: the PostgreSQL dialect's module pulls in asyncio,
    a tenth of a command's start-up, for a store on SQLite that never needs it (issue 12)."""
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert
    from sqlalchemy.dialects.postgresql import insert as pg_insert

    return pg_insert


def missing_schema(engine: Engine, tables: list[Table]) -> list[str]:
    """The tables (``table``) and columns (``table.column``) the models have and the store lacks."""
    have = inspect(engine)
    missing: list[str] = []
    for table in tables:
        if not have.has_table(table.name):
            missing.append(table.name)
            continue
        present = {c["name"] for c in have.get_columns(table.name)}
        missing.extend(f"{table.name}.{c.name}" for c in table.columns if c.name not in present)
    return missing


def add_missing_columns(engine: Engine, tables: list[Table]) -> list[str]:
    """Add to existing tables the columns the models have and the store lacks; return ``table.column``
    of each added.

    Why not migrations: forumbot only ever adds columns, and each new column has a default, so an
    ``ALTER TABLE … ADD COLUMN … DEFAULT …`` brings an old store up to date on both backends without a
    migration tool; the old rows get the default, which is what a row written before the column existed
    means (e.g. an outbox item with no runner moment). A column without a scalar default is added
    nullable."""
    have = inspect(engine)
    added: list[str] = []
    for table in tables:
        if not have.has_table(table.name):
            continue
        present = {c["name"] for c in have.get_columns(table.name)}
        for column in table.columns:
            if column.name in present:
                continue
            kind = column.type.compile(dialect=engine.dialect)
            clause = f'ALTER TABLE "{table.name}" ADD COLUMN "{column.name}" {kind}'
            default = getattr(column.default, "arg", None) if column.default is not None else None
            if callable(default):
                default = None  # a Python-side factory: nothing to give the old rows
            if isinstance(default, bool):
                clause += f" NOT NULL DEFAULT {'TRUE' if default else 'FALSE'}"
            elif isinstance(default, int | float):
                clause += f" NOT NULL DEFAULT {default}"
            elif isinstance(default, str):
                quoted = default.replace("'", "''")
                clause += f" NOT NULL DEFAULT '{quoted}'"
            with engine.begin() as conn:
                conn.exec_driver_sql(clause)
            added.append(f"{table.name}.{column.name}")
    return added


def sqlite_file(parsed: URL) -> str | None:
    """The file of an SQLite URL: its path, or the path of a ``file:`` URI (``sqlite:///file:x.db?
    mode=ro&uri=true``, SQLite's own way to open a file read-only); None for another backend or in
    memory."""
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if database in ("", ":memory:") or parsed.query.get("mode") == "memory":
        return None
    if str(parsed.query.get("uri", "")).lower() in ("true", "1") and database.startswith("file:"):
        database = database[len("file:") :].split("?", 1)[0]
        if database.startswith("//"):  # file://host/path: the path after the (empty) host
            database = "/" + database[2:].split("/", 1)[1] if "/" in database[2:] else ""
    return database or None


def open_store(
    url_or_path: str | Path | None = None,
    *,
    create: bool = True,
    echo: bool = False,
    connect_args: dict[str, Any] | None = None,
    busy_timeout: float = BUSY_TIMEOUT,
    read_only: bool = False,
) -> Store:
    """Open (and by default create) the store at ``url_or_path``.

    ``busy_timeout``: seconds an SQLite writer waits for another process before StoreBusy.
    ``read_only``: open it for reading only (SQLite ``query_only``, a PostgreSQL read-only session);
    a store the database will not let us write (read-only file or mount, ``mode=ro``, a read-only
    transaction or role) is found read-only on its own: see :attr:`Store.read_only`.
    Raises StoreError when the URL is malformed, the driver is missing (naming the ``[postgres]``
    extra for PostgreSQL), the database is unreachable, or (``create=False``) it holds no store yet;
    StoreReadOnly when a read-only store would have to be created or brought up to date.
    """
    url = store_url(url_or_path)
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StoreError(_("not a database URL or path: {value!r}").format(value=url_or_path)) from exc
    safe = parsed.render_as_string(hide_password=True)
    path = sqlite_file(parsed)
    label = path or safe  # what messages call the store
    args: dict[str, Any] = dict(connect_args or {})
    kwargs: dict[str, Any] = {"echo": echo}
    is_sqlite = parsed.get_backend_name() == "sqlite"
    mode = StoreMode(read_only=read_only)
    if is_sqlite:
        args.setdefault("check_same_thread", False)
        if path is None:
            kwargs["poolclass"] = StaticPool
        elif not create and not Path(path).exists():
            raise StoreError(
                _("no store at {path}: run `forumbot poll` first, or pass --store").format(path=path)
            )
        else:
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    _("cannot make the folder of the store {store}: {why}").format(
                        store=safe, why=exc.strerror or exc
                    )
                ) from exc
    else:
        if read_only:
            options = str(args.get("options", ""))
            args["options"] = (options + " -c default_transaction_read_only=on").strip()
    try:
        engine = create_engine(url, connect_args=args, **kwargs)
    except ImportError as exc:
        if parsed.get_backend_name() == "postgresql":
            raise StoreError(
                _(
                    "cannot open the store {store}: the PostgreSQL driver (psycopg) is not installed "
                    "({error}). Install forumbot with its [postgres] extra: pip install 'forumbot[postgres]' "
                    "(or pip install 'psycopg[binary]')"
                ).format(store=safe, error=exc)
            ) from exc
        raise StoreError(
            _("cannot open the store {store}: a database driver is missing: {error}").format(
                store=safe, error=exc
            )
        ) from exc
    except (ArgumentError, SQLAlchemyError) as exc:
        raise StoreError(
            _("cannot open the store {store}: {error}").format(store=safe, error=short_reason(exc))
        ) from exc
    if is_sqlite:
        _sqlite_setup(engine, in_memory=path is None, busy_timeout=busy_timeout, mode=mode)
    else:
        _ping_when_idle(engine)
    _translate_errors(engine, label, path, busy_timeout, mode)
    store = Store(engine=engine, url=url, mode=mode)
    try:
        if not mode.read_only:
            mode.read_only = _found_read_only(engine, parsed, path, busy_timeout)
        if not create and not inspect(engine).has_table("posts"):
            engine.dispose()
            raise StoreError(
                _("{store} holds no forumbot store: run `forumbot poll` first").format(store=store.safe_url)
            )
    except SQLAlchemyError as exc:
        engine.dispose()
        raise StoreError(
            _("cannot connect to the store {store}: {error}").format(store=safe, error=short_reason(exc))
        ) from exc
    except StoreError:
        engine.dispose()
        raise
    try:
        store.create_tables()  # an existing store gets the tables added since it was made (never altered)
    except StoreError:
        engine.dispose()
        raise
    return store


def _found_read_only(engine: Engine, parsed: URL, path: str | None, busy_timeout: float) -> bool:
    """Whether the database will let us read the store but not write it, asked once when it is opened.

    SQLite: ``mode=ro``/``immutable`` in the URL, ``PRAGMA query_only``, else a write that is rolled
    back at once (a table created inside a transaction never committed): SQLite opens a file it may
    not write (EACCES, EROFS) read-only without a word and says SQLITE_READONLY only at the first
    write. It does not wait for another writer: a store another process is writing is writable.
    PostgreSQL: the session's ``transaction_read_only`` (a read-only role's default, a standby), or
    no INSERT privilege on the posts table."""
    if path is None and parsed.get_backend_name() == "sqlite":
        return False  # in memory: always writable
    if parsed.get_backend_name() == "sqlite":
        if parsed.query.get("mode") == "ro" or str(parsed.query.get("immutable", "")) in ("1", "true"):
            return True
        try:
            raw = engine.raw_connection()
        except (sqlite3.Error, DBAPIError) as exc:
            raise store_error(exc, path or "", path) from exc
        try:
            con = raw.driver_connection
            assert con is not None
            try:
                if con.execute("PRAGMA query_only").fetchone()[0]:
                    return True
                con.execute("PRAGMA busy_timeout=0")
                try:
                    con.execute("BEGIN IMMEDIATE")
                    con.execute("CREATE TABLE main.forumbot_write_probe (x)")
                except sqlite3.OperationalError as exc:
                    return sqlite_code(exc) == SQLITE_READONLY
                finally:
                    if con.in_transaction:
                        con.execute("ROLLBACK")
                    con.execute(f"PRAGMA busy_timeout={max(int(busy_timeout * 1000), 0)}")
            except sqlite3.Error as exc:
                raise store_error(exc, path or "", path) from exc
        finally:
            raw.close()
        return False
    if parsed.get_backend_name() != "postgresql":
        return False
    with engine.connect() as conn:
        row = conn.exec_driver_sql(
            "SELECT current_setting('transaction_read_only'), CASE WHEN to_regclass('posts') IS NULL "
            "THEN NULL ELSE has_table_privilege('posts', 'INSERT') END"
        ).one()
        conn.rollback()
    return bool(row[0] == "on" or row[1] is False)


def _ping_when_idle(engine: Engine) -> None:
    """A server's pooled connection is pinged when it is checked out after resting PING_AFTER_IDLE
    seconds or more, and replaced when the ping fails (the pool connects afresh).

    Why not SQLAlchemy's ``pool_pre_ping``: it pings on every checkout, a round trip per unit of work;
    a poll stores a thread page by page, a unit of work each, one right after the other (issue 21: a
    tenth of the CPU of storing a page). What dies under a pooled connection (a server restarted, an
    idle timeout, a NAT forgetting it) happens while it rests between polls, which the ping catches. A
    connection lost in the seconds between two pages fails the statement instead: SQLAlchemy drops it
    (and every connection pooled before it), the page writer stores the page again on a fresh one
    (forumbot/store/pagewrite.py), and any other unit of work raises StoreError saying the connection
    was lost; a failed transaction never writes half of anything."""

    @event.listens_for(engine, "checkin")
    def _rests(_dbapi_connection: Any, record: Any) -> None:
        record.info["resting_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _wakes(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("resting_since")  # None: a fresh connection (info is per connection)
        if since is None or time.monotonic() - since < PING_AFTER_IDLE:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as exc:
            raise DisconnectionError(f"the pooled connection failed its ping: {exc}") from exc


def _sqlite_setup(
    engine: Engine, *, in_memory: bool, busy_timeout: float = BUSY_TIMEOUT, mode: StoreMode | None = None
) -> None:
    mode = mode or StoreMode()
    asked_read_only = mode.read_only

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy emit BEGIN itself (pysqlite's own handling skips it before SELECTs).
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={max(int(busy_timeout * 1000), 0)}")
        if asked_read_only:
            cur.execute("PRAGMA query_only=ON")
        elif not in_memory:
            try:
                cur.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError as exc:
                # A read-only file not yet in WAL: it stays as it is, and is read as it is.
                if sqlite_code(exc) != SQLITE_READONLY:
                    raise
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # IMMEDIATE: take the write lock now, waiting (busy_timeout) for another writer, rather than
        # reading first and failing without a wait when the write comes (WAL's stale snapshot). A
        # read-only store takes no write lock (SQLite refuses it under query_only).
        plain = in_memory or mode.read_only
        conn.exec_driver_sql("BEGIN" if plain else "BEGIN IMMEDIATE")


def _translate_errors(
    engine: Engine, store: str, path: str | None, busy_timeout: float, mode: StoreMode
) -> None:
    """Every database error leaving this engine becomes forumbot's own, in the judge's words and
    naming the store (forumbot/store/dberrors.py), never showing SQL or its parameters: SQLite's
    «database is locked» after the busy timeout a StoreBusy naming the holder, a refused write a
    StoreReadOnly (and the store is read-only from then on), a full disk a StoreFull.

    Left as they are: an IntegrityError (callers that race another process catch it), a pre-ping's
    failure (the pool reconnects), and what is no database error."""

    @event.listens_for(engine, "handle_error")
    def _on_error(ctx: Any) -> None:
        if getattr(ctx, "is_pre_ping", False):
            return
        wrapped = ctx.sqlalchemy_exception
        if not isinstance(wrapped, DBAPIError) or isinstance(wrapped, IntegrityError):
            return
        orig = ctx.original_exception
        if (
            path is not None
            and isinstance(orig, sqlite3.OperationalError)
            and ("locked" in str(orig) or "busy" in str(orig))
        ):
            raise StoreBusy(busy_message(path, busy_timeout)) from orig
        if is_read_only(orig):
            mode.read_only = True
        error = store_error(orig, store, path)
        if ctx.connection is None and type(error) is StoreError:  # not even connected
            error = StoreError(
                _("cannot connect to the store {store}: {error}").format(
                    store=store, error=short_reason(orig)
                )
            )
        raise error from orig


def busy_message(path: str, waited: float) -> str:
    """Who holds the SQLite store at ``path``: the unfinished polls recorded in it, checked for life."""
    holders: list[str] = []
    try:
        con = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=1.0)
        try:
            rows = con.execute(
                "SELECT p.pid, p.host, p.command, p.started_at, b.url FROM poll_processes p "
                "JOIN boards b ON b.id = p.board_id WHERE p.finished_at IS NULL ORDER BY p.id DESC LIMIT 5"
            ).fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        rows = []
    here = socket.gethostname()
    for pid, host, command, started, url in rows:
        alive = ""
        if host == here:
            if int(pid) == os.getpid():
                alive = _(", this very process")
            elif not _alive(int(pid)):
                alive = _(", no longer running (interrupted last time?)")
        when = str(started)[:19]
        cmd = command or "forumbot poll"
        holders.append(
            _("{command} (pid {pid} on {host}, started {when} UTC, {board}{alive})").format(
                command=cmd, pid=pid, host=host, when=when, board=url, alive=alive
            )
        )
    if holders:
        who = _("the forumbot processes writing: {holders}").format(holders=_("; ").join(holders))
    else:
        who = _(
            "the store records no running forumbot poll (another forumbot command or another program "
            "may have it open)"
        )
    return _(
        "the store {path} is busy: gave up after waiting {seconds:g} s for another process. {who}. "
        "Run again once it has finished."
    ).format(path=path, seconds=waited, who=who)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
