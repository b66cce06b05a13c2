"""R004 day rules not covered by the case files: acceleration, proxies, the mayor's tie-break, cards."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from engine import (
    Ballot,
    BallotKind,
    CardColor,
    DayFlags,
    DayInput,
    DayTimes,
    EditedVotePolicy,
    OutcomeKind,
    PlayerStatus,
    ProxyVote,
    VotePost,
    VoteStatus,
    check_proxy,
    judge_day,
)

SH = ZoneInfo("Asia/Shanghai")
ROLES = ("Ada", "Bob", "Cam", "Dee", "Eva", "Flo", "Gia", "My")
OPEN = datetime(2026, 6, 10, 21, 0, tzinfo=SH).astimezone(UTC)
CLOSE = datetime(2026, 6, 12, 21, 0, tzinfo=SH).astimezone(UTC)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 6, day, hour, minute, tzinfo=SH).astimezone(UTC)


def vote(target: str | None, abstain: bool = False) -> Ballot:
    return Ballot(BallotKind.VOTE, target, abstain)


def change(target: str | None, abstain: bool = False) -> Ballot:
    return Ballot(BallotKind.CHANGE, target, abstain)


def post(
    pid: int, author: str, when: datetime, ballot: Ballot, quotes: tuple[int, ...] = (), **kw: object
) -> VotePost:
    return VotePost(pid=pid, floor=pid, author=author, at=when, ballot=ballot, quoted_pids=quotes, **kw)  # type: ignore[arg-type]


def day(posts: Iterable[VotePost], **kw: object) -> DayInput:
    base: dict[str, object] = {
        "family": "r004",
        "day": 2,
        "roster": ROLES,
        "alive": frozenset(ROLES),
        "posts": tuple(posts),
        "times": DayTimes(OPEN, CLOSE),
        "display_tz": SH,
    }
    base.update(kw)
    return DayInput(**base)  # type: ignore[arg-type]


def everyone(tie: bool = False, holder_vote: str | None = "Ada") -> list[VotePost]:
    """Ada 3 (or a 3–3 tie with Bob); My votes holder_vote."""
    votes = {
        "Bob": "Ada",
        "Cam": "Ada",
        "Dee": "Ada",
        "Eva": "Bob",
        "Flo": "Bob",
        "Gia": "Bob" if tie else "Cam",
    }
    out = [post(i + 1, a, at(11, 10, i), vote(t)) for i, (a, t) in enumerate(votes.items())]
    if holder_vote is not None:
        out.append(post(50, "My", at(11, 11), vote(holder_vote)))
    out.append(post(51, "Ada", at(11, 12), vote("Gia")))
    return out


# --- changes ----------------------------------------------------------------------------------------------


def test_a_change_at_exactly_one_hour_before_closing_is_invalid() -> None:
    posts = [post(1, "Ada", at(11, 10), vote("Bob")), post(2, "Ada", at(12, 20), change("Cam"), (1,))]
    r = judge_day(day(posts))
    assert r.verdict(2).status is VoteStatus.CHANGE_LAST_HOUR
    assert r.counts == {"Bob": 1}
    posts[1] = post(2, "Ada", at(12, 19, 59), change("Cam"), (1,))
    assert judge_day(day(posts)).counts == {"Cam": 1}


def test_no_change_while_accelerated_and_no_cards_for_not_voting() -> None:
    posts = [post(1, "Ada", at(11, 10), vote("Bob")), post(2, "Ada", at(11, 12), change("Cam"), (1,))]
    r = judge_day(day(posts, times=DayTimes(OPEN, CLOSE, accelerated=True)))
    assert r.verdict(2).status is VoteStatus.CHANGE_WHILE_ACCELERATED
    assert r.counts == {"Bob": 1}
    assert r.cards == ()  # 发言不足或未投票者将不被判罚


def test_a_change_before_acceleration_started_is_valid() -> None:
    posts = [
        post(1, "Ada", at(11, 10), vote("Bob")),
        post(2, "Ada", at(11, 12), change("Cam"), (1,)),
        post(3, "Bob", at(11, 10), vote("Ada")),
        post(4, "Bob", at(11, 20), change("Cam"), (3,)),
    ]
    r = judge_day(day(posts, times=DayTimes(OPEN, CLOSE, accelerated_at=at(11, 15))))
    assert r.verdict(2).status is VoteStatus.CHANGED
    assert r.verdict(4).status is VoteStatus.CHANGE_WHILE_ACCELERATED


def test_a_granted_delay_ends_the_accelerated_state() -> None:
    """“延迟成功时，不再视为‘执行加速’状态”: accelerated 6/11 11:15 until a delay at 12:00."""
    posts = [
        post(1, "Ada", at(11, 10), vote("Bob")),
        post(2, "Ada", at(11, 11, 30), change("Cam"), (1,)),
        post(3, "Bob", at(11, 10), vote("Ada")),
        post(4, "Bob", at(11, 12, 30), change("Cam"), (3,)),
    ]
    times = DayTimes(OPEN, CLOSE, accelerated_at=at(11, 11, 15), accelerated_until=at(11, 12))
    r = judge_day(day(posts, times=times))
    assert r.verdict(2).status is VoteStatus.CHANGE_WHILE_ACCELERATED
    assert r.verdict(4).status is VoteStatus.CHANGED
    assert {c.player for c in r.cards} >= {"Cam"}  # no longer accelerated at the close: cards again


def test_a_change_must_quote_the_original_vote_floor() -> None:
    posts = [
        post(1, "Ada", at(11, 10), vote("Bob")),
        post(2, "Ada", at(11, 11), change("Cam"), (99,)),
        post(3, "Ada", at(11, 12), change("Dee"), (1,)),
    ]
    r = judge_day(day(posts))
    assert r.verdict(2).status is VoteStatus.CHANGE_NOT_REPLY and "不占用改票机会" in r.verdict(2).reason
    assert r.verdict(3).status is VoteStatus.CHANGED and r.counts == {"Dee": 1}


def test_an_invalid_change_target_does_not_use_up_the_change() -> None:
    posts = [
        post(1, "Ada", at(11, 10), vote("Bob")),
        post(2, "Ada", at(11, 11), change("Bobb"), (1,)),
        post(3, "Ada", at(11, 12), change("Cam"), (1,)),
        post(4, "Ada", at(11, 13), change("Dee"), (1,)),
    ]
    r = judge_day(day(posts))
    assert r.verdict(2).status is VoteStatus.VOID_WRONG_NAME and r.verdict(2).suggestion == "Bob"
    assert r.verdict(3).status is VoteStatus.CHANGED
    assert r.verdict(4).status is VoteStatus.SECOND_CHANGE
    assert r.counts == {"Cam": 1}


def test_correcting_an_invalid_vote_by_a_change_uses_up_the_change() -> None:
    posts = [
        post(1, "Ada", at(11, 10), Ballot(BallotKind.UNREADABLE, "Bob", note="缺少投票理由")),
        post(2, "Ada", at(11, 11), change("Cam"), (1,)),
        post(3, "Ada", at(11, 12), change("Dee"), (2,)),
    ]
    r = judge_day(day(posts))
    assert r.verdict(2).status is VoteStatus.CHANGED and "占用改票机会" in r.verdict(2).reason
    assert r.verdict(3).status is VoteStatus.SECOND_CHANGE
    assert r.counts == {"Cam": 1}


def test_an_invalid_vote_can_be_corrected_by_a_new_post_in_the_last_hour() -> None:
    posts = [post(1, "Ada", at(11, 10), vote("Mo")), post(2, "Ada", at(12, 20, 59), vote("Cam"))]
    r = judge_day(day(posts))
    assert r.verdict(1).status is VoteStatus.VOID_WRONG_NAME
    assert r.verdict(2).status is VoteStatus.COUNTED and r.counts == {"Cam": 1}


def test_an_edited_change_is_invalid_by_default_and_counts_when_edits_are_ignored() -> None:
    posts = [
        post(1, "Ada", at(11, 10), vote("Bob")),
        post(2, "Ada", at(11, 11), change("Cam"), (1,), edited=True),
    ]
    assert judge_day(day(posts)).counts == {"Bob": 1}
    r = judge_day(day(posts, flags=DayFlags(r004_edited_vote=EditedVotePolicy.VALID)))
    assert r.counts == {"Cam": 1}


def test_a_change_without_any_vote_is_not_a_vote() -> None:
    r = judge_day(day([post(1, "Ada", at(11, 10), change("Bob"))]))
    assert r.verdict(1).status is VoteStatus.CHANGE_NOT_REPLY
    assert r.player("Ada").status is PlayerStatus.NONE and r.player("Ada").replied
    assert "Ada" not in [c.player for c in r.cards]


# --- proxies ----------------------------------------------------------------------------------------------


def test_a_proxy_vote_is_refused_in_the_last_hour_and_needs_an_explicit_target() -> None:
    late = ProxyVote("Ada", "Bob", at(12, 20), entered_by="导演")
    vague = ProxyVote("Bob", None, at(11, 10), entered_by="导演")
    ok = ProxyVote("Cam", "Bob", at(11, 10), entered_by="导演", pid=77)
    r = judge_day(day([], proxy_votes=(late, vague, ok)))
    by_author = {v.author: v for v in r.verdicts}
    assert by_author["Ada"].status is VoteStatus.PROXY_REFUSED and "一小时" in by_author["Ada"].reason
    assert by_author["Bob"].status is VoteStatus.PROXY_REFUSED and "明确" in by_author["Bob"].reason
    assert by_author["Cam"].status is VoteStatus.COUNTED and by_author["Cam"].proxy
    assert r.counts == {"Bob": 1}
    assert "Cam" not in r.yellow_cards  # a proxy vote is a reply through the director
    inp = day([])
    assert check_proxy(inp, late) is not None and check_proxy(inp, vague) is not None
    assert check_proxy(inp, ok) is None


# --- ties and the mayor (§c.2, AMB-60, AMB-86, AMB-87) ---------------------------------------------------


def test_unique_top_goes_out() -> None:
    r = judge_day(day(everyone(), authority_holder="My"))
    assert r.outcome.kind is OutcomeKind.EXECUTE and r.outcome.out == ("Ada",)


def test_a_tie_without_an_authority_holder_means_nobody_is_out() -> None:
    r = judge_day(day(everyone(tie=True, holder_vote="Dee")))
    assert r.outcome.kind is OutcomeKind.NONE


def test_the_holders_vote_breaks_the_tie() -> None:
    posts = [*everyone(tie=True, holder_vote=None), post(50, "My", at(11, 11), vote("Eva"))]
    r = judge_day(day(posts, authority_holder="My"))
    # Ada 3, Bob 3 — My's vote for Eva does not join the tie
    assert r.counts["Ada"] == r.counts["Bob"] == 3
    assert r.outcome.kind is OutcomeKind.AUTHORITY and r.outcome.out == ("Eva",)  # literal reading, AMB-60
    assert r.outcome.authority == "My"


def test_the_holders_target_must_be_tied_under_the_flag() -> None:
    posts = [*everyone(tie=True, holder_vote=None), post(50, "My", at(11, 11), vote("Eva"))]
    r = judge_day(day(posts, authority_holder="My", flags=DayFlags(r004_mayor_target_must_be_tied=True)))
    assert r.outcome.kind is OutcomeKind.NONE and "AMB-60" in r.outcome.reason


def test_a_holder_with_an_invalid_vote_breaks_no_tie() -> None:
    posts = [
        *everyone(tie=True, holder_vote=None),
        post(50, "My", at(11, 11), Ballot(BallotKind.UNREADABLE, "Ada")),
    ]
    r = judge_day(day(posts, authority_holder="My"))
    assert r.outcome.kind is OutcomeKind.NONE and "没有有效投票" in r.outcome.reason
    assert "My" not in r.yellow_cards


def test_a_dead_holder_breaks_no_tie() -> None:
    posts = everyone(tie=True, holder_vote=None)
    r = judge_day(day(posts, authority_holder="My", alive=frozenset(ROLES) - {"My"}))
    assert r.outcome.kind is OutcomeKind.NONE


def test_zero_valid_votes_means_nobody_is_out() -> None:
    r = judge_day(day([post(1, "Ada", at(11, 10), vote(None, abstain=True))], authority_holder="Ada"))
    assert r.outcome.kind is OutcomeKind.NONE and "AMB-86" in r.outcome.reason


# --- cards (AMB-71, AMB-72) -------------------------------------------------------------------------------


def test_not_replying_to_the_vote_thread_earns_a_yellow_card() -> None:
    r = judge_day(day(everyone(holder_vote=None)))
    assert r.yellow_cards == ("My",)


def test_a_chat_post_is_a_reply_so_no_card() -> None:
    r = judge_day(
        day([*everyone(holder_vote=None), post(60, "My", at(11, 13), Ballot(BallotKind.NOT_A_VOTE))])
    )
    assert r.yellow_cards == ()


def test_a_late_post_is_not_a_reply() -> None:
    r = judge_day(day([*everyone(holder_vote=None), post(60, "My", at(12, 21, 1), vote("Ada"))]))
    assert r.verdict(60).status is VoteStatus.LATE and r.yellow_cards == ("My",)


@pytest.mark.parametrize(("before", "red"), [(0, False), (1, True), (2, False)])
def test_yellow_cards_turn_red_at_the_configured_count(before: int, red: bool) -> None:
    r = judge_day(
        day(everyone(holder_vote=None), yellow_cards={"My": before}, flags=DayFlags(r004_yellow_to_red=2))
    )
    assert ("My" in r.red_cards) is red
    assert r.yellow_totals["My"] == before + 1


def test_no_red_cards_unless_configured() -> None:
    r = judge_day(day(everyone(holder_vote=None), yellow_cards={"My": 5}))
    assert r.red_cards == () and r.yellow_totals["My"] == 6


def test_too_few_discussion_posts_earns_a_yellow_card_when_a_minimum_is_set() -> None:
    counts = dict.fromkeys(ROLES, 3) | {"Bob": 1}
    r = judge_day(day(everyone(), discussion_counts=counts))
    assert r.yellow_cards == ()
    r = judge_day(day(everyone(), discussion_counts=counts, flags=DayFlags(r004_min_posts_per_day=2)))
    assert r.yellow_cards == ("Bob",) and r.cards[0].color is CardColor.YELLOW
    assert r.discussion_deficient == frozenset({"Bob"})


def test_as_of_before_closing_gives_no_cards_yet() -> None:
    r = judge_day(day(everyone(holder_vote=None)), as_of=at(11, 23))
    assert r.provisional and r.cards == ()
    assert r.player("My").status is PlayerStatus.NOT_YET


# --- 废票 (R004 has none) -----------------------------------------------------------------------------


def _read(
    pid: int, author: str, when: datetime, text: str, quotes: tuple[int, ...], attempt: bool
) -> VotePost:
    from forumbot.parsers.votes import read_ballot

    return post(pid, author, when, read_ballot(text, "r004", ROLES, void_is_vote_attempt=attempt), quotes)


@pytest.mark.parametrize("attempt", [False, True])
def test_a_post_saying_void_is_no_vote_so_a_change_quoting_it_corrects_nothing(attempt: bool) -> None:
    """R004 has no 废票. Default (AMB-72): «废票» casts nothing, so a change replying to that floor replies to
    no vote. Alternative (r004_void_post_is_vote_attempt): it is an invalid vote the change corrects."""
    posts = [
        _read(1, "Ada", at(11, 10), "废票", (), attempt),
        _read(2, "Ada", at(11, 11), "改票对象：Cam\n改票理由：想好了", (1,), attempt),
    ]
    r = judge_day(day(posts, flags=DayFlags(r004_void_post_is_vote_attempt=attempt)))
    if attempt:
        assert r.verdict(1).status is VoteStatus.UNREADABLE
        assert r.verdict(2).status is VoteStatus.CHANGED and r.counts == {"Cam": 1}
    else:
        assert r.verdict(1).status is VoteStatus.NOT_A_VOTE
        assert r.verdict(2).status is not VoteStatus.CHANGED and r.counts == {}
