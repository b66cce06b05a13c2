"""Logging in: web form and API, failures never retried, captchas reported, cookies kept at 0600."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs

import pytest
import requests
import responses

from forumbot.client import BoardClient
from forumbot.errors import CaptchaRequired, LoginFailed, LoginRequired
from forumbot.exampleboard.render import login_page, message_page
from tests.boards import ROOT, small_board

LOGIN_FORM = ROOT + "member.php?mod=logging&action=login"
LOGIN_POST = ROOT + "member.php?mod=logging&action=login&loginsubmit=yes"
API_LOGIN = ROOT + "api/mobile/index.php?version=2&module=login&loginsubmit=yes&loginfield=username"
PC1 = ROOT + "forum.php?mod=viewthread&tid=7&page=1"
AUTH = [
    ("Set-Cookie", "test_2132_auth=s3cr3t; path=/; HttpOnly"),
    ("Set-Cookie", "test_2132_saltkey=salty; path=/"),
]
WELCOME = message_page("欢迎您回来，新手上路 饺子，现在将转入登录前页面", kind="alert_right")


def creds(**kw: object) -> dict[str, object]:
    return {"username": "饺子", "password": "hunter2", "min_interval": 0.0, **kw}


def _html(body: str, cookies: list[tuple[str, str]] | None = None) -> dict[str, object]:
    headers = [("Content-Type", "text/html; charset=utf-8"), *(cookies or [])]
    return {"body": body.encode("utf-8"), "headers": headers}


API_CHECK = ROOT + "api/mobile/index.php?check"


def api_check(rsps: responses.RequestsMock, charset: str = "UTF-8") -> None:
    """The API's ?check answer: the API login asks it for the board's charset first."""
    rsps.get(API_CHECK, json={"discuzversion": "X3.5", "charset": charset, "version": "4"})


def posts(rsps: responses.RequestsMock) -> list[responses.Call]:
    return [c for c in rsps.calls if c.request.method == "POST"]


def test_web_login_posts_the_form_and_keeps_cookies_at_0600(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], tmp_path: Path
) -> None:
    rsps.get(LOGIN_FORM, **_html(login_page(formhash="ab12cd34")))
    rsps.post(LOGIN_POST, **_html(WELCOME, AUTH))
    cookie_file = tmp_path / "cookies" / "board.json"
    client = make_client(**creds(cookie_file=cookie_file))
    client.login()
    assert client.logged_in
    form = parse_qs(posts(rsps)[0].request.body)  # type: ignore[arg-type]
    assert form["formhash"] == ["ab12cd34"]
    assert form["username"] == ["饺子"] and form["password"] == ["hunter2"]
    assert form["questionid"] == ["0"] and form["cookietime"] == ["2592000"]
    assert "answer" in parse_qs(posts(rsps)[0].request.body, keep_blank_values=True)  # type: ignore[arg-type]
    assert posts(rsps)[0].request.headers["Referer"] == LOGIN_FORM
    assert stat.S_IMODE(cookie_file.stat().st_mode) == 0o600
    saved = json.loads(cookie_file.read_text("utf-8"))
    assert {c["name"]: c["value"] for c in saved["cookies"]}["test_2132_auth"] == "s3cr3t"


def test_saved_cookies_are_reused_without_logging_in(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], tmp_path: Path
) -> None:
    rsps.get(LOGIN_FORM, **_html(login_page()))
    rsps.post(LOGIN_POST, **_html(WELCOME, AUTH))
    cookie_file = tmp_path / "c.json"
    make_client(**creds(cookie_file=cookie_file)).login()
    cookie_file.chmod(0o644)
    board = small_board()
    board.add_thread(7, 3)
    board.mock(rsps, writes=False)
    n = len(rsps.calls)
    again = make_client(**creds(cookie_file=cookie_file))
    assert again.logged_in
    assert stat.S_IMODE(cookie_file.stat().st_mode) == 0o600  # tightened on load
    page = again.fetch_thread_page(7, 1)
    assert len(page.posts) == 3
    assert [c.request.url for c in rsps.calls[n:]] == [PC1]
    assert "test_2132_auth=s3cr3t" in rsps.calls[-1].request.headers["Cookie"]


def test_first_fetch_logs_in_when_credentials_are_set(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    rsps.get(LOGIN_FORM, **_html(login_page()))
    rsps.post(LOGIN_POST, **_html(WELCOME, AUTH))
    board = small_board()
    board.add_thread(7, 2)
    board.mock(rsps, writes=False)
    client = make_client(**creds())
    client.fetch_thread_page(7, 1)
    assert [c.request.method for c in rsps.calls] == ["GET", "POST", "GET"]


@pytest.mark.parametrize(
    ("answer", "error", "words"),
    [
        ("登录失败，您还可以尝试 4 次", LoginFailed, "登录失败"),
        ("密码错误次数过多，请 15 分钟后重新登录", LoginFailed, "密码错误次数过多"),
        ("抱歉，验证码填写错误", CaptchaRequired, "验证码"),
    ],
)
def test_failed_login_is_never_retried(
    rsps: responses.RequestsMock,
    make_client: Callable[..., BoardClient],
    answer: str,
    error: type[Exception],
    words: str,
) -> None:
    rsps.get(LOGIN_FORM, **_html(login_page()))
    rsps.post(LOGIN_POST, **_html(message_page(answer)))
    client = make_client(**creds())
    with pytest.raises(error) as info:
        client.login()
    assert words in str(info.value)
    assert len(posts(rsps)) == 1
    n = len(rsps.calls)
    with pytest.raises(error):
        client.login()  # the same client: no request at all
    with pytest.raises(error):
        make_client(**creds()).fetch_thread_page(7, 1)  # a new client in the same process: neither
    assert len(rsps.calls) == n


def test_a_corrected_password_may_try_again(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    rsps.get(LOGIN_FORM, **_html(login_page()))
    rsps.post(LOGIN_POST, **_html(message_page("登录失败，您还可以尝试 4 次")))
    with pytest.raises(LoginFailed):
        make_client(**creds()).login()
    rsps.replace(responses.POST, LOGIN_POST, **_html(WELCOME, AUTH))
    fixed = make_client(**creds(password="correct horse"))
    fixed.login()
    assert fixed.logged_in


def test_captcha_on_the_form_is_reported_before_posting(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    rsps.get(LOGIN_FORM, **_html(login_page(captcha=True)))
    client = make_client(**creds())
    with pytest.raises(CaptchaRequired) as info:
        client.login()
    assert posts(rsps) == []
    assert info.value.url == LOGIN_FORM


def test_no_answer_to_the_login_post_is_a_failure_not_a_retry(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    rsps.get(LOGIN_FORM, **_html(login_page()))
    rsps.post(LOGIN_POST, body=requests.ConnectionError("reset by peer"))
    client = make_client(**creds())
    with pytest.raises(LoginFailed):
        client.login()
    assert len(posts(rsps)) == 1


def test_api_login(rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]) -> None:
    ok = {"Version": "4", "Message": {"messageval": "login_succeed", "messagestr": "欢迎您回来"}}
    api_check(rsps)
    rsps.post(API_LOGIN, body=json.dumps(ok), headers=[("Content-Type", "application/json"), *AUTH])
    client = make_client(**creds(login_via="api"))
    client.login()
    assert client.logged_in
    form = parse_qs(posts(rsps)[0].request.body)  # type: ignore[arg-type]
    assert form["username"] == ["饺子"] and form["password"] == ["hunter2"]


def test_api_login_failure_and_captcha(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    bad = {"Message": {"messageval": "login_invalid", "messagestr": "登录失败，您还可以尝试 3 次"}}
    api_check(rsps)
    rsps.post(API_LOGIN, json=bad)
    with pytest.raises(LoginFailed) as info:
        make_client(**creds(login_via="api")).login()
    assert "您还可以尝试 3 次" in str(info.value)
    rsps.replace(responses.POST, API_LOGIN, json={"Message": {"messageval": "submit_seccode_invalid"}})
    with pytest.raises(CaptchaRequired):
        make_client(**creds(login_via="api", username="包子")).login()


def test_api_login_falls_back_to_the_web_form_when_the_api_is_closed(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    api_check(rsps)
    rsps.post(API_LOGIN, json={"error": "mobile_is_closed"})
    rsps.get(LOGIN_FORM, **_html(login_page()))
    rsps.post(LOGIN_POST, **_html(WELCOME, AUTH))
    client = make_client(**creds(login_via="api"))
    client.login()
    assert client.logged_in


def _login_wall(rsps: responses.RequestsMock) -> None:
    rsps.get(PC1, status=302, headers={"Location": "member.php?mod=logging&action=login"})


def test_expired_cookies_mean_one_relogin(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], tmp_path: Path
) -> None:
    cookie_file = tmp_path / "c.json"
    cookie_file.write_text(
        json.dumps(
            {
                "cookies": [
                    {"name": "test_2132_auth", "value": "stale", "domain": "bbs.example.com", "path": "/"}
                ]
            }
        )
    )
    board = small_board()
    board.add_thread(7, 2)
    _login_wall(rsps)  # first answer to the thread: the login page
    rsps.get(PC1, body=board.thread_html(7, 1).encode(), content_type="text/html; charset=utf-8")
    rsps.get(LOGIN_FORM, **_html(login_page()))
    rsps.post(LOGIN_POST, **_html(WELCOME, AUTH))
    client = make_client(**creds(cookie_file=cookie_file))
    assert client.logged_in
    page = client.fetch_thread_page(7, 1)
    assert [p.pid for p in page.posts] == [1, 2]
    assert len(posts(rsps)) == 1
    assert "s3cr3t" in cookie_file.read_text()


def test_a_login_wall_right_after_login_is_login_required(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    _login_wall(rsps)
    rsps.get(LOGIN_FORM, **_html(login_page()))
    rsps.post(LOGIN_POST, **_html(WELCOME, AUTH))
    client = make_client(**creds())
    with pytest.raises(LoginRequired):
        client.fetch_thread_page(7, 1)
    assert len(posts(rsps)) == 1  # the login before the fetch; a wall right after it is final


def test_a_login_wall_without_credentials_is_login_required(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient]
) -> None:
    _login_wall(rsps)
    rsps.get(LOGIN_FORM, **_html(login_page()))
    client = make_client(min_interval=0.0)
    with pytest.raises(LoginRequired) as info:
        client.fetch_thread_page(7, 1)
    assert posts(rsps) == []
    assert info.value.url == PC1


def test_a_login_wall_after_the_relogin_is_login_required(
    rsps: responses.RequestsMock, make_client: Callable[..., BoardClient], tmp_path: Path
) -> None:
    cookie_file = tmp_path / "c.json"
    cookie_file.write_text(
        json.dumps(
            {
                "cookies": [
                    {"name": "test_2132_auth", "value": "stale", "domain": "bbs.example.com", "path": "/"}
                ]
            }
        )
    )
    _login_wall(rsps)
    rsps.get(LOGIN_FORM, **_html(login_page()))
    rsps.post(LOGIN_POST, **_html(WELCOME, AUTH))
    client = make_client(**creds(cookie_file=cookie_file))
    with pytest.raises(LoginRequired):
        client.fetch_thread_page(7, 1)
    assert len(posts(rsps)) == 1  # exactly one re-login
    assert [c.request.url for c in rsps.calls].count(PC1) == 2
