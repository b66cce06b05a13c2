"""Every captured viewthread page, in every view, agrees with the board's database (truth.json).

Views: PC (guest and logged in, rewritten-redirect, page beyond the last, newest-first, only-this-author,
dateconvert off), touch (iPhone and python-requests UAs, only-this-author), mobile API v4/v1/v2
(also ppp=100 and only-this-author), the ajax ``viewpid`` fragment; both boards (UTF-8 and GBK).
Printable and archiver views are skipped: they carry no pids.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from forumbot.parsers import parse_thread_page
from forumbot.parsers.records import PostState, ThreadPage, TimeSource
from tests.conformance.captures import (
    Capture,
    all_captures,
    editor,
    expected_text,
    quoted_pids,
    quoted_texts,
    require_fixtures,
    truth_posts,
    truth_threads,
)

require_fixtures()

pytestmark = pytest.mark.conformance

_THREAD_DIRS = ("thread", "alt_dateconvert_off", "misc")
_THREAD_ERRORS_READABLE = (
    "pc_readperm10_tid3.user",
    "pc_readperm10_tid4.user",
    "pc_membersonly_forum_tid4.user",
    "pc_membersonly_forum_tid5.user",
)


def _is_thread_capture(c: Capture) -> bool:
    rel = c.path.relative_to(c.path.parents[1])
    top = rel.parts[0]
    if c.view in ("printable", "archiver", "api_v3"):
        return False
    if "forumdisplay" in c.path.name:
        return False
    if top.startswith(_THREAD_DIRS):
        return True
    return top == "errors" and c.path.name.rsplit(".", 1)[0] in _THREAD_ERRORS_READABLE


CAPTURES = [c for c in all_captures() if _is_thread_capture(c)]


def _parse(c: Capture) -> ThreadPage:
    return parse_thread_page(c.body, c.url, date_header=c.date, content_type=c.content_type, status=c.status)


def test_the_suite_sees_every_view() -> None:
    views = {(c.board, c.view) for c in CAPTURES}
    for board in ("discuz-x35-utf8", "discuz-x35-gbk"):
        for view in ("pc", "touch", "api_v4", "api_v1", "api_v2", "ajax"):
            assert (board, view) in views
    assert len(CAPTURES) >= 190


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda c: c.name)
def test_posts_agree_with_the_database(capture: Capture) -> None:
    page = _parse(capture)
    assert page.problems == ()
    assert page.posts, "no posts read"
    truth = truth_posts(capture.board)
    threads = truth_threads(capture.board)
    info = page.thread
    thread = threads[info.tid]
    if capture.view != "ajax":  # the viewpid fragment is one post without the page around it
        assert info.title == thread["subject"]
        assert info.fid == thread["fid"]
    by_author = "authorid=" in capture.url
    pids = [p.pid for p in page.posts]
    assert len(pids) == len(set(pids))
    now = datetime.strptime(capture.date or "", "%a, %d %b %Y %H:%M:%S GMT").replace(tzinfo=UTC)

    for post in page.posts:
        row = truth[post.pid]
        where = f"{capture.name} pid {post.pid}"
        assert post.tid == row["tid"], where
        assert post.author == row["author"], where
        assert post.uid == row["authorid"], where
        assert post.first == bool(row["first"]), where
        assert post.state is PostState.NORMAL, where

        # floors: real wherever the view shows them; None (not a renumbered guess) in author views and
        # in the ajax viewpid fragment (it shows pid 52, floor 8, as 10#)
        if (by_author and capture.view != "api_v4") or capture.view == "ajax":
            assert post.floor is None and not post.floor_exact, where
        else:
            assert post.floor == row["position"] and post.floor_exact, where

        # time: inside the interval, exact where the view shows seconds
        posted = datetime.fromtimestamp(row["dateline"], UTC)
        assert post.posted_at <= posted <= post.posted_until, where
        width = post.posted_until - post.posted_at
        if post.time_source in (TimeSource.API, TimeSource.TITLE):
            assert post.time_exact, where
        elif post.time_source is TimeSource.TEXT:
            assert width <= timedelta(seconds=59), where
        else:
            assert post.time_source is TimeSource.RELATIVE, where
            assert capture.view == "touch", where
            assert width < timedelta(days=1) and post.posted_until <= now, where

        assert post.text == expected_text(row["message"]), where
        assert post.quoted_pids == quoted_pids(row["message"]), where
        assert tuple(q.text for q in post.quotes) == quoted_texts(row["message"]), where
        for quote in post.quotes:
            assert quote.pid is not None and quote.author == truth[quote.pid]["author"], where
        edited_by = editor(row["message"])
        if capture.view == "api_v4":
            assert post.edit is None, where  # v4 strips the marker
        elif edited_by is None:
            assert post.edit is None, where
        else:
            assert post.edit is not None and post.edit.by == edited_by, where
            assert post.edit.at is not None and post.edit.at >= post.posted_at, where


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda c: c.name)
def test_thread_info(capture: Capture) -> None:
    page = _parse(capture)
    info = page.thread
    thread = truth_threads(capture.board)[info.tid]
    assert info.charset == (
        "utf-8" if capture.board.endswith("utf8") or capture.view == "touch" else "gb18030"
    )
    if capture.view == "ajax":
        return  # a single post: no pager, no header
    by_author = "authorid=" in capture.url
    assert page.author_filter == (
        int(capture.url.rsplit("authorid=", 1)[1].split("&")[0]) if by_author else None
    )
    if by_author:
        assert info.pages == 1
    elif capture.view.startswith("api"):
        ppp = 100 if "ppp=100" in capture.url else 10
        assert info.pages == math.ceil(thread["maxposition"] / ppp)
    elif "ordertype=1" in capture.url:
        # newest first: the opening post heads every page, so the replies alone fill the pages
        assert info.pages == math.ceil(thread["replies"] / 10)
    else:
        assert info.pages == math.ceil(thread["maxposition"] / 10)
    assert 1 <= info.page <= info.pages
    if "page_beyond_last" in capture.name:
        assert info.page == info.pages
    assert info.viewer_uid == (2 if ".user." in capture.name or ".muser." in capture.name else 0)
    if capture.view.startswith("api") or capture.view == "pc":
        assert info.formhash and len(info.formhash) == 8
    for post in page.posts:
        assert post.pid in truth_posts(capture.board)
