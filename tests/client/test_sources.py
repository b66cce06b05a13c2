"""Choosing the view per board, and falling back from the API to PC pages for the session."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import responses

from forumbot import urls
from forumbot.board import SourceKind
from forumbot.client import BoardClient
from forumbot.errors import ThreadNotFound
from forumbot.exampleboard.server import LiveBoard
from forumbot.parsers.records import Source
from forumbot.urls import Url
from tests.boards import ROOT, small_board
from tests.conftest import FakeClock


@pytest.fixture
def board(rsps: responses.RequestsMock) -> LiveBoard:
    b = small_board()
    b.add_thread(7, 12)
    b.mock(rsps, writes=False)
    return b


def test_pc_source(board: LiveBoard, make_client: Callable[..., BoardClient]) -> None:
    client = make_client(source=SourceKind.PC)
    page = client.fetch_thread_page(7, 2)
    assert page.source is Source.PC
    assert (page.thread.page, page.thread.pages) == (2, 2)
    assert [p.pid for p in page.posts] == [11, 12]
    assert board.requests == [ROOT + "forum.php?mod=viewthread&tid=7&page=2"]


def test_api_source_asks_for_its_ppp(board: LiveBoard, make_client: Callable[..., BoardClient]) -> None:
    client = make_client(source=SourceKind.API, api_ppp=50)
    page = client.fetch_thread_page(7, 1)
    assert page.source is Source.API
    assert len(page.posts) == 12
    assert board.requests == [ROOT + "api/mobile/index.php?version=4&module=viewthread&tid=7&page=1&ppp=50"]
    forum = client.fetch_forum_page(3)
    assert [t.tid for t in forum.threads] == [7]
    assert client.current_source() == "api"


def test_closed_api_falls_back_to_pc_for_the_session(
    board: LiveBoard, make_client: Callable[..., BoardClient]
) -> None:
    board.options.mobile_api = "closed"
    client = make_client(source=SourceKind.API)
    page = client.fetch_thread_page(7, 1)
    assert page.source is Source.PC
    assert client.api_disabled is not None and "mobile_is_closed" in str(client.api_disabled)
    client.fetch_thread_page(7, 2)
    client.fetch_forum_page(3)
    assert board.count("api/mobile") == 1  # asked once, then remembered
    assert client.current_source() == "pc"


def test_api_system_errors_fall_back_after_the_retries(
    board: LiveBoard, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    board.options.mobile_api = "error503"
    client = make_client(source=SourceKind.API, retries=2, min_interval=0.0)
    page = client.fetch_thread_page(7, 1)
    assert page.source is Source.PC
    assert board.count("api/mobile") == 3
    assert clock.sleeps == [2.0, 4.0]


def test_an_api_redirect_is_not_followed_but_retried(
    board: LiveBoard, make_client: Callable[..., BoardClient]
) -> None:
    board.options.mobile_api = "redirect"
    client = make_client(source=SourceKind.API, retries=1, min_interval=0.0)
    page = client.fetch_thread_page(7, 1)
    assert page.source is Source.PC
    assert board.count("api/mobile") == 2
    assert board.count("tid=1") == 0  # the Location was never fetched


def test_an_api_redirect_then_an_answer(board: LiveBoard, make_client: Callable[..., BoardClient]) -> None:
    h = board.headers()
    h["Location"] = ROOT + "forum.php?mod=viewthread&tid=1"
    board.fail_next = [lambda: (302, h, b"")]
    client = make_client(source=SourceKind.API, min_interval=0.0)
    page = client.fetch_thread_page(7, 1)
    assert page.source is Source.API
    assert board.count("api/mobile") == 2


def test_thread_not_found_does_not_disable_the_api(
    board: LiveBoard, make_client: Callable[..., BoardClient]
) -> None:
    client = make_client(source=SourceKind.API)
    with pytest.raises(ThreadNotFound):
        client.fetch_thread_page(404, 1)
    assert client.api_disabled is None


def test_page_beyond_the_last_is_the_last(board: LiveBoard, make_client: Callable[..., BoardClient]) -> None:
    page = make_client().fetch_thread_page(7, 9)
    assert (page.thread.page, page.thread.pages) == (2, 2)


def test_url_table() -> None:
    root = "https://bbs.example.com/sub/"
    assert urls.build(root, Url.VIEWTHREAD, tid=3, page=2) == root + "forum.php?mod=viewthread&tid=3&page=2"
    assert urls.build(root, Url.VIEWTHREAD_REWRITTEN, tid=3, page=2) == root + "thread-3-2-1.html"
    assert urls.build(root, Url.VIEWTHREAD_TOUCH, tid=3, page=1).endswith("&mobile=2")
    assert urls.build(root, Url.API_VIEWTHREAD, tid=3, page=1, ppp=50) == (
        root + "api/mobile/index.php?version=4&module=viewthread&tid=3&page=1&ppp=50"
    )
    assert urls.build(root, Url.API_FORUMDISPLAY, fid=3, page=1).endswith("module=forumdisplay&fid=3&page=1")
    assert urls.build(root, Url.API_LOGIN).endswith("module=login&loginsubmit=yes&loginfield=username")
    assert urls.build(root, Url.API_CHECK) == root + "api/mobile/index.php?check"
    assert urls.build(root, Url.FINDPOST, tid=3, pid=59) == (
        root + "forum.php?mod=redirect&goto=findpost&ptid=3&pid=59"
    )
    assert urls.build(root, Url.LOGIN_SUBMIT) == root + "member.php?mod=logging&action=login&loginsubmit=yes"
    assert (
        urls.build(root, Url.FORUMDISPLAY, fid=3, page=1) == root + "forum.php?mod=forumdisplay&fid=3&page=1"
    )
    assert urls.build("https://bbs.example.com", Url.LOGIN_PAGE) == (
        "https://bbs.example.com/member.php?mod=logging&action=login"
    )
    assert urls.is_api(root + "api/mobile/index.php?version=1&module=viewthread")
    assert not urls.is_api(root + "forum.php?mod=viewthread&tid=3")
    assert urls.is_login_page(root + "member.php?mod=logging&action=login&mobile=2")
    assert not urls.is_login_page(root + "member.php?mod=register")
    assert urls.query_param(root + "forum.php?mod=viewthread&tid=3&page=2#pid5", "page") == "2"
