"""R001 revotes (§四.4, AMB-26…30): only the scattered voters revote, for one of the tied suspects; no
abstaining, no other name; whoever does not comply earns a strike (two cumulative ⇒ drowned, effective at
that revote's close). Revote #2 is held among the scattered voters of revote #1; after that, 平安夜.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from engine.ballots import BallotKind, suggest_name
from engine.day.common import Entry, build_entries, build_tally, straddle_note, unused_override_problem
from engine.day.model import (
    DayInput,
    DayOutcome,
    DayResult,
    Drowning,
    DrownRule,
    OutcomeKind,
    Override,
    ProxyVote,
    RevotePlan,
    RevoteRound,
    TallyLine,
    Verdict,
    VotePost,
    VoterRef,
    VoteStatus,
    fmt_clock,
    fmt_time,
)
from engine.r001.day import PEACEFUL

__all__ = ["plan_revote", "resolve_revote"]


def plan_revote(previous: DayResult, called_at: datetime, minutes: int | None = None) -> RevotePlan:
    """The pending revote call, re-timed to when the judge actually posts it (deadline = call + 60 min by
    default, AMB-28). Raises ValueError when the day is not waiting for a revote."""
    plan = previous.outcome.plan
    if previous.outcome.kind is not OutcomeKind.REVOTE or plan is None:
        raise ValueError(
            f"day {previous.input.day} is not waiting for a revote (outcome: {previous.outcome.kind})"
        )
    if called_at.tzinfo is None:
        raise ValueError(f"revote call time {called_at!r} must be timezone-aware")
    mins = previous.input.flags.r001_revote_deadline_minutes if minutes is None else minutes
    return replace(plan, opens_at=called_at, deadline=called_at + timedelta(minutes=mins))


def resolve_revote(
    previous: DayResult,
    plan: RevotePlan | None = None,
    posts: tuple[VotePost, ...] = (),
    *,
    proxy_votes: tuple[ProxyVote, ...] = (),
    overrides: tuple[Override, ...] = (),
    as_of: datetime | None = None,
) -> DayResult:
    """Judge revote #n and return the day with that round appended (new outcome, strikes, drownings).

    ``plan`` defaults to the pending one; it may be re-timed (see :func:`plan_revote`) but must keep the
    candidates and participants. ``posts`` are the thread's posts; those outside the revote window are
    labelled and ignored. Raises ValueError when there is no pending revote or the plan does not match.
    """
    inp = previous.input
    plan = _pending_plan(previous, plan)
    stage = plan.number
    provisional = as_of is not None and as_of < plan.deadline
    drowned_before = set(previous.drowned_names)
    participants = set(plan.participants)
    post_pids = {p.pid for p in posts}
    all_overrides = tuple(o for o in inp.overrides if o.pid in post_pids) + overrides
    used = {unused_override_problem(o.pid) for o in all_overrides if o.pid in post_pids}
    entries, problems = build_entries(posts, proxy_votes, all_overrides)
    proxy_used = dict(previous.proxy_used_after)
    verdicts: list[Verdict] = []
    chosen: dict[str, str] = {}  # compliant participant → candidate
    acted: dict[str, int] = {}  # participant → verdict index of the post that decided his revote
    for e in entries:
        v = _judge(
            e, previous, plan, as_of, drowned_before, participants, acted, chosen, proxy_used, verdicts
        )
        verdicts.append(replace(v, stage=stage))

    noncompliant, strikes, new_drowned = _revote_strikes(previous, plan, chosen, acted, provisional)
    tally, tied, top = _revote_tally(previous, plan, chosen, acted, verdicts)
    gone = drowned_before | (set(new_drowned) if inp.flags.r001_revote_drowned_excluded else set())
    outcome = _revote_outcome(inp, plan, tied, top, chosen, gone)
    executed = set(outcome.out) if outcome.kind is OutcomeKind.EXECUTE else set()
    drowned = tuple(replace(d, executed=d.player in executed) for d in previous.drowned) + tuple(
        Drowning(p, DrownRule.VOTE_STRIKES, stage, p in executed) for p in new_drowned
    )
    rnd = RevoteRound(
        plan=plan,
        verdicts=tuple(verdicts),
        tally=tally,
        compliant=dict(chosen),
        noncompliant=tuple(noncompliant),
        provisional=provisional,
    )
    return replace(
        previous,
        as_of=as_of,
        provisional=provisional,
        strikes_after=strikes,
        drowned=drowned,
        proxy_used_after=proxy_used,
        outcome=outcome,
        revotes=(*previous.revotes, rnd),
        problems=tuple(p for p in previous.problems if p not in used) + tuple(problems),
    )


def _pending_plan(previous: DayResult, plan: RevotePlan | None) -> RevotePlan:
    """The revote to judge: the pending one (re-timed ``plan`` allowed, same candidates and voters)."""
    pending = previous.outcome.plan
    if previous.outcome.kind is not OutcomeKind.REVOTE or pending is None:
        raise ValueError(f"day {previous.input.day} has no pending revote (outcome: {previous.outcome.kind})")
    if previous.provisional:
        raise ValueError(
            "cannot resolve a revote on a provisional (as-of) result: judge the closed day first"
        )
    plan = plan or pending
    if (plan.number, plan.candidates, plan.participants) != (
        pending.number,
        pending.candidates,
        pending.participants,
    ):
        raise ValueError(
            f"revote plan does not match the pending revote #{pending.number} "
            f"(candidates {pending.candidates}, participants {pending.participants})"
        )
    return plan


def _revote_strikes(
    previous: DayResult, plan: RevotePlan, chosen: dict[str, str], acted: dict[str, int], provisional: bool
) -> tuple[list[str], dict[str, int], list[str]]:
    """Participants who did not revote as required get a strike; two strikes drown (AMB-22, AMB-30).
    Returns (noncompliant, strikes after, newly drowned)."""
    drowned_before = set(previous.drowned_names)
    strikes = dict(previous.strikes_after)
    noncompliant: list[str] = []
    for p in plan.participants:
        if p in chosen or p in drowned_before:
            continue
        if provisional and p not in acted:
            continue  # may still revote
        noncompliant.append(p)
    new_drowned: list[str] = []
    if not provisional:
        for p in noncompliant:
            strikes[p] = strikes.get(p, 0) + 1
            if strikes[p] >= 2:
                new_drowned.append(p)
    return noncompliant, strikes, new_drowned


def _revote_tally(
    previous: DayResult,
    plan: RevotePlan,
    chosen: dict[str, str],
    acted: dict[str, int],
    verdicts: list[Verdict],
) -> tuple[tuple[TallyLine, ...], list[str], int]:
    """The revote's count (cumulative by default; the ranking is the same either way, AMB-27).
    Returns (tally, the tied top candidates, the top count)."""
    stage, candidates = plan.number, plan.candidates
    prev_lines = {line.target: line for line in previous.final_tally}
    base: list[TallyLine] = []
    if previous.input.flags.r001_revote_cumulative:
        base = [prev_lines.get(c, TallyLine(c, ())) for c in candidates]
    votes: list[tuple[str, VoterRef, datetime]] = []
    for p, c in chosen.items():
        v = verdicts[acted[p]]
        votes.append((c, VoterRef(p, v.pid, v.floor, stage, v.proxy), v.at))
    votes.sort(key=lambda x: x[2])
    tally = build_tally(votes, extra=base)
    cnt = {c: 0 for c in candidates} | {line.target: line.count for line in tally}
    top = max(cnt[c] for c in candidates)
    tied = [c for c in candidates if cnt[c] == top]
    tally = tuple(sorted(tally, key=lambda line: (-line.count, candidates.index(line.target))))
    return tally, tied, top


def _revote_outcome(
    inp: DayInput, plan: RevotePlan, tied: list[str], top: int, chosen: dict[str, str], gone: set[str]
) -> DayOutcome:
    """One top → executed; a tie without scattered votes, or after the second revote → nobody;
    else the second revote among the first revote's scattered voters."""
    stage = plan.number
    if len(tied) == 1:
        return DayOutcome(
            OutcomeKind.EXECUTE,
            (tied[0],),
            text=f"{tied[0]} 被处决",
            reason=f"第{_n(stage)}次重投：{tied[0]} {top}票，单杀",
        )
    rest = [p for p in plan.participants if p not in gone and chosen.get(p) not in tied]
    tie = f"第{_n(stage)}次重投后 {'、'.join(tied)} 各{top}票平票"
    if not rest:
        return DayOutcome(OutcomeKind.NO_EXECUTION, text=PEACEFUL, reason=f"{tie}，无分散票向")
    if stage == 2:
        return DayOutcome(OutcomeKind.NO_EXECUTION, text=PEACEFUL, reason=f"{tie}，第二次重投仍无结果")
    nxt = RevotePlan(
        number=2,
        candidates=tuple(tied),
        participants=tuple(rest),
        opens_at=plan.deadline,
        deadline=plan.deadline + timedelta(minutes=inp.flags.r001_revote_deadline_minutes),
        counts=tuple((c, top) for c in tied),
    )
    return DayOutcome(
        OutcomeKind.REVOTE,
        plan=nxt,
        text=nxt.call_text(inp.tz),
        reason=f"{tie}，第一次重投中的分散票：{'、'.join(rest)}，第二次重投",
    )


def _n(stage: int) -> str:
    return "一" if stage == 1 else "二"


def _judge(
    e: Entry,
    previous: DayResult,
    plan: RevotePlan,
    as_of: datetime | None,
    drowned_before: set[str],
    participants: set[str],
    acted: dict[str, int],
    chosen: dict[str, str],
    proxy_used: dict[str, int],
    verdicts: list[Verdict],
) -> Verdict:
    inp = previous.input
    flags, tz = inp.flags, inp.tz
    b = e.ballot
    vote_like = b.kind is not BallotKind.NOT_A_VOTE
    if as_of is not None and e.at > as_of:
        return e.verdict(VoteStatus.AFTER_AS_OF, f"晚于查看时间 {fmt_time(as_of, tz)}，暂不计")
    if e.proxy is None and e.author in inp.judges:
        return e.verdict(VoteStatus.NOT_A_PLAYER, "法官帖，不计票")
    if e.author not in inp.roster:
        return e.verdict(
            VoteStatus.PROXY_REFUSED if e.proxy else VoteStatus.NOT_A_PLAYER, "非本局玩家，投票无效"
        )
    if e.author not in inp.alive:
        return e.verdict(VoteStatus.DEAD, "已死亡玩家不允许投票")
    if e.author in drowned_before:
        return e.verdict(VoteStatus.DROWNED, "已淹死，不参加重投")
    if e.proxy is not None and proxy_used.get(e.author, 0) >= flags.r001_proxy_limit_per_game:
        return e.verdict(
            VoteStatus.PROXY_REFUSED, f"代投次数已用完（每局限{flags.r001_proxy_limit_per_game}次，AMB-32）"
        )
    if e.override is not None and b.kind is BallotKind.NOT_A_VOTE:
        return e.verdict(VoteStatus.OVERRIDDEN, "此帖不计")
    if b.kind is BallotKind.NOT_A_VOTE:
        return e.verdict(VoteStatus.NOT_A_VOTE, b.note or "非投票内容")
    if e.at < plan.opens_at:
        return e.verdict(
            VoteStatus.BEFORE_OPEN,
            f"早于第{_n(plan.number)}次重投开始（{fmt_clock(plan.opens_at, tz)}），不计",
        )
    if e.at >= plan.deadline:
        return e.verdict(VoteStatus.LATE, f"重投截止（{fmt_clock(plan.deadline, tz)}）后发帖，无效")
    if e.author not in participants:
        return e.verdict(
            VoteStatus.NOT_A_PARTICIPANT if vote_like else VoteStatus.NOT_A_VOTE,
            f"不在第{_n(plan.number)}次重投名单中，不计",
        )
    note = straddle_note(e, [(plan.opens_at, "重投开始"), (plan.deadline, "重投截止")], tz)

    def done(v: Verdict) -> Verdict:
        return replace(v, reason=f"{v.reason}；{note}", needs_review=True) if note else v

    if e.author in acted:
        first = verdicts[acted[e.author]]
        where = f"#{first.floor}" if first.floor is not None else fmt_time(first.at, tz)
        return done(e.verdict(VoteStatus.DUPLICATE, f"重投只能投一次，以第一次（{where}）为准"))
    acted[e.author] = len(verdicts)
    cands = "、".join(plan.candidates)
    penalty = "，按未做有效投票算，计一次淹水"
    if e.edited:
        return done(e.verdict(VoteStatus.NONCOMPLIANT, f"重投帖被编辑过{penalty}"))
    if b.kind is BallotKind.VOID:
        return done(e.verdict(VoteStatus.NONCOMPLIANT, f"重投不能废票{penalty}"))
    if b.kind is BallotKind.UNREADABLE:
        return done(
            e.verdict(VoteStatus.NONCOMPLIANT, f"无法识别的重投（{b.note}）{penalty}", needs_review=True)
        )
    if b.abstain:
        return done(e.verdict(VoteStatus.NONCOMPLIANT, f"重投不得弃权{penalty}", abstain=True))
    if b.ambiguous:
        return done(
            e.verdict(VoteStatus.NONCOMPLIANT, f"重投须在 {cands} 中明确一人{penalty}", needs_review=True)
        )
    written = (b.target or "").strip()
    if written in plan.candidates:
        if e.proxy is not None:
            proxy_used[e.author] = proxy_used.get(e.author, 0) + 1
        chosen[e.author] = written
        return done(e.verdict(VoteStatus.COUNTED, f"重投 {written}", target=written))
    hint = suggest_name(written, plan.candidates)
    extra = f"（是否为 {hint}？）" if hint else ""
    return done(
        e.verdict(
            VoteStatus.NONCOMPLIANT,
            f"重投只能在 {cands} 中选择，{written or '（空）'} 不是候选人{extra}{penalty}",
            target=b.target,
            suggestion=hint,
            needs_review=bool(hint),
        )
    )
