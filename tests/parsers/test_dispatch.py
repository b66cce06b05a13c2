"""Which parser reads a page: the content decides, the URL only hints."""

from __future__ import annotations

from pathlib import Path

import pytest

from forumbot.parsers import page_kind, parse_forum_page, parse_thread_page
from forumbot.parsers.records import Source

PAGES = Path(__file__).parent / "pages"


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("http://b/forum.php?mod=viewthread&tid=3&page=2", Source.PC),
        ("http://b/thread-3-2-1.html", Source.PC),
        ("http://b/forum.php?mod=viewthread&tid=3&mobile=2", Source.TOUCH),
        ("http://b/forum.php?mod=viewthread&tid=3&mobile=yes", Source.TOUCH),
        ("http://b/forum.php?mod=viewthread&tid=3&mobile=no", Source.PC),
        ("http://b/api/mobile/index.php?version=4&module=viewthread&tid=3", Source.API),
        ("http://b/bbs/API/Mobile/index.php?version=1&module=viewthread&tid=3", Source.API),
    ],
)
def test_page_kind(url: str, kind: Source) -> None:
    assert page_kind(url) is kind


def test_a_touch_url_redirected_to_the_pc_page_is_read_as_pc() -> None:
    body = (PAGES / "pc_states.html").read_bytes()
    page = parse_thread_page(body, "http://bbs.example.com/forum.php?mod=viewthread&tid=120&page=2&mobile=2")
    assert page.source is Source.PC


def test_a_pc_url_answered_with_a_touch_page_is_read_as_touch() -> None:
    body = (PAGES / "touch_relative.html").read_bytes()
    page = parse_thread_page(
        body,
        "http://bbs.example.com/forum.php?mod=viewthread&tid=121",
        date_header="Wed, 03 Jun 2026 14:13:30 GMT",
    )
    assert page.source is Source.TOUCH and len(page.posts) == 12


def test_api_json_is_recognised_whatever_the_url() -> None:
    body = (PAGES / "api_v4_states.json").read_bytes()
    page = parse_thread_page(body, "http://bbs.example.com/some/proxy?tid=130")
    assert page.source is Source.API and page.thread.tid == 130


def test_ajax_viewpid_fragment() -> None:
    inner = (PAGES / "pc_states.html").read_text(encoding="utf-8")
    start = inner.index('<table id="pid302"')
    end = inner.index('</table>\n</div><div id="post_303"') + len("</table>")
    body = (
        '<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[' + inner[start:end] + "]]></root>"
    ).encode()
    url = "http://bbs.example.com/forum.php?mod=viewthread&tid=120&viewpid=302&inajax=1"
    page = parse_thread_page(body, url)
    (post,) = page.posts
    assert (post.pid, post.author, post.quoted_pids) == (302, "阿强", (301,))
    assert post.floor is None and not post.floor_exact  # the fragment numbers its one post itself


def test_forum_pages_dispatch() -> None:
    for name, source in (
        ("pc_forum.html", Source.PC),
        ("touch_forum.html", Source.TOUCH),
        ("api_v4_forum.json", Source.API),
    ):
        page = parse_forum_page(
            (PAGES / name).read_bytes(), "http://bbs.example.com/forum.php?mod=forumdisplay&fid=8"
        )
        assert page.source is source and page.fid == 8 and page.threads


def test_api_answer_after_a_bom_or_php_warnings() -> None:
    body = (PAGES / "api_v4_states.json").read_bytes()
    url = "http://bbs.example.com/api/mobile/index.php?version=4&module=viewthread&tid=130"
    assert parse_thread_page(b"\xef\xbb\xbf" + body, url).problems == ()
    warning = (
        b'<br />\n<b>Warning</b>:  Undefined array key "x" in <b>mobile.php</b> on line <b>7</b><br />\n'
    )
    page = parse_thread_page(warning + body, url)
    assert len(page.posts) == 6
    assert page.problems == (f"page: {len(warning)} bytes of PHP output before the JSON ignored",)
