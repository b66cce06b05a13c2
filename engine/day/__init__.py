"""The pure day engine: judge a vote thread for one round, plan and resolve revotes.

Data in, data out — no I/O, no clock. Typical use (the CLI):

    inp = DayInput(procedure="r001", day=2, roster=..., alive=..., posts=(VotePost(...), ...),
                   times=DayTimes(opens_at=case_post_at, closes_at=close), discussion_counts=...,
                   previous_round_deficient=..., strikes=..., proxy_votes=..., overrides=...)
    result = resolve_day(inp)                  # or resolve_day(inp, as_of=now) for a running count
    if result.outcome.kind is OutcomeKind.REVOTE:
        plan = plan_revote(result, called_at)  # when the call is actually posted
        result = resolve_revote(result, plan, revote_posts)
"""

from __future__ import annotations

from datetime import datetime

from engine.day.model import (
    Card,
    CardColor,
    DayInput,
    DayResult,
    DayTimes,
    Drowning,
    DrownRule,
    Outcome,
    OutcomeKind,
    Override,
    PlayerStatus,
    PlayerVote,
    Procedure,
    ProxyVote,
    RevotePlan,
    RevoteRound,
    TallyLine,
    Verdict,
    VotePost,
    VoterRef,
    VoteStatus,
)
from engine.day.r001 import PEACEFUL, resolve_r001
from engine.day.r004 import resolve_r004
from engine.day.revote import plan_revote, resolve_revote

__all__ = [
    "PEACEFUL",
    "Card",
    "CardColor",
    "DayInput",
    "DayResult",
    "DayTimes",
    "DrownRule",
    "Drowning",
    "Outcome",
    "OutcomeKind",
    "Override",
    "PlayerStatus",
    "PlayerVote",
    "Procedure",
    "ProxyVote",
    "RevotePlan",
    "RevoteRound",
    "TallyLine",
    "Verdict",
    "VotePost",
    "VoteStatus",
    "VoterRef",
    "check_proxy",
    "plan_revote",
    "resolve_day",
    "resolve_revote",
]


def resolve_day(inp: DayInput, as_of: datetime | None = None) -> DayResult:
    """Judge the day's vote thread. With ``as_of`` before the close, the result is provisional: posts after
    ``as_of`` are ignored and no deadline has passed yet (no strikes, drownings or cards)."""
    if as_of is not None and as_of.tzinfo is None:
        raise ValueError(f"as_of {as_of!r} must be timezone-aware")
    if inp.procedure == "r001":
        return resolve_r001(inp, as_of)
    return resolve_r004(inp, as_of)


def check_proxy(inp: DayInput, proxy: ProxyVote) -> str | None:
    """Why a proxy-vote request would be refused, or None if the judge may enter it (checking, not applying).

    R001: the player is alive and has used fewer than the per-game limit (AMB-32), counting the proxies
    already in ``inp``. R004: an explicit target (or 弃权), and not in the last hour before closing.
    """
    if proxy.player not in inp.roster:
        return f"{proxy.player} 不是本局玩家"
    if proxy.player not in inp.alive:
        return f"{proxy.player} 已出局，不能代投"
    if proxy.at >= inp.times.closes_at:
        return "投票已截止"
    if inp.procedure == "r001":
        limit = inp.flags.r001_proxy_limit_per_game
        used = inp.proxy_used.get(proxy.player, 0) + sum(
            1 for p in inp.proxy_votes if p.player == proxy.player
        )
        if used >= limit:
            return f"{proxy.player} 的代投次数已用完（每局限{limit}次）"
        return None
    if proxy.at >= inp.times.change_deadline:
        return "关门前一小时不允许代投"
    if not proxy.abstain and not (proxy.target or "").strip():
        return "代投须给出明确的投票对象（不可设立投票条件）"
    return None
