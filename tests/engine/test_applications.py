"""R004 delay and acceleration applications, as the rules read (总体流程, 讨论日时长):

“未出局角色可于白天在进程帖中申请加速或延时。申请加速或延时的人数大于等于存活人数的一半，即判定加速或延时成功。
延时申请截至讨论日结束前三小时（一般为最后一个自然日18:00），加速申请截止至加速成功后的讨论日结束前三小时。”
“延迟成功时，不再视为‘执行加速’状态。”
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    ApplicationKind,
    ApplicationPost,
    ApplicationsInput,
    ApplicationsResult,
    DayFlags,
    judge_applications,
)

SH = ZoneInfo("Asia/Shanghai")
ROSTER = ("Ada", "Bob", "Cam", "Dee", "Eva", "Flo", "Gia", "Hal", "Ivy")
LIVING = frozenset(ROSTER[:8])  # Ivy is out: 8 living roles, so 4 applicants succeed
D, A = ApplicationKind.DELAY, ApplicationKind.ACCELERATE


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 6, day, hour, minute, tzinfo=SH).astimezone(UTC)


OPENS, CLOSE = at(10, 21), at(12, 21)  # a two-day discussion day closing at 21:00 on the last day


def judge(
    posts: list[tuple[str, datetime, ApplicationKind]],
    *,
    close: datetime = CLOSE,
    auto: datetime | None = None,
    **flags: object,
) -> ApplicationsResult:
    inp = ApplicationsInput(
        posts=tuple(ApplicationPost(i + 1, who, when, kind) for i, (who, when, kind) in enumerate(posts)),
        living=LIVING,
        roster=ROSTER,
        opens=OPENS,
        close=close,
        auto_accelerated_at=auto,
        flags=DayFlags(**flags),  # type: ignore[arg-type]
        display_tz=SH,
    )
    return judge_applications(inp)


def four(
    kind: ApplicationKind, first: datetime, names: tuple[str, ...] = ROSTER[:4]
) -> list[tuple[str, datetime, ApplicationKind]]:
    return [(n, first.replace(minute=i), kind) for i, n in enumerate(names)]


def test_a_delay_succeeds_when_half_the_living_roles_apply() -> None:
    r = judge(four(D, at(12, 10)))
    assert r.needed == 4 and r.delay_granted_at == at(12, 10, 3)
    assert r.close == at(13, 21) and r.accelerated_at is None
    assert r.verdict(1).counted and "1/4" in r.verdict(1).reason
    assert "延时成功" in r.verdict(4).reason


def test_three_of_eight_are_not_enough() -> None:
    r = judge(four(D, at(12, 10))[:3])
    assert r.delay_granted_at is None and r.close == CLOSE and r.delay_applicants == ("Ada", "Bob", "Cam")


def test_one_applicant_is_counted_once() -> None:
    posts = [("Ada", at(12, 10), D), ("Ada", at(12, 10, 1), D), *four(D, at(12, 11), ("Bob", "Cam"))]
    r = judge(posts)
    assert not r.verdict(2).counted and "只计一次" in r.verdict(2).reason
    assert r.delay_granted_at is None and r.delay_applicants == ("Ada", "Bob", "Cam")


def test_a_dead_role_or_a_non_player_is_not_counted() -> None:
    posts = [("Ivy", at(12, 9), D), ("吃瓜群众", at(12, 9, 1), D), *four(D, at(12, 10))[:3]]
    r = judge(posts)
    assert "已出局" in r.verdict(1).reason and "非玩家" in r.verdict(2).reason
    assert r.delay_granted_at is None


def test_delay_applications_close_three_hours_before_the_end_of_the_day() -> None:
    """“延时申请截至讨论日结束前三小时（一般为最后一个自然日18:00）”"""
    posts = [*four(D, at(12, 17))[:3], ("Dee", at(12, 18), D)]
    r = judge(posts)
    assert not r.verdict(4).counted and "截止" in r.verdict(4).reason and r.close == CLOSE
    in_time = judge([*four(D, at(12, 17))[:3], ("Dee", at(12, 17, 59), D)])
    assert in_time.delay_granted_at == at(12, 17, 59)


def test_acceleration_applications_close_three_hours_before_the_accelerated_end() -> None:
    """“加速申请截止至加速成功后的讨论日结束前三小时”: accelerated, the day would end 6/11 21:00."""
    r = judge(four(A, at(11, 17)))
    assert r.acceleration_granted_at == at(11, 17, 3) and r.accelerated_at == at(11, 17, 3)
    assert r.close == at(11, 21) and "加速成功" in r.verdict(4).reason
    late = judge([*four(A, at(11, 17))[:3], ("Dee", at(11, 18), A)])
    assert late.acceleration_granted_at is None and "加速申请已截止" in late.verdict(4).reason


def test_a_successful_delay_ends_the_accelerated_state() -> None:
    """“延迟成功时，不再视为‘执行加速’状态。” Accelerated at 10:03 (end 6/11 21:00); a delay at 12:03."""
    r = judge([*four(A, at(11, 10)), *four(D, at(11, 12), ("Eva", "Flo", "Gia", "Hal"))])
    assert r.acceleration_granted_at == at(11, 10, 3) and r.acceleration_ended_at == at(11, 12, 3)
    assert r.accelerated_at == at(11, 10, 3) and r.close == at(12, 21)  # accelerated 10:03 until 12:03


def test_the_directors_automatic_acceleration_is_an_input_a_delay_ends_too() -> None:
    assert judge([], auto=at(11, 9)).accelerated_at == at(11, 9)
    r = judge(four(D, at(11, 12)), auto=at(11, 9))
    assert r.accelerated_at == at(11, 9) and r.acceleration_ended_at == at(11, 12, 3)
    assert "已于" in judge([("Ada", at(11, 10), A)], auto=at(11, 9)).verdict(1).reason


def test_each_kind_is_granted_once_a_day() -> None:
    r = judge([*four(D, at(12, 10)), ("Eva", at(12, 11), D)])
    assert not r.verdict(5).counted and "已于" in r.verdict(5).reason and r.close == at(13, 21)


def test_applications_before_the_day_opened_are_not_counted() -> None:
    r = judge([("Ada", at(10, 20), D)])
    assert not r.verdict(1).counted and "早于" in r.verdict(1).reason


@pytest.mark.parametrize("mode", ["explicit", "none"])
def test_withdrawing_an_application_by_the_flag(mode: str) -> None:
    """Default: 取消延时 takes the applicant off the count; 'none': applications cannot be withdrawn."""
    posts = [
        ("Ada", at(12, 9), D),
        ("Ada", at(12, 9, 30), ApplicationKind.WITHDRAW_DELAY),
        *four(D, at(12, 10), ("Bob", "Cam", "Dee")),
    ]
    r = judge(posts, r004_application_withdrawal=mode)
    if mode == "explicit":
        assert (
            r.verdict(2).counted
            and r.delay_granted_at is None
            and r.delay_applicants == ("Bob", "Cam", "Dee")
        )
    else:
        assert not r.verdict(2).counted and "不可撤回" in r.verdict(2).reason
        assert r.delay_granted_at == at(12, 10, 2)


def test_what_acceleration_shortens_is_a_flag() -> None:
    """AMB-82: a weekend day of three calendar days shortened by two ends on its first day."""
    long_close = at(13, 21)
    r = judge(four(A, at(11, 10)), close=long_close, r004_acceleration_shortens_days=2)
    assert r.close == at(11, 21)
    assert judge(four(A, at(11, 10)), close=long_close).close == at(12, 21)


def test_what_a_delay_lengthens_is_a_flag() -> None:
    assert judge(four(D, at(12, 10)), r004_delay_extends_days=2).close == at(14, 21)


def test_chat_and_unclear_posts_are_judged_with_a_reason() -> None:
    r = judge([("Ada", at(12, 9), ApplicationKind.NONE), ("Bob", at(12, 9), ApplicationKind.UNCLEAR)])
    assert r.verdict(1).reason == "非申请内容" and r.verdict(2).needs_review


def test_a_time_known_only_to_an_interval_across_the_closing_is_left_to_the_judges() -> None:
    """A touch page's «3 小时前» may fall either side of 18:00: not counted silently, flagged."""
    from dataclasses import replace

    posts = [*four(D, at(12, 17))[:3]]
    base = judge([*posts, ("Dee", at(12, 17, 30), D)])
    assert base.delay_granted_at is not None
    inp = ApplicationsInput(
        posts=(
            *(ApplicationPost(i + 1, w, t, k) for i, (w, t, k) in enumerate(posts)),
            replace(ApplicationPost(4, "Dee", at(12, 17, 30), D), at_latest=at(12, 18, 29)),
        ),
        living=LIVING,
        roster=ROSTER,
        opens=OPENS,
        close=CLOSE,
    )
    r = judge_applications(inp)
    assert r.delay_granted_at is None and r.verdict(4).needs_review and "不精确" in r.verdict(4).reason


KINDS = list(ApplicationKind)


@given(
    st.lists(
        st.tuples(st.sampled_from((*ROSTER, "路人")), st.integers(0, 48 * 60), st.sampled_from(KINDS)),
        max_size=40,
    )
)
def test_every_post_gets_a_verdict_and_a_grant_needs_half_the_living(
    raw: list[tuple[str, int, ApplicationKind]],
) -> None:
    posts = [(who, OPENS + timedelta(minutes=m), kind) for who, m, kind in raw]
    r = judge(posts)
    assert len(r.verdicts) == len(posts) and all(v.reason for v in r.verdicts)
    day = timedelta(days=1)
    assert r.close in (CLOSE, CLOSE - day, CLOSE + day, CLOSE - day + day)
    for granted, kind in ((r.delay_granted_at, D), (r.acceleration_granted_at, A)):
        if granted is not None:
            counted = {v.author for v in r.verdicts if v.kind is kind and v.counted and v.at <= granted}
            assert counted <= LIVING and len(counted) >= r.needed
    if r.acceleration_ended_at is not None:
        assert r.delay_granted_at == r.acceleration_ended_at
