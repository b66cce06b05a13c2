"""Opening the store: an SQLite file by default, any SQLAlchemy URL (PostgreSQL via psycopg) otherwise.

Why a separate module (as in SQLModel's tutorial): models say what is stored, this module says where,
and the store's modules (posts, threads, fetchlog, records) do each unit of work inside
``with store.session()``.

SQLite gets foreign keys switched on, a busy timeout (a judge may read while a poll writes), WAL for
files, and real ``BEGIN`` statements so a page's transaction covers its reads too. An in-memory
store (``":memory:"``) keeps one shared connection, so every session sees the same data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine

from forumbot.errors import StoreError
from forumbot.store import models

DEFAULT_STORE = "forumbot.db"


@dataclass
class Store:
    """An open store. Pass it to the functions of the store's modules; close it when done."""

    engine: Engine
    url: str

    def session(self) -> Session:
        """A session for one unit of work (``with store.session() as s: ... s.commit()``)."""
        return Session(self.engine, expire_on_commit=False)

    def create_tables(self) -> None:
        """Create missing tables (never alters or drops existing ones)."""
        try:
            names = models.TABLE_NAMES + models.GAME_TABLE_NAMES
            tables = [SQLModel.metadata.tables[name] for name in names]
            SQLModel.metadata.create_all(self.engine, tables=tables)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot create the store's tables in {self.safe_url}: {exc}") from exc

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


def store_url(url_or_path: str | Path | None) -> str:
    """The SQLAlchemy URL for a URL or an SQLite path (``None``: ./forumbot.db; ``":memory:"``)."""
    if url_or_path is None:
        url_or_path = DEFAULT_STORE
    text = str(url_or_path)
    if text == ":memory:":
        return "sqlite://"
    if "://" not in text:
        return f"sqlite:///{Path(text).expanduser()}"
    # A bare postgresql:// would pick psycopg2, which forumbot does not depend on.
    for bare in ("postgresql://", "postgres://"):
        if text.startswith(bare):
            return "postgresql+psycopg://" + text[len(bare) :]
    return text


def open_store(
    url_or_path: str | Path | None = None,
    *,
    create: bool = True,
    echo: bool = False,
    connect_args: dict[str, Any] | None = None,
) -> Store:
    """Open (and by default create) the store at ``url_or_path``.

    Raises StoreError when the URL is malformed, the driver is missing, the database is unreachable,
    or (``create=False``) it holds no store yet.
    """
    url = store_url(url_or_path)
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StoreError(f"not a database URL or path: {url_or_path!r}") from exc
    args: dict[str, Any] = dict(connect_args or {})
    kwargs: dict[str, Any] = {"echo": echo}
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite:
        args.setdefault("check_same_thread", False)
        if parsed.database in (None, "", ":memory:"):
            kwargs["poolclass"] = StaticPool
        elif not create and not Path(parsed.database).exists():
            raise StoreError(f"no store at {parsed.database}: run `forumbot poll` first, or pass --store")
        else:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    else:
        kwargs["pool_pre_ping"] = True
    try:
        engine = create_engine(url, connect_args=args, **kwargs)
    except (ArgumentError, ImportError, SQLAlchemyError) as exc:
        raise StoreError(
            f"cannot open the store {parsed.render_as_string(hide_password=True)}: {exc}"
        ) from exc
    if is_sqlite:
        _sqlite_setup(engine, in_memory=parsed.database in (None, "", ":memory:"))
    store = Store(engine=engine, url=url)
    try:
        with engine.connect():
            pass
    except SQLAlchemyError as exc:
        engine.dispose()
        raise StoreError(f"cannot connect to the store {store.safe_url}: {exc}") from exc
    if create:
        store.create_tables()
    elif not inspect(engine).has_table("posts"):
        engine.dispose()
        raise StoreError(f"{store.safe_url} holds no forumbot store: run `forumbot poll` first")
    return store


def _sqlite_setup(engine: Engine, *, in_memory: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy emit BEGIN itself (pysqlite's own handling skips it before SELECTs).
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=10000")
        if not in_memory:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN")
