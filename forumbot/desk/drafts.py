"""The desk's drafts: what a judge posts after a night or a day, built from the desk's results.

The desk decides what is public (which events, which identity the rules reveal); forumbot/drafts.py
lays the public parts out in Discuz! BBCode through the templates.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import TYPE_CHECKING

from engine import (
    AudienceKind,
    Event,
    EventKind,
)
from forumbot import drafts
from forumbot.config import DayConfig
from forumbot.desk.day import DayJudgement
from forumbot.errors import UsageError
from forumbot.i18n import _

if TYPE_CHECKING:
    from forumbot.desk.workflow import Desk


def case_post_draft(desk: Desk, n: int, events: tuple[Event, ...]) -> str:
    """The case post after night ``n``: the public events, the vote's closing time, the game's end."""
    game = desk.game
    body = [
        drafts.public_words(e.text)
        for e in events
        if e.audience.kind is AudienceKind.PUBLIC and e.kind in (EventKind.CASE_POST, EventKind.DAY_START)
    ]
    over = [
        drafts.public_words(e.text)
        for e in events
        if e.audience.kind is AudienceKind.PUBLIC and e.kind is EventKind.GAME_OVER
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
    # The close's public lines whenever the state is known, read complete or not: the same line as
    # desk.outcome_text (every face); an incomplete read is warned beside the draft by each face.
    preview = desk.preview_close(judged) if not judged.running else None
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


def draft_as_of(day: DayConfig, now: datetime) -> datetime:
    """The instant a day's draft is made as of: its close once the close has passed (the runner's
    instant: what the web previews is what the runner sent), else now (a running preview)."""
    return min(now, day.closes)


def elevator_view(desk: Desk, n: int, as_of: datetime) -> drafts.ElevatorView:
    """Day ``n``'s elevator (电梯) as a view: each living player's valid discussion posts, linked; the
    dead, the judges and spectators apart («不计入电梯»); stamped ``as_of``. Raises UsageError when the
    day has no discussion thread."""
    game = desk.game
    day = desk.day(n)
    attendance = desk.attendance(day)
    if attendance is None:
        raise UsageError(
            _("day {n} has no discussion thread in the game file (discussion = TID)").format(n=n)
        )
    floors = {p.pid: p.floor for p in desk.discussion_posts(day)}
    living = desk.living(n)
    return drafts.elevator_view(
        game_name=game.name,
        day=n,
        board_url=game.board.url,
        tid=day.discussion_tid or 0,
        roster=tuple(p for p in game.roster if p in living),  # the living only (issue 8)
        attendance=attendance,
        floors=floors,
        as_of=drafts.local_text(as_of, game.tz),
        rule="顶、+1、纯表情、纯引用等不计",
        apart=desk.attendance_apart(day, attendance),
    )


def elevator_draft(desk: Desk, n: int, as_of: datetime) -> str:
    """Day ``n``'s elevator (电梯) as of ``as_of``: the same bytes wherever it is shown, previewed or
    sent (the runner passes the close; the web and the CLI :func:`draft_as_of`)."""
    return drafts.render_elevator(elevator_view(desk, n, as_of))
