"""The web desk's one door to the game's data: the store, the judging desk and the drafts.

Why one module: the judging workflow lives in :class:`forumbot.desk.Desk` (the same one the CLI
drives); every page reads and writes through the narrow, typed functions here, so a change of the
desk's API is a change of this module only. Each function opens a fresh desk for one
unit of work (a page or a form), so two judges' desks on one PostgreSQL store never serve a stale
tally, and returns plain frozen dataclasses that the templates show as they are.

Times are returned already in the board's zone, as text (``MM-DD HH:MM``), except where a chart
needs them as datetimes.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from engine import (
    ACTION_KINDS,
    GROUP_ZH,
    ROLE_TABLES,
    ActionKind,
    AudienceKind,
    Cause,
    EngineError,
    GameState,
    Outcome,
    Phase,
    Refusal,
    action_from_dict,
    get_ruleset,
)
from forumbot import drafts
from forumbot.config import Game, game_from_dict
from forumbot.desk import (
    OVERRIDE_KINDS,
    DayJudgement,
    Desk,
    NightOverrideDone,
    case_post_draft,
    night_override_kinds,
    vote_count_draft,
)
from forumbot.desk.drafts import draft_as_of
from forumbot.desk.drafts import elevator_view as desk_elevator_view
from forumbot.desk.night import StoredSubmission
from forumbot.desk.nightmessages import FROM_MESSAGES
from forumbot.desk.rounds import DayRound
from forumbot.errors import ConfigError, ForumbotError, UsageError
from forumbot.i18n import N_, _, current_language
from forumbot.labels import (
    OUTBOX_KIND_LABELS,
    OUTBOX_STATUS_LABELS,
    STATUS_LABELS,
    VALID_STATUSES,
    actor_label,
    desk_log_label,
    outbox_note_label,
)
from forumbot.labels import outcome_label as _outcome_words
from forumbot.nightmail import CODE_LABELS, NightChannel
from forumbot.store import base, fetchlog, posts, records, threads
from forumbot.store import judges as judges_repo
from forumbot.store.changes import Changes
from forumbot.store.changes import changes as store_changes
from forumbot.store.db import Store
from forumbot.web.svg import VoteMove

if TYPE_CHECKING:
    from forumbot.outbox import Outbox


# Verdict and outbox labels are shared with the CLI (forumbot/labels.py).
OVERRIDE_CHOICES: dict[str, str] = {
    "vote": N_("a vote for the target"),
    "change": N_("a change to the target"),
    "abstain": N_("an abstention"),
    "void": N_("a void (废票)"),
    "ignore": N_("not a vote"),
}


FIELD_LABELS: dict[str, str] = {
    "target": N_("target"),
    "victim": N_("victim"),
    "pledge": N_("pledge"),
    "possess": N_("possesses"),
    "text": N_("kill text"),
    "guardian": N_("guardian"),
    "first": N_("first"),
    "second": N_("second"),
}
# Why a player is out, in the judge's words (the catalog's Chinese; the code in English).
CAUSE_LABELS: dict[str, str] = {
    Cause.KILLED: N_("killed"),
    Cause.PLEDGE: N_("died with the poison (pledge)"),
    Cause.POSSESSED_POISON: N_("died with the possessed poison"),
    Cause.GUARDED_KILL: N_("died for the guarded player"),
    Cause.DERELICTION: N_("dereliction"),
    Cause.FORCED_DERELICTION: N_("forced dereliction"),
    Cause.EXECUTED: N_("executed"),
    Cause.GUARDED_EXECUTION: N_("out in place of the executed"),
    Cause.DOUBLE_KILL: N_("double kill"),
    Cause.DROWNED: N_("drowned"),
    Cause.SENT_OFF: N_("sent off"),
    Cause.JUDGE: N_("removed by the judges"),
    Cause.FIREWORKS: N_("fireworks"),
    Cause.HOSTAGE: N_("hostage killed"),
    Cause.SNIPE: N_("sniped"),
    Cause.ASSASSINATION: N_("assassinated"),
    Cause.KILLERS: N_("killed by the killers"),
    Cause.DOUBLE_EMPTY_HEAL: N_("two empty heals"),
    Cause.HUG: N_("hugged"),
    Cause.HANFEI: N_("the desperado"),
    Cause.LOVER: N_("out for a lover (Cupid's arrow)"),
    Cause.VOTE: N_("voted out"),
    Cause.RED_CARD: N_("red card"),
}
POST_STATES: dict[str, str] = {
    "normal": N_("shown normally"),
    "banned": N_("author banned: content masked"),
    "blocked": N_("blocked by a moderator"),
    "author_only": N_("visible to its author only"),
    "pending": N_("awaiting moderation"),
    "hidden": N_("partly hidden"),
    "deleted": N_("deleted (kept in the store)"),
}
_VERSION = re.compile(r"^(night|day) (\d+)( extra check)?$")
_UNDO_OF = re.compile(r"^undo #(\d+) \((.*)\)$")
_SEED = re.compile(r"^setup \(seed (\d+)\)$")


def version_label(label: str) -> str:
    """A stored state version's label (``night 2``, ``undo #5 (day 2)``, ``setup (seed 7)``) in the
    current language; an unknown label is shown as stored."""
    if m := _VERSION.match(label):
        text = (_("night {n}") if m.group(1) == "night" else _("day {n}")).format(n=m.group(2))
        return text + (_(": extra check") if m.group(3) else "")
    if m := _UNDO_OF.match(label):
        return _("undo of #{id} ({what})").format(id=m.group(1), what=version_label(m.group(2)))
    if m := _SEED.match(label):
        return _("roles drawn (seed {seed})").format(seed=m.group(1))
    if label == "setup (roles given by the judges)":
        return _("roles given by the judges")
    return label


def _zh() -> bool:
    return current_language() == "zh_CN"


def _action_name(kind: str) -> str:
    """A night action's name: the rules' Chinese word, or its code in English."""
    if not _zh():
        return kind
    try:
        return ACTION_KINDS[ActionKind(kind)].name_zh
    except (ValueError, KeyError):
        return kind


def _local(game: Game, when: datetime | None) -> str:
    return "" if when is None else when.astimezone(game.tz).strftime("%m-%d %H:%M")


def _desk(game: Game, store: Store, who: str | None = None) -> Desk:
    return Desk(game, store, by=who or "web-desk")


def _cutoff(desk: Desk) -> str:
    """``void``, ``change`` or '' : which last-minute cutoff the rule set's day has (R001's last void,
    R004's last change: the rule set's ``day_cutoff``), drawn on the vote timeline and listed among the
    deadlines."""
    return desk.ruleset.day_cutoff.removesuffix("_cutoff")


def _live_labels(desk: Desk) -> set[str]:
    return {v.label for v in desk.live_history()}


def secret_state(game: Game, store: Store) -> GameState | None:
    """The current secret state (roles, who is out), or None before ``forumbot setup``."""
    return _desk(game, store).state()


# --------------------------------------------------------------------------- the game


@dataclass(frozen=True)
class PlayerLine:
    name: str
    role: str  # secret: judges only ("" when no roles are stored)
    alive: bool
    out: str  # how and when the player went out ("" while alive)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TimelineItem:
    kind: str  # night | day
    number: int
    starts: str
    ends: str
    status: str  # done | open | upcoming
    threads: tuple[int, ...] = ()


@dataclass(frozen=True)
class Deadline:
    label: str
    at: str
    utc: datetime


@dataclass(frozen=True)
class GameOverview:
    name: str
    ruleset: str
    timezone: str
    board_url: str
    phase: str  # e.g. "night 3"; "" when no roles are stored
    outcome: str
    players: tuple[PlayerLine, ...]
    timeline: tuple[TimelineItem, ...]
    next_deadlines: tuple[Deadline, ...]
    last_poll: str
    has_state: bool
    panel: ResultPanel | None = None  # the latest judged day's results and the winner


def game_overview(game: Game, store: Store, *, now: datetime | None = None) -> GameOverview:
    """Phase, players (with their secret roles), the days and nights, and what falls due next."""
    judge = _desk(game, store)
    now = now or datetime.now(UTC)
    st = judge.state()
    players: list[PlayerLine] = []
    if st is not None:
        table = ROLE_TABLES[st.family]
        for p in st.players:
            out = "" if p.alive else _("{cause}, round {n}").format(cause=_cause(p.cause), n=p.out_round)
            notes = tuple(
                _(n) for n, on in ((N_("possessed"), p.possessed), (N_("converted"), p.converted)) if on
            )
            players.append(PlayerLine(p.name, table[p.role].name_zh, p.alive, out, notes))
    else:
        players = [PlayerLine(name, "", True, "") for name in game.roster]
    labels = _live_labels(judge)
    timeline: list[TimelineItem] = []
    deadlines: list[Deadline] = []
    for d in game.days:
        n = d.day
        try:
            night_due = judge.night_deadline(n)
        except ConfigError:  # no first night in the timetable
            night_due = None
        night_done = f"night {n}" in labels
        timeline.append(
            TimelineItem(
                "night",
                n,
                "",
                _local(game, night_due),
                "done" if night_done else _status(now, None, night_due),
            )
        )
        if night_due is not None:
            deadlines.append(
                Deadline(_("night {n}: submissions due").format(n=n), _local(game, night_due), night_due)
            )
        day_done = f"day {n}" in labels
        timeline.append(
            TimelineItem(
                "day",
                n,
                _local(game, d.opens),
                _local(game, d.closes),
                "done" if day_done else _status(now, d.opens, d.closes),
                tuple(t for t in (d.discussion_tid, d.vote_tid) if t is not None),
            )
        )
        if _cutoff(judge) == "void":
            deadlines.append(
                Deadline(_("day {n}: last void").format(n=n), _local(game, d.void_cutoff), d.void_cutoff)
            )
        elif _cutoff(judge) == "change":
            deadlines.append(
                Deadline(
                    _("day {n}: last change").format(n=n), _local(game, d.change_cutoff), d.change_cutoff
                )
            )
        deadlines.append(Deadline(_("day {n}: vote closes").format(n=n), _local(game, d.closes), d.closes))
    if st is not None and st.phase is Phase.NIGHT and all(d.day != st.round for d in game.days):
        try:  # the night the game is in, after the game file's last day: its deadline follows that day
            due: datetime | None = judge.night_deadline(st.round)
        except (ConfigError, UsageError):
            due = None
        timeline.append(TimelineItem("night", st.round, "", _local(game, due), _status(now, None, due)))
        if due is not None:
            deadlines.append(
                Deadline(_("night {n}: submissions due").format(n=st.round), _local(game, due), due)
            )
    upcoming = tuple(sorted((x for x in deadlines if x.utc > now), key=lambda x: x.utc)[:4])
    runs = fetchlog.poll_runs(store, game.board, limit=1)
    return GameOverview(
        name=game.name,
        ruleset=judge.ruleset.id,
        timezone=game.timezone,
        board_url=game.board.url,
        phase="" if st is None else phase_text(st),
        outcome="" if st is None else outcome_label(st.outcome),
        players=tuple(players),
        timeline=tuple(timeline),
        next_deadlines=upcoming,
        last_poll=_local(game, runs[0].finished_at) if runs else "",
        has_state=st is not None,
        panel=_latest_panel(game, judge, labels, now, st),
    )


def outcome_label(outcome: Outcome | None) -> str:
    """«警察与平民获胜（匪全部出局）»: who won and why in the judge's language ('' while the game goes
    on); the words are the CLI's (forumbot/labels.py). The desk shows this, never the Outcome's repr."""
    if outcome is None:
        return ""
    return _outcome_words(outcome.termination.value, outcome.winner.value if outcome.winner else None)


# --------------------------------------------------------------------------- the result panel

STRIKE_LIMIT = 2  # R001: a second vote strike drowns (投票累计两次)


@dataclass(frozen=True)
class ResultPanel:
    """A day's results at a glance, as the desk judges them (the close's public lines, never a
    guess): who is executed with the identity the rules reveal, who drowned and why, each survivor's
    strikes or yellow cards, who of the living is short of posts, and the winner if the game ended."""

    day: int
    final: bool  # False while the vote runs: the lines are provisional
    outcome: str  # the close's public line(s): «烧卖 被处决，身份：杀手»
    drowned: tuple[str, ...]  # «馄饨（发言不足）»
    strikes: tuple[tuple[str, str], ...]  # (living player, "1/2"): R001 vote strikes
    yellow_cards: tuple[tuple[str, int], ...]  # (living player, cards so far): R004
    short: tuple[str, ...]  # players living that day with fewer valid posts than the minimum
    min_posts: int
    winner: str  # outcome_label of the game's end at this close ('' while it goes on)


def result_panel(judge: Desk, judged: DayJudgement) -> ResultPanel:
    """The panel of one judged day. The winner is the one the close gives: previewed while the day is
    open, read from the state the close stored once it is closed."""
    n = judged.day.day
    r = judged.result
    out_now = set(r.executed) | set(r.drowned_names)
    living = [p.player for p in r.players]
    survivors = [p for p in living if p not in out_now]
    strikes: tuple[tuple[str, str], ...] = ()
    cards: tuple[tuple[str, int], ...] = ()
    if judge.ruleset.day_discipline == "yellow_cards":
        cards = tuple((p, r.yellow_totals.get(p, 0)) for p in survivors)
    else:
        strikes = tuple((p, f"{r.strikes_after.get(p, 0)}/{STRIKE_LIMIT}") for p in survivors)
    att = judged.attendance
    short = tuple(sorted(att.deficient(living), key=living.index)) if att is not None else ()
    winner = ""
    if not judged.running:
        preview = judge.preview_close(judged)
        after = preview.state if preview is not None else judge.state_labelled(f"day {n}")
        winner = outcome_label(after.outcome) if after is not None else ""
    return ResultPanel(
        day=n,
        final=not judged.running,
        outcome=judge.outcome_text(judged),
        drowned=tuple(f"{d.player}（{d.rule.label}）" for d in r.drowned),
        strikes=strikes,
        yellow_cards=cards,
        short=short,
        min_posts=att.min_posts if att is not None else 0,
        winner=winner,
    )


def _latest_panel(
    game: Game, judge: Desk, labels: set[str], now: datetime, st: GameState | None
) -> ResultPanel | None:
    """The game page's panel: the last day closed (or past its close), with the game's winner when it
    is over (a game can end at night, after the day the panel shows)."""
    if st is None:
        return None
    days = [d.day for d in game.days if f"day {d.day}" in labels or d.closes <= now]
    if not days:
        return None
    panel = result_panel(judge, judge.tally(max(days)))
    if st.outcome is not None:
        panel = replace(panel, winner=outcome_label(st.outcome))
    return panel


def phase_text(st: GameState) -> str:
    """``第3夜`` / ``第2日`` / ``游戏结束`` in the current language."""
    if st.phase is Phase.NIGHT:
        return _("night {n}").format(n=st.round)
    if st.phase is Phase.DAY:
        return _("day {n}").format(n=st.round)
    return _("game over")


def _cause(cause: Cause | None) -> str:
    """Why a player is out: the engine's Chinese name, or its code in English."""
    if cause is None:
        return "?"
    return _(CAUSE_LABELS.get(cause, cause.value))


def _status(now: datetime, starts: datetime | None, ends: datetime | None) -> str:
    if ends is not None and now >= ends:
        return "due"
    if starts is not None and now < starts:
        return "upcoming"
    return "open"


# --------------------------------------------------------------------------- a day


@dataclass(frozen=True)
class VerdictLine:
    pid: int | None
    floor: int | None
    author: str
    at: str
    status: str
    label: str
    target: str
    reason: str
    needs_review: bool
    suggestion: str | None
    invalid: bool
    override_why: str | None
    override_by: str | None
    url: str
    revisions: int
    proxy: bool
    stage: int
    overrides: int = 0  # how many overrides the post has had: the override form carries it back


@dataclass(frozen=True)
class TallyEntry:
    target: str
    count: int
    voters: tuple[tuple[str, str], ...]  # (voter, link to his floor)


@dataclass(frozen=True)
class AttendanceLine:
    name: str
    valid: int
    total: int
    short: bool  # never for a player out: he is not short, he is out
    floors: tuple[tuple[str, str, bool], ...]  # (floor label, link, counts)
    out: bool = False  # not among the day's living players: listed after them, marked 出局


@dataclass(frozen=True)
class DayView:
    number: int
    vote_tid: int | None
    discussion_tid: int | None
    opens: str
    closes: str
    void_cutoff: str
    verdicts: tuple[VerdictLine, ...]
    tally: tuple[TallyEntry, ...]
    outcome: str
    no_vote: tuple[str, ...]
    drowned: tuple[str, ...]
    problems: tuple[str, ...]
    attendance: tuple[AttendanceLine, ...]
    min_posts: int
    vote_count_draft: str
    elevator_draft: str
    moves: tuple[VoteMove, ...]
    read_warning: str
    window: tuple[datetime, datetime]
    marks: tuple[tuple[datetime, str], ...]
    roster: tuple[str, ...]
    closed: bool = False
    panel: ResultPanel | None = None


def read_warning(
    thread: threads.StoredThread | None, tid: int, closes: datetime, now: datetime, game: Game
) -> str:
    """Why the day's verdicts may not be final because of what the store has read ('' when nothing):
    the desk never shows a count as settled when the read behind it is incomplete."""
    if thread is None or thread.posts == 0:
        return _(
            "The vote thread (tid {tid}) is not in the store yet: press “Poll the board now” on the day's "
            "page. Nothing here is final."
        ).format(tid=tid)
    if now < closes:
        return _("The vote is still open: this count is provisional (last read {at}).").format(
            at=_local(game, thread.last_read) or _("never")
        )
    if thread.last_full_poll is None or thread.last_full_poll < closes:
        return _(
            "The vote thread was not read in full after the close (last full read: {at}): edits and "
            "deletions may be missing. Run `forumbot poll --full` before posting the count."
        ).format(at=_local(game, thread.last_full_poll) or _("never"))
    return ""


def _moves(rounds: tuple[DayRound, ...]) -> tuple[VoteMove, ...]:
    """The chart's series: each vote post's effect on the running count of the day's last round (the
    first vote, or the revote the tally above counts), from the desk's day by round."""
    return tuple(VoteMove(at, voter, target) for at, voter, target in rounds[-1].moves)


def day_view(game: Game, store: Store, n: int) -> DayView:
    """Day ``n`` judged from the store: every vote post's verdict, the tally, the drafts, attendance."""
    judge = _desk(game, store)
    judged = judge.tally(n)
    day = judged.day
    r = judged.result
    tid = day.vote_tid or 0
    revs = {p.pid: len(p.revisions) for p in posts.thread_posts(store, game.board, tid)} if tid else {}
    rounds = judged.rounds(frozenset(game.judges))
    flagged = {id(v) for rnd in rounds for v in rnd.flagged}
    with store.session() as ses:
        counts = records.override_counts(ses, judge.gid, n)
    lines = []
    for v in judged.verdicts:  # one per post, in the round it belongs to (the desk's day by round)
        s = v.status.value
        lines.append(
            VerdictLine(
                pid=v.pid,
                floor=v.floor,
                author=v.author,
                at=_local(game, v.at),
                status=s,
                label=_(STATUS_LABELS.get(s, s)),
                target="弃权" if v.abstain else (v.target or ""),
                reason=v.reason,
                needs_review=id(v) in flagged,
                suggestion=v.suggestion,
                invalid=s not in VALID_STATUSES,
                override_why=v.override.why if v.override else None,
                override_by=v.override.by if v.override else None,
                url=drafts.findpost_url(game.board.url, tid, v.pid) if v.pid else "",
                revisions=revs.get(v.pid or 0, 0),
                proxy=v.proxy,
                stage=v.stage,
                overrides=counts.get(v.pid or 0, 0),
            )
        )
    tally = tuple(
        TallyEntry(
            t.target,
            t.count,
            tuple(
                (x.player, drafts.findpost_url(game.board.url, tid, x.pid) if x.pid else "") for x in t.voters
            ),
        )
        for t in r.final_tally
    )
    att_lines: list[AttendanceLine] = []
    elevator = ""
    min_posts = 0
    att = judged.attendance
    if att is not None and day.discussion_tid is not None:
        # the desk's 电梯, as of the close once it has passed: the bytes the runner sends
        view = desk_elevator_view(judge, n, draft_as_of(day, datetime.now(UTC)))
        elevator = drafts.render_elevator(view)
        min_posts = att.min_posts
        living = {p.player for p in r.players}
        for row in view.rows:
            gone = row.name not in living
            att_lines.append(
                AttendanceLine(
                    row.name,
                    row.valid,
                    row.total,
                    not gone and row.valid < att.min_posts,
                    tuple((p.floor_label, p.url, p.valid) for p in row.posts),
                    out=gone,
                )
            )
        listed = {a.name for a in att_lines}
        att_lines += [AttendanceLine(p, 0, 0, False, (), out=True) for p in game.roster if p not in listed]
        att_lines.sort(key=lambda a: a.out)  # stable: the living first, each part in roster order
    marks = [(day.closes, _("close"))]
    if _cutoff(judge) == "void":
        marks.insert(0, (day.void_cutoff, _("void cutoff")))
    elif _cutoff(judge) == "change":
        marks.insert(0, (day.change_cutoff, _("change cutoff")))
    window = (day.opens, day.closes)
    if rounds[-1].stage:  # the chart follows the round the tally counts: the revote's window
        window = (rounds[-1].opens, rounds[-1].deadline)
        marks = [(rounds[-1].deadline, _("revote #{n} deadline").format(n=rounds[-1].stage))]
    labels = _live_labels(judge)
    return DayView(
        number=n,
        vote_tid=day.vote_tid,
        discussion_tid=day.discussion_tid,
        opens=_local(game, day.opens),
        closes=_local(game, day.closes),
        void_cutoff=_local(game, day.void_cutoff) if _cutoff(judge) == "void" else "",
        verdicts=tuple(lines),
        tally=tally,
        outcome=judge.outcome_text(judged),
        no_vote=tuple(r.no_vote),
        drowned=tuple(f"{d.player}（{d.rule.label}）" for d in r.drowned),
        problems=tuple(r.problems),
        attendance=tuple(att_lines),
        min_posts=min_posts,
        vote_count_draft=vote_count_draft(judge, judged),
        elevator_draft=elevator,
        moves=_moves(rounds),
        read_warning=read_warning(
            threads.get_thread(store, game.board, tid) if tid else None,
            tid,
            day.closes,
            datetime.now(UTC),
            game,
        ),
        window=window,
        marks=tuple(marks),
        roster=game.roster,
        closed=f"day {n}" in labels,
        panel=result_panel(judge, judged),
    )


# --------------------------------------------------------------------------- a post's revisions


@dataclass(frozen=True)
class RevisionView:
    number: int
    first_seen: str
    last_seen: str
    state: str
    text: str
    edit_note: str


@dataclass(frozen=True)
class PostRevisions:
    pid: int
    tid: int
    floor: int | None
    author: str
    posted_at: str
    url: str
    state: str
    revisions: tuple[RevisionView, ...]


def post_revisions(game: Game, store: Store, pid: int) -> PostRevisions:
    """Every content the store ever saw for post ``pid``, oldest first."""
    post = posts.get_post(store, game.board, pid)
    if post is None:
        raise UsageError(_("post {pid} is not in the store").format(pid=pid))
    revs = tuple(
        RevisionView(
            r.number,
            _local(game, r.first_seen),
            _local(game, r.last_seen),
            _(POST_STATES.get(str(r.state), str(r.state))),
            r.text,
            f"{r.edit.by} {_local(game, r.edit.at)}".strip() if r.edit else "",
        )
        for r in post.revisions
    )
    return PostRevisions(
        pid,
        post.tid,
        post.floor,
        post.author,
        _local(game, post.posted_at),
        drafts.findpost_url(game.board.url, post.tid, pid),
        _(POST_STATES.get(str(post.state), str(post.state))),
        revs,
    )


# --------------------------------------------------------------------------- changes


@dataclass(frozen=True)
class OverrideDone:
    day: int
    pid: int
    as_kind: str
    target: str | None
    why: str
    by: str


def override(
    game: Game,
    store: Store,
    pid: int,
    as_kind: str,
    target: str | None,
    why: str,
    who: str,
    *,
    seen: int | None = None,
) -> OverrideDone:
    """Record a judge's verdict on a vote post (kept with who and why; every later tally applies it)."""
    if as_kind not in OVERRIDE_KINDS:
        raise UsageError(_("unknown override kind: {kind}").format(kind=as_kind))
    judge = _desk(game, store, who)
    day = judge.day_of_vote_post(pid)
    if judge.day_closed(day):  # the desk core's refusal names CLI commands: the desk names its pages
        raise UsageError(
            _(
                "Day {n} is closed, so its verdicts can no longer be corrected: first undo its close on the "
                "“History” page, correct the post, then press “Close the day” again."
            ).format(n=day)
        )
    rec = judge.override(day, pid, as_kind, target or None, why, seen=seen)
    judges_repo.log_change(
        store, who, "override", f"day {rec.day} pid {pid} → {as_kind} {target or ''}: {why}".strip()
    )
    return OverrideDone(rec.day, rec.pid, rec.as_kind, rec.target, rec.why, rec.by)


@dataclass(frozen=True)
class HistoryItem:
    id: int
    label: str
    at: str
    by: str
    live: bool  # False: undone later (kept, never deleted)
    current: bool
    undone_by: str = ""
    undone_at: str = ""


def state_history(game: Game, store: Store) -> tuple[HistoryItem, ...]:
    """Every stored version of the secret state, newest last; which are live and which one is current."""
    rows = _desk(game, store).history()
    live = [v.id for v in rows if v.live]
    current = live[-1] if live else None
    return tuple(
        HistoryItem(
            v.id,
            version_label(v.label),
            _local(game, v.at),
            actor_label(v.by),
            v.live,
            v.id == current,
            actor_label(v.undone_by),
            _local(game, v.undone_at),
        )
        for v in rows
    )


def state_version(game: Game, store: Store) -> int:
    """The secret state's version now: what each form that changes the state carries back (hidden
    ``state_version``), so a judge acting on an older page is refused (StaleChange) instead of acting
    on a state he has not seen."""
    return _desk(game, store).current_version()


def undo(game: Game, store: Store, who: str, expected_version: int | None = None) -> tuple[str, str]:
    """Step the secret state back one version; returns (what was undone, what is current now).
    ``expected_version``: the version the judge's page showed (refused when the state moved since)."""
    desk = _desk(game, store, who)
    desk.expected_version = expected_version
    undone, now = desk.undo()
    judges_repo.log_change(store, who, "undo", f"{undone} → {now}")
    return version_label(undone), version_label(now)


# --------------------------------------------------------------------------- a night


@dataclass(frozen=True)
class SubmissionLine:
    at: str
    kind: str
    by: str
    detail: str
    late: bool
    ok: bool
    reason: str
    row_id: int = 0  # the stored row a correction names (0: not correctable here)
    entered_by: str = ""
    why: str = ""  # a judge's entry or correction: why
    withdrawn: str = ""  # «二号法官 06-05 16:40 撤回：…» once a judge withdrew or corrected it
    fields: tuple[tuple[str, str], ...] = ()  # the correction form's values (SUBMISSION_FIELDS names)


@dataclass(frozen=True)
class NightMessageView:
    """One message the runner read (a group thread's post, a PM to the judge) with its verdict."""

    id: str
    at: str
    author: str
    where: str
    text: str
    code: str
    label: str
    reason: str
    needs_review: bool
    suggestion: str
    override_by: str = ""
    override_why: str = ""


@dataclass(frozen=True)
class NightView:
    number: int
    deadline: str
    resolved: bool
    submissions: tuple[SubmissionLine, ...]
    out: tuple[str, ...]
    public: tuple[str, ...]
    private: tuple[tuple[str, tuple[str, ...]], ...]  # (recipient, messages)
    case_post_draft: str
    note: str
    messages: tuple[NightMessageView, ...] = ()
    waiting: tuple[str, ...] = ()  # what waits for a judge among the messages (Chinese)
    messages_note: str = ""  # why the messages cannot be judged now
    undo_offered: bool = False  # resolved, and its resolution is the state's latest step: undo here
    can_enter: bool = False  # the game is at this night, unresolved: submissions may be entered


# What a judge may say a night message is (the night page's override form), and as which action.
NIGHT_OVERRIDE_CHOICES: dict[str, str] = {
    "accept": N_("accepted as the action below"),
    "ignore": N_("ignored (not a submission)"),
}


def night_kind_choices(game: Game) -> tuple[tuple[str, str], ...]:
    """(code, the judge's word) of every action a message may be accepted as: the game's rule set's night
    vocabulary (its Chinese label in Chinese, the engine's name otherwise)."""
    ruleset = get_ruleset(game.ruleset)
    kinds = night_override_kinds(ruleset)
    return tuple((k, ruleset.night_word(k).name_zh if _zh() else k) for k in kinds)


def night_messages(
    game: Game, store: Store, n: int
) -> tuple[tuple[NightMessageView, ...], tuple[str, ...], str]:
    """Night ``n``'s messages as the runner read them, each with its verdict and override; what waits for
    a judge; and a note when they cannot be judged now (no roles stored, the game elsewhere)."""
    try:
        listing = _desk(game, store).night_listing(n)
    except (ForumbotError, EngineError) as exc:
        return (), (), str(exc)
    views = []
    for line in listing.lines:
        m, v, o = line.message, line.verdict, line.override
        if m.channel is NightChannel.PM:
            where = _("PM to the judge")
        else:
            where = (GROUP_ZH[m.group] if _zh() else m.group.value) if m.group else _("group thread")
        views.append(
            NightMessageView(
                m.id,
                _local(game, m.at),
                m.author,
                where,
                m.text,
                v.code.value,
                _(CODE_LABELS[v.code]),
                v.reason,
                v.needs_review,
                v.suggestion or "",
                o.by if o else "",
                o.why if o else "",
            )
        )
    return tuple(views), listing.open, ""


def night_override(
    game: Game,
    store: Store,
    n: int,
    message_id: str,
    as_kind: str,
    why: str,
    who: str,
    *,
    kind: str | None = None,
    targets: tuple[str, ...] = (),
    pledge: str | None = None,
    actor: str | None = None,
    none: bool = False,
    waive_time: bool = False,
    expected_version: int | None = None,
) -> NightOverrideDone:
    """Record a judge's verdict on one night message (kept with who and why, logged in the desk log);
    the runner's next tick judges the night with it. ``expected_version``: the state version the page
    showed (another judge's resolve or undo since is refused, naming him)."""
    judge = _desk(game, store, who)
    judge.expected_version = expected_version
    judge.state()
    _refuse_resolved_night(game, store, n)
    done = judge.night_override(
        message_id,
        as_kind,
        why,
        kind=kind if as_kind == "accept" else None,
        targets=targets if as_kind == "accept" else (),
        pledge=pledge if as_kind == "accept" else None,
        actor=actor if as_kind == "accept" else None,
        none=none and as_kind == "accept",
        waive_time=waive_time,
        night=n,
    )
    what = " ".join(x for x in (as_kind, kind or "", *targets) if x) if as_kind == "accept" else as_kind
    judges_repo.log_change(store, who, "night override", f"night {n} {message_id} → {what}: {why}")
    if done.warning:  # the desk core's words send the judge to the CLI: the submissions are on this page
        done = replace(done, warning=_stored_note(n))
    return done


def _stored_note(n: int) -> str:
    return _(
        "Night {n} already has stored submissions, and it is resolved from them: correct the one this "
        "message changes under “Submissions” on this page."
    ).format(n=n)


def _refuse_resolved_night(game: Game, store: Store, n: int) -> None:
    """A resolved night's messages and submissions are not corrected in place (the resolution used
    them); the desk core's refusal names CLI commands, this one the desk's own buttons."""
    if _desk(game, store).state_labelled(f"night {n}") is not None:
        raise UsageError(
            _(
                "Night {n} is resolved, so it can no longer be corrected: first undo its resolution "
                "(“Undo the resolution” on this page, or the “History” page), correct it, then press "
                "“Resolve the night” again."
            ).format(n=n)
        )


def night_override_undo(
    game: Game, store: Store, n: int, message_id: str, why: str, who: str
) -> NightOverrideDone:
    """Cancel the override that counts for one night message (kept; logged in the desk log)."""
    _refuse_resolved_night(game, store, n)
    done = _desk(game, store, who).night_override_undo(message_id, why, night=n)
    judges_repo.log_change(store, who, "night override undo", f"night {n} {message_id}: {why}".rstrip(": "))
    return replace(done, warning=_stored_note(n)) if done.warning else done


def night_view(game: Game, store: Store, n: int) -> NightView:
    """Night ``n``: the submissions as the desk judges them against the state the night began from, and
    the desk's resolution from that state (a preview before it is resolved, the same result after): the
    same out-list, private messages and case post as the runner's."""
    judge = _desk(game, store)
    before = judge.state_before_night(n)
    resolved = judge.state_labelled(f"night {n}") is not None
    try:
        deadline = judge.night_deadline(n)
    except ConfigError:
        deadline = None
    lines: list[SubmissionLine] = []
    note = ""
    if before is None or before.phase is not Phase.NIGHT or before.round != n:
        note = _("no stored state to resolve night {n} from").format(n=n)
        before = None
    if before is not None:
        subs = judge.stored_submissions(n, before)
    else:
        with store.session() as s:
            subs = tuple(
                StoredSubmission(dict(d), action_from_dict(d), at, deadline is not None and at > deadline)
                for d, at in records.night_submissions(s, judge.gid, n)
            )
    for sub in subs:
        data = sub.data
        detail = _detail(data)
        ok, reason = True, _("accepted") if not sub.late else _("late: forfeited at resolution")
        if sub.refusal is not None:
            if sub.refusal.refusal is Refusal.VOID_AT_RESOLUTION:
                reason = _("recorded; void at resolution: {why}").format(why=sub.refusal)
            else:
                ok, reason = False, str(sub.refusal)
        lines.append(
            SubmissionLine(
                _local(game, sub.at),
                _action_name(str(data.get("kind", ""))),
                str(data.get("by", "")),
                detail,
                sub.late,
                ok,
                reason,
                sub.row_id,
                sub.entered_by,
                _(sub.why) if sub.why == FROM_MESSAGES else sub.why,
                fields=submission_fields(data, game, sub.at),
            )
        )
    lines += _withdrawn_lines(game, store, judge.gid, n)
    out: tuple[str, ...] = ()
    public: list[str] = []
    private: list[tuple[str, tuple[str, ...]]] = []
    draft = ""
    if before is not None:
        try:
            res = judge.night_preview(n, state=before)
        except (EngineError, ForumbotError) as exc:
            note = str(exc)
        else:
            out = res.out
            public = [e.text for e in res.events if e.audience.kind is AudienceKind.PUBLIC]
            judges = [e.text for e in res.events if e.audience.kind is AudienceKind.JUDGE]
            if judges:
                private.append((_("judges"), tuple(judges)))
            # every recipient the engine names, the night's dead included: what the runner sends
            private += [(m.player, m.texts) for m in judge.night_private_messages(n, res, before)]
            draft = case_post_draft(judge, n, res.events)
    messages, waiting, messages_note = night_messages(game, store, n)
    live = judge.live_history()
    return NightView(
        n,
        _local(game, deadline),
        resolved,
        tuple(lines),
        out,
        tuple(public),
        tuple(private),
        draft,
        note,
        messages,
        waiting,
        messages_note,
        undo_offered=resolved and bool(live) and live[-1].label == f"night {n}",
        can_enter=before is not None and not resolved,
    )


def _detail(data: dict[str, object]) -> str:
    return "；".join(
        f"{_(FIELD_LABELS.get(k, k))}：{v}"
        for k, v in data.items()
        if k not in ("kind", "by") and v not in (None, [], "")
    )


def submission_fields(data: dict[str, object], game: Game, at: datetime) -> tuple[tuple[str, str], ...]:
    """A stored submission as the values of the desk's submission form (the CLI's field names, as
    :func:`forumbot.desk.night.action_from_fields` reads them), so a correction starts from it."""
    kind = str(data.get("kind", ""))
    out: dict[str, str] = {"kind": kind, "by": str(data.get("by") or data.get("guardian") or "")}
    if kind == "kill":
        out["target"] = str(data.get("victim") or "")
        out["none"] = "" if data.get("victim") or data.get("possess") else "1"
        out["pledge"] = str(data.get("pledge") or "")
        out["possess"] = str(data.get("possess") or "")
        out["kill_text"] = str(data.get("text") or "")
    elif kind == "protect":
        out["target"] = str(data.get("target") or "")
        out["none"] = "" if data.get("target") else "1"
    elif kind == "arrow":
        out["first"], out["second"] = str(data.get("first") or ""), str(data.get("second") or "")
    else:
        out["target"] = str(data.get("target") or "")
    out["at"] = at.astimezone(game.tz).strftime("%Y-%m-%dT%H:%M")
    return tuple(out.items())


def _withdrawn_lines(game: Game, store: Store, gid: int, n: int) -> list[SubmissionLine]:
    """The rows a judge withdrew or corrected: shown struck out with who, when and why."""
    with store.session() as s:
        rows = [r for r in records.night_submission_records(s, gid, n) if r.withdrawn]
    return [
        SubmissionLine(
            _local(game, r.at),
            _action_name(str(r.data.get("kind", ""))),
            str(r.data.get("by") or r.data.get("guardian") or ""),
            _detail(r.data),
            False,
            False,
            _("withdrawn"),
            r.id,
            r.entered_by,
            _(r.why) if r.why == FROM_MESSAGES else r.why,
            _("{who} withdrew it at {at}: {why}").format(
                who=r.withdrawn_by, at=_local(game, r.withdrawn_at), why=r.withdrawn_why
            ),
        )
        for r in rows
    ]


# --------------------------------------------------------------------------- drafts (the outbox)


@dataclass(frozen=True)
class Draft:
    key: str
    title: str
    bbcode: str
    leaks: tuple[str, ...]  # "name: role" pairs of hidden identities found in the text (must be empty)
    warning: str = ""  # why the draft may not be final (an incomplete read)


def hidden_roles_in(text: str, state: GameState | None) -> tuple[str, ...]:
    """Hidden identities a public text gives away: a living player's name followed, on the same line,
    by his role's name. A living player's role is never public in any rule set (an out player's may
    be: the rules decide, and the engine's public events say it). The outbox blocks any such draft.
    Once the game is over every role is public (the winner's post and the 复盘 name them all), so a
    finished game has nothing left to leak."""
    if state is None or state.outcome is not None:
        return ()
    table = ROLE_TABLES[state.family]
    found = []
    for p in state.players:
        if not p.alive:
            continue
        role = table[p.role].name_zh
        for line in text.splitlines():
            i = line.find(p.name)
            if i != -1 and role in line[i + len(p.name) :]:
                found.append(f"{p.name}: {role}")
                break
    return tuple(found)


def public_drafts(game: Game, store: Store) -> tuple[Draft, ...]:
    """Every public post the desk has drafted so far: each night's case post, each day's vote count
    and 电梯, newest first, each checked for a hidden identity."""
    st = _desk(game, store).state()
    out: list[Draft] = []
    for d in game.days:
        n = d.day
        nv = night_view(game, store, n)
        if nv.case_post_draft:
            out.append(Draft(f"night-{n}", _("night {n}: case post").format(n=n), nv.case_post_draft, ()))
        if not d.vote_tid or not posts.thread_posts(store, game.board, d.vote_tid):
            continue
        dv = day_view(game, store, n)
        out.append(
            Draft(
                f"day-{n}-count",
                _("day {n}: vote count").format(n=n),
                dv.vote_count_draft,
                (),
                dv.read_warning,
            )
        )
        if dv.elevator_draft:
            out.append(Draft(f"day-{n}-elevator", _("day {n}: elevator").format(n=n), dv.elevator_draft, ()))
    return tuple(
        Draft(x.key, x.title, x.bbcode, hidden_roles_in(x.bbcode, st), x.warning) for x in reversed(out)
    )


# --------------------------------------------------------------------------- the outbox (forumbot.outbox)

_EDITABLE = frozenset({"draft", "approved", "failed"})


@dataclass(frozen=True)
class OutboxLogLine:
    at: str
    by: str
    change: str
    note: str


@dataclass(frozen=True)
class OutboxLine:
    id: int
    kind: str
    kind_label: str
    destination: str
    status: str
    status_label: str
    body: str
    revision: int  # 1: as drafted; more: edited by a judge (each edit kept)
    approved_by: str
    sent_at: str
    result_url: str
    board_message: str
    secret: bool  # a private message: its body may name roles (sent to its player only)
    leaks: tuple[str, ...]  # a public item naming a hidden identity (never approve it)
    editable: bool
    can_send: bool
    can_cancel: bool
    log: tuple[OutboxLogLine, ...]


def _outbox(game: Game, store: Store, who: str = "web-desk") -> Outbox:
    from forumbot.outbox import Outbox

    return Outbox(store, game, by=who)


def outbox_items(game: Game, store: Store) -> tuple[OutboxLine, ...]:
    """Every item of the game's outbox (newest first) with its status, its log and what a judge may do."""
    from forumbot.outbox import describe
    from forumbot.store import outbox as outbox_repo

    ob = _outbox(game, store)
    st = secret_state(game, store)
    try:
        names = {uid: name for name, uid in ob.uid_map().items()}
    except ConfigError:
        names = {}
    out = []
    for it in sorted(ob.items(), key=lambda i: i.id, reverse=True):
        secret = it.dest == "pm"
        log = tuple(
            OutboxLogLine(
                _local(game, e.at),
                actor_label(e.by),
                " → ".join(_(OUTBOX_STATUS_LABELS.get(x, x)) for x in (e.old_status, e.new_status) if x),
                outbox_note_label(e.note),
            )
            for e in outbox_repo.log(store, it.id)
        )
        out.append(
            OutboxLine(
                id=it.id,
                kind=it.kind,
                kind_label=_(OUTBOX_KIND_LABELS.get(it.kind, it.kind)),
                destination=describe(it, names),
                status=it.status,
                status_label=_(OUTBOX_STATUS_LABELS.get(it.status, it.status)),
                body=it.body,
                revision=it.revision,
                approved_by=actor_label(it.approved_by),
                sent_at=_local(game, it.sent_at),
                result_url=it.result_url,
                board_message=it.board_message,
                secret=secret,
                leaks=() if secret else hidden_roles_in(it.body, st),
                editable=it.status in _EDITABLE,
                can_send=it.status == "approved",
                can_cancel=it.status in _EDITABLE,
                log=log,
            )
        )
    return tuple(out)


_DRAFT_KEY = re.compile(r"^(night|day)-(\d+)(?:-(count|elevator))?$")


def draft_destination(game: Game, key: str) -> tuple[str, int, int]:
    """Where a desk draft is posted: (outbox kind, thread tid, day or night number). The case post after
    night n opens day n's discussion thread; the vote count goes to the vote thread; the 电梯 to the
    discussion thread."""
    m = _DRAFT_KEY.match(key)
    day = next((d for d in game.days if m and d.day == int(m.group(2))), None)
    if m is None or day is None:
        raise UsageError(_("no such draft: {key}").format(key=key))
    n = int(m.group(2))
    kind, tid = {
        "night": ("case_post", day.discussion_tid),
        "count": ("vote_count", day.vote_tid),
        "elevator": ("elevator", day.discussion_tid),
    }[m.group(3) or m.group(1)]
    if tid is None:
        raise UsageError(_("the game file names no thread for {key}").format(key=key))
    return kind, tid, n


def queued_drafts(game: Game, store: Store) -> dict[str, int]:
    """Bodies already in the outbox (not cancelled) → the item's id: a draft is queued once."""
    return {it.body: it.id for it in _outbox(game, store).items() if it.status != "cancelled"}


def outbox_add_draft(game: Game, store: Store, key: str, who: str) -> int:
    """Put the desk's draft ``key`` into the outbox as a draft item (to be reviewed and approved there).
    Refused when it names a hidden identity, when the read behind it is incomplete, or when the same
    text is queued already."""
    from forumbot.outbox import Reply

    draft = next((d for d in public_drafts(game, store) if d.key == key), None)
    if draft is None:
        raise UsageError(_("no such draft: {key}").format(key=key))
    if draft.leaks:
        raise UsageError(
            _("the draft names a hidden identity ({what}): not queued").format(what="; ".join(draft.leaks))
        )
    if draft.warning:
        raise UsageError(draft.warning)
    queued = queued_drafts(game, store).get(draft.bbcode)
    if queued is not None:
        raise UsageError(_("this draft is in the outbox already as #{id}").format(id=queued))
    kind, tid, n = draft_destination(game, key)
    is_night = kind == "case_post"
    # The runner's own key for this post: one item per post whichever face queued it first, so the
    # outbox never holds the same post twice (nor the runner's and a second, different 电梯).
    moment = f"night{n}/case_post" if is_night else f"day{n}/{kind}"
    ob = _outbox(game, store, who)
    found = ob.by_key(moment)
    if found is not None and ob.get(found).status != "cancelled":
        raise UsageError(_("this post is in the outbox already as #{id}").format(id=found))
    item_id = ob.add(
        kind,
        Reply(tid),
        draft.bbcode,
        day=None if is_night else n,
        night=n if is_night else None,
        by=who,
        key=moment,
    )
    judges_repo.log_change(store, who, "outbox add", f"#{item_id} {kind} ← {key} (tid {tid})")
    return item_id


def _refuse_leaks(game: Game, store: Store, item_id: int, dest: str, body: str) -> None:
    """Refuse a public item that names a hidden identity (the desk's own check, on top of the outbox's
    rule that secret kinds go only to their own player by private message)."""
    if dest == "pm":
        return
    leaks = hidden_roles_in(body, secret_state(game, store))
    if leaks:
        raise UsageError(
            _("outbox item #{id} names a hidden identity ({what}): not approved").format(
                id=item_id, what="; ".join(leaks)
            )
        )


def outbox_approve(
    game: Game,
    store: Store,
    item_id: int,
    who: str,
    body: str | None = None,
    revision: int | None = None,
) -> str:
    """Approve item ``item_id`` as ``who``; an edited ``body`` is kept as a new revision first. Returns
    the item's new status label. ``revision``: the one the judge's page showed; another judge's newer
    edit is refused (StaleChange), never replaced."""
    ob = _outbox(game, store, who)
    old = ob.get(item_id)
    text = body.replace("\r\n", "\n") if body is not None else None
    new_body = text if text is not None and text != old.body else None
    _refuse_leaks(game, store, item_id, old.dest, old.body if new_body is None else new_body)
    item = ob.approve(item_id, by=who, body=new_body, expected_revision=revision)
    edited = f" (edited: revision {item.revision})" if new_body is not None else ""
    judges_repo.log_change(store, who, "outbox approve", f"#{item_id} {item.kind}{edited}")
    return _(OUTBOX_STATUS_LABELS.get(item.status, item.status))


def outbox_cancel(
    game: Game, store: Store, item_id: int, who: str, why: str = "", revision: int | None = None
) -> str:
    item = _outbox(game, store, who).cancel(
        item_id, by=who, why=why or "cancelled on the web desk", expected_revision=revision
    )
    judges_repo.log_change(store, who, "outbox cancel", f"#{item_id} {item.kind}: {why}".strip(": "))
    return _(OUTBOX_STATUS_LABELS.get(item.status, item.status))


def outbox_send(
    game: Game, store: Store, item_id: int, who: str, revision: int | None = None
) -> tuple[str, str]:
    """Send approved item ``item_id`` to the board once (the outbox settles unclear items first and never
    retries a POST blindly). Returns (its status label, the board's words or why the run stopped).
    ``revision``: the text the judge read; another judge's newer edit is refused (StaleChange), never
    sent unseen."""
    ob = _outbox(game, store, who)
    old = ob.check_revision(item_id, revision, by=who)
    _refuse_leaks(game, store, item_id, old.dest, old.body)
    report = ob.send([item_id])
    item = ob.get(item_id)
    words = report.stopped or "; ".join(s.words for s in report.steps if s.item_id == item_id and s.words)
    judges_repo.log_change(
        store, who, "outbox send", f"#{item_id} {item.kind} → {item.status} {words}".strip()
    )
    return _(OUTBOX_STATUS_LABELS.get(item.status, item.status)), words


# --------------------------------------------------------------------------- the desk's own log


@dataclass(frozen=True)
class LogLine:
    at: str
    who: str
    action: str
    detail: str


def change_log(game: Game, store: Store, limit: int = 50) -> tuple[LogLine, ...]:
    """The desk's change log in the judge's words (labels.desk_log_label); the store keeps it as written."""
    return tuple(
        LogLine(_local(game, e.at), actor_label(e.who), *desk_log_label(e.action, e.detail))
        for e in judges_repo.desk_log(store, limit=limit)
    )


# --------------------------------------------------------------------------- the bundled example


def example_game(store_url: str, board_url: str | None = None, example: str = "meishi") -> Game:
    """The bundled example game over a store the demo filled (its board URL is the one in the store)."""
    from forumbot.resources import data_dir

    data = tomllib.loads((data_dir() / "examples" / example / "game.toml").read_text("utf-8"))
    data["game"]["store"] = store_url
    if board_url:
        data["board"]["url"] = board_url
    return game_from_dict(data, path=None)


def played_example(store: Store) -> str:
    """Which bundled example game the store holds (the demo's, whichever it plays): the example whose
    game file names a game the store has records for. Raises UsageError when none does."""
    from forumbot.resources import data_dir

    with store.session() as s:
        names = set(records.game_names(s))
    for folder in sorted((data_dir() / "examples").iterdir()):
        path = folder / "game.toml"
        if path.exists() and tomllib.loads(path.read_text("utf-8"))["game"]["name"] in names:
            return folder.name
    raise UsageError(_("the store holds none of the bundled example games"))


def board_of(store: Store) -> str | None:
    found = base.boards(store)
    return found[0] if found else None


# --------------------------------------------------------------------------- acting from the desk
#
# Each action calls the same desk operation as its CLI command (forumbot/commands/day.py, night.py,
# reader.py) and logs itself with the judge's name. A refusal the desk words for the terminal
# («`forumbot undo` … `forumbot close`») is checked here first and worded for the desk's own pages,
# so a judge at the desk is never sent to a command line.


@dataclass(frozen=True)
class ActionDone:
    """What a desk action did, as the flash line tells it."""

    message: str


def _undo_first(what: str) -> UsageError:
    return UsageError(
        _("{what}: to do it again, first undo it on the “History” page (the undo is logged).").format(
            what=what
        )
    )


def close_day(
    game: Game,
    store: Store,
    n: int,
    who: str,
    *,
    force_why: str = "",
    expected_version: int | None = None,
) -> ActionDone:
    """Close day ``n`` as ``forumbot close`` does (:meth:`Desk.close_day`). A day the threads of which
    were not read in full is refused unless the judge gives a reason to close anyway (recorded).
    ``expected_version``: the state version the judge's page showed (refused when it moved since)."""
    from forumbot.errors import ReadIncomplete

    judge = _desk(game, store, who)
    judge.expected_version = expected_version
    judge.state()  # a page older than the state is refused first, naming who changed it (StaleChange)
    if judge.day_closed(n):
        raise _undo_first(_("Day {n} is already closed").format(n=n))
    judged = judge.tally(n)
    if judged.read_reasons and not force_why.strip():
        raise ReadIncomplete(
            _(
                "The threads of day {n} were not read in full after the deadline, so it cannot be closed: "
                "{reasons}. Press “Poll the board now” on this page first; to close anyway, write the "
                "judges' reason in “Close anyway because” (it is recorded)."
            ).format(n=n, reasons="; ".join(judged.read_reasons))
        )
    res = judge.close_day(n, force_why=force_why.strip() or None)
    out = "、".join(res.out) or _("(nobody)")
    judges_repo.log_change(
        store,
        who,
        "close day",
        f"day {n} → {out}" + (f" (forced: {force_why.strip()})" if force_why.strip() else ""),
    )
    return ActionDone(_("Day {n} closed by {who}. Out: {out}").format(n=n, who=who, out=out))


def revote_due(game: Game, store: Store, n: int) -> bool:
    """True when day ``n``'s count ends in a revote whose call is not recorded yet (the button shows)."""
    judge = _desk(game, store)
    if judge.day_closed(n):
        return False
    r = judge.tally(n).result
    plan = r.outcome.plan
    if r.outcome.kind.value != "revote" or plan is None:
        return False
    return not any(rv.plan.number == plan.number for rv in r.revotes)


def call_revote(game: Game, store: Store, n: int, who: str, called_at: str = "") -> ActionDone:
    """Record the call of the revote day ``n`` waits for, as ``forumbot revote --call[-at]`` does
    (:meth:`Desk.revote`); ``called_at`` (game time, ``YYYY-MM-DD HH:MM``) when posted later than due."""
    judge = _desk(game, store, who)
    if judge.day_closed(n):
        raise _undo_first(_("Day {n} is already closed").format(n=n))
    if not revote_due(game, store, n):
        raise UsageError(
            _("Day {n} is not waiting for a revote: the count has no revote to call.").format(n=n)
        )
    at = _local_input(game, called_at) if called_at.strip() else None
    judged = judge.revote(n, at)
    r = judged.result
    called = r.revotes[-1].plan if r.revotes else None
    text = called.call_text(game.tz) if called is not None else ""
    judges_repo.log_change(store, who, "revote call", f"day {n}: {text}".rstrip(": "))
    return ActionDone(_("Revote of day {n} called by {who}: {call}").format(n=n, who=who, call=text))


def _local_input(game: Game, text: str) -> datetime:
    """A time typed in a form (``YYYY-MM-DD HH:MM`` or the browser's ``YYYY-MM-DDTHH:MM``), game time."""
    try:
        naive = datetime.fromisoformat(text.strip().replace(" ", "T"))
    except ValueError:
        raise UsageError(
            _("“{text}” is not a time: write it as 2024-05-01 20:30 (the game's time zone).").format(
                text=text
            )
        ) from None
    return naive.replace(tzinfo=game.tz) if naive.tzinfo is None else naive


def proxy_vote(game: Game, store: Store, n: int, player: str, target: str, at: str, who: str) -> ActionDone:
    """Enter a proxy vote (代投) as ``forumbot proxy`` does (:meth:`Desk.proxy_vote`)."""
    player, target = player.strip(), target.strip()
    if not player or not target:
        raise UsageError(_("A proxy vote needs the player and the target (or 弃权)."))
    judge = _desk(game, store, who)
    if judge.day_closed(n):
        raise _undo_first(_("Day {n} is already closed").format(n=n))
    when = _local_input(game, at) if at.strip() else datetime.now(UTC)  # blank: entered now, as the CLI
    judge.proxy_vote(n, player, target, when)
    judges_repo.log_change(store, who, "proxy vote", f"day {n} {player} → {target} at {_local(game, when)}")
    return ActionDone(
        _("Proxy vote entered by {who}: {player} → {target} (day {n}).").format(
            who=who, player=player, target=target, n=n
        )
    )


def resolve_night(
    game: Game, store: Store, n: int, who: str, *, expected_version: int | None = None
) -> ActionDone:
    """Resolve night ``n`` as ``forumbot night resolve`` does (:meth:`Desk.night_resolve`);
    ``expected_version`` as for :func:`close_day`."""
    judge = _desk(game, store, who)
    judge.expected_version = expected_version
    judge.state()  # a page older than the state is refused first, naming who changed it (StaleChange)
    if judge.state_labelled(f"night {n}") is not None:
        raise _undo_first(_("Night {n} is already resolved").format(n=n))
    res = judge.night_resolve(n)
    out = "、".join(res.out) or _("(nobody)")
    judges_repo.log_change(store, who, "resolve night", f"night {n} → {out}")
    return ActionDone(_("Night {n} resolved by {who}. Out: {out}").format(n=n, who=who, out=out))


def poll_now(game: Game, store: Store, who: str) -> ActionDone:
    """Read the board now, through the same code as ``forumbot poll`` (:func:`forumbot.poll.poll_store`):
    the game's watched threads, each day's threads remembered as its vote or discussion."""
    from forumbot.client import BoardClient
    from forumbot.poll import poll_store

    tids = list(game.watched_tids())
    if not tids:
        raise UsageError(_("The game file lists no thread to read: add the days' threads to it first."))
    days = [
        (tid, kind, d.day)
        for d in game.days
        for kind, tid in (("vote", d.vote_tid), ("discussion", d.discussion_tid))
        if tid is not None
    ]
    with BoardClient(game.board) as client:
        report = poll_store(
            client, game.store_url, game.board, tids, marker_tids=game.vote_tids(), thread_days=days
        )
    summary = report.summary()
    judges_repo.log_change(store, who, "poll", summary)
    if not report.ok:
        # poll's own failure line sends the judge to `forumbot poll`: the desk words it for its button
        error = report.errors[0].message if report.errors else ""
        raise UsageError(
            _(
                "The board was read only in part ({summary}): {error}. Every count based on the threads "
                "not read is provisional; press “Poll the board now” again once the board is back."
            ).format(summary=summary, error=error)
        )
    return ActionDone(_("Board read by {who}: {summary}").format(who=who, summary=summary))


# --------------------------------------------------------------------------- a night's submissions

#: The fields of the desk's submission form, as the CLI's ``night submit`` names them.
SUBMISSION_FORM_FIELDS = ("kind", "by", "target", "none", "pledge", "possess", "kill_text", "first", "second")


def _entry(fields: dict[str, str]) -> dict[str, object]:
    """The form's values as a typed entry (:func:`forumbot.desk.night.action_from_fields`): blanks
    dropped, ``none`` a switch."""
    entry: dict[str, object] = {
        k: fields[k].strip() for k in SUBMISSION_FORM_FIELDS if fields.get(k, "").strip()
    }
    entry["none"] = fields.get("none") == "1"
    if not entry.get("kind"):
        raise UsageError(_("Choose the action of the submission."))
    return entry


def night_enter(
    game: Game,
    store: Store,
    n: int,
    fields: dict[str, str],
    why: str,
    who: str,
    *,
    expected_version: int | None = None,
) -> ActionDone:
    """Enter one submission for night ``n`` as ``forumbot night submit`` does (:meth:`Desk.night_entries`),
    at the time the judge gives (the board's time zone); kept with who and why, logged."""
    if not why.strip():
        raise UsageError(_("A submission entered by a judge needs a reason (kept with it)."))
    judge = _desk(game, store, who)
    judge.expected_version = expected_version
    judge.require_state()  # an older page (another judge resolved or undid since) is refused here
    _refuse_resolved_night(game, store, n)
    entry = _entry(fields)
    at = fields.get("at", "").strip()
    if not at:
        raise UsageError(_("Give the time the submission was received (the board's time zone)."))
    entry["at"] = at.replace("T", " ")
    rec = judge.night_entries(n, [entry], reason=why.strip())[0]
    judges_repo.log_change(store, who, "night submission", f"night {n} {rec.what} at {at}: {why.strip()}")
    words = _("Submission entered by {who} for night {n}.").format(who=who, n=n)
    if rec.duplicate:
        words = _("The same submission is stored already: nothing was added.")
    extra = [x for x in (rec.replaces, rec.void_reason, _("late") if rec.late else "") if x]
    return ActionDone(words + (f" （{'；'.join(extra)}）" if extra else ""))


def night_correct(
    game: Game,
    store: Store,
    n: int,
    row_id: int,
    fields: dict[str, str] | None,
    why: str,
    who: str,
    *,
    expected_version: int | None = None,
) -> ActionDone:
    """Correct stored submission ``row_id`` of night ``n`` (``fields``: the corrected submission; None:
    withdraw it) through :meth:`Desk.night_correct`, which the preview, ``night resolve`` and the runner
    all build the night from. Refused once the night is resolved (undo it first, on this page)."""
    from forumbot.desk.night import action_from_fields

    judge = _desk(game, store, who)
    judge.expected_version = expected_version
    judge.state()  # a page older than the state is refused first, naming who changed it (StaleChange)
    _refuse_resolved_night(game, store, n)
    action = None
    at = None
    if fields is not None:
        entry = _entry(fields)
        action = action_from_fields(str(entry["kind"]), entry)
        if fields.get("at", "").strip():
            at = _local_input(game, fields["at"])
    rec = judge.night_correct(n, row_id, action, why, at=at)
    what = "withdrawn" if rec is None else f"→ {rec.what}"
    judges_repo.log_change(store, who, "night correction", f"night {n} #{row_id} {what}: {why.strip()}")
    if rec is None:
        return ActionDone(
            _("Submission #{id} of night {n} withdrawn by {who}.").format(id=row_id, n=n, who=who)
        )
    extra = [x for x in (rec.void_reason, _("late") if rec.late else "") if x]
    return ActionDone(
        _("Submission #{id} of night {n} corrected by {who}.").format(id=row_id, n=n, who=who)
        + (f" （{'；'.join(extra)}）" if extra else "")
    )


def night_action_choices() -> tuple[tuple[str, str], ...]:
    """(code, the rules' Chinese name) of every night action a judge may enter."""
    from forumbot.desk.night import NIGHT_ACTION_KINDS

    return tuple((k, _action_name(k)) for k in NIGHT_ACTION_KINDS)


def changes(game: Game, store: Store) -> Changes:
    """The store's counters now (:mod:`forumbot.store.changes`): what an open page polls to refresh."""
    return store_changes(store, game.name)


# --------------------------------------------------------------------------- setup


@dataclass(frozen=True)
class SetupView:
    """The setup page: the roster, the roles a judge may give, and the roles stored already (if any)."""

    roster: tuple[str, ...]
    roles: tuple[str, ...]  # the rule set's role names, Chinese
    stored: tuple[tuple[str, str], ...]  # (player, role) of the current state; () before setup
    stored_by: str
    stored_at: str


@dataclass(frozen=True)
class SetupDone:
    message: str
    roles: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...]
    notices: tuple[tuple[str, str], ...]  # (player, private notice): to send to each player


def setup_view(game: Game, store: Store) -> SetupView:
    judge = _desk(game, store)
    table = ROLE_TABLES[judge.ruleset.family]
    st = judge.state()
    setups = [v for v in judge.live_history() if v.label.startswith("setup")]
    return SetupView(
        roster=game.roster,
        roles=tuple(spec.name_zh for spec in table.values()),
        stored=() if st is None else tuple((p.name, table[p.role].name_zh) for p in st.players),
        stored_by=setups[-1].by if setups else "",
        stored_at=_local(game, setups[-1].at) if setups else "",
    )


def setup_game(
    game: Game,
    store: Store,
    who: str,
    fields: dict[str, str],
    *,
    expected_version: int | None = None,
) -> SetupDone:
    """Draw the roles with a recorded seed (``mode`` ``seed``) or store the judges' own (``given``: one
    ``role-<i>`` per roster place) as ``forumbot setup`` does (:meth:`Desk.setup`). Roles stored already
    are replaced only with ``force`` (the old draw stays in the history) and from a page showing the
    current state version."""
    from engine import Setup

    judge = _desk(game, store, who)
    judge.expected_version = expected_version
    force = fields.get("force") == "1"
    if judge.state() is not None and not force:
        raise UsageError(
            _(
                "Roles are stored for this game already: tick “Draw again” to replace them "
                "(kept in the history)."
            )
        )
    if fields.get("mode") == "given":
        roles = {name: fields.get(f"role-{i}", "").strip() for i, name in enumerate(game.roster)}
        missing = [name for name, role in roles.items() if not role]
        if missing:
            raise UsageError(
                _("Give a role to every player (missing: {names}).").format(names="、".join(missing))
            )
        made = judge.setup(roles=roles, force=force)
        how = _("roles given by the judges")
    else:
        text = fields.get("seed", "").strip()
        try:
            seed = int(text)
        except ValueError:
            raise UsageError(
                _(
                    "“{text}” is not a seed: give a whole number "
                    "(it is recorded, so the draw can be checked)."
                ).format(text=text)
            ) from None
        made = judge.setup(seed=seed, variant=fields.get("variant", "").strip() or None, force=force)
        how = _("roles drawn (seed {seed})").format(seed=seed)
    state = made.state if isinstance(made, Setup) else made
    table = ROLE_TABLES[state.family]
    judges_repo.log_change(store, who, "setup", how)
    return SetupDone(
        _("Roles stored by {who} for {n} players: {how}.").format(who=who, n=len(state.players), how=how),
        tuple((p.name, table[p.role].name_zh) for p in state.players),
        tuple(made.warnings) if isinstance(made, Setup) else (),
        tuple(made.notices.items()) if isinstance(made, Setup) else (),
    )
