"""The judges' own records, kept in the store beside the posts: the secret game state, the night
submissions, the judges' corrections (overrides), proxy votes and revote calls.

Nothing here is ever updated in place or deleted: every change is a new row with who, when and why,
so a judge can always show how a verdict came about. The engine's state is stored as JSON
(``engine`` serialises it); rows are converted to plain dataclasses at this boundary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, UniqueConstraint
from sqlalchemy import Text as SAText
from sqlmodel import Field, Session, SQLModel, col, select

from forumbot.errors import UsageError
from forumbot.store.models import UTCDateTime


def _now() -> datetime:
    return datetime.now(UTC)


class GameRow(SQLModel, table=True):
    __tablename__ = "games"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    ruleset: str
    created_at: datetime = Field(default_factory=_now, sa_type=UTCDateTime)


class GameStateRow(SQLModel, table=True):
    """One version of the secret game state. The latest row (highest id) is the current state."""

    __tablename__ = "game_states"
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    label: str  # what produced it: setup, night 1, day 1, undo ...
    state_json: str = Field(sa_column=Column(SAText, nullable=False))
    created_at: datetime = Field(default_factory=_now, sa_type=UTCDateTime)
    created_by: str = ""


class NightSubmissionRow(SQLModel, table=True):
    __tablename__ = "night_submissions"
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    night: int = Field(index=True)
    action_json: str = Field(sa_column=Column(SAText, nullable=False))
    submitted_at: datetime = Field(sa_type=UTCDateTime)  # when the actor submitted (as the judge records)
    entered_at: datetime = Field(default_factory=_now, sa_type=UTCDateTime)
    entered_by: str = ""
    withdrawn: bool = False  # replaced by a later submission of the same actor (kept, never deleted)


class OverrideRow(SQLModel, table=True):
    """A judge's correction of one post's verdict, applied by every later tally."""

    __tablename__ = "overrides"
    __table_args__ = (UniqueConstraint("game_id", "day", "pid", "seq"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    day: int = Field(index=True)
    pid: int = Field(index=True)
    seq: int = 0  # a later override of the same pid supersedes an earlier one
    as_kind: str  # vote | abstain | void | ignore | change
    target: str | None = None
    why: str
    by: str
    at: datetime = Field(default_factory=_now, sa_type=UTCDateTime)


class ProxyVoteRow(SQLModel, table=True):
    __tablename__ = "proxy_votes"
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    day: int = Field(index=True)
    player: str
    target: str
    at: datetime = Field(sa_type=UTCDateTime)
    entered_by: str = ""


class RevoteRow(SQLModel, table=True):
    __tablename__ = "revotes"
    __table_args__ = (UniqueConstraint("game_id", "day", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    day: int
    number: int
    plan_json: str = Field(sa_column=Column(SAText, nullable=False))
    called_at: datetime = Field(sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=_now, sa_type=UTCDateTime)


JUDGE_TABLES = (GameRow, GameStateRow, NightSubmissionRow, OverrideRow, ProxyVoteRow, RevoteRow)


def create_tables(engine: Any) -> None:
    """Create the judges' tables beside the store's (never alters or drops existing ones)."""
    SQLModel.metadata.create_all(engine, tables=[t.__table__ for t in JUDGE_TABLES])  # type: ignore[union-attr]


# --------------------------------------------------------------------------- boundary records


@dataclass(frozen=True)
class OverrideRecord:
    day: int
    pid: int
    as_kind: str
    target: str | None
    why: str
    by: str
    at: datetime  # UTC


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


# --------------------------------------------------------------------------- unit-of-work functions


def ensure_game(session: Session, name: str, ruleset: str) -> GameRow:
    row = session.exec(select(GameRow).where(GameRow.name == name)).first()
    if row is None:
        row = GameRow(name=name, ruleset=ruleset)
        session.add(row)
        session.flush()
    elif row.ruleset != ruleset:
        raise UsageError(
            f"the store holds game {name!r} under rule set {row.ruleset}, but the game file says {ruleset}; "
            "use another game name or another store"
        )
    return row


def game_id(session: Session, name: str) -> int | None:
    row = session.exec(select(GameRow).where(GameRow.name == name)).first()
    return row.id if row else None


def save_state(session: Session, gid: int, label: str, state: dict[str, Any], by: str = "") -> None:
    session.add(
        GameStateRow(
            game_id=gid, label=label, state_json=json.dumps(state, ensure_ascii=False), created_by=by
        )
    )


def load_state(session: Session, gid: int) -> tuple[str, dict[str, Any]] | None:
    row = session.exec(
        select(GameStateRow).where(GameStateRow.game_id == gid).order_by(col(GameStateRow.id).desc())
    ).first()
    if row is None:
        return None
    return row.label, json.loads(row.state_json)


def load_state_by_id(session: Session, row_id: int) -> dict[str, Any] | None:
    row = session.get(GameStateRow, row_id)
    return json.loads(row.state_json) if row is not None else None


def state_history(session: Session, gid: int) -> list[tuple[int, str, datetime]]:
    rows = session.exec(
        select(GameStateRow).where(GameStateRow.game_id == gid).order_by(col(GameStateRow.id))
    )
    return [(r.id or 0, r.label, _utc(r.created_at)) for r in rows]


def add_override(
    session: Session, gid: int, day: int, pid: int, as_kind: str, target: str | None, why: str, by: str
) -> OverrideRecord:
    prev = session.exec(
        select(OverrideRow)
        .where(OverrideRow.game_id == gid, OverrideRow.day == day, OverrideRow.pid == pid)
        .order_by(col(OverrideRow.seq).desc())
    ).first()
    row = OverrideRow(
        game_id=gid,
        day=day,
        pid=pid,
        seq=(prev.seq + 1) if prev else 0,
        as_kind=as_kind,
        target=target,
        why=why,
        by=by,
    )
    session.add(row)
    session.flush()
    return OverrideRecord(day, pid, as_kind, target, why, by, _utc(row.at))


def overrides_for(session: Session, gid: int, day: int) -> list[OverrideRecord]:
    """The latest override of each pid of the day (earlier ones stay in the table, superseded)."""
    rows = session.exec(
        select(OverrideRow)
        .where(OverrideRow.game_id == gid, OverrideRow.day == day)
        .order_by(col(OverrideRow.seq))
    )
    latest: dict[int, OverrideRow] = {}
    for r in rows:
        latest[r.pid] = r
    return [
        OverrideRecord(r.day, r.pid, r.as_kind, r.target, r.why, r.by, _utc(r.at))
        for r in sorted(latest.values(), key=lambda r: r.pid)
    ]


def add_proxy_vote(
    session: Session, gid: int, day: int, player: str, target: str, at: datetime, by: str
) -> None:
    session.add(ProxyVoteRow(game_id=gid, day=day, player=player, target=target, at=_utc(at), entered_by=by))


def proxy_votes_for(
    session: Session, gid: int, day: int | None = None
) -> list[tuple[int, str, str, datetime, str]]:
    q = select(ProxyVoteRow).where(ProxyVoteRow.game_id == gid)
    if day is not None:
        q = q.where(ProxyVoteRow.day == day)
    return [
        (r.day, r.player, r.target, _utc(r.at), r.entered_by)
        for r in session.exec(q.order_by(col(ProxyVoteRow.id)))
    ]


def add_night_submission(
    session: Session, gid: int, night: int, action: dict[str, Any], submitted_at: datetime, by: str
) -> None:
    session.add(
        NightSubmissionRow(
            game_id=gid,
            night=night,
            action_json=json.dumps(action, ensure_ascii=False, sort_keys=True),
            submitted_at=_utc(submitted_at),
            entered_by=by,
        )
    )


def night_submissions(session: Session, gid: int, night: int) -> list[tuple[dict[str, Any], datetime]]:
    rows = session.exec(
        select(NightSubmissionRow)
        .where(
            NightSubmissionRow.game_id == gid,
            NightSubmissionRow.night == night,
            ~col(NightSubmissionRow.withdrawn),
        )
        .order_by(col(NightSubmissionRow.id))
    )
    return [(json.loads(r.action_json), _utc(r.submitted_at)) for r in rows]


def save_revote(
    session: Session, gid: int, day: int, number: int, plan: dict[str, Any], called_at: datetime
) -> None:
    existing = session.exec(
        select(RevoteRow).where(RevoteRow.game_id == gid, RevoteRow.day == day, RevoteRow.number == number)
    ).first()
    if existing is not None:
        return
    session.add(
        RevoteRow(
            game_id=gid,
            day=day,
            number=number,
            plan_json=json.dumps(plan, ensure_ascii=False),
            called_at=_utc(called_at),
        )
    )


def revotes_for(session: Session, gid: int, day: int) -> list[tuple[int, dict[str, Any], datetime]]:
    rows = session.exec(
        select(RevoteRow)
        .where(RevoteRow.game_id == gid, RevoteRow.day == day)
        .order_by(col(RevoteRow.number))
    )
    return [(r.number, json.loads(r.plan_json), _utc(r.called_at)) for r in rows]
