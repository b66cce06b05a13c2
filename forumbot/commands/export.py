"""``forumbot export``: a day's verdicts, attendance and 电梯, or the whole game's record, as CSV or XLSX
for the judges' spreadsheets (the tables are the desk's; see forumbot/export.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from forumbot.errors import UsageError
from forumbot.i18n import _


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export",
        help=_("write a day's or the whole game's record as CSV or XLSX"),
        description=_(
            "Write what the desk shows as spreadsheet tables: with --day, that day's verdicts, tally, "
            "attendance and elevator; without it, the whole game (players with their roles, the "
            "timeline, every night and every day). The game export holds every role: keep it among "
            "the judges."
        ),
    )
    p.add_argument("--day", type=int)
    p.add_argument("--format", choices=("csv", "xlsx"), default="xlsx", help=_("csv or xlsx (default)"))
    p.add_argument(
        "--out",
        metavar="PATH",
        required=True,
        help=_("the workbook (.xlsx) or, for CSV, a folder that gets one file per table"),
    )
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from forumbot import export
    from forumbot.commands.common import open_game
    from forumbot.store.db import open_store

    game = open_game(args)
    if args.day is not None and args.day not in {d.day for d in game.days}:
        raise UsageError(_("day {day} is not in the game file").format(day=args.day))
    with open_store(getattr(args, "store", None) or game.store_url) as store:
        tables = export.day_tables(game, store, args.day) if args.day else export.game_tables(game, store)
        for path in export.write(tables, args.format, Path(args.out)):
            print(_("written: {path}").format(path=path))
    return 0
