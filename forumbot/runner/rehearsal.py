"""Rehearsal: ``forumbot tick --at TIME --dry-run``, a tick as of another time that changes nothing.

Why a copy of the store, not marked rows: a rehearsal's drafts, ledger entries and reads must never be
sent or counted by a later real tick, and must not confuse a judge reading the outbox. The safest way to
promise that is that they are never written to the real store at all: the rehearsal copies the store
(SQLite's own backup for an SQLite store; a table-by-table copy into a temporary SQLite file for
PostgreSQL), runs the real :class:`~forumbot.runner.tick.Runner` and :class:`BoardSteps` on the copy with
a clock fixed at TIME, prints what they did, and throws the copy away. The real store is only read.

Why nothing can reach the board: the steps' ``send`` is replaced by a list of what a real tick would
send, and the board client refuses every write (:meth:`RehearsalClient.post_form` raises). Reads still
go to the board (a login too, when a read needs one: it changes nothing a player sees), so a rehearsal
shows what the next moments would draft from what is on the board now. Against a live board, TIME in
the past still sees today's posts; a replay of a past game belongs on the example board or on saved
pages served as of TIME.

``--at`` without ``--dry-run`` is refused: acting as of a time other than now on a real board would
close a day or resolve a night at the wrong time, for real.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import requests
from sqlalchemy import inspect
from sqlmodel import SQLModel

from forumbot.client import BoardClient
from forumbot.config import Game
from forumbot.errors import UsageError
from forumbot.i18n import _
from forumbot.labels import outbox_kind_label, outbox_status_label
from forumbot.outbox import describe
from forumbot.runner.plan import Moment, MomentKind
from forumbot.runner.steps import BoardSteps
from forumbot.runner.tick import Runner, StepResult, TickReport
from forumbot.store.db import Store, open_store
from forumbot.store.outbox import OutboxItem

WAITING_TO_SEND = ["approved", "unknown", "sending"]


class RehearsalWrite(UsageError):
    """A write was attempted during a rehearsal (a bug: the rehearsal's steps never send)."""


class RehearsalClient(BoardClient):
    """A board client that reads but never writes: every post, edit or PM is refused before it leaves."""

    def post_form(
        self,
        url: str,
        body: bytes,
        *,
        referer: str | None = None,
        content_type: str = "application/x-www-form-urlencoded",
    ) -> requests.Response:
        raise RehearsalWrite(_("a rehearsal never writes to the board: {url} not sent").format(url=url))


@dataclass
class Rehearsal:
    """What a rehearsed tick did, on the copy of the store."""

    at: datetime
    report: TickReport
    drafts: list[OutboxItem] = field(default_factory=list)  # items the tick's moments wrote
    would_send: list[OutboxItem] = field(default_factory=list)  # approved items a real tick would send


class _RehearsalSteps:
    """The real steps, except that ``send`` only says what it would send."""

    def __init__(self, steps: BoardSteps) -> None:
        self.steps = steps
        self.game_id = steps.game_id

    def plan(self) -> list[Moment]:
        return self.steps.plan()

    def read(self) -> str:
        return self.steps.read()

    def run(self, moment: Moment, now: datetime) -> StepResult:
        return self.steps.run(moment, now)

    def ready_early(self, moment: Moment, now: datetime) -> bool:
        return self.steps.ready_early(moment, now)

    def send(self) -> str:
        n = len(self.steps.outbox.items(WAITING_TO_SEND))
        return _("rehearsal: {n} would be sent, none sent").format(n=n) if n else ""


def parse_at(text: str, game: Game) -> datetime:
    """``YYYY-MM-DD HH:MM`` in the board's zone, as an aware time."""
    try:
        naive = datetime.strptime(text.strip(), "%Y-%m-%d %H:%M")
    except ValueError:
        raise UsageError(
            _("--at {text!r}: give the time as YYYY-MM-DD HH:MM in the board's zone ({zone})").format(
                text=text, zone=game.timezone
            )
        ) from None
    return naive.replace(tzinfo=game.tz)


@contextmanager
def store_copy(store: Store) -> Iterator[Store]:
    """A throw-away SQLite copy of ``store`` (the original is only read), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="forumbot-rehearsal-") as d:
        dest = Path(d) / "rehearsal.db"
        src = store.sqlite_path
        if src is not None and src != ":memory:":
            with sqlite3.connect(f"file:{src}?mode=ro", uri=True) as a, sqlite3.connect(dest) as b:
                a.backup(b)
            a.close()
            b.close()
            copy = open_store(dest)
        else:
            copy = open_store(dest)
            _copy_rows(store, copy)
        try:
            yield copy
        finally:
            copy.close()


def _copy_rows(src: Store, dest: Store) -> None:
    """Every row of every table of the store, in dependency order (parents before children)."""
    with src.engine.connect() as a, dest.engine.begin() as b:
        present = set(inspect(a).get_table_names()) & set(inspect(b).get_table_names())
        for table in SQLModel.metadata.sorted_tables:
            if table.name not in present:  # a table of another part of forumbot this store never made
                continue
            b.execute(table.delete())
            rows = [dict(r._mapping) for r in a.execute(table.select())]
            if rows:
                b.execute(table.insert(), rows)


def rehearse(
    game: Game,
    store: Store,
    at: datetime,
    *,
    log: Callable[[str], None] = print,
    client: BoardClient | None = None,
) -> Rehearsal:
    """Run one tick as of ``at`` on a copy of ``store``; nothing is sent, the store is not changed."""
    clock: Callable[[], datetime] = lambda: at  # noqa: E731
    with store_copy(store) as copy:
        board = client or RehearsalClient(game.board, now=clock)
        steps = BoardSteps(game, copy, client=board, clock=clock)
        steps.outbox.sleep = lambda _s: None
        before = {i.id for i in steps.outbox.items()}
        runner = Runner(copy, _RehearsalSteps(steps), clock=clock, log=log, tz=game.tz)
        report = runner.tick()
        items = steps.outbox.items()
        return Rehearsal(
            at=at,
            report=report,
            drafts=[i for i in items if i.id not in before],
            would_send=[i for i in items if i.status in WAITING_TO_SEND],
        )


def moment_actions(kind: str, auto_approve: frozenset[str]) -> dict[str, str]:
    """What a moment of ``kind`` reads, drafts and sends, in the judge's language (``status``)."""
    k = MomentKind(kind)
    reads, drafts = {
        MomentKind.NIGHT_DEADLINE: (
            _("the night groups' threads and the private messages"),
            _("the case post, night results and check results"),
        ),
        MomentKind.VOID_CUTOFF: (_("the vote thread from page 1"), _("a running count")),
        MomentKind.CHANGE_CUTOFF: (_("the vote thread from page 1"), _("a running count")),
        MomentKind.CLOSE: (
            _("the vote thread from page 1"),
            _("the vote count, then a revote call or the execution notice"),
        ),
        MomentKind.REVOTE_DEADLINE: (
            _("the revote thread from page 1"),
            _("the revote's count, then another revote call or the execution notice"),
        ),
        MomentKind.LAST_WORDS: (
            _("the discussion thread for last words"),
            _("the results that waited for the last words"),
        ),
        MomentKind.EXTRA_CHECK: (_("the police's extra check"), _("its private answer")),
    }[k]
    if auto_approve:
        sends = _("auto-approved kinds at once ({kinds}); the rest once a judge approves").format(
            kinds=", ".join(sorted(auto_approve))
        )
    else:
        sends = _("nothing until a judge approves")
    return {"reads": reads, "drafts": drafts, "sends": sends}


def print_rehearsal(r: Rehearsal, out: Callable[[str], None]) -> None:
    """The rehearsal's drafts and what would be sent, plain text for the judge's terminal."""
    out(_("drafts:") if r.drafts else _("drafts: none"))
    for i in r.drafts:
        out(f"  #{i.id} {outbox_kind_label(i.kind)} {outbox_status_label(i.status)} {describe(i)}")
        out("\n".join("    " + line for line in i.body.splitlines()))
    out(_("would send:") if r.would_send else _("would send: nothing"))
    for i in r.would_send:
        first = i.body.split("\n")[0]
        out(f"  #{i.id} {outbox_kind_label(i.kind)} {describe(i)} {first}")
