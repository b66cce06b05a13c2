"""The night: ``night submit``, ``night resolve``, ``night extra-check``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from forumbot.commands import LazyChoices
from forumbot.commands.common import console, local_time, open_desk, print_events
from forumbot.errors import UsageError
from forumbot.i18n import _


def cmd_night_submit(args: argparse.Namespace) -> int:
    from forumbot.desk import read_submissions

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
                {
                    k: v
                    for k, v in vars(args).items()
                    if v is not None
                    and k
                    in ("by", "target", "pledge", "possess", "kill_text", "first", "second", "order", "at")
                }
                | {"kind": args.kind}
            ]
        for rec in desk.night_entries(args.night, entries):
            note = " " + _("[b](late: after the deadline)[/b]") if rec.late else ""
            if rec.duplicate:
                line = _("night {n}: already recorded, unchanged {what}")
            else:
                line = _("night {n}: recorded {what}")
            console().print(line.format(n=args.night, what=rec.what) + note)
            if rec.void_rule:
                console().print(
                    f"  [yellow]按规则无效（{rec.void_rule}），已记录为已提交：{rec.void_reason}[/yellow]"
                )
            if rec.replaces:
                console().print(f"  [yellow]⚑ {rec.replaces}[/yellow]")
    return 0


def cmd_night_resolve(args: argparse.Namespace) -> int:
    from engine import event_to_dict
    from forumbot.desk import case_post_draft

    _game, store, desk = open_desk(args)
    with store:
        res = desk.night_resolve(args.night, seed=args.seed)
        draft = case_post_draft(desk, args.night, res.events)
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
        out.print(
            _("[b]Night {n} resolved.[/b] Out: {out}").format(
                n=args.night, out="、".join(res.out) or _("(nobody)")
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


def _action_kinds() -> tuple[str, ...]:
    """The night's action kinds in the engine's order (the desk's NIGHT_ACTION_KINDS, without the desk)."""
    from engine import ACTION_KINDS

    return tuple(kind.value for kind in ACTION_KINDS)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    night = sub.add_parser("night", help=_("night submissions and their resolution"))
    nsub = night.add_subparsers(dest="night_command", metavar="ACTION")
    p = nsub.add_parser("submit", help=_("record a night submission (checked against the rules now)"))
    p.add_argument(
        "--night", "--day", dest="night", type=int, required=True, help=_("the night (= the day it opens)")
    )
    p.add_argument("kind", nargs="?", choices=LazyChoices(_action_kinds), metavar="KIND")
    p.add_argument("--file", help=_("a TOML file of [[submissions]]"))
    p.add_argument("--by", help=_("who submitted (a group member, or the role holder)"))
    p.add_argument("--target")
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
    night.set_defaults(func=lambda a: (night.print_help(), 2)[1])
