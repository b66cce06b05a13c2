"""The write side of the demo board: login, reply, edit, new thread and private messages.

Why: ``forumbot demo`` shows the outbox end to end, so the local example board must take the judge's
POSTs and answer them as a real Discuz! X3.5 board does (../shared/fixtures/discuz-x35-posting/INDEX.md):
the login's ``alert_right`` page with the ``…_auth`` cookie (02), a 301 with the new pid for a reply
(08), the ``#pidP`` fragment for an edit (14), the tid for a new thread (06), ``succeedhandle_sendpm``
with the pmid for a PM sent through the popup (67), UCenter's 15 s between two PMs (69), a 503
«非法字符» for a wrong formhash (25), submit_invalid for none (26), «您尚未登录» for a guest (23). What
was written shows on the next page read: new posts at the end of the thread's last page, edits in place
with the edit marker, PMs in the conversation page (74).
"""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

if TYPE_CHECKING:
    from forumbot.demoboard import DemoBoard

# ruff: noqa: E501  (board markup on Discuz!'s own long lines)

TZ = ZoneInfo("Asia/Shanghai")
GUEST_HASH = "9e5t0000"
MEMBER_HASH = "d3m0f0rm"
AUTH = "demo_2132_auth"

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8" /><title>{title} - 版杀测试论坛 - Powered by Discuz!</title></head>
<body><div id="wp" class="wp"><div id="ct" class="wp cl w">{body}</div></div></body></html>"""

TAINTED = """<!DOCTYPE html><html><head><title>127.0.0.1 - System Error</title><meta charset="utf-8" /></head>
<body><div id="container"><h1>Discuz! System Error</h1><div class="info"><li>您当前的访问请求当中含有非法字符，已经被系统拒绝</li></div></div></body></html>"""


def _message(text: str, kind: str = "alert_error") -> bytes:
    body = f'<div class="nfl"><div class="f_c altw"><div id="messagetext" class="{kind}"><p>{text}</p></div></div></div>'
    return PAGE.format(title="提示信息", body=body).encode("utf-8")


def _xml(cdata: str) -> bytes:
    return f'<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[{cdata}]]></root>'.encode()


def render_bbcode(text: str) -> str:
    """The little BBCode the judges' drafts use, rendered as Discuz! does; other tags are dropped."""
    out = html.escape(text)
    out = re.sub(r"\[b\](.*?)\[/b\]", r"<strong>\1</strong>", out, flags=re.S | re.I)
    out = re.sub(r"\[i\](.*?)\[/i\]", r"<i>\1</i>", out, flags=re.S | re.I)
    out = re.sub(
        r"\[url=([^\]]+)\](.*?)\[/url\]", r'<a href="\1" target="_blank">\2</a>', out, flags=re.S | re.I
    )
    out = re.sub(r"\[/?[a-z]+(=[^\]]*)?\]", "", out, flags=re.I)
    return out.replace("\n", "<br />\n")


def _keep_cell(inner: str) -> Callable[[re.Match[str]], str]:
    """A re.sub replacement that keeps the cell's tags and puts ``inner`` between them."""

    def repl(m: re.Match[str]) -> str:
        return m.group(1) + inner + m.group(2)

    return repl


@dataclass
class Written:
    pid: int
    tid: int
    text: str
    at: datetime
    subject: str = ""


@dataclass
class DemoPm:
    pmid: int
    to_uid: int
    text: str
    at: datetime


class DemoWriter:
    """The judge's writes to a :class:`~forumbot.demoboard.DemoBoard`, held in memory."""

    def __init__(
        self, board: DemoBoard, *, judge: str = "法官大人", judge_uid: int = 14, password: str = "demo"
    ) -> None:
        self.board = board
        self.judge = judge
        self.judge_uid = judge_uid
        self.password = password
        self.posts: list[Written] = []
        self.edits: dict[int, tuple[str, datetime]] = {}
        self.pms: list[DemoPm] = []
        self.threads: dict[int, tuple[int, str]] = {}  # new threads: tid -> (fid, subject)
        self._lock = threading.Lock()
        self._last_pm_at: datetime | None = None

    # ------------------------------------------------------------------ helpers

    def now(self) -> datetime:
        return parsedate_to_datetime(self.board.snapshot_date()).astimezone(UTC)

    def logged_in(self, cookie: str) -> bool:
        return f"{AUTH}=ok" in cookie

    def uids(self) -> dict[int, str]:
        """Every author of the example pages, by uid (the players the judge may write to)."""
        found: dict[int, str] = {self.judge_uid: self.judge}
        for page in self.board.board_dir.glob("*/viewthread-*.html"):
            for uid, name in re.findall(
                r'uid=(\d+)" target="_blank" class="xw1">([^<]+)</a>', page.read_text("utf-8")
            ):
                found.setdefault(int(uid), name)
        return found

    def _max_pid(self) -> int:
        pids = [
            int(p)
            for f in self.board.board_dir.glob("*/viewthread-*.html")
            for p in re.findall(r'id="post_(\d+)"', f.read_text("utf-8"))
        ]
        return max([*pids, *(w.pid for w in self.posts), 0])

    def _next_tid(self) -> int:
        """The tid a new thread gets (the example pages use tids up to 5)."""
        return max([5, *self.threads]) + 1

    def _form_page(self, action: str, hidden: dict[str, str], cookie: str, message: str = "") -> bytes:
        fields = "".join(
            f'<input type="hidden" name="{k}" value="{html.escape(v)}" />\n' for k, v in hidden.items()
        )
        form = f"""<form method="post" autocomplete="off" id="postform" action="{html.escape(action)}">
<input type="hidden" name="formhash" id="formhash" value="{MEMBER_HASH if self.logged_in(cookie) else GUEST_HASH}" />
<input type="hidden" name="posttime" id="posttime" value="1780000000" />
<input type="hidden" name="wysiwyg" id="e_mode" value="1" />
{fields}<input type="text" name="subject" id="subject" class="px" value="" />
<textarea name="message" id="e_textarea" class="pt" rows="15">{html.escape(message)}</textarea>
<input type="checkbox" name="usesig" id="usesig" class="pc" value="1" checked="checked" />
<input type="hidden" name="save" id="postsave" value="" /></form>"""
        return PAGE.format(title="发表帖子", body=form).encode("utf-8")

    # ------------------------------------------------------------------ GET

    def answer_get(self, path: str, cookie: str) -> tuple[int, bytes] | None:
        """The write side's pages (forms, PM pages); None for the example pages themselves."""
        parts = urlsplit(path)
        q = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        if parts.path.endswith("member.php") and q.get("mod") == "logging":
            form = f"""<form method="post" autocomplete="off" name="login" id="loginform_LdEm0" class="cl" action="member.php?mod=logging&amp;action=login&amp;loginsubmit=yes&amp;loginhash=LdEm0">
<input type="hidden" name="formhash" value="{GUEST_HASH}" /><input type="hidden" name="referer" value="./" />
<input type="text" name="username" class="px p_fre" value="" /><input type="password" name="password" class="px p_fre" />
<button class="pn pnc" type="submit" name="loginsubmit" value="true"><strong>登录</strong></button></form>"""
            return 200, PAGE.format(title="登录", body=form).encode("utf-8")
        if parts.path.endswith("forum.php") and q.get("mod") == "post":
            if not self.logged_in(cookie):
                return 200, _message("抱歉，您尚未登录，没有权限在该版块回帖", "alert_info")
            action = q.get("action")
            if action == "reply":
                tid = q.get("tid", "0")
                return 200, self._form_page(
                    f"forum.php?mod=post&action=reply&fid={q.get('fid', '3')}&tid={tid}&extra=&replysubmit=yes",
                    {"noticeauthor": "", "noticetrimstr": "", "noticeauthormsg": ""},
                    cookie,
                )
            if action == "newthread":
                return 200, self._form_page(
                    f"forum.php?mod=post&action=newthread&fid={q.get('fid', '3')}&extra=&topicsubmit=yes",
                    {},
                    cookie,
                )
            if action == "edit":
                pid = int(q.get("pid", "0") or 0)
                mine = {w.pid: w for w in self.posts}
                if pid not in mine:
                    return 200, _message("抱歉，您没有权限编辑他人发表的帖子")
                hidden = {
                    "fid": q.get("fid", "3"),
                    "tid": str(mine[pid].tid),
                    "pid": str(pid),
                    "page": "1",
                    "delete": "0",
                }
                text = self.edits.get(pid, (mine[pid].text, mine[pid].at))[0]
                return 200, self._form_page(
                    "forum.php?mod=post&action=edit&extra=&editsubmit=yes", hidden, cookie, text
                )
        if parts.path.endswith("home.php"):
            if not self.logged_in(cookie):
                return 200, _message("您需要先登录才能继续本操作", "alert_info")
            if q.get("op") == "showmsg":
                touid = q.get("touid", "0")
                return 200, _xml(
                    f"""<form id="pmform_{touid}" method="post" action="home.php?mod=spacecp&amp;ac=pm&amp;op=send&amp;touid={touid}">
<input type="hidden" name="pmsubmit" value="true" /><input type="hidden" name="touid" value="{touid}" />
<input type="hidden" name="formhash" value="{MEMBER_HASH}" /><input type="hidden" name="handlekey" value="sendpm" />
<input type="hidden" name="messageappend" value="" /><textarea name="message"></textarea></form>"""
                )
            if q.get("do") == "pm" and q.get("subop") == "view":
                uid = int(q.get("touid", "0") or 0)
                dls = "".join(
                    f"""<dl id="pmlist_{m.pmid}" class="bbda cl"><dd class="m avt"><a href="home.php?mod=space&amp;uid={self.judge_uid}" target="_blank"><img src="x" /></a></dd>
<dd class="ptm"><span class="xi2 xw1">您</span> &nbsp; <br />
{html.escape(m.text).replace(chr(10), "<br />" + chr(10))}<br />
<span class="xg1"><span title="{m.at.astimezone(TZ):%Y-%m-%d %H:%M}">刚刚</span></span></dd></dl>"""
                    for m in self.pms
                    if m.to_uid == uid
                )
                return 200, PAGE.format(
                    title="短消息", body=f'<div id="pm_ul" class="xld xlda mbm pml">{dls}</div>'
                ).encode()
        return None

    # ------------------------------------------------------------------ POST

    def answer_post(self, path: str, raw: bytes, cookie: str) -> tuple[int, bytes, dict[str, str]]:
        parts = urlsplit(path)
        q = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        f = {k: v[-1] for k, v in parse_qs(raw.decode("ascii", "replace"), keep_blank_values=True).items()}
        with self._lock:
            if parts.path.endswith("member.php"):
                if f.get("username") == self.judge and f.get("password") == self.password:
                    js = f"$('succeedlocation').innerHTML = '欢迎您回来，新手上路 {self.judge}，现在将转入登录前页面';"
                    body = PAGE.format(
                        title="提示信息",
                        body=f'<div id="messagetext" class="alert_right"><p><script type="text/javascript">{js}</script></p></div>',
                    )
                    return 200, body.encode(), {"Set-Cookie": f"{AUTH}=ok; path=/"}
                return 200, _message("登录失败，您还可以尝试 4 次"), {}
            given = f.get("formhash", "")
            if given and given != (MEMBER_HASH if self.logged_in(cookie) else GUEST_HASH):
                return 503, TAINTED.encode(), {"Retry-After": "3600"}
            if not given:
                return 200, _message("抱歉，您的请求来路不正确或表单验证串不符，无法提交"), {}
            if not self.logged_in(cookie):
                return 200, _message("抱歉，您尚未登录，没有权限在该版块回帖", "alert_info"), {}
            message = f.get("message", "")
            if not message.strip():
                return 200, _message("抱歉，您尚未输入标题或内容"), {}
            now = self.now()
            if parts.path.endswith("home.php"):
                return self._pm(q, f, message, now)
            action = q.get("action")
            if action in ("reply", "newthread"):
                pid = self._max_pid() + 1
                if action == "newthread":
                    tid = self._next_tid()
                    self.threads[tid] = (int(q.get("fid", "3") or 3), f.get("subject", ""))
                    self.posts.append(Written(pid, tid, message, now, f.get("subject", "")))
                    return 301, b"", {"Location": f"forum.php?mod=viewthread&tid={tid}&extra="}
                tid = int(q.get("tid", "0") or 0)
                self.posts.append(Written(pid, tid, message, now + timedelta(seconds=len(self.posts))))
                return (
                    301,
                    b"",
                    {"Location": f"forum.php?mod=viewthread&tid={tid}&pid={pid}&page=1&extra=#pid{pid}"},
                )
            if action == "edit":
                pid = int(f.get("pid", "0") or 0)
                if pid not in {w.pid for w in self.posts}:
                    return 200, _message("抱歉，您没有权限编辑他人发表的帖子"), {}
                self.edits[pid] = (message, now)
                return (
                    301,
                    b"",
                    {"Location": f"forum.php?mod=viewthread&tid={f.get('tid')}&page=1&extra=#pid{pid}"},
                )
            return 200, _message("抱歉，您没有权限访问该版块"), {}

    def _pm(
        self, q: dict[str, str], f: dict[str, str], message: str, now: datetime
    ) -> tuple[int, bytes, dict[str, str]]:
        uid = int(q.get("touid") or f.get("touid") or 0)
        if uid not in self.uids() or uid == self.judge_uid:
            return (
                200,
                _xml(
                    "<script>errorhandle_sendpm('抱歉，用户不存在或被冻结，请检查用户uid是否正确', {});</script>"
                ),
                {},
            )
        # The snapshot's clock stands still, so UCenter's 15 s cannot be checked here: the sender paces.
        pmid = len(self.pms) + 1
        self.pms.append(DemoPm(pmid, uid, message, now))
        self._last_pm_at = now
        url = f"home.php?mod=space&do=pm&subop=view&touid={uid}"
        return (
            200,
            _xml(
                f"<script type=\"text/javascript\" reload=\"1\">if(typeof succeedhandle_sendpm=='function') {{succeedhandle_sendpm('{url}', '操作成功 ', {{'pmid':'{pmid}'}});}}</script>"
            ),
            {},
        )

    # ------------------------------------------------------------------ showing what was written

    def show_writes(self, path: str, body: bytes) -> bytes:
        """The example page with the judge's posts appended (last page) and edits applied."""
        if not (self.posts or self.edits):
            return body
        parts = urlsplit(path)
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if q.get("mod") != "viewthread" or not q.get("tid", "").isdigit():
            return body
        tid = int(q["tid"])
        text = body.decode("utf-8")
        for pid, (new, when) in self.edits.items():
            replacement = "\n" + self._marker(when) + render_bbcode(new)
            text = re.sub(
                rf'(<td class="t_f" id="postmessage_{pid}">).*?(</td>)',
                _keep_cell(replacement),
                text,
                flags=re.S,
            )
        mine = [w for w in self.posts if w.tid == tid and f'id="post_{w.pid}"' not in text]
        pager = re.search(r'<span title="共 (\d+) 页">', text)
        page = int(q.get("page", "1") or 1)
        is_last = pager is None or page >= int(pager.group(1))
        if mine and is_last:
            floors = [int(n) for n in re.findall(r"<em>(\d+)</em><sup>#</sup>", text)]
            floor = max(floors, default=1)
            posts = []
            for w in mine:
                floor += 1
                edited = self.edits.get(w.pid)
                shown = (
                    self._marker(edited[1]) + render_bbcode(edited[0]) if edited else render_bbcode(w.text)
                )
                posts.append(self._post_html(w, floor, shown))
            ends = [m.end() for m in re.finditer(r"</table>\n</div>\n", text)]
            at = (
                ends[-1]
                if ends
                else text.find('<div id="postlist"') + len('<div id="postlist" class="pl bm">')
            )
            text = text[:at] + "".join(posts) + text[at:]
        return text.encode("utf-8")

    def _marker(self, at: datetime) -> str:
        local = at.astimezone(TZ)
        when = f"{local.year}-{local.month}-{local.day} {local:%H:%M}"
        return f'<i class="pstatus"> 本帖最后由 {self.judge} 于 {when} 编辑 </i><br />\n<br />\n'

    def _post_html(self, w: Written, floor: int, shown: str) -> str:
        local = w.at.astimezone(TZ)
        return f"""<div id="post_{w.pid}" ><table id="pid{w.pid}" class="plhin" summary="pid{w.pid}" cellspacing="0" cellpadding="0">
<tr>
 <td class="pls" rowspan="2">
<div id="favatar{w.pid}" class="pls cl favatar">
<div class="pi">
<div class="authi"><a href="home.php?mod=space&amp;uid={self.judge_uid}" target="_blank" class="xw1">{self.judge}</a>
</div>
</div>
</div>
</td>
<td class="plc">
<div class="pi">
<strong>
<a href="forum.php?mod=redirect&goto=findpost&ptid={w.tid}&pid={w.pid}"   id="postnum{w.pid}" onclick="setCopy(this.href, '帖子地址复制成功');return false;">
<em>{floor}</em><sup>#</sup></a>
</strong>
<div class="pti">
<div class="authi">
<em id="authorposton{w.pid}">发表于 {local.year}-{local.month}-{local.day} {local:%H:%M:%S}</em>
</div>
</div>
</div><div class="pct"><div class="pcb">
<div class="t_fsz"><table cellspacing="0" cellpadding="0"><tr><td class="t_f" id="postmessage_{w.pid}">
{shown}</td></tr></table>
</div>
</div>
</div>
</td></tr>
</table>
</div>
"""
