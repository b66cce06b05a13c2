"""R001 day resolution (also the R000 variants, AMB-49): one vote per round, active voids until 12:30,
edited votes void with a strike, discussion and vote drowning, ties with scattered votes → revotes.

rules.md §a.2, §b.1, §c.1 and AMB-20…30, AMB-40.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, tzinfo

from engine.ballots import BallotKind
from engine.day.common import (
    Entry,
    build_entries,
    build_tally,
    check_target,
    straddle_note,
    within_inclusive_minute,
)
from engine.day.model import (
    DayInput,
    DayOutcome,
    DayResult,
    Drowning,
    DrownRule,
    OutcomeKind,
    PlayerStatus,
    PlayerVote,
    RevotePlan,
    TallyLine,
    Verdict,
    VoterRef,
    VoteStatus,
    fmt_clock,
    fmt_time,
)

PEACEFUL = "平安夜，无人票死"
_NOT_A_REPLY = frozenset(
    {VoteStatus.AFTER_AS_OF, VoteStatus.PROXY_REFUSED, VoteStatus.LATE, VoteStatus.BEFORE_OPEN}
)
_VOTE_LIKE = frozenset({BallotKind.VOTE, BallotKind.CHANGE, BallotKind.VOID})
_VOID_PREFIX = {
    VoteStatus.VOID_WRONG_NAME: "写错名字算废票：",
    VoteStatus.AMBIGUOUS: "投票对象不明确，按废票处理（AMB-25）：",
}

_STATUS_FOR_PLAYER = {
    VoteStatus.COUNTED: PlayerStatus.VALID,
    VoteStatus.ABSTAIN: PlayerStatus.ABSTAIN,
    VoteStatus.VOID_SELF: PlayerStatus.VOID_SELF,
    VoteStatus.VOID_WRONG_NAME: PlayerStatus.VOID_WRONG_NAME,
    VoteStatus.AMBIGUOUS: PlayerStatus.VOID_WRONG_NAME,
    VoteStatus.EDITED: PlayerStatus.VOID_EDITED,
}


@dataclass
class _State:
    """A player's round so far: the index (into verdicts) of the post that decides his vote."""

    decisive: int  # verdict index
    status: VoteStatus
    target: str | None = None


def _label(v: Verdict) -> str:
    return f"#{v.floor}" if v.floor is not None else (f"pid {v.pid}" if v.pid is not None else "代投")


def resolve_r001(inp: DayInput, as_of: datetime | None = None) -> DayResult:
    """Judge an R001 day: each post, then attendance and strikes, drownings, the tally and the outcome."""
    flags, times = inp.flags, inp.times
    provisional = as_of is not None and as_of < times.closes_at
    entries, problems = build_entries(inp.posts, inp.proxy_votes, inp.overrides)
    verdicts: list[Verdict] = []
    state: dict[str, _State] = {}
    proxy_used = dict(inp.proxy_used)
    void_deadline = times.void_deadline

    def void_in_time(t: datetime) -> bool:
        return (
            within_inclusive_minute(t, void_deadline)
            if flags.r001_void_cutoff_inclusive
            else t < void_deadline
        )

    rnd = _Round.of(inp, as_of)
    for e in entries:
        verdicts.append(_judge_entry(e, inp, rnd, state, verdicts, proxy_used, void_in_time))

    living = [p for p in inp.roster if p in inp.alive]
    deficient_now, d_disc = _attendance(inp, living, final=not provisional)
    statuses, strikes, struck = _strikes(inp, living, state, provisional, d_disc)
    d_vote = {p for p in struck if strikes[p] >= 2}
    drowned_order = [p for p in living if p in d_disc] + [
        p for p in living if p in d_vote and p not in d_disc
    ]
    drowned = set(drowned_order)
    _void_drowned_votes(verdicts, drowned, d_disc)
    tally = _tally(living, state, verdicts, drowned)
    outcome, scattered = _decide(inp, tally, living, state, verdicts, drowned)
    executed = (
        set(outcome.out) if outcome.kind in (OutcomeKind.EXECUTE, OutcomeKind.DOUBLE_EXECUTE) else set()
    )
    drownings = tuple(
        Drowning(p, DrownRule.DISCUSSION if p in d_disc else DrownRule.VOTE_STRIKES, 0, p in executed)
        for p in drowned_order
    )
    players = _player_votes(
        living, state, verdicts, statuses, drowned, d_disc, d_vote, struck, set(scattered)
    )
    no_vote = tuple(p for p in living if statuses[p] in (PlayerStatus.NONE, PlayerStatus.NOT_YET))
    return DayResult(
        input=inp,
        as_of=as_of,
        provisional=provisional,
        verdicts=tuple(verdicts),
        players=players,
        tally=tally,
        no_vote=no_vote,
        strikes_after=strikes,
        drowned=drownings,
        discussion_deficient=deficient_now,
        proxy_used_after=proxy_used,
        cards=(),
        yellow_totals=dict(inp.yellow_cards),
        outcome=outcome,
        problems=tuple(problems),
    )


def _attendance_applies(inp: DayInput) -> bool:
    return inp.flags.r001_attendance_on_peaceful_round or inp.new_victim


def _attendance(inp: DayInput, living: list[str], *, final: bool) -> tuple[frozenset[str], set[str]]:
    """§四.2 discussion drowning: who is short of valid posts this round (carried to the next) and who
    drowns for it now (short in two consecutive rounds, from day 2, once the day is final)."""
    counts = inp.discussion_counts
    applies = _attendance_applies(inp)
    if counts is None:
        deficient_now: frozenset[str] = frozenset()
    elif applies:
        deficient_now = frozenset(p for p in living if counts.get(p, 0) < inp.flags.r001_min_discussion_posts)
    else:  # the round is not counted (AMB-21 flag): the streak carries over unchanged
        deficient_now = inp.previous_round_deficient & frozenset(living)
    d_disc: set[str] = set()
    if final and counts is not None and applies and inp.day >= 2:
        d_disc = {p for p in living if p in deficient_now and p in inp.previous_round_deficient}
    return deficient_now, d_disc


def _strikes(
    inp: DayInput, living: list[str], state: dict[str, _State], provisional: bool, d_disc: set[str]
) -> tuple[dict[str, PlayerStatus], dict[str, int], set[str]]:
    """Each living player's status, and the vote strikes (淹水, AMB-22) of a final day: no vote (when
    attendance counts), an edited vote, a wrong name (flag). A player drowned for discussion gets none."""
    flags = inp.flags
    applies = _attendance_applies(inp)
    strikes = dict(inp.strikes)
    statuses: dict[str, PlayerStatus] = {}
    struck: set[str] = set()
    for p in living:
        st = state.get(p)
        if st is None:
            ps = PlayerStatus.NOT_YET if provisional else PlayerStatus.NONE
        else:
            ps = _STATUS_FOR_PLAYER[st.status]
        statuses[p] = ps
        if p in d_disc or provisional:
            continue
        strike = (
            (ps is PlayerStatus.NONE and applies)
            or ps is PlayerStatus.VOID_EDITED
            or (ps is PlayerStatus.VOID_WRONG_NAME and flags.r001_wrong_name_strike)
        )
        if strike:
            strikes[p] = strikes.get(p, 0) + 1
            struck.add(p)
    return statuses, strikes, struck


def _void_drowned_votes(verdicts: list[Verdict], drowned: set[str], d_disc: set[str]) -> None:
    """The votes of drowned players are void (§四.2.4, AMB-26)."""
    for i, v in enumerate(verdicts):
        if v.author in drowned and v.stage == 0 and v.status in _STATUS_FOR_PLAYER:
            rule = "发言不足（连续两轮有效发言少于2次）" if v.author in d_disc else "投票累计两次未有效投票"
            verdicts[i] = replace(
                v,
                status=VoteStatus.DROWNED,
                reason=f"{v.author} 淹死（{rule}），其本轮投票无效；原判：{v.reason}",
            )


def _tally(
    living: list[str], state: dict[str, _State], verdicts: list[Verdict], drowned: set[str]
) -> tuple[TallyLine, ...]:
    """The original count: each counted vote of a living, not drowned player, in time order."""
    votes: list[tuple[str, VoterRef, datetime]] = []
    for p in living:
        st = state.get(p)
        if st is None or p in drowned or st.status is not VoteStatus.COUNTED or st.target is None:
            continue
        v = verdicts[st.decisive]
        votes.append((st.target, VoterRef(p, v.pid, v.floor, 0, v.proxy), v.at))
    votes.sort(key=lambda x: x[2])
    return build_tally(votes)


def _decide(
    inp: DayInput,
    tally: tuple[TallyLine, ...],
    living: list[str],
    state: dict[str, _State],
    verdicts: list[Verdict],
    drowned: set[str],
) -> tuple[DayOutcome, list[str]]:
    """The outcome (§四.4): no valid vote → nobody; one top → executed; a guardian and his protégé tied
    → both (AMB-40); a tie without scattered votes → nobody; else the first revote. Returns the
    scattered voters too."""
    flags = inp.flags
    cnt = {line.target: line.count for line in tally}
    if not cnt:
        return DayOutcome(
            OutcomeKind.NO_EXECUTION, text=PEACEFUL, reason="无有效票（AMB-29）：无人票死，不重投"
        ), []
    top = max(cnt.values())
    tied = [line.target for line in tally if line.count == top]
    if len(tied) == 1:
        return DayOutcome(
            OutcomeKind.EXECUTE, (tied[0],), text=f"{tied[0]} 被处决", reason=f"{tied[0]} {top}票，单杀"
        ), []
    if (
        inp.double_kill_pair is not None
        and flags.guardian_double_kill_rule != "off"
        and frozenset(tied) == inp.double_kill_pair
    ):
        pair = tuple(tied)
        return DayOutcome(
            OutcomeKind.DOUBLE_EXECUTE,
            pair,
            text=f"{'、'.join(pair)} 各{top}票并列最高（双杀票数），二者同死",
            reason="守护人与被守护人平票，二者同死，不重投（AMB-40）",
        ), []
    scattered = _scattered(living, state, verdicts, drowned, set(tied))
    tie_text = f"{'、'.join(tied)} 各{top}票平票"
    if not scattered:
        return DayOutcome(OutcomeKind.NO_EXECUTION, text=PEACEFUL, reason=f"{tie_text}，无分散票向"), []
    called = inp.times.closes_at
    plan = RevotePlan(
        number=1,
        candidates=tuple(tied),
        participants=tuple(scattered),
        opens_at=called,
        deadline=called + timedelta(minutes=flags.r001_revote_deadline_minutes),
        counts=tuple((c, top) for c in tied),
    )
    outcome = DayOutcome(
        OutcomeKind.REVOTE,
        plan=plan,
        text=plan.call_text(inp.tz),
        reason=f"{tie_text}，分散票：{'、'.join(scattered)}，第一次重投",
    )
    return outcome, scattered


def _player_votes(
    living: list[str],
    state: dict[str, _State],
    verdicts: list[Verdict],
    statuses: dict[str, PlayerStatus],
    drowned: set[str],
    d_disc: set[str],
    d_vote: set[str],
    struck: set[str],
    scattered: set[str],
) -> tuple[PlayerVote, ...]:
    """One line per living player: status, target, the deciding post, strike, scattered, replied."""
    replied = {v.author for v in verdicts if v.status not in _NOT_A_REPLY}
    players = []
    for p in living:
        st = state.get(p)
        ps = PlayerStatus.DROWNED if p in drowned else statuses[p]
        dv = verdicts[st.decisive] if st is not None else None
        note = ""
        if p in d_disc:
            note = "发言不足淹死"
        elif p in d_vote:
            note = "投票累计两次淹死"
        players.append(
            PlayerVote(
                player=p,
                status=ps,
                target=st.target if st is not None else None,
                pid=dv.pid if dv else None,
                floor=dv.floor if dv else None,
                strike=p in struck,
                scattered=p in scattered,
                replied=p in replied,
                note=note,
            )
        )
    return tuple(players)


def _scattered(
    living: list[str], state: dict[str, _State], verdicts: list[Verdict], drowned: set[str], tied: set[str]
) -> list[str]:
    """分散票向 (§四.4): living, not drowned, and not a valid vote for a tied suspect. Ordered by the time
    of the post that decided the vote; players with no vote last, in roster order."""
    with_post: list[tuple[datetime, int, str]] = []
    without: list[str] = []
    for p in living:
        if p in drowned:
            continue
        st = state.get(p)
        if st is None:
            without.append(p)
            continue
        if st.status is VoteStatus.COUNTED and st.target in tied:
            continue
        v = verdicts[st.decisive]
        with_post.append((v.at, st.decisive, p))
    with_post.sort()
    return [p for _, _, p in with_post] + without


@dataclass(frozen=True, slots=True)
class _Round:
    """What every post of the round is checked against, looked up once per day rather than once per
    post (a vote thread of 100,000 posts, issue 21): the roster as a set (``DayInput.roster`` is a
    tuple), the display zone (a property of DayInput), the deadlines a minute-precision time may
    straddle."""

    as_of: datetime | None
    roster: frozenset[str]
    alive: frozenset[str]
    judges: frozenset[str]
    opens_at: datetime
    closes_at: datetime
    tz: tzinfo | None
    deadlines: tuple[tuple[datetime, str], ...]

    @classmethod
    def of(cls, inp: DayInput, as_of: datetime | None) -> _Round:
        times = inp.times
        return cls(
            as_of,
            frozenset(inp.roster),
            frozenset(inp.alive),
            frozenset(inp.judges),
            times.opens_at,
            times.closes_at,
            inp.tz,
            ((times.opens_at, "开始时间"), (times.void_deadline, "废票截止"), (times.closes_at, "投票截止")),
        )


def _judge_entry(
    e: Entry,
    inp: DayInput,
    rnd: _Round,
    state: dict[str, _State],
    verdicts: list[Verdict],
    proxy_used: dict[str, int],
    void_in_time: Callable[[datetime], bool],
) -> Verdict:
    """One post (or proxy vote): who may post and when, then a void (§四.3) or a vote (§四.1)."""
    refused = _gate(e, inp, rnd, proxy_used)
    if refused is not None:
        return refused
    b = e.ballot
    note = straddle_note(e, rnd.deadlines, rnd.tz) if e.at_latest is not None else ""

    if b.kind is BallotKind.UNREADABLE:
        v = e.verdict(VoteStatus.UNREADABLE, f"无法识别的投票：{b.note or '格式不明'}", needs_review=True)
    elif b.kind is BallotKind.VOID:
        v = _judge_void(e, inp, state, verdicts, void_in_time, review=bool(note))
    else:
        v = _judge_vote(e, inp, state, verdicts, proxy_used, review=bool(note))
    if note:
        v = replace(v, reason=f"{v.reason}；{note}", needs_review=True)
    return v


def _gate(e: Entry, inp: DayInput, rnd: _Round, proxy_used: dict[str, int]) -> Verdict | None:
    """Refuse a post by who wrote it, what it is and when: proxies (a living player within the per-game
    limit, AMB-32), the judges' posts, outsiders, the dead, non-votes, posts outside the round."""
    tz, as_of, author, at = rnd.tz, rnd.as_of, e.author, e.at
    b = e.ballot
    kind = b.kind
    if as_of is not None and at > as_of:
        return e.verdict(VoteStatus.AFTER_AS_OF, f"晚于查看时间 {fmt_time(as_of, tz)}，暂不计")
    if e.proxy is not None:
        if author not in rnd.roster:
            return e.verdict(VoteStatus.PROXY_REFUSED, f"代投对象 {author} 不是本局玩家")
        if author not in rnd.alive:
            return e.verdict(VoteStatus.PROXY_REFUSED, f"{author} 已出局，不能代投")
        limit = inp.flags.r001_proxy_limit_per_game
        if proxy_used.get(author, 0) >= limit:
            return e.verdict(
                VoteStatus.PROXY_REFUSED, f"{author} 的代投次数已用完（每局限{limit}次，AMB-32）"
            )
    elif author in rnd.judges:
        return e.verdict(VoteStatus.NOT_A_PLAYER, "法官帖，不计票")
    if author not in rnd.roster:
        vote_like = kind in _VOTE_LIKE
        return e.verdict(VoteStatus.NOT_A_PLAYER, "非本局玩家，投票无效" if vote_like else "非本局玩家发帖")
    if author not in rnd.alive:
        vote_like = kind in _VOTE_LIKE
        return e.verdict(
            VoteStatus.DEAD, "已死亡玩家不允许投票（§四.5.1）" if vote_like else "已死亡玩家发帖（非投票）"
        )
    if e.override is not None and kind is BallotKind.NOT_A_VOTE:
        return e.verdict(VoteStatus.OVERRIDDEN, "此帖不计")
    # The time before the format: whatever a post after the close says, it is simply late.
    closes_at = rnd.closes_at
    if at >= closes_at:
        plain = replace(e, ballot=replace(b, needs_review=False))  # no doubt about its format matters
        return plain.verdict(VoteStatus.LATE, f"投票截止（{fmt_clock(closes_at, tz)}）后发帖，无效")
    if kind is BallotKind.NOT_A_VOTE:
        return e.verdict(VoteStatus.NOT_A_VOTE, b.note or "非投票内容")
    opens_at = rnd.opens_at
    if at < opens_at and (e.at_latest is None or e.at_latest < opens_at):
        # A time known only as an interval that reaches past the opening is not rejected: it is judged
        # inside the round and flagged (straddle_note) for the judge to settle from an exact source.
        return e.verdict(VoteStatus.BEFORE_OPEN, f"早于本轮案情发布（{fmt_time(opens_at, tz)}），不计入本轮")
    return None


def _judge_void(
    e: Entry,
    inp: DayInput,
    state: dict[str, _State],
    verdicts: list[Verdict],
    void_in_time: Callable[[datetime], bool],
    *,
    review: bool,
) -> Verdict:
    """An active void (废票, §四.3): voids the player's earlier vote if posted before the void cutoff."""
    times, tz = inp.times, inp.tz
    idx = len(verdicts)
    st = state.get(e.author)
    if st is None:
        state[e.author] = _State(idx, VoteStatus.VOID_SELF)
        return e.verdict(VoteStatus.VOID_SELF, "投废票（此前未投票）", needs_review=review)
    if st.status in (
        VoteStatus.COUNTED,
        VoteStatus.ABSTAIN,
        VoteStatus.VOID_WRONG_NAME,
        VoteStatus.AMBIGUOUS,
    ):
        prev = verdicts[st.decisive]
        if not void_in_time(e.at):
            return e.verdict(
                VoteStatus.VOID_AFTER_CUTOFF,
                f"废票有效时间为截止前{_minutes(times.closes_at - times.void_deadline)}分钟"
                f"（{fmt_clock(times.void_deadline, tz)}）前，此废票无效，"
                f"仍计之前投票 {_label(prev)}",
            )
        verdicts[st.decisive] = replace(
            prev,
            status=VoteStatus.SUPERSEDED,
            reason=f"已被本人废票（{_label_e(e)}，{fmt_time(e.at, tz)}）作废",
        )
        state[e.author] = _State(idx, VoteStatus.VOID_SELF)
        return e.verdict(VoteStatus.VOID_SELF, f"主动废票，作废 {_label(prev)} 的投票", needs_review=review)
    if st.status is VoteStatus.EDITED:
        return e.verdict(VoteStatus.DUPLICATE, "原投票已因编辑作废（已计一次淹水），此废票不改变结果")
    return e.verdict(VoteStatus.DUPLICATE, "本轮已废票")


def _judge_vote(
    e: Entry,
    inp: DayInput,
    state: dict[str, _State],
    verdicts: list[Verdict],
    proxy_used: dict[str, int],
    *,
    review: bool,
) -> Verdict:
    """A vote (or a change, read as a vote): one per round (AMB-23), an edited one void with a strike."""
    flags, b = inp.flags, e.ballot
    idx = len(verdicts)
    st = state.get(e.author)
    if st is not None:
        if st.status is VoteStatus.VOID_SELF and flags.void_frees_revote:
            old = verdicts[st.decisive]
            verdicts[st.decisive] = replace(old, reason=f"{old.reason}；废票后重新投票（{_label_e(e)}）")
            del state[e.author]
            st = None
        else:
            first = verdicts[st.decisive]
            if st.status is VoteStatus.VOID_SELF:
                why = "已废票，本轮不能再投（每轮只能投一次票，AMB-23）"
            elif b.kind is BallotKind.CHANGE:
                why = f"001 规则不允许改票：每轮只能投一次票，以 {_label(first)} 为准"
            else:
                why = f"每轮只能投一次票，以第一次投票 {_label(first)} 为准（AMB-23）"
            return e.verdict(VoteStatus.DUPLICATE, why)
    extra = ""
    if b.kind is BallotKind.CHANGE:
        extra = "（写作改票，但此前未投票，按投票处理）"
        review = True
    proxy_note = f"（代投，由 {e.proxy.entered_by} 录入）" if e.proxy is not None else ""
    if e.edited:
        state[e.author] = _State(idx, VoteStatus.EDITED)
        edit = f"：{e.edit_note}" if e.edit_note else ""
        return e.verdict(
            VoteStatus.EDITED, f"原帖编辑的投票视为废票，并计一次淹水{edit}", needs_review=review
        )
    if e.proxy is not None:
        proxy_used[e.author] = proxy_used.get(e.author, 0) + 1
    if b.abstain:
        state[e.author] = _State(idx, VoteStatus.ABSTAIN)
        return e.verdict(VoteStatus.ABSTAIN, f"弃权{proxy_note}{extra}", abstain=True, needs_review=review)
    chk = check_target(b, e.author, inp.alive, inp.roster, flags)
    if chk.name is not None:
        state[e.author] = _State(idx, VoteStatus.COUNTED, chk.name)
        why = f"投 {chk.name}{proxy_note}{extra}" + (f"；{chk.reason}" if chk.reason else "")
        return e.verdict(VoteStatus.COUNTED, why, target=chk.name, needs_review=review or chk.needs_review)
    state[e.author] = _State(idx, chk.status, b.target)
    return e.verdict(
        chk.status,
        f"{_VOID_PREFIX[chk.status]}{chk.reason}{proxy_note}{extra}",
        target=b.target,
        suggestion=chk.suggestion,
        needs_review=review or chk.needs_review,
    )


def _label_e(e: Entry) -> str:
    return f"#{e.floor}" if e.floor is not None else (f"pid {e.pid}" if e.pid is not None else "代投")


def _minutes(delta: timedelta) -> int:
    """Whole minutes of a void cutoff's distance from the close (the game file's setting)."""
    return round(delta.total_seconds() / 60)
