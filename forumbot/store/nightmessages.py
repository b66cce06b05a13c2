"""The night messages the runner read and the judges' overrides of them (tables ``night_messages`` and
``night_overrides``).

Why a record of the messages: the judge's private messages are read from the board at the night's
deadline and kept nowhere else, yet a judge must be able to list a night's messages later, override one
by its id (``pid:53``, ``pm:9``) and show what it said. Why overrides are rows that are only added to:
like the day's overrides and the state's undos, a judge can always show how a verdict came about; an
undo is a row naming the override it cancels.

Callers get plain dataclasses; the desk turns them into :mod:`forumbot.nightmail`'s values.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from forumbot.store.models import NightMessageRow, NightOverrideRow

__all__ = [
    "NightMessageRecord",
    "NightOverrideRecord",
    "add_night_override",
    "live_night_overrides",
    "night_of_message",
    "night_override_history",
    "record_night_messages",
    "stored_night_messages",
]


def _utc(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


@dataclass(frozen=True)
class NightMessageRecord:
    """One message as read (``group``: the group of a group-thread post, e.g. ``bandits``)."""

    message_id: str
    channel: str
    author: str
    at: datetime
    text: str
    until: datetime | None = None
    group: str | None = None


@dataclass(frozen=True)
class NightOverrideRecord:
    """One row of ``night_overrides``: ``id`` names it for an undo; ``statements`` are JSON dicts."""

    id: int
    night: int
    message_id: str
    verdict: str
    statements: tuple[dict[str, Any], ...]
    actor: str | None
    waive_time: bool
    why: str
    by: str
    at: datetime
    undoes: int | None = None


def _message(r: NightMessageRow) -> NightMessageRecord:
    return NightMessageRecord(
        r.message_id,
        r.channel,
        r.author,
        _utc(r.at),
        r.text,
        _utc(r.until) if r.until is not None else None,
        r.group_name,
    )


def _latest_messages(session: Session, gid: int, night: int | None = None) -> dict[str, NightMessageRow]:
    q = select(NightMessageRow).where(NightMessageRow.game_id == gid)
    if night is not None:
        q = q.where(NightMessageRow.night == night)
    latest: dict[str, NightMessageRow] = {}
    for r in session.exec(q.order_by(col(NightMessageRow.seq), col(NightMessageRow.id))):
        latest[r.message_id] = r
    return latest


def record_night_messages(
    session: Session, gid: int, night: int, messages: Iterable[NightMessageRecord]
) -> int:
    """Keep night ``night``'s messages as read; a message already kept with the same content is not
    written again (a re-read adds nothing), a changed one gets a new row. Returns how many rows were
    added."""
    latest = _latest_messages(session, gid)
    added = 0
    for m in messages:
        old = latest.get(m.message_id)
        if old is not None and _message(old) == m and old.night == night:
            continue
        row = NightMessageRow(
            game_id=gid,
            night=night,
            message_id=m.message_id,
            seq=old.seq + 1 if old is not None else 0,
            channel=m.channel,
            author=m.author,
            group_name=m.group,
            at=m.at,
            until=m.until,
            text=m.text,
        )
        session.add(row)
        latest[m.message_id] = row
        added += 1
    session.flush()
    return added


def stored_night_messages(session: Session, gid: int, night: int) -> list[NightMessageRecord]:
    """Night ``night``'s messages as last read, in time order."""
    rows = _latest_messages(session, gid, night).values()
    return [_message(r) for r in sorted(rows, key=lambda r: (_utc(r.at), r.message_id))]


def night_of_message(session: Session, gid: int, message_id: str) -> int | None:
    """The night a stored message belongs to (None: no such message was read)."""
    row = _latest_messages(session, gid).get(message_id)
    return row.night if row is not None else None


def _override(r: NightOverrideRow) -> NightOverrideRecord:
    return NightOverrideRecord(
        r.id or 0,
        r.night,
        r.message_id,
        r.verdict,
        tuple(json.loads(r.statements_json or "[]")),
        r.actor,
        r.waive_time,
        r.why,
        r.by,
        _utc(r.at),
        r.undoes,
    )


def add_night_override(
    session: Session,
    gid: int,
    night: int,
    message_id: str,
    verdict: str,
    why: str,
    by: str,
    *,
    statements: Sequence[dict[str, Any]] = (),
    actor: str | None = None,
    waive_time: bool = False,
    undoes: int | None = None,
) -> NightOverrideRecord:
    """Add one row (an override, or with ``verdict="undo"`` the cancelling of override ``undoes``)."""
    prev = session.exec(
        select(NightOverrideRow)
        .where(NightOverrideRow.game_id == gid, NightOverrideRow.message_id == message_id)
        .order_by(col(NightOverrideRow.seq).desc())
    ).first()
    row = NightOverrideRow(
        game_id=gid,
        night=night,
        message_id=message_id,
        seq=prev.seq + 1 if prev is not None else 0,
        verdict=verdict,
        statements_json=json.dumps(list(statements), ensure_ascii=False, sort_keys=True),
        actor=actor,
        waive_time=waive_time,
        undoes=undoes,
        why=why,
        by=by,
    )
    session.add(row)
    session.flush()
    return _override(row)


def night_override_history(session: Session, gid: int, night: int | None = None) -> list[NightOverrideRecord]:
    """Every row, oldest first (undos included)."""
    q = select(NightOverrideRow).where(NightOverrideRow.game_id == gid)
    if night is not None:
        q = q.where(NightOverrideRow.night == night)
    return [_override(r) for r in session.exec(q.order_by(col(NightOverrideRow.id)))]


def live_night_overrides(
    session: Session, gid: int, night: int | None = None
) -> dict[str, NightOverrideRecord]:
    """The override that counts for each message: its latest one that no undo cancelled (a message whose
    every override was undone is judged as read)."""
    rows = night_override_history(session, gid, night)
    cancelled = {r.undoes for r in rows if r.verdict == "undo"}
    out: dict[str, NightOverrideRecord] = {}
    for r in rows:
        if r.verdict != "undo" and r.id not in cancelled:
            out[r.message_id] = r
    return out
