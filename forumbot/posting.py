"""Writing to a Discuz! X board through its own forms: reply, fast reply, new thread, edit, quote, PM.

Why it looks like this (checked against the captured exchanges in
../shared/fixtures/discuz-x35-posting/, INDEX.md):

- **Every answer is classified** by :func:`classify_answer` into a :class:`PostResult` with a typed
  :class:`Outcome`. Success carries the new ids: a 301 ``Location`` (reply: ``pid`` in the query and
  the fragment; new thread: ``tid`` only; edit: the ``#pidP`` fragment; PM: none), an AJAX
  ``succeedhandle_…('url', 'msg', {params})`` (``pid`` or ``pmid`` in the params), or the mobile API's
  ``Message.messageval`` with ``Variables.pid``/``pmid``. A refusal carries the board's own Chinese words
  (``div#messagetext`` ``<p>``, ``errorhandle_…('msg', {params})``) and, for flood control, the board's
  interval. **Anything else is UNKNOWN**: a timeout after the request left, a PHP fatal 503, a page we
  have never seen. UNKNOWN means "maybe stored": the outbox reads the board before it sends again.
- **A fresh formhash for each form**: every write GETs its own form first (a wrong or stale formhash is
  not a form error but a 503 «非法字符» page, exchange 25/28/37/99), and the form's own hidden fields are
  sent back, with ``wysiwyg=0`` so the message is read as BBCode.
- **Fields in the board's charset**: the charset of the form page decides how the fields are encoded. A
  GBK board stores UTF-8 bytes as mojibake and says "success" (84, 88): nothing in the answer tells.
- **A POST is never retried here.** Whether and when to send again is the outbox's decision.
- Pure parts (:func:`classify_answer`, :func:`parse_form`, :func:`normalise_body`) take bytes and
  return records; :class:`BoardWriter` does the I/O through the :class:`~forumbot.client.BoardClient`
  (its session, cookies, politeness interval and login). Private messages are read by the client
  (:mod:`forumbot.parsers.pm`: one PM record); :mod:`forumbot.boardio` joins both behind one seam.
"""

from __future__ import annotations

import html as htmllib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import requests

from forumbot import urls
from forumbot.client import BoardClient, network_cause, never_connected
from forumbot.errors import BoardError, CaptchaRequired, ForumbotError, LoginFailed, LoginRequired
from forumbot.i18n import _
from forumbot.parsers.encoding import detect_charset, parse_html
from forumbot.parsers.pm import PmMessage, parse_pm_conversation
from forumbot.urls import Url

# --------------------------------------------------------------------------- results


class Outcome(StrEnum):
    """What the board did with one POST."""

    SENT = "sent"  # stored; ids when the answer gives them
    FLOOD = "flood"  # post_flood_ctrl: 两次发表间隔少于 N 秒 (wait, then send again: it was not stored)
    TOO_SHORT = "too_short"  # post_message_tooshort
    TOO_LONG = "too_long"  # post_message_toolong
    EMPTY = "empty"  # post_sm_isnull / unable_to_send_air_news
    NOT_LOGGED_IN = "not_logged_in"  # 您尚未登录 / 您需要先登录 / replyperm_login_nopermission
    FORM_INVALID = "form_invalid"  # submit_invalid: formhash missing or a foreign Referer
    TAINTED = "tainted"  # 503 «非法字符» (request_tainting): wrong or stale formhash
    THREAD_CLOSED = "thread_closed"  # post_thread_closed
    NO_PERMISSION = "no_permission"  # 没有权限访问该版块 / 在该版块发帖 / 回帖
    EDIT_DENIED = "edit_denied"  # 没有权限编辑他人发表的帖子
    THREAD_MISSING = "thread_missing"  # 指定的主题不存在或已被删除或正在被审核
    PM_FLOOD = "pm_flood"  # message_can_not_send_2: UCenter's pmfloodctrl
    PM_LIMIT = "pm_limit"  # message_can_not_send_16 / _1: 24 h limits
    PM_NOT_ALLOWED = "pm_not_allowed"  # message_can_not_send_4 (registered too recently), no_privilege
    PM_BAD_RECIPIENT = "pm_bad_recipient"  # message_bad_touid / touser / to self
    PM_BLOCKED = "pm_blocked"  # message_can_not_send_9 / onlyfriend / is_blacklist
    LOGIN_FAILED = "login_failed"  # login_invalid
    CAPTCHA = "captcha"  # a seccode/secqaa is asked: a human must post
    UNENCODABLE = "unencodable"  # ours, before any POST: the board's charset lacks characters of the text
    NOT_SENT = "not_sent"  # the request never reached the board (connection refused)
    UNKNOWN = "unknown"  # maybe stored: read the board before sending again


#: Outcomes after which the board has certainly not stored the post.
REFUSALS = frozenset(Outcome) - {Outcome.SENT, Outcome.UNKNOWN}
#: Refusals that go away by waiting: the outbox waits and sends again (not a blind retry: the board said no).
WAIT_AND_RESEND = frozenset({Outcome.FLOOD, Outcome.PM_FLOOD})


class Action(StrEnum):
    """Which form (or API module) an answer belongs to: the same status means different things."""

    LOGIN = "login"
    LOGIN_AJAX = "login_ajax"
    API_LOGIN = "api_login"
    NEWTHREAD = "newthread"
    REPLY = "reply"
    FASTREPLY = "fastreply"
    EDIT = "edit"
    PM = "pm"
    API_REPLY = "api_reply"
    API_PM = "api_pm"
    FORM = "form"  # the GET of a form page (a refusal can come before any POST)


@dataclass(frozen=True, slots=True)
class PostResult:
    """The board's answer to one write, typed. ``board_message`` is the board's own words."""

    outcome: Outcome
    action: Action
    status: int | None = None
    pid: int | None = None
    tid: int | None = None
    pmid: int | None = None
    url: str = ""  # where the new post is (the Location or succeedhandle URL, absolute when known)
    board_message: str = ""
    wait_seconds: int | None = None  # flood control: the board's interval
    key: str = ""  # the board's language key when it gave one (API messageval)
    detail: str = ""  # our note: why UNKNOWN, what was matched

    @property
    def sent(self) -> bool:
        return self.outcome is Outcome.SENT

    @property
    def refused(self) -> bool:
        """The board certainly did not store it (safe to change and send again)."""
        return self.outcome in REFUSALS

    @property
    def unclear(self) -> bool:
        return self.outcome is Outcome.UNKNOWN

    def words(self) -> str:
        """One line for a judge: the board's words first, then our note."""
        parts = [self.board_message or self.key or self.outcome.value]
        if self.detail and self.detail not in parts[0]:
            parts.append(f"({self.detail})")
        return " ".join(parts)


# The board's words (lang_message.php), in the order they must be tried: specific before general.
_MESSAGES: tuple[tuple[str, Outcome], ...] = (
    (r"两次发表间隔少于\s*(\d+)\s*秒", Outcome.FLOOD),
    (r"小于\s*\d+\s*个字符的限制", Outcome.TOO_SHORT),
    (r"超过\s*\d+\s*(?:个)?字符的限制", Outcome.TOO_LONG),
    (r"您尚未输入标题或内容|不能发送空消息", Outcome.EMPTY),
    (r"尚未登录|需要先登录", Outcome.NOT_LOGGED_IN),
    (r"来路不正确或表单验证串不符", Outcome.FORM_INVALID),
    (r"含有非法字符", Outcome.TAINTED),
    (r"本主题已关闭", Outcome.THREAD_CLOSED),
    (r"没有权限编辑他人", Outcome.EDIT_DENIED),
    (r"指定的主题不存在", Outcome.THREAD_MISSING),
    (r"两次发送短消息太快", Outcome.PM_FLOOD),
    (r"24小时内发短消息数量的上限|24小时内两人会话的上限|群聊人数|超出了.*上限", Outcome.PM_LIMIT),
    (r"还不能使用发送短消息功能|没有权限发送短消息", Outcome.PM_NOT_ALLOWED),
    (r"用户不存在或被冻结|不能给自己发送短消息", Outcome.PM_BAD_RECIPIENT),
    (r"屏蔽了您的短消息|只接收好友发送的短消息|受对方的隐私设置影响", Outcome.PM_BLOCKED),
    (r"没有权限", Outcome.NO_PERMISSION),
    (r"验证码|验证问答", Outcome.CAPTCHA),
    (r"登录失败|密码错误次数过多", Outcome.LOGIN_FAILED),
)

# The mobile API answers a language key (messagestr is "mobile:<key>", no Chinese): our Chinese for it.
_API_KEYS: dict[str, tuple[Outcome, str]] = {
    "post_reply_succeed": (Outcome.SENT, "回复发布成功"),
    "post_reply_mod_succeed": (Outcome.SENT, "回复发布成功，等待审核"),
    "post_newthread_succeed": (Outcome.SENT, "主题发布成功"),
    "post_newthread_mod_succeed": (Outcome.SENT, "主题发布成功，等待审核"),
    "do_success": (Outcome.SENT, "操作成功"),
    "login_succeed": (Outcome.SENT, "登录成功"),
    "post_flood_ctrl": (Outcome.FLOOD, "抱歉，您两次发表间隔太短，请稍候再发表"),
    "post_message_tooshort": (Outcome.TOO_SHORT, "抱歉，您的帖子小于字符的限制"),
    "post_message_toolong": (Outcome.TOO_LONG, "抱歉，您的帖子超过字符的限制"),
    "post_sm_isnull": (Outcome.EMPTY, "抱歉，您尚未输入标题或内容"),
    "unable_to_send_air_news": (Outcome.EMPTY, "抱歉，不能发送空消息"),
    "to_login": (Outcome.NOT_LOGGED_IN, "您需要先登录才能继续本操作"),
    "submit_invalid": (Outcome.FORM_INVALID, "抱歉，您的请求来路不正确或表单验证串不符，无法提交"),
    "post_thread_closed": (Outcome.THREAD_CLOSED, "抱歉，本主题已关闭，不再接受新内容"),
    "thread_nonexistence": (Outcome.THREAD_MISSING, "抱歉，指定的主题不存在或已被删除或正在被审核"),
    "post_edit_nopermission": (Outcome.EDIT_DENIED, "抱歉，您没有权限编辑他人发表的帖子"),
    "message_can_not_send_2": (Outcome.PM_FLOOD, "两次发送短消息太快，请稍候再发送"),
    "message_can_not_send_1": (Outcome.PM_LIMIT, "发送失败，您当前超出了24小时内两人会话的上限"),
    "message_can_not_send_16": (Outcome.PM_LIMIT, "您超出了24小时内发短消息数量的上限"),
    "message_can_not_send_4": (Outcome.PM_NOT_ALLOWED, "抱歉，您目前还不能使用发送短消息功能"),
    "no_privilege_sendpm": (Outcome.PM_NOT_ALLOWED, "抱歉，您目前没有权限发送短消息"),
    "message_bad_touid": (Outcome.PM_BAD_RECIPIENT, "抱歉，用户不存在或被冻结，请检查用户uid是否正确"),
    "message_bad_touser": (Outcome.PM_BAD_RECIPIENT, "抱歉，用户不存在或被冻结，请检查用户名是否正确"),
    "message_can_not_send_to_self": (Outcome.PM_BAD_RECIPIENT, "不能给自己发送短消息"),
    "message_can_not_send_9": (Outcome.PM_BLOCKED, "收件人为空或对方屏蔽了您的短消息"),
    "message_can_not_send_onlyfriend": (Outcome.PM_BLOCKED, "抱歉，该用户只接收好友发送的短消息"),
    "is_blacklist": (Outcome.PM_BLOCKED, "抱歉，受对方的隐私设置影响，您目前没有权限进行本操作"),
    "login_invalid": (Outcome.LOGIN_FAILED, "登录失败"),
    "login_strike": (Outcome.LOGIN_FAILED, "密码错误次数过多，请 15 分钟后重新登录"),
    "login_seccheck2": (Outcome.CAPTCHA, "请输入验证码后继续登录"),  # after a RIGHT password
}

_SUCCEED = re.compile(
    r"succeedhandle_(\w+)\(\s*'((?:[^'\\]|\\.)*)'\s*,\s*'((?:[^'\\]|\\.)*)'\s*,\s*(\{.*?\})", re.S
)
_ERROR = re.compile(r"errorhandle_(\w+)\(\s*'((?:[^'\\]|\\.)*)'\s*,\s*(\{.*?\})", re.S)
_PARAM = re.compile(r"'(\w+)'\s*:\s*'((?:[^'\\]|\\.)*)'")
_MESSAGETEXT = re.compile(
    r"""<div[^>]*id=["']messagetext["'][^>]*class=["']([\w ]+)["'][^>]*>(.*?)</div>""", re.S | re.I
)
_CAPTCHA = ("seccodehash", "secqaahash", "seccodeverify", "updateseccode(", "updatesecqaa(")


def _params(obj: str) -> dict[str, str]:
    return {k: _js_unescape(v) for k, v in _PARAM.findall(obj)}


def _js_unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _int(value: Any) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() and int(text) > 0 else None


def _ids_from_url(url: str) -> tuple[int | None, int | None]:
    """(tid, pid) from a viewthread URL: pid in the query, else in the ``#pidP`` fragment."""
    parts = urlsplit(htmllib.unescape(url))
    q = parse_qs(parts.query)
    tid = _int(q.get("tid", [None])[0]) or _int(q.get("ptid", [None])[0])
    pid = _int(q.get("pid", [None])[0])
    if pid is None:
        m = re.fullmatch(r"pid(\d+)", parts.fragment or "")
        pid = _int(m.group(1)) if m else None
    return tid, pid


def _words(text: str) -> str:
    text = re.sub(r"<script.*?</script>", "", text, flags=re.S | re.I)
    text = re.sub(r"<[^>]+>", "", text)
    return htmllib.unescape(re.sub(r"\s+", " ", text)).strip()


def classify_message(message: str) -> tuple[Outcome, int | None]:
    """The outcome the board's Chinese words mean (and the flood interval), UNKNOWN when unheard of."""
    for pattern, outcome in _MESSAGES:
        m = re.search(pattern, message)
        if m:
            wait = int(m.group(1)) if outcome is Outcome.FLOOD and m.groups() else None
            return outcome, wait
    return Outcome.UNKNOWN, None


def _decode(body: bytes, content_type: str | None) -> str:
    charset = detect_charset(body, content_type)
    return body.decode(charset, errors="replace")


def classify_answer(
    action: Action,
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    *,
    base_url: str = "",
) -> PostResult:
    """What one answer of the board to a write means. Pure: no I/O.

    ``headers`` should be case-insensitive (requests' are); ``base_url`` makes a relative Location
    absolute. Never raises: what cannot be read is UNKNOWN with a note.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    content_type = lower.get("content-type")
    result = PostResult(Outcome.UNKNOWN, action, status=status)
    if 300 <= status < 400:
        return _classify_redirect(result, lower.get("location", ""), base_url)
    text = _decode(body, content_type)
    if status >= 500:
        if "非法字符" in text:
            return replace(
                result,
                outcome=Outcome.TAINTED,
                board_message="您当前的访问请求当中含有非法字符，已经被系统拒绝",
                detail="formhash wrong or stale (request_tainting); the board stored nothing",
            )
        return replace(result, board_message=_system_error(text), detail=f"HTTP {status}: maybe stored")
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return _classify_api(result, stripped)
    if status != 200:
        return replace(result, detail=f"HTTP {status}", board_message=_showmessage(text)[1])
    if stripped.startswith("<?xml") or stripped.startswith("<root"):
        return _classify_ajax(result, text, base_url)
    return _classify_page(result, text, base_url)


def _system_error(text: str) -> str:
    m = re.search(r'<div class="info">(.*?)</div>', text, re.S)
    return _words(m.group(1))[:200] if m else "Discuz! System Error"


def _classify_redirect(result: PostResult, location: str, base_url: str) -> PostResult:
    url = urljoin(base_url, location) if base_url else location
    result = replace(result, url=url)
    path = urlsplit(location).path
    q = parse_qs(urlsplit(location).query)
    if "member.php" in path and q.get("action") == ["login"]:
        return replace(result, outcome=Outcome.NOT_LOGGED_IN, detail="redirected to the login form")
    action = result.action
    if action is Action.PM:
        if "home.php" in path and q.get("do") == ["pm"]:
            touid = _int(q.get("touid", [None])[0])
            return replace(result, outcome=Outcome.SENT, detail=f"301 to the PM page (touid {touid})")
        return replace(result, detail=f"unexpected redirect {location!r}")
    tid, pid = _ids_from_url(location)
    if q.get("mod") != ["viewthread"] or tid is None:
        return replace(result, detail=f"unexpected redirect {location!r}")
    if action is Action.NEWTHREAD:
        return replace(result, outcome=Outcome.SENT, tid=tid, detail="301 to the new thread")
    if action in (Action.REPLY, Action.EDIT) and pid is not None:
        return replace(result, outcome=Outcome.SENT, tid=tid, pid=pid, detail="301 with the pid")
    return replace(result, tid=tid, detail=f"redirect without a pid {location!r}")


def _classify_api(result: PostResult, text: str) -> PostResult:
    try:
        data = json.loads(text)
    except ValueError:
        return replace(result, detail="broken JSON")
    if not isinstance(data, dict):
        return replace(result, detail="JSON that is not an object")
    if "error" in data:
        return replace(result, outcome=Outcome.NOT_SENT, key=str(data["error"]), detail="the API is closed")
    msg_raw, var_raw = data.get("Message"), data.get("Variables")
    msg: dict[str, Any] = msg_raw if isinstance(msg_raw, dict) else {}
    var: dict[str, Any] = var_raw if isinstance(var_raw, dict) else {}
    key = str(msg.get("messageval", ""))
    result = replace(
        result, key=key, pid=_int(var.get("pid")), tid=_int(var.get("tid")), pmid=_int(var.get("pmid"))
    )
    if not key:
        return replace(result, detail="an API answer without Message")
    base = key.split("//")[0]
    if base in _API_KEYS:
        outcome, words = _API_KEYS[base]
    elif base.startswith("replyperm_login") or base.startswith("postperm_login"):
        outcome, words = Outcome.NOT_LOGGED_IN, "抱歉，您尚未登录，没有权限在该版块回帖"
    elif base.endswith("_nopermission"):
        outcome, words = Outcome.NO_PERMISSION, "抱歉，您没有权限"
    else:
        return replace(result, detail=f"unknown API answer {key!r}")
    if outcome is Outcome.SENT and result.action is Action.API_REPLY and result.pid is None:
        return replace(result, key=key, board_message=words, detail="success without a pid")
    if outcome is Outcome.SENT and result.action is Action.API_PM and result.pmid is None:
        return replace(result, board_message=words, detail="success without a pmid")
    if outcome is not Outcome.SENT:
        result = replace(result, pid=None, pmid=None)
    return replace(result, outcome=outcome, board_message=words, detail=f"API {key}")


def _classify_ajax(result: PostResult, text: str, base_url: str) -> PostResult:
    m = _SUCCEED.search(text)
    if m:
        handle, url, words, params = (
            m.group(1),
            _js_unescape(m.group(2)),
            _js_unescape(m.group(3)),
            m.group(4),
        )
        p = _params(params)
        tid, pid = _ids_from_url(url)
        pid = _int(p.get("pid")) or pid
        tid = _int(p.get("tid")) or tid
        pmid = _int(p.get("pmid"))
        full = urljoin(base_url, url) if base_url else url
        if result.action is Action.FASTREPLY and pid is None:
            return replace(
                result, url=full, board_message=words.strip(), detail="succeedhandle without a pid"
            )
        return replace(
            result,
            outcome=Outcome.SENT,
            url=full,
            pid=pid,
            tid=tid,
            pmid=pmid,
            board_message=words.strip(),
            detail=f"succeedhandle_{handle}",
        )
    m = _ERROR.search(text)
    if m:
        words = _js_unescape(m.group(2)).strip()
        p = _params(m.group(3))
        outcome, wait = classify_message(words)
        if "floodctrl" in p and p["floodctrl"].isdigit():
            wait = int(p["floodctrl"])
        return replace(
            result,
            outcome=outcome,
            board_message=words,
            wait_seconds=wait,
            detail=f"errorhandle_{m.group(1)}",
        )
    cdata = re.search(r"<!\[CDATA\[(.*?)\]\]>", text, re.S)
    inner = cdata.group(1) if cdata else text
    if result.action is Action.LOGIN_AJAX and "window.location.href" in inner:
        return replace(result, outcome=Outcome.SENT, detail="the AJAX login redirects to the board")
    words = _words(inner)
    outcome, wait = classify_message(words)
    return replace(
        result, outcome=outcome, board_message=words[:300], wait_seconds=wait, detail="AJAX message"
    )


def _showmessage(text: str) -> tuple[str, str]:
    """(class, words) of ``div#messagetext``, ("", "") when the page has none."""
    m = _MESSAGETEXT.search(text)
    if not m:
        return "", ""
    box = m.group(2)
    first_p = re.search(r"<p[^>]*>(.*?)</p>", box, re.S)
    words = _words(first_p.group(1) if first_p else box)
    return m.group(1).strip(), words


def _classify_page(result: PostResult, text: str, base_url: str) -> PostResult:
    kind, words = _showmessage(text)
    if "alert_right" in kind:
        succeed = re.search(r"succeedlocation'\)\.innerHTML\s*=\s*'((?:[^'\\]|\\.)*)'", text)
        words = _js_unescape(succeed.group(1)) if succeed else words
        link = re.search(r"""<a href=["']([^"']*mod=viewthread[^"']*)["']""", text)
        tid, pid = _ids_from_url(link.group(1)) if link else (None, None)
        if result.action in (Action.LOGIN, Action.API_LOGIN, Action.LOGIN_AJAX, Action.PM, Action.NEWTHREAD):
            return replace(result, outcome=Outcome.SENT, board_message=words, tid=tid, detail="alert_right")
        if pid is not None:
            return replace(
                result, outcome=Outcome.SENT, board_message=words, tid=tid, pid=pid, detail="alert_right"
            )
        return replace(result, board_message=words, detail="alert_right without a pid")
    if kind:
        if any(c in text for c in _CAPTCHA):
            return replace(result, outcome=Outcome.CAPTCHA, board_message=words)
        outcome, wait = classify_message(words)
        return replace(result, outcome=outcome, board_message=words, wait_seconds=wait, detail=kind)
    if any(c in text for c in _CAPTCHA):
        return replace(result, outcome=Outcome.CAPTCHA, detail="the form asks for a captcha")
    if re.search(r"""id=["']loginform_""", text) and result.action is not Action.LOGIN:
        return replace(result, outcome=Outcome.NOT_LOGGED_IN, detail="the board sent its login form")
    title = re.search(r"<title>(.*?)</title>", text, re.S)
    return replace(
        result, board_message=_words(title.group(1))[:120] if title else "", detail="an unknown page"
    )


# --------------------------------------------------------------------------- forms and PM pages


@dataclass(frozen=True, slots=True)
class Form:
    """A form as the board served it: where it posts, and the fields a browser would send back."""

    action: str  # absolute
    fields: tuple[tuple[str, str], ...]
    charset: str

    def with_fields(self, **changes: str) -> list[tuple[str, str]]:
        """The form's fields with ``changes`` applied (added at the end when the form lacks them)."""
        out = [(k, changes.get(k, v)) for k, v in self.fields]
        have = {k for k, _ in self.fields}
        out += [(k, v) for k, v in changes.items() if k not in have]
        return out

    def value(self, name: str) -> str | None:
        for k, v in self.fields:
            if k == name:
                return v
        return None


def _form_root(body: bytes, content_type: str | None) -> tuple[Any, str]:
    charset = detect_charset(body, content_type)
    text = body.decode(charset, errors="replace")
    cdata = re.search(r"<!\[CDATA\[(.*?)\]\]>", text, re.S)
    if text.lstrip().startswith("<?xml") and cdata:
        text = cdata.group(1)
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    root, _ = parse_html((text or "<html></html>").encode("utf-8"), "text/html; charset=utf-8")
    return root, charset


def parse_form(
    body: bytes, url: str, *, form_id: str | None = None, content_type: str | None = None
) -> Form | None:
    """The form ``form_id`` (or the first whose id starts with ``form_id`` + "_", or ``pmform``)."""
    root, charset = _form_root(body, content_type)
    forms = root.xpath("//form")
    chosen = None
    for f in forms:
        fid = f.get("id") or ""
        if form_id is None or fid == form_id or fid.startswith(form_id + "_"):
            chosen = f
            break
    if chosen is None:
        return None
    fields: list[tuple[str, str]] = []
    for el in chosen.xpath(".//input|.//textarea"):
        name = el.get("name")
        if not name:
            continue
        kind = (el.get("type") or "text").lower()
        if el.tag == "textarea":
            fields.append((name, el.text or ""))
        elif kind in ("checkbox", "radio"):
            if el.get("checked") is not None:
                fields.append((name, el.get("value", "on")))
        elif kind in ("hidden", "text"):
            fields.append((name, el.get("value", "")))
    action = urljoin(url, htmllib.unescape(chosen.get("action") or ""))
    return Form(action, tuple(fields), charset)


def parse_pm_view(body: bytes, content_type: str | None = None) -> list[PmMessage]:
    """The messages of a PC conversation page: the one PM record, read by the PM parser
    (:func:`forumbot.parsers.pm.parse_pm_conversation`); kept for the callers of this name."""
    return list(parse_pm_conversation(body, "", content_type=content_type).messages)


_BBCODE_BLOCK = re.compile(r"\[(quote|hide|code)(=[^\]]*)?\].*?\[/\1\]", re.S | re.I)
_BBCODE_TAG = re.compile(r"\[/?[a-z*]+(=[^\]]*)?\]", re.I)


def normalise_body(text: str, *, bbcode: bool = True) -> str:
    """A body reduced to what survives the board's rendering: BBCode markup, quotes and all
    whitespace removed, HTML entities resolved. Used to recognise our own post on the board."""
    if bbcode:
        text = _BBCODE_BLOCK.sub("", text)
        # Until nothing is left: a board text neutralised in a draft (forumbot/boardtext.py) is split by an
        # empty [b][/b] pair, and the board shows the tag it split as text, which goes too.
        while (stripped := _BBCODE_TAG.sub("", text)) != text:
            text = stripped
    text = htmllib.unescape(text)
    return re.sub(r"\s+", "", text)


def bodies_match(sent: str, seen: str) -> bool:
    """True when the text read back from the board is the body we sent (BBCode rendered)."""
    a = normalise_body(sent)
    b = normalise_body(seen)  # BBCode left as text (bbcodeoff, a board that does not render it) too
    if not a:
        return False
    return a == b or (len(a) >= 30 and (a in b or b.startswith(a[:200])))


# --------------------------------------------------------------------------- the writer


def is_gbk(charset: str | None) -> bool:
    """Is this a GBK board's charset (the names Discuz! and browsers give it)?"""
    return (charset or "").lower() in ("gb18030", "gbk", "gb2312", "cp936")


def form_charset(charset: str) -> str:
    """The codec to encode fields in: a GBK board reads GBK (gb18030's 4-byte forms would be garbage)."""
    return "gbk" if is_gbk(charset) else charset


def outside_charset(text: str, charset: str | None) -> tuple[str, ...]:
    """The characters of ``text`` a board in ``charset`` cannot store, each once, in order.

    Why: a GBK board stores such a character (€, 𠮷, ✓, an emoji) as ``&#8364;`` and shows those
    seven characters literally, and says "success": nothing in its answer tells. A UTF-8 board stores
    everything. A character GBK maps to one byte above 0x7F (cp936's € at 0x80) counts as outside:
    the board's GBK has no single-byte forms there."""
    if not is_gbk(charset):
        return ()
    found: dict[str, None] = {}
    for ch in text:
        if ord(ch) < 0x80 or ch in found:
            continue
        try:
            encoded = ch.encode("gbk")
        except UnicodeEncodeError:
            found[ch] = None
            continue
        if len(encoded) == 1:
            found[ch] = None
    return tuple(found)


def as_board_shows(text: str, charset: str | None) -> str:
    """``text`` as a board in ``charset`` will show it: each character it cannot store as ``&#NNNN;``."""
    for ch in outside_charset(text, charset):
        text = text.replace(ch, f"&#{ord(ch)};")
    return text


def name_characters(chars: Sequence[str]) -> str:
    """Characters named for a judge: the character, its code point and what the board will show."""
    return "、".join(f"{ch} (U+{ord(ch):04X} → &#{ord(ch)};)" for ch in chars)


def encode_fields(fields: Sequence[tuple[str, str]], charset: str) -> bytes:
    """``application/x-www-form-urlencoded`` in the board's charset. Characters the charset lacks go as
    ``&#NNNN;`` (what a browser sends for a GBK form), so nothing is lost."""
    if is_gbk(charset):
        fields = [(k, as_board_shows(v, charset)) for k, v in fields]
    return urlencode(list(fields), encoding=form_charset(charset), errors="xmlcharrefreplace").encode("ascii")


@dataclass
class WriterSettings:
    via: str = "web"  # web | api (mobile API v4 sendreply/sendpm, logged in by API v2)
    fast_reply: bool = False  # AJAX fast reply instead of the full-page form


@dataclass
class BoardWriter:
    """Writes as the configured account through ``client`` (its session, cookies and politeness).

    Every method sends at most ONE POST and returns its :class:`PostResult`; a GET that shows the form
    is refused (thread closed, no permission) returns that refusal without any POST.
    ``before_post`` is called right before the POST leaves (the outbox commits ``sending`` there).
    """

    client: BoardClient
    settings: WriterSettings = field(default_factory=WriterSettings)
    charset: str | None = None  # learnt from the first form page

    @property
    def root(self) -> str:
        return self.client.config.url

    # ------------------------------------------------------------------ login

    def ensure_login(self) -> None:
        """Log in when the session is not, through the client's one login (:meth:`BoardClient.login`).

        Why not a login of its own: the client's login consults the store's record of failed logins
        (its ``login_guard``) and learns the board's charset before encoding the username; a writer
        that logged in by itself made one more failed login per ``outbox send`` (four sends with a wrong
        password locked the IP) and sent a GBK board's username as UTF-8. ``via = "api"`` logs in through
        the API (version 2: X3.5's v4 login answers 503), falling back to the form when the API is closed.
        Raises LoginFailed, CaptchaRequired, NetworkError as the client does.
        """
        if self.client.logged_in:
            return
        self.client.login(via="api" if self.settings.via == "api" else None)

    def login_api(self, version: int = 2) -> PostResult:
        """The API login (module=login, ``version`` 1, 2 or 4) through the client's guarded login, as a
        PostResult. Version 4 answers a PHP fatal 503 on X3.5 although it logs in (exchange 31): the
        auth cookie, not the answer, says whether it worked."""
        url = urls.build(self.root, Url.API_LOGIN_VERSION, version=version)
        try:
            self.client.login(via="api", api_version=version)
        except CaptchaRequired as exc:
            return PostResult(
                Outcome.CAPTCHA, Action.API_LOGIN, url=url, board_message=exc.board_message, detail=exc.detail
            )
        except LoginFailed as exc:
            return PostResult(
                Outcome.LOGIN_FAILED,
                Action.API_LOGIN,
                url=url,
                board_message=exc.board_message,
                detail=exc.detail,
            )
        return PostResult(Outcome.SENT, Action.API_LOGIN, url=url, detail="the auth cookie is set")

    # ------------------------------------------------------------------ forms

    def _get_form(self, url: str, form_id: str, action: Action) -> tuple[Form | None, PostResult | None]:
        """GET a form page (once more after a login when it says "not logged in")."""
        for attempt in range(2):
            page = self.client.get(url)
            self.charset = detect_charset(page.body, page.content_type)
            form = parse_form(page.body, page.url or url, form_id=form_id, content_type=page.content_type)
            if form is not None and form.value("formhash"):
                return form, None
            refusal = classify_answer(Action.FORM, page.status, page.headers, page.body, base_url=url)
            if refusal.outcome is Outcome.NOT_LOGGED_IN and attempt == 0 and self.client.has_credentials:
                self.client._drop_auth_cookies()
                self.ensure_login()
                continue
            if refusal.outcome is Outcome.UNKNOWN:
                refusal = replace(
                    refusal, outcome=Outcome.NOT_SENT, detail=f"no {form_id} form: {refusal.detail}"
                )
            return None, replace(refusal, action=action, detail=f"(form page) {refusal.detail}")
        return None, PostResult(Outcome.NOT_LOGGED_IN, action, detail="still not logged in")

    def _post(
        self,
        action: Action,
        url: str,
        fields: Sequence[tuple[str, str]],
        *,
        referer: str | None,
        before_post: Callable[[], None] | None,
    ) -> PostResult:
        lost = outside_charset(
            "".join(v for k, v in fields if k in ("message", "subject")), self.charset or "utf-8"
        )
        if lost:  # the judge approved it before the board's charset was known: never silently
            return PostResult(
                Outcome.UNENCODABLE,
                action,
                board_message=_(
                    "the board ({charset}) cannot store {chars}: it would show them as codes; "
                    "approve again with the text changed, or as the board would show it"
                ).format(charset=self.charset, chars=name_characters(lost)),
                detail="characters outside the board's charset; nothing was sent",
            )
        body = encode_fields(fields, self.charset or "utf-8")
        if before_post is not None:
            before_post()
        try:
            resp = self.client.post_form(url, body, referer=referer)
        except requests.RequestException as exc:
            # The short cause only: requests' text is urllib3's repr nested three deep.
            if never_connected(exc):
                return PostResult(
                    Outcome.NOT_SENT,
                    action,
                    detail=_("no connection to {url}: {cause}").format(url=url, cause=network_cause(exc)),
                )
            return PostResult(
                Outcome.UNKNOWN,
                action,
                detail=_("sent to {url}, the answer was lost: {cause}").format(
                    url=url, cause=network_cause(exc)
                ),
            )
        return classify_answer(action, resp.status_code, resp.headers, resp.content, base_url=self.root)

    def reply(
        self,
        tid: int,
        message: str,
        *,
        fid: int | None = None,
        quote_pid: int | None = None,
        before_post: Callable[[], None] | None = None,
    ) -> PostResult:
        """Reply to ``tid`` (quoting ``quote_pid`` when given: the board prepends its [quote])."""
        self.ensure_login()
        if self.settings.via == "api":
            return self._api_reply(tid, message, fid=fid, quote_pid=quote_pid, before_post=before_post)
        if self.settings.fast_reply and quote_pid is None:
            return self._fast_reply(tid, message, before_post=before_post)
        form_url = (
            urls.build(self.root, Url.REPLY_FORM_FID, fid=fid, tid=tid)
            if fid
            else urls.build(self.root, Url.REPLY_FORM, tid=tid)
        )
        if quote_pid is not None:
            form_url += f"&repquote={quote_pid}"
        form, refusal = self._get_form(form_url, "postform", Action.REPLY)
        if form is None:
            assert refusal is not None
            return refusal
        fields = form.with_fields(message=message, wysiwyg="0", subject=form.value("subject") or "")
        return self._post(Action.REPLY, form.action, fields, referer=form_url, before_post=before_post)

    def _fast_reply(self, tid: int, message: str, *, before_post: Callable[[], None] | None) -> PostResult:
        page_url = urls.build(self.root, Url.VIEWTHREAD_FASTPOST, tid=tid)
        form, refusal = self._get_form(page_url, "fastpostform", Action.FASTREPLY)
        if form is None:
            assert refusal is not None
            return refusal
        url = form.action + ("&inajax=1" if "inajax=" not in form.action else "")
        fields = form.with_fields(message=message)
        return self._post(Action.FASTREPLY, url, fields, referer=page_url, before_post=before_post)

    def new_thread(
        self, fid: int, subject: str, message: str, *, before_post: Callable[[], None] | None = None
    ) -> PostResult:
        self.ensure_login()
        form_url = urls.build(self.root, Url.NEWTHREAD_FORM, fid=fid)
        form, refusal = self._get_form(form_url, "postform", Action.NEWTHREAD)
        if form is None:
            assert refusal is not None
            return refusal
        fields = form.with_fields(subject=subject, message=message, wysiwyg="0")
        result = self._post(Action.NEWTHREAD, form.action, fields, referer=form_url, before_post=before_post)
        return self.first_post_pid(result)

    def first_post_pid(self, result: PostResult) -> PostResult:
        """A new thread's answer with its first post's pid, read from the new thread's first page.

        Why: the board's 301 names only the tid (exchange 06), and without the pid the judge cannot edit
        the opening post through forumbot later. The first floor is taken only when it is ours (the
        account's name); a thread held for moderation shows no post, and a failed read leaves the pid
        unknown with a note: the thread is posted either way, so nothing here raises or sends again."""
        if not result.sent or result.tid is None or result.pid is not None:
            return result
        try:
            page = self.client.fetch_thread_page(result.tid, 1)
        except (ForumbotError, requests.RequestException) as exc:
            return replace(result, detail=f"{result.detail}; first post's pid not read: {exc}")
        me = self.client.config.username or ""
        first = next((p for p in page.posts if p.floor in (1, None)), None)
        if first is None or not me or first.author != me:
            return replace(result, detail=f"{result.detail}; the first floor of tid {result.tid} is not ours")
        return replace(result, pid=first.pid, detail=f"{result.detail}; first post's pid read from page 1")

    def edit(
        self,
        tid: int,
        pid: int,
        message: str,
        *,
        fid: int | None = None,
        subject: str | None = None,
        before_post: Callable[[], None] | None = None,
    ) -> PostResult:
        """Replace the text of one of the account's own posts (the form keeps fid/tid/pid/page)."""
        self.ensure_login()
        form_url = (
            urls.build(self.root, Url.EDIT_FORM_FID, fid=fid, tid=tid, pid=pid)
            if fid
            else urls.build(self.root, Url.EDIT_FORM, tid=tid, pid=pid)
        )
        form, refusal = self._get_form(form_url, "postform", Action.EDIT)
        if form is None:
            assert refusal is not None
            return refusal
        changes = {"message": message, "wysiwyg": "0", "delete": "0"}
        if subject is not None:
            changes["subject"] = subject
        fields = form.with_fields(**changes)
        return self._post(Action.EDIT, form.action, fields, referer=form_url, before_post=before_post)

    def send_pm(self, uid: int, message: str, *, before_post: Callable[[], None] | None = None) -> PostResult:
        """One private message to ``uid`` through the 发消息 popup (the only web answer with the pmid)."""
        self.ensure_login()
        if self.settings.via == "api":
            return self._api_pm(uid, message, before_post=before_post)
        form_url = urls.build(self.root, Url.PM_FORM, uid=uid)
        form, refusal = self._get_form(form_url, "pmform", Action.PM)
        if form is None:
            assert refusal is not None
            return refusal
        url = urls.build(self.root, Url.PM_SEND, uid=uid)
        fields = form.with_fields(
            pmsubmit="true", touid=str(uid), handlekey="sendpm", messageappend="", message=message
        )
        return self._post(Action.PM, url, fields, referer=None, before_post=before_post)

    def read_pm_conversation(self, uid: int) -> list[PmMessage]:
        """The last page of the conversation with ``uid`` (the judge's view), as the client reads it."""
        self.ensure_login()
        return list(self.client.fetch_pm_conversation(uid).messages)

    # ------------------------------------------------------------------ mobile API

    def _api_formhash(self, tid: int | None) -> str:
        url = urls.build(self.root, Url.API_VIEWTHREAD_PLAIN, tid=tid or 0)
        page = self.client.get(url)
        try:
            data = json.loads(page.body.decode("utf-8"))
            formhash = str(data["Variables"]["formhash"])
            self.charset = str(data.get("Charset") or self.charset or "utf-8").lower()
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            raise BoardError(url, "", _("no formhash in the API answer")) from exc
        if str(data["Variables"].get("member_uid", "0")) in ("", "0"):
            raise LoginRequired(url, "", _("the API does not see us logged in"))
        return formhash

    def _api_reply(
        self,
        tid: int,
        message: str,
        *,
        fid: int | None,
        quote_pid: int | None,
        before_post: Callable[[], None] | None,
    ) -> PostResult:
        formhash = self._api_formhash(tid)
        url = urls.build(self.root, Url.API_SENDREPLY, fid=fid or "", tid=tid)
        fields = [("formhash", formhash), ("message", message)]
        if quote_pid is not None:
            fields.append(("reppid", str(quote_pid)))
        return self._post(Action.API_REPLY, url, fields, referer=None, before_post=before_post)

    def _api_pm(self, uid: int, message: str, *, before_post: Callable[[], None] | None) -> PostResult:
        formhash = self._api_formhash(None)
        url = urls.build(self.root, Url.API_SENDPM, uid=uid)
        fields = [("formhash", formhash), ("message", message)]
        return self._post(Action.API_PM, url, fields, referer=None, before_post=before_post)
