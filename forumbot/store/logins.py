"""Failed logins, remembered across processes so that no poll locks the judge's IP out.

Why: Discuz! locks an IP after 5 failed logins in 15 minutes, counted across every request from that
IP. A wrong password in the game file used to cost one failure per ``forumbot poll`` (five polls, five
failures, locked). Now a failure is written here with its time and the board's words, and until
:data:`LOCKOUT` has passed since then no process tries that account again: each gets the recorded
failure instead. The judge's explicit retry (``forumbot login --retry``, ``poll --retry-login``) clears
it and tries once. A successful login clears it too. No password (nor its hash) is ever stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar
from zoneinfo import ZoneInfo

from sqlmodel import col, select

from forumbot.errors import BoardError, LoginFailed
from forumbot.i18n import _
from forumbot.store.base import BoardLike
from forumbot.store.db import Store
from forumbot.store.models import LoginFailureRow
from forumbot.store.reads import DEFAULT_TZ, board_id, board_key, unit


class _Guarded(Protocol):
    """What :func:`guard_client` needs of a board client (the store never imports the client)."""

    login_guard: Any
    config: Any


_C = TypeVar("_C", bound=_Guarded)

LOCKOUT = timedelta(minutes=15)  # Discuz!: 5 failures in 15 minutes lock the IP; we stop after one


@dataclass(frozen=True, slots=True)
class LoginFailure:
    board: str
    username: str
    at: datetime
    kind: str
    url: str
    board_message: str
    detail: str
    cleared_at: datetime | None
    cleared_by: str


def record_login_failure(
    store: Store, board: BoardLike, username: str, error: BoardError, *, at: datetime
) -> None:
    """Write down a login the board refused (its URL, its words, the time)."""
    with unit(store, _("a failed login")) as s:
        bid = board_id(s, board)
        assert bid is not None
        s.add(
            LoginFailureRow(
                board_id=bid,
                username=username,
                at=at,
                kind=type(error).__name__,
                url=error.url,
                board_message=error.board_message,
                detail=error.detail,
            )
        )


def clear_login_failures(store: Store, board: BoardLike, username: str, *, at: datetime, by: str) -> int:
    """Mark the account's open failures as cleared (a success, or the judge's retry). Returns how many."""
    with unit(store, _("cleared login failures")) as s:
        bid = board_id(s, board, create=False)
        if bid is None:
            return 0
        rows = s.exec(
            select(LoginFailureRow).where(
                LoginFailureRow.board_id == bid,
                LoginFailureRow.username == username,
                col(LoginFailureRow.cleared_at).is_(None),
            )
        ).all()
        for row in rows:
            row.cleared_at = at
            row.cleared_by = by
        return len(rows)


def login_failures(store: Store, board: BoardLike, username: str | None = None) -> list[LoginFailure]:
    """Every recorded failure of the board (or of one account), oldest first."""
    with store.session() as s:
        bid = board_id(s, board, create=False)
        if bid is None:
            return []
        q = select(LoginFailureRow).where(LoginFailureRow.board_id == bid)
        if username is not None:
            q = q.where(LoginFailureRow.username == username)
        key = board_key(board)
        return [
            LoginFailure(
                key, r.username, r.at, r.kind, r.url, r.board_message, r.detail, r.cleared_at, r.cleared_by
            )
            for r in s.exec(q.order_by(col(LoginFailureRow.id)))
        ]


def blocking_failure(
    store: Store, board: BoardLike, username: str, *, at: datetime, window: timedelta = LOCKOUT
) -> LoginFailure | None:
    """The latest uncleared failure of the account less than ``window`` before ``at`` (None: may try).

    A captcha recorded by an older forumbot is no failure (Discuz! counted none): it blocks nothing.
    """
    open_ = [
        f
        for f in login_failures(store, board, username)
        if f.cleared_at is None and f.kind != "CaptchaRequired"
    ]
    if not open_:
        return None
    last = open_[-1]
    return last if at < last.at + window else None


class StoreLoginGuard:
    """The client's :class:`~forumbot.client.LoginGuard` backed by the store.

    ``retry=True`` (the judge's explicit retry) lets ONE attempt through whatever was recorded; a
    failure of that attempt is recorded like any other, and blocks again.
    """

    def __init__(
        self,
        store: Store,
        board: BoardLike | None = None,
        *,
        retry: bool = False,
        window: timedelta = LOCKOUT,
        tz: ZoneInfo = DEFAULT_TZ,
    ) -> None:
        self.store = store
        self.board = board
        self.retry = retry
        self.window = window
        self.tz = tz

    def check(self, board: str, username: str, *, at: datetime, retry: bool = False) -> None:
        key = self.board if self.board is not None else board
        if retry or self.retry:
            self.retry = False
            clear_login_failures(self.store, key, username, at=at, by="explicit retry")
            return
        prev = blocking_failure(self.store, key, username, at=at, window=self.window)
        if prev is None:
            return
        until = (prev.at + self.window).astimezone(self.tz).strftime("%H:%M")
        when = prev.at.astimezone(self.tz).strftime("%Y-%m-%d %H:%M:%S")
        detail = _(
            "login failed at {when}, not tried again before {until} (Discuz! locks the IP for 15 minutes "
            "after 5 failures). After fixing the password run `forumbot login --retry` "
            "(or `forumbot poll --retry-login`)"
        ).format(when=when, until=until)
        raise LoginFailed(prev.url or board, prev.board_message, detail)

    def failed(self, board: str, username: str, error: BoardError, *, at: datetime) -> None:
        key = self.board if self.board is not None else board
        record_login_failure(self.store, key, username, error, at=at)

    def succeeded(self, board: str, username: str, *, at: datetime) -> None:
        clear_login_failures(
            self.store, self.board if self.board is not None else board, username, at=at, by="login succeeded"
        )


def guard_client(client: _C, store: Store, board: BoardLike | None = None) -> _C:
    """Give ``client`` the store's login guard unless it has one; returns the client.

    Why one helper: every process that may log in (poll, tick, run, outbox send, the web desk's
    actions) must consult and feed the same record of failed logins, or a wrong password costs one
    failure per run and four runs lock the judge's IP out. A guard already set (poll's own, a test's)
    is kept. ``board`` defaults to the client's board.
    """
    if client.login_guard is None:
        client.login_guard = StoreLoginGuard(
            store, board if board is not None else client.config, tz=client.config.tz
        )
    return client
