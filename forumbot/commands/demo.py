"""``forumbot demo``: play the whole example game 【夜宵杀】 end to end, with no board and no set-up.

The living example board (forumbot.exampleboard) serves the game's story on 127.0.0.1, its pages
advancing with a fast clock; the demo runs ``forumbot run``'s own code on it (forumbot.runner: the plan,
the ledger, the tick, the real steps) from the sign-up thread to the 复盘: the sign-up read at its close
(a withdrawal, a second sign-up, the substitute, a late post), the list confirmed and the roles drawn
with the recorded seed (data/examples/yexiao/signup.toml), each identity notice sent by PM; the night
actions read from the groups' private threads and the judge's PMs, each night resolved, the running
count at 12:31, each day judged at the close, the tie's revote called and judged, drownings, every post
and private result written to the outbox and sent once, and the 复盘 opened as a thread of its own. The
judge's part is approving the drafts, which ``[outbox] auto_approve`` does for every kind: the demo
counts the commands a judge still had to type (none).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from forumbot.commands.common import console, lit
from forumbot.commands.day import verdict_rows
from forumbot.commands.webdesk import DEFAULT_PORT, need_web, serve_game
from forumbot.i18n import _, choose_language, set_language
from forumbot.labels import (
    message_label,
    moment_key_label,
    outbox_kind_label,
    signup_label,
    status_label,
    winner_label,
)

if TYPE_CHECKING:
    from rich.console import Console

    from forumbot.runner.steps import BoardSteps
    from forumbot.runner.tick import TickReport

EXAMPLE = "yexiao"


def run_demo(workdir: Path, out: Console) -> int:
    from forumbot.client import BoardClient
    from forumbot.exampleboard.server import LiveBoard
    from forumbot.outbox import ItemKind
    from forumbot.runner.fastplay import FastClock, example_game, play
    from forumbot.runner.steps import BoardSteps
    from forumbot.runner.tick import Runner
    from forumbot.store.db import open_store

    with LiveBoard.example(EXAMPLE, now="2026-06-03 08:00:00") as board:
        scenario = board.scenario
        clock = FastClock(board.now)
        board.follow(clock)
        game = example_game(
            EXAMPLE,
            board.url,
            str(workdir / "demo.db"),
            auto_approve=[k.value for k in ItemKind],
            overlay="signup.toml",
        )
        out.rule(
            _("[b]forumbot demo — 【{name}】 ({ruleset}, {players} players)").format(
                name=game.name,
                ruleset=game.ruleset,
                players=game.signup.cap if game.signup else len(game.roster),
            )
        )
        out.print(
            _("example board: {url}   store: {store} (SQLite)").format(url=board.url, store=game.store_url)
        )
        out.print(
            _("the runner (forumbot run) plays the game on a fast clock; the judge approves every draft")
        )
        with open_store(game.store_url) as store:
            steps = BoardSteps(
                game, store, client=BoardClient(game.board, now=clock), clock=clock, by="forumbot-runner"
            )
            steps.outbox.sleep = lambda _s: None
            runner = Runner(store, steps, clock=clock, log=lambda _line: None)

            def shown(report: TickReport) -> None:
                for key in report.done:
                    _show_moment(out, steps, key)
                for key, why in {**report.delayed, **report.waiting}.items():
                    out.print(_("   {moment}: {why}").format(moment=_moment(steps, key), why=lit(why)))
                if report.sent:
                    out.print(_("   outbox: {sent}").format(sent=report.sent))

            until = max(scenario.moments()) + timedelta(days=2)
            reports = play(runner, clock, until=until, board_moments=scenario.moments(), on_tick=shown)
            st = steps.desk.require_state()
            winner = winner_label(st.outcome.winner.value if st.outcome and st.outcome.winner else None)
            out.print(
                "\n"
                + _(
                    "[b]The end[/b]: winner {winner}; alive: {alive}. {ticks} ticks; every moment done once."
                ).format(winner=winner, alive=lit("、".join(st.living())), ticks=len(reports))
            )
            items = steps.outbox.items()
            sent = sum(1 for i in items if i.status == "sent")
            out.print(
                _("outbox: {sent}/{items} items sent once ({posts} posts, {pms} PMs on the board)").format(
                    sent=sent, items=len(items), posts=len(board.writer.posts), pms=len(board.writer.pms)
                )
            )
            out.print(
                _("board requests made: {requests}; the store is at {store}").format(
                    requests=len(board.requests), store=game.store_url
                )
            )
            out.print("[b]" + _("judge commands: {n}").format(n=judge_commands(steps)) + "[/b]")
    return 0


def judge_commands(steps: BoardSteps) -> int:
    """What a judge had to type in this game: each state version, decision or outbox approval made by
    someone other than the runner, and each item still waiting for a judge (a draft, a refused one)."""
    runner = steps.by
    items = [
        i
        for i in steps.outbox.items()
        if i.status in ("draft", "failed") or (i.approved_by and i.approved_by != runner)
    ]
    return steps.desk.records_not_by(runner) + len(items)


def _local(t: datetime, steps: BoardSteps) -> str:
    return t.astimezone(steps.game.tz).strftime("%m-%d %H:%M")


def _moment(steps: BoardSteps, key: str) -> str:
    """A moment of the ledger in the judge's words (``第1日：投票截止``); its key when the ledger lacks it."""
    from forumbot.runner.ledger import records

    with steps.store.session() as s:
        rec = records(s, steps.game_id).get(key)
    return key if rec is None else moment_key_label(key, rec.kind)


def _show_moment(out: Console, steps: BoardSteps, key: str) -> None:
    """One moment done: what it decided, and the drafts it wrote. Verdicts, kinds and headings are the
    judge's words (labels.py); the codes stay in the ledger's result and in ``--json`` output."""
    from rich.table import Table

    from forumbot.nightmail import CODE_LABELS, NightCode
    from forumbot.runner.ledger import records
    from forumbot.runner.plan import MomentKind

    with steps.store.session() as s:
        rec = records(s, steps.game_id)[key]
    out.rule(f"{_local(rec.deadline, steps)} {_moment(steps, key)}", style="dim")
    out.print(f"[b]{lit(rec.note)}[/b]")
    res = rec.result
    if rec.kind == MomentKind.NIGHT_DEADLINE.value and "verdicts" in res:
        table = Table(_("message"), _("author"), _("verdict"), _("reason"))
        for v in res["verdicts"]:
            table.add_row(
                lit(message_label(v["id"])),
                lit(v["author"]),
                _(CODE_LABELS[NightCode(v["code"])]),
                lit(v["reason"]),
            )
        out.print(table)
    if rec.kind == MomentKind.SIGNUP_CLOSE.value and "verdicts" in res:
        table = Table(_("floor"), _("author"), _("time"), _("verdict"), _("reason"))
        for v in res["verdicts"]:
            at = datetime.fromisoformat(v["at"]).astimezone(steps.game.tz).strftime("%m-%d %H:%M")
            table.add_row(
                str(v["floor"] or "-"), lit(v["author"]), at, signup_label(v["code"]), lit(v["reason"])
            )
        out.print(table)
    if rec.kind in (MomentKind.CLOSE.value, MomentKind.REVOTE_DEADLINE.value) and "revote" not in res:
        judged = steps.desk.tally(rec.round)
        table = Table(_("floor"), _("author"), _("time"), _("verdict"), _("target"), _("reason"))
        for row in verdict_rows(judged, steps.game):
            table.add_row(
                str(row["floor"] or "-"),
                lit(row["author"]),
                row["at"][5:16].replace("T", " "),
                status_label(row["status"]) + (" ⚑" if row["needs_review"] else ""),
                lit((_("abstains") if row["abstain"] else row["target"]) or ""),
                lit(row["reason"]),
            )
        out.print(table)
    for item_id in res.get("outbox", []):
        item = steps.outbox.get(int(item_id))
        if item.dest == "pm":
            where = _("private message to {player}").format(player=lit(item.player))
        elif item.dest == "newthread":
            where = _("new thread «{subject}»").format(subject=lit(item.subject))
        else:
            where = _("thread {tid}").format(tid=item.tid)
        out.print("\n" + _("[b]{kind}[/b] → {where}:").format(kind=outbox_kind_label(item.kind), where=where))
        out.print(item.body, markup=False)


def _demo_into(workdir: Path, out: Console | None = None) -> str:
    """Play the bundled example game into ``workdir/demo.db`` (afresh; quietly unless ``out`` is given);
    returns its path."""
    from rich.console import Console

    from forumbot.commands.demo import run_demo

    for leftover in ("demo.db", "demo.db-wal", "demo.db-shm"):
        (workdir / leftover).unlink(missing_ok=True)
    run_demo(workdir, out or Console(file=io.StringIO()))
    return str(workdir / "demo.db")


def serve_demo(
    workdir: Path | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    lang: str | None = None,
    out: Console | None = None,
) -> int:
    """Play the example game into ``workdir`` (default: a temporary folder) and leave the desk open on it,
    with a ``demo`` login. What ``forumbot demo --serve`` calls (with ``out``: the demo's own text shown
    as it plays)."""
    from forumbot.store.db import open_store

    need_web()
    from forumbot.store import judges as repo
    from forumbot.web import data

    lang = choose_language(lang)
    set_language(lang)
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="forumbot-desk-")))
        workdir.mkdir(parents=True, exist_ok=True)
        print(_("playing the example game into {path} ...").format(path=workdir))
        store = stack.enter_context(open_store(_demo_into(workdir, out)))
        repo.add_judge(store, "demo", "demo-judge", replace=True)
        print(_("demo login: name demo, password demo-judge"))
        game = data.example_game(store.url, data.board_of(store), data.played_example(store))
        serve_game(game, store, host=host, port=port, lang=lang)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    out = console()
    if getattr(args, "serve", False):  # play, then leave the judges' web desk open on the game
        return serve_demo(Path(args.workdir) if args.workdir else None, port=args.port, out=out)
    if args.workdir:
        work = Path(args.workdir)
        work.mkdir(parents=True, exist_ok=True)
        if (work / "demo.db").exists():
            (work / "demo.db").unlink()
        return run_demo(work, out)
    with tempfile.TemporaryDirectory(prefix="forumbot-demo-") as tmp:
        return run_demo(Path(tmp), out)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("demo", help=_("play the bundled example game on a local example board"))
    p.add_argument("--workdir", help=_("keep the demo's store here (default: a temporary folder)"))
    p.add_argument(
        "--serve",
        action="store_true",
        help=_("then leave the judges' web desk open on the game (Ctrl-C ends)"),
    )
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=_("the desk's port with --serve (0: any free one)")
    )
    p.set_defaults(func=cmd_demo)
