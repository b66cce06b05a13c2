"""What the board shows at a moment, over random scenarios: a post is shown exactly while it exists, and
its floor, given when it was made, never moves as the clock goes on (deleted posts leave a gap)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from forumbot.exampleboard.model import Edit, Forum, Post, Scenario, Thread, User

T0 = datetime(2026, 6, 3, 8, 0, tzinfo=UTC)
minutes = st.integers(min_value=0, max_value=600)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    sc = Scenario(
        name="测试论坛",
        tz=ZoneInfo("Asia/Shanghai"),
        ppp=10,
        judge="法官",
        users={"法官": User(1, "法官", "x"), "甲": User(2, "甲", "x")},
        forums={3: Forum(3, "版杀区")},
        threads={2: Thread(2, 3, "讨论", "法官")},
    )
    for pid in range(1, draw(st.integers(min_value=1, max_value=25)) + 1):
        at = T0 + timedelta(minutes=draw(minutes))
        gone = draw(st.none() | minutes)
        edit = draw(st.none() | minutes)
        sc.posts.append(
            Post(
                pid,
                2,
                "甲",
                at,
                f"帖{pid}",
                (Edit(at + timedelta(minutes=edit), f"改{pid}"),) if edit is not None else (),
                at + timedelta(minutes=gone + 1) if gone is not None else None,
            )
        )
    return sc


@given(scenarios(), st.lists(minutes, min_size=2, max_size=6))
def test_posts_show_while_they_exist_and_keep_their_floor(sc: Scenario, offsets: list[int]) -> None:
    floors: dict[int, int] = {}
    for off in sorted(offsets):
        now = T0 + timedelta(minutes=off)
        shown = sc.thread_posts(2, now)
        assert {p.pid for _, p in shown} == {
            p.pid for p in sc.posts if p.at <= now and (p.deleted_at is None or now < p.deleted_at)
        }
        assert [n for n, _ in shown] == sorted(n for n, _ in shown)
        for n, p in shown:
            assert floors.setdefault(p.pid, n) == n
            text, edited_at = p.shown(now)
            assert (edited_at is not None) == any(e.at <= now for e in p.edits)
            assert text == (p.edits[0].text if edited_at else p.text)
        assert sc.moments() == sorted(set(sc.moments()))
