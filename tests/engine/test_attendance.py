"""engine.attendance: what a valid discussion post is (AMB-20) and the round window (AMB-24)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    AttendanceRules,
    DayFlags,
    DiscussionPost,
    PostAttendanceStatus,
    RoundWindow,
    count_valid_posts,
    judge_discussion_post,
    meaningful_text,
    round_window,
)

T0 = datetime(2026, 6, 4, 9, 20, tzinfo=UTC)
V = PostAttendanceStatus


def p(text: str, author: str = "Pam", pid: int = 1, at: datetime = T0, **kw: object) -> DiscussionPost:
    return DiscussionPost(pid=pid, author=author, at=at, text=text, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("我觉得 Ken 昨天的发言前后矛盾", V.VALID),
        ("同意", V.VALID),
        ("好的", V.VALID),
        ("顶", V.BUMP),
        ("顶顶顶", V.BUMP),
        ("+1", V.BUMP),
        ("1", V.BUMP),
        ("111", V.BUMP),
        ("UP", V.BUMP),
        ("dd", V.BUMP),
        ("沙发", V.BUMP),
        ("路过。", V.BUMP),
        ("嗯", V.TOO_SHORT),
        ("?", V.EMPTY),
        ("。。。", V.EMPTY),
        ("", V.EMPTY),
        ("   \n ", V.EMPTY),
        (":'(", V.SMILEY_ONLY),
        ("{:3_44:}{:3_45:}", V.SMILEY_ONLY),
        ("[quote]Ken 发表于 2026-6-4\n我是好人[/quote]", V.QUOTE_ONLY),
        ("[quote]Ken 发表于 2026-6-4\n我是好人[/quote]\n不信", V.VALID),
        ("[b][/b][color=red][/color]", V.EMPTY),
        ("[img]http://x/y.png[/img]", V.EMPTY),
        ("😀😀😀", V.EMPTY),
        ("ok", V.VALID),
        ("顶一下，Ken 很可疑", V.VALID),
    ],
)
def test_what_counts_as_a_valid_discussion_post(text: str, status: PostAttendanceStatus) -> None:
    v = judge_discussion_post(p(text))
    assert v.status is status, v.reason
    assert v.reason


def test_quote_only_and_smiley_only_flags_from_the_page_parser() -> None:
    assert judge_discussion_post(p("", has_quote=True)).status is V.QUOTE_ONLY
    assert judge_discussion_post(p("", smiley_only=True)).status is V.SMILEY_ONLY


def test_rules_are_configurable() -> None:
    assert judge_discussion_post(p("顶"), AttendanceRules(count_bumps=True, min_meaningful_chars=1)).valid
    assert judge_discussion_post(p("嗯"), AttendanceRules(min_meaningful_chars=1)).valid
    assert judge_discussion_post(p("", has_quote=True), AttendanceRules(count_quote_only=True)).valid
    assert judge_discussion_post(p(":)"), AttendanceRules(count_smiley_only=True)).valid
    assert not judge_discussion_post(p("好的"), AttendanceRules(min_meaningful_chars=3)).valid
    assert not judge_discussion_post(p("打卡"), AttendanceRules()).valid
    assert judge_discussion_post(p("打卡"), AttendanceRules(bump_words=frozenset({"顶"}))).valid


def test_rules_from_day_flags() -> None:
    rules = AttendanceRules.from_flags(
        DayFlags(attendance_min_meaningful_chars=5, attendance_count_bumps=True)
    )
    assert rules.min_meaningful_chars == 5 and rules.count_bumps and rules.min_posts == 2


def test_count_valid_posts_per_player_inside_the_window() -> None:
    w = RoundWindow(T0, T0 + timedelta(hours=20))
    posts = [
        p("Ken 很可疑", "Pam", 1),
        p("我同意楼上", "Pam", 2),
        p("顶", "Pat", 3),
        p("我是好人", "Pat", 4),
        p("早到的发言", "Cal", 5, at=T0 - timedelta(seconds=1)),
        p("晚到的发言", "Cal", 6, at=T0 + timedelta(hours=20)),
        p("旁观者的分析", "吃瓜群众", 7),
        p("刚好开始", "Cal", 8, at=T0),
    ]
    r = count_valid_posts(posts, ("Pam", "Pat", "Cal", "Cid"), w)
    assert dict(r.counts) == {"Pam": 2, "Pat": 1, "Cal": 1, "Cid": 0}
    assert [v.status for v in r.posts] == [
        V.VALID,
        V.VALID,
        V.BUMP,
        V.VALID,
        V.OUTSIDE_WINDOW,
        V.OUTSIDE_WINDOW,
        V.NOT_A_PLAYER,
        V.VALID,
    ]
    assert r.deficient() == frozenset({"Pat", "Cal", "Cid"})
    assert r.deficient(["Pam", "Cid"]) == frozenset({"Cid"})


def test_round_window_starts_at_the_previous_close_or_the_round_one_case_post() -> None:
    close = T0 + timedelta(days=1)
    assert round_window(close, previous_close=T0).start == T0
    assert round_window(close, case_post_at=T0 + timedelta(hours=1)).start == T0 + timedelta(hours=1)
    with pytest.raises(ValueError):
        round_window(close)
    with pytest.raises(ValueError):
        RoundWindow(close, T0)
    with pytest.raises(ValueError, match="timezone-aware"):
        RoundWindow(datetime(2026, 6, 4), datetime(2026, 6, 5))


def test_meaningful_text_keeps_letters_and_digits_only() -> None:
    assert meaningful_text("[quote]x[/quote]投票：Ken！ :) 123") == "投票Ken123"


@given(st.text(max_size=200), st.booleans(), st.booleans())
def test_judging_a_post_never_raises(text: str, has_quote: bool, smiley_only: bool) -> None:
    v = judge_discussion_post(p(text, has_quote=has_quote, smiley_only=smiley_only))
    assert isinstance(v.status, PostAttendanceStatus)
