"""R001 day details from issue 8: a post after the close is simply late whatever it says (the time is
checked before the format), 「投一票：X」/「再投一票：X」 are votes, and the void-cutoff reason names the
cutoff actually set (not always 30 minutes)."""

from __future__ import annotations

from datetime import timedelta

from engine import Ballot, BallotKind, DayInput, DayTimes, VoteStatus, judge_day
from forumbot.parsers.votes import read_ballot
from tests.engine.test_day_revote import CLOSE, OPEN, PLAYERS, SH, at, post, vote


def day(posts: list, **times: object) -> DayInput:
    return DayInput(
        family="r001",
        day=2,
        roster=PLAYERS,
        alive=frozenset(PLAYERS),
        posts=tuple(posts),
        times=DayTimes(OPEN, CLOSE, **times),  # type: ignore[arg-type]
        display_tz=SH,
    )


def test_the_r001_grammar_reads_one_more_vote_as_a_vote() -> None:
    for text in ("投一票：B", "再投一票：B", "再投一票:B 理由：他最可疑"):
        b = read_ballot(text, "r001", PLAYERS)
        assert (b.kind, b.target, b.needs_review) == (BallotKind.VOTE, "B", False), text
    assert read_ballot("我再投一票吧", "r001", PLAYERS).kind is BallotKind.NOT_A_VOTE


def test_a_post_after_the_close_is_late_whatever_it_says() -> None:
    chatter = Ballot(
        BallotKind.NOT_A_VOTE, needs_review=True, note="提到投票和玩家名，但看不出投给谁，请法官确认"
    )
    r = judge_day(
        day(
            [
                post(1, "A", at(9), vote("B")),
                post(2, "C", at(13, 5), chatter),
                post(3, "D", at(13, 6), vote("B")),
            ]
        )
    )
    assert r.verdict(2).status is VoteStatus.LATE and not r.verdict(2).needs_review
    assert r.verdict(3).status is VoteStatus.LATE


def test_the_void_cutoff_reason_names_the_cutoff_set() -> None:
    void = Ballot(BallotKind.VOID)
    r = judge_day(
        day(
            [post(1, "A", at(9), vote("B")), post(2, "A", at(12, 50), void)],
            void_cutoff=CLOSE - timedelta(minutes=20),
        )
    )
    assert r.verdict(2).status is VoteStatus.VOID_AFTER_CUTOFF
    assert "截止前20分钟（12:40）" in r.verdict(2).reason


def test_a_time_interval_crossing_the_opening_is_judged_inside_and_flagged() -> None:
    """A touch page's «3 小时前» is an interval; one that reaches past the case post is not rejected as
    「早于本轮案情发布」 silently: it is judged inside the round and flagged with a Chinese reason."""
    p = post(1, "A", OPEN - timedelta(minutes=30), vote("B"), at_latest=OPEN + timedelta(minutes=30))
    v = judge_day(day([p])).verdict(1)
    assert v.status is VoteStatus.COUNTED and v.needs_review
    assert "发帖时间不精确，可能跨越开始时间" in v.reason
    early = post(2, "A", OPEN - timedelta(minutes=90), vote("B"), at_latest=OPEN - timedelta(minutes=30))
    assert judge_day(day([early])).verdict(2).status is VoteStatus.BEFORE_OPEN
