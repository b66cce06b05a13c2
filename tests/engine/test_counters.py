"""The game's counters have one owner: the state. ``apply_day`` writes the judged day's strikes, proxy
votes used, yellow cards and attendance into the state, and the next day's judgement can take them from
the state (``start_counters``) instead of replaying days 1..k-1 (``carried_counters``). Over whole
random games of both families the two ways give the same judgement, day after day."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from engine import (
    Ballot,
    BallotKind,
    DayInput,
    DayResult,
    DayTimes,
    Game,
    GameState,
    OutcomeKind,
    Phase,
    ProxyVote,
    VotePost,
    apply_day,
    carried_counters,
    check_proxy,
    double_kill_pair,
    judge_day,
    plan_revote,
    random_night,
    resolve_night,
    resolve_revote,
    rules_of,
    start_counters,
)

from .helpers import make_state

SH = ZoneInfo("Asia/Shanghai")
BASE = datetime(2026, 6, 4, 17, 20, tzinfo=SH).astimezone(UTC)


def _day_input(state: GameState, rng: random.Random, counters: dict[str, object]) -> DayInput:
    """Day ``state.round``: most living players vote at random, some stay silent (strikes, yellow
    cards), the judges enter a proxy vote for some of the silent ones, attendance is random."""
    n = state.round
    opens = BASE + timedelta(days=n - 1)
    closes = opens + timedelta(hours=19, minutes=40)
    living = list(state.living())
    posts: list[VotePost] = []
    silent: list[str] = []
    for i, name in enumerate(living):
        if rng.random() < 0.25:
            silent.append(name)
            continue
        target = rng.choice([x for x in living if x != name] or [name])
        ballot = Ballot(BallotKind.VOTE, target, abstain=rng.random() < 0.05)
        at = opens + timedelta(hours=1, minutes=i)
        posts.append(VotePost(pid=1000 * n + i, floor=i + 2, author=name, at=at, ballot=ballot))
    pair = double_kill_pair(state, n)
    base = DayInput(
        family=rules_of(state).family,
        day=n,
        roster=state.names(),
        alive=frozenset(living),
        posts=tuple(posts),
        times=DayTimes(opens, closes),
        discussion_counts={name: rng.choice((0, 1, 2, 3)) for name in living},
        authority_holder=state.authority_holder,
        double_kill_pair=frozenset(pair) if pair else None,
        display_tz=SH,
        **counters,  # type: ignore[arg-type]
    )
    proxies = []
    for name in silent:
        if rng.random() < 0.5:
            proxy = ProxyVote(name, rng.choice(living), opens + timedelta(hours=2), "judge")
            if check_proxy(base, proxy) is None:
                proxies.append(proxy)
    return DayInput(**{**base.__dict__, "proxy_votes": tuple(proxies)})


def _judge(inp: DayInput) -> DayResult:
    """The day with every revote the judges call (nobody revotes in time: more strikes)."""
    result = judge_day(inp)
    while result.outcome.kind is OutcomeKind.REVOTE:
        plan = plan_revote(result, inp.times.closes_at + timedelta(minutes=10))
        result = resolve_revote(result, plan, ())
    return result


def _play(ruleset: str, roster: str, seed: int) -> list[tuple[DayResult, DayResult, GameState]]:
    rng = random.Random(seed)
    state = make_state(ruleset, roster)
    previous: DayResult | None = None
    days = []
    while state.outcome is None and state.round <= 6:
        night = random_night(state, rng)
        state = resolve_night(state, night, seed=seed).state
        if state.outcome is not None:
            break
        assert state.phase is Phase.DAY
        day_rng_seed = rng.randrange(1 << 30)
        from_state = _judge(_day_input(state, random.Random(day_rng_seed), start_counters(state)))
        replayed = _judge(_day_input(state, random.Random(day_rng_seed), carried_counters(previous)))
        applied = apply_day(state, from_state)
        days.append((from_state, replayed, applied.state))
        previous, state = replayed, applied.state
    return days


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(("ruleset", "roster"), [("R001", "S12"), ("R004", "B22")])
def test_counters_from_the_state_agree_with_a_replay_from_day_one(
    ruleset: str, roster: str, seed: int
) -> None:
    days = _play(ruleset, roster, seed)
    assert days, "the game ended before its first day"
    for from_state, replayed, after in days:
        assert from_state == replayed
        assert dict(after.strikes) == dict(from_state.strikes_after)
        assert dict(after.proxy_votes_used) == dict(from_state.proxy_used_after)
        assert dict(after.yellow_cards) == dict(from_state.yellow_totals)
        assert frozenset(after.discussion_deficient) == from_state.discussion_deficient


def test_the_counters_grow_over_a_game() -> None:
    """The check above is not vacuous: the games do pile up strikes, proxies and yellow cards."""
    strikes = proxies = yellows = 0
    for seed in range(12):
        for _, _, after in _play("R001", "S12", seed):
            strikes = max(strikes, sum(after.strikes.values()))
            proxies = max(proxies, sum(after.proxy_votes_used.values()))
        for _, _, after in _play("R004", "B22", seed):
            yellows = max(yellows, sum(after.yellow_cards.values()))
    assert strikes > 0 and proxies > 0 and yellows > 0


def test_a_session_applies_a_judged_day_as_one_step_that_undo_takes_back_and_replay_repeats() -> None:
    rng = random.Random(5)
    state = make_state("R001", "S12")
    state = resolve_night(state, random_night(state, rng), seed=5).state
    result = _judge(_day_input(state, rng, start_counters(state)))
    game = Game(state)
    game.apply_day(result)
    assert game.state == apply_day(state, result).state
    again = Game.replay(state, game.steps)
    assert again.state == game.state
    assert Game.from_dict(game.to_dict()).state == game.state
    game.undo()
    assert game.state == state
