"""The captured thread lists (PC, touch, API v4; both boards; dateconvert off) give the right threads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from forumbot.parsers import parse_forum_page
from forumbot.parsers.records import Source
from tests.conformance.captures import Capture, all_captures, require_fixtures, truth_posts, truth_threads

require_fixtures()

pytestmark = pytest.mark.conformance

CAPTURES = [
    c
    for c in all_captures()
    if "forumdisplay" in c.path.name
    and c.status == 200
    and c.view in ("pc", "touch", "api_v4")
    and "/errors/" not in c.name
]


def test_every_view_is_covered() -> None:
    assert {(c.board, c.view) for c in CAPTURES} >= {
        (board, view) for board in ("discuz-x35-utf8", "discuz-x35-gbk") for view in ("pc", "touch", "api_v4")
    }


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda c: c.name)
def test_thread_list_agrees_with_the_database(capture: Capture) -> None:
    page = parse_forum_page(
        capture.body, capture.url, date_header=capture.date, content_type=capture.content_type
    )
    threads = truth_threads(capture.board)
    posts = truth_posts(capture.board)
    assert page.fid == 3
    assert page.name == "版杀区"
    assert (page.page, page.pages) == (1, 1)
    assert page.source is {"pc": Source.PC, "touch": Source.TOUCH, "api_v4": Source.API}[capture.view]
    expected = {t["tid"] for t in threads.values() if t["fid"] == 3}
    assert {t.tid for t in page.threads} == expected
    for row in page.threads:
        thread = threads[row.tid]
        assert row.subject == thread["subject"]
        assert row.replies == thread["replies"]
        assert row.author == thread["author"]
        if capture.view == "touch":
            assert row.last_post_at is None  # the touch list shows no last-post time
            continue
        last = max((p for p in posts.values() if p["tid"] == row.tid), key=lambda p: p["pid"])
        assert row.last_poster == last["author"]
        last_at = datetime.fromtimestamp(last["dateline"], UTC)
        assert row.last_post_at is not None
        if capture.view == "api_v4":
            assert row.last_post_at == last_at
        else:  # minute precision: the start of the minute shown
            assert row.last_post_at <= last_at < row.last_post_at + timedelta(minutes=1)
    if capture.view != "touch":
        assert page.formhash and len(page.formhash) == 8
