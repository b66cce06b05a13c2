"""A judged day by round: the first vote and each revote, with the posts each round judges.

Why here: the engine judges every vote post against the first round (a revote's ballot is «late» there)
and again in the revote whose window holds it. Which of those verdicts a judge sees for a post is a
judgement, so it is made once, here, and every face (``tally`` and its ``--json``, the web's day page and
its chart, the runner) shows the same verdict per post, the same tally and the same ⚑ items (issue 18).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine import DayResult, TallyLine, Verdict, VoteStatus

#: A post's effect on its round's running count: (when, voter, target); target None takes the vote back.
Move = tuple[datetime, str, str | None]

_HOLDS = frozenset({VoteStatus.COUNTED, VoteStatus.CHANGED, VoteStatus.SUPERSEDED})
_TAKES_BACK = frozenset({VoteStatus.VOID_SELF, VoteStatus.ABSTAIN})


@dataclass(frozen=True)
class DayRound:
    """One round of a day: ``stage`` 0 is the first vote, k revote #k.

    ``verdicts``: the posts this round judges (a revote: the posts in its window); ``tally`` its count
    (cumulative when the flag says so); ``moves`` the chart's series; ``flagged`` what waits for a judge.
    """

    stage: int
    opens: datetime
    deadline: datetime
    verdicts: tuple[Verdict, ...]
    tally: tuple[TallyLine, ...]
    moves: tuple[Move, ...]
    flagged: tuple[Verdict, ...]


def final_verdicts(result: DayResult) -> list[Verdict]:
    """The day's verdicts, one per post, each in the round it belongs to: a post made once a revote was
    called is that revote's (its verdict replaces «late» from the first vote); an earlier post keeps its
    own round's verdict, whatever the revote says of it (a judge's post is «法官帖» in every round); a
    post only a revote's window saw is added (time order kept)."""
    every = list(result.verdicts)
    where = {v.pid: i for i, v in enumerate(every) if v.pid is not None}
    for rv in result.revotes:
        for v in rv.verdicts:
            if v.status is VoteStatus.BEFORE_OPEN or v.at < rv.plan.opens_at:
                continue  # an earlier post: its own round's verdict stays
            if v.pid is not None and v.pid in where:
                every[where[v.pid]] = v
            else:
                if v.pid is not None:
                    where[v.pid] = len(every)
                every.append(v)
    return every


def _moves(verdicts: tuple[Verdict, ...] | list[Verdict]) -> tuple[Move, ...]:
    out: list[Move] = []
    for v in verdicts:
        if v.status in _HOLDS:
            out.append((v.at, v.author, None if v.abstain else v.target))
        elif v.status in _TAKES_BACK:
            out.append((v.at, v.author, None))
    return tuple(out)


def _carried(tally: tuple[TallyLine, ...], moves: tuple[Move, ...], at: datetime) -> tuple[Move, ...]:
    """A cumulative revote's count (AMB-27) starts from the votes carried in: each shown as a move at
    the call, so the chart's last point is the count the tally shows."""
    own: dict[str, int] = {}
    holding: dict[str, str | None] = {}
    for _at, voter, target in sorted(moves, key=lambda m: m[0]):
        holding[voter] = target
    for target in holding.values():
        if target is not None:
            own[target] = own.get(target, 0) + 1
    out: list[Move] = []
    for line in tally:
        for i in range(line.count - own.get(line.target, 0)):
            out.append((at, f"\0carried:{line.target}:{i}", line.target))
    return tuple(out)


def day_rounds(result: DayResult, judges: frozenset[str] = frozenset()) -> tuple[DayRound, ...]:
    """Every round of the day in order, each with its own posts' verdicts (see :func:`final_verdicts`).
    ``judges``: their posts are never ⚑ (a judge's post is no vote to review)."""
    final = final_verdicts(result)
    first = tuple(v for v in final if v.stage == 0)
    times = result.input.times
    flagged = tuple(v for v in first if v.needs_review and v.author not in judges)
    rounds = [DayRound(0, times.opens_at, times.closes_at, first, result.tally, _moves(first), flagged)]
    for rv in result.revotes:
        mine = tuple(v for v in final if v.stage == rv.plan.number)
        moves = _moves(mine)
        rounds.append(
            DayRound(
                rv.plan.number,
                rv.plan.opens_at,
                rv.plan.deadline,
                mine,
                rv.tally,
                (*_carried(rv.tally, moves, rv.plan.opens_at), *moves),
                tuple(v for v in mine if v.needs_review and v.author not in judges),
            )
        )
    return tuple(rounds)


__all__ = ["DayRound", "Move", "day_rounds", "final_verdicts"]
