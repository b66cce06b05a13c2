"""The runner's ledger: one row per moment of the plan, recording that it was done, once, with what.

Why a ledger and not memory: the runner may be killed at any instant (``kill -9``, a reboot, cron's next
tick in a fresh process). A moment's row goes ``pending → running → done``; ``running`` is committed
*before* the moment's work starts, so a row found ``running`` by a later tick is a moment whose process
died: it is run again, and every step is written so that running it again finds its own earlier effects
in the store (a resolved night, a called revote, an outbox item with the same key) and does not repeat
them. ``delayed`` is a moment whose inputs could not be had (the board was down, a read was incomplete):
it keeps its reason and is tried again on the next tick. Rows are never deleted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlmodel import Session, col, select

from forumbot.store.models import MomentRow


def _now() -> datetime:
    return datetime.now(UTC)


class MomentStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"  # claimed; if found so by a later tick, the process running it died
    DELAYED = "delayed"  # could not be done yet (board down, incomplete read): tried again
    WAITING = "waiting"  # waits for a judge (e.g. the state was not set up): tried again
    DONE = "done"


@dataclass(frozen=True)
class MomentRecord:
    key: str
    kind: str
    round: int
    due_at: datetime
    deadline: datetime
    status: MomentStatus
    attempts: int
    started_at: datetime | None
    finished_at: datetime | None
    note: str
    result: dict[str, Any]


def _record(r: MomentRow) -> MomentRecord:
    return MomentRecord(
        key=r.key,
        kind=r.kind,
        round=r.round,
        due_at=r.due_at,
        deadline=r.deadline,
        status=MomentStatus(r.status),
        attempts=r.attempts,
        started_at=r.started_at,
        finished_at=r.finished_at,
        note=r.note,
        result=json.loads(r.result_json or "{}"),
    )


def _row(s: Session, game_id: int, key: str) -> MomentRow | None:
    return s.exec(select(MomentRow).where(MomentRow.game_id == game_id, MomentRow.key == key)).first()


def records(s: Session, game_id: int) -> dict[str, MomentRecord]:
    rows = s.exec(select(MomentRow).where(MomentRow.game_id == game_id).order_by(col(MomentRow.id))).all()
    return {r.key: _record(r) for r in rows}


def ensure(
    s: Session, game_id: int, key: str, kind: str, rnd: int, due_at: datetime, deadline: datetime
) -> None:
    """Add the moment if the ledger does not know it; a known one keeps its status (its time may move
    when the game file changes a deadline, and a moment not done yet takes the new time)."""
    row = _row(s, game_id, key)
    if row is None:
        s.add(MomentRow(game_id=game_id, key=key, kind=kind, round=rnd, due_at=due_at, deadline=deadline))
    elif row.status != MomentStatus.DONE and (row.due_at != due_at or row.deadline != deadline):
        row.due_at, row.deadline, row.updated_at = due_at, deadline, _now()
        s.add(row)


def claim(s: Session, game_id: int, key: str, now: datetime) -> int:
    """Mark the moment running (the caller commits before doing its work). Returns the attempt number."""
    row = _row(s, game_id, key)
    if row is None:
        raise KeyError(key)
    row.status = MomentStatus.RUNNING
    row.attempts += 1
    row.started_at = now
    row.updated_at = _now()
    s.add(row)
    return row.attempts


def finish(
    s: Session,
    game_id: int,
    key: str,
    status: MomentStatus,
    now: datetime,
    note: str = "",
    result: dict[str, Any] | None = None,
) -> None:
    row = _row(s, game_id, key)
    if row is None:
        raise KeyError(key)
    row.status = status
    row.note = note
    if result is not None:
        row.result_json = json.dumps(result, ensure_ascii=False, sort_keys=True, default=str)
    if status is MomentStatus.DONE:
        row.finished_at = now
    row.updated_at = _now()
    s.add(row)
