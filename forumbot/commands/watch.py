"""``watch``: poll on the timetable, with a full read and drafts written at every deadline."""

from __future__ import annotations

import argparse
from pathlib import Path

from forumbot.commands.common import open_desk
from forumbot.desk import vote_count_draft
from forumbot.i18n import _


def cmd_watch(args: argparse.Namespace) -> int:
    from forumbot.client import BoardClient
    from forumbot.poll import poll
    from forumbot.watch import Moment, Watcher, run_forever

    game, store, desk = open_desk(args)
    client = BoardClient(game.board)
    drafts_dir = Path(args.drafts)
    drafts_dir.mkdir(parents=True, exist_ok=True)

    def run_poll(full: bool) -> object:
        report = poll(client, store, game.board, game.watched_tids(), full=full, progress=False)
        print(report.summary())
        return report

    def on_deadline(m: Moment) -> None:
        desk.refresh()
        judged = desk.tally(m.day)
        path = drafts_dir / f"day{m.day}-{m.kind.value}.bbcode"
        path.write_text(vote_count_draft(desk, judged), "utf-8")
        print(_("day {n} {moment}: draft written to {path}").format(n=m.day, moment=m.kind.value, path=path))

    watcher = Watcher(game, run_poll, on_deadline)
    try:
        run_forever(watcher, args.every, stop=lambda: args.once)
    except KeyboardInterrupt:
        pass
    finally:
        store.close()
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("watch", help=_("poll on the timetable; full read and drafts at every deadline"))
    p.add_argument("--every", type=float, default=5.0, help=_("minutes between polls (default 5)"))
    p.add_argument("--drafts", default="drafts", help=_("folder for the drafts written at deadlines"))
    p.add_argument("--once", action="store_true", help=_("one tick, then stop"))
    p.set_defaults(func=cmd_watch)
