"""Property tests: whatever bytes arrive, the parsers answer with records or a BoardError subclass.

"internal parser error" in an UnparseablePage means a parser bug was caught by the safety net in
forumbot.parsers; these tests treat it as a failure, so they can find bugs, not just hide them.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.errors import BoardError
from forumbot.parsers import page_to_json, parse_forum_page, parse_thread_page
from forumbot.parsers.encoding import html_fragment
from forumbot.parsers.htmltext import read_body, read_fragment
from forumbot.parsers.pageinfo import query
from forumbot.parsers.times import resolve_relative

PAGES = Path(__file__).parent / "pages"
SAMPLES = sorted(p for p in PAGES.rglob("*") if p.is_file() and not p.name.endswith(".expected.json"))
BODIES = {p.name: p.read_bytes() for p in SAMPLES}
URLS = st.sampled_from(
    [
        "http://b/forum.php?mod=viewthread&tid=3&page=2",
        "http://b/forum.php?mod=viewthread&tid=3&mobile=2",
        "http://b/forum.php?mod=viewthread&tid=3&page=1&authorid=2",
        "http://b/api/mobile/index.php?version=4&module=viewthread&tid=3&page=9",
        "http://b/thread-3-1-1.html",
        "http://b/forum.php?mod=forumdisplay&fid=8",
        "",
    ]
)
DATES = st.sampled_from([None, "Wed, 03 Jun 2026 14:13:30 GMT", "garbage"])
TZ = ZoneInfo("Asia/Shanghai")
FAST = settings(
    max_examples=int(__import__("os").environ.get("PARSER_FUZZ", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _check(body: bytes, url: str, date: str | None, status: int = 200) -> None:
    for parse in (parse_thread_page, parse_forum_page):
        try:
            result = parse(body, url, date_header=date, status=status)
        except BoardError as exc:
            assert "internal parser error" not in exc.detail, exc.detail
        else:
            if parse is parse_thread_page:
                page_to_json(result, TZ)  # type: ignore[arg-type]


@FAST
@given(st.binary(max_size=2000), URLS, DATES, st.sampled_from([200, 404, 503]))
def test_random_bytes(body: bytes, url: str, date: str | None, status: int) -> None:
    _check(body, url, date, status)


@FAST
@given(st.sampled_from(sorted(BODIES)), st.floats(0, 1), URLS, DATES)
def test_truncated_pages(name: str, fraction: float, url: str, date: str | None) -> None:
    body = BODIES[name]
    _check(body[: int(len(body) * fraction)], url, date)


@FAST
@given(st.sampled_from(sorted(BODIES)), st.integers(0, 10**6), st.binary(min_size=1, max_size=40), URLS)
def test_corrupted_pages(name: str, where: int, junk: bytes, url: str) -> None:
    body = BODIES[name]
    at = where % (len(body) + 1)
    _check(body[:at] + junk + body[at:], url, "Wed, 03 Jun 2026 14:13:30 GMT")


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=20)
    | st.sampled_from(["0", "1", "3", "-1", "abc"]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
POST_KEYS = [
    "pid",
    "tid",
    "first",
    "author",
    "authorid",
    "dateline",
    "dbdateline",
    "message",
    "position",
    "number",
    "status",
    "anonymous",
    "username",
]


@FAST
@given(
    st.lists(st.dictionaries(st.sampled_from(POST_KEYS), JSON_VALUES, max_size=len(POST_KEYS)), max_size=4),
    st.dictionaries(st.sampled_from(["tid", "fid", "subject", "replies", "allreplies"]), JSON_VALUES),
    JSON_VALUES,
    URLS,
)
def test_api_json_of_any_shape(
    posts: list[dict[str, object]], thread: dict[str, object], extra: object, url: str
) -> None:
    payload = {
        "Version": "4",
        "Charset": extra,
        "Variables": {
            "thread": thread,
            "postlist": posts,
            "ppp": extra,
            "formhash": extra,
            "member_uid": extra,
            "forum": extra,
            "forum_threadlist": posts,
        },
    }
    _check(json.dumps(payload).encode(), url, "Wed, 03 Jun 2026 14:13:30 GMT")


@FAST
@given(st.text(max_size=300))
def test_any_fragment_reads(markup: str) -> None:
    body = read_fragment(markup, TZ)
    assert "\x00" not in body.text
    assert body.text == body.text.strip()


RELATIVE = r"\A(刚刚|\d{1,3} ?(秒|分钟|小时|天)前|半小时前|(昨天|前天) ?\d{1,2}:\d{2})\Z"


@FAST
@given(st.from_regex(RELATIVE))
def test_relative_intervals_are_ordered(text: str) -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 6, 3, 14, 13, 30, tzinfo=UTC)
    found = resolve_relative(text, now, TZ)
    if found is not None:
        assert found.start <= found.end


_PLAIN_PIECES = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_characters="<&", blacklist_categories=("Cs",)), max_size=12),
        st.sampled_from(
            ["<br />", "<br>", "<BR/>", "\r\n", "\n", "  ", "本帖最后由 饺子 于 2026-6-3 12:00 编辑"]
        ),
    ),
    max_size=8,
)


@FAST
@given(_PLAIN_PIECES)
def test_plain_messages_read_as_the_tree_reads_them(pieces: list[str]) -> None:
    """A text-and-<br /> message skips the tree; the text, edit marker and state must not change."""
    markup = "".join(pieces)
    fast = read_fragment(markup, TZ)
    slow = read_body(html_fragment(markup), TZ, keep_html=False) if markup.strip() else fast
    assert (fast.text, fast.edit, fast.state, fast.quotes) == (slow.text, slow.edit, slow.state, slow.quotes)


_URL_PARTS = st.text(alphabet="ab=&?#%+;:/[]\t9 ", max_size=30)


@FAST
@given(_URL_PARTS)
def test_query_reads_as_parse_qsl_does(tail: str) -> None:
    """The hand-split fast path of ``query`` answers what ``parse_qsl`` answers."""
    url = "http://bbs.example.com/forum.php?" + tail
    try:
        expected = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
    except ValueError:
        expected = {}
    assert query(url) == expected
