"""The night: ``night submit``, ``night resolve``, ``night extra-check``, and the messages the runner read
from the board: ``night messages`` (each with its verdict) and ``night override`` (a judge's verdict on
one message, or ``--undo``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forumbot.commands import (
    LazyChoices,
    nightfix,  # `night submissions`, `night correct`
)
from forumbot.commands.common import console, lit, local_time, open_desk, print_events
from forumbot.commands.nightfix import action_kinds
from forumbot.errors import UsageError
from forumbot.i18n import N_, _

if TYPE_CHECKING:
    from engine import GameState, Resolution
    from forumbot.desk import Desk, NightOverrideDone
    from forumbot.desk.nightmessages import NightMessageLine

MESSAGES_EXAMPLES = N_(
    "examples:\n"
    "  forumbot night messages --night 2          # every message the runner read, with its verdict\n"
    "  forumbot night messages --night 2 --json   # the same for tools (English keys and codes)"
)
OVERRIDE_EXAMPLES = N_(
    "examples:\n"
    '  forumbot night override pm:7 --as accept --kind kill --target 煎饼 --why "匪帮确认改刀"\n'
    '  forumbot night override pid:53 --as accept --kind check --target 烧卖 --why "烧麦 = 烧卖"\n'
    '  forumbot night override pid:60 --as ignore --why "只是讨论，不是提交"\n'
    '  forumbot night override pm:7 --undo --why "记错了"\n'
    "  (the id is the one `forumbot night messages` lists; the next tick resolves the night with it)"
)


def where_label(line: NightMessageLine) -> str:
    from engine import GROUP_ZH
    from forumbot.nightmail import NightChannel

    """Where a message was sent, in the judge's words (a group's thread, or a PM to the judge)."""
    m = line.message
    if m.channel is NightChannel.PM:
        return _("PM to the judge")
    return GROUP_ZH[m.group] if m.group is not None else _("group thread")


def cmd_night_submit(args: argparse.Namespace) -> int:
    from forumbot.desk import read_submissions
    from forumbot.desk.night import SUBMISSION_FIELDS

    _game, store, desk = open_desk(args)
    with store:
        entries: list[dict[str, Any]] = []
        if args.file:
            entries = read_submissions(Path(args.file))
        else:
            if not args.kind:
                raise UsageError(
                    _("give the action (e.g. `night submit --night 1 kill --target X`) or --file")
                )
            entries = [
                {k: v for k, v in vars(args).items() if v is not None and k in SUBMISSION_FIELDS}
                | {"kind": args.kind}
            ]
        for rec in desk.night_entries(args.night, entries):
            note = " " + _("[b](late: after the deadline)[/b]") if rec.late else ""
            if rec.duplicate:
                line = _("night {n}: already recorded, unchanged {what}")
            else:
                line = _("night {n}: recorded {what}")
            console().print(line.format(n=args.night, what=lit(rec.what)) + note)
            if rec.void_rule:
                console().print(
                    f"  [yellow]按规则无效（{lit(rec.void_rule)}），"
                    f"已记录为已提交：{lit(rec.void_reason)}[/yellow]"
                )
            if rec.replaces:
                console().print(f"  [yellow]⚑ {lit(rec.replaces)}[/yellow]")
    return 0


def night_json(desk: Desk, n: int, res: Resolution, before: GameState) -> dict[str, Any]:
    """Night ``n``'s resolution for tools (``night resolve --json``), all from the desk: the out-list,
    the events, the case post and every private message (recipient and body, the night's dead
    included) exactly as the runner sends them."""
    from engine import event_to_dict
    from forumbot.desk import case_post_draft

    return {
        "night": n,
        "out": list(res.out),
        "events": [event_to_dict(e) for e in res.events],
        "case_post": case_post_draft(desk, n, res.events),
        "private": [
            {"player": m.player, "check_result": m.check_result, "body": m.body}
            for m in desk.night_private_messages(n, res, before)
        ],
        "outcome": str(res.outcome) if res.outcome else None,
    }


def cmd_night_resolve(args: argparse.Namespace) -> int:
    from forumbot.desk import case_post_draft

    _game, store, desk = open_desk(args)
    with store:
        before = desk.require_state()
        res = desk.night_resolve(args.night, seed=args.seed)
        draft = case_post_draft(desk, args.night, res.events)
        if args.json:
            print(
                json.dumps(
                    night_json(desk, args.night, res, before), ensure_ascii=False, indent=1, default=str
                )
            )
            return 0
        out = console()
        out.print(
            _("[b]Night {n} resolved.[/b] Out: {out}").format(
                n=args.night, out=lit("、".join(res.out)) or _("(nobody)")
            )
        )
        print_events(res.events, out)
        out.print("\n" + _("[b]Case post draft (public):[/b]") + "\n")
        print(draft)
    return 0


def cmd_night_extra(args: argparse.Namespace) -> int:
    game, store, desk = open_desk(args)
    with store:
        at = local_time(game, args.at, "--at")
        result_at = local_time(game, args.result_at, "--result-at") if args.result_at else None
        res = desk.night_extra_check(args.night, args.target, at, result_at=result_at)
        print_events(res.events, console())
    return 0


def cmd_night_messages(args: argparse.Namespace) -> int:
    from rich.table import Table

    from forumbot.nightmail import CODE_LABELS

    game, store, desk = open_desk(args)
    with store:
        listing = desk.night_listing(args.night)
        if args.json:
            print(json.dumps(listing.to_json(game.tz), ensure_ascii=False, indent=1))
            return 0
        out = console()
        state = _("resolved") if listing.resolved else _("not resolved yet")
        out.print(
            _("[b]Night {n}[/b]: {count} messages, due {deadline} ({state})").format(
                n=listing.night,
                count=len(listing.lines),
                deadline=listing.deadline.astimezone(game.tz).strftime("%m-%d %H:%M"),
                state=state,
            )
        )
        if not listing.lines:
            out.print(
                _(
                    "No message of night {n} is stored: the runner reads the groups' threads and the "
                    "judge's PMs at the night's deadline (`forumbot tick`)."
                ).format(n=listing.night)
            )
            return 0
        t = Table(_("id"), _("time"), _("author"), _("where"), _("verdict"), _("reason"))
        for line in listing.lines:
            v = line.verdict
            mark = " ⚑" if v.needs_review else ""
            reason = v.reason + (f"（{v.suggestion}？）" if v.suggestion else "")
            t.add_row(
                v.message_id,
                line.message.at.astimezone(game.tz).strftime("%m-%d %H:%M"),
                lit(v.author),
                lit(where_label(line)),
                _(CODE_LABELS[v.code]) + mark,
                lit(reason),
            )
        out.print(t)
        for item in listing.open:
            out.print(_("[yellow]⚑ waits for a judge:[/yellow] {item}").format(item=lit(item)))
        for note in listing.notes:
            out.print(f"⚑ {lit(note)}")
        if not listing.open:
            out.print(_("Every message has a verdict: nothing waits for a judge."))
    return 0


def _print_done(done: NightOverrideDone) -> None:
    from forumbot.nightmail import CODE_LABELS

    out = console()
    r, v = done.record, done.verdict
    if r.verdict == "undo":
        out.print(
            _("override of {id} undone (night {n}; {why}; by {by}).").format(
                id=lit(r.message_id), n=r.night, why=lit(r.why or "-"), by=lit(r.by)
            )
        )
    else:
        out.print(
            _("override recorded: {id} → {verdict} (night {n}; {why}; by {by}).").format(
                id=lit(r.message_id), verdict=r.verdict, n=r.night, why=lit(r.why), by=lit(r.by)
            )
        )
    out.print(
        _("Its verdict now: {label} — {reason}").format(label=_(CODE_LABELS[v.code]), reason=lit(v.reason))
    )
    if done.warning:
        out.print(f"[yellow]⚑ {lit(done.warning)}[/yellow]")


def cmd_night_override(args: argparse.Namespace) -> int:
    _game, store, desk = open_desk(args)
    with store:
        if args.undo:
            if args.as_kind:
                raise UsageError(_("--undo takes no --as"))
            done = desk.night_override_undo(args.message_id, args.why or "", night=args.night)
        else:
            if not args.as_kind:
                raise UsageError(_("give --as accept or --as ignore (or --undo)"))
            done = desk.night_override(
                args.message_id,
                args.as_kind,
                args.why or "",
                kind=args.kind,
                targets=args.target or (),
                none=args.none,
                pledge=args.pledge,
                possess=args.possess,
                text=args.text,
                actor=args.by,
                waive_time=args.waive_time,
                night=args.night,
            )
        _print_done(done)
    return 0


def _override_kinds() -> tuple[str, ...]:
    """What a night message may be accepted as: the kinds of every rule set's night vocabulary (the desk
    checks the game's own), loaded when needed."""
    from engine import all_rulesets
    from forumbot.desk import night_override_kinds

    return tuple(dict.fromkeys(k for rs in all_rulesets() for k in night_override_kinds(rs)))


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    night = sub.add_parser("night", help=_("night submissions and their resolution"))
    nsub = night.add_subparsers(dest="night_command", metavar="ACTION")
    p = nsub.add_parser("submit", help=_("record a night submission (checked against the rules now)"))
    p.add_argument(
        "--night", "--day", dest="night", type=int, required=True, help=_("the night (= the day it opens)")
    )
    p.add_argument("kind", nargs="?", choices=LazyChoices(action_kinds), metavar="KIND")
    p.add_argument(
        "--file",
        help=_("a TOML file of [[submissions]], each with its kind, its time (at) and its kind's fields"),
    )
    p.add_argument("--by", help=_("who submitted (a group member, or the role holder)"))
    p.add_argument("--target")
    p.add_argument(
        "--none",
        action="store_true",
        help=_("a kill or protection with no target, on purpose (空刀, 放弃守护)"),
    )
    p.add_argument("--pledge", help=_("R001: 生死状, the bandit who dies with the poison"))
    p.add_argument("--possess", help=_("R001: the ghost's possession target"))
    p.add_argument("--kill-text", dest="kill_text", help=_("the kill text (杀文)"))
    p.add_argument("--first")
    p.add_argument("--second")
    p.add_argument("--order", nargs="+", help=_("R004 撕票 order"))
    p.add_argument(
        "--at", help=_('when it was submitted, "YYYY-MM-DD HH:MM" in the game time zone (default now)')
    )
    p.set_defaults(func=cmd_night_submit)
    p = nsub.add_parser("resolve", help=_("resolve the night: out-list, private messages, case post draft"))
    p.add_argument("--night", "--day", dest="night", type=int, required=True)
    p.add_argument("--seed", type=int, help=_("seed for random draws the rules call for (recorded)"))
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_night_resolve)
    p = nsub.add_parser("extra-check", help=_("R001: the police's extra check after checking the poison"))
    p.add_argument("--night", "--day", dest="night", type=int, required=True)
    p.add_argument("target")
    p.add_argument("--at", help=_("when the police submitted it (default now)"))
    p.add_argument(
        "--result-at",
        dest="result_at",
        help=_("when the first result reached the police (default: when resolved)"),
    )
    p.set_defaults(func=cmd_night_extra)
    p = nsub.add_parser(
        "messages",
        help=_("every night message the runner read (group threads, PMs) with its verdict and id"),
        epilog=_(MESSAGES_EXAMPLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--night", "--day", dest="night", type=int, required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_night_messages)
    p = nsub.add_parser(
        "override",
        help=_("a judge's verdict on one night message: accept it as an action, or ignore it"),
        epilog=_(OVERRIDE_EXAMPLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("message_id", metavar="MSGID", help=_("the message's id as listed (pid:53, pm:7)"))
    p.add_argument(
        "--as",
        dest="as_kind",
        choices=("accept", "ignore"),  # the desk's NIGHT_OVERRIDE_VERDICTS (tests/test_startup.py)
        help=_("accept: read it as the action given; ignore: strike it out"),
    )
    p.add_argument(
        "--kind",
        choices=LazyChoices(_override_kinds),
        metavar="KIND",
        help=_("--as accept: the action it is"),
    )
    p.add_argument(
        "--target",
        action="append",
        help=_("the action's target (again for a second one: Cupid's two lovers, the hostages' order)"),
    )
    p.add_argument("--none", action="store_true", help=_("no target: 空刀, 不附体, 放弃守护"))
    p.add_argument("--pledge", help=_("R001: 生死状, the bandit who dies with the poison"))
    p.add_argument("--possess", help=_("R001: the ghost's possession target"))
    p.add_argument("--text", help=_("the kill text (杀文)"))
    p.add_argument("--by", help=_("judge it as sent by this player (default: its author)"))
    p.add_argument(
        "--waive-time",
        dest="waive_time",
        action="store_true",
        help=_("accept it although it came late (e.g. the board was down at the deadline)"),
    )
    p.add_argument("--undo", action="store_true", help=_("cancel the message's override (kept, logged)"))
    p.add_argument("--night", "--day", dest="night", type=int, help=_("the night (default: the message's)"))
    p.add_argument("--why", help=_("why (shown with the night's verdicts)"))
    p.set_defaults(func=cmd_night_override)

    nightfix.register(nsub)
    night.set_defaults(func=lambda a: (night.print_help(), 2)[1])
