"""The desk's drafts: what a judge posts after a night or a day, built from the desk's results.

The desk decides what is public (which events, which identity the rules reveal); forumbot/drafts.py
lays the public parts out in Discuz! BBCode through the templates.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from engine import (
    ACTION_KINDS,
    ActionKind,
    AudienceKind,
    Event,
    EventKind,
    GameState,
    game_over_events,
    rules_of,
    state_from_dict,
)
from forumbot import drafts
from forumbot.config import DayConfig
from forumbot.desk.day import DayJudgement
from forumbot.errors import UsageError
from forumbot.i18n import _
from forumbot.store import records

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


# --------------------------------------------------------------------------- the game's end


@dataclass(frozen=True)
class ReviewSection:
    title: str  # 第1夜 / 第1日
    lines: tuple[str, ...]


@dataclass(frozen=True)
class ReviewView:
    game: str
    winner: str
    roles: tuple[str, ...]
    rounds: tuple[ReviewSection, ...]


def _role_label(desk: Desk, st: GameState, name: str, *, inner: bool = False) -> str:
    """A player's role as the review names it (``inner``: inside brackets already)."""
    p = next(x for x in st.players if x.name == name)
    label = desk.ruleset.role(p.role).name_zh
    if p.possessed:
        label += "，被附体匪" if inner else "（被附体匪）"
    return label


def _action_line(desk: Desk, st: GameState, action: dict[str, object]) -> str:
    """One night action as the judges' record shows it: who, what, on whom (a check with its answer)."""
    kind = ActionKind(str(action["kind"]))
    words = ACTION_KINDS[kind].name_zh
    who = action.get("by") or action.get("guardian") or ""
    targets = [
        str(action[k]) for k in ("victim", "target", "first", "second") if isinstance(action.get(k), str)
    ]
    order = action.get("order")
    if isinstance(order, list):
        targets += [str(x) for x in order]
    line = f"{who}：" if who else ""
    line += f"{words} {'、'.join(targets) or '（空刀）'}"
    if kind is ActionKind.CHECK and targets:
        line += f" → {_role_label(desk, st, targets[0])}"
    extras = [
        f"{label}：{action[k]}" for k, label in (("pledge", "生死状"), ("possess", "附体")) if action.get(k)
    ]
    return line + (f"（{'；'.join(extras)}）" if extras else "")


def _game_time(desk: Desk, label: str) -> datetime | None:
    """The game's instant of a state version (night N: its deadline; day N: its close; None: set-up and
    what has no time of its own): versions are compared on the game's timeline, not when they were
    stored (a rehearsal's clock is not the wall clock)."""
    kind, _sep, num = label.partition(" ")
    if not num.isdigit():
        return None
    with contextlib.suppress(UsageError):
        if kind == "night":
            return desk.night_deadline(int(num))
        if kind == "day":
            return desk.game.day(int(num)).closes
    return None


def _states_as_of(desk: Desk, as_of: datetime) -> list[tuple[str, GameState]]:
    """The live state versions up to ``as_of`` on the game's timeline, each with its step's label. Raises
    UsageError unless the game is over as of then: the drafts of its end name every role."""
    states: list[tuple[str, GameState]] = []
    with desk.store.session() as s:
        for v in desk.live_history():
            when = _game_time(desk, v.label)
            if when is not None and when > as_of:
                continue
            found = records.load_state_by_id(s, v.id)
            if found is not None:
                states.append((v.label, state_from_dict(found)))
    if not states or states[-1][1].outcome is None:
        raise UsageError(
            _("the game is not over yet: the review (复盘) names every role, so it waits for the end")
        )
    return states


@dataclass(frozen=True)
class WinnerView:
    game: str
    text: str


def winner_draft(desk: Desk, as_of: datetime) -> str:
    """The winner's announcement as of ``as_of``: the result and every identity (engine.gameover's
    words, as the rule set labels each player). Raises UsageError before the end."""
    final = _states_as_of(desk, as_of)[-1][1]
    text = "\n".join(drafts.public_words(e.text) for e in game_over_events(final))
    return drafts.render("winner.bbcode.j2", WinnerView(desk.game.name, text))


def review_draft(desk: Desk, as_of: datetime) -> str:
    """The 复盘 as of ``as_of``: every role, each night's actions (the stored submissions, a check with
    its answer) and who went out, each day's tally and who went out. Only once the game is over as of
    ``as_of`` (raises UsageError before: the roles are secret until then)."""
    states = _states_as_of(desk, as_of)
    final = states[-1][1]
    outcome = final.outcome
    assert outcome is not None
    rules = rules_of(final)  # each identity as the winner's post labels it (ghost, possession)
    roles = tuple(
        f"{p.name}：{rules.final_identity(p, final)}" + ("" if p.alive else "（出局）") for p in final.players
    )
    sections: list[ReviewSection] = []
    before = states[0][1]
    for label, st in states[1:]:
        kind, _sep, num = label.partition(" ")
        if kind not in ("night", "day") or not num.isdigit():
            before = st
            continue
        n = int(num)
        gone = [p for p in before.living() if p not in st.living()]
        out = "、".join(f"{name}（{_role_label(desk, final, name, inner=True)}）" for name in gone) or "无"
        if kind == "night":
            with desk.store.session() as s:
                subs = records.night_submissions(s, desk.gid, n)
            lines = [_action_line(desk, final, a) for a, _at in subs] or ["（无人提交）"]
            sections.append(ReviewSection(f"第{n}夜", (*lines, f"出局：{out}")))
        else:
            result = desk.tally(n).result
            tally = "，".join(f"{t.target} {t.count}票" for t in result.final_tally) or "无人投票"
            sections.append(ReviewSection(f"第{n}日", (f"票数：{tally}", f"出局：{out}")))
        before = st
    view = ReviewView(desk.game.name, outcome.text, roles, tuple(sections))
    return drafts.render("game_review.bbcode.j2", view)
