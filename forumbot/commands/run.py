"""``run``, ``tick`` and ``status``: the game kept on its timetable (forumbot/runner/).

``tick`` does one idempotent step (for cron or a systemd timer); ``run`` repeats it on a ``schedule``;
both are the same code, so a judge may switch between them at any time. ``status`` shows where the game
stands: the phase, the next moments in the board's time zone, what waits for the judge's approval, the
last complete read of each thread and the last errors. ``watch`` (the old timetable loop) is ``run``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from forumbot.commands.common import console, lit, open_game
from forumbot.errors import UsageError
from forumbot.i18n import N_, _
from forumbot.labels import (
    moment_key_label,
    moment_status_label,
    outbox_kind_label,
    outbox_status_label,
    outcome_label,
    phase_label,
)

if TYPE_CHECKING:
    from forumbot.config import Game
    from forumbot.store.db import Store


def _open(args: argparse.Namespace) -> tuple[Game, Store, Any]:
    from forumbot.runner.steps import BoardSteps
    from forumbot.store.db import open_store

    game = open_game(args)
    store = open_store(getattr(args, "store", None) or game.store_url)
    return game, store, BoardSteps(game, store)


def cmd_tick(args: argparse.Namespace) -> int:
    from forumbot.runner.fastplay import install_crash_point
    from forumbot.runner.tick import Runner

    if getattr(args, "dry_run", False):
        return _rehearse(args)
    if getattr(args, "at", None):
        # Acting as of another time on the real board would close a day or resolve a night for real at
        # the wrong time: only a rehearsal may pretend it is another time.
        raise UsageError(_("--at only with --dry-run: a real tick acts as of now"))
    install_crash_point()
    game, store, steps = _open(args)
    with store:
        Runner(store, steps, tz=game.tz).tick()
    return 0


def _rehearse(args: argparse.Namespace) -> int:
    """``tick --dry-run [--at TIME]``: one tick on a copy of the store, nothing sent (runner/rehearsal.py)."""
    from forumbot.runner.rehearsal import parse_at, print_rehearsal, rehearse
    from forumbot.store.db import open_store

    game = open_game(args)
    store = open_store(getattr(args, "store", None) or game.store_url, create=False, read_only=True)
    at = parse_at(args.at, game) if args.at else datetime.now(game.tz)
    with store:
        print(
            _("REHEARSAL as of {at} ({zone}): on a copy of the store, nothing is sent").format(
                at=at.strftime("%Y-%m-%d %H:%M"), zone=game.timezone
            )
        )
        r = rehearse(game, store, at)
    print_rehearsal(r, print)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from forumbot.runner.fastplay import install_crash_point
    from forumbot.runner.tick import Runner, run_forever

    install_crash_point()
    game, store, steps = _open(args)
    with store, contextlib.suppress(KeyboardInterrupt):
        run_forever(
            Runner(store, steps, tz=game.tz), args.every, stop=lambda: bool(getattr(args, "once", False))
        )
    return 0


def status_data(game: Game, store: Store, steps: Any, now: datetime) -> dict[str, Any]:
    """What ``status`` shows, as data (``--json``)."""
    from forumbot.runner import ledger
    from forumbot.runner.plan import upcoming
    from forumbot.runner.rehearsal import moment_actions
    from forumbot.store.reads import read_status

    tz = game.tz

    def local(t: datetime | None) -> str | None:
        return None if t is None else t.astimezone(tz).strftime("%Y-%m-%d %H:%M")

    st = steps.desk.state()
    # ``phase``: the engine's phase and round («night 1», «over 3»); ``outcome`` its codes (JSON keeps codes;
    # the text output words them with labels.py).
    phase = _("no roles stored (forumbot setup)") if st is None else f"{st.phase.value} {st.round}"
    outcome = None
    if st is not None and st.outcome is not None:
        outcome = {
            "termination": st.outcome.termination.value,
            "winner": st.outcome.winner.value if st.outcome.winner else None,
        }
    plan = steps.plan()
    with store.session() as s:
        recs = ledger.records(s, steps.game_id)
    done = {k for k, r in recs.items() if r.status is ledger.MomentStatus.DONE}
    auto = steps.outbox.settings.auto_approve
    nxt = [
        {
            "key": m.key,
            "kind": m.kind.value,
            "at": local(m.at),
            "status": recs[m.key].status.value if m.key in recs else "pending",
            "does": moment_actions(m.kind.value, auto),
        }
        for m in upcoming(plan, done)
    ]
    stuck = [
        {"key": k, "kind": r.kind, "status": r.status.value, "attempts": r.attempts, "why": r.note}
        for k, r in recs.items()
        if r.status in (ledger.MomentStatus.DELAYED, ledger.MomentStatus.WAITING, ledger.MomentStatus.RUNNING)
    ]
    items = steps.outbox.items(["draft", "failed", "unknown", "approved", "sending"])
    waiting = [
        {
            "id": i.id,
            "kind": i.kind,
            "status": i.status,
            "key": i.moment_key,
            "first_line": i.body.split("\n")[0],
        }
        for i in items
    ]
    tids = list(dict.fromkeys([*game.watched_tids(), *(t for _, t in _group_tids(game))]))
    reads = []
    errors = []
    for tid in tids:
        rs = read_status(store, game.board, tid)
        reads.append(
            {
                "tid": tid,
                "last_complete_read": local(rs.last_complete_read_at),
                "last_full_read": local(rs.last_full_read_at),
                "reads": rs.reads,
            }
        )
        if rs.last_error:
            errors.append({"tid": tid, "error": rs.last_error})
    limited = steps.rate_limited_until(now) if hasattr(steps, "rate_limited_until") else None
    return {
        "game": game.name,
        "now": local(now),
        "rate_limited_until": local(limited),
        "phase": phase,
        "outcome": outcome,
        "next": nxt,
        "stuck": stuck,
        "outbox_waiting": waiting,
        "reads": reads,
        "errors": errors,
    }


def _group_tids(game: Game) -> list[tuple[str, int]]:
    src = game.night_sources
    return [(g.group, g.tid) for g in (src.groups if src else ()) if g.tid is not None]


def cmd_status(args: argparse.Namespace) -> int:
    game, store, steps = _open(args)
    with store:
        data = status_data(game, store, steps, datetime.now(UTC))
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    out = console()
    kind, _sep, rnd = data["phase"].partition(" ")
    phase = phase_label(kind, int(rnd)) if rnd.isdigit() else data["phase"]
    if data["outcome"]:
        phase = _("game over: {outcome}").format(
            outcome=outcome_label(data["outcome"]["termination"], data["outcome"]["winner"])
        )
    out.print(f"[b]【{lit(data['game'])}】[/b] {phase}   （{game.timezone} {data['now']}）")
    if data["rate_limited_until"]:
        out.print(
            "[yellow]"
            + _("the board asked us to wait (Retry-After): the runner sends no request before {at}").format(
                at=data["rate_limited_until"]
            )
            + "[/yellow]"
        )
    out.print("\n[b]" + _("Next") + "[/b]")
    for m in data["next"]:
        label = moment_key_label(m["key"], m["kind"])
        out.print(f"  {m['at'] or ''}  {label}  {moment_status_label(m['status'])}")
        out.print(
            "    "
            + lit(
                _("reads {reads}; drafts {drafts}; sends {sends}").format(
                    reads=m["does"]["reads"], drafts=m["does"]["drafts"], sends=m["does"]["sends"]
                )
            )
        )
    if not data["next"]:
        out.print("  " + _("the plan is done"))
    if data["stuck"]:
        out.print("\n[b]" + _("Delayed or waiting for a judge") + "[/b]")
        for m in data["stuck"]:
            out.print(
                "  "
                + _("{moment} {status} (attempt {n}): {why}").format(
                    moment=moment_key_label(m["key"], m["kind"]),
                    status=moment_status_label(m["status"]),
                    n=m["attempts"],
                    why=lit(m["why"]),
                )
            )
    out.print("\n[b]" + _("Posts waiting for approval or verification") + "[/b]")
    for i in data["outbox_waiting"]:
        kind_label, status = outbox_kind_label(i["kind"]), outbox_status_label(i["status"])
        out.print(f"  #{i['id']} {kind_label} {status} {lit(i['first_line'])}")
    if not data["outbox_waiting"]:
        out.print("  " + _("none"))
    out.print("\n[b]" + _("Last complete reads") + "[/b]")
    for r in data["reads"]:
        out.print(
            "  "
            + _("thread {tid}: {last} (from page 1: {full})").format(
                tid=r["tid"],
                last=r["last_complete_read"] or _("never"),
                full=r["last_full_read"] or _("never"),
            )
        )
    if data["errors"]:
        out.print("\n[b]" + _("Latest errors") + "[/b]")
        for e in data["errors"]:
            out.print("  " + _("thread {tid}: {error}").format(tid=e["tid"], error=lit(e["error"])))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    for name, helptext in (
        ("run", N_("keep the game on its timetable: tick now, then every --every seconds (schedule)")),
        ("watch", N_("the old name of `run`")),
    ):
        p = sub.add_parser(name, help=_(helptext))
        p.add_argument("--every", type=float, default=300.0, help=_("seconds between ticks (default 300)"))
        p.add_argument("--once", action="store_true", help=_("one tick, then stop (same as `tick`)"))
        p.set_defaults(func=cmd_run)
    p = sub.add_parser("tick", help=_("one idempotent step of the timetable (for cron or a systemd timer)"))
    p.add_argument(
        "--dry-run",
        action="store_true",
        help=_("rehearse: run the tick on a copy of the store, send nothing, print what would happen"),
    )
    p.add_argument(
        "--at", metavar="TIME", help=_("with --dry-run: as of TIME (YYYY-MM-DD HH:MM, the board's zone)")
    )
    p.set_defaults(func=cmd_tick)
    p = sub.add_parser(
        "status", help=_("the phase, the next moments, what waits for approval, reads, errors")
    )
    p.add_argument(
        "--json", action="store_true", help=_("print JSON for tools (stable English keys and codes)")
    )
    p.set_defaults(func=cmd_status)
