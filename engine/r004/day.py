"""R004 day resolution: strict format, one vote and one change (a reply to the original vote floor), no
change and no proxy in the last hour, no change while accelerated, yellow cards for not replying, ties
broken by the 威权 holder's final valid vote.

rules.md §a.4, §b.2, §c.2 and AMB-60, AMB-71…76, AMB-86, AMB-87, AMB-89.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from engine.ballots import BallotKind
from engine.day.common import Entry, build_entries, build_tally, check_target, straddle_note
from engine.day.model import (
    Card,
    CardColor,
    DayInput,
    DayOutcome,
    DayResult,
    OutcomeKind,
    PlayerStatus,
    PlayerVote,
    TallyLine,
    Verdict,
    VoterRef,
    VoteStatus,
    fmt_clock,
    fmt_time,
)
from engine.flags_day import EditedVotePolicy


@dataclass
class _Role:
    current: int | None = None  # verdict index of the valid vote (or change) that stands
    original: int | None = None  # verdict index of the vote floor a change must reply to
    target: str | None = None
    abstain: bool = False
    change_used: bool = False
    attempts: list[int] = field(default_factory=list)  # pids of invalid vote attempts (a change may fix them)
    invalid: int | None = None  # verdict index of the latest invalid vote, while uncorrected
    edited_uncorrected: bool = False
    replied: bool = False


def _label(v: Verdict) -> str:
    return f"#{v.floor}" if v.floor is not None else (f"pid {v.pid}" if v.pid is not None else "代投")


def resolve_r004(inp: DayInput, as_of: datetime | None = None) -> DayResult:
    flags, times = inp.flags, inp.times
    close = times.closes_at
    provisional = as_of is not None and as_of < close
    entries, problems = build_entries(inp.posts, inp.proxy_votes, inp.overrides)
    verdicts: list[Verdict] = []
    roles: dict[str, _Role] = {p: _Role() for p in inp.roster if p in inp.alive}
    for e in entries:
        verdicts.append(_judge_entry(e, inp, as_of, roles, verdicts))

    living = [p for p in inp.roster if p in inp.alive]
    # --- tally -----------------------------------------------------------------------------------------
    votes: list[tuple[str, VoterRef, datetime]] = []
    for p in living:
        r = roles[p]
        if r.current is None or r.abstain or r.target is None:
            continue
        v = verdicts[r.current]
        votes.append((r.target, VoterRef(p, v.pid, v.floor, 0, v.proxy), v.at))
    votes.sort(key=lambda x: x[2])
    tally = build_tally(votes)

    # --- players ---------------------------------------------------------------------------------------
    players: list[PlayerVote] = []
    no_vote: list[str] = []
    for p in living:
        r = roles[p]
        if r.current is not None:
            v = verdicts[r.current]
            status = PlayerStatus.ABSTAIN if r.abstain else PlayerStatus.VALID
            players.append(PlayerVote(p, status, r.target, v.pid, v.floor, replied=r.replied))
            continue
        no_vote.append(p)
        if r.invalid is not None:
            v = verdicts[r.invalid]
            players.append(
                PlayerVote(
                    p, PlayerStatus.INVALID, None, v.pid, v.floor, replied=r.replied, note="无效票未更正"
                )
            )
        else:
            players.append(
                PlayerVote(p, PlayerStatus.NOT_YET if provisional else PlayerStatus.NONE, replied=r.replied)
            )

    # --- cards (AMB-71, AMB-72, AMB-76); none while accelerated ---------------------------------------
    cards: list[Card] = []
    accelerated = times.accelerated_by(close)
    counts = inp.discussion_counts
    deficient: frozenset[str] = frozenset()
    if counts is not None and flags.r004_min_posts_per_day is not None:
        deficient = frozenset(p for p in living if counts.get(p, 0) < flags.r004_min_posts_per_day)
    if not provisional and not accelerated:
        for p in living:
            r = roles[p]
            if not r.replied:
                cards.append(Card(p, CardColor.YELLOW, "讨论结束时未回复投票帖"))
            if p in deficient:
                cards.append(
                    Card(
                        p,
                        CardColor.YELLOW,
                        f"讨论发言不足（{counts.get(p, 0) if counts else 0}/"
                        f"{flags.r004_min_posts_per_day}，AMB-71）",
                    )
                )
            if r.current is None and r.invalid is not None:
                if r.edited_uncorrected and flags.r004_edited_vote is EditedVotePolicy.INVALID_YELLOW:
                    cards.append(Card(p, CardColor.YELLOW, "编辑过的投票未更正（AMB-76）"))
                elif flags.r004_yellow_for_invalid_uncorrected:
                    cards.append(Card(p, CardColor.YELLOW, "无效票未更正（AMB-72）"))
    totals = dict(inp.yellow_cards)
    for c in cards:
        totals[c.player] = totals.get(c.player, 0) + 1
    n = flags.r004_yellow_to_red
    if n is not None:
        for p in living:
            before, after = inp.yellow_cards.get(p, 0), totals.get(p, 0)
            if before < n <= after:
                cards.append(Card(p, CardColor.RED, f"累计{after}张黄牌，红牌罚下（{n}黄变1红，AMB-71）"))

    outcome = _outcome(inp, roles, tally)
    return DayResult(
        input=inp,
        as_of=as_of,
        provisional=provisional,
        verdicts=tuple(verdicts),
        players=tuple(players),
        tally=tally,
        no_vote=tuple(no_vote),
        strikes_after=dict(inp.strikes),
        drowned=(),
        discussion_deficient=deficient,
        proxy_used_after=dict(inp.proxy_used),
        cards=tuple(cards),
        yellow_totals=totals,
        outcome=outcome,
        problems=tuple(problems),
    )


def _outcome(inp: DayInput, roles: dict[str, _Role], tally: tuple[TallyLine, ...]) -> DayOutcome:
    if not tally:
        return DayOutcome(OutcomeKind.NONE, text="无有效票，无人出局", reason="没有任何有效票（AMB-86）")
    top = tally[0].count
    tied = [line.target for line in tally if line.count == top]
    if len(tied) == 1:
        return DayOutcome(
            OutcomeKind.EXECUTE, (tied[0],), text=f"{tied[0]} 出局", reason=f"{tied[0]} {top}票，票数最高"
        )
    tie = f"{'、'.join(tied)} 各{top}票平票"
    holder = inp.authority_holder
    if holder is None or holder not in inp.alive:
        return DayOutcome(OutcomeKind.NONE, text=f"{tie}，无人出局", reason=f"{tie}，场上无威权持有者")
    r = roles[holder]
    if r.current is None:
        return DayOutcome(
            OutcomeKind.NONE,
            text=f"{tie}，无人出局",
            reason=f"{tie}，威权持有者 {holder} 没有有效投票（AMB-87）",
            authority=holder,
        )
    if r.abstain or r.target is None:
        return DayOutcome(
            OutcomeKind.NONE,
            text=f"{tie}，无人出局",
            reason=f"{tie}，威权持有者 {holder} 弃权（AMB-87）",
            authority=holder,
        )
    target = r.target
    if target not in tied and inp.flags.r004_mayor_target_must_be_tied:
        return DayOutcome(
            OutcomeKind.NONE,
            text=f"{tie}，无人出局",
            reason=f"{tie}，威权持有者 {holder} 投 {target}，不在平票者中（设置，AMB-60）",
            authority=holder,
        )
    extra = "" if target in tied else "（不在平票者中，按字面规则仍出局，AMB-60）"
    return DayOutcome(
        OutcomeKind.AUTHORITY,
        (target,),
        text=f"{tie}，威权持有者的投票对象 {target} 出局",
        reason=f"{tie}，威权持有者 {holder} 的最终有效投票为 {target}{extra}",
        authority=holder,
    )


def _judge_entry(
    e: Entry, inp: DayInput, as_of: datetime | None, roles: dict[str, _Role], verdicts: list[Verdict]
) -> Verdict:
    """One post (or proxy vote): who may post and when, then a vote (§b.2) or a change (AMB-73)."""
    refused = _gate(e, inp, as_of)
    if refused is not None:
        return refused
    r = roles[e.author]
    r.replied = True
    post = _Post(e, inp, r, verdicts)
    b = e.ballot
    if e.override is not None and b.kind is BallotKind.NOT_A_VOTE:
        return post.done(e.verdict(VoteStatus.OVERRIDDEN, "此帖不计"))
    if b.kind is BallotKind.NOT_A_VOTE:
        return post.done(e.verdict(VoteStatus.NOT_A_VOTE, b.note or "非投票内容（已回复投票帖）"))
    if b.kind is BallotKind.VOID:
        return post.done(e.verdict(VoteStatus.UNREADABLE, "R004 没有废票；要更改请按改票格式回复原投票楼层"))
    if b.kind is BallotKind.UNREADABLE:
        return post.invalid_vote(VoteStatus.UNREADABLE, f"投票格式有误：{b.note or '无法识别'}")
    if b.kind is BallotKind.VOTE:
        return _judge_vote(post)
    return _judge_change(post)


def _gate(e: Entry, inp: DayInput, as_of: datetime | None) -> Verdict | None:
    """Refuse a post by who wrote it and when: proxies (alive, not in the last hour, a clear target),
    the judges' posts, outsiders, the out, and posts outside the day. None: the post is judged."""
    times, tz = inp.times, inp.tz
    b = e.ballot
    change_deadline = times.change_deadline
    if as_of is not None and e.at > as_of:
        return e.verdict(VoteStatus.AFTER_AS_OF, f"晚于查看时间 {fmt_time(as_of, tz)}，暂不计")
    if e.proxy is not None:
        if e.author not in inp.roster or e.author not in inp.alive:
            return e.verdict(VoteStatus.PROXY_REFUSED, f"{e.author} 不是存活角色，不能代投")
        if e.at >= change_deadline:
            return e.verdict(
                VoteStatus.PROXY_REFUSED, f"关门前一小时（{fmt_clock(change_deadline, tz)} 起）不允许代投"
            )
        if not b.abstain and not (b.target or "").strip():
            return e.verdict(VoteStatus.PROXY_REFUSED, "代投须给出明确的投票对象（不可设立投票条件）")
    elif e.author in inp.judges:
        return e.verdict(VoteStatus.NOT_A_PLAYER, "导演帖，不计票")
    vote_like = b.kind is not BallotKind.NOT_A_VOTE
    if e.author not in inp.roster:
        return e.verdict(VoteStatus.NOT_A_PLAYER, "非本局角色，投票无效" if vote_like else "非本局角色发帖")
    if e.author not in inp.alive:
        return e.verdict(VoteStatus.DEAD, "已出局角色不允许在投票帖发言或投票")
    if e.at < times.opens_at and (e.at_latest is None or e.at_latest < times.opens_at):
        # an interval reaching past the opening: judged inside the day and flagged (straddle_note)
        return e.verdict(VoteStatus.BEFORE_OPEN, f"早于本讨论日开始（{fmt_time(times.opens_at, tz)}），不计")
    if e.at >= times.closes_at:
        return e.verdict(VoteStatus.LATE, f"关门（{fmt_clock(times.closes_at, tz)}）后发帖，无效")
    return None


class _Post:
    """One post being judged for a living role: the role's round so far and how a verdict is worded."""

    def __init__(self, e: Entry, inp: DayInput, r: _Role, verdicts: list[Verdict]) -> None:
        times, tz = inp.times, inp.tz
        self.e, self.inp, self.r, self.verdicts = e, inp, r, verdicts
        self.idx = len(verdicts)
        self.edited_invalid = e.edited and inp.flags.r004_edited_vote is not EditedVotePolicy.VALID
        self.edit = f"（{e.edit_note}）" if e.edit_note else ""
        self.note = straddle_note(
            e,
            [(times.opens_at, "开始时间"), (times.change_deadline, "改票截止"), (times.closes_at, "关门")],
            tz,
        )

    def done(self, v: Verdict) -> Verdict:
        if self.note:
            v = replace(v, reason=f"{v.reason}；{self.note}", needs_review=True)
        return v

    def invalid_vote(self, status: VoteStatus, why: str, **kw: object) -> Verdict:
        """An invalid vote: it stands as the role's uncorrected attempt unless a valid vote exists."""
        r = self.r
        if r.current is None:
            r.invalid = self.idx
            if self.e.pid is not None:
                r.attempts.append(self.e.pid)
            r.edited_uncorrected = status is VoteStatus.EDITED
            why += "，票无效（须重新发帖或有效改票更正）"
        else:
            why += f"，不影响已有的有效投票 {_label(self.verdicts[r.current])}"
        return self.done(self.e.verdict(status, why, **kw))

    def invalid_change(self, status: VoteStatus, why: str, **kw: object) -> Verdict:
        """An invalid change: it may use up the one change (flag, AMB-73); the standing vote stays."""
        r = self.r
        consumed = self.inp.flags.r004_invalid_change_consumes and (r.current is not None or r.attempts)
        if consumed:
            r.change_used = True
        tail = "（改票机会已用，设置 AMB-73）" if consumed else "（不占用改票机会，AMB-73）"
        if r.current is not None:
            tail += f"，原票 {_label(self.verdicts[r.current])} 有效"
        return self.done(self.e.verdict(status, why + tail, **kw))


def _judge_vote(post: _Post) -> Verdict:
    """A vote (投票): one per role (AMB-73), not in the last hour (flag, AMB-74), not edited (AMB-76)."""
    e, inp, r, verdicts = post.e, post.inp, post.r, post.verdicts
    flags, tz, b = inp.flags, inp.tz, e.ballot
    change_deadline = inp.times.change_deadline
    if r.current is not None:
        return post.done(
            e.verdict(
                VoteStatus.DUPLICATE,
                f"已有有效投票 {_label(verdicts[r.current])}，新的投票帖不计；"
                "改票须以改票格式回复原投票楼层（AMB-73）",
                target=b.target,
            )
        )
    if not flags.r004_first_vote_in_last_hour and e.at >= change_deadline:
        return post.invalid_vote(
            VoteStatus.LATE,
            f"关门前一小时（{fmt_clock(change_deadline, tz)} 起）不允许投票（设置，AMB-74）",
        )
    if post.edited_invalid:
        return post.invalid_vote(VoteStatus.EDITED, f"投票帖被编辑过{post.edit}（AMB-76，不罚）")
    proxy_note = f"（代投，由 {e.proxy.entered_by} 录入）" if e.proxy is not None else ""
    fixes = "，更正此前的无效票" if r.invalid is not None else ""
    if b.abstain:
        _stand(r, post.idx, None, True)
        return post.done(e.verdict(VoteStatus.ABSTAIN, f"弃权{proxy_note}{fixes}", abstain=True))
    chk = check_target(b, e.author, inp.alive, inp.roster, flags)
    if chk.name is None:
        return post.invalid_vote(
            chk.status,
            f"投票对象有误：{chk.reason}",
            target=b.target,
            suggestion=chk.suggestion,
            needs_review=chk.needs_review,
        )
    _stand(r, post.idx, chk.name, False)
    why = f"投 {chk.name}{proxy_note}{fixes}" + (f"；{chk.reason}" if chk.reason else "")
    return post.done(e.verdict(VoteStatus.COUNTED, why, target=chk.name, needs_review=chk.needs_review))


def _judge_change(post: _Post) -> Verdict:
    """A change (改票): once, replying to the original vote floor, not while accelerated, not in the last
    hour, not edited; it may also correct an invalid vote (AMB-73)."""
    e, inp, r, verdicts = post.e, post.inp, post.r, post.verdicts
    flags, times, tz, b = inp.flags, inp.times, inp.tz, e.ballot
    change_deadline = times.change_deadline
    if r.current is None and not r.attempts:
        return post.done(
            e.verdict(
                VoteStatus.CHANGE_NOT_REPLY, "尚未投票，无票可改（改票须回复原投票楼层）", target=b.target
            )
        )
    if r.change_used:
        return post.done(e.verdict(VoteStatus.SECOND_CHANGE, "改票只允许一次，此次改票不计", target=b.target))
    if times.accelerated_by(e.at):
        return post.invalid_change(
            VoteStatus.CHANGE_WHILE_ACCELERATED, "执行加速时不允许改票", target=b.target
        )
    if e.at >= change_deadline:
        return post.invalid_change(
            VoteStatus.CHANGE_LAST_HOUR,
            f"关门前一小时（{fmt_clock(change_deadline, tz)} 起）不允许改票",
            target=b.target,
        )
    if r.current is not None:
        orig = verdicts[r.original if r.original is not None else r.current]
        if orig.pid is None or orig.pid not in e.quoted_pids:
            return post.invalid_change(
                VoteStatus.CHANGE_NOT_REPLY, f"改票须回复（引用）原投票楼层 {_label(orig)}", target=b.target
            )
    elif not set(r.attempts) & set(e.quoted_pids):
        return post.invalid_change(
            VoteStatus.CHANGE_NOT_REPLY, "改票须回复（引用）本人的原投票楼层", target=b.target
        )
    if post.edited_invalid:
        return post.invalid_change(VoteStatus.EDITED, f"改票帖被编辑过{post.edit}（AMB-76）", target=b.target)
    if b.abstain:
        name: str | None = None
    else:
        chk = check_target(b, e.author, inp.alive, inp.roster, flags)
        if chk.name is None:
            return post.invalid_change(
                chk.status,
                f"改票对象有误：{chk.reason}",
                target=b.target,
                suggestion=chk.suggestion,
                needs_review=chk.needs_review,
            )
        name = chk.name
    fixes = "，以改票更正此前的无效票（占用改票机会，AMB-73）" if r.current is None else ""
    if r.current is not None:
        old = verdicts[r.current]
        verdicts[r.current] = replace(
            old, status=VoteStatus.SUPERSEDED, reason=f"已被改票 {_label_e(e)} 取代"
        )
    original = r.original
    _stand(r, post.idx, name, b.abstain)
    r.original = original if original is not None else post.idx
    r.change_used = True
    what = "改为弃权" if b.abstain else f"改投 {name}"
    return post.done(
        e.verdict(VoteStatus.CHANGED, f"有效改票：{what}{fixes}", target=name, abstain=b.abstain)
    )


def _stand(r: _Role, idx: int, target: str | None, abstain: bool) -> None:
    r.current = idx
    if r.original is None:
        r.original = idx
    r.target = target
    r.abstain = abstain
    r.invalid = None
    r.edited_uncorrected = False


def _label_e(e: Entry) -> str:
    return f"#{e.floor}" if e.floor is not None else (f"pid {e.pid}" if e.pid is not None else "代投")
