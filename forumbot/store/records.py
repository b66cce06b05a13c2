"""The judges' own records of a game, kept beside the posts: the secret game state (as versions, with
explicit undos), the night submissions, the judges' corrections (overrides), proxy votes and revote calls.

Nothing here is ever updated in place or deleted: every change is a new row with who, when and why,
so a judge can always show how a verdict came about. An undo is a row of its own that names the version
it undoes and the one the game is back at. The engine's state is stored as JSON (``engine`` serialises
it); rows are converted to plain dataclasses at this boundary. Each function is one step inside the
caller's session (the caller commits).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast
from zoneinfo import ZoneInfo

from sqlalchemy import CursorResult, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from forumbot.errors import StaleChange, UsageError
from forumbot.i18n import _
from forumbot.labels import step_label
from forumbot.store.models import (
    GameRow,
    GameStateRow,
    JudgeDecisionRow,
    NightSubmissionRow,
    OverrideRow,
    ProxyVoteRow,
    RevoteRow,
    StateUndoRow,
)

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


@dataclass(frozen=True)
class StateVersion:
    """One stored version of the secret state; ``undone_by`` is the undo that cancelled it, if any."""

    id: int
    label: str
    at: datetime  # UTC
    by: str
    undone_at: datetime | None = None
    undone_by: str | None = None

    @property
    def live(self) -> bool:
        return self.undone_at is None


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
            _(
                "the store holds game {name!r} under rule set {stored}, but the game file says {ruleset}; "
                "use another game name or another store"
            ).format(name=name, stored=row.ruleset, ruleset=ruleset)
        )
    return row


def find_game(session: Session, name: str, ruleset: str) -> int | None:
    """The id of game ``name`` when the store holds it (None otherwise), written nowhere: what a
    read-only store's desk uses instead of :func:`ensure_game`. Refuses another rule set alike."""
    row = session.exec(select(GameRow).where(GameRow.name == name)).first()
    if row is None:
        return None
    if row.ruleset != ruleset:
        raise UsageError(
            _(
                "the store holds game {name!r} under rule set {stored}, but the game file says {ruleset}; "
                "use another game name or another store"
            ).format(name=name, stored=row.ruleset, ruleset=ruleset)
        )
    return row.id


def game_names(session: Session) -> list[str]:
    """The names of the games the store holds records for, oldest first."""
    return [r.name for r in session.exec(select(GameRow).order_by(col(GameRow.id)))]


def game_id(session: Session, name: str) -> int | None:
    row = session.exec(select(GameRow).where(GameRow.name == name)).first()
    return row.id if row else None


def save_state(session: Session, gid: int, label: str, state: dict[str, Any], by: str = "") -> int:
    """Store a new version of the state; returns its id."""
    row = GameStateRow(
        game_id=gid, label=label, state_json=json.dumps(state, ensure_ascii=False), created_by=by
    )
    session.add(row)
    session.flush()
    return row.id or 0


def state_version(session: Session, gid: int) -> int:
    """The game's state version now (0 before any step): what a desk remembers when it reads the state,
    and names when it writes (:func:`bump_state_version`)."""
    row = session.get(GameRow, gid)
    return row.state_version if row is not None else 0


def last_state_change(session: Session, gid: int) -> tuple[str, str, datetime] | None:
    """The latest change to the secret state: (its step's label, by whom, when UTC), an undo included."""
    st = session.exec(
        select(GameStateRow).where(GameStateRow.game_id == gid).order_by(col(GameStateRow.id).desc())
    ).first()
    un = session.exec(
        select(StateUndoRow).where(StateUndoRow.game_id == gid).order_by(col(StateUndoRow.id).desc())
    ).first()
    found: list[tuple[str, str, datetime]] = []
    if st is not None:
        found.append((st.label, st.created_by, _utc(st.created_at)))
    if un is not None:
        found.append(("undo", un.by, _utc(un.at)))
    return max(found, key=lambda f: f[2]) if found else None


def bump_state_version(session: Session, gid: int, seen: int, zone: ZoneInfo) -> int:
    """Move the game's state version from ``seen`` to the next, in the caller's transaction (which then
    adds the new version or undo row); returns the new version.

    Why a conditional UPDATE: it is atomic on both backends (PostgreSQL's row lock makes a second
    writer wait, then find the version moved on; SQLite writes one at a time), so of two judges who read
    the same version exactly one step is stored. Raises :class:`StaleChange` naming the newer change
    (who, when in board time ``zone``, what) when the version is no longer ``seen``."""
    result = cast(
        "CursorResult[Any]",
        session.execute(
            update(GameRow)
            .where(col(GameRow.id) == gid, col(GameRow.state_version) == seen)
            .values(state_version=col(GameRow.state_version) + 1)
        ),
    )
    if result.rowcount == 1:
        return seen + 1
    raise stale_state(session, gid, zone)


def stale_state(session: Session, gid: int, zone: ZoneInfo) -> StaleChange:
    """The refusal of a step decided on an older state version: who made the latest change, when (board
    time ``zone``) and what (第1日结算), so the judge knows whom to ask before deciding again."""
    last = last_state_change(session, gid)
    label, by, at = last if last is not None else ("", "", None)
    when = at.astimezone(zone).strftime("%m-%d %H:%M") if at is not None else "?"
    what = step_label(label) if label else "?"
    who = by or _("another judge")
    return StaleChange(
        _(
            "{who} changed the game at {at} ({what}) after this page or command read it; refresh and "
            "decide again (nothing was changed)"
        ).format(who=who, at=when, what=what),
        by=who,
        at=when,
        what=what,
    )


def load_state_by_id(session: Session, row_id: int) -> dict[str, Any] | None:
    row = session.get(GameStateRow, row_id)
    return json.loads(row.state_json) if row is not None else None


def state_history(session: Session, gid: int) -> list[StateVersion]:
    """Every version of the game's state, oldest first, each with the undo that cancelled it (if any)."""
    undos = {u.undone_id: u for u in session.exec(select(StateUndoRow).where(StateUndoRow.game_id == gid))}
    rows = session.exec(
        select(GameStateRow).where(GameStateRow.game_id == gid).order_by(col(GameStateRow.id))
    )
    out = []
    for r in rows:
        u = undos.get(r.id or 0)
        out.append(
            StateVersion(
                r.id or 0,
                r.label,
                _utc(r.created_at),
                r.created_by,
                undone_at=_utc(u.at) if u else None,
                undone_by=u.by if u else None,
            )
        )
    return out


def load_state(session: Session, gid: int) -> tuple[str, dict[str, Any]] | None:
    """The current state: the latest version that was not undone (label and JSON), or None."""
    live = [v for v in state_history(session, gid) if v.live]
    if not live:
        return None
    data = load_state_by_id(session, live[-1].id)
    return (live[-1].label, data) if data is not None else None


def record_undo(session: Session, gid: int, undone_id: int, back_to_id: int, by: str) -> None:
    """Record that version ``undone_id`` no longer counts and the game is back at ``back_to_id``."""
    session.add(StateUndoRow(game_id=gid, undone_id=undone_id, back_to_id=back_to_id, by=by))


def add_override(
    session: Session,
    gid: int,
    day: int,
    pid: int,
    as_kind: str,
    target: str | None,
    why: str,
    by: str,
    *,
    seen: int | None = None,
    zone: ZoneInfo | None = None,
) -> OverrideRecord:
    """Store a judge's override of post ``pid``. ``seen``: how many overrides of the post the judge's
    page showed; when another judge overrode it since, the override is refused (StaleChange naming him
    and when, board time ``zone``) instead of silently replacing his. Two judges posting from the same
    page at once cannot both pass: the rows' (day, pid, seq) is unique, so the second insert fails and
    is refused the same way."""
    prev = session.exec(
        select(OverrideRow)
        .where(OverrideRow.game_id == gid, OverrideRow.day == day, OverrideRow.pid == pid)
        .order_by(col(OverrideRow.seq).desc())
    ).first()
    seq = (prev.seq + 1) if prev else 0
    if seen is not None and seen != seq and prev is not None:
        raise _stale_override(prev, zone)
    row = OverrideRow(
        game_id=gid,
        day=day,
        pid=pid,
        seq=seq if seen is None else seen,
        as_kind=as_kind,
        target=target,
        why=why,
        by=by,
    )
    session.add(row)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        latest = session.exec(
            select(OverrideRow)
            .where(OverrideRow.game_id == gid, OverrideRow.day == day, OverrideRow.pid == pid)
            .order_by(col(OverrideRow.seq).desc())
        ).first()
        if latest is None:
            raise
        raise _stale_override(latest, zone) from None
    return OverrideRecord(day, pid, as_kind, target, why, by, _utc(row.at))


def _stale_override(prev: OverrideRow, zone: ZoneInfo | None) -> StaleChange:
    when = _utc(prev.at).astimezone(zone or UTC).strftime("%m-%d %H:%M")
    who = prev.by or _("another judge")
    return StaleChange(
        _(
            "{who} overrode post {pid} at {at} after this page read it; refresh and decide again "
            "(nothing was changed)"
        ).format(who=who, pid=prev.pid, at=when),
        by=who,
        at=when,
        what=f"override pid {prev.pid}",
    )


def override_counts(session: Session, gid: int, day: int) -> dict[int, int]:
    """How many overrides each post of day ``day`` has had (what an override form carries back)."""
    rows = session.exec(
        select(col(OverrideRow.pid), func.count())
        .where(OverrideRow.game_id == gid, OverrideRow.day == day)
        .group_by(col(OverrideRow.pid))
    )
    return {int(pid): int(n) for pid, n in rows}


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
    session: Session,
    gid: int,
    night: int,
    action: dict[str, Any],
    submitted_at: datetime,
    by: str,
    *,
    why: str = "",
    replaces: int | None = None,
) -> None:
    session.add(
        NightSubmissionRow(
            game_id=gid,
            night=night,
            action_json=json.dumps(action, ensure_ascii=False, sort_keys=True),
            submitted_at=_utc(submitted_at),
            entered_by=by,
            why=why,
            replaces=replaces,
        )
    )


@dataclass(frozen=True)
class NightSubmissionRecord:
    """One stored night submission with who entered it and, once a judge withdrew or corrected it, who
    did, when and why (rows are never deleted: the night page shows both)."""

    id: int
    night: int
    data: dict[str, Any]
    at: datetime
    entered_by: str
    entered_at: datetime
    why: str
    replaces: int | None
    withdrawn: bool
    withdrawn_by: str
    withdrawn_why: str
    withdrawn_at: datetime | None


def _night_record(r: NightSubmissionRow) -> NightSubmissionRecord:
    return NightSubmissionRecord(
        r.id or 0,
        r.night,
        json.loads(r.action_json),
        _utc(r.submitted_at),
        r.entered_by,
        _utc(r.entered_at),
        r.why,
        r.replaces,
        r.withdrawn,
        r.withdrawn_by,
        r.withdrawn_why,
        _utc(r.withdrawn_at) if r.withdrawn_at is not None else None,
    )


def night_submission_records(session: Session, gid: int, night: int) -> list[NightSubmissionRecord]:
    """Every row of night ``night``, withdrawn ones included, in the order they were stored."""
    rows = session.exec(
        select(NightSubmissionRow)
        .where(NightSubmissionRow.game_id == gid, NightSubmissionRow.night == night)
        .order_by(col(NightSubmissionRow.id))
    )
    return [_night_record(r) for r in rows]


def withdraw_night_submission(
    session: Session, gid: int, night: int, row_id: int, by: str, why: str, zone: ZoneInfo
) -> None:
    """Mark stored submission ``row_id`` withdrawn, in the caller's transaction.

    Why a conditional UPDATE: two judges correcting the same submission from the same page would
    otherwise both replace it; the second finds it withdrawn already and is refused with who did it and
    when (board time ``zone``), so nothing is stored twice. UsageError when the row is not one of this
    night's."""
    result = cast(
        "CursorResult[Any]",
        session.execute(
            update(NightSubmissionRow)
            .where(
                col(NightSubmissionRow.id) == row_id,
                col(NightSubmissionRow.game_id) == gid,
                col(NightSubmissionRow.night) == night,
                ~col(NightSubmissionRow.withdrawn),
            )
            .values(withdrawn=True, withdrawn_by=by, withdrawn_why=why, withdrawn_at=_utc(datetime.now(UTC)))
        ),
    )
    if result.rowcount == 1:
        return
    row = session.get(NightSubmissionRow, row_id)
    if row is None or row.game_id != gid or row.night != night:
        raise UsageError(
            _("night {night} has no stored submission #{id}: refresh the night page").format(
                night=night, id=row_id
            )
        )
    when = row.withdrawn_at.astimezone(zone).strftime("%m-%d %H:%M") if row.withdrawn_at else "?"
    who = row.withdrawn_by or _("another judge")
    raise StaleChange(
        _(
            "{who} already withdrew or corrected submission #{id} at {at}; refresh and decide again "
            "(nothing was changed)"
        ).format(who=who, id=row_id, at=when),
        by=who,
        at=when,
        what=f"night {night} submission #{row_id}",
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


@dataclass(frozen=True)
class JudgeDecision:
    """A judge's decision beside the verdicts (a forced close, a waived edit): who, when, why."""

    kind: str
    day: int
    pid: int | None
    why: str
    by: str
    at: datetime  # UTC
    detail: dict[str, Any]


def add_decision(
    session: Session,
    gid: int,
    kind: str,
    why: str,
    by: str,
    *,
    day: int = 0,
    pid: int | None = None,
    detail: dict[str, Any] | None = None,
) -> JudgeDecision:
    row = JudgeDecisionRow(
        game_id=gid,
        kind=kind,
        day=day,
        pid=pid,
        why=why,
        by=by,
        detail_json=json.dumps(detail or {}, ensure_ascii=False, sort_keys=True),
    )
    session.add(row)
    session.flush()
    return JudgeDecision(kind, day, pid, why, by, _utc(row.at), detail or {})


def decisions_for(session: Session, gid: int, kind: str, day: int | None = None) -> list[JudgeDecision]:
    """The judges' decisions of one kind (of one day), oldest first."""
    q = select(JudgeDecisionRow).where(JudgeDecisionRow.game_id == gid, JudgeDecisionRow.kind == kind)
    if day is not None:
        q = q.where(JudgeDecisionRow.day == day)
    return [
        JudgeDecision(r.kind, r.day, r.pid, r.why, r.by, _utc(r.at), json.loads(r.detail_json))
        for r in session.exec(q.order_by(col(JudgeDecisionRow.id)))
    ]
