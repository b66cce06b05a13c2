"""``forumbot lastwords`` and ``forumbot applications``: the last words owed after a day (and what waits
for them), and R004's delay/acceleration applications of a day with a verdict for each post."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from forumbot.commands.common import console, lit, local_time, open_desk
from forumbot.errors import UsageError
from forumbot.i18n import _
from forumbot.labels import (
    LAST_WORDS_STATUS_LABELS,
    LAST_WORDS_WHERE_LABELS,
    colon,
    held_item_label,
    last_words_label,
)

if TYPE_CHECKING:
    from forumbot.config import Game


def _t(game: Game, t: datetime | None) -> str | None:
    return t.astimezone(game.tz).isoformat() if t is not None else None


def _local(game: Game, t: datetime | None) -> str:
    return t.astimezone(game.tz).strftime("%m-%d %H:%M") if t is not None else ""


def cmd_lastwords(args: argparse.Namespace) -> int:
    from rich.table import Table

    game, store, desk = open_desk(args)
    with store:
        at = local_time(game, args.at, "--at")
        received: dict[str, datetime] = {}
        for item in args.received or []:
            name, sep, when = item.partition("=")
            if not sep or not name.strip():
                raise UsageError(
                    _("--received {item!r}: write NAME=TIME, e.g. 豆花='2026-06-10 22:30'").format(item=item)
                )
            received[name.strip()] = local_time(game, when.strip(), "--received")
        report = desk.last_words(args.day, at, received=received)
        held = report.held
        data: dict[str, Any] = {
            "day": report.day,
            "at": _t(game, at),
            "windows": [
                {
                    "player": w.player,
                    "where": w.where,
                    "due": _t(game, w.due),
                    "holds": list(w.holds),
                    "status": w.status(at, report.posted.get(w.player)).value,
                    "posted_at": _t(game, report.posted.get(w.player)),
                    "pid": report.pids.get(w.player),
                    "reason": w.reason_zh(at, report.posted.get(w.player)),
                }
                for w in report.windows
            ],
            "held": {
                "holds": list(held.holds),
                "released_at": _t(game, held.released_at),
                "pending": list(held.pending),
                "forfeited": list(held.forfeited),
                "reason": held.reason,
            },
            "notes": list(report.notes),
        }
        if args.json:
            print(json.dumps(data, ensure_ascii=False, indent=1))
            return 0
        out = console()
        t = Table(_("player"), _("where"), _("due"), _("status"), _("reason"))
        shown = {
            w.player: _local(game, w.due) for w in report.windows
        }  # the board's time, as a judge reads it
        for row in data["windows"]:
            t.add_row(
                lit(row["player"]),
                last_words_label(LAST_WORDS_WHERE_LABELS, row["where"]),
                shown[row["player"]],
                last_words_label(LAST_WORDS_STATUS_LABELS, row["status"]),
                lit(row["reason"]),
            )
        out.print(_("[b]Day {day}: last words[/b] (as of {at})").format(day=args.day, at=_local(game, at)))
        out.print(t)
        release = _local(game, held.released_at) or _("still held")
        waiting = _(", ").join(held_item_label(h) for h in held.holds) or _("nothing waits")
        out.print(f"{lit(waiting)}{colon()}{release} — {lit(held.reason)}")
        for note in report.notes:
            out.print(f"⚑ {lit(note)}")
    return 0


def cmd_applications(args: argparse.Namespace) -> int:
    from rich.table import Table

    game, store, desk = open_desk(args)
    with store:
        day = game.day(args.day)
        result = desk.applications(day)
        if result is None:
            raise UsageError(
                _("day {day} has no process thread to read: R004 only, with [[days]] process = TID").format(
                    day=args.day
                )
            )
        data: dict[str, Any] = {
            "day": args.day,
            "needed": result.needed,
            "close": _t(game, result.close),
            "accelerated_at": _t(game, result.accelerated_at),
            "acceleration_granted_at": _t(game, result.acceleration_granted_at),
            "acceleration_ended_at": _t(game, result.acceleration_ended_at),
            "delay_granted_at": _t(game, result.delay_granted_at),
            "delay_applicants": list(result.delay_applicants),
            "acceleration_applicants": list(result.acceleration_applicants),
            "game_file_wins": sorted({"close", "accelerated"} & day.given),
            "posts": [
                {
                    "pid": v.pid,
                    "author": v.author,
                    "at": _t(game, v.at),
                    "kind": v.kind.value,
                    "counted": v.counted,
                    "review": v.needs_review,
                    "reason": v.reason,
                }
                for v in result.verdicts
            ],
        }
        if args.json:
            print(json.dumps(data, ensure_ascii=False, indent=1))
            return 0
        out = console()
        t = Table(_("pid"), _("author"), _("time"), _("kind"), _("counted"), _("reason"))
        for v in data["posts"]:
            flag = "⚑ " if v["review"] else ""
            t.add_row(
                str(v["pid"]),
                lit(v["author"]),
                v["at"] or "",
                v["kind"],
                _("yes") if v["counted"] else "",
                flag + lit(v["reason"]),
            )
        out.print(
            _("[b]Day {day}: delay/acceleration applications[/b] (needed: {needed})").format(
                day=args.day, needed=result.needed
            )
        )
        out.print(t)
        out.print(
            _("close: {close}; accelerated: {accelerated} until {until}").format(
                close=data["close"],
                accelerated=data["accelerated_at"] or "-",
                until=data["acceleration_ended_at"] or _("the close"),
            )
        )
        if data["game_file_wins"]:
            out.print(
                _("the game file gives {what}: it wins over the applications").format(
                    what=_(", ").join(data["game_file_wins"])
                )
            )
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("lastwords", help=_("last words (遗言) owed after a day, and what waits for them"))
    p.add_argument("--day", type=int, required=True)
    p.add_argument("--at", help=_("as of this board-zone time (default: now)"))
    p.add_argument(
        "--received",
        action="append",
        metavar="NAME=TIME",
        help=_("R004: words the director received (NAME=TIME)"),
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_lastwords)
    p = sub.add_parser("applications", help=_("R004: the day's 延时/加速 applications (process thread)"))
    p.add_argument("--day", type=int, required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_applications)
