"""The outbox's units of work on the store. Rows never leave this module: callers get :class:`OutboxItem`.

Why a compare-and-set for every status change (:func:`change_status`): "sent once" rests on the store.
The status ``sending`` must be committed BEFORE the POST leaves, and no two processes may both move an
item from ``approved`` to ``sending``; so each change reads the row, checks that its status is one of
the statuses the caller expects, writes the new one and its log line, and commits, in one transaction
(SQLite: ``BEGIN`` covers the read; PostgreSQL: the row is locked ``FOR UPDATE``).

Nothing is deleted: a cancelled item keeps its row, its revisions and its log.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import col, select

from forumbot.errors import StaleChange, StoreError, UsageError
from forumbot.i18n import _
from forumbot.labels import outbox_status_label
from forumbot.store.db import Store
from forumbot.store.dberrors import short_reason
from forumbot.store.models import OutboxItemRow, OutboxLogRow, OutboxRevisionRow


@dataclass(frozen=True, slots=True)
class OutboxItem:
    """One item as stored (times aware UTC)."""

    id: int
    game: str
    board_url: str
    kind: str
    day: int | None
    night: int | None
    dest: str
    tid: int | None
    fid: int | None
    pid: int | None
    quote_pid: int | None
    uids: tuple[int, ...]
    player: str
    subject: str
    body: str
    revision: int
    status: str
    approved_by: str
    approved_at: datetime | None
    sending_at: datetime | None
    sending_uid: int | None
    sent_at: datetime | None
    result_pid: int | None
    result_tid: int | None
    result_pmid: int | None
    result_url: str
    delivered: dict[int, int]
    outcome: str
    board_message: str
    attempts: int
    created_by: str
    created_at: datetime
    updated_at: datetime
    moment_key: str = ""  # the runner's stable key ("" for a judge's own item)

    @property
    def pending_uids(self) -> tuple[int, ...]:
        """PM recipients not yet delivered to."""
        return tuple(u for u in self.uids if u not in self.delivered)


@dataclass(frozen=True, slots=True)
class OutboxRevision:
    number: int
    subject: str
    body: str
    at: datetime
    by: str
    note: str


@dataclass(frozen=True, slots=True)
class OutboxLogEntry:
    at: datetime
    by: str
    old_status: str
    new_status: str
    note: str


def _item(row: OutboxItemRow) -> OutboxItem:
    assert row.id is not None
    return OutboxItem(
        id=row.id,
        game=row.game,
        board_url=row.board_url,
        kind=row.kind,
        day=row.day,
        night=row.night,
        dest=row.dest,
        tid=row.tid,
        fid=row.fid,
        pid=row.pid,
        quote_pid=row.quote_pid,
        uids=tuple(int(u) for u in row.uids or ()),
        player=row.player,
        subject=row.subject,
        body=row.body,
        revision=row.revision,
        status=row.status,
        approved_by=row.approved_by,
        approved_at=row.approved_at,
        sending_at=row.sending_at,
        sending_uid=row.sending_uid,
        sent_at=row.sent_at,
        result_pid=row.result_pid,
        result_tid=row.result_tid,
        result_pmid=row.result_pmid,
        result_url=row.result_url,
        delivered={int(k): int(v) for k, v in (row.delivered or {}).items()},
        outcome=row.outcome,
        board_message=row.board_message,
        attempts=row.attempts,
        created_by=row.created_by,
        created_at=row.created_at,
        updated_at=row.updated_at,
        moment_key=row.moment_key,
    )


def _now() -> datetime:
    return datetime.now(UTC)


class StatusConflict(UsageError):
    """An item is not in a status the caller expected: someone else moved it first (another sender
    won the race to ``sending``, another judge approved or cancelled it). Carries who moved it and
    when, read from the item's log, so the judge is told whom to ask instead of a bare status."""

    def __init__(
        self,
        item_id: int,
        status: str,
        expected: Collection[str],
        new: str,
        *,
        by: str = "",
        at: datetime | None = None,
        note: str = "",
    ) -> None:
        self.item_id, self.status, self.expected, self.new = item_id, status, tuple(expected), new
        self.by, self.at, self.note = by, at, note
        fields = {
            "id": item_id,
            "status": outbox_status_label(status),
            "expected": _(" or ").join(outbox_status_label(e) for e in sorted(expected)),
            "new": outbox_status_label(new),
        }
        if by and at is not None:
            message = _(
                "outbox item {id} is {status} (made so by {who} at {at}), "
                "not {expected}: cannot make it {new}"
            ).format(who=by, at=at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"), **fields)
        else:
            message = _("outbox item {id} is {status}, not {expected}: cannot make it {new}").format(**fields)
        super().__init__(message)


def add_item(
    store: Store, *, status: str, by: str, note: str = "", at: datetime | None = None, **fields: Any
) -> int:
    """Store a new item (revision 1 and its first log line) in one transaction; returns its id."""
    at = at or _now()
    try:
        with store.session() as s:
            row = OutboxItemRow(status=status, created_by=by, created_at=at, updated_at=at, **fields)
            s.add(row)
            s.flush()
            assert row.id is not None
            s.add(
                OutboxRevisionRow(item_id=row.id, number=1, subject=row.subject, body=row.body, at=at, by=by)
            )
            s.add(OutboxLogRow(item_id=row.id, at=at, by=by, old_status="", new_status=status, note=note))
            if status == "approved":
                row.approved_by, row.approved_at = by, at
            s.commit()
            return row.id
    except SQLAlchemyError as exc:
        raise StoreError(_("cannot store the outbox item: {error}").format(error=short_reason(exc))) from exc


def _refuse_stale(
    s: Any, row: OutboxItemRow, expected_revision: int | None, zone: tzinfo | None = None
) -> None:
    """Refuse a change decided on an older text of the item than the stored one (another judge edited it
    since the page or command read it), naming who edited it and when (on the board's clock ``zone``
    when given, as the judges read times; else UTC): never overwrite a newer edit."""
    if expected_revision is None or row.revision == expected_revision:
        return
    last = s.exec(
        select(OutboxRevisionRow)
        .where(OutboxRevisionRow.item_id == row.id)
        .order_by(col(OutboxRevisionRow.number).desc())
    ).first()
    who = (last.by if last is not None else "") or _("another judge")
    if last is None:
        when = "?"
    elif zone is not None:
        when = last.at.astimezone(zone).strftime("%m-%d %H:%M")
    else:
        when = last.at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    raise StaleChange(
        _(
            "outbox item {id} was edited by {who} at {at} (revision {new}) after you read revision "
            "{seen}; refresh and decide again (nothing was changed)"
        ).format(id=row.id, who=who, at=when, new=row.revision, seen=expected_revision),
        by=who,
        at=when,
        what=f"revision {row.revision}",
    )


def get_item(store: Store, item_id: int) -> OutboxItem:
    with store.session() as s:
        row = s.get(OutboxItemRow, item_id)
        if row is None:
            raise UsageError(_("no outbox item {id}: `forumbot outbox` lists them").format(id=item_id))
        return _item(row)


def list_items(
    store: Store, *, game: str | None = None, statuses: Collection[str] | None = None
) -> list[OutboxItem]:
    with store.session() as s:
        q = select(OutboxItemRow).order_by(col(OutboxItemRow.id))
        if game is not None:
            q = q.where(OutboxItemRow.game == game)
        if statuses is not None:
            q = q.where(col(OutboxItemRow.status).in_(list(statuses)))
        return [_item(r) for r in s.exec(q)]


def change_status(
    store: Store,
    item_id: int,
    new_status: str,
    *,
    expect: Collection[str],
    by: str,
    note: str = "",
    at: datetime | None = None,
    expected_revision: int | None = None,
    zone: tzinfo | None = None,
    **fields: Any,
) -> OutboxItem:
    """Move an item from one of ``expect`` to ``new_status`` (and set ``fields``), logged, committed.

    Raises UsageError when the item is not in an expected status (another process got there first, or
    the judge asked for something the item's state does not allow), StaleChange when
    ``expected_revision`` is given and the item's text was edited since.
    """
    at = at or _now()
    try:
        with store.session() as s:
            q = select(OutboxItemRow).where(OutboxItemRow.id == item_id)
            if store.engine.dialect.name != "sqlite":
                q = q.with_for_update()
            row = s.exec(q).first()
            if row is None:
                raise UsageError(_("no outbox item {id}: `forumbot outbox` lists them").format(id=item_id))
            _refuse_stale(s, row, expected_revision, zone)
            if row.status not in expect:
                last = s.exec(
                    select(OutboxLogRow)
                    .where(OutboxLogRow.item_id == item_id, OutboxLogRow.new_status == row.status)
                    .order_by(col(OutboxLogRow.id).desc())
                ).first()
                raise StatusConflict(
                    item_id,
                    row.status,
                    expect,
                    new_status,
                    by=last.by if last else "",
                    at=last.at if last else None,
                    note=last.note if last else "",
                )
            old = row.status
            row.status = new_status
            for k, v in fields.items():
                if not hasattr(row, k):
                    raise AttributeError(k)
                setattr(row, k, v)
            row.updated_at = at
            s.add(row)
            s.add(
                OutboxLogRow(item_id=item_id, at=at, by=by, old_status=old, new_status=new_status, note=note)
            )
            s.commit()
            return _item(row)
    except SQLAlchemyError as exc:
        raise StoreError(
            _("cannot change outbox item {id}: {error}").format(id=item_id, error=short_reason(exc))
        ) from exc


def revise(
    store: Store,
    item_id: int,
    *,
    body: str,
    subject: str | None,
    by: str,
    note: str = "",
    expect: Collection[str],
    at: datetime | None = None,
    expected_revision: int | None = None,
    zone: tzinfo | None = None,
) -> OutboxItem:
    """A new body (and subject) for an item not yet sent; the old one stays as a revision.

    ``expected_revision``: the revision the judge edited from; another judge's newer edit is refused
    (StaleChange), not replaced. The row is locked (PostgreSQL) so two edits of one revision give one."""
    at = at or _now()
    with store.session() as s:
        q = select(OutboxItemRow).where(OutboxItemRow.id == item_id)
        if store.engine.dialect.name != "sqlite":
            q = q.with_for_update()
        row = s.exec(q).first()
        if row is None:
            raise UsageError(_("no outbox item {id}: `forumbot outbox` lists them").format(id=item_id))
        _refuse_stale(s, row, expected_revision, zone)
        if row.status not in expect:
            raise UsageError(
                _("outbox item {id} is {status}: its text can no longer change").format(
                    id=item_id, status=outbox_status_label(row.status)
                )
            )
        if body == row.body and (subject is None or subject == row.subject):
            return _item(row)
        row.revision += 1
        row.body = body
        if subject is not None:
            row.subject = subject
        row.updated_at = at
        s.add(row)
        s.add(
            OutboxRevisionRow(
                item_id=item_id, number=row.revision, subject=row.subject, body=body, at=at, by=by, note=note
            )
        )
        s.add(
            OutboxLogRow(
                item_id=item_id,
                at=at,
                by=by,
                old_status=row.status,
                new_status=row.status,
                note=note or f"text revised (revision {row.revision})",
            )
        )
        s.commit()
        return _item(row)


def revisions(store: Store, item_id: int) -> list[OutboxRevision]:
    with store.session() as s:
        rows = s.exec(
            select(OutboxRevisionRow)
            .where(OutboxRevisionRow.item_id == item_id)
            .order_by(col(OutboxRevisionRow.number))
        )
        return [OutboxRevision(r.number, r.subject, r.body, r.at, r.by, r.note) for r in rows]


def log(store: Store, item_id: int) -> list[OutboxLogEntry]:
    with store.session() as s:
        rows = s.exec(
            select(OutboxLogRow).where(OutboxLogRow.item_id == item_id).order_by(col(OutboxLogRow.id))
        )
        return [OutboxLogEntry(r.at, r.by, r.old_status, r.new_status, r.note) for r in rows]


def last_change_to(store: Store, item_id: int, status: str) -> OutboxLogEntry | None:
    """The latest log entry that put the item in ``status`` (who and when: a busy or lost race names it)."""
    with store.session() as s:
        row = s.exec(
            select(OutboxLogRow)
            .where(OutboxLogRow.item_id == item_id, OutboxLogRow.new_status == status)
            .order_by(col(OutboxLogRow.id).desc())
        ).first()
        return (
            None if row is None else OutboxLogEntry(row.at, row.by, row.old_status, row.new_status, row.note)
        )


def claimed_ids(store: Store, *, board_url: str, exclude: int) -> tuple[set[int], set[int]]:
    """pids and pmids other items already own (so one board post never settles two items)."""
    pids: set[int] = set()
    pmids: set[int] = set()
    with store.session() as s:
        for row in s.exec(select(OutboxItemRow).where(OutboxItemRow.board_url == board_url)):
            if row.id == exclude:
                continue
            if row.result_pid and row.dest != "edit":
                pids.add(row.result_pid)
            pmids.update(int(v) for v in (row.delivered or {}).values() if int(v) > 0)
    return pids, pmids


def touch_pm_times(items: Sequence[OutboxItem]) -> datetime | None:
    """The latest moment a PM of these items was delivered (UCenter counts from the last success)."""
    times = [i.sent_at for i in items if i.dest == "pm" and i.sent_at is not None]
    return max(times) if times else None
