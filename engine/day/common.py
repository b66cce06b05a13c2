"""Helpers shared by the R001 and R004 procedures: merging posts with proxy votes and overrides, checking
targets, building tallies."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime, tzinfo

from engine.ballots import Ballot, BallotKind, fold_name, suggest_name
from engine.day.model import (
    Override,
    ProxyVote,
    TallyLine,
    Verdict,
    VotePost,
    VoterRef,
    VoteStatus,
    fmt_clock,
)
from engine.flags_day import DayFlags
from engine.quickinit import quick_init

_FAR = 1 << 62


@quick_init
@dataclass(frozen=True, slots=True)
class Entry:
    """One thing to judge, in time order: a thread post or a proxy vote."""

    seq: int  # position in the input (posts first, then proxies)
    pid: int | None
    floor: int | None
    author: str
    at: datetime
    ballot: Ballot
    quoted_pids: tuple[int, ...] = ()
    edited: bool = False
    edit_note: str = ""
    at_latest: datetime | None = None
    proxy: ProxyVote | None = None
    override: Override | None = None

    @property
    def sort_key(self) -> tuple[datetime, int, int]:
        return (self.at, self.pid if self.pid is not None else _FAR, self.seq)

    def verdict(self, status: VoteStatus, reason: str, **kw: object) -> Verdict:
        ballot, override = self.ballot, self.override
        if ballot.needs_review:
            kw.pop("needs_review", None)
            needs_review = True
            if ballot.note and ballot.note not in reason:
                reason = f"{reason}（{ballot.note}）"
        else:
            needs_review = bool(kw.pop("needs_review", False)) if kw else False
        if override is not None:
            reason = f"法官更正（{override.by}：{override.why}）→ {reason}"
        return Verdict(
            pid=self.pid,
            floor=self.floor,
            author=self.author,
            at=self.at,
            status=status,
            reason=reason,
            needs_review=needs_review,
            proxy=self.proxy is not None,
            override=override,
            **kw,  # type: ignore[arg-type]
        )


def build_entries(
    posts: Iterable[VotePost], proxies: Iterable[ProxyVote], overrides: Iterable[Override]
) -> tuple[list[Entry], list[str]]:
    """Posts and proxy votes in judging order (time, then pid), overrides applied. Problems are collected."""
    by_pid: dict[int, Override] = {}
    problems: list[str] = []
    for o in overrides:
        if o.pid in by_pid and by_pid[o.pid] != o:
            problems.append(f"pid={o.pid}：有多条法官更正，以最后一条为准")
        by_pid[o.pid] = o
    entries: list[Entry] = []
    seen: set[int] = set()
    seq = 0
    for p in posts:
        ov = by_pid.get(p.pid)
        ballot = ov.ballot() if ov is not None else p.ballot
        edited = p.edited and not (ov is not None and ov.not_edited)
        entries.append(
            Entry(
                seq,
                p.pid,
                p.floor,
                p.author,
                p.at,
                ballot,
                p.quoted_pids,
                edited,
                p.edit_note,
                p.at_latest,
                override=ov,
            )
        )
        seen.add(p.pid)
        seq += 1
    for pv in proxies:
        ballot = Ballot(BallotKind.VOTE, pv.target, pv.abstain, note=pv.note)
        entries.append(Entry(seq, pv.pid, None, pv.player, pv.at, ballot, proxy=pv))
        seq += 1
    for pid in by_pid:
        if pid not in seen:
            problems.append(unused_override_problem(pid))
    entries.sort(key=_judging_order)
    return entries, problems


def _judging_order(e: Entry) -> tuple[datetime, int, int]:
    """``Entry.sort_key``, read without the property's call (once per post of a thread, issue 21)."""
    pid = e.pid
    return (e.at, pid if pid is not None else _FAR, e.seq)


def unused_override_problem(pid: int) -> str:
    return f"pid={pid}：法官更正的帖子不在本次投票帖中，未使用"


@quick_init
@dataclass(frozen=True, slots=True)
class TargetCheck:
    name: str | None  # the living player voted for, or None
    status: VoteStatus  # COUNTED when fine
    reason: str
    suggestion: str | None = None
    needs_review: bool = False


def check_target(
    ballot: Ballot, author: str, alive: Collection[str], roster: Collection[str], flags: DayFlags
) -> TargetCheck:
    """Is the ballot's target a living player, exactly (AMB-25)? Self-votes are allowed (AMB-89)."""
    written = (ballot.target or "").strip()
    if ballot.ambiguous:
        names = "、".join(ballot.names) if ballot.names else written
        return TargetCheck(None, VoteStatus.AMBIGUOUS, f"目标不明确（写了 {names}）", needs_review=True)
    if not written:
        return TargetCheck(None, VoteStatus.VOID_WRONG_NAME, "没有写投票对象", needs_review=True)
    if written in alive:
        if written == author and not flags.self_vote_allowed:
            return TargetCheck(None, VoteStatus.VOID_WRONG_NAME, "不得投自己（设置）")
        return TargetCheck(written, VoteStatus.COUNTED, "")
    if flags.name_fold_width_case:
        key = fold_name(written)
        same = [p for p in alive if fold_name(p) == key]
        if len(same) == 1:
            return TargetCheck(
                same[0], VoteStatus.COUNTED, f"按全半角/大小写折叠识别为 {same[0]}（设置）", needs_review=True
            )
    suggestion = suggest_name(written, alive)
    if written in roster:
        return TargetCheck(None, VoteStatus.VOID_WRONG_NAME, f"{written} 已出局，不能被投")
    hint = f"（是否为 {suggestion}？）" if suggestion else ""
    return TargetCheck(
        None,
        VoteStatus.VOID_WRONG_NAME,
        f"{written} 不是存活玩家{hint}",
        suggestion,
        needs_review=bool(suggestion),
    )


def straddle_note(entry: Entry, deadlines: Iterable[tuple[datetime, str]], tz: tzinfo | None) -> str:
    """A note when a minute-precision time could fall on either side of a deadline."""
    if entry.at_latest is None:
        return ""
    for t, label in deadlines:
        if entry.at < t <= entry.at_latest:
            return f"发帖时间不精确，可能跨越{label} {fmt_clock(t, tz)}，请核对"
    return ""


def minute_floor(t: datetime) -> datetime:
    return t.replace(second=0, microsecond=0)


def within_inclusive_minute(t: datetime, cutoff: datetime) -> bool:
    """t ≤ cutoff at forum (minute) precision: any second of the cutoff minute is inside."""
    return minute_floor(t) <= cutoff


def build_tally(
    votes: Iterable[tuple[str, VoterRef, datetime]], extra: Iterable[TallyLine] = ()
) -> tuple[TallyLine, ...]:
    """Lines ordered by count (desc), then by the time of the first vote received."""
    voters: dict[str, list[VoterRef]] = {}
    first: dict[str, tuple[int, datetime | None]] = {}
    for i, line in enumerate(extra):
        voters[line.target] = list(line.voters)
        first[line.target] = (-1_000_000 + i, None)
    for target, ref, at in votes:
        voters.setdefault(target, []).append(ref)
        if target not in first:
            first[target] = (0, at)

    ordered = sorted(voters, key=lambda t: (-len(voters[t]), first[t][0], _ts(first[t][1])))
    return tuple(TallyLine(t, tuple(voters[t])) for t in ordered)


def _ts(t: datetime | None) -> float:
    return t.timestamp() if t is not None else float("-inf")
