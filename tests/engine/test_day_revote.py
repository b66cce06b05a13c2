"""R001 revotes (§四.4, AMB-26…30): calls, deadlines, non-compliance, second revotes, peaceful endings."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Ballot,
    BallotKind,
    DayFlags,
    DayInput,
    DayResult,
    DayTimes,
    OutcomeKind,
    ProxyVote,
    VotePost,
    VoteStatus,
    judge_day,
    plan_revote,
    resolve_revote,
)

SH = ZoneInfo("Asia/Shanghai")
PLAYERS = ("A", "B", "C", "D", "E", "F", "G")
OPEN = datetime(2026, 6, 4, 17, 20, tzinfo=SH).astimezone(UTC)
CLOSE = datetime(2026, 6, 5, 13, 0, tzinfo=SH).astimezone(UTC)


def at(hour: int, minute: int = 0, d: int = 5) -> datetime:
    return datetime(2026, 6, d, hour, minute, tzinfo=SH).astimezone(UTC)


def vote(target: str | None, abstain: bool = False) -> Ballot:
    return Ballot(BallotKind.VOTE, target, abstain)


def post(pid: int, author: str, when: datetime, ballot: Ballot, **kw: object) -> VotePost:
    return VotePost(pid=pid, floor=pid, author=author, at=when, ballot=ballot, **kw)  # type: ignore[arg-type]


def tied_day(flags: DayFlags | None = None, strikes: dict[str, int] | None = None) -> DayResult:
    """B 2, A 2; E votes F, G votes C, F does not vote (strike) → scattered E, G, F."""
    posts = [
        post(1, "A", at(9, d=5), vote("B")),
        post(2, "B", at(9, 1), vote("A")),
        post(3, "C", at(9, 2), vote("A")),
        post(4, "D", at(9, 3), vote("B")),
        post(5, "E", at(9, 4), vote("F")),
        post(6, "G", at(9, 5), vote("C")),
    ]
    inp = DayInput(
        family="r001",
        day=2,
        roster=PLAYERS,
        alive=frozenset(PLAYERS),
        posts=tuple(posts),
        times=DayTimes(OPEN, CLOSE),
        flags=flags or DayFlags(),
        strikes=strikes or {},
        display_tz=SH,
    )
    return judge_day(inp)


def test_a_tie_with_scattered_votes_calls_revote_one_with_a_60_minute_deadline() -> None:
    r = tied_day()
    assert r.outcome.kind is OutcomeKind.REVOTE
    plan = plan_revote(r, at(13, 5))
    assert plan.number == 1 and set(plan.candidates) == {"A", "B"}
    assert plan.participants == ("E", "G", "F")  # by their vote posts, non-voters last
    assert plan.deadline == at(14, 5)
    assert (
        plan.call_text(SH)
        == "平票：B、A 各2票。请 E、G、F 于14:05前在 B、A 中重新投票（不得弃权，不得另投他人）"
    )
    assert r.strikes_after == {"F": 1}


def test_the_revote_deadline_is_configurable() -> None:
    r = tied_day(DayFlags(r001_revote_deadline_minutes=30))
    assert plan_revote(r, at(13, 5)).deadline == at(13, 35)
    assert plan_revote(r, at(13, 5), minutes=90).deadline == at(14, 35)


def test_plan_revote_refuses_a_day_that_needs_no_revote() -> None:
    inp = DayInput(
        family="r001",
        day=2,
        roster=PLAYERS,
        alive=frozenset(PLAYERS),
        posts=(post(1, "A", at(9), vote("B")),),
        times=DayTimes(OPEN, CLOSE),
    )
    r = judge_day(inp)
    with pytest.raises(ValueError, match="not waiting for a revote"):
        plan_revote(r, at(13, 5))
    with pytest.raises(ValueError, match="no pending revote"):
        resolve_revote(r)


def test_resolve_revote_refuses_a_plan_with_other_candidates() -> None:
    r = tied_day()
    plan = plan_revote(r, at(13, 5))
    with pytest.raises(ValueError, match="does not match"):
        resolve_revote(r, replace(plan, candidates=("A",)), ())


@pytest.mark.parametrize(
    ("ballot", "edited", "why"),
    [
        (vote(None, abstain=True), False, "不得弃权"),
        (vote("E"), False, "不是候选人"),
        (Ballot(BallotKind.VOID), False, "不能废票"),
        (vote("A"), True, "编辑"),
        (vote("AA"), False, "是否为 A"),
    ],
)
def test_a_revote_that_is_not_exactly_one_candidate_earns_a_strike(
    ballot: Ballot, edited: bool, why: str
) -> None:
    r = tied_day()
    plan = plan_revote(r, at(13, 5))
    res = resolve_revote(r, plan, (post(10, "E", at(13, 10), ballot, edited=edited),))
    v = res.verdict(10)
    assert v.status is VoteStatus.NONCOMPLIANT and why in v.reason and v.stage == 1
    assert res.strikes_after["E"] == 1


def test_not_revoting_earns_a_strike_and_a_second_strike_drowns_at_that_revote() -> None:
    r = tied_day(strikes={"G": 1, "F": 1})
    # at the original close F had no vote: strike 2 → drowned there, so he is not called
    assert [(d.player, d.stage) for d in r.drowned] == [("F", 0)]
    plan = plan_revote(r, at(13, 5))
    assert plan.participants == ("E", "G")
    res = resolve_revote(r, plan, (post(10, "E", at(13, 10), vote("A")),))
    assert res.outcome.kind is OutcomeKind.EXECUTE and res.outcome.out == ("A",)
    assert res.strikes_after["G"] == 2
    assert [(d.player, d.stage) for d in res.drowned] == [("F", 0), ("G", 1)]


def test_posts_outside_the_revote_window_or_from_others_are_labelled() -> None:
    r = tied_day()
    plan = plan_revote(r, at(13, 5))
    posts = (
        post(10, "E", at(13, 3), vote("A")),
        post(11, "A", at(13, 10), vote("B")),
        post(12, "F", at(14, 6), vote("A")),
        post(13, "E", at(13, 20), vote("B")),
        post(14, "E", at(13, 21), vote("A")),
        post(15, "G", at(13, 22), Ballot(BallotKind.NOT_A_VOTE)),
    )
    res = resolve_revote(r, plan, posts)
    got = {v.pid: v.status for v in res.revotes[0].verdicts}
    assert got == {
        10: VoteStatus.BEFORE_OPEN,
        11: VoteStatus.NOT_A_PARTICIPANT,
        12: VoteStatus.LATE,
        13: VoteStatus.COUNTED,
        14: VoteStatus.DUPLICATE,
        15: VoteStatus.NOT_A_VOTE,
    }
    assert res.outcome.out == ("B",)


def test_an_n_way_tie_after_revote_with_nobody_scattered_is_peaceful() -> None:
    r = tied_day()
    plan = plan_revote(r, at(13, 5))
    posts = (post(10, "E", at(13, 10), vote("A")), post(11, "F", at(13, 11), vote("B")))
    res = resolve_revote(r, plan, posts)
    # A 3, B 3; G did not revote (strike 1, not drowned) → scattered → revote #2 with G alone
    assert res.outcome.kind is OutcomeKind.REVOTE and res.outcome.plan is not None
    assert res.outcome.plan.participants == ("G",) and res.outcome.plan.number == 2
    res2 = resolve_revote(res, plan_revote(res, at(14, 10)), (post(20, "G", at(14, 20), vote("B")),))
    assert res2.outcome.kind is OutcomeKind.EXECUTE and res2.outcome.out == ("B",)
    assert res2.final_tally[0].count == 4


def test_a_tie_after_the_second_revote_is_peaceful() -> None:
    r = tied_day()
    res = resolve_revote(
        r,
        plan_revote(r, at(13, 5)),
        (post(10, "E", at(13, 10), vote("A")), post(11, "F", at(13, 11), vote("B"))),
    )
    res2 = resolve_revote(res, plan_revote(res, at(14, 10)), ())
    assert res2.outcome.kind is OutcomeKind.NO_EXECUTION and res2.outcome.text == "平安夜，无人票死"
    assert res2.strikes_after == {"F": 1, "G": 2}  # F: no original vote; G: no revote #1, no revote #2
    assert [d.player for d in res2.drowned] == ["G"]
    assert res2.outcome.reason.startswith("第二次重投后")


def test_revote_counting_only_the_revote_ranks_alike() -> None:
    posts = (
        post(10, "E", at(13, 10), vote("A")),
        post(11, "F", at(13, 11), vote("A")),
        post(12, "G", at(13, 12), vote("B")),
    )
    a = resolve_revote(tied_day(), None, posts)
    b = resolve_revote(tied_day(DayFlags(r001_revote_cumulative=False)), None, posts)
    assert a.outcome.out == b.outcome.out == ("A",)
    assert a.final_tally[0].count == 4 and b.final_tally[0].count == 2


def test_a_revote_as_of_before_its_deadline_is_provisional() -> None:
    r = tied_day()
    plan = plan_revote(r, at(13, 5))
    posts = (post(10, "E", at(13, 10), vote("A")), post(11, "F", at(13, 30), vote("B")))
    res = resolve_revote(r, plan, posts, as_of=at(13, 20))
    assert res.provisional and res.revotes[0].provisional
    assert res.verdict(11).status is VoteStatus.AFTER_AS_OF
    assert res.strikes_after == r.strikes_after  # no strike before the deadline
    with pytest.raises(ValueError, match="provisional"):
        resolve_revote(judge_day(r.input, as_of=at(12, 0, d=5)))


def test_a_proxy_revote_counts_against_the_per_game_limit() -> None:
    r = tied_day()
    plan = plan_revote(r, at(13, 5))
    res = resolve_revote(r, plan, (), proxy_votes=(ProxyVote("E", "A", at(13, 10), entered_by="法官"),))
    assert res.revotes[0].compliant == {"E": "A"}
    assert res.proxy_used_after["E"] == 1


def test_every_revote_post_gets_a_verdict_and_they_stay_in_the_result() -> None:
    r = tied_day()
    posts = tuple(
        post(100 + i, p, at(13, 10) + timedelta(minutes=i), vote("A")) for i, p in enumerate(PLAYERS)
    )
    res = resolve_revote(r, None, posts)
    assert len(res.revotes[0].verdicts) == len(posts)
    assert res.verdicts == r.verdicts  # the original verdicts are kept unchanged


_REVOTE_BALLOTS = st.one_of(
    st.builds(vote, st.sampled_from(["A", "B", "C", "AA", ""])),
    st.just(vote(None, abstain=True)),
    st.just(Ballot(BallotKind.VOID)),
    st.just(Ballot(BallotKind.NOT_A_VOTE)),
)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(PLAYERS), st.integers(0, 150), _REVOTE_BALLOTS), max_size=15),
    st.lists(st.tuples(st.sampled_from(PLAYERS), st.integers(60, 200), _REVOTE_BALLOTS), max_size=8),
    st.dictionaries(st.sampled_from(PLAYERS), st.integers(0, 1)),
)
def test_revotes_always_end_in_an_execution_a_second_call_or_peace(
    first: list[tuple[str, int, Ballot]], second: list[tuple[str, int, Ballot]], strikes: dict[str, int]
) -> None:
    r = tied_day(strikes=strikes)
    call = at(13, 5)
    posts = tuple(post(100 + i, a, call + timedelta(minutes=m), b) for i, (a, m, b) in enumerate(first))
    res = resolve_revote(r, plan_revote(r, call), posts)
    assert len(res.revotes[0].verdicts) == len(posts)
    assert all(res.strikes_after.get(p, 0) >= r.strikes_after.get(p, 0) for p in PLAYERS)
    if res.outcome.kind is OutcomeKind.REVOTE:
        plan2 = res.outcome.plan
        assert plan2 is not None and plan2.number == 2
        assert not set(plan2.participants) & set(res.drowned_names)
        assert set(plan2.candidates) <= set(r.outcome.plan.candidates)  # type: ignore[union-attr]
        call2 = at(14, 10)
        posts2 = tuple(
            post(200 + i, a, call2 + timedelta(minutes=m - 60), b) for i, (a, m, b) in enumerate(second)
        )
        res2 = resolve_revote(res, plan_revote(res, call2), posts2)
        assert res2.outcome.kind in (OutcomeKind.EXECUTE, OutcomeKind.NO_EXECUTION)
    else:
        assert res.outcome.kind in (OutcomeKind.EXECUTE, OutcomeKind.NO_EXECUTION)


def test_overrides_of_the_day_apply_to_revote_posts_once() -> None:
    from engine import Override

    r = tied_day()
    o = Override(pid=10, kind=BallotKind.VOTE, target="A", why="笔误", by="法官")
    inp = replace(r.input, overrides=(o,))
    r = judge_day(inp)
    res = resolve_revote(
        r, plan_revote(r, at(13, 5)), (post(10, "E", at(13, 10), vote("AA")),), overrides=(o,)
    )
    assert res.verdict(10).status is VoteStatus.COUNTED and res.verdict(10).override == o
    assert res.problems == ()
