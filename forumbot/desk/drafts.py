"""The desk's drafts: what a judge posts after a night or a day, built from the desk's results.

The desk decides what is public (which events, which identity the rules reveal); forumbot/drafts.py
lays the public parts out in Discuz! BBCode through the templates.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import TYPE_CHECKING

from engine import (
    AttendanceResult,
    AudienceKind,
    Event,
    EventKind,
)
from forumbot import drafts
from forumbot.config import DayConfig
from forumbot.desk.day import DayJudgement
from forumbot.errors import UsageError

if TYPE_CHECKING:
    from forumbot.desk import Desk


def case_post_draft(desk: Desk, n: int, events: tuple[Event, ...]) -> str:
    """The case post after night ``n``: the public events, the vote's closing time, the game's end."""
    game = desk.game
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
    title = desk.ruleset.case_post_title.format(n=n)
    view = drafts.CasePostView(game.name, title, "\n".join(body), closes if not over else "", "\n".join(over))
    return drafts.render_case_post(view)


def vote_count_draft(desk: Desk, judged: DayJudgement) -> str:
    """The vote count with every voter linked to his floor and, once final, what the close does."""
    game = desk.game
    preview = desk.preview_close(judged) if not judged.provisional else None
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
            # R001's execution notice names the identity: without the roles stored, the judge fills it in.
            reveal_missing=desk.state() is None and desk.ruleset.reveals_executed_identity,
            judges=frozenset(game.judges),
            provisional=judged.provisional_reasons,
        )
    )


def elevator_draft(
    desk: Desk, day: DayConfig, attendance: AttendanceResult, floors: dict[int, int | None], now: datetime
) -> str:
    """The elevator (电梯): each player's valid discussion posts, linked, as of ``now``."""
    game = desk.game
    living = desk.living(day.day)
    view = drafts.elevator_view(
        game_name=game.name,
        day=day.day,
        board_url=game.board.url,
        tid=day.discussion_tid or 0,
        roster=tuple(p for p in game.roster if p in living),  # the living only (issue 8)
        attendance=attendance,
        floors=floors,
        as_of=drafts.local_text(now, game.tz),
        rule="顶、+1、纯表情、纯引用等不计",
        apart=desk.attendance_apart(day, attendance),
    )
    return drafts.render_elevator(view)
