"""Issue 22: the store on a broken disk. A store the database will not let us write is found
read-only when it is opened and read without a single write; a write to it, a full disk, a damaged
file or any other database error reaches the judge as forumbot's own error, in Chinese, naming the
store, and never with SQL or its parameters.

Tests run as root, so a file mode does not stop a write: read-only is made by the database itself
(SQLite's ``mode=ro`` URI or ``query_only``; PostgreSQL's ``default_transaction_read_only`` or a role
that may only SELECT), a full disk by SQLite's ``max_page_count``.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine

from forumbot.errors import StoreError, StoreFull, StoreReadOnly
from forumbot.i18n import set_language
from forumbot.store import Store, open_store
from forumbot.store.base import boards, ensure_board
from forumbot.store.dberrors import short_reason, store_error
from forumbot.store.health import check_consistency, table_counts
from forumbot.store.posts import record_thread_page, thread_posts
from tests.conftest import _postgres_url
from tests.store.helpers import BOARD, T0, page, post

LEAKS = ("SQL", "INSERT", "SELECT", "parameters", "sqlite3.", "psycopg.")


@pytest.fixture(autouse=True)
def chinese() -> Iterator[None]:
    """The judge reads these messages in Chinese (the default language)."""
    set_language("zh_CN")
    yield
    set_language("zh_CN")


def said_cleanly(exc: BaseException) -> str:
    message = str(exc)
    for leak in LEAKS:
        assert leak not in message, message
    return message


# --------------------------------------------------------------------------- read-only, each backend


def sqlite_ro_url(path: Path) -> str:
    return f"sqlite:///file:{quote(str(path))}?mode=ro&uri=true"


@pytest.fixture(params=["sqlite-mode-ro", "sqlite-query-only", "pg-read-only", "pg-select-role"])
def read_only(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Store, Callable[[], Store]]]:
    """(the writable store holding one page, a factory opening the same store read-only)."""
    opened: list[Store] = []
    cleanup: list[Callable[[], None]] = []
    if request.param.startswith("sqlite"):
        path = tmp_path / "forumbot.db"
        writable = open_store(path)

        def reopen() -> Store:
            if request.param == "sqlite-mode-ro":
                st = open_store(sqlite_ro_url(path), create=False)
            else:
                st = open_store(path, create=False, read_only=True)  # PRAGMA query_only
            opened.append(st)
            return st

    else:
        server = _postgres_url()
        schema = f"fbtest_{uuid.uuid4().hex[:12]}"
        admin = create_engine(server)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        writable = open_store(server, connect_args={"options": f"-csearch_path={schema}"})
        role = f"fbreader_{uuid.uuid4().hex[:8]}"

        def drop() -> None:
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
                if request.param == "pg-select-role":
                    conn.execute(text(f'DROP OWNED BY "{role}"'))
                    conn.execute(text(f'DROP ROLE IF EXISTS "{role}"'))
            admin.dispose()

        cleanup.append(drop)

        def reopen() -> Store:
            if request.param == "pg-read-only":
                options = f"-csearch_path={schema} -cdefault_transaction_read_only=on"
            else:  # a role that may read every table and write none
                with admin.begin() as conn:
                    conn.execute(text(f'CREATE ROLE "{role}" NOLOGIN'))
                    conn.execute(text(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"'))
                    conn.execute(text(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"'))
                options = f"-csearch_path={schema} -crole={role}"
            st = open_store(server, create=False, connect_args={"options": options})
            opened.append(st)
            return st

    record_thread_page(writable, BOARD, page([post(1), post(2)]), seen_at=T0)
    try:
        yield writable, reopen
    finally:
        for st in opened:
            st.close()
        writable.close()
        for done in cleanup:
            done()


def statements(engine: Engine) -> list[str]:
    """Every statement the engine sends from now on (to check that a read writes nothing)."""
    sent: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(statement.strip().split(None, 1)[0].upper())

    return sent


WRITES = {"INSERT", "UPDATE", "DELETE", "CREATE", "ALTER", "DROP"}


def test_a_read_only_store_is_found_so_and_read_without_a_write(
    read_only: tuple[Store, Callable[[], Store]],
) -> None:
    writable, reopen = read_only
    assert not writable.read_only
    store = reopen()
    assert store.read_only
    sent = statements(store.engine)
    assert [p.pid for p in thread_posts(store, BOARD, 3)] == [1, 2]
    assert boards(store) == [BOARD]
    assert check_consistency(store) == [] and table_counts(store)["posts"] == 2
    store.create_tables()  # the tables are there: nothing to do, nothing written
    assert sent and not WRITES & set(sent)


def test_a_write_to_a_read_only_store_says_so_and_names_it(
    read_only: tuple[Store, Callable[[], Store]],
) -> None:
    writable, reopen = read_only
    store = reopen()
    with pytest.raises(StoreReadOnly) as refused:
        record_thread_page(store, BOARD, page([post(1), post(2), post(3)]), seen_at=T0)
    message = said_cleanly(refused.value)
    assert "只读" in message and store.label in message
    with pytest.raises(StoreReadOnly):
        ensure_board(store, "https://other.example/")
    assert [p.pid for p in thread_posts(writable, BOARD, 3)] == [1, 2]  # nothing written


def test_a_read_only_store_made_by_an_older_forumbot_names_what_it_lacks(
    read_only: tuple[Store, Callable[[], Store]],
) -> None:
    writable, reopen = read_only
    with writable.engine.begin() as conn:
        conn.execute(text("DROP TABLE day_results"))
    with pytest.raises(StoreReadOnly, match="day_results") as refused:
        reopen()
    said_cleanly(refused.value)


def test_a_writable_store_is_not_taken_for_read_only(store: Store) -> None:
    assert not store.read_only
    ensure_board(store, BOARD)
    assert boards(store) == [BOARD]


def test_a_read_only_store_that_does_not_exist_yet_cannot_be_made(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as refused:
        open_store(sqlite_ro_url(tmp_path / "none.db"))
    said_cleanly(refused.value)


# --------------------------------------------------------------------------- a full disk


def test_a_full_disk_says_so_and_nothing_of_the_page_is_written(tmp_path: Path) -> None:
    path = tmp_path / "full.db"
    store = open_store(path)
    record_thread_page(store, BOARD, page([post(1)]), seen_at=T0)

    @event.listens_for(store.engine, "connect")
    def _no_room(dbapi_connection: Any, _record: Any) -> None:
        pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
        dbapi_connection.execute(f"PRAGMA max_page_count={pages}")  # the file may not grow

    store.engine.dispose()  # new connections, each with its limit
    big = [post(n, "投票：饺子 " + "长" * 4000) for n in range(2, 40)]
    with pytest.raises(StoreFull) as full:
        record_thread_page(store, BOARD, page([post(1), *big]), seen_at=T0)
    message = said_cleanly(full.value)
    assert "磁盘已满" in message and str(path) in message
    assert [p.pid for p in thread_posts(store, BOARD, 3)] == [1]
    assert check_consistency(store) == []
    store.close()


# --------------------------------------------------------------------------- broken files, other errors


def test_a_file_that_is_no_database_says_the_store_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not an SQLite file, only bytes " * 200)
    with pytest.raises(StoreError) as refused:
        open_store(path)
    message = said_cleanly(refused.value)
    assert "已损坏" in message and str(path) in message


def test_a_store_where_a_folder_cannot_be_made_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError) as refused:
        open_store(blocker / "forumbot.db")
    message = said_cleanly(refused.value)
    assert "无法创建" in message and "forumbot.db" in message


def test_a_folder_given_as_the_store_cannot_be_opened(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as refused:
        open_store(tmp_path)
    message = said_cleanly(refused.value)
    assert "无法打开" in message and str(tmp_path) in message


def test_any_other_database_error_keeps_its_reason_but_never_its_statement(store: Store) -> None:
    with pytest.raises(StoreError) as refused, store.engine.connect() as conn:
        conn.execute(text("SELECT secret FROM no_such_table WHERE password = :p"), {"p": "hunter2"})
    message = said_cleanly(refused.value)
    assert "no_such_table" in message and "hunter2" not in message and "数据库" in message


# --------------------------------------------------------------------------- each driver's codes


def sqlite_error(code: int, message: str) -> sqlite3.Error:
    exc = sqlite3.OperationalError(message)
    exc.sqlite_errorcode = code  # type: ignore[attr-defined]
    return exc


class PgError(Exception):
    """As psycopg's errors carry it: the SQLSTATE."""

    def __init__(self, sqlstate: str, message: str) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


@pytest.mark.parametrize(
    ("exc", "kind", "words"),
    [
        (sqlite_error(13, "database or disk is full"), StoreFull, "磁盘已满"),
        (sqlite_error(8, "attempt to write a readonly database"), StoreReadOnly, "只读"),
        (sqlite_error(8 | (6 << 8), "attempt to write a readonly database"), StoreReadOnly, "只读"),
        (sqlite_error(10 | (3 << 8), "disk I/O error"), StoreError, "磁盘 I/O 错误"),
        (sqlite_error(11, "database disk image is malformed"), StoreError, "已损坏"),
        (PgError("53100", "could not extend file: No space left on device"), StoreFull, "磁盘已满"),
        (PgError("25006", "cannot execute INSERT in a read-only transaction"), StoreReadOnly, "只读"),
        (PgError("42501", "permission denied for table posts"), StoreReadOnly, "没有写权限"),
        (PgError("58030", "could not write to file"), StoreError, "磁盘 I/O 错误"),
        (PgError("53300", "too many connections"), StoreError, "资源不足"),
        (PgError("57P01", "terminating connection due to administrator command"), StoreError, "连接中断"),
    ],
)
def test_each_drivers_code_says_what_broke(exc: Exception, kind: type[StoreError], words: str) -> None:
    said = store_error(exc, "/srv/game/forumbot.db")
    assert type(said) is kind
    message = said_cleanly(said)
    assert words in message and "/srv/game/forumbot.db" in message


class Room:
    """What ``os.statvfs`` says of a file system: its free blocks and flags."""

    def __init__(self, free_bytes: int, flag: int = 0) -> None:
        self.f_bavail, self.f_frsize, self.f_flag = free_bytes // 4096, 4096, flag


def test_a_disk_io_error_on_a_disk_without_room_is_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite may say «disk I/O error» when the WAL cannot grow on a full disk (the issue's case)."""
    path = str(tmp_path / "forumbot.db")
    io_error = sqlite_error(10 | (3 << 8), "disk I/O error")
    monkeypatch.setattr("forumbot.store.dberrors.os.statvfs", lambda _p: Room(0))
    assert type(store_error(io_error, path, path)) is StoreFull
    monkeypatch.setattr("forumbot.store.dberrors.os.statvfs", lambda _p: Room(10 << 30))
    assert type(store_error(io_error, path, path)) is StoreError  # room enough: the disk failed


def test_a_read_only_mount_is_named_as_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """EROFS: SQLite opens the file read-only without a word; the first write says SQLITE_READONLY."""
    import os

    path = str(tmp_path / "forumbot.db")
    monkeypatch.setattr("forumbot.store.dberrors.os.statvfs", lambda _p: Room(10 << 30, os.ST_RDONLY))
    said = store_error(sqlite_error(8, "attempt to write a readonly database"), path, path)
    assert type(said) is StoreReadOnly and "只读方式挂载" in str(said) and path in str(said)


def test_the_drivers_reason_is_one_line_without_its_detail() -> None:
    exc = PgError(
        "23505", 'duplicate key value violates unique constraint "posts_pid"\nDETAIL:  Key (pid)=(7)'
    )
    assert short_reason(exc) == 'duplicate key value violates unique constraint "posts_pid"'
