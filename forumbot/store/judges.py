"""The web desk's judges and its log of changes, in the store (so a team sharing a PostgreSQL store
shares its accounts, whichever desk they log in to).

Passwords are hashed with Argon2id (argon2-cffi, its default parameters); a hash made with older
parameters is re-hashed at the next good login. A removed judge is disabled, not deleted: the log's
"who" must still name someone who existed.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import SQLModel, col, select

from forumbot.errors import LoginThrottled, StoreError, UsageError
from forumbot.i18n import _
from forumbot.store.db import Store, missing_schema
from forumbot.store.dberrors import short_reason
from forumbot.store.models import (
    DESK_TABLE_NAMES,
    DeskLoginAttemptRow,
    DeskLogRow,
    JudgeAccountRow,
    utcnow,
)

_hasher = PasswordHasher()
_ready: weakref.WeakSet[Engine] = weakref.WeakSet()
MIN_PASSWORD = 8
# The throttle, as Discuz! itself does for its own login (5 failures, then 15 minutes): failures from one
# address within the window lock that address; failures for one name from anywhere lock that name at a
# higher count, so guesses spread over many addresses are slowed too, while a stranger mistyping from
# his own address cannot lock a judge out with the first few tries.
LOGIN_WINDOW = timedelta(minutes=15)
MAX_FAILURES_PER_ADDRESS = 5
MAX_FAILURES_PER_NAME = 10


@dataclass(frozen=True)
class JudgeAccount:
    name: str
    active: bool
    created_at: datetime
    last_login_at: datetime | None


@dataclass(frozen=True)
class DeskLogEntry:
    at: datetime
    who: str
    action: str
    detail: str


def _tables(store: Store) -> Store:
    """Create the desk's tables beside the store's the first time a store is used here (never alters
    or drops anything), as forumbot/gamerecords.py does for the judging tables. A read-only store
    gets none: a write to it says it is read-only (reads use :func:`_readable`)."""
    if store.read_only:
        if not _readable(store):
            raise store.read_only_error()
        return store
    if store.engine not in _ready:
        try:
            tables = [SQLModel.metadata.tables[name] for name in DESK_TABLE_NAMES]
            SQLModel.metadata.create_all(store.engine, tables=tables)
        except SQLAlchemyError as exc:
            raise StoreError(
                _("cannot create the desk's tables in {store}: {error}").format(
                    store=store.safe_url, error=short_reason(exc)
                )
            ) from exc
        _ready.add(store.engine)
    return store


def _readable(store: Store) -> bool:
    """Whether the desk's tables can be read: always on a writable store (made when first used), on a
    read-only one when a writable open made them (else there is no judge and no log to read)."""
    if not store.read_only or store.engine in _ready:
        return True
    tables = [SQLModel.metadata.tables[name] for name in DESK_TABLE_NAMES]
    if missing_schema(store.engine, tables):
        return False
    _ready.add(store.engine)
    return True


def _account(r: JudgeAccountRow) -> JudgeAccount:
    return JudgeAccount(r.name, r.active, r.created_at, r.last_login_at)


def add_judge(store: Store, name: str, password: str, *, replace: bool = False) -> JudgeAccount:
    """Add a judge (or, with ``replace``, set a new password for one, re-enabling a removed judge)."""
    name = name.strip()
    if not name:
        raise UsageError(_("a judge needs a name"))
    if len(password) < MIN_PASSWORD:
        raise UsageError(
            _("the password is too short: use at least {count} characters").format(count=MIN_PASSWORD)
        )
    with _tables(store).session() as s:
        row = s.exec(select(JudgeAccountRow).where(JudgeAccountRow.name == name)).first()
        if row is not None and row.active and not replace:
            raise UsageError(
                _("judge {name!r} exists already; pass --reset to give a new password").format(name=name)
            )
        if row is None:
            row = JudgeAccountRow(name=name, password_hash=_hasher.hash(password))
        else:
            row.password_hash = _hasher.hash(password)
            row.active = True
        s.add(row)
        s.commit()
        s.refresh(row)
        return _account(row)


def list_judges(store: Store, *, include_removed: bool = False) -> list[JudgeAccount]:
    if not _readable(store):
        return []
    with _tables(store).session() as s:
        q = select(JudgeAccountRow).order_by(col(JudgeAccountRow.name))
        rows = s.exec(q).all()
    return [_account(r) for r in rows if include_removed or r.active]


def remove_judge(store: Store, name: str) -> None:
    """Disable a judge's login (the row stays, so the log keeps naming him)."""
    with _tables(store).session() as s:
        row = s.exec(select(JudgeAccountRow).where(JudgeAccountRow.name == name)).first()
        if row is None or not row.active:
            raise UsageError(_("no judge named {name!r} (see `forumbot judges list`)").format(name=name))
        row.active = False
        s.add(row)
        s.commit()


def login_locked_until(
    store: Store, name: str, address: str = "", *, now: datetime | None = None
) -> datetime | None:
    """Until when (UTC) a login of ``name`` from ``address`` is refused unchecked, or None. A good login
    clears nothing: the window simply runs out, so a guesser cannot reset it with a second account."""
    now = now or utcnow()
    since = now - LOGIN_WINDOW
    until: datetime | None = None
    with _tables(store).session() as s:
        for column, value, limit in (
            (DeskLoginAttemptRow.address, address, MAX_FAILURES_PER_ADDRESS),
            (DeskLoginAttemptRow.name, name, MAX_FAILURES_PER_NAME),
        ):
            if not value:
                continue
            times = s.exec(
                select(DeskLoginAttemptRow.at)
                .where(column == value, DeskLoginAttemptRow.ok == False, DeskLoginAttemptRow.at > since)  # noqa: E712
                .order_by(col(DeskLoginAttemptRow.at).desc())
                .limit(limit)
            ).all()
            if len(times) >= limit:
                end = times[0] + LOGIN_WINDOW
                until = end if until is None or end > until else until
    return until


def _record_attempt(store: Store, name: str, address: str, ok: bool, now: datetime) -> None:
    with _tables(store).session() as s:
        s.add(DeskLoginAttemptRow(at=now, name=name[:100], address=address[:64], ok=ok))
        s.commit()


def verify_login(
    store: Store,
    name: str,
    password: str,
    *,
    address: str = "",
    now: datetime | None = None,
    zone: tzinfo = UTC,
) -> JudgeAccount | None:
    """The judge when the password is right, else None (a wrong name costs the same time as a wrong
    password: a dummy hash is checked, so a stranger cannot learn which names exist).

    Raises :class:`LoginThrottled` without checking the password when the address or the name has
    failed too often lately (every attempt is recorded, in the store, so all desks of a team count
    together); ``zone`` is the board's, for the time the message names. On a read-only store the
    login is checked and not recorded."""
    now = now or utcnow()
    if not _readable(store):
        with contextlib.suppress(VerificationError, InvalidHashError):
            _hasher.verify(_DUMMY, password)
        return None
    until = login_locked_until(store, name, address, now=now)
    if until is not None:
        shown = until.astimezone(zone).strftime("%Y-%m-%d %H:%M")
        raise LoginThrottled(_("too many failed logins: try again after {time}").format(time=shown))
    account = _check_password(store, name, password)
    if not store.read_only:
        _record_attempt(store, name, address, account is not None, now)
    return account


def _check_password(store: Store, name: str, password: str) -> JudgeAccount | None:
    with _tables(store).session() as s:
        row = s.exec(select(JudgeAccountRow).where(JudgeAccountRow.name == name)).first()
        if row is None or not row.active:
            with contextlib.suppress(VerificationError, InvalidHashError):
                _hasher.verify(_DUMMY, password)
            return None
        try:
            _hasher.verify(row.password_hash, password)
        except (VerificationError, InvalidHashError):
            return None
        if store.read_only:
            return _account(row)
        if _hasher.check_needs_rehash(row.password_hash):
            row.password_hash = _hasher.hash(password)
        row.last_login_at = utcnow()
        s.add(row)
        s.commit()
        s.refresh(row)
        return _account(row)


def is_active(store: Store, name: str) -> bool:
    """Whether ``name`` may still use the desk (a session cookie outlives a removal otherwise)."""
    if not _readable(store):
        return False
    with _tables(store).session() as s:
        row = s.exec(select(JudgeAccountRow).where(JudgeAccountRow.name == name)).first()
        return row is not None and row.active


def log_change(store: Store, who: str, action: str, detail: str) -> None:
    with _tables(store).session() as s:
        s.add(DeskLogRow(who=who, action=action, detail=detail))
        s.commit()


def desk_log(store: Store, *, limit: int = 200) -> list[DeskLogEntry]:
    if not _readable(store):
        return []
    with _tables(store).session() as s:
        rows = s.exec(select(DeskLogRow).order_by(col(DeskLogRow.id).desc()).limit(limit)).all()
    return [DeskLogEntry(r.at, r.who, r.action, r.detail) for r in rows]


_DUMMY = _hasher.hash("not a real password, only for timing")
