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
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Table, event, inspect
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine

from forumbot.errors import StoreBusy, StoreError
from forumbot.i18n import _
from forumbot.store import models
from forumbot.store.values import DEFAULT_STORE as DEFAULT_STORE  # re-exported: its old home
from forumbot.store.values import store_url as store_url

BUSY_TIMEOUT = 30.0  # seconds a writer waits for another process before giving up


@dataclass
class Store:
    """An open store. Pass it to the functions of the store's modules; close it when done."""

    engine: Engine
    url: str

    def session(self) -> Session:
        """A session for one unit of work (``with store.session() as s: ... s.commit()``)."""
        return Session(self.engine, expire_on_commit=False)

    def create_tables(self) -> None:
        """Create missing tables, and add the columns a newer forumbot defines to a store made by an older
        one (never alters, drops or rewrites what is there: an old store keeps every post it holds)."""
        try:
            names = models.TABLE_NAMES + models.GAME_TABLE_NAMES
            tables = [SQLModel.metadata.tables[name] for name in names]
            SQLModel.metadata.create_all(self.engine, tables=tables)
            add_missing_columns(self.engine, tables)
        except SQLAlchemyError as exc:
            raise StoreError(
                _("cannot create the store's tables in {store}: {error}").format(
                    store=self.safe_url, error=exc
                )
            ) from exc

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


def open_store(
    url_or_path: str | Path | None = None,
    *,
    create: bool = True,
    echo: bool = False,
    connect_args: dict[str, Any] | None = None,
    busy_timeout: float = BUSY_TIMEOUT,
) -> Store:
    """Open (and by default create) the store at ``url_or_path``.

    ``busy_timeout``: seconds an SQLite writer waits for another process before StoreBusy.
    Raises StoreError when the URL is malformed, the driver is missing (naming the ``[postgres]``
    extra for PostgreSQL), the database is unreachable, or (``create=False``) it holds no store yet.
    """
    url = store_url(url_or_path)
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StoreError(_("not a database URL or path: {value!r}").format(value=url_or_path)) from exc
    args: dict[str, Any] = dict(connect_args or {})
    kwargs: dict[str, Any] = {"echo": echo}
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite:
        args.setdefault("check_same_thread", False)
        if parsed.database in (None, "", ":memory:"):
            kwargs["poolclass"] = StaticPool
        elif not create and not Path(parsed.database).exists():
            raise StoreError(
                _("no store at {path}: run `forumbot poll` first, or pass --store").format(
                    path=parsed.database
                )
            )
        else:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    else:
        kwargs["pool_pre_ping"] = True
    try:
        engine = create_engine(url, connect_args=args, **kwargs)
    except ImportError as exc:
        safe = parsed.render_as_string(hide_password=True)
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
            _("cannot open the store {store}: {error}").format(
                store=parsed.render_as_string(hide_password=True), error=exc
            )
        ) from exc
    if is_sqlite:
        in_memory = parsed.database in (None, "", ":memory:")
        _sqlite_setup(engine, in_memory=in_memory, busy_timeout=busy_timeout)
        if not in_memory:
            _name_the_other_writer(engine, str(parsed.database), busy_timeout)
    store = Store(engine=engine, url=url)
    try:
        with engine.connect():
            pass
    except SQLAlchemyError as exc:
        engine.dispose()
        raise StoreError(
            _("cannot connect to the store {store}: {error}").format(store=store.safe_url, error=exc)
        ) from exc
    if not create and not inspect(engine).has_table("posts"):
        engine.dispose()
        raise StoreError(
            _("{store} holds no forumbot store: run `forumbot poll` first").format(store=store.safe_url)
        )
    store.create_tables()  # an existing store gets the tables added since it was made (never altered)
    return store


def _sqlite_setup(engine: Engine, *, in_memory: bool, busy_timeout: float = BUSY_TIMEOUT) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy emit BEGIN itself (pysqlite's own handling skips it before SELECTs).
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={max(int(busy_timeout * 1000), 0)}")
        if not in_memory:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # IMMEDIATE: take the write lock now, waiting (busy_timeout) for another writer, rather than
        # reading first and failing without a wait when the write comes (WAL's stale snapshot).
        conn.exec_driver_sql("BEGIN" if in_memory else "BEGIN IMMEDIATE")


def _name_the_other_writer(engine: Engine, path: str, busy_timeout: float) -> None:
    """Turn SQLite's «database is locked» (after the busy timeout) into a StoreBusy naming the holder."""

    @event.listens_for(engine, "handle_error")
    def _on_error(ctx: Any) -> None:
        orig = ctx.original_exception
        if isinstance(orig, sqlite3.OperationalError) and ("locked" in str(orig) or "busy" in str(orig)):
            raise StoreBusy(busy_message(path, busy_timeout)) from orig


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
