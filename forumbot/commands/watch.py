"""``watch``: poll on the timetable, with a full read and drafts written at every deadline."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from forumbot.commands.common import open_desk
from forumbot.desk import Desk, vote_count_draft
from forumbot.i18n import _

if TYPE_CHECKING:
    from forumbot.watch import Moment


def deadline_draft(desk: Desk, m: Moment, folder: Path, log: Callable[[str], None] = print) -> bool:
    """At deadline ``m``: judge the day and write its vote-count draft to ``folder``.

    A draft is written only when the day's threads were read completely after the deadline (issue 8:
    never a final draft from an incomplete read). Otherwise nothing is written, the reasons are
    logged, and False tells the watcher to try again at its next tick.
    """
    desk.refresh()
    # Before the close (a void or change cutoff) the draft is the running count at that moment.
    judged = desk.tally(m.day) if m.kind.value == "close" else desk.tally(m.day, as_of=m.deadline)
    if judged.read_reasons:
        log(f"day {m.day} {m.kind.value}: 读取不完整，未写草稿，下次轮询再试：")
        for why in judged.read_reasons:
            log(f"  - {why}")
        return False
    path = folder / f"day{m.day}-{m.kind.value}.bbcode"
    path.write_text(vote_count_draft(desk, judged), "utf-8")
    log(f"day {m.day} {m.kind.value}: draft written to {path}")
    return True


def cmd_watch(args: argparse.Namespace) -> int:
    from forumbot.client import BoardClient
    from forumbot.poll import poll
    from forumbot.watch import Watcher, run_forever

    game, store, desk = open_desk(args)
    client = BoardClient(game.board)
    drafts_dir = Path(args.drafts)
    drafts_dir.mkdir(parents=True, exist_ok=True)

    def run_poll(full: bool) -> object:
        report = poll(
            client,
            store,
            game.board,
            game.watched_tids(),
            full=full,
            progress=False,
            marker_tids=game.vote_tids(),
        )
        print(report.summary())
        return report

    def on_deadline(m: Moment) -> bool:
        return deadline_draft(desk, m, drafts_dir)

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
