"""What a judge reads when a login cannot happen: captchas, the API's charset, a board that is down.

Issue 22. A captcha (Discuz!'s ``login_seccheck2`` «请输入验证码后继续登录», asked AFTER the password was
found right, or a seccode on the login form) is no wrong password: Discuz! counts no failure, so none is
recorded and no ``login --retry`` is needed. The API login learns the board's charset (``?check``, 29)
before it encodes the username: a GBK board reads the bytes as GBK (80/81). A board that does not
answer is said in one Chinese sentence naming the URL and the short cause, never urllib3's text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl

import pytest
import requests
import responses
from hypothesis import given
from hypothesis import strategies as st

from forumbot.client import CAPTCHA_PAUSE, BoardClient, forget_login_failures, network_cause
from forumbot.errors import BoardSystemError, BoardUnavailable, CaptchaRequired, LoginFailed, NetworkError
from forumbot.exampleboard.render import login_page, message_page
from forumbot.i18n import current_language, set_language
from forumbot.outbox import ItemKind, Outbox, Reply
from forumbot.posting import BoardWriter, WriterSettings
from forumbot.store import Store
from forumbot.store.logins import StoreLoginGuard, login_failures, record_login_failure
from tests.boards import ROOT
from tests.conftest import FakeClock, make_board

LOGIN_FORM = ROOT + "member.php?mod=logging&action=login"
LOGIN_POST = ROOT + "member.php?mod=logging&action=login&loginsubmit=yes"
API_CHECK = ROOT + "api/mobile/index.php?check"
API_LOGIN = ROOT + "api/mobile/index.php?version=2&module=login&loginsubmit=yes&loginfield=username"
AUTH = ("Set-Cookie", "test_2132_auth=s3cr3t; path=/; HttpOnly")
# What requests says when nothing listens (urllib3's MaxRetryError, a repr inside a repr).
REFUSED = (
    "HTTPConnectionPool(host='bbs.example.com', port=80): Max retries exceeded with url: "
    "/member.php?mod=logging&action=login (Caused by NewConnectionError('<urllib3.connection."
    "HTTPConnection object at 0x7f3a2c1b5d50>: Failed to establish a new connection: [Errno 111] "
    "Connection refused'))"
)
URLLIB3_WORDS = ("HTTPConnectionPool", "urllib3", "Max retries", "Caused by", "0x7f", "Errno")


@pytest.fixture(autouse=True)
def judge_reads_chinese() -> Iterator[None]:
    before = current_language()
    set_language("zh_CN")
    yield
    set_language(before)


@pytest.fixture
def rsps() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as r:
        yield r


@pytest.fixture
def process(store: Store, clock: FakeClock) -> Callable[..., BoardClient]:
    """A client as a fresh `forumbot` process makes it: no in-process memory, the store's guard."""

    def make(**overrides: Any) -> BoardClient:
        forget_login_failures()
        cfg = make_board(**{"username": "法官大人", "password": "right", "min_interval": 0.0, **overrides})
        return BoardClient(
            cfg,
            session=requests.Session(),
            sleep=clock.sleep,
            clock=clock.monotonic,
            now=clock.now,
            login_guard=StoreLoginGuard(store, cfg),
        )

    return make


def api_json(payload: dict[str, Any], *cookies: tuple[str, str]) -> dict[str, Any]:
    return {"body": json.dumps(payload), "headers": [("Content-Type", "application/json"), *cookies]}


def api_answer(key: str) -> dict[str, Any]:
    """A login answer of API v2 (30/33): ``messagestr`` is only ``mobile:<key>``."""
    return {
        "Version": "2",
        "Variables": {"member_uid": "0", "formhash": "73a9250f"},
        "Message": {"messageval": key, "messagestr": f"mobile:{key}"},
    }


def html(text: str, *cookies: tuple[str, str], charset: str = "utf-8") -> dict[str, Any]:
    text = text.replace('<meta charset="utf-8" />', f'<meta charset="{charset}" />')
    return {
        "body": text.encode(charset),
        "headers": [("Content-Type", f"text/html; charset={charset}"), *cookies],
    }


def posted(rsps: responses.RequestsMock) -> list[dict[str, bytes]]:
    """Every POST's fields as the raw bytes the board receives."""
    out = []
    for call in rsps.calls:
        if call.request.method == "POST":
            body = call.request.body
            text = body.decode("ascii") if isinstance(body, bytes) else str(body)
            out.append({k: v.encode("latin-1") for k, v in parse_qsl(text, encoding="latin-1")})
    return out


# --------------------------------------------------------------------------- the API's charset


@pytest.mark.parametrize(("declared", "codec"), [("gbk", "gbk"), ("GBK", "gbk"), ("utf-8", "utf-8")])
def test_the_writers_api_login_sends_the_username_in_the_boards_charset(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], declared: str, codec: str
) -> None:
    """`[outbox] via = "api"` from a fresh session: ?check first, then the username's bytes in its charset."""
    rsps.get(API_CHECK, json={"discuzversion": "X3.5", "charset": declared, "version": "4"})
    rsps.post(API_LOGIN, **api_json(api_answer("login_succeed"), AUTH))
    client = process()
    BoardWriter(client, WriterSettings(via="api")).ensure_login()
    assert client.logged_in
    assert [c.request.url for c in rsps.calls] == [API_CHECK, API_LOGIN]  # the charset before the POST
    assert posted(rsps)[0]["username"] == "法官大人".encode(codec)


def test_a_board_whose_check_names_no_charset_is_asked_through_its_login_page(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient]
) -> None:
    rsps.get(API_CHECK, json={"discuzversion": "X3.5", "version": "4"})
    rsps.get(LOGIN_FORM, **html(login_page(), charset="gbk"))
    rsps.post(API_LOGIN, **api_json(api_answer("login_succeed"), AUTH))
    process(login_via="api").login()
    assert posted(rsps)[0]["username"] == "法官大人".encode("gbk")


# --------------------------------------------------------------------------- captchas


def test_the_apis_captcha_is_no_failed_login_and_needs_no_retry(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], store: Store
) -> None:
    """login_seccheck2 comes after a right password: reported as a captcha, nothing recorded."""
    rsps.get(API_CHECK, json={"discuzversion": "X3.5", "charset": "utf-8", "version": "4"})
    rsps.post(API_LOGIN, **api_json(api_answer("login_seccheck2")))
    with pytest.raises(CaptchaRequired) as info:
        process(login_via="api").login()
    text = str(info.value)
    assert "验证码" in text and "浏览器" in text and "请输入验证码后继续登录" in text
    assert "login --retry" not in text and "不会自动重试" not in text
    assert login_failures(store, ROOT) == []
    rsps.replace(responses.POST, API_LOGIN, **api_json(api_answer("login_succeed"), AUTH))
    later = process(login_via="api")  # the next run: not blocked, no `login --retry` needed
    later.login()
    assert later.logged_in and len(posted(rsps)) == 2


def test_the_forms_captcha_answer_is_no_failed_login(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], store: Store
) -> None:
    """The PC form's login_seccheck2: «请输入验证码后继续登录» and a script to the captcha form."""
    answer = message_page("请输入验证码后继续登录", kind="alert_info").replace(
        "</body>",
        '<script type="text/javascript">location.href=\'member.php?mod=logging&action=login'
        "&auth=abc%2Bdef&referer=http%3A%2F%2Fbbs.example.com%2F&cookietime=1'</script></body>",
    )
    rsps.get(LOGIN_FORM, **html(login_page()))
    rsps.post(LOGIN_POST, **html(answer))
    with pytest.raises(CaptchaRequired) as info:
        process().login()
    assert "验证码" in str(info.value) and "浏览器" in str(info.value)
    assert login_failures(store, ROOT) == []
    with pytest.raises(CaptchaRequired):
        process().login()  # asked again next run (the captcha may be gone): still nothing recorded
    assert len(posted(rsps)) == 2 and login_failures(store, ROOT) == []


def test_a_long_run_asks_again_after_a_pause_once_the_judge_typed_the_captcha(
    rsps: responses.RequestsMock, store: Store, clock: FakeClock
) -> None:
    """`forumbot run` is one process: it must go on by itself once the captcha is gone, without
    asking the board at every fetch meanwhile."""
    rsps.get(API_CHECK, json={"discuzversion": "X3.5", "charset": "utf-8", "version": "4"})
    rsps.post(API_LOGIN, **api_json(api_answer("login_seccheck2")))
    cfg = make_board(username="法官大人", password="right", min_interval=0.0, login_via="api")
    guard = StoreLoginGuard(store, cfg)

    def client() -> BoardClient:  # the same process: no forget_login_failures()
        return BoardClient(cfg, sleep=clock.sleep, clock=clock.monotonic, now=clock.now, login_guard=guard)

    with pytest.raises(CaptchaRequired):
        client().login()
    clock.advance(CAPTCHA_PAUSE.total_seconds() - 60)
    with pytest.raises(CaptchaRequired):
        client().login()
    assert len(posted(rsps)) == 1  # not asked again within the pause
    rsps.replace(responses.POST, API_LOGIN, **api_json(api_answer("login_succeed"), AUTH))
    clock.advance(60)
    again = client()
    again.login()
    assert again.logged_in and len(posted(rsps)) == 2 and login_failures(store, ROOT) == []


def test_a_captcha_on_the_login_form_sends_nothing_and_records_nothing(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], store: Store
) -> None:
    rsps.get(LOGIN_FORM, **html(login_page(captcha=True)))
    with pytest.raises(CaptchaRequired):
        process().login()
    assert posted(rsps) == [] and login_failures(store, ROOT) == []


def test_a_captcha_recorded_by_an_older_forumbot_blocks_nothing(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], store: Store, clock: FakeClock
) -> None:
    record_login_failure(
        store, ROOT, "法官大人", CaptchaRequired(LOGIN_POST, "验证码填写错误"), at=clock.now()
    )
    rsps.get(LOGIN_FORM, **html(login_page()))
    rsps.post(LOGIN_POST, **html(message_page("欢迎您回来", kind="alert_right"), AUTH))
    client = process()
    client.login()
    assert client.logged_in


def test_a_wrong_password_is_still_recorded(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], store: Store
) -> None:
    rsps.get(API_CHECK, json={"discuzversion": "X3.5", "charset": "utf-8", "version": "4"})
    rsps.post(API_LOGIN, **api_json(api_answer("login_invalid")))
    with pytest.raises(LoginFailed) as info:
        process(login_via="api").login()
    assert "登录失败" in str(info.value) and "login_invalid" in str(info.value)
    [failure] = login_failures(store, ROOT)
    assert failure.kind == "LoginFailed"


# --------------------------------------------------------------------------- a board that is down


@pytest.mark.parametrize(
    ("exc", "cause"),
    [
        (requests.ConnectionError(REFUSED), "连接被拒绝"),
        (requests.ConnectTimeout("HTTPConnectionPool(host='x', port=80): Max retries exceeded"), "连接超时"),
        (requests.ReadTimeout("HTTPConnectionPool(host='x', port=80): Read timed out."), "超时"),
        (
            requests.ConnectionError(
                "HTTPSConnectionPool(host='bbs.example.com', port=443): Max retries exceeded (Caused by "
                'NameResolutionError("<urllib3.connection.HTTPSConnection object at 0x7f00>: Failed to '
                "resolve 'bbs.example.com' ([Errno -2] Name or service not known)\"))"
            ),
            "域名无法解析",
        ),
        (
            requests.ConnectionError(
                "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))"
            ),
            "连接被重置",
        ),
        (
            requests.ConnectionError(
                "('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))"
            ),
            "没有答复就关闭了连接",
        ),
    ],
)
def test_no_answer_is_one_chinese_sentence_with_the_url_and_the_cause(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], exc: Exception, cause: str
) -> None:
    page = ROOT + "forum.php?mod=viewthread&tid=5&page=1"
    rsps.get(page, body=exc)
    with pytest.raises(NetworkError) as info:
        process(retries=2).get(page)
    text = str(info.value)
    assert text.startswith("论坛没有响应：" + page)
    assert cause in text and "已尝试 3 次" in text
    assert not any(w in text for w in URLLIB3_WORDS), text
    assert info.value.__cause__ is None and info.value.__suppress_context__  # no chain printed under it


# Every cause a judge can be told: one per kind of failure, none quoting requests.
KNOWN_CAUSES = {
    network_cause(e)
    for e in (
        requests.ConnectTimeout(),
        requests.Timeout(),
        requests.exceptions.SSLError(),
        requests.exceptions.ProxyError(),
        requests.ConnectionError("Name or service not known"),
        requests.ConnectionError("Connection refused"),
        requests.ConnectionError("Network is unreachable"),
        requests.ConnectionError("reset"),
        requests.ConnectionError("RemoteDisconnected"),
        requests.ConnectionError(),
        requests.RequestException(),
    )
}


@given(st.text(max_size=300))
def test_the_cause_never_repeats_what_requests_said(text: str) -> None:
    """Whatever urllib3 wrote, the judge gets one of our own short causes, never its text."""
    for exc in (requests.ConnectionError(text), requests.ReadTimeout(text), requests.RequestException(text)):
        assert network_cause(exc) in KNOWN_CAUSES


@pytest.mark.parametrize(
    ("status", "words"), [(429, "请求过多"), (503, "正在维护")], ids=["429-rate-limited", "503-maintenance"]
)
def test_a_busy_board_is_said_in_chinese(
    rsps: responses.RequestsMock,
    process: Callable[..., BoardClient],
    clock: FakeClock,
    status: int,
    words: str,
) -> None:
    page = ROOT + "forum.php?mod=viewthread&tid=5&page=1"
    rsps.get(page, status=status, body=b"<html><head><title>Service Unavailable</title></head></html>")
    with pytest.raises(BoardUnavailable) as info:
        process(retries=1).get(page)
    text = str(info.value)
    assert page in text and words in text and str(status) in text and "稍后再试" in text
    assert len(rsps.calls) == 2  # retried like a 5xx, then said


def test_a_discuz_system_error_under_503_stays_a_system_error(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient]
) -> None:
    page = ROOT + "forum.php?mod=viewthread&tid=5&page=1"
    rsps.get(page, status=503, body=b"<html><head><title>Discuz! System Error</title></head></html>")
    with pytest.raises(BoardSystemError) as info:
        process(retries=0).get(page)
    assert not isinstance(info.value, BoardUnavailable) and "系统错误" in str(info.value)


def test_a_login_that_never_reached_the_board_is_no_failed_login(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], store: Store
) -> None:
    rsps.get(LOGIN_FORM, **html(login_page()))
    rsps.post(LOGIN_POST, body=requests.ConnectionError(REFUSED))
    with pytest.raises(NetworkError) as info:
        process().login()
    assert "连接被拒绝" in str(info.value) and not any(w in str(info.value) for w in URLLIB3_WORDS)
    assert login_failures(store, ROOT) == []


def test_a_login_whose_answer_was_lost_counts_as_failed(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], store: Store
) -> None:
    """Sent, then no answer: the board may have counted it, so it is recorded and not retried."""
    rsps.get(LOGIN_FORM, **html(login_page()))
    rsps.post(LOGIN_POST, body=requests.ReadTimeout("HTTPConnectionPool(host='x', port=80): Read timed out."))
    with pytest.raises(LoginFailed) as info:
        process().login()
    assert "超时" in str(info.value) and not any(w in str(info.value) for w in URLLIB3_WORDS)
    [failure] = login_failures(store, ROOT)
    assert failure.kind == "LoginFailed"


def test_outbox_send_to_a_board_that_is_down_says_so_once(
    rsps: responses.RequestsMock, process: Callable[..., BoardClient], store: Store, clock: FakeClock
) -> None:
    from tests.outbox.conftest import make_game

    rsps.get(LOGIN_FORM, body=requests.ConnectionError(REFUSED))
    game = make_game()
    ob = Outbox(store, game, client=process(retries=2), sleep=clock.sleep, now=clock.now, by="法官大人")
    item = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】", day=1)
    ob.approve(item, by="法官大人")
    report = ob.send()
    assert "连接被拒绝" in report.stopped and LOGIN_FORM in report.stopped
    assert report.stopped.count("连接被拒绝") == 1
    assert not any(w in report.stopped for w in URLLIB3_WORDS), report.stopped
    assert ob.get(item).status == "approved" and login_failures(store, ROOT) == []
