"""Times tables: every form a page shows, and the UTC interval it stands for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from forumbot.parsers.records import TimeSource
from forumbot.parsers.times import (
    UNKNOWN_TIME,
    parse_absolute,
    parse_display_time,
    parse_http_date,
    resolve_relative,
)

TZ = ZoneInfo("Asia/Shanghai")
# The page was rendered at 2026-06-03 22:13:30 Beijing time (a Date header of 14:13:30 GMT).
NOW = datetime(2026, 6, 3, 14, 13, 30, tzinfo=UTC)


def local(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=TZ).astimezone(UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("2026-6-3 12:34:56", "2026-06-03 12:34:56", "2026-06-03 12:34:56"),  # Y-n-j with seconds: exact
        ("发表于 2026-6-3 12:34:56", "2026-06-03 12:34:56", "2026-06-03 12:34:56"),
        ("发表于 2026-6-3 12:34", "2026-06-03 12:34:00", "2026-06-03 12:34:59"),  # minute precision
        ("2026-06-03 09:05", "2026-06-03 09:05:00", "2026-06-03 09:05:59"),  # Y-m-d boards
        ("2026/6/3 9:05", "2026-06-03 09:05:00", "2026-06-03 09:05:59"),
        ("2026年6月3日 09:05", "2026-06-03 09:05:00", "2026-06-03 09:05:59"),
        ("2026-6-3", "2026-06-03 00:00:00", "2026-06-03 23:59:59"),  # a date alone: the whole day
        ("2026-12-31 23:59:59", "2026-12-31 23:59:59", "2026-12-31 23:59:59"),
    ],
)
def test_absolute(text: str, start: str, end: str) -> None:
    found = parse_absolute(text, TZ)
    assert found is not None
    assert (found.start, found.end) == (local(start), local(end))
    assert found.source is TimeSource.TEXT


@pytest.mark.parametrize(
    "text", ["", "刚刚", "3 分钟前", "2026-2-30 10:00", "2026-6-3 25:00", "12:34", "楼主"]
)
def test_absolute_rejects(text: str) -> None:
    assert parse_absolute(text, TZ) is None


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("刚刚", "2026-06-03 22:13:30", "2026-06-03 22:13:30"),
        ("1 秒前", "2026-06-03 22:13:29", "2026-06-03 22:13:29"),  # seconds are exact: t = N
        ("45&nbsp;秒前", "2026-06-03 22:12:45", "2026-06-03 22:12:45"),
        ("60 秒前", "2026-06-03 22:12:30", "2026-06-03 22:12:30"),
        ("1 分钟前", "2026-06-03 22:11:31", "2026-06-03 22:12:29"),  # 60 < t < 120
        ("3 分钟前", "2026-06-03 22:09:31", "2026-06-03 22:10:30"),  # [date-4min+1s, date-3min]
        ("3\xa0分钟前", "2026-06-03 22:09:31", "2026-06-03 22:10:30"),
        ("29 分钟前", "2026-06-03 21:43:31", "2026-06-03 21:44:30"),
        ("30 分钟前", "2026-06-03 21:43:30", "2026-06-03 21:43:30"),  # t = 1800 exactly
        ("半小时前", "2026-06-03 21:13:30", "2026-06-03 21:43:29"),  # 1800 < t ≤ 3600
        ("1 小时前", "2026-06-03 20:13:31", "2026-06-03 21:13:29"),  # 3600 < t < 7200
        ("2 小时前", "2026-06-03 19:13:31", "2026-06-03 20:13:30"),
        ("22 小时前", "2026-06-03 00:00:00", "2026-06-03 00:13:30"),  # clamped to today
        ("昨天 21:29", "2026-06-02 21:29:00", "2026-06-02 21:29:59"),
        ("昨天&nbsp;00:00", "2026-06-02 00:00:01", "2026-06-02 00:00:59"),  # 00:00:00 itself is 前天
        ("前天 08:05", "2026-06-01 08:05:00", "2026-06-01 08:05:59"),
        ("前天 00:00", "2026-06-01 00:00:01", "2026-06-01 00:00:59"),
        ("3 天前", "2026-05-31 00:00:01", "2026-06-01 00:00:00"),  # a whole day (shifted by a second)
        ("7 天前", "2026-05-27 00:00:01", "2026-05-28 00:00:00"),
    ],
)
def test_relative(text: str, start: str, end: str) -> None:
    found = resolve_relative(text.replace("&nbsp;", "\xa0"), NOW, TZ)
    assert found is not None
    assert (found.start, found.end) == (local(start), local(end))
    assert found.source is TimeSource.RELATIVE


def test_relative_matches_discuz_rendering_for_every_second_of_a_day() -> None:
    """Render each instant of the last 8 days the way dgmdate(ts, 'u') does, read it back: the true
    instant is always inside the interval (checked every 97 s to keep the test quick)."""
    now_ts = int(NOW.timestamp())
    offset = 8 * 3600
    today = now_ts - (now_ts + offset) % 86400
    for ts in range(now_ts - 8 * 86400, now_ts + 1, 97):
        t = now_ts - ts
        if ts >= today:
            if t > 3600:
                text = f"{t // 3600} 小时前"
            elif t > 1800:
                text = "半小时前"
            elif t > 60:
                text = f"{t // 60} 分钟前"
            elif t > 0:
                text = f"{t} 秒前"
            else:
                text = "刚刚"
        else:
            days = (today - ts) // 86400
            hm = datetime.fromtimestamp(ts + offset, UTC).strftime("%H:%M")
            if days == 0:
                text = f"昨天 {hm}"
            elif days == 1:
                text = f"前天 {hm}"
            elif days < 7:
                text = f"{days + 1} 天前"
            else:
                continue  # older than a week: the absolute date is shown
        found = resolve_relative(text, NOW, TZ)
        assert found is not None, text
        assert found.start.timestamp() <= ts <= found.end.timestamp(), (text, ts)


@pytest.mark.parametrize("text", ["", "楼主", "明天 10:00", "分钟前", "几分钟前"])
def test_relative_rejects(text: str) -> None:
    assert resolve_relative(text, NOW, TZ) is None


def test_display_time_prefers_the_title() -> None:
    found = parse_display_time("发表于 3 分钟前", title="2026-6-3 22:10:07", now=NOW, tz=TZ)
    assert found is not None and found.source is TimeSource.TITLE and found.exact
    assert found.start == local("2026-06-03 22:10:07")


def test_display_time_minute_title() -> None:
    found = parse_display_time("16 分钟前", title="2026-6-3 21:56", now=NOW, tz=TZ)
    assert found is not None and found.source is TimeSource.TITLE
    assert found.end - found.start == timedelta(seconds=59)


def test_display_time_relative_needs_a_date_header() -> None:
    assert parse_display_time("3 分钟前", tz=TZ) is None
    found = parse_display_time("2026-6-3 12:00", tz=TZ)
    assert found is not None and found.source is TimeSource.TEXT


def test_other_time_zones() -> None:
    found = parse_absolute("2026-6-3 12:00:00", ZoneInfo("UTC"))
    assert found is not None and found.start == datetime(2026, 6, 3, 12, tzinfo=UTC)
    # 昨天 in New York is measured from New York's midnight
    ny = ZoneInfo("America/New_York")
    found = resolve_relative("昨天 23:00", NOW, ny)  # NOW is 10:13:30 on June 3rd in New York
    assert found is not None and found.start == datetime(2026, 6, 3, 3, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Sun, 29 Nov 2026 13:31:49 GMT", datetime(2026, 11, 29, 13, 31, 49, tzinfo=UTC)),
        ("Sun, 29 Nov 2026 21:31:49 +0800", datetime(2026, 11, 29, 13, 31, 49, tzinfo=UTC)),
        (None, None),
        ("", None),
        ("yesterday", None),
    ],
)
def test_http_date(header: str | None, expected: datetime | None) -> None:
    assert parse_http_date(header) == expected


def test_unknown_time_covers_everything() -> None:
    assert (
        UNKNOWN_TIME.start
        < datetime(2000, 1, 1, tzinfo=UTC)
        < datetime(2100, 1, 1, tzinfo=UTC)
        < UNKNOWN_TIME.end
    )
