"""The client's manners: UA, timeout, minimum interval, retries with backoff, what is and is not retried."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import requests
import responses

from forumbot.client import MAX_REDIRECTS, BoardClient, header_safe, mobile_user_agent
from forumbot.errors import BoardSystemError, CCDefence, NetworkError, RedirectLoop, ThreadNotFound
from forumbot.exampleboard.render import CC_PAGE, SYSTEM_ERROR
from forumbot.exampleboard.server import LiveBoard
from tests.boards import ROOT
from tests.conftest import TEST_UA, FakeClock

PC1 = ROOT + "forum.php?mod=viewthread&tid=7&page=1"


def test_user_agent_timeout_and_accept_language(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    rsps.get(PC1, body=b"ok")
    client = make_client(timeout=7.5)
    page = client.get(PC1)
    assert page.status == 200 and page.body == b"ok"
    req = rsps.calls[0].request
    assert req.headers["User-Agent"] == TEST_UA
    assert "zh-CN" in req.headers["Accept-Language"]
    assert req.req_kwargs["timeout"] == 7.5  # type: ignore[attr-defined]


def test_minimum_interval_between_requests(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    rsps.get(PC1, body=b"ok")
    client = make_client(min_interval=2.0)
    client.get(PC1)
    assert clock.sleeps == []  # the first request waits for nothing
    client.get(PC1)
    assert clock.sleeps == [2.0]
    clock.advance(0.5)
    client.get(PC1)
    assert clock.sleeps == [2.0, 1.5]
    clock.advance(10)
    client.get(PC1)
    assert clock.sleeps == [2.0, 1.5]  # long enough already
    assert client.requests_made == 4


def test_5xx_retried_with_exponential_backoff(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    rsps.get(PC1, status=503, body=SYSTEM_ERROR)
    rsps.get(PC1, status=502, body=b"bad gateway")
    rsps.get(PC1, body=b"finally")
    client = make_client(min_interval=0.0)
    page = client.get(PC1)
    assert page.body == b"finally"
    assert len(rsps.calls) == 3
    assert clock.sleeps == [2.0, 4.0]
    assert [f.ok for f in client.fetches] == [False, False, True]
    assert [f.status for f in client.fetches] == [503, 502, 200]


def test_5xx_after_the_retries_is_a_board_system_error(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    rsps.get(PC1, status=503, body=SYSTEM_ERROR)
    client = make_client(min_interval=2.0, retries=3)
    with pytest.raises(BoardSystemError) as info:
        client.get(PC1)
    assert len(rsps.calls) == 4
    assert clock.sleeps == [2.0, 4.0, 8.0]  # the backoff also covers the minimum interval
    assert info.value.url == PC1
    assert "Discuz! System Error" in info.value.board_message
    assert "503" in str(info.value)


def test_retry_after_is_honoured(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    rsps.get(PC1, status=503, body=b"busy", headers={"Retry-After": "30"})
    rsps.get(PC1, body=b"ok")
    client = make_client(min_interval=0.0)
    client.get(PC1)
    assert clock.sleeps == [30.0]


def test_connection_errors_are_retried_then_reported(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    rsps.get(PC1, body=requests.ConnectionError("connection refused"))
    client = make_client(min_interval=0.0, retries=2)
    with pytest.raises(NetworkError) as info:
        client.get(PC1)
    assert len(rsps.calls) == 3
    assert clock.sleeps == [2.0, 4.0]
    assert "连接被拒绝" in str(info.value) and "已尝试 3 次" in str(info.value)  # no urllib3 text
    assert all(f.status is None and not f.ok for f in client.fetches)


def test_a_timeout_is_retried(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    rsps.get(PC1, body=requests.ReadTimeout("read timed out"))
    rsps.get(PC1, body=b"ok")
    client = make_client(min_interval=0.0)
    assert client.get(PC1).body == b"ok"
    assert clock.sleeps == [2.0]


def test_4xx_is_an_answer_not_a_fault(
    rsps: responses.RequestsMock,
    make_client: Callable[..., BoardClient],
    clock: FakeClock,
    fake_board: LiveBoard,
) -> None:
    fake_board.mock(rsps, writes=False)
    client = make_client(min_interval=0.0)
    with pytest.raises(ThreadNotFound) as info:
        client.fetch_thread_page(999, 1)
    assert len(rsps.calls) == 1  # not retried
    assert clock.sleeps == []
    assert "主题不存在" in str(info.value)


def test_cc_defence_slows_the_session_down(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    rsps.get(PC1, body=CC_PAGE.encode(), content_type="text/html; charset=utf-8")
    client = make_client(min_interval=2.0)
    with pytest.raises(CCDefence):
        client.fetch_thread_page(7, 1)
    assert len(rsps.calls) == 1
    assert client.min_interval >= 10.0
    with pytest.raises(CCDefence):
        client.fetch_thread_page(7, 1)
    assert clock.sleeps == [10.0]  # the next request waits the longer interval


def test_touch_pages_are_asked_with_a_mobile_user_agent(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    url = ROOT + "forum.php?mod=viewthread&tid=7&page=1&mobile=2"
    rsps.get(url, body=b"touch")
    client = make_client()
    client.get(url)
    ua = rsps.calls[0].request.headers["User-Agent"]
    assert "iPhone" in ua and "Mobile" in ua
    assert "forum-judge-test/0.1 (+judge@example.com)" in ua  # still says who asks
    assert not any(w in ua.lower() for w in ("bot", "spider", "crawl", "slurp"))


def test_header_safe_and_mobile_ua() -> None:
    assert header_safe("plain ua/1.0") == "plain ua/1.0"
    assert header_safe("x/0.1 (版杀 judge's assistant)") == "x/0.1 (judge's assistant)"
    assert header_safe("x/0.1 (版杀 裁判; ask us)") == "x/0.1 (ask us)"
    assert header_safe("x/0.1 (版杀)") == "x/0.1"
    android = "Mozilla/5.0 (Linux; Android 14) Mobile Safari/537.36"
    assert mobile_user_agent(android) == android


def test_non_latin1_user_agent_is_sent(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    rsps.get(PC1, body=b"ok")
    client = make_client(
        user_agent="Mozilla/5.0 Chrome/126.0 Safari/537.36 forum-judge/0.1 (版杀 裁判助手; ask us)"
    )
    client.get(PC1)
    ua = rsps.calls[0].request.headers["User-Agent"]
    assert ua.endswith("forum-judge/0.1 (ask us)")


def test_fetch_records_carry_time_status_and_size(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    rsps.get(PC1, body=b"12345")
    client = make_client()
    client.get(PC1)
    [rec] = client.drain_fetches()
    assert (rec.method, rec.url, rec.status, rec.ok, rec.size) == ("GET", PC1, 200, True, 5)
    assert rec.at == clock.now()
    assert client.drain_fetches() == []


def test_find_post_page_reads_the_redirect(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    url = ROOT + "forum.php?mod=redirect&goto=findpost&ptid=3&pid=59"
    rsps.get(url, status=301, headers={"Location": "forum.php?mod=viewthread&tid=3&page=2#pid59"})
    client = make_client()
    assert client.find_post_page(3, 59) == 2
    assert len(rsps.calls) == 1  # the redirect itself is not followed


def test_check_api(rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]) -> None:
    from forumbot.errors import ApiClosed

    url = ROOT + "api/mobile/index.php?check"
    rsps.get(url, json={"discuzversion": "X3.5", "charset": "utf-8", "version": "4"})
    client: Any = make_client()
    assert client.check_api()["discuzversion"] == "X3.5"
    rsps.replace(responses.GET, url, json={"error": "mobile_is_closed"})
    with pytest.raises(ApiClosed):
        client.check_api()


# ---------------------------------------------------------------- redirects: every hop is a polite request

PC_REWRITE = ROOT + "thread-7-1-1.html"


def test_a_redirect_is_followed_by_the_client_waiting_its_turn_and_logged(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], clock: FakeClock
) -> None:
    rsps.get(PC1, status=302, headers={"Location": "thread-7-1-1.html"})
    rsps.get(PC_REWRITE, body=b"the page")
    client = make_client(min_interval=2.0)
    page = client.get(PC1)
    assert page.body == b"the page" and page.url == PC_REWRITE
    assert [c.request.url for c in rsps.calls] == [PC1, PC_REWRITE]
    assert clock.sleeps == [2.0]  # the hop waited the minimum interval like any request
    assert client.requests_made == 2
    log = client.drain_fetches()
    assert [(f.url, f.status, f.ok) for f in log] == [(PC1, 302, True), (PC_REWRITE, 200, True)]
    assert log[0].error == "redirect to thread-7-1-1.html"


@pytest.mark.usefixtures("english_messages")  # checked by the English wording (the msgid)
def test_a_redirect_loop_is_a_clear_error(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    rsps.get(PC1, status=302, headers={"Location": PC_REWRITE})
    rsps.get(PC_REWRITE, status=301, headers={"Location": PC1})
    client = make_client(min_interval=0.0)
    with pytest.raises(RedirectLoop, match="a redirect loop") as raised:
        client.get(PC1)
    assert f"{PC1} → {PC_REWRITE} → {PC1}" in str(raised.value)
    assert len(rsps.calls) == 2


@pytest.mark.usefixtures("english_messages")  # checked by the English wording (the msgid)
def test_redirects_stop_at_the_hop_limit(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    for n in range(20):
        rsps.get(f"{ROOT}hop{n}", status=302, headers={"Location": f"{ROOT}hop{n + 1}"})
    client = make_client(min_interval=0.0)
    with pytest.raises(RedirectLoop, match=f"more than {MAX_REDIRECTS} redirects"):
        client.get(f"{ROOT}hop0")
    assert len(rsps.calls) == MAX_REDIRECTS + 1


def test_a_form_answered_with_a_redirect_is_fetched_never_posted_again(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    form = ROOT + "member.php?mod=logging&action=login&loginsubmit=yes"
    rsps.post(form, status=302, headers={"Location": "forum.php"})
    rsps.get(ROOT + "forum.php", body=b"welcome")
    client = make_client(min_interval=0.0)
    resp = client._request("POST", form, data={"username": "u"}, retry=False)
    assert resp.content == b"welcome"
    assert [(c.request.method, c.request.body) for c in rsps.calls] == [("POST", "username=u"), ("GET", None)]


def test_a_307_to_a_post_is_not_followed(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    form = ROOT + "forum.php?mod=post&action=reply&replysubmit=yes"
    rsps.post(form, status=307, headers={"Location": ROOT + "elsewhere"})
    client = make_client(min_interval=0.0)
    assert client._request("POST", form, data={"message": "m"}, retry=False).status_code == 307
    assert len(rsps.calls) == 1
