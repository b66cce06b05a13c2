"""The vote timeline: one vote per voter, moved by a change, withdrawn by a void; drawn as safe SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from forumbot.web.svg import VoteMove, timeline_svg, vote_series

T0 = datetime(2026, 6, 3, 9, 20, tzinfo=UTC)
TZ = ZoneInfo("Asia/Shanghai")


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def test_a_change_moves_the_vote_and_a_void_withdraws_it() -> None:
    series = vote_series(
        [
            VoteMove(at(10), "饺子", "烧卖"),
            VoteMove(at(20), "包子", "烧卖"),
            VoteMove(at(30), "饺子", "月饼"),  # a change: 烧卖 loses one, 月饼 gains one
            VoteMove(at(40), "包子", None),  # a void
        ]
    )
    assert series["烧卖"] == [(at(10), 1), (at(20), 2), (at(30), 1), (at(40), 0)]
    assert series["月饼"] == [(at(30), 1)]


def test_a_repeated_vote_for_the_same_target_changes_nothing() -> None:
    series = vote_series([VoteMove(at(1), "饺子", "烧卖"), VoteMove(at(2), "饺子", "烧卖")])
    assert series == {"烧卖": [(at(1), 1)]}


def test_the_chart_is_valid_svg_with_names_escaped() -> None:
    svg = timeline_svg(
        {"<b>&烧卖": [(at(10), 1), (at(70), 2)], "月饼": [(at(30), 1)]},
        start=T0,
        end=at(24 * 60),
        tz=TZ,
        title="第1日",
        marks=[(at(23 * 60), "截止")],
    )
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    paths = root.findall(f"{ns}path")
    assert [p.get("data-target") for p in paths] == ["<b>&烧卖", "月饼"]  # the leader first
    assert "<b>" not in svg.replace("&lt;b&gt;", "")
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "17:00" in texts or "18:00" in texts  # hours in the board's zone (09:20 UTC = 17:20)
    assert "截止" in texts


def test_an_empty_day_still_draws() -> None:
    ET.fromstring(timeline_svg({}, start=T0, end=T0, tz=TZ))


moves = st.lists(
    st.tuples(st.integers(0, 600), st.sampled_from("ABCD"), st.sampled_from(["x", "y", "z", None])),
    max_size=30,
)


@given(moves)
def test_the_counts_never_exceed_the_voters_nor_go_negative(raw: list[tuple[int, str, str | None]]) -> None:
    ms = [VoteMove(at(m), v, t) for m, v, t in raw]
    series = vote_series(ms)
    voters = {v for _, v, _ in raw}
    for points in series.values():
        assert all(0 <= c <= len(voters) for _, c in points)
    final = {t: pts[-1][1] for t, pts in series.items()}
    holding: dict[str, str | None] = {}
    for m in sorted(ms, key=lambda m: m.at):
        holding[m.voter] = m.target
    for t, n in final.items():
        assert n == sum(1 for h in holding.values() if h == t)
