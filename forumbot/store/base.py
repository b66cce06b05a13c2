"""What every part of the store shares: one unit of work per write (committed whole or not at all), the
board a row belongs to (by its root URL), and the rule that times are aware UTC."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from forumbot.board import BoardConfig
from forumbot.errors import StoreError
from forumbot.i18n import _
from forumbot.store.db import Store
from forumbot.store.dberrors import short_reason
from forumbot.store.models import BoardRow, ThreadRow

BoardLike = BoardConfig | str


def _key(board: BoardLike) -> str:
    if isinstance(board, BoardConfig):
        return board.key
    return board if board.endswith("/") else board + "/"


def _board_id(s: Session, board: BoardLike, *, create: bool = True) -> int | None:
    key = _key(board)
    row = s.exec(select(BoardRow).where(BoardRow.url == key)).first()
    if row is None:
        if not create:
            return None
        row = BoardRow(url=key)
        s.add(row)
        s.flush()
    assert row.id is not None
    return row.id


@contextmanager
def _unit(store: Store, what: str) -> Iterator[Session]:
    """One unit of work: a session committed at the end, rolled back (nothing written) on any error.
    ``what`` names what was being stored, in the judge's language (``_("the board")``)."""
    with store.session() as s:
        try:
            yield s
            s.commit()
        except SQLAlchemyError as exc:
            s.rollback()
            raise StoreError(
                _("cannot store {what}: {error}").format(what=what, error=short_reason(exc))
            ) from exc


def _aware(*values: datetime | None) -> None:
    for v in values:
        if v is not None and (v.tzinfo is None or v.utcoffset() is None):
            raise ValueError(f"the store takes aware datetimes only (got naive {v!r}); use UTC")


def ensure_board(store: Store, board: BoardLike, *, name: str = "") -> int:
    """The board's id, creating its row on first use."""
    with _unit(store, _("the board")) as s:
        bid = _board_id(s, board)
        assert bid is not None
        if name:
            row = s.get(BoardRow, bid)
            if row is not None and row.name != name:
                row.name = name
        return bid


def _thread_row(s: Session, board_id: int, tid: int, at: datetime) -> ThreadRow:
    row = s.exec(select(ThreadRow).where(ThreadRow.board_id == board_id, ThreadRow.tid == tid)).first()
    if row is None:
        row = ThreadRow(board_id=board_id, tid=tid, first_seen_at=at)
        s.add(row)
        s.flush()
    return row


def boards(store: Store) -> list[str]:
    """The root URLs of the boards in the store."""
    with store.session() as s:
        return [b.url for b in s.exec(select(BoardRow).order_by(col(BoardRow.id)))]
