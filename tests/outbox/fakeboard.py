# Page markup stays on the long lines Discuz! itself uses.
# ruff: noqa: E501
"""A board that takes posts: the reading board of tests/client/pagebuilder plus the write side of
Discuz! X3.5, answering as ../shared/fixtures/discuz-x35-posting/INDEX.md documents (these answers are
written here from that documentation, not copied):

- login: GET member.php?mod=logging&action=login (form#loginform_…, formhash), POST → 200 alert_right
  «欢迎您回来…» with Set-Cookie …_auth (02), or alert_error «登录失败，您还可以尝试 N 次» (03, 80: a GBK
  board reads the username's bytes as GBK);
- reply / edit / new thread: GET the form#postform page, POST → 301 Location with the pid (08, 14, 06),
  a wrong non-empty formhash → 503 «非法字符» (25), none → submit_invalid (26), a guest → alert_info
  «抱歉，您尚未登录，没有权限在该版块回帖» (23), floodctrl → «抱歉，您两次发表间隔少于 N 秒，请稍候再发表» (17),
  a closed thread → «抱歉，本主题已关闭，不再接受新内容» (45);
- PM: GET the showmsg popup (XML wrapping form#pmform_UID, 64), POST op=send&inajax=1 →
  ``succeedhandle_sendpm(url, '操作成功 ', {'pmid':'N'})`` (67), UCenter's pmfloodctrl → page
  «两次发送短消息太快，请稍候再发送» (69); the conversation page with dl#pmlist_PMID (74).

A GBK board (``charset="gbk"``) serves every page in GBK and reads every field's bytes as GBK: UTF-8
fields are stored as mojibake, as on the real board (84).
``on_post`` hooks let a test kill the sender after the board stored a post and before the answer.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import responses

from tests.client.pagebuilder import ROOT, FakeBoard, FakeThread, login_page, message_page, shell

SYSTEM_ERROR_TAINTED = """<!DOCTYPE html><html><head><title>bbs.example.com - System Error</title><meta charset="{cs}" /></head>
<body><div id="container"><h1>Discuz! System Error</h1><p>Time: 2026-06-04 11:00:00 +0800 IP: 127.0.0.1</p><div class="info"><li>您当前的访问请求当中含有非法字符，已经被系统拒绝</li></div></div></body></html>"""

GUEST_HASH = "9e5t0000"
MEMBER_HASH = "m3mb3r01"


@dataclass
class Pm:
    pmid: int
    from_uid: int
    to_uid: int
    text: str
    at: datetime


@dataclass
class WritableBoard(FakeBoard):
    """``install(rsps)`` registers GET and POST for forum.php, member.php and home.php."""

    charset: str = "utf-8"
    judge: str = "法官大人"
    judge_uid: int = 14
    password: str = "hunter2"
    users: dict[int, str] = field(default_factory=dict)
    floodctrl: int = 0
    pmfloodctrl: int = 15
    clock: Any = None  # a FakeClock: the board's "now" follows it
    closed: set[int] = field(default_factory=set)
    pms: list[Pm] = field(default_factory=list)
    posts_received: list[tuple[str, str]] = field(default_factory=list)  # (what, text) of every stored write
    on_post: list[Callable[[str, str], None]] = field(default_factory=list)  # called after storing
    auth_value: str = "jUdg3auth"
    _last_post_at: datetime | None = None
    _last_pm_at: datetime | None = None
    next_pmid: int = 1

    def __post_init__(self) -> None:
        FakeBoard.__init__(self)

    # ---------------------------------------------------------------- helpers

    @property
    def cs(self) -> str:
        return self.charset

    def _sync(self) -> None:
        if self.clock is not None and self.clock.now() > self.now:
            self.now = self.clock.now()

    def t(self) -> datetime:
        """The board's clock for flood control (the test's clock when given)."""
        return self.clock.now() if self.clock is not None else self.now  # type: ignore[no-any-return]

    def enc(self, text: str) -> bytes:
        if self.charset == "utf-8":
            return text.encode("utf-8")
        text = text.replace('charset="utf-8"', f'charset="{self.charset}"').replace(
            "charset = 'utf-8'", f"charset = '{self.charset}'"
        )
        text = text.replace('<meta charset="utf-8" />', f'<meta charset="{self.charset}" />')
        return text.encode(self.charset, errors="xmlcharrefreplace")

    def hdrs(self, ctype: str = "text/html") -> dict[str, str]:
        return self.headers(f"{ctype}; charset={self.charset}")

    def page(
        self, text: str, status: int = 200, extra: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        h = self.hdrs()
        h.update(extra or {})
        return status, h, self.enc(text)

    def xml(self, cdata: str) -> tuple[int, dict[str, str], bytes]:
        body = f'<?xml version="1.0" encoding="{self.charset}"?>\n<root><![CDATA[{cdata}]]></root>'
        return 200, self.hdrs("text/xml"), self.enc(body)

    def logged_in(self, request: Any) -> bool:
        cookie = request.headers.get("Cookie", "")
        return f"test_2132_auth={self.auth_value}" in cookie

    def fields(self, request: Any) -> dict[str, str]:
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode("ascii")
        raw = parse_qs(body.decode("ascii"), keep_blank_values=True, encoding=self.charset, errors="replace")
        return {k: v[-1] for k, v in raw.items()}

    def error(self, message: str, kind: str = "alert_error") -> tuple[int, dict[str, str], bytes]:
        return self.page(message_page(message, kind=kind))

    def formhash(self, request: Any) -> str:
        return MEMBER_HASH if self.logged_in(request) else GUEST_HASH

    def check_form(self, request: Any, f: dict[str, str]) -> tuple[int, dict[str, str], bytes] | None:
        """Discuz!'s order: _xss_check (a wrong formhash: 503), then submitcheck, then the login."""
        given = f.get("formhash", "")
        if given and given != self.formhash(request):
            return (
                503,
                {"Retry-After": "3600", **self.hdrs()},
                self.enc(SYSTEM_ERROR_TAINTED.format(cs=self.charset)),
            )
        if not given:
            return self.error("抱歉，您的请求来路不正确或表单验证串不符，无法提交")
        if not self.logged_in(request):
            return self.error("抱歉，您尚未登录，没有权限在该版块回帖", "alert_info")
        return None

    def stored(self, what: str, text: str) -> None:
        self.posts_received.append((what, text))
        for hook in list(self.on_post):
            hook(what, text)

    def thread_by_pid(self, pid: int) -> FakeThread:
        for t in self.threads.values():
            if any(p.pid == pid for p in t.posts):
                return t
        raise KeyError(pid)

    # ---------------------------------------------------------------- forms

    def post_form_page(
        self, action: str, hidden: dict[str, str], request: Any, *, subject: str = "", message: str = ""
    ) -> str:
        inputs = "".join(
            f'<input type="hidden" name="{k}" id="{k}" value="{html.escape(v)}" />\n'
            for k, v in hidden.items()
        )
        body = f"""<form method="post" autocomplete="off" id="postform" action="{html.escape(action)}" onsubmit="return validate(this)">
<input type="hidden" name="formhash" id="formhash" value="{self.formhash(request)}" />
<input type="hidden" name="posttime" id="posttime" value="1796130998" />
<input type="hidden" name="wysiwyg" id="e_mode" value="1" />
{inputs}<input type="text" name="subject" id="subject" class="px" value="{html.escape(subject)}" />
<textarea name="message" id="e_textarea" class="pt" rows="15">{html.escape(message)}</textarea>
<input type="checkbox" name="usesig" id="usesig" class="pc" value="1" checked="checked" />
<input type="checkbox" name="htmlon" id="htmlon" class="pc" value="0" />
<input type="hidden" name="save" id="postsave" value="" />
</form>"""
        return shell(
            "发表帖子",
            body,
            "",
            uid=self.judge_uid if self.logged_in(request) else 0,
            formhash=self.formhash(request),
        )

    # ---------------------------------------------------------------- dispatch

    def respond_any(self, request: Any) -> tuple[int, dict[str, str], bytes]:
        self._sync()
        parts = urlsplit(request.url)
        q = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        if request.method == "POST":
            self.requests.append("POST " + request.url)
            if parts.path.endswith("member.php"):
                return self.login_post(request)
            if parts.path.endswith("home.php"):
                return self.pm_post(request, q)
            return self.forum_post(request, q)
        if parts.path.endswith("member.php"):
            self.requests.append(request.url)
            text = login_page(formhash=GUEST_HASH)
            return self.page(text)
        if parts.path.endswith("home.php"):
            self.requests.append(request.url)
            return self.pm_get(request, q)
        if q.get("mod") == "post":
            self.requests.append(request.url)
            return self.post_form_get(request, q)
        if (
            q.get("mod") == "viewthread"
            and q.get("authorid", "").isdigit()
            and int(q.get("tid", "0")) in self.threads
        ):
            # 只看该作者: the thread as if only this author had posted (floors renumbered, as on the board)
            t = self.threads[int(q["tid"])]
            saved = t.posts
            t.posts = [p for p in saved if p.uid == int(q["authorid"])]
            try:
                self.requests.append(request.url)
                status, h, body = (
                    200,
                    self.headers(),
                    self.thread_html(t.tid, int(q.get("page", "1") or 1)).encode(),
                )
            finally:
                t.posts = saved
        else:
            status, h, body = self.respond(request)
        if self.charset != "utf-8":
            h["Content-Type"] = h.get("Content-Type", "text/html").replace("utf-8", self.charset)
            body = self.enc(body.decode("utf-8"))
        return status, h, body

    # ---------------------------------------------------------------- login

    def login_post(self, request: Any) -> tuple[int, dict[str, str], bytes]:
        f = self.fields(request)
        if f.get("username") != self.judge or f.get("password") != self.password:
            return self.error("登录失败，您还可以尝试 4 次")
        welcome = f"""<div id="messagetext" class="alert_right"><p><script type="text/javascript">$('succeedlocation').innerHTML = '欢迎您回来，新手上路 {self.judge}，现在将转入登录前页面';</script></p></div>"""
        status, h, body = self.page(
            f'<!DOCTYPE html><html><head><meta charset="utf-8" /><title>提示信息</title></head><body>{welcome}</body></html>'
        )
        h["Set-Cookie"] = f"test_2132_auth={self.auth_value}; path=/"
        return status, h, body

    # ---------------------------------------------------------------- posts

    def post_form_get(self, request: Any, q: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if not self.logged_in(request):
            return self.error("抱歉，您尚未登录，没有权限在该版块回帖", "alert_info")
        action = q.get("action")
        if action == "reply":
            tid = int(q.get("tid", "0"))
            if tid not in self.threads:
                return self.error("抱歉，指定的主题不存在或已被删除或正在被审核")
            if tid in self.closed:
                return self.error("抱歉，本主题已关闭，不再接受新内容")
            fid = self.threads[tid].fid
            return self.page(
                self.post_form_page(
                    f"forum.php?mod=post&action=reply&fid={fid}&tid={tid}&extra=&replysubmit=yes",
                    {"noticeauthor": "", "noticetrimstr": "", "noticeauthormsg": ""},
                    request,
                )
            )
        if action == "newthread":
            fid = int(q.get("fid", "0"))
            return self.page(
                self.post_form_page(
                    f"forum.php?mod=post&action=newthread&fid={fid}&extra=&topicsubmit=yes", {}, request
                )
            )
        if action == "edit":
            pid = int(q.get("pid", "0"))
            t = self.thread_by_pid(pid)
            p = self.post(pid)
            if p.author != self.judge:
                return self.error("抱歉，您没有权限编辑他人发表的帖子")
            hidden = {
                "delattachop": "0",
                "fid": str(t.fid),
                "tid": str(t.tid),
                "pid": str(pid),
                "page": "1",
                "delete": "0",
            }
            return self.page(
                self.post_form_page(
                    "forum.php?mod=post&action=edit&extra=&editsubmit=yes", hidden, request, message=p.text
                )
            )
        return self.error("抱歉，您没有权限访问该版块")

    def forum_post(self, request: Any, q: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        f = self.fields(request)
        refused = self.check_form(request, f)
        if refused is not None:
            return refused
        if f.get("wysiwyg") != "0":
            return self.error("test board: wysiwyg=0 was not sent (the BBCode would go through html2bbcode)")
        message = f.get("message", "")
        if not message.strip():
            return self.error("抱歉，您尚未输入标题或内容")
        action = q.get("action")
        last = self._last_post_at
        if action in ("reply", "newthread") and self.floodctrl and last is not None:  # noqa: SIM102
            if (self.t() - last).total_seconds() < self.floodctrl:
                return self.error(f"抱歉，您两次发表间隔少于 {self.floodctrl} 秒，请稍候再发表")
        if action == "reply":
            tid = int(q.get("tid", "0"))
            if tid in self.closed:
                return self.error("抱歉，本主题已关闭，不再接受新内容")
            pid = self.reply(tid, self.judge, message)
            self.post(pid).uid = self.judge_uid
            self._last_post_at = self.t()
            self.stored("reply", message)
            page = self.pages(tid)
            return (
                301,
                {
                    **self.hdrs(),
                    "Location": f"forum.php?mod=viewthread&tid={tid}&pid={pid}&page={page}&extra=#pid{pid}",
                },
                b"",
            )
        if action == "newthread":
            fid = int(q.get("fid", "0"))
            tid = max(self.threads, default=0) + 1
            t = FakeThread(tid, fid, f.get("subject", ""))
            self.threads[tid] = t
            pid = self.reply(tid, self.judge, message)
            self.post(pid).uid = self.judge_uid
            self._last_post_at = self.t()
            self.stored("newthread", message)
            return 301, {**self.hdrs(), "Location": f"forum.php?mod=viewthread&tid={tid}&extra="}, b""
        if action == "edit":
            pid = int(f.get("pid", "0"))
            p = self.post(pid)
            if p.author != self.judge:
                return self.error("抱歉，您没有权限编辑他人发表的帖子")
            self.edit(pid, message)
            self.stored("edit", message)
            return (
                301,
                {
                    **self.hdrs(),
                    "Location": f"forum.php?mod=viewthread&tid={f.get('tid')}&page=1&extra=#pid{pid}",
                },
                b"",
            )
        return self.error("抱歉，您没有权限访问该版块")

    # ---------------------------------------------------------------- private messages

    def pm_get(self, request: Any, q: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if not self.logged_in(request):
            return self.error("您需要先登录才能继续本操作", "alert_info")
        if q.get("op") == "showmsg":
            uid = int(q.get("touid", "0"))
            form = f"""<form id="pmform_{uid}" name="pmform_{uid}" method="post" autocomplete="off" action="home.php?mod=spacecp&amp;ac=pm&amp;op=send&amp;touid={uid}">
<input type="hidden" name="pmsubmit" value="true" /><input type="hidden" name="touid" value="{uid}" />
<input type="hidden" name="formhash" value="{self.formhash(request)}" /><input type="hidden" name="handlekey" value="sendpm" />
<input type="hidden" name="messageappend" id="messageappend" value="" />
<textarea rows="6" cols="80" name="message" id="pm_textarea" class="pt"></textarea></form>"""
            return self.xml(f'<h3 class="flb"><em>发送消息</em></h3>{form}')
        if q.get("do") == "pm" and q.get("subop") == "view":
            uid = int(q.get("touid", "0"))
            conv = [m for m in self.pms if {m.from_uid, m.to_uid} == {self.judge_uid, uid}]
            dls = []
            for m in conv[-10:]:
                author = (
                    '<span class="xi2 xw1">您</span>'
                    if m.from_uid == self.judge_uid
                    else f'<a href="home.php?mod=space&amp;uid={m.from_uid}" target="_blank" class="xw1">{html.escape(self.users.get(m.from_uid, "?"))}</a>'
                )
                text = html.escape(m.text).replace("\n", "<br />\n")
                dls.append(f"""<dl id="pmlist_{m.pmid}" class="bbda cl">
<dd class="m avt" ><a href="home.php?mod=space&amp;uid={m.from_uid}" target="_blank"><img src="x.png" class="user_avatar"></a></dd>
<dd class="ptm">
{author}
 &nbsp;
<br />
{text}<br />
<span class="xg1"><span title="2026-6-4 11:00">1&nbsp;分钟前</span></span>
</dd>
</dl>""")
            body = f'<div id="pm_ul" class="xld xlda mbm pml">{"".join(dls)}</div>'
            return self.page(shell("短消息", body, "", uid=self.judge_uid, formhash=self.formhash(request)))
        return self.error("抱歉，您没有权限访问该版块")

    def pm_post(self, request: Any, q: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        f = self.fields(request)
        given = f.get("formhash", "")
        if given and given != self.formhash(request):
            return (
                503,
                {"Retry-After": "3600", **self.hdrs()},
                self.enc(SYSTEM_ERROR_TAINTED.format(cs=self.charset)),
            )
        if not given:
            return self.error("抱歉，您的请求来路不正确或表单验证串不符，无法提交")
        if not self.logged_in(request):
            return self.error("您需要先登录才能继续本操作", "alert_info")
        uid = int(q.get("touid") or f.get("touid") or 0)
        ajax = q.get("inajax") == "1"

        def refuse(msg: str) -> tuple[int, dict[str, str], bytes]:
            if ajax:
                return self.xml(
                    f"{msg}<script type=\"text/javascript\" reload=\"1\">if(typeof errorhandle_sendpm=='function') {{errorhandle_sendpm('{msg}', {{}});}}</script>"
                )
            return self.error(msg)

        if uid not in self.users:
            return refuse("抱歉，用户不存在或被冻结，请检查用户uid是否正确")
        if not f.get("message", "").strip():
            return refuse("抱歉，不能发送空消息")
        if self.pmfloodctrl and self._last_pm_at is not None:  # noqa: SIM102
            if (self.t() - self._last_pm_at).total_seconds() < self.pmfloodctrl:
                return refuse("两次发送短消息太快，请稍候再发送")
        pm = Pm(self.next_pmid, self.judge_uid, uid, f["message"], self.now)
        self.next_pmid += 1
        self.pms.append(pm)
        self._last_pm_at = self.t()
        self.stored("pm", f["message"])
        url = f"home.php?mod=space&do=pm&subop=view&touid={uid}"
        if ajax:
            return self.xml(
                f"<script type=\"text/javascript\" reload=\"1\">if(typeof succeedhandle_sendpm=='function') {{succeedhandle_sendpm('{url}', '操作成功 ', {{'pmid':'{pm.pmid}'}});}}</script>"
            )
        return 301, {**self.hdrs(), "Location": url}, b""

    # ---------------------------------------------------------------- install

    def install(self, rsps: responses.RequestsMock) -> None:  # type: ignore[override]
        pattern = re.compile("^" + re.escape(self.root) + r"(forum\.php|member\.php|home\.php).*")
        rsps.add_callback(responses.GET, pattern, callback=self.respond_any)
        rsps.add_callback(responses.POST, pattern, callback=self.respond_any)

    def count_stored(self, text: str) -> int:
        return sum(1 for _, t in self.posts_received if t == text)


__all__ = ["ROOT", "WritableBoard"]
