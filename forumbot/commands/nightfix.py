"""A night's stored submissions, as the judges correct them: ``night submissions`` lists them with their
ids (withdrawn ones struck, with who, when and why) and ``night correct ID`` withdraws one or replaces it
— the same desk operation as the web desk's night page (:meth:`forumbot.desk.Desk.night_correct`), so the
preview, ``night resolve`` and the runner resolve the corrected night. Refused once the night is
resolved: ``forumbot undo`` first."""

from __future__ import annotations

import argparse
import json
from typing import Any

from forumbot.commands import LazyChoices
from forumbot.commands.common import console, lit, local_time, open_desk
from forumbot.errors import UsageError
from forumbot.i18n import N_, _

CORRECT_EXAMPLES = N_(
    "examples:\n"
    "  forumbot night submissions --night 2\n"
    '  forumbot night correct 14 --night 2 --kind kill --by 粽子 --target 锅贴 --why "匪帮私信确认改刀"\n'
    '  forumbot night correct 15 --night 2 --withdraw --why "法官录错了人"'
)


def cmd_night_submissions(args: argparse.Namespace) -> int:
    from forumbot.desk.night import describe_action
    from forumbot.desk.nightmessages import FROM_MESSAGES

    game, store, desk = open_desk(args)
    with store:
        rows = desk.night_submission_records(args.night)
        if args.json:
            print(
                json.dumps(
                    [
                        {
                            "id": r.id,
                            "action": r.data,
                            "at": r.at.astimezone(game.tz).isoformat(),
                            "entered_by": r.entered_by,
                            "why": r.why,
                            "replaces": r.replaces,
                            "withdrawn": r.withdrawn,
                            "withdrawn_by": r.withdrawn_by or None,
                            "withdrawn_why": r.withdrawn_why or None,
                        }
                        for r in rows
                    ],
                    ensure_ascii=False,
                    indent=1,
                )
            )
            return 0
        out = console()
        if not rows:
            out.print(_("night {n}: no submission stored").format(n=args.night))
        from engine import action_from_dict

        for r in rows:
            said = describe_action(action_from_dict(r.data))
            line = f"#{r.id} {r.at.astimezone(game.tz):%m-%d %H:%M} {lit(said)}"
            who = _("entered by {who}").format(who=lit(r.entered_by))
            who += f"：{lit(_(r.why) if r.why == FROM_MESSAGES else r.why)}" if r.why else ""
            if r.withdrawn:
                when = r.withdrawn_at.astimezone(game.tz).strftime("%m-%d %H:%M") if r.withdrawn_at else "?"
                gone = _("withdrawn by {who} at {at}: {why}").format(
                    who=lit(r.withdrawn_by), at=when, why=lit(r.withdrawn_why)
                )
                out.print(f"[strike]{line}[/strike]  [dim]{who}; {gone}[/dim]")
            else:
                out.print(f"{line}  [dim]{who}[/dim]")
    return 0


def cmd_night_correct(args: argparse.Namespace) -> int:
    from forumbot.desk.night import SUBMISSION_FIELDS, action_from_fields

    game, store, desk = open_desk(args)
    with store:
        if not args.why:
            raise UsageError(_("a correction needs --why (it is kept with the night's submissions)"))
        action = None
        if not args.withdraw:
            if not args.kind:
                raise UsageError(
                    _("give the corrected action (e.g. `--kind kill --by X --target Y`) or --withdraw")
                )
            fields: dict[str, Any] = {
                k: v for k, v in vars(args).items() if v is not None and k in SUBMISSION_FIELDS
            }
            action = action_from_fields(args.kind, fields)
        elif args.kind:
            raise UsageError(_("--withdraw takes no corrected action"))
        at = local_time(game, args.at, "night correct --at") if args.at else None
        rec = desk.night_correct(args.night, args.id, action, args.why, at=at)
        from forumbot.store import judges as judges_repo

        what = "withdrawn" if rec is None else f"→ {rec.what}"
        judges_repo.log_change(
            store, desk.by, "night correction", f"night {args.night} #{args.id} {what}: {args.why}"
        )
        if rec is None:
            console().print(_("night {n}: submission #{id} withdrawn").format(n=args.night, id=args.id))
        else:
            console().print(
                _("night {n}: submission #{id} corrected: {what}").format(
                    n=args.night, id=args.id, what=lit(rec.what)
                )
            )
            if rec.void_rule:
                console().print(f"  [yellow]{lit(rec.void_reason)}[/yellow]")
    return 0


def action_kinds() -> tuple[str, ...]:
    """The night's action kinds in the engine's order (the desk's NIGHT_ACTION_KINDS, without the desk)."""
    from engine import ACTION_KINDS

    return tuple(kind.value for kind in ACTION_KINDS)


def register(nsub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = nsub.add_parser(
        "submissions",
        help=_("the night's stored submissions with their ids (what the night is resolved from)"),
        epilog=_(CORRECT_EXAMPLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--night", "--day", dest="night", type=int, required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_night_submissions)
    p = nsub.add_parser(
        "correct",
        help=_("withdraw a stored submission, or replace it by the corrected one (before the resolution)"),
        epilog=_(CORRECT_EXAMPLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "id", type=int, metavar="ID", help=_("the submission's id (`night submissions` lists them)")
    )
    p.add_argument("--night", "--day", dest="night", type=int, required=True)
    p.add_argument(
        "--kind", choices=LazyChoices(action_kinds), metavar="KIND", help=_("the corrected action's kind")
    )
    p.add_argument("--withdraw", action="store_true", help=_("withdraw it, with nothing in its place"))
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
    p.add_argument("--at", help=_("when it was submitted (default: the withdrawn one's time)"))
    p.add_argument("--why", help=_("why (kept with the submission and in the desk log)"))
    p.set_defaults(func=cmd_night_correct)
