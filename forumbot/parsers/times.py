"""Reading the times a Discuz! page shows, as UTC intervals.

A page shows a post's time in one of four ways, from best to worst:

- the mobile API's ``dbdateline``: Unix seconds (exact);
- the ``title`` of the span around a relative form (``<span title="2026-11-29 21:29:39">2 分钟前</span>``):
  exact when it shows seconds, else the whole minute;
- plain text ``2026-6-3 12:34:56`` or ``2026-6-3 12:34`` (date format ``Y-n-j``, seconds only while
  relative dates are on): the second or the minute;
- a relative form alone (touch pages): resolved against the response's ``Date`` header, giving the
  interval of instants that Discuz!'s ``dgmdate(..., 'u')`` would have rendered that way.

Page times are in the viewer's time zone (a guest sees the board's), so absolute forms need ``tz``.
``dgmdate`` works with the zone's fixed offset at render time; so does :func:`resolve_relative`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from zoneinfo import ZoneInfo

from forumbot.parsers.forumrecords import TimeSource

__all__ = [
    "UNKNOWN_TIME",
    "TimeRange",
    "parse_absolute",
    "parse_display_time",
    "parse_http_date",
    "resolve_relative",
]

DAY = 86400

# Absolute forms: 2026-6-3 12:34[:56], 2026/06/03 12:34, 2026年6月3日 12:34; the time part is optional.
_ABSOLUTE = re.compile(
    r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?"
    r"(?:\s*(\d{1,2}):(\d{2})(?::(\d{2}))?)?"
)
_REL_NOW = re.compile(r"^(?:刚刚|just now)$", re.IGNORECASE)
_REL_SEC = re.compile(r"^(\d+)\s*秒前$")
_REL_MIN = re.compile(r"^(\d+)\s*分钟前$")
_REL_HALF = re.compile(r"^半\s*小时前$")
_REL_HOUR = re.compile(r"^(\d+)\s*小时前$")
_REL_DAYTIME = re.compile(r"^(昨天|前天)\s*(\d{1,2}):(\d{2})$")
_REL_DAYS = re.compile(r"^(\d+)\s*天前$")
_SPACES = re.compile(r"[\s\xa0]+")


@dataclass(frozen=True, slots=True)
class TimeRange:
    """The instants (UTC) consistent with what the page shows, and how we know."""

    start: datetime
    end: datetime
    source: TimeSource

    @property
    def exact(self) -> bool:
        return self.start == self.end


# What a post gets when the page shows no usable time: every instant is consistent with it, so any
# deadline comparison flags it instead of silently accepting or rejecting it.
UNKNOWN_TIME = TimeRange(
    datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC), TimeSource.RELATIVE
)


_PREFIXES = ("发表于", "發表於", "Posted on", "posted on")


def _clean(text: str) -> str:
    text = text.strip()
    if not text.isprintable() or "  " in text:  # runs of spaces, tabs, newlines or \xa0 inside
        text = _SPACES.sub(" ", text)
    if text.startswith(_PREFIXES):
        for prefix in _PREFIXES:
            if text.startswith(prefix):
                text = text[len(prefix) :].strip()
    return text


_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, 1)}


def _imf_fixdate(value: str) -> datetime | None:
    """``Sun, 06 Nov 1994 08:49:37 GMT`` (RFC 9110's preferred form, what servers send), read by hand:
    ``parsedate_to_datetime`` costs as much as reading a page's posts' times. None for any other form."""
    parts = value.split()
    if len(parts) != 6 or parts[5] != "GMT" or not parts[0].endswith(","):
        return None
    day, month_name, year, clock = parts[1], parts[2], parts[3], parts[4]
    month = _MONTHS.get(month_name)
    hour, minute, second = clock[:2], clock[3:5], clock[6:]
    digits = day + year + hour + minute + second
    if month is None or len(year) != 4 or len(clock) != 8 or clock[2] != ":" or clock[5] != ":":
        return None
    if not digits.isascii() or not digits.isdigit():
        return None
    try:
        return datetime(int(year), month, int(day), int(hour), int(minute), int(second), tzinfo=UTC)
    except ValueError:
        return None


def parse_http_date(value: str | None) -> datetime | None:
    """An HTTP ``Date`` header as an aware UTC datetime, or None when missing or malformed."""
    if not value:
        return None
    found = _imf_fixdate(value)
    if found is not None:
        return found
    try:
        parsed = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _local(year: int, month: int, day: int, hour: int, minute: int, second: int, tz: ZoneInfo) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=tz).astimezone(UTC)


def parse_absolute(text: str, tz: ZoneInfo, source: TimeSource = TimeSource.TEXT) -> TimeRange | None:
    """``2026-6-3 12:34:56`` → that second; ``… 12:34`` → the minute; ``2026-6-3`` → the whole day."""
    match = _ABSOLUTE.search(text)
    if not match:
        return None
    y, mo, d, h, mi, s = match.groups()
    try:
        if h is None:
            start = _local(int(y), int(mo), int(d), 0, 0, 0, tz)
            end = _local(int(y), int(mo), int(d), 23, 59, 59, tz)
        elif s is None:
            start = _local(int(y), int(mo), int(d), int(h), int(mi), 0, tz)
            end = start + timedelta(seconds=59)
        else:
            start = end = _local(int(y), int(mo), int(d), int(h), int(mi), int(s), tz)
    except ValueError:  # 2026-2-30, 25:00 ...
        return None
    return TimeRange(start, end, source)


def _range(lo: int, hi: int) -> TimeRange:
    return TimeRange(datetime.fromtimestamp(lo, UTC), datetime.fromtimestamp(hi, UTC), TimeSource.RELATIVE)


def resolve_relative(text: str, now: datetime, tz: ZoneInfo) -> TimeRange | None:
    """Invert ``dgmdate(ts, 'u')``: the instants that render as ``text`` when the page is made at ``now``.

    With ``t = now - ts`` and ``today`` the local midnight before ``now``, Discuz! shows (for ts ≥ today)
    ``刚刚`` (t = 0), ``N 秒前`` (t = N ≤ 60), ``N 分钟前`` (60 < t ≤ 1800, N = t // 60), ``半小时前``
    (1800 < t ≤ 3600), ``N 小时前`` (t > 3600, N = t // 3600); and for earlier days with
    d = (today - ts) // 86400 < 7: ``昨天 H:i`` (d = 0), ``前天 H:i`` (d = 1), ``(d+1) 天前``.
    """
    text = _clean(text)
    # Each form ends (or starts) its own way: try the one pattern that can match, not all seven in turn.
    if text.endswith("前"):
        if text.endswith("分钟前"):
            pattern = _REL_MIN
        elif text.endswith("秒前"):
            pattern = _REL_SEC
        elif text.endswith("小时前"):
            pattern = _REL_HALF if text.startswith("半") else _REL_HOUR
        elif text.endswith("天前"):
            pattern = _REL_DAYS
        else:
            return None
    elif text.startswith(("昨天", "前天")):
        pattern = _REL_DAYTIME
    else:
        pattern = _REL_NOW
    m = pattern.match(text)
    if m is None:
        return None
    now_ts = int(now.timestamp())
    offset = now.astimezone(tz).utcoffset()
    off = int(offset.total_seconds()) if offset is not None else 0
    today = now_ts - (now_ts + off) % DAY  # local midnight, as a Unix time

    def ago(t_lo: int, t_hi: int, plain_lo: int, plain_hi: int) -> TimeRange:
        """Instants t_lo..t_hi seconds before now, not before today's midnight; a form Discuz! would
        not produce (0 小时前, 45 分钟前) falls back to its plain reading."""
        if t_lo > t_hi:
            t_lo, t_hi = plain_lo, plain_hi
        lo, hi = now_ts - t_hi, now_ts - t_lo
        return _range(max(lo, today) if today <= hi else lo, hi)

    if pattern is _REL_NOW:
        return _range(now_ts, now_ts)
    if pattern is _REL_SEC:
        n = int(m.group(1))
        return _range(now_ts - n, now_ts - n)
    if pattern is _REL_MIN:
        n = int(m.group(1))
        return ago(max(60 * n, 61), min(60 * n + 59, 1800), 60 * n, 60 * n + 59)
    if pattern is _REL_HALF:
        return ago(1801, 3600, 1801, 3600)
    if pattern is _REL_HOUR:
        n = int(m.group(1))
        return ago(max(3600 * n, 3601), 3600 * (n + 1) - 1, 3600 * n, 3600 * (n + 1) - 1)
    if pattern is _REL_DAYTIME:
        back = 1 if m.group(1) == "昨天" else 2
        minute = today - back * DAY + int(m.group(2)) * 3600 + int(m.group(3)) * 60
        lo = max(minute, today - back * DAY + 1)
        hi = min(minute + 59, today - (back - 1) * DAY - (1 if back == 1 else 0))
        if lo > hi:
            lo, hi = minute, minute + 59
        return _range(lo, hi)
    n = int(m.group(1))  # _REL_DAYS
    return _range(today - n * DAY + 1, today - (n - 1) * DAY)


def parse_display_time(
    text: str,
    *,
    title: str | None = None,
    now: datetime | None = None,
    tz: ZoneInfo,
) -> TimeRange | None:
    """The best reading of a displayed time: the title, then absolute text, then a relative form.

    Returns None when nothing in ``text``/``title`` is a time, or when a relative form has no ``now``.
    """
    if title:
        found = parse_absolute(title, tz, TimeSource.TITLE)
        if found:
            return found
    cleaned = _clean(text)
    found = parse_absolute(cleaned, tz, TimeSource.TEXT)
    if found:
        return found
    if now is not None:
        return resolve_relative(cleaned, now, tz)
    return None
