"""Every captured error page becomes the right BoardError, carrying the URL and the board's words."""

from __future__ import annotations

import pytest

from forumbot.errors import (
    BoardError,
    BoardSystemError,
    ForumNotFound,
    LoginRequired,
    NoPermission,
    ThreadNotFound,
    UnparseablePage,
)
from forumbot.parsers import parse_forum_page, parse_thread_page
from tests.conformance.captures import Capture, all_captures, require_fixtures

require_fixtures()

pytestmark = pytest.mark.conformance


def _expected(c: Capture) -> type[BoardError] | None:
    """What each capture in errors/ (and the v1-v3 API 503s) should raise; None: a readable page."""
    name = c.path.name
    if c.status == 503:
        return BoardSystemError
    if c.path.parent.name != "errors":
        return None
    if name.endswith(".user.html") and ("readperm" in name or "membersonly_forum_tid" in name):
        return None  # the logged-in member may read these: real thread pages (tested with the threads)
    if "nonexistent_tid" in name:
        return ThreadNotFound
    if "nonexistent_fid" in name:
        return ForumNotFound
    if "membersonly" in name:
        return LoginRequired  # 您尚未登录 / the touch login page / viewperm_login_nopermission
    if "readperm" in name:
        # PC, printable, archiver and the API say 阅读权限; touch guests are sent to the login page
        return LoginRequired if name.startswith("touch") else NoPermission
    raise AssertionError(f"no expectation for {c.name}")


CASES = [(c, _expected(c)) for c in all_captures() if _expected(c) is not None]


def _is_forum(c: Capture) -> bool:
    return "fid" in c.path.name or "forumdisplay" in c.path.name


@pytest.mark.parametrize(("capture", "expected"), CASES, ids=[c.name for c, _ in CASES])
def test_error_pages_raise_the_right_error(capture: Capture, expected: type[BoardError]) -> None:
    parse = parse_forum_page if _is_forum(capture) else parse_thread_page
    with pytest.raises(BoardError) as caught:
        parse(
            capture.body,
            capture.url,
            date_header=capture.date,
            content_type=capture.content_type,
            status=capture.status,
        )
    error = caught.value
    assert type(error) is expected, f"{capture.name}: {error!r}"
    assert error.url == capture.url
    assert error.board_message, "the board's own words are kept"
    assert "internal parser error" not in error.detail


def test_every_error_capture_is_covered() -> None:
    names = {c.name for c, _ in CASES}
    assert sum("/errors/" in n for n in names) == 2 * 20  # 22 captures a board, 2 readable
    assert sum(c.status == 503 for c, _ in CASES) == 2 * 12  # API v3 viewthread, v1-v3 forumdisplay


@pytest.mark.parametrize(
    "capture",
    [c for c in all_captures() if c.view in ("printable", "archiver") and "/errors/" not in c.name],
    ids=lambda c: c.name,
)
def test_printable_and_archiver_views_are_refused_clearly(capture: Capture) -> None:
    with pytest.raises(UnparseablePage) as caught:
        parse_thread_page(
            capture.body, capture.url, date_header=capture.date, content_type=capture.content_type
        )
    assert "no pids" in caught.value.detail
