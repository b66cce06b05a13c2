"""Real pages cut short or corrupted still give records or a BoardError, never another exception.

A page truncated inside the post list is read leniently: the posts before the cut come back with the
right pids and authors (a connection dropped mid-page must not lose the votes already received).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.errors import BoardError
from forumbot.parsers import parse_forum_page, parse_thread_page
from tests.conformance.captures import Capture, all_captures, require_fixtures, truth_posts

require_fixtures()

pytestmark = pytest.mark.conformance

CAPTURES = all_captures()
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.sampled_from(CAPTURES), st.floats(0, 1), st.binary(max_size=16))
def test_truncated_and_corrupted_captures(capture: Capture, fraction: float, junk: bytes) -> None:
    body = capture.body
    cut = body[: int(len(body) * fraction)] + junk
    for parse in (parse_thread_page, parse_forum_page):
        try:
            parse(cut, capture.url, date_header=capture.date, content_type=capture.content_type)
        except BoardError as exc:
            assert "internal parser error" not in exc.detail, exc.detail


@pytest.mark.parametrize(
    "capture", [c for c in CAPTURES if c.path.name == "pc_page2.guest.html"], ids=lambda c: c.name
)
def test_a_page_cut_in_the_middle_keeps_the_posts_before_the_cut(capture: Capture) -> None:
    body = capture.body
    cut = body[: body.index(b'id="post_', len(body) // 2) + 200]
    page = parse_thread_page(cut, capture.url, date_header=capture.date, content_type=capture.content_type)
    truth = truth_posts(capture.board)
    assert len(page.posts) >= 4
    for post in page.posts[:-1]:
        assert post.author == truth[post.pid]["author"]
    assert page.thread.tid and page.thread.title
