"""A touch page is read up to its last pager, and that reads exactly what the whole page gives.

``reading_end`` stops the parse after the last ``<div class="pg">…</div>`` when nothing read (a post,
the title, the reply count) starts after it; ``ends_at_pager`` then checks in the tree that the part
ended at a pager outside every post, else the page is parsed whole. These tests hold the thread page
read through ``parse_thread_page`` to the same page read whole by the touch reader, on the saved
pages and on generated ones whose posts carry pager markup of their own (a board with HTML on).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import example, given, settings
from hypothesis import strategies as st

from forumbot.parsers import page_to_json, parse_thread_page
from forumbot.parsers.encoding import parse_page_body
from forumbot.parsers.touch import ends_at_pager, parse_touch_thread, reading_end, scan_touch_page

TZ = ZoneInfo("Asia/Shanghai")
PAGES = Path(__file__).parent / "pages"
URL = "http://bbs.example.com/forum.php?mod=viewthread&tid=7&page=2&mobile=2"
DATE = "Wed, 03 Jun 2026 14:13:30 GMT"
PAGER = (
    '<div class="pg"><a href="forum.php?mod=viewthread&amp;tid=7&amp;page=1&amp;mobile=2">1</a>'
    '<strong>2</strong><a href="forum.php?mod=viewthread&amp;tid=7&amp;page=3&amp;mobile=2">3</a>'
    '<span title="共 3 页"> / 3 页</span></div>'
)
FOOTER = (
    '<div class="foot foot_reply flex-box cl"><a href="forum.php?mod=post&amp;action=reply&amp;tid=7">'
    '回复</a></div><script type="text/javascript">var x = 1;</script><div id="mask"></div>'
)


def _whole(body: bytes, url: str) -> dict[str, Any]:
    """The page read by the touch reader from the whole tree (no part left out)."""
    root = parse_page_body(body, ids=False).root
    page = parse_touch_thread(root, scan_touch_page(root), body, url, charset="utf-8", now=None, tz=TZ)
    return page_to_json(page)


def _read(body: bytes, url: str) -> dict[str, Any]:
    return page_to_json(parse_thread_page(body, url, tz=TZ))


def _post(pid: int, floor: str, body: str) -> str:
    return (
        f'<div class="plc cl" id="pid{pid}"><div class="avatar"><img src="a.png"></div>'
        '<div class="display pi"><ul class="authi"><li class="mtit">'
        f'<span class="y">{floor}</span><span class="z"><a href="home.php?mod=space&amp;uid={pid}">'
        f'p{pid}</a></span></li><li class="mtime">2026-6-3 12:{pid % 60:02d}</li></ul>'
        f'<div class="message">{body}</div><div class="threadlist_foot cl"><ul></ul></div></div></div>'
    )


def _page(posts: list[str], after: str = "", pager: str = PAGER) -> bytes:
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>t - 版杀区 - 手机版</title></head>'
        '<body id="forum" class="pg_viewthread"><div class="header cl"><h2>'
        '<a href="forum.php?mod=forumdisplay&fid=3&mobile=2">版杀区</a></h2></div>'
        '<div class="viewthread"><div class="view_tit">【美食杀】第一日</div>'
        + "".join(posts)
        + "</div>"
        + pager
        + after
        + FOOTER
        + "</body></html>"
    ).encode()


def test_the_part_after_the_last_pager_is_left_out() -> None:
    body = _page([_post(11, "5#", "投票：小明"), _post(12, "6#", "同上")])
    end = reading_end(body)
    assert body[:end].endswith(PAGER.encode())
    tree = parse_page_body(body, ids=False, end=reading_end)
    assert tree.tail_left_out and ends_at_pager(tree.root)
    assert _read(body, URL) == _whole(body, URL)
    assert _read(body, URL)["thread"]["pages"] == 3


def test_a_page_without_a_pager_is_read_whole() -> None:
    body = _page([_post(11, "5#", "x")], pager="")
    assert reading_end(body) == len(body)
    assert _read(body, URL) == _whole(body, URL)


def test_a_post_after_the_pager_keeps_the_page_whole() -> None:
    body = _page([_post(11, "5#", "x")], after=_post(12, "6#", "after the pager"))
    assert reading_end(body) == len(body)
    read = _read(body, URL)
    assert [post["pid"] for post in read["posts"]] == [11, 12]
    assert read == _whole(body, URL)


def test_a_pager_holding_a_div_keeps_the_page_whole() -> None:
    pager = '<div class="pg"><div class="inner"><a href="x?page=3">3</a></div><a href="x?page=4">4</a></div>'
    body = _page([_post(11, "5#", "x")], pager=pager)
    assert reading_end(body) == len(body)
    assert _read(body, URL) == _whole(body, URL)


def test_pager_markup_inside_the_last_body_is_no_place_to_stop() -> None:
    # A board with HTML on: the last post's body carries a pager of its own and text after it.
    fake = '投票：小明<div class="pg"><a href="x">9</a></div>理由：<b>划水</b>'
    body = _page([_post(11, "5#", "x"), _post(12, "6#", fake)], pager="")
    tree = parse_page_body(body, ids=False, end=reading_end)
    assert tree.tail_left_out and not ends_at_pager(tree.root)
    read = _read(body, URL)
    assert "理由：划水" in read["posts"][-1]["text"]
    assert read == _whole(body, URL)


_BODIES = st.sampled_from(
    [
        "投票：小明",
        "a<br>b",
        '<div class="pg">1</div>',
        '<div class="pg"><a href="x?page=2">2</a></div>tail',
        '<div class="quote"><blockquote>q<div class="pg">3</div></blockquote></div>r',
        '<b>x</b><div class="pg"></div>',
        "<!-- c -->z",
    ]
)
_AFTER = st.sampled_from(
    ["", '<div class="pg"><a href="x?page=5">5</a></div>', '<div class="txtlist cl">x</div>', "<p>p</p>"]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_BODIES, min_size=1, max_size=4), st.booleans(), _AFTER)
@example(['<div class="pg">1</div>'], False, "")
def test_any_page_reads_as_the_whole_page(bodies: list[str], pager: bool, after: str) -> None:
    posts = [_post(20 + i, f"{i + 2}#", text) for i, text in enumerate(bodies)]
    body = _page(posts, after=after, pager=PAGER if pager else "")
    assert _read(body, URL) == _whole(body, URL)
