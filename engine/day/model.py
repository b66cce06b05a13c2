"""Values of the day engine: what goes in (posts, proxies, overrides, times) and what comes out (verdicts,
the tally, strikes, drownings, cards, the outcome). All frozen; times are timezone-aware datetimes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from enum import StrEnum

from engine.ballots import Ballot, BallotKind
from engine.flags_day import DayFlags
from engine.quickinit import quick_init

__all__ = [
    "Card",
    "CardColor",
    "DayInput",
    "DayOutcome",
    "DayResult",
    "DayTimes",
    "DrownRule",
    "Drowning",
    "OutcomeKind",
    "Override",
    "PlayerStatus",
    "PlayerVote",
    "ProxyVote",
    "RevotePlan",
    "RevoteRound",
    "TallyLine",
    "Verdict",
    "VotePost",
    "VoteStatus",
    "VoterRef",
]


def _aware(t: datetime | None, what: str) -> None:
    if t is not None and (t.tzinfo is None or t.utcoffset() is None):
        raise ValueError(f"{what}: time {t!r} must be timezone-aware")


def fmt_time(t: datetime, tz: tzinfo | None) -> str:
    """``6/5 12:31`` in the display zone (seconds only when not zero)."""
    lt = t.astimezone(tz) if tz is not None else t
    s = f"{lt.month}/{lt.day} {lt.hour:02d}:{lt.minute:02d}"
    return s + (f":{lt.second:02d}" if lt.second else "")


def fmt_clock(t: datetime, tz: tzinfo | None) -> str:
    lt = t.astimezone(tz) if tz is not None else t
    return f"{lt.hour:02d}:{lt.minute:02d}"


# --- inputs ---------------------------------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class VotePost:
    """A post of the vote thread (any author, any time) with its reading.

    ``at`` is the earliest instant the page allows; ``at_latest`` the latest when the board showed only
    minutes (None = exact). A post whose interval straddles a deadline is judged at ``at`` and flagged
    for review. ``edited`` is decided by the caller from stored revisions and the edit marker.
    ``quoted_pids`` are the findpost pids of its quote blocks: how an R004 change "replies to the
    original vote floor".
    """

    pid: int
    floor: int | None
    author: str
    at: datetime
    ballot: Ballot
    quoted_pids: tuple[int, ...] = ()
    edited: bool = False
    edit_note: str = ""
    at_latest: datetime | None = None

    def __post_init__(self) -> None:
        # One per post of a vote thread (100,000 in a long day): the check inline, its message made only
        # for a naive time.
        at, latest = self.at, self.at_latest
        if at is not None and (at.tzinfo is None or at.utcoffset() is None):
            _aware(at, f"vote post pid={self.pid}")
        if latest is not None and (latest.tzinfo is None or latest.utcoffset() is None):
            _aware(latest, f"vote post pid={self.pid} (at_latest)")


@dataclass(frozen=True, slots=True)
class ProxyVote:
    """A vote the judge enters for a player (代投). ``pid`` is the judge's post in the thread, if any."""

    player: str
    target: str | None
    at: datetime
    entered_by: str
    abstain: bool = False
    pid: int | None = None
    note: str = ""

    def __post_init__(self) -> None:
        _aware(self.at, f"proxy vote for {self.player!r}")


@dataclass(frozen=True, slots=True)
class Override:
    """A judge's correction of one post's reading. It replaces the post's ballot; the post is then judged
    by the ordinary rules (time, one vote per round, targets), unless ``not_edited`` also waives the edit.
    An override to NOT_A_VOTE strikes the post out (status OVERRIDDEN)."""

    pid: int
    kind: BallotKind
    why: str
    by: str
    at: datetime | None = None
    target: str | None = None
    abstain: bool = False
    not_edited: bool = False

    def __post_init__(self) -> None:
        _aware(self.at, f"override of pid={self.pid}")

    def ballot(self) -> Ballot:
        return Ballot(self.kind, self.target, self.abstain, note=f"法官更正：{self.why}")


@dataclass(frozen=True, slots=True)
class DayTimes:
    """The day's deadlines. ``void_cutoff`` defaults to close − 30 min (R001), ``change_cutoff`` to
    close − 60 min (R004). A vote counts if opens_at ≤ t < closes_at (AMB-24)."""

    opens_at: datetime
    closes_at: datetime
    void_cutoff: datetime | None = None
    change_cutoff: datetime | None = None
    accelerated: bool = False
    accelerated_at: datetime | None = None  # acceleration started mid-day: changes barred from then on
    accelerated_until: datetime | None = None  # R004: a granted delay ended the accelerated state then

    def __post_init__(self) -> None:
        for name in (
            "opens_at",
            "closes_at",
            "void_cutoff",
            "change_cutoff",
            "accelerated_at",
            "accelerated_until",
        ):
            _aware(getattr(self, name), f"DayTimes.{name}")
        if self.closes_at <= self.opens_at:
            raise ValueError(f"DayTimes: closes_at {self.closes_at} is not after opens_at {self.opens_at}")

    @property
    def void_deadline(self) -> datetime:
        return self.void_cutoff if self.void_cutoff is not None else self.closes_at - timedelta(minutes=30)

    @property
    def change_deadline(self) -> datetime:
        return (
            self.change_cutoff if self.change_cutoff is not None else self.closes_at - timedelta(minutes=60)
        )

    def accelerated_by(self, t: datetime) -> bool:
        """Whether the day is accelerated at ``t`` (“延迟成功时，不再视为‘执行加速’状态”)."""
        if self.accelerated_until is not None and t >= self.accelerated_until:
            return False
        if self.accelerated_at is not None:
            return t >= self.accelerated_at
        return self.accelerated


def _frozen_map(m: Mapping[str, int] | None) -> Mapping[str, int]:
    return dict(m) if m is not None else {}


@dataclass(frozen=True)
class DayInput:
    """Everything the day engine needs for one round. Build it from stored posts; nothing is fetched.

    ``discussion_counts`` (valid discussion posts this round, per player; see engine.attendance) may be
    None when attendance is not checked. ``previous_round_deficient`` are the R001 players with too few
    valid posts in the previous round (carry ``DayResult.discussion_deficient`` forward).
    ``proxy_used`` counts proxy votes each player used in earlier rounds (R001 limit, AMB-32).
    ``double_kill_pair``: guardian variants, the guardian and his protégé of this round (AMB-40).
    ``new_victim``: the night produced a victim (AMB-21 flag). ``judges``: accounts whose posts are the
    judges' (labelled, never counted). ``display_tz``: zone for times in reasons (default: closes_at's).
    """

    family: str  # the rule set judging the day: a family ("r001"/"r004") or any rule-set name
    day: int
    roster: tuple[str, ...]
    alive: frozenset[str]
    posts: tuple[VotePost, ...]
    times: DayTimes
    discussion_counts: Mapping[str, int] | None = None
    previous_round_deficient: frozenset[str] = frozenset()
    strikes: Mapping[str, int] = field(default_factory=dict)
    proxy_votes: tuple[ProxyVote, ...] = ()
    proxy_used: Mapping[str, int] = field(default_factory=dict)
    overrides: tuple[Override, ...] = ()
    authority_holder: str | None = None
    double_kill_pair: frozenset[str] | None = None
    yellow_cards: Mapping[str, int] = field(default_factory=dict)
    flags: DayFlags = field(default_factory=DayFlags)
    new_victim: bool = True
    judges: frozenset[str] = frozenset()
    display_tz: tzinfo | None = None

    def __post_init__(self) -> None:
        if not self.family:
            raise ValueError("DayInput.family must name a rule set ('r001', 'r004' or a rule-set id)")
        if self.day < 1:
            raise ValueError(f"DayInput.day must be ≥ 1, got {self.day}")
        if len(set(self.roster)) != len(self.roster):
            raise ValueError(f"DayInput.roster has duplicate names: {self.roster}")
        stray = set(self.alive) - set(self.roster)
        if stray:
            raise ValueError(f"DayInput.alive names players not in the roster: {sorted(stray)}")
        pids = [p.pid for p in self.posts]
        if len(set(pids)) != len(pids):
            raise ValueError("DayInput.posts has duplicate pids")
        if self.double_kill_pair is not None and len(self.double_kill_pair) != 2:
            raise ValueError(
                f"DayInput.double_kill_pair must name two players, got {sorted(self.double_kill_pair)}"
            )
        for name in ("strikes", "proxy_used", "yellow_cards"):
            object.__setattr__(self, name, _frozen_map(getattr(self, name)))
        if self.discussion_counts is not None:
            object.__setattr__(self, "discussion_counts", _frozen_map(self.discussion_counts))
        object.__setattr__(self, "alive", frozenset(self.alive))
        object.__setattr__(self, "previous_round_deficient", frozenset(self.previous_round_deficient))

    @property
    def tz(self) -> tzinfo | None:
        return self.display_tz if self.display_tz is not None else self.times.closes_at.tzinfo


# --- outputs --------------------------------------------------------------------------------------------


class VoteStatus(StrEnum):
    """The verdict on one post (or proxy vote)."""

    COUNTED = "counted"  # the player's vote, counted for its target
    CHANGED = "changed"  # R004: a valid change; counts (abstain=True for 改票对象：弃权)
    SUPERSEDED = "superseded"  # replaced by a valid change, or voided by the player's own void
    ABSTAIN = "abstain"  # a valid abstention (attendance, no count)
    VOID_SELF = "void_self"  # R001: an effective active void (废票)
    VOID_WRONG_NAME = "void_wrong_name"  # target is not a living player (R001: 废票; R004: invalid)
    AMBIGUOUS = "ambiguous"  # more than one name (R001: 废票; R004: invalid)
    EDITED = "edited"  # the vote post was edited (R001: void + strike; R004: invalid)
    LATE = "late"  # at or after the close
    BEFORE_OPEN = "before_open"  # before the round's case post / the revote call
    VOID_AFTER_CUTOFF = "void_after_cutoff"  # R001: a void after 12:30 — the earlier vote counts
    CHANGE_LAST_HOUR = "change_last_hour"  # R004: change at or after close − 60 min
    CHANGE_NOT_REPLY = "change_not_reply"  # R004: change not replying to the current vote's floor
    SECOND_CHANGE = "second_change"  # R004: only one change per day
    CHANGE_WHILE_ACCELERATED = "change_while_accelerated"
    NOT_A_PLAYER = "not_a_player"
    DEAD = "dead"  # an eliminated player posted a vote
    DROWNED = "drowned"  # the author drowned at this close: his vote is void
    DUPLICATE = "duplicate"  # a further vote after the player's one vote
    NOT_A_VOTE = "not_a_vote"
    UNREADABLE = "unreadable"  # looks like a vote, breaks the format
    OVERRIDDEN = "overridden"  # the judge struck the post out
    PROXY_REFUSED = "proxy_refused"
    NOT_A_PARTICIPANT = "not_a_participant"  # a revote post by someone not called to revote
    NONCOMPLIANT = "noncompliant"  # a revote that is not exactly one candidate (strike)
    AFTER_AS_OF = "after_as_of"  # later than the as-of time: not yet seen

    @property
    def counts(self) -> bool:
        return self in (VoteStatus.COUNTED, VoteStatus.CHANGED)


@quick_init
@dataclass(frozen=True, slots=True)
class Verdict:
    """What the engine decided about one post. ``stage`` 0 = the original vote, 1/2 = revote #1/#2."""

    pid: int | None
    floor: int | None
    author: str
    at: datetime
    status: VoteStatus
    target: str | None = None
    abstain: bool = False
    reason: str = ""
    needs_review: bool = False
    suggestion: str | None = None
    stage: int = 0
    proxy: bool = False
    override: Override | None = None

    @property
    def counts(self) -> bool:
        return self.status.counts and self.target is not None and not self.abstain


class PlayerStatus(StrEnum):
    """A living player's vote for the round (R001 table a.2; R004 adds INVALID)."""

    VALID = "valid"
    ABSTAIN = "abstain"
    VOID_SELF = "void_self"
    VOID_WRONG_NAME = "void_wrong_name"
    VOID_EDITED = "void_edited"
    NONE = "none"  # no vote in the window (R001: a strike; R004: no vote)
    DROWNED = "drowned"
    INVALID = "invalid"  # R004: an invalid vote never corrected (no card by default, AMB-72)
    NOT_YET = "not_yet"  # as-of view before the close: has not voted yet


@dataclass(frozen=True, slots=True)
class PlayerVote:
    player: str
    status: PlayerStatus
    target: str | None = None
    pid: int | None = None
    floor: int | None = None
    strike: bool = False  # R001: this round earned a vote strike
    scattered: bool = False  # R001: counts as a scattered vote in a tie (分散票向)
    replied: bool = False  # posted anything in the vote thread inside the window (R004 yellow card)
    note: str = ""


@dataclass(frozen=True, slots=True)
class VoterRef:
    player: str
    pid: int | None
    floor: int | None
    stage: int = 0
    proxy: bool = False


@dataclass(frozen=True, slots=True)
class TallyLine:
    target: str
    voters: tuple[VoterRef, ...]

    @property
    def count(self) -> int:
        return len(self.voters)


class DrownRule(StrEnum):
    DISCUSSION = "discussion"  # 发言不足：连续两轮有效发言少于2次
    VOTE_STRIKES = "vote_strikes"  # 投票累计两次未有效投票

    @property
    def label(self) -> str:
        return "发言不足" if self is DrownRule.DISCUSSION else "投票累计两次"


@dataclass(frozen=True, slots=True)
class Drowning:
    player: str
    rule: DrownRule
    stage: int = 0  # 0 = at the original close, n = at revote #n
    executed: bool = False  # also executed: announced as executed (R001 §四.2.5)


class CardColor(StrEnum):
    YELLOW = "yellow"
    RED = "red"


@dataclass(frozen=True, slots=True)
class Card:
    player: str
    color: CardColor
    reason: str


@dataclass(frozen=True, slots=True)
class RevotePlan:
    """A revote call (R001 §四.4): the candidates, who must revote, and until when."""

    number: int
    candidates: tuple[str, ...]
    participants: tuple[str, ...]
    opens_at: datetime
    deadline: datetime
    counts: tuple[tuple[str, int], ...] = ()  # the candidates' counts going in

    def __post_init__(self) -> None:
        if self.number not in (1, 2):
            raise ValueError(f"revote number must be 1 or 2, got {self.number}")
        _aware(self.opens_at, "RevotePlan.opens_at")
        _aware(self.deadline, "RevotePlan.deadline")
        if self.deadline <= self.opens_at:
            raise ValueError(f"revote deadline {self.deadline} is not after its call {self.opens_at}")

    def call_text(self, tz: tzinfo | None = None) -> str:
        """The public call, e.g. “平票：Cal、Ken 各4票。请 Cy、Cal 于14:05前在 Cal、Ken 中重新投票（…）”."""
        cands = "、".join(self.candidates)
        values = {n for _, n in self.counts}
        if len(values) == 1:
            head = f"平票：{cands} 各{values.pop()}票。"
        elif self.counts:
            head = "平票：" + "，".join(f"{c} {n}票" for c, n in self.counts) + "。"
        else:
            head = f"平票：{cands}。"
        which = "" if self.number == 1 else "第二次"
        return (
            f"{head}请 {'、'.join(self.participants)} 于{fmt_clock(self.deadline, tz)}前在 {cands} 中"
            f"{which}重新投票（不得弃权，不得另投他人）"
        )


class OutcomeKind(StrEnum):
    EXECUTE = "execute"  # R001 被处决 / R004 出局 (unique top)
    DOUBLE_EXECUTE = "double_execute"  # guardian and protégé tie at the top (AMB-40)
    REVOTE = "revote"
    NO_EXECUTION = "no_execution"  # R001: 平安夜，无人票死
    AUTHORITY = "authority"  # R004: tie broken by the 威权 holder's vote
    NONE = "none"  # R004: nobody out


@dataclass(frozen=True, slots=True)
class DayOutcome:
    kind: OutcomeKind
    out: tuple[str, ...] = ()
    plan: RevotePlan | None = None
    text: str = ""  # the public line (identity is added by the caller: “，身份：杀手”)
    reason: str = ""  # why, for the judge
    authority: str | None = None  # the 威权 holder who decided


@dataclass(frozen=True, slots=True)
class RevoteRound:
    plan: RevotePlan
    verdicts: tuple[Verdict, ...]
    tally: tuple[TallyLine, ...]  # cumulative when the flag says so
    compliant: Mapping[str, str]  # participant → candidate
    noncompliant: tuple[str, ...]  # participants who earned a strike
    provisional: bool = False


@dataclass(frozen=True)
class DayResult:
    """The judged day. ``verdicts`` holds one verdict per input post and proxy vote (time order)."""

    input: DayInput
    as_of: datetime | None
    provisional: bool  # as_of before the close: nothing is final, no strikes or drownings yet
    verdicts: tuple[Verdict, ...]
    players: tuple[PlayerVote, ...]  # living players, roster order
    tally: tuple[TallyLine, ...]  # the original count (count desc, then first vote)
    no_vote: tuple[str, ...]
    strikes_after: Mapping[str, int]
    drowned: tuple[Drowning, ...]
    discussion_deficient: frozenset[str]  # R001: carry to the next round's previous_round_deficient
    proxy_used_after: Mapping[str, int]
    cards: tuple[Card, ...]
    yellow_totals: Mapping[str, int]
    outcome: DayOutcome
    revotes: tuple[RevoteRound, ...] = ()
    problems: tuple[str, ...] = ()

    # convenience views ---------------------------------------------------------------------------------
    @property
    def counts(self) -> dict[str, int]:
        return {line.target: line.count for line in self.tally}

    @property
    def final_tally(self) -> tuple[TallyLine, ...]:
        return self.revotes[-1].tally if self.revotes else self.tally

    @property
    def executed(self) -> tuple[str, ...]:
        if self.outcome.kind in (OutcomeKind.EXECUTE, OutcomeKind.DOUBLE_EXECUTE, OutcomeKind.AUTHORITY):
            return self.outcome.out
        return ()

    @property
    def drowned_names(self) -> tuple[str, ...]:
        return tuple(d.player for d in self.drowned)

    @property
    def drowned_announced(self) -> tuple[Drowning, ...]:
        """Drownings to announce by name: an executed player is announced as executed instead."""
        return tuple(d for d in self.drowned if not d.executed)

    @property
    def red_cards(self) -> tuple[str, ...]:
        return tuple(c.player for c in self.cards if c.color is CardColor.RED)

    @property
    def yellow_cards(self) -> tuple[str, ...]:
        return tuple(c.player for c in self.cards if c.color is CardColor.YELLOW)

    @property
    def review(self) -> tuple[Verdict, ...]:
        out = [v for v in self.verdicts if v.needs_review]
        for r in self.revotes:
            out.extend(v for v in r.verdicts if v.needs_review)
        return tuple(out)

    def verdict(self, pid: int) -> Verdict:
        """The verdict on post ``pid`` (original vote or any revote)."""
        for v in self.verdicts:
            if v.pid == pid:
                return v
        for r in self.revotes:
            for v in r.verdicts:
                if v.pid == pid:
                    return v
        raise KeyError(f"no verdict for pid {pid}")

    def player(self, name: str) -> PlayerVote:
        for p in self.players:
            if p.player == name:
                return p
        raise KeyError(f"{name!r} is not a living player of day {self.input.day}")
