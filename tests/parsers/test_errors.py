"""Board error pages become the right BoardError, with the URL and the board's own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from forumbot.errors import (
    AntiTheftPage,
    ApiClosed,
    BoardError,
    BoardSystemError,
    CaptchaRequired,
    CCDefence,
    ForumNotFound,
    LoginRequired,
    NoPermission,
    ThreadNotFound,
    UnparseablePage,
)
from forumbot.parsers import parse_forum_page, parse_thread_page

ERRORS = Path(__file__).parent / "pages" / "errors"
THREAD_URL = "http://bbs.example.com/forum.php?mod=viewthread&tid=5"
API_URL = "http://bbs.example.com/api/mobile/index.php?version=4&module=viewthread&tid=5"

CASES = [
    # file, HTTP status, expected error, words the board used
    ("pc_thread_missing.html", 404, ThreadNotFound, "指定的主题不存在"),
    ("pc_readperm.html", 200, NoPermission, "阅读权限高于 30"),
    ("pc_login_needed.html", 200, LoginRequired, "您尚未登录"),
    ("pc_flood.html", 200, UnparseablePage, "表单验证串不符"),  # a message no rule knows: still named
    ("touch_jump.html", 404, ThreadNotFound, "指定的主题不存在"),
    ("touch_login.html", 200, LoginRequired, "登录"),
    ("pc_login_captcha.html", 200, CaptchaRequired, "登录"),
    ("cc_refresh.html", 200, CCDefence, "频繁刷新限制"),
    ("cc_reload.html", 200, CCDefence, "页面重载开启"),
    ("cc_question.html", 200, CCDefence, "回答问题"),
    ("antitheft.html", 200, AntiTheftPage, "_0x3f2a"),
    ("system_error.html", 503, BoardSystemError, "mobileoem_template"),
    ("database_error.html", 503, BoardSystemError, "Too many connections"),
    ("ajax_missing.xml", 200, ThreadNotFound, "指定的主题不存在"),
    ("not_discuz.html", 200, UnparseablePage, ""),
    ("api_thread_missing.json", 404, ThreadNotFound, "thread_nonexistence"),
    ("api_no_module.json", 200, ApiClosed, "module_not_exists"),
    ("api_closed.json", 200, ApiClosed, "手机版已关闭"),
    ("api_login.json", 200, LoginRequired, "viewperm_login_nopermission"),
    ("api_nopermission.json", 200, NoPermission, "thread_nopermission"),
    ("api_seccode.json", 200, CaptchaRequired, "验证码"),
]


@pytest.mark.parametrize(("name", "status", "expected", "words"), CASES, ids=[c[0] for c in CASES])
def test_error_page(name: str, status: int, expected: type[BoardError], words: str) -> None:
    url = API_URL if name.endswith(".json") else THREAD_URL
    with pytest.raises(BoardError) as caught:
        parse_thread_page((ERRORS / name).read_bytes(), url, status=status)
    error = caught.value
    assert type(error) is expected
    assert error.url == url
    assert words in error.board_message
    assert "internal parser error" not in error.detail
    assert url in str(error)


def test_every_error_page_is_in_the_table() -> None:
    listed = {c[0] for c in CASES} | {"pc_forum_missing.html", "api_forum_missing.json"}
    assert listed == {p.name for p in ERRORS.iterdir()}


@pytest.mark.parametrize(
    ("name", "url", "expected"),
    [
        ("pc_forum_missing.html", "http://bbs.example.com/forum.php?mod=forumdisplay&fid=99", ForumNotFound),
        ("pc_login_needed.html", "http://bbs.example.com/forum.php?mod=forumdisplay&fid=4", LoginRequired),
        (
            "touch_login.html",
            "http://bbs.example.com/forum.php?mod=forumdisplay&fid=4&mobile=2",
            LoginRequired,
        ),
        (
            "api_forum_missing.json",
            "http://bbs.example.com/api/mobile/index.php?version=4&module=forumdisplay&fid=99",
            ForumNotFound,
        ),
        (
            "system_error.html",
            "http://bbs.example.com/api/mobile/index.php?version=1&module=forumdisplay&fid=8",
            BoardSystemError,
        ),
    ],
)
def test_forum_error_pages(name: str, url: str, expected: type[BoardError]) -> None:
    with pytest.raises(expected):
        parse_forum_page((ERRORS / name).read_bytes(), url, status=503 if "system" in name else 200)


@pytest.mark.parametrize(
    ("body", "status", "expected"),
    [
        (b"", 200, UnparseablePage),
        (b" \r\n ", 200, UnparseablePage),
        (b"", 502, BoardSystemError),
        (b"<html><body>Bad Gateway</body></html>", 502, BoardSystemError),
        (b"<html><body>Not Found</body></html>", 404, ThreadNotFound),
        (b"{}", 200, UnparseablePage),
        (b"[1, 2]", 200, UnparseablePage),
        (b'{"Variables": []}', 200, UnparseablePage),
        (b"{not json", 200, UnparseablePage),
        (b"\x00\xff\xfe\x80", 200, UnparseablePage),
    ],
)
def test_broken_answers(body: bytes, status: int, expected: type[BoardError]) -> None:
    with pytest.raises(expected) as caught:
        parse_thread_page(body, THREAD_URL, status=status)
    assert "internal parser error" not in caught.value.detail


def test_printable_view_is_refused_with_a_reason() -> None:
    body = b"<html><head><title>x</title></head><body><b>\xe4\xbd\x9c\xe8\x80\x85: </b>a<hr/></body></html>"
    with pytest.raises(UnparseablePage) as caught:
        parse_thread_page(body, "http://bbs.example.com/forum.php?mod=viewthread&action=printable&tid=3")
    assert "no pids" in caught.value.detail


def test_a_page_with_a_post_list_but_no_posts_is_unparseable() -> None:
    body = b'<html><body><div id="postlist"><table></table></div></body></html>'
    with pytest.raises(UnparseablePage):
        parse_thread_page(body, THREAD_URL)
