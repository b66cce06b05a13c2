"""Recognising the pages a board sends instead of the one asked for, and naming them as errors.

Every check returns nothing or raises a :class:`~forumbot.errors.BoardError` subclass carrying the URL and
the board's own words. Order matters and is documented at :func:`raise_unrecognised_html`.

Pages covered (Discuz! X2.5–X3.5 default templates):

- ``showmessage``: PC ``div#messagetext`` (``alert_error`` / ``alert_info``), touch ``div.jump_c``, ajax
  ``<root><![CDATA[...]]></root>``; classified by their text (主题不存在, 版块不存在, 尚未登录, 阅读权限 …);
- the login page served instead of the thread (touch guests are 302'd to it): ``form#loginform`` with a
  password field and no post list;
- CC defence (``source/class/discuz/discuz_application.php`` → ``security.php``'s ``securitymessage``):
  频繁刷新限制, 页面重载开启 (a page that only reloads itself), 回答问题 (an arithmetic question);
- captcha walls (seccode / secqaa inputs on a page without posts);
- anti-theft pages: a page that is nothing but obfuscated script (cookie set + redirect);
- ``Discuz! System Error`` / ``Discuz! Database Error`` pages (HTTP 503 on PHP 8 for the v1–v3 API);
- mobile API errors: ``Message.messageval`` (thread_nonexistence, thread_nopermission,
  viewperm_login_nopermission, forum_nonexistence, mobile_is_closed …) and ``{"error": "module_not_exists"}``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import lxml.etree

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
from forumbot.parsers.encoding import Node, text_of

__all__ = [
    "classify_board_message",
    "raise_for_api_message",
    "raise_for_showmessage",
    "raise_unrecognised_html",
]

_WS = re.compile(r"\s+")
_MESSAGETEXT = lxml.etree.XPath("id('messagetext')")  # compiled once: every thread page asks

# (needle, error class), most specific first. Texts from Discuz!'s lang_message.php and the CC defence.
_MESSAGE_RULES: tuple[tuple[str, type[BoardError]], ...] = (
    ("频繁刷新", CCDefence),
    ("刷新过于频繁", CCDefence),
    ("刷新间隔", CCDefence),
    ("访问本站速度过快", CCDefence),
    ("页面重载", CCDefence),
    ("回答问题", CCDefence),
    ("代理服务器访问限制", CCDefence),
    ("验证码", CaptchaRequired),
    ("验证问答", CaptchaRequired),
    ("seccode", CaptchaRequired),
    ("secqaa", CaptchaRequired),
    ("主题不存在", ThreadNotFound),
    ("帖子不存在", ThreadNotFound),
    ("主題不存在", ThreadNotFound),
    ("thread_nonexistence", ThreadNotFound),
    ("版块不存在", ForumNotFound),
    ("版塊不存在", ForumNotFound),
    ("forum_nonexistence", ForumNotFound),
    ("尚未登录", LoginRequired),
    ("请先登录", LoginRequired),
    ("登录后", LoginRequired),
    ("需要登录", LoginRequired),
    ("需要先登录", LoginRequired),  # to_login: 您需要先登录才能继续本操作 (posting fixtures 78)
    ("尚未登錄", LoginRequired),
    ("_login_", LoginRequired),
    ("to_login", LoginRequired),
    ("login_before", LoginRequired),
    ("阅读权限", NoPermission),
    ("閱讀權限", NoPermission),
    ("没有权限", NoPermission),
    ("无权", NoPermission),
    ("权限不足", NoPermission),
    ("禁止访问", NoPermission),
    ("被禁止", NoPermission),
    ("nopermission", NoPermission),
    ("_banned", NoPermission),
    ("mobile_is_closed", ApiClosed),
    ("module_not_exists", ApiClosed),
    ("plugin_nonexistence", ApiClosed),
)


def _text(el: Node) -> str:
    return _WS.sub(" ", text_of(el)).strip()


def classify_board_message(message: str) -> type[BoardError] | None:
    """The error class for a board message (Chinese text or an API ``messageval``), if any rule knows it."""
    lowered = message.lower()
    for needle, cls in _MESSAGE_RULES:
        if needle in lowered:
            return cls
    return None


def raise_for_api_message(payload: Mapping[str, Any], url: str, *, has_content: bool) -> None:
    """Raise for the mobile API's error shapes. ``has_content``: the payload carries the data asked for
    (a success message such as ``login_succeed`` next to real data is not an error)."""
    error = payload.get("error")
    if isinstance(error, str) and error:
        raise (classify_board_message(error) or ApiClosed)(url, error)
    message = payload.get("Message")
    if not isinstance(message, Mapping):
        return
    value = str(message.get("messageval") or "")
    text = str(message.get("messagestr") or "")
    key = value.split("//", 1)[0]
    cls = classify_board_message(key) or classify_board_message(text)
    if cls is not None:
        raise cls(url, text if text and not text.startswith("mobile:") else key, f"messageval={value}")
    if not has_content and key:
        raise UnparseablePage(url, text or key, f"unrecognised API message {value!r}")


def _message_text(box: Node) -> str:
    paragraphs = box.xpath("./p[not(contains(@class,'alert_btnleft'))]")
    return _text(paragraphs[0]) if paragraphs else _text(box)


_NO_PIDS = "printable and archiver views carry no pids; read the PC page"


def _raise_message(message: str, url: str, status: int) -> None:
    cls = classify_board_message(message)
    if cls is None:
        cls = ThreadNotFound if status == 404 else UnparseablePage
        detail = _NO_PIDS if _is_printable(url) else f"unrecognised board message (HTTP {status})"
        raise cls(url, message, detail)
    raise cls(url, message, f"HTTP {status}")


def _is_printable(url: str) -> bool:
    return "action=printable" in url or "/archiver/" in url


def raise_for_showmessage(root: Node, url: str, status: int = 200) -> None:
    """Raise when ``root`` is a PC showmessage page (``div#messagetext``). O(1): an id lookup, so it runs
    before any post parsing."""
    found = _MESSAGETEXT(root)
    if found:
        _raise_message(_message_text(found[0]), url, status)


def _title(root: Node) -> str:
    titles = root.xpath("//title")
    return _text(titles[0]) if titles else ""


def _visible_text(root: Node) -> str:
    body = root.find("body")
    node = body if body is not None else root
    parts = [
        t
        for el in node.iter()
        if isinstance(el.tag, str) and el.tag not in ("script", "style")
        for t in (el.text,)
        if t
    ]
    parts.extend(el.tail for el in node.iter() if el is not node and el.tail)
    return _WS.sub(" ", "".join(parts)).strip()


def _system_error(root: Node) -> str | None:
    for h1 in root.xpath("//h1"):
        heading = _text(h1)
        if "System Error" in heading or "Database Error" in heading:
            infos = root.xpath("//div[@class='info']")
            return _text(infos[0]) if infos else heading
    return None


def raise_unrecognised_html(root: Node, url: str, status: int = 200, what: str = "thread") -> None:
    """The page held no posts: say what it is instead. Always raises.

    Order: PHP's system-error page; a showmessage (PC or touch ``div.jump_c``), named by its text;
    CC defence; captcha; the login page (tested only here, since every guest page carries a header
    login form); an anti-theft script page; then by HTTP status; else :class:`UnparseablePage`.
    """
    system = _system_error(root)
    if system is not None:
        raise BoardSystemError(url, system, f"HTTP {status}")
    raise_for_showmessage(root, url, status)
    jump = root.xpath("//div[@class='jump_c']")
    if jump:
        _raise_message(_message_text(jump[0]), url, status)
    title = _title(root)
    body_text = _visible_text(root)
    cc = classify_board_message(title)
    if cc is CCDefence or (cc is None and _is_cc_page(root, body_text)):
        raise CCDefence(url, title or body_text[:200], f"HTTP {status}")
    login_form = root.xpath(
        "//form[starts-with(@id,'loginform') or contains(@action,'action=login')]"
        " | //body[contains(@class,'pg_logging')]"
    )
    captcha = root.xpath(
        "//input[starts-with(@name,'seccode') or starts-with(@name,'secanswer')]"
        " | //*[starts-with(@id,'seccode_') or starts-with(@id,'secqaa_')]"
    )
    if captcha:
        raise CaptchaRequired(
            url, title, "the board asks for a seccode/secqaa" + (" to log in" if login_form else "")
        )
    if login_form and root.xpath("//input[@type='password']"):
        raise LoginRequired(url, title, f"the board served its login page instead of the {what}")
    if _is_anti_theft(root, body_text):
        script = _WS.sub(" ", _scripts(root)).strip()
        raise AntiTheftPage(
            url, title or script[:80], f"HTTP {status}, {len(body_text)} chars of text, script only"
        )
    if status >= 500:
        raise BoardSystemError(url, title or body_text[:200], f"HTTP {status}")
    if status == 404:
        cls: type[BoardError] = ThreadNotFound if what == "thread" else ForumNotFound
        raise cls(url, title or body_text[:200], "HTTP 404")
    if _is_printable(url):
        raise UnparseablePage(url, title, _NO_PIDS)
    raise UnparseablePage(url, title, f"no {what} found on this page (HTTP {status})")


def _scripts(root: Node) -> str:
    return "".join(s.text or "" for s in root.iter("script"))


def _is_cc_page(root: Node, body_text: str) -> bool:
    if len(body_text) > 2000:
        return False
    scripts = _scripts(root)
    if "location.reload" in scripts:
        return True
    return bool(root.xpath("//input[@name='secqsubmit']"))


def _is_anti_theft(root: Node, body_text: str) -> bool:
    if len(body_text) > 300:
        return False
    scripts = _scripts(root)
    if len(scripts) < 40:
        return False
    markers = ("document.cookie", "eval(", "location.href", "location.replace", "window.location", "\\x")
    return any(m in scripts for m in markers)
