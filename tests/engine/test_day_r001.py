"""R001 day rules not covered by the case files: drowning, strikes, windows, proxies, overrides, as-of."""

from __future__ import annotations

from collections.abc import Iterable
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
    DayTimes,
    DrownRule,
    OutcomeKind,
    Override,
    PlayerStatus,
    ProxyVote,
    VotePost,
    VoteStatus,
    check_proxy,
    judge_day,
)

SH = ZoneInfo("Asia/Shanghai")
S12 = ("Kai", "Ken", "Pam", "Pat", "Zoe", "Cal", "Cid", "Cora", "Cy", "Cleo", "Cole", "Cruz")
ALIVE = frozenset(S12) - {"Cole", "Cruz"}
OPEN = datetime(2026, 6, 4, 17, 20, tzinfo=SH).astimezone(UTC)
CLOSE = datetime(2026, 6, 5, 13, 0, tzinfo=SH).astimezone(UTC)


def at(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2026, 6, day, hour, minute, second, tzinfo=SH).astimezone(UTC)


def vote(target: str) -> Ballot:
    return Ballot(BallotKind.VOTE, target)


VOID = Ballot(BallotKind.VOID)
ABSTAIN = Ballot(BallotKind.VOTE, abstain=True)


def post(pid: int, author: str, when: datetime, ballot: Ballot, **kw: object) -> VotePost:
    return VotePost(pid=pid, floor=pid, author=author, at=when, ballot=ballot, **kw)  # type: ignore[arg-type]


def everyone_votes(target_of: dict[str, str] | None = None, skip: Iterable[str] = ()) -> list[VotePost]:
    """Every living player votes Ken (or as given) at 6/4 18:00+i minutes."""
    target_of = target_of or {}
    out = []
    for i, p in enumerate(sorted(ALIVE)):
        if p in skip:
            continue
        out.append(post(100 + i, p, at(4, 18, i), vote(target_of.get(p, "Ken" if p != "Ken" else "Cal"))))
    return out


def day(posts: Iterable[VotePost], **kw: object) -> DayInput:
    base: dict[str, object] = {
        "family": "r001",
        "day": 2,
        "roster": S12,
        "alive": ALIVE,
        "posts": tuple(posts),
        "times": DayTimes(OPEN, CLOSE),
        "display_tz": SH,
    }
    base.update(kw)
    return DayInput(**base)  # type: ignore[arg-type]


# --- drowning (§四.2) -------------------------------------------------------------------------------------


def test_fewer_than_two_valid_posts_in_two_consecutive_rounds_drowns_and_voids_the_vote() -> None:
    counts = dict.fromkeys(ALIVE, 3) | {"Pam": 1}
    r = judge_day(
        day(everyone_votes(), discussion_counts=counts, previous_round_deficient=frozenset({"Pam"}))
    )
    assert [(d.player, d.rule) for d in r.drowned] == [("Pam", DrownRule.DISCUSSION)]
    assert r.player("Pam").status is PlayerStatus.DROWNED
    assert "Pam" not in [v.player for line in r.tally for v in line.voters]
    assert r.verdict(next(p.pid for p in r.input.posts if p.author == "Pam")).status is VoteStatus.DROWNED
    assert r.strikes_after.get("Pam", 0) == 0  # drowned for discussion: no vote strike on top


def test_one_deficient_round_alone_does_not_drown_but_is_carried_forward() -> None:
    counts = dict.fromkeys(ALIVE, 3) | {"Pam": 1, "Pat": 0}
    r = judge_day(
        day(everyone_votes(), discussion_counts=counts, previous_round_deficient=frozenset({"Cal"}))
    )
    assert r.drowned == ()
    assert r.discussion_deficient == frozenset({"Pam", "Pat"})  # the next round's previous_round_deficient


def test_a_good_round_resets_the_streak() -> None:
    counts = dict.fromkeys(ALIVE, 2)
    r = judge_day(
        day(everyone_votes(), discussion_counts=counts, previous_round_deficient=frozenset({"Pam"}))
    )
    assert r.drowned == () and r.discussion_deficient == frozenset()


def test_round_one_has_no_previous_round_so_nobody_drowns_for_discussion() -> None:
    counts = dict.fromkeys(ALIVE, 0)
    r = judge_day(
        day(everyone_votes(), day=1, discussion_counts=counts, previous_round_deficient=frozenset(ALIVE))
    )
    assert r.drowned == ()


def test_attendance_is_checked_on_peaceful_rounds_by_default() -> None:
    counts = dict.fromkeys(ALIVE, 3) | {"Pam": 0}
    r = judge_day(
        day(
            everyone_votes(skip={"Cy"}),
            discussion_counts=counts,
            previous_round_deficient=frozenset({"Pam"}),
            new_victim=False,
        )
    )
    assert {d.player for d in r.drowned} == {"Pam"}
    assert r.strikes_after["Cy"] == 1


def test_peaceful_round_imposes_no_attendance_when_flag_is_off() -> None:
    counts = dict.fromkeys(ALIVE, 3) | {"Pam": 0}
    flags = DayFlags(r001_attendance_on_peaceful_round=False)
    r = judge_day(
        day(
            everyone_votes(skip={"Cy"}),
            discussion_counts=counts,
            previous_round_deficient=frozenset({"Pam"}),
            new_victim=False,
            flags=flags,
        )
    )
    assert r.drowned == ()
    assert r.strikes_after.get("Cy", 0) == 0
    assert r.discussion_deficient == frozenset(
        {"Pam"}
    )  # the streak is carried over, neither broken nor extended


def test_not_voting_earns_a_strike_and_the_second_cumulative_strike_drowns() -> None:
    r = judge_day(day(everyone_votes(skip={"Cy", "Cal"}), strikes={"Cy": 1}))
    assert r.strikes_after["Cy"] == 2 and r.strikes_after["Cal"] == 1
    assert [(d.player, d.rule) for d in r.drowned] == [("Cy", DrownRule.VOTE_STRIKES)]
    assert r.player("Cal").status is PlayerStatus.NONE and r.player("Cal").strike
    assert set(r.no_vote) == {"Cy", "Cal"}


def test_an_edited_vote_is_void_and_earns_a_strike() -> None:
    posts = [
        *everyone_votes(skip={"Pam"}),
        post(1, "Pam", at(4, 20), vote("Ken"), edited=True, edit_note="本帖最后由 Pam 编辑"),
    ]
    r = judge_day(day(posts))
    v = r.verdict(1)
    assert v.status is VoteStatus.EDITED and "计一次淹水" in v.reason
    assert r.player("Pam").status is PlayerStatus.VOID_EDITED
    assert r.strikes_after["Pam"] == 1
    assert r.counts["Ken"] == len(ALIVE) - 2  # Pam's edited vote and Ken's own vote are not for Ken


def test_an_edited_vote_with_a_previous_strike_drowns() -> None:
    posts = [*everyone_votes(skip={"Pam"}), post(1, "Pam", at(4, 20), vote("Ken"), edited=True)]
    r = judge_day(day(posts, strikes={"Pam": 1}))
    assert [(d.player, d.rule) for d in r.drowned] == [("Pam", DrownRule.VOTE_STRIKES)]
    assert r.verdict(1).status is VoteStatus.DROWNED


def test_discussion_and_vote_attendance_are_separate_counters() -> None:
    counts = dict.fromkeys(ALIVE, 3) | {"Pam": 1}
    r = judge_day(day(everyone_votes(skip={"Pam"}), discussion_counts=counts, strikes={}))
    assert r.drowned == ()
    assert r.strikes_after["Pam"] == 1 and r.discussion_deficient == frozenset({"Pam"})


def test_wrong_name_void_and_abstention_are_attendance_not_strikes() -> None:
    posts = [
        *everyone_votes(skip={"Pam", "Pat", "Cid"}),
        post(1, "Pam", at(4, 20), vote("Kenn")),
        post(2, "Pat", at(4, 20), ABSTAIN),
        post(3, "Cid", at(4, 20), VOID),
    ]
    r = judge_day(day(posts, strikes={"Pam": 1, "Pat": 1, "Cid": 1}))
    assert r.drowned == ()
    assert {p: r.strikes_after[p] for p in ("Pam", "Pat", "Cid")} == {"Pam": 1, "Pat": 1, "Cid": 1}


def test_executed_and_drowned_player_is_announced_as_executed() -> None:
    counts = dict.fromkeys(ALIVE, 3) | {"Ken": 0}
    r = judge_day(
        day(everyone_votes(), discussion_counts=counts, previous_round_deficient=frozenset({"Ken"}))
    )
    assert r.outcome.kind is OutcomeKind.EXECUTE and r.outcome.out == ("Ken",)
    assert r.drowned[0].player == "Ken" and r.drowned[0].executed
    assert r.drowned_announced == ()


def test_a_drowned_suspect_stays_a_candidate_and_can_be_executed() -> None:
    posts = everyone_votes({p: "Zoe" for p in ("Kai", "Ken", "Pam", "Pat")}, skip={"Zoe"})
    r = judge_day(day(posts, strikes={"Zoe": 1}))
    assert r.player("Zoe").status is PlayerStatus.DROWNED
    assert r.outcome.kind is OutcomeKind.EXECUTE and r.outcome.out == ("Ken",)
    posts = everyone_votes({p: "Zoe" for p in ("Kai", "Ken", "Pam", "Pat", "Cal", "Cid")}, skip={"Zoe"})
    r = judge_day(day(posts, strikes={"Zoe": 1}))
    assert r.outcome.out == ("Zoe",) and r.drowned[0].executed


# --- windows and boundaries (AMB-24) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("when", "status"),
    [
        (at(4, 17, 19, 59), VoteStatus.BEFORE_OPEN),
        (at(4, 17, 20), VoteStatus.COUNTED),
        (at(5, 12, 59, 59), VoteStatus.COUNTED),
        (at(5, 13, 0), VoteStatus.LATE),
    ],
)
def test_a_vote_counts_from_the_case_post_until_before_1300(when: datetime, status: VoteStatus) -> None:
    r = judge_day(day([post(1, "Pam", when, vote("Ken"))]))
    assert r.verdict(1).status is status


@pytest.mark.parametrize(
    ("when", "effective"),
    [(at(5, 12, 29), True), (at(5, 12, 30), True), (at(5, 12, 30, 59), True), (at(5, 12, 31), False)],
)
def test_a_void_is_effective_up_to_and_including_1230(when: datetime, effective: bool) -> None:
    r = judge_day(day([post(1, "Pam", at(5, 9), vote("Ken")), post(2, "Pam", when, VOID)]))
    assert r.verdict(2).status is (VoteStatus.VOID_SELF if effective else VoteStatus.VOID_AFTER_CUTOFF)
    assert r.player("Pam").status is (PlayerStatus.VOID_SELF if effective else PlayerStatus.VALID)


def test_void_cutoff_can_be_made_exclusive() -> None:
    r = judge_day(
        day(
            [post(1, "Pam", at(5, 9), vote("Ken")), post(2, "Pam", at(5, 12, 30), VOID)],
            flags=DayFlags(r001_void_cutoff_inclusive=False),
        )
    )
    assert r.verdict(2).status is VoteStatus.VOID_AFTER_CUTOFF


def test_a_void_without_an_earlier_vote_is_a_void_vote() -> None:
    r = judge_day(day([post(1, "Pam", at(5, 12, 45), VOID)]))
    assert r.verdict(1).status is VoteStatus.VOID_SELF
    assert r.player("Pam").status is PlayerStatus.VOID_SELF and not r.player("Pam").strike


def test_a_later_vote_is_ignored_one_vote_per_round() -> None:
    r = judge_day(day([post(1, "Pam", at(4, 20), vote("Ken")), post(2, "Pam", at(4, 21), vote("Cal"))]))
    assert r.verdict(1).status is VoteStatus.COUNTED
    assert r.verdict(2).status is VoteStatus.DUPLICATE


def test_r001_knows_no_change_of_vote() -> None:
    r = judge_day(
        day(
            [
                post(1, "Pam", at(4, 20), vote("Ken")),
                post(2, "Pam", at(4, 21), Ballot(BallotKind.CHANGE, "Cal")),
            ]
        )
    )
    v = r.verdict(2)
    assert v.status is VoteStatus.DUPLICATE and "不允许改票" in v.reason


def test_a_change_as_the_first_post_counts_as_the_vote_but_is_flagged() -> None:
    r = judge_day(day([post(1, "Pam", at(4, 20), Ballot(BallotKind.CHANGE, "Cal"))]))
    assert r.verdict(1).status is VoteStatus.COUNTED and r.verdict(1).needs_review


def test_dead_players_non_players_and_judges_do_not_vote() -> None:
    r = judge_day(
        day(
            [
                post(1, "Cole", at(4, 20), vote("Ken")),
                post(2, "吃瓜群众", at(4, 20), vote("Ken")),
                post(3, "法官", at(4, 20), vote("Ken")),
                post(4, "Pam", at(4, 20), vote("Cole")),
            ],
            judges=frozenset({"法官"}),
        )
    )
    assert [r.verdict(i).status for i in (1, 2, 3, 4)] == [
        VoteStatus.DEAD,
        VoteStatus.NOT_A_PLAYER,
        VoteStatus.NOT_A_PLAYER,
        VoteStatus.VOID_WRONG_NAME,
    ]
    assert r.tally == ()


def test_a_typo_is_void_but_the_likely_name_is_suggested() -> None:
    r = judge_day(day([post(1, "Pam", at(4, 20), vote("Kenn"))]))
    v = r.verdict(1)
    assert v.status is VoteStatus.VOID_WRONG_NAME and v.suggestion == "Ken" and v.needs_review
    assert v.reason == "写错名字算废票：Kenn 不是存活玩家（是否为 Ken？）"


def test_width_and_case_folding_of_names_is_a_flag() -> None:
    p = [post(1, "Pam", at(4, 20), vote("ｋｅｎ"))]
    assert judge_day(day(p)).verdict(1).status is VoteStatus.VOID_WRONG_NAME
    r = judge_day(day(p, flags=DayFlags(name_fold_width_case=True)))
    assert r.verdict(1).status is VoteStatus.COUNTED and r.verdict(1).target == "Ken"


def test_self_votes_are_allowed_by_default() -> None:
    r = judge_day(day([post(1, "Pam", at(4, 20), vote("Pam"))]))
    assert r.verdict(1).status is VoteStatus.COUNTED
    r = judge_day(day([post(1, "Pam", at(4, 20), vote("Pam"))], flags=DayFlags(self_vote_allowed=False)))
    assert r.verdict(1).status is VoteStatus.VOID_WRONG_NAME


def test_a_minute_precision_time_straddling_the_close_is_flagged() -> None:
    p = post(1, "Pam", at(5, 12, 59), vote("Ken"), at_latest=at(5, 13, 0) + timedelta(seconds=59))
    v = judge_day(day([p])).verdict(1)
    assert v.status is VoteStatus.COUNTED and v.needs_review and "请核对" in v.reason


# --- proxies (§四.1.5, AMB-32) ---------------------------------------------------------------------------


def test_a_proxy_vote_counts_and_uses_one_of_two_per_game() -> None:
    proxy = ProxyVote("Pam", "Ken", at(4, 20), entered_by="法官A")
    r = judge_day(day([], proxy_votes=(proxy,), proxy_used={"Pam": 1}))
    v = r.verdicts[0]
    assert v.status is VoteStatus.COUNTED and v.proxy and "代投" in v.reason
    assert r.proxy_used_after["Pam"] == 2


def test_a_third_proxy_vote_in_a_game_is_refused() -> None:
    proxy = ProxyVote("Pam", "Ken", at(4, 20), entered_by="法官A")
    r = judge_day(day([], proxy_votes=(proxy,), proxy_used={"Pam": 2}))
    assert r.verdicts[0].status is VoteStatus.PROXY_REFUSED
    assert r.player("Pam").status is PlayerStatus.NONE
    inp = day([], proxy_used={"Pam": 2})
    assert check_proxy(inp, proxy) is not None
    assert check_proxy(day([]), proxy) is None


def test_a_proxy_for_a_dead_player_is_refused() -> None:
    r = judge_day(day([], proxy_votes=(ProxyVote("Cole", "Ken", at(4, 20), entered_by="法官A"),)))
    assert r.verdicts[0].status is VoteStatus.PROXY_REFUSED


# --- overrides --------------------------------------------------------------------------------------------


def test_an_override_replaces_the_reading_of_one_post_and_is_shown() -> None:
    o = Override(pid=1, kind=BallotKind.VOTE, target="Ken", why="笔误，按 Ken 计", by="法官A")
    r = judge_day(day([post(1, "Pam", at(4, 20), vote("Kenn"))], overrides=(o,)))
    v = r.verdict(1)
    assert v.status is VoteStatus.COUNTED and v.target == "Ken" and v.override == o
    assert "法官更正" in v.reason and "笔误" in v.reason


def test_an_override_can_waive_an_edit() -> None:
    o = Override(pid=1, kind=BallotKind.VOTE, target="Ken", why="只改了错别字", by="法官A", not_edited=True)
    r = judge_day(day([post(1, "Pam", at(4, 20), vote("Ken"), edited=True)], overrides=(o,)))
    assert r.verdict(1).status is VoteStatus.COUNTED and r.strikes_after.get("Pam", 0) == 0


def test_an_override_to_not_a_vote_strikes_the_post_out() -> None:
    o = Override(pid=2, kind=BallotKind.NOT_A_VOTE, why="是在引用别人的话", by="法官A")
    r = judge_day(
        day([post(1, "Pam", at(4, 20), vote("Ken")), post(2, "Pam", at(4, 21), VOID)], overrides=(o,))
    )
    assert r.verdict(2).status is VoteStatus.OVERRIDDEN
    assert r.verdict(1).status is VoteStatus.COUNTED


def test_an_override_of_an_unknown_post_is_reported_not_raised() -> None:
    o = Override(pid=999, kind=BallotKind.VOID, why="x", by="法官A")
    r = judge_day(day([], overrides=(o,)))
    assert any("999" in p for p in r.problems)


# --- as of ------------------------------------------------------------------------------------------------


def test_as_of_ignores_later_posts_and_lets_no_deadline_pass() -> None:
    posts = [post(1, "Pam", at(4, 20), vote("Ken")), post(2, "Pat", at(5, 9), vote("Cal"))]
    r = judge_day(day(posts, strikes={"Cy": 1}), as_of=at(5, 8))
    assert r.provisional
    assert r.verdict(2).status is VoteStatus.AFTER_AS_OF
    assert r.counts == {"Ken": 1}
    assert r.drowned == () and r.strikes_after == {"Cy": 1}
    assert r.player("Cy").status is PlayerStatus.NOT_YET
    assert r.outcome.kind is OutcomeKind.EXECUTE  # who would go if it closed now


def test_as_of_after_the_close_is_the_final_count() -> None:
    posts = [post(1, "Pam", at(4, 20), vote("Ken"))]
    final = judge_day(day(posts))
    late_view = judge_day(day(posts), as_of=at(5, 14))
    assert not late_view.provisional
    assert late_view.strikes_after == final.strikes_after and late_view.outcome == final.outcome


def test_naive_times_are_rejected() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        post(1, "Pam", datetime(2026, 6, 4, 20), vote("Ken"))
    with pytest.raises(ValueError, match="timezone-aware"):
        judge_day(day([]), as_of=datetime(2026, 6, 4, 20))


def test_day_input_checks_its_roster() -> None:
    with pytest.raises(ValueError, match="not in the roster"):
        day([], alive=frozenset({"Nobody"}))
    with pytest.raises(ValueError, match="duplicate pids"):
        day([post(1, "Pam", at(4, 20), VOID), post(1, "Pat", at(4, 20), VOID)])


# --- properties -------------------------------------------------------------------------------------------

_NAMES = st.sampled_from([*S12, "吃瓜群众", "Kenn", ""])
_BALLOTS = st.one_of(
    st.builds(Ballot, st.just(BallotKind.VOTE), _NAMES),
    st.just(ABSTAIN),
    st.just(VOID),
    st.just(Ballot(BallotKind.NOT_A_VOTE)),
    st.just(Ballot(BallotKind.UNREADABLE)),
    st.builds(Ballot, st.just(BallotKind.CHANGE), _NAMES),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([*S12, "吃瓜群众"]), st.integers(0, 24 * 60), _BALLOTS, st.booleans()),
        max_size=40,
    ),
    st.dictionaries(st.sampled_from(sorted(ALIVE)), st.integers(0, 1)),
)
def test_every_post_gets_exactly_one_verdict_and_the_tally_matches(
    raw: list[tuple[str, int, Ballot, bool]], strikes: dict[str, int]
) -> None:
    posts = [
        post(i + 1, a, OPEN - timedelta(minutes=30) + timedelta(minutes=m), b, edited=e)
        for i, (a, m, b, e) in enumerate(raw)
    ]
    r = judge_day(day(posts, strikes=strikes))
    assert sorted(v.pid for v in r.verdicts) == sorted(p.pid for p in posts)
    counted = [v for v in r.verdicts if v.status is VoteStatus.COUNTED]
    assert sum(line.count for line in r.tally) == len(counted)
    assert len({v.author for v in counted}) == len(counted)  # one vote per player
    assert all(line.target in ALIVE for line in r.tally)
    assert {p.player for p in r.players} == ALIVE
    if r.outcome.kind is OutcomeKind.REVOTE:
        assert r.outcome.plan is not None and len(r.outcome.plan.candidates) >= 2
        assert not set(r.outcome.plan.participants) & set(r.drowned_names)
