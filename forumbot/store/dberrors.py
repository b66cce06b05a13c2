"""What the database said, in the judge's words: the store's boundary for errors (issue 22).

Why a module of its own: SQLAlchemy's exceptions print the statement and its parameters (``[SQL:
INSERT INTO games ...] [parameters: ...]``), which a judge cannot act on and which may carry a post's
text or a password hash. Every database error that leaves the store goes through :func:`store_error`:
the disk being full, the store being read-only, the disk or the server failing become
:class:`~forumbot.errors.StoreFull`, :class:`~forumbot.errors.StoreReadOnly` or a
:class:`~forumbot.errors.StoreError` that says so in Chinese and names the store; anything else keeps
the driver's one-line reason (never the statement). The whole error, statement included, goes to the
``forumbot.store`` log for whoever debugs.

How each backend says it: SQLite by its result code (``sqlite3.Error.sqlite_errorcode``: 8 READONLY,
13 FULL, 10 IOERR, 14 CANTOPEN, 3 PERM, 11 CORRUPT, 26 NOTADB), PostgreSQL by its SQLSTATE (25006
read-only transaction, 42501 no privilege, 53100 disk full, class 53 out of resources, class 58 and
XX001 the disk or data failing, classes 08 and 57 the server gone).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from forumbot.errors import StoreError, StoreFull, StoreReadOnly
from forumbot.i18n import _

log = logging.getLogger("forumbot.store")

# SQLite's primary result codes (https://sqlite.org/rescode.html).
SQLITE_PERM = 3
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26

# PostgreSQL's SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html).
PG_READ_ONLY_TRANSACTION = "25006"
PG_INSUFFICIENT_PRIVILEGE = "42501"
PG_DISK_FULL = "53100"

# Less free space than this (bytes) on the store's file system: a disk I/O error is a full disk.
FULL_BELOW = 1 << 20


def driver_error(exc: BaseException) -> BaseException:
    """The DBAPI driver's own exception inside a SQLAlchemy one (``exc.orig``), else ``exc``."""
    orig = getattr(exc, "orig", None)
    return orig if isinstance(orig, BaseException) else exc


def short_reason(exc: BaseException) -> str:
    """The driver's reason in one line, without the statement or its parameters.

    SQLite's message is one line («UNIQUE constraint failed: posts.pid»); psycopg's first line is its
    primary message, the DETAIL lines after it may quote the row's values and are left out."""
    text = str(driver_error(exc)).strip()
    line = text.splitlines()[0].strip() if text else ""
    cut = line.find("[SQL:")  # a SQLAlchemy error without a driver error keeps its statement here
    if cut >= 0:
        line = line[:cut].strip()
    return line or type(exc).__name__


def sqlite_code(exc: BaseException) -> int | None:
    """SQLite's primary result code of ``exc`` (None for another driver)."""
    code = getattr(driver_error(exc), "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def pg_sqlstate(exc: BaseException) -> str | None:
    """PostgreSQL's SQLSTATE of ``exc`` (None for another driver)."""
    state = getattr(driver_error(exc), "sqlstate", None)
    return state if isinstance(state, str) else None


def is_read_only(exc: BaseException) -> bool:
    """Whether the database refused ``exc``'s statement because the store may not be written."""
    return sqlite_code(exc) == SQLITE_READONLY or pg_sqlstate(exc) in (
        PG_READ_ONLY_TRANSACTION,
        PG_INSUFFICIENT_PRIVILEGE,
    )


def why_read_only(path: str | None) -> str:
    """What makes the SQLite file at ``path`` read-only, as far as the file system tells (Chinese)."""
    if not path:
        return ""
    folder = Path(path).parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return _("the file system holding it is mounted read-only")
    except OSError:
        pass
    if Path(path).exists() and not os.access(path, os.W_OK):
        return _("this user may not write the file")
    if not os.access(folder, os.W_OK):
        return _("this user may not write its folder (SQLite writes its journal beside it)")
    return ""


def disk_full(path: str | None) -> bool:
    """Whether the file system holding the SQLite file at ``path`` has no room left: a write that
    fails for want of space may come back as SQLite's «disk I/O error» (the WAL or journal could not
    grow) rather than SQLITE_FULL, and the judge must hear that the disk is full."""
    if not path:
        return False
    try:
        room = os.statvfs(Path(path).parent)
    except OSError:
        return False
    return room.f_bavail * room.f_frsize < FULL_BELOW


def read_only_error(store: str, path: str | None = None, *, reason: str = "") -> StoreReadOnly:
    """The store is read-only: say it, name it, and say what to do."""
    why = reason or why_read_only(path)
    return StoreReadOnly(
        _(
            "the store {store} is read-only{why}: this command must write to it. Reading commands "
            "(tally, attendance, posts, state, status, night messages, outbox) still work; to write, "
            "make it writable (the file's permissions, the mount, mode=ro in the URL, or the database "
            "role) and run the command again. Nothing was written."
        ).format(store=store, why=_(" ({why})").format(why=why) if why else "")
    )


def store_error(exc: BaseException, store: str, path: str | None = None) -> StoreError:
    """``exc`` (a database error) as the StoreError a judge reads, naming ``store`` (its safe URL;
    ``path``: the SQLite file, to say what makes it read-only). Logs the whole error."""
    log.info("database error in the store %s", store, exc_info=exc)
    code, state = sqlite_code(exc), pg_sqlstate(exc)
    if is_read_only(exc):
        why = _("the database role may not write") if state == PG_INSUFFICIENT_PRIVILEGE else ""
        return read_only_error(store, path, reason=why)
    if code == SQLITE_FULL or state == PG_DISK_FULL or (code == SQLITE_IOERR and disk_full(path)):
        return StoreFull(
            _(
                "the disk holding the store {store} is full (or the database reached its size limit): "
                "nothing of this step was written. Free some space and run the command again."
            ).format(store=store)
        )
    if state is not None and state.startswith("53"):
        return StoreError(
            _(
                "the database server of the store {store} ran out of resources ({reason}): nothing of "
                "this step was written. Try again later, or ask whoever runs the server."
            ).format(store=store, reason=short_reason(exc))
        )
    if code == SQLITE_IOERR or (state is not None and (state.startswith("58") or state == "XX001")):
        return StoreError(
            _(
                "a disk I/O error while using the store {store}: the disk or its file system failed. "
                "Check the disk (and its free space), then run the command again."
            ).format(store=store)
        )
    if code in (SQLITE_CANTOPEN, SQLITE_PERM):
        why = why_read_only(path)
        return StoreError(
            _(
                "cannot open the store file {store}{why}: check that its folder exists and that this "
                "user may read and write there."
            ).format(store=store, why=_(" ({why})").format(why=why) if why else "")
        )
    if code in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return StoreError(
            _(
                "the store {store} is damaged or is not a forumbot store ({reason}): restore it from a "
                "backup, or pass another --store."
            ).format(store=store, reason=short_reason(exc))
        )
    if state is not None and (state.startswith("08") or state.startswith("57")):
        return StoreError(
            _(
                "lost the connection to the store {store} ({reason}): check that the database server "
                "is running and reachable, then run the command again."
            ).format(store=store, reason=short_reason(exc))
        )
    return StoreError(
        _("the store {store} answered with a database error: {reason}").format(
            store=store, reason=short_reason(exc)
        )
    )
