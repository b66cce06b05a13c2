"""``tally --json`` writes each verdict's line without building its row (issue 12): every line is the
text json gives for the row, whatever the names and reasons hold."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, cast
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    AttendanceResult,
    BallotKind,
    Override,
    PostAttendance,
    PostAttendanceStatus,
    Verdict,
    VoteStatus,
)
from forumbot.commands.day import (
    _one_line_encoder,
    iter_attendance_lines,
    iter_attendance_rows,
    iter_verdict_lines,
    iter_verdict_rows,
)

TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(['"', "\\", "\n", "\t", "\x00", "\x1f", "\u2028", "\ud7ff", "法", "😀"]),
    ),
    max_size=12,
)
VERDICTS = st.builds(
    Verdict,
    pid=st.one_of(st.none(), st.integers(0, 2**40)),
    floor=st.one_of(st.none(), st.integers(1, 10**6)),
    author=TEXT,
    at=st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)),
    status=st.sampled_from(list(VoteStatus)),
    target=st.one_of(st.none(), TEXT),
    abstain=st.booleans(),
    reason=TEXT,
    needs_review=st.booleans(),
    suggestion=st.one_of(st.none(), TEXT),
    stage=st.integers(0, 3),
    proxy=st.booleans(),
    override=st.one_of(
        st.none(),
        st.builds(Override, pid=st.integers(1, 9), kind=st.just(BallotKind.VOTE), why=TEXT, by=TEXT),
    ),
)


def _day(verdicts: list[Verdict]) -> Any:
    return SimpleNamespace(result=SimpleNamespace(verdicts=tuple(verdicts), revotes=()))


@settings(max_examples=300)
@given(st.lists(VERDICTS, max_size=5), st.lists(TEXT, max_size=2))
def test_each_line_is_the_json_text_of_its_row(verdicts: list[Verdict], judges: list[str]) -> None:
    game = cast(Any, SimpleNamespace(tz=ZoneInfo("Asia/Shanghai"), judges=tuple(judges)))
    judged = _day(verdicts)
    rows = list(iter_verdict_rows(judged, game))
    lines = list(iter_verdict_lines(judged, game))
    encode = _one_line_encoder()
    assert lines == [encode(row) for row in rows]
    assert lines == [json.dumps(row, ensure_ascii=False) for row in rows]
    assert [json.loads(line) for line in lines] == rows


ATTENDANCE = st.builds(
    PostAttendance,
    pid=st.integers(0, 2**40),
    author=TEXT,
    at=st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)),
    status=st.sampled_from(list(PostAttendanceStatus)),
    reason=TEXT,
)


@settings(max_examples=300)
@given(
    st.lists(ATTENDANCE, max_size=6),
    st.dictionaries(st.integers(0, 2**40), st.one_of(st.none(), st.integers(1, 10**6)), max_size=4),
)
def test_each_attendance_line_is_the_json_text_of_its_row(
    posts: list[PostAttendance], floors: dict[int, int | None]
) -> None:
    """``attendance --json`` writes each post's line as json would write its row."""
    floors.update({p.pid: p.pid % 7 or None for p in posts[::2]})  # some posts with a floor, some without
    att = AttendanceResult(counts={}, posts=tuple(posts))
    tz = ZoneInfo("Asia/Shanghai")
    rows = list(iter_attendance_rows(att, floors, tz))
    lines = list(iter_attendance_lines(att, floors, tz))
    assert lines == [json.dumps(row, ensure_ascii=False) for row in rows]
    assert [json.loads(line) for line in lines] == rows
