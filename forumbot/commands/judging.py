"""The judge's commands: setup, night submit/resolve, tally, attendance, revote, override, proxy, close,
elevator, state, flags and watch. Each reads the game file (``--game``) and the store, and prints
what a judge reviews: tables for the terminal, ``--json`` for tools, BBCode drafts to paste."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tomllib
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from engine import (
    ACTION_KINDS,
    Arrow,
    AudienceKind,
    Event,
    EventKind,
    Kill,
    KillHostages,
    NightAction,
    Phase,
    Protect,
    Setup,
    all_flags,
    event_to_dict,
)
from forumbot import drafts
from forumbot.config import Game, find_game_file, load_game, parse_local_time
from forumbot.errors import ConfigError, UsageError
from forumbot.judge import DayJudgement, Judge, describe_state
from forumbot.store.db import Store, open_store

ACTIONS = tuple(kind.value for kind in ACTION_KINDS)  # the engine's one table of night action kinds


# ------------------------------------------------------------------ opening the desk


def open_game(args: argparse.Namespace) -> Game:
    path = find_game_file(getattr(args, "game", None))
    if path is None:
        raise ConfigError(
            "no game file",
            field="--game",
            fix="pass --game FILE or create ./forumbot.toml (README: The game file)",
        )
    return load_game(path)


def open_desk(args: argparse.Namespace) -> tuple[Game, Store, Judge]:
    game = open_game(args)
    store = open_store(getattr(args, "store", None) or game.store_url)
    return game, store, Judge(game, store)


def local_time(game: Game, text: str | None, what: str) -> datetime:
    if text is None:
        return datetime.now(UTC)
    return parse_local_time(text, game.tz, what)


def console() -> Console:
    """A console that does not cut Chinese reasons short when the output is a file or a pipe."""
    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)


# ------------------------------------------------------------------ setup and state


def cmd_setup(args: argparse.Namespace) -> int:
    game, store, judge = open_desk(args)
    with store:
        roles = None
        if args.roles:
            roles = tomllib.loads(Path(args.roles).read_text("utf-8")).get("roles")
            if not isinstance(roles, dict):
                raise UsageError(f"{args.roles}: expected a [roles] table of name = role")
        made = judge.setup(seed=args.seed, roles=roles, variant=args.variant, force=args.force)
        state = made.state if isinstance(made, Setup) else made
        out = console()
        out.print(f"[b]{game.name}[/b]: roles stored for {len(state.players)} players ({state.ruleset_id}).")
        for w in made.warnings if isinstance(made, Setup) else ():
            out.print(f"[yellow]warning:[/yellow] {w}")
        notices: Mapping[str, str] = made.notices if isinstance(made, Setup) else {}
        if notices and args.notices:
            out.print("\n[b]Private notices (send each to the player's main account):[/b]")
            for name, text in notices.items():
                out.print(f"\n── {name} ──\n{text}")
        elif notices:
            out.print("Private notices not shown (--no-notices).")
    return 0


def cmd_state(args: argparse.Namespace) -> int:
    _game, store, judge = open_desk(args)
    with store:
        st = judge.require_state()
        info = describe_state(st)
        if args.history:
            info["history"] = [
                {"id": i, "label": lab, "at": at.isoformat()} for i, lab, at in judge.history()
            ]
        if args.json:
            print(json.dumps(info, ensure_ascii=False, indent=1, default=str))
            return 0
        out = console()
        out.print(
            f"[b]{info['ruleset']}[/b], {info['phase']}" + (f", {info['outcome']}" if info["outcome"] else "")
        )
        t = Table("player", "role", "status", "notes")
        for p in info["players"]:
            notes = ", ".join(k for k in ("possessed", "converted") if p[k])
            t.add_row(p["name"], p["role"], "alive" if p["alive"] else f"out: {p['out']}", notes)
        out.print(t)
        if args.history:
            for h in info["history"]:
                out.print(f"  #{h['id']} {h['label']} ({h['at']})")
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    """Write a starter game file (nothing secret in it) for the judges to fill in."""
    from forumbot.config import canonical_ruleset

    path = Path(args.game or "forumbot.toml")
    if path.exists() and not args.force:
        raise UsageError(f"{path} exists; pass --force to overwrite it")
    ruleset = canonical_ruleset(args.ruleset)
    r004 = ruleset == "R004"
    text = drafts.render_text(
        "game.toml.j2",
        name=args.name,
        ruleset=ruleset,
        board=args.board,
        night_deadline="23:00" if r004 else "17:00",
        vote_close="21:00" if r004 else "13:00",
    )
    path.write_text(text, "utf-8")
    console().print(f"wrote {path}: fill in the roster and the days, then `forumbot poll`")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    _game, store, judge = open_desk(args)
    with store:
        undone, now = judge.undo()
        console().print(
            f"undone: {undone}; the game is back at: {now} (the undo is kept in `state --history`)"
        )
    return 0


def cmd_flags(args: argparse.Namespace) -> int:
    rows = all_flags()
    if args.json:
        print(json.dumps([_row(r) for r in rows], ensure_ascii=False, indent=1, default=str))
        return 0
    t = Table("flag", "side", "default", "AMB", "meaning")
    for r in rows:
        t.add_row(r.name, r.side, repr(r.default), r.amb, r.doc)
    console().print(t)
    return 0


def _row(r: Any) -> dict[str, Any]:
    return {"name": r.name, "side": r.side, "default": r.default, "amb": r.amb, "doc": r.doc}


# ------------------------------------------------------------------ the night


def action_from_fields(kind: str, f: Mapping[str, Any]) -> NightAction:
    """A night action from the fields a judge types (CLI flags or a TOML [[submissions]] entry)."""
    by = f.get("by")
    target = f.get("target")

    def need(key: str) -> Any:
        if not f.get(key):
            raise UsageError(f"a {kind} submission needs {key}")
        return f[key]

    if kind == "kill":
        return Kill(
            victim=target,
            pledge=f.get("pledge"),
            possess=f.get("possess"),
            text=f.get("kill_text") or "",
            by=by,
        )
    if kind == "protect":
        return Protect(guardian=need("by"), target=target)
    if kind == "kill_hostages":
        order = f.get("order")
        return KillHostages(order=tuple(order) if order else None, by=by)
    if kind == "arrow":
        return Arrow(first=need("first"), second=need("second"), by=by)
    simple: dict[str, Callable[..., NightAction]] = {
        k.value: spec.cls for k, spec in ACTION_KINDS.items() if spec.single_target
    }
    if kind not in simple:
        raise UsageError(f"unknown night action {kind!r} (one of {', '.join(ACTIONS)})")
    return simple[kind](target=need("target"), by=by)


def read_submissions(path: Path) -> list[dict[str, Any]]:
    """The [[submissions]] of a night file (kind, by, target, pledge, possess, kill_text, at ...)."""
    entries = list(tomllib.loads(path.read_text("utf-8")).get("submissions", []))
    if not entries:
        raise UsageError(f"{path}: no [[submissions]] entries")
    return entries


def submit_entries(judge: Judge, night: int, entries: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    """Check and store each submission; (what, late) for each. A missing ``at`` means now."""
    done = []
    for e in entries:
        action = action_from_fields(str(e.get("kind")), e)
        at = local_time(judge.game, e.get("at"), "night submission at")
        done.append((f"{e.get('kind')} by {e.get('by') or '-'}", judge.submit_action(night, action, at)))
    return done


def cmd_night_submit(args: argparse.Namespace) -> int:
    _game, store, judge = open_desk(args)
    with store:
        entries: list[dict[str, Any]] = []
        if args.file:
            entries = read_submissions(Path(args.file))
        else:
            if not args.kind:
                raise UsageError("give the action (e.g. `night submit --night 1 kill --target X`) or --file")
            entries = [
                {
                    k: v
                    for k, v in vars(args).items()
                    if v is not None
                    and k
                    in ("by", "target", "pledge", "possess", "kill_text", "first", "second", "order", "at")
                }
                | {"kind": args.kind}
            ]
        for what, late in submit_entries(judge, args.night, entries):
            note = " [b](late: after the deadline)[/b]" if late else ""
            console().print(f"night {args.night}: recorded {what}" + note)
    return 0


def _print_events(events: tuple[Event, ...], out: Console) -> None:
    by_audience: dict[str, list[Event]] = {}
    for e in events:
        by_audience.setdefault(str(e.audience), []).append(e)
    for audience, evs in by_audience.items():
        if audience == "public":
            continue
        out.print(f"\n[b]→ {audience}[/b]")
        for e in evs:
            out.print(f"  {e.text}")


def case_post_draft(game: Game, judge: Judge, n: int, events: tuple[Event, ...]) -> str:
    body = [
        e.text
        for e in events
        if e.audience.kind is AudienceKind.PUBLIC and e.kind in (EventKind.CASE_POST, EventKind.DAY_START)
    ]
    over = [
        e.text for e in events if e.audience.kind is AudienceKind.PUBLIC and e.kind is EventKind.GAME_OVER
    ]
    closes = ""
    with contextlib.suppress(UsageError):
        closes = drafts.local_text(game.day(n).closes, game.tz)
    title = judge.ruleset.case_post_title.format(n=n)
    view = drafts.CasePostView(game.name, title, "\n".join(body), closes if not over else "", "\n".join(over))
    return drafts.render_case_post(view)


def cmd_night_resolve(args: argparse.Namespace) -> int:
    game, store, judge = open_desk(args)
    with store:
        res = judge.resolve_night(args.night, seed=args.seed)
        draft = case_post_draft(game, judge, args.night, res.events)
        if args.json:
            print(
                json.dumps(
                    {
                        "night": args.night,
                        "out": list(res.out),
                        "events": [event_to_dict(e) for e in res.events],
                        "case_post": draft,
                        "outcome": str(res.outcome) if res.outcome else None,
                    },
                    ensure_ascii=False,
                    indent=1,
                    default=str,
                )
            )
            return 0
        out = console()
        out.print(f"[b]Night {args.night} resolved.[/b] Out: {'、'.join(res.out) or '(nobody)'}")
        _print_events(res.events, out)
        out.print("\n[b]Case post draft (public):[/b]\n")
        print(draft)
    return 0


def cmd_night_extra(args: argparse.Namespace) -> int:
    game, store, judge = open_desk(args)
    with store:
        at = local_time(game, args.at, "--at")
        result_at = local_time(game, args.result_at, "--result-at") if args.result_at else None
        res = judge.extra_check(args.night, args.target, at, result_at=result_at)
        _print_events(res.events, console())
    return 0


# ------------------------------------------------------------------ the day


def verdict_rows(judged: DayJudgement, game: Game) -> list[dict[str, Any]]:
    rows = []
    for v in judged.result.verdicts:
        rows.append(
            {
                "pid": v.pid,
                "floor": v.floor,
                "author": v.author,
                "at": v.at.astimezone(game.tz).isoformat(),
                "status": v.status.value,
                "target": v.target,
                "abstain": v.abstain,
                "reason": v.reason,
                "needs_review": v.needs_review,
                "suggestion": v.suggestion,
                "stage": v.stage,
                "proxy": v.proxy,
                "override": None if v.override is None else {"why": v.override.why, "by": v.override.by},
            }
        )
    return rows


def vote_count_draft(game: Game, judge: Judge, judged: DayJudgement) -> str:
    preview = judge.preview_day(judged) if not judged.result.provisional else None
    lines: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()
    if preview is not None:
        notice_kinds = (EventKind.DROWNING, EventKind.SENT_OFF, EventKind.RED_CARD)
        lines = tuple(e.text for e in preview.events if e.public and e.kind not in notice_kinds)
        notices = tuple(e.text for e in preview.events if e.public and e.kind in notice_kinds)
    day = judged.day
    return drafts.render_vote_count(
        drafts.vote_count_view(
            game_name=game.name,
            board_url=game.board.url,
            vote_tid=day.vote_tid or 0,
            tz=game.tz,
            result=judged.result,
            public_lines=lines,
            notice_lines=notices,
            reveal_missing=judge.state() is None and judge.ruleset.reveals_executed_identity,
            judges=frozenset(game.judges),
        )
    )


def cmd_tally(args: argparse.Namespace) -> int:
    game, store, judge = open_desk(args)
    with store:
        as_of = local_time(game, args.at, "--at") if args.at else None
        judged = judge.judge_day(args.day, as_of=as_of)
        r = judged.result
        draft = vote_count_draft(game, judge, judged)
        if args.json:
            print(
                json.dumps(
                    {
                        "day": args.day,
                        "provisional": r.provisional,
                        "as_of": r.as_of.isoformat() if r.as_of else None,
                        "tally": [
                            {
                                "target": t.target,
                                "count": t.count,
                                "voters": [
                                    {"player": v.player, "pid": v.pid, "floor": v.floor, "proxy": v.proxy}
                                    for v in t.voters
                                ],
                            }
                            for t in r.final_tally
                        ],
                        "outcome": {
                            "kind": r.outcome.kind.value,
                            "out": list(r.outcome.out),
                            "text": r.outcome.text,
                            "reason": r.outcome.reason,
                        },
                        "no_vote": list(r.no_vote),
                        "strikes": dict(r.strikes_after),
                        "drowned": [
                            {"player": d.player, "rule": d.rule.value, "stage": d.stage} for d in r.drowned
                        ],
                        "cards": [
                            {"player": c.player, "color": c.color.value, "reason": c.reason} for c in r.cards
                        ],
                        "verdicts": verdict_rows(judged, game),
                        "problems": list(r.problems),
                        "draft": draft,
                    },
                    ensure_ascii=False,
                    indent=1,
                )
            )
            return 0
        out = console()
        when = f" as of {drafts.local_text(r.as_of, game.tz)}" if r.provisional and r.as_of else ""
        out.print(
            f"[b]{game.name} — day {args.day} vote count{when}[/b] (vote thread tid {judged.day.vote_tid})"
        )
        t = Table("floor", "pid", "author", "time", "verdict", "target", "reason")
        for row in verdict_rows(judged, game):
            mark = " ⚑" if row["needs_review"] else ""
            t.add_row(
                str(row["floor"] or "-"),
                str(row["pid"] or "-"),
                row["author"],
                row["at"][5:16].replace("T", " "),
                row["status"] + mark,
                ("弃权" if row["abstain"] else row["target"]) or "",
                row["reason"],
            )
        out.print(t)
        for p in r.problems:
            out.print(f"[yellow]problem:[/yellow] {p}")
        out.print("\n[b]Vote count draft (BBCode):[/b]\n")
        print(draft)
    return 0


def cmd_attendance(args: argparse.Namespace) -> int:
    game, store, judge = open_desk(args)
    with store:
        day = judge.effective_day(args.day)
        att = judge.attendance(day)
        if att is None:
            raise UsageError(f"day {args.day} has no discussion thread in the game file (discussion = TID)")
        floors = {p.pid: p.floor for p in judge.discussion_posts(day)}
        if args.json:
            print(
                json.dumps(
                    {
                        "day": args.day,
                        "counts": dict(att.counts),
                        "deficient": sorted(att.deficient()),
                        "posts": [
                            {
                                "pid": p.pid,
                                "floor": floors.get(p.pid),
                                "author": p.author,
                                "at": p.at.astimezone(game.tz).isoformat(),
                                "status": p.status.value,
                                "reason": p.reason,
                            }
                            for p in att.posts
                        ],
                    },
                    ensure_ascii=False,
                    indent=1,
                )
            )
            return 0
        out = console()
        t = Table("player", "valid posts", "status")
        for name, n in att.counts.items():
            t.add_row(name, str(n), "不足" if n < att.min_posts else "")
        out.print(f"[b]day {args.day} attendance[/b] (valid discussion posts, minimum {att.min_posts})")
        out.print(t)
        if args.elevator:
            view = drafts.elevator_view(
                game_name=game.name,
                day=args.day,
                board_url=game.board.url,
                tid=day.discussion_tid or 0,
                roster=game.roster,
                attendance=att,
                floors=floors,
                as_of=drafts.local_text(datetime.now(UTC), game.tz),
                rule="顶、+1、纯表情、纯引用等不计",
            )
            out.print("\n[b]Elevator draft (BBCode):[/b]\n")
            print(drafts.render_elevator(view))
    return 0


def cmd_revote(args: argparse.Namespace) -> int:
    game, store, judge = open_desk(args)
    with store:
        judged = judge.judge_day(args.day)
        if args.call_at or args.call:
            judged = judge.call_revote(args.day, local_time(game, args.call_at, "--call-at"))
        r = judged.result
        out = console()
        for rv in r.revotes:
            out.print(f"[b]revote #{rv.plan.number}[/b]: {rv.plan.call_text(game.tz)}")
            for line in rv.tally:
                out.print(f"  {line.target}: {line.count}")
            if rv.noncompliant:
                out.print(f"  未按要求重投（计一次淹水）：{'、'.join(rv.noncompliant)}")
        if r.outcome.kind.value == "revote" and r.outcome.plan is not None:
            plan = r.outcome.plan
            pending = not any(rv.plan.number == plan.number for rv in r.revotes)
            out.print(f"[b]pending revote #{plan.number}[/b]: {plan.call_text(game.tz)}")
            if pending:
                out.print(
                    "Post the call, then record it: `forumbot revote --day N --call` (or --call-at TIME)."
                )
        else:
            out.print(f"result: {r.outcome.text or r.outcome.kind.value}")
        out.print("\n[b]Vote count draft (BBCode):[/b]\n")
        print(vote_count_draft(game, judge, judged))
    return 0


def cmd_override(args: argparse.Namespace) -> int:
    _game, store, judge = open_desk(args)
    with store:
        day = args.day if args.day is not None else judge.day_of_vote_post(args.pid)
        rec = judge.add_override(day, args.pid, args.as_kind, args.target, args.why)
        console().print(
            f"override recorded: day {rec.day} pid {rec.pid} → {rec.as_kind}"
            + (f" {rec.target}" if rec.target else "")
            + f" ({rec.why}; by {rec.by}). Every later tally applies it."
        )
    return 0


def cmd_proxy(args: argparse.Namespace) -> int:
    game, store, judge = open_desk(args)
    with store:
        judge.add_proxy_vote(args.day, args.player, args.target, local_time(game, args.at, "--at"))
        console().print(f"proxy vote recorded: {args.player} → {args.target} (day {args.day})")
    return 0


def cmd_close(args: argparse.Namespace) -> int:
    game, store, judge = open_desk(args)
    with store:
        judged = judge.judge_day(args.day)
        draft = vote_count_draft(game, judge, judged)
        res = judge.close_day(args.day)
        out = console()
        out.print(f"[b]Day {args.day} closed.[/b] Out: {'、'.join(res.out) or '(nobody)'}")
        _print_events(res.events, out)
        if res.state.phase is Phase.OVER:
            out.print("[b]The game is over.[/b]")
        out.print("\n[b]Vote count and result (BBCode):[/b]\n")
        print(draft)
    return 0


# ------------------------------------------------------------------ watch


def cmd_watch(args: argparse.Namespace) -> int:
    from forumbot.client import BoardClient
    from forumbot.poll import poll
    from forumbot.watch import Moment, Watcher, run_forever

    game, store, judge = open_desk(args)
    client = BoardClient(game.board)
    drafts_dir = Path(args.drafts)
    drafts_dir.mkdir(parents=True, exist_ok=True)

    def run_poll(full: bool) -> object:
        report = poll(client, store, game.board, game.watched_tids(), full=full, progress=False)
        print(report.summary())
        return report

    def on_deadline(m: Moment) -> None:
        judge.refresh()
        judged = judge.judge_day(m.day)
        path = drafts_dir / f"day{m.day}-{m.kind.value}.bbcode"
        path.write_text(vote_count_draft(game, judge, judged), "utf-8")
        print(f"day {m.day} {m.kind.value}: draft written to {path}")

    watcher = Watcher(game, run_poll, on_deadline)
    try:
        run_forever(watcher, args.every, stop=lambda: args.once)
    except KeyboardInterrupt:
        pass
    finally:
        store.close()
    return 0


# ------------------------------------------------------------------ registration


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("setup", help="draw roles for the roster (or store the judges' own) as secrets")
    p.add_argument("--seed", type=int, help="the seed of the draw (recorded)")
    p.add_argument("--roles", metavar="FILE", help="a TOML file with [roles] name = 角色 instead of a draw")
    p.add_argument("--variant", choices=("doctor", "butterfly"), help="R004 医生/花蝴蝶")
    p.add_argument("--force", action="store_true", help="draw again (the old draw stays in the history)")
    p.add_argument(
        "--no-notices", dest="notices", action="store_false", help="do not print the players' private notices"
    )
    p.set_defaults(func=cmd_setup)

    p = sub.add_parser("state", help="the secret game state (judges only)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--history", action="store_true", help="every stored version of the state")
    p.set_defaults(func=cmd_state)

    p = sub.add_parser("init", help="write a starter game file (--game FILE, default ./forumbot.toml)")
    p.add_argument("--ruleset", default="R001", help="R001, R000-GP, R000-G1, R000-G2 or R004")
    p.add_argument("--board", default="https://bbs.example.com/", help="the board's root URL")
    p.add_argument("--name", default="版杀", help="the game's name (used in drafts and in the store)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("undo", help="step the secret state back one version (a night, a day close, a setup)")
    p.set_defaults(func=cmd_undo)

    p = sub.add_parser("flags", help="every rule-reading flag with its default and AMB id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_flags)

    night = sub.add_parser("night", help="night submissions and their resolution")
    nsub = night.add_subparsers(dest="night_command", metavar="ACTION")
    p = nsub.add_parser("submit", help="record a night submission (checked against the rules now)")
    p.add_argument(
        "--night", "--day", dest="night", type=int, required=True, help="the night (= the day it opens)"
    )
    p.add_argument("kind", nargs="?", choices=ACTIONS)
    p.add_argument("--file", help="a TOML file of [[submissions]]")
    p.add_argument("--by", help="who submitted (a group member, or the role holder)")
    p.add_argument("--target")
    p.add_argument("--pledge", help="R001: 生死状, the bandit who dies with the poison")
    p.add_argument("--possess", help="R001: the ghost's possession target")
    p.add_argument("--kill-text", dest="kill_text", help="the kill text (杀文)")
    p.add_argument("--first")
    p.add_argument("--second")
    p.add_argument("--order", nargs="+", help="R004 撕票 order")
    p.add_argument(
        "--at", help='when it was submitted, "YYYY-MM-DD HH:MM" in the game time zone (default now)'
    )
    p.set_defaults(func=cmd_night_submit)
    p = nsub.add_parser("resolve", help="resolve the night: out-list, private messages, case post draft")
    p.add_argument("--night", "--day", dest="night", type=int, required=True)
    p.add_argument("--seed", type=int, help="seed for random draws the rules call for (recorded)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_night_resolve)
    p = nsub.add_parser("extra-check", help="R001: the police's extra check after checking the poison")
    p.add_argument("--night", "--day", dest="night", type=int, required=True)
    p.add_argument("target")
    p.add_argument("--at", help="when the police submitted it (default now)")
    p.add_argument(
        "--result-at",
        dest="result_at",
        help="when the first result reached the police (default: when resolved)",
    )
    p.set_defaults(func=cmd_night_extra)
    night.set_defaults(func=lambda a: (night.print_help(), 2)[1])

    p = sub.add_parser(
        "tally", help="judge the day's vote thread: a verdict for every post, the count, a draft"
    )
    p.add_argument("--day", type=int, required=True)
    p.add_argument("--at", help="the count as of this moment (game time zone)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_tally)

    p = sub.add_parser("attendance", help="valid discussion posts per player (and the elevator)")
    p.add_argument("--day", type=int, required=True)
    p.add_argument("--json", action="store_true")
    p.add_argument("--elevator", action="store_true", help="also print the 电梯 draft")
    p.set_defaults(func=cmd_attendance)

    p = sub.add_parser("revote", help="plan a revote (who, for whom, until when) and tally it")
    p.add_argument("--day", type=int, required=True)
    p.add_argument("--call", action="store_true", help="record that the call is posted now")
    p.add_argument("--call-at", dest="call_at", help="record that the call was posted at this time")
    p.set_defaults(func=cmd_revote)

    p = sub.add_parser("override", help="a judge's correction of one post's verdict (logged, applied later)")
    p.add_argument("pid", type=int)
    p.add_argument(
        "--day", type=int, help="the day whose vote thread holds the post (default: found from the pid)"
    )
    p.add_argument(
        "--as", dest="as_kind", required=True, choices=("vote", "abstain", "void", "ignore", "change")
    )
    p.add_argument("--target")
    p.add_argument("--why", required=True)
    p.set_defaults(func=cmd_override)

    p = sub.add_parser("proxy", help="record a proxy vote (代投) entered by the judge")
    p.add_argument("player")
    p.add_argument("target")
    p.add_argument("--day", type=int, required=True)
    p.add_argument("--at")
    p.set_defaults(func=cmd_proxy)

    p = sub.add_parser("close", help="apply the day's result to the game: execution, drownings, win check")
    p.add_argument("--day", type=int, required=True)
    p.set_defaults(func=cmd_close)

    p = sub.add_parser("watch", help="poll on the timetable; full read and drafts at every deadline")
    p.add_argument("--every", type=float, default=5.0, help="minutes between polls (default 5)")
    p.add_argument("--drafts", default="drafts", help="folder for the drafts written at deadlines")
    p.add_argument("--once", action="store_true", help="one tick, then stop")
    p.set_defaults(func=cmd_watch)
