"""Real pages cut short or corrupted still give records or a BoardError, never another exception.

A page truncated inside the post list is a TruncatedPage, not a shorter page (issue 8: a full poll would
take the posts after the cut for deleted); the next poll reads it again, so no vote is lost.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.errors import BoardError, TruncatedPage
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
def test_a_page_cut_in_the_middle_is_an_error_not_a_shorter_page(capture: Capture) -> None:
    """Issue 8: the posts after the cut would otherwise be taken for deleted by a full poll."""
    body = capture.body
    cut = body[: body.index(b'id="post_', len(body) // 2) + 200]
    with pytest.raises(TruncatedPage, match="no closing </html>"):
        parse_thread_page(cut, capture.url, date_header=capture.date, content_type=capture.content_type)
    whole = parse_thread_page(body, capture.url, date_header=capture.date, content_type=capture.content_type)
    truth = truth_posts(capture.board)
    assert len(whole.posts) == 10
    assert all(post.author == truth[post.pid]["author"] for post in whole.posts)
