"""Judging a day: the vote thread of one round, revotes, and the counters a day starts from.

Data in, data out — no I/O, no clock. What differs between rule sets (the day procedure, proxy-vote
limits, revotes) is the rule set's (``engine.ruleset.RuleSet.judge_day`` …). Typical use (the desk):

    inp = DayInput(family="r001", day=2, roster=..., alive=..., posts=(VotePost(...), ...),
                   times=DayTimes(opens_at=case_post_at, closes_at=close), discussion_counts=...,
                   proxy_votes=..., overrides=..., **start_counters(state))
    result = judge_day(inp)                    # or judge_day(inp, as_of=now) for a running count
    if result.outcome.kind is OutcomeKind.REVOTE:
        plan = plan_revote(result, called_at)  # when the call is actually posted
        result = resolve_revote(result, plan, revote_posts)

The carried counters (strikes, proxy votes used, yellow cards, the previous round's attendance) come
either from the state at the start of the day (:func:`start_counters`, the state owns them since
``apply_day`` writes them) or from the previous day's result (:func:`carried_counters`, a replay).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from engine.day.model import (
    Card,
    CardColor,
    DayInput,
    DayOutcome,
    DayResult,
    DayTimes,
    Drowning,
    DrownRule,
    OutcomeKind,
    Override,
    PlayerStatus,
    PlayerVote,
    ProxyVote,
    RevotePlan,
    RevoteRound,
    TallyLine,
    Verdict,
    VotePost,
    VoterRef,
    VoteStatus,
)
from engine.ruleset import get_ruleset
from engine.state import GameState

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
    "carried_counters",
    "check_proxy",
    "judge_day",
    "plan_revote",
    "resolve_revote",
    "start_counters",
]


def judge_day(inp: DayInput, as_of: datetime | None = None) -> DayResult:
    """Judge the day's vote thread. With ``as_of`` before the close, the result is provisional: posts after
    ``as_of`` are ignored and no deadline has passed yet (no strikes, drownings or cards)."""
    if as_of is not None and as_of.tzinfo is None:
        raise ValueError(f"as_of {as_of!r} must be timezone-aware")
    return get_ruleset(inp.family).judge_day(inp, as_of)


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
    return get_ruleset(inp.family).check_proxy(inp, proxy)


def plan_revote(previous: DayResult, called_at: datetime, minutes: int | None = None) -> RevotePlan:
    """The pending revote call, re-timed to when the judge actually posts it (deadline = call + 60 min by
    default, AMB-28). Raises ValueError when the day is not waiting for a revote."""
    return get_ruleset(previous.input.family).plan_revote(previous, called_at, minutes)


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

    Raises ValueError when there is no pending revote or the plan does not match (see the rule set's).
    """
    return get_ruleset(previous.input.family).resolve_revote(
        previous, plan, posts, proxy_votes=proxy_votes, overrides=overrides, as_of=as_of
    )


def start_counters(state: GameState) -> dict[str, Any]:
    """DayInput keyword arguments for the counters the state carries into its day.

    ``DayInput(..., **start_counters(state))``: strikes, proxy votes used, yellow cards and the previous
    round's attendance, as ``apply_day`` left them; no replay of earlier days is needed.
    """
    return {
        "strikes": dict(state.strikes),
        "proxy_used": dict(state.proxy_votes_used),
        "yellow_cards": dict(state.yellow_cards),
        "previous_round_deficient": frozenset(state.discussion_deficient),
    }


def carried_counters(previous: DayResult | None) -> dict[str, Any]:
    """DayInput keyword arguments carried from the previous day's result (a replay from day 1)."""
    if previous is None:
        return {"strikes": {}, "proxy_used": {}, "yellow_cards": {}, "previous_round_deficient": frozenset()}
    return {
        "strikes": _plain(previous.strikes_after),
        "proxy_used": _plain(previous.proxy_used_after),
        "yellow_cards": _plain(previous.yellow_totals),
        "previous_round_deficient": previous.discussion_deficient,
    }


def _plain(counts: Mapping[str, int]) -> dict[str, int]:
    return dict(counts)
