# Page markup stays on the long lines Discuz! itself uses.
# ruff: noqa: E501
"""A tiny Discuz! X3.5 board for tests: threads held in memory, served through ``responses``.

Why: the client and the poller must be tested against what a board serves (PC pages, the forum
list, the mobile API, error and login pages) without touching the network or copying the captured
pages of shared/fixtures. The markup follows shared/fixtures/discuz-x35-utf8/STRUCTURE.md: one
``div#post_<pid>`` per post, ``em#authorposton<pid>``, ``td.t_f#postmessage_<pid>``, the edit marker
``i.pstatus``, ``div.quote`` with a findpost link, ``div.pg`` with ``共 N 页``, the ``var fid/tid`` JS.

Paging is by offset over the visible posts (as older Discuz! did): deleting a post moves later pids
to earlier pages, the hard case for deletion detection. A page beyond the last is the last page.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import responses

ROOT = "http://bbs.example.com/"
TZ = ZoneInfo("Asia/Shanghai")
T0 = datetime(2026, 6, 4, 1, 0, 0, tzinfo=UTC)  # 09:00 board time
LABELS = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}
PLACEHOLDERS = {
    "banned": "作者被禁止或删除 内容自动屏蔽",
    "blocked": "该帖被管理员或版主屏蔽",
}


def ymd(dt: datetime, seconds: bool = True) -> str:
    d = dt.astimezone(TZ)
    base = f"{d.year}-{d.month}-{d.day} {d.hour:02d}:{d.minute:02d}"
    return f"{base}:{d.second:02d}" if seconds else base


@dataclass
class FakePost:
    pid: int
    author: str
    uid: int
    text: str
    at: datetime
    edited_by: str | None = None
    edited_at: datetime | None = None
    state: str = "normal"  # normal | banned | blocked
    quote_pid: int | None = None
    deleted: bool = False


@dataclass
class FakeThread:
    tid: int
    fid: int
    subject: str
    posts: list[FakePost] = field(default_factory=list)
    sticky_pids: list[int] = field(default_factory=list)  # repeated at the top of page 1

    def visible(self) -> list[FakePost]:
        return [p for p in self.posts if not p.deleted]

    @property
    def replies(self) -> int:
        return max(len(self.visible()) - 1, 0)

    @property
    def last_post_at(self) -> datetime:
        return max(p.at for p in self.visible())


def render_body(p: FakePost, by_pid: dict[int, FakePost], tid: int, *, marker: bool = True) -> str:
    if p.state in PLACEHOLDERS:
        return f'<div class="locked">{PLACEHOLDERS[p.state]}</div>'
    out: list[str] = []
    if marker and p.edited_by and p.edited_at:
        out.append(
            f'<i class="pstatus"> 本帖最后由 {p.edited_by} 于 {ymd(p.edited_at, False)} 编辑 </i><br />\n<br />\n'
        )
    if p.quote_pid is not None and p.quote_pid in by_pid:
        q = by_pid[p.quote_pid]
        out.append(
            '<div class="quote"><blockquote><font size="2"><a href="forum.php?mod=redirect&amp;goto=findpost'
            f'&amp;pid={q.pid}&amp;ptid={tid}" target="_blank"><font color="#999999">{html.escape(q.author)} 发表于 '
            f"{ymd(q.at, False)}</font></a></font><br />\n{html.escape(q.text[:100])}</blockquote></div><br />\n"
        )
    out.append(html.escape(p.text).replace("\n", "<br />\n"))
    return "".join(out)


def render_post(p: FakePost, floor: int, by_pid: dict[int, FakePost], tid: int, fid: int) -> str:
    label = LABELS.get(floor)
    floor_html = label if label else f"<em>{floor}</em><sup>#</sup>"
    href = (
        f"forum.php?mod=viewthread&tid={tid}"
        if floor == 1
        else f"forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={p.pid}"
    )
    return f"""<div id="post_{p.pid}" ><table id="pid{p.pid}" class="plhin" summary="pid{p.pid}" cellspacing="0" cellpadding="0">
<tr>
 <td class="pls" rowspan="2">
<div id="favatar{p.pid}" class="pls cl favatar">
<div class="pi">
<div class="authi"><a href="home.php?mod=space&amp;uid={p.uid}" target="_blank" class="xw1">{html.escape(p.author)}</a>
</div>
</div>
</div>
</td>
<td class="plc">
<div class="pi">
<strong>
<a href="{href}"   id="postnum{p.pid}" onclick="setCopy(this.href, '帖子地址复制成功');return false;">
{floor_html}</a>
</strong>
<div class="pti">
<div class="authi">
<em id="authorposton{p.pid}">发表于 {ymd(p.at)}</em>
</div>
</div>
</div><div class="pct"><div class="pcb">
<div class="t_fsz"><table cellspacing="0" cellpadding="0"><tr><td class="t_f" id="postmessage_{p.pid}">
{render_body(p, by_pid, tid)}</td></tr></table>
</div>
</div>
</div>
</td></tr>
</table>
</div>
"""


def pager(tid: int, page: int, pages: int) -> str:
    if pages <= 1:
        return ""
    links = [
        f"<strong>{n}</strong>"
        if n == page
        else f'<a href="forum.php?mod=viewthread&amp;tid={tid}&amp;page={n}">{n}</a>'
        for n in range(1, pages + 1)
    ]
    links.append(
        f'<label><input type="text" name="custompage" class="px" size="2" value="{page}" />'
        f'<span title="共 {pages} 页"> / {pages} 页</span></label>'
    )
    if page < pages:
        links.append(
            f'<a href="forum.php?mod=viewthread&amp;tid={tid}&amp;page={page + 1}" class="nxt">下一页</a>'
        )
    return '<div class="pg">' + "".join(links) + "</div>"


def shell(title: str, body: str, js: str, *, uid: int = 0, formhash: str = "f0rmh4sh") -> str:
    return f"""<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8" />
<title>{html.escape(title)} - 版杀区 - 测试论坛 - Powered by Discuz!</title>
<meta name="generator" content="Discuz! X3.5" />
<script type="text/javascript">var STYLEID = '1', STATICURL = 'static/', charset = 'utf-8', discuz_uid = '{uid}', cookiepre = 'test_2132_', cookiedomain = '', cookiepath = '/';</script>
</head>
<body id="nv_forum" class="pg_viewthread">
<div id="wp" class="wp">
<input type="hidden" name="formhash" value="{formhash}" />
{body}
</div>
<script type="text/javascript">{js}</script>
</body>
</html>
"""


def message_page(message: str, *, kind: str = "alert_error") -> str:
    """Discuz!'s showmessage page (抱歉，指定的主题不存在…)."""
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8" /><title>提示信息 - 测试论坛 - Powered by Discuz!</title></head>
<body><div id="wp" class="wp"><div id="ct" class="wp cl w"><div class="nfl"><div class="f_c altw">
<div id="messagetext" class="{kind}"><p>{message}</p>
<p class="alert_btnleft"><a href="javascript:history.back()">[ 点击这里返回上一页 ]</a></p></div></div></div></div></div></body></html>"""


def login_page(*, formhash: str = "l0g1nfh", captcha: bool = False) -> str:
    seccode = (
        '<span id="seccode_cSA"></span><script type="text/javascript">updateseccode(\'cSA\');</script>'
        '<input name="seccodehash" type="hidden" value="cSA" />'
        if captcha
        else ""
    )
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8" /><title>登录 - 测试论坛 - Powered by Discuz!</title></head>
<body><div id="wp" class="wp"><form method="post" autocomplete="off" name="login" id="loginform_LaB1c" class="cl"
action="member.php?mod=logging&amp;action=login&amp;loginsubmit=yes&amp;loginhash=LaB1c">
<input type="hidden" name="formhash" value="{formhash}" />
<input type="hidden" name="referer" value="{ROOT}" />
<input type="text" name="username" id="username_LaB1c" autocomplete="off" size="30" class="px p_fre" value="" />
<input type="password" id="password3_LaB1c" name="password" size="30" class="px p_fre" />
<select id="loginquestionid_LaB1c" name="questionid"><option value="0">安全提问(未设置请忽略)</option></select>
<input type="text" name="answer" id="loginanswer_LaB1c" autocomplete="off" size="30" class="px p_fre" />
{seccode}
<input type="checkbox" class="pc" name="cookietime" id="cookietime_LaB1c" value="2592000" />
<button class="pn pnc" type="submit" name="loginsubmit" value="true"><strong>登录</strong></button>
</form></div></body></html>"""


CC_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8" /><title>提示信息</title></head><body>
<div id="messagetext" class="alert_error"><p>抱歉，您的请求来路不正确或刷新过于频繁，请稍后再试</p></div></body></html>"""

SYSTEM_ERROR = """<!DOCTYPE html><html><head><title>Discuz! System Error</title></head><body>
<div class="info"><h1>Discuz! System Error</h1><p>Discuz! has encountered a problem.</p></div></body></html>"""


class FakeBoard:
    """A board in memory. ``install(rsps)`` registers it with a ``responses.RequestsMock``."""

    def __init__(self, *, ppp: int = 10, fid: int = 3, root: str = ROOT) -> None:
        self.root = root
        self.ppp = ppp
        self.fid = fid
        self.threads: dict[int, FakeThread] = {}
        self.next_pid = 1
        self.now = T0 + timedelta(hours=2)
        self.api: str = "json"  # json | closed | error503 | redirect
        self.api_strips_edit_marker = False  # as the real API v4 does (the captures show it)
        self.requests: list[str] = []
        self.fail_next: list[Callable[[], Any]] = []  # raise/return overrides for the next requests

    # ---------------------------------------------------------------- content

    def add_thread(
        self, tid: int, n_posts: int, *, subject: str | None = None, fid: int | None = None
    ) -> FakeThread:
        t = FakeThread(tid, fid or self.fid, subject or f"【测试】第{tid}号帖")
        self.threads[tid] = t
        for i in range(n_posts):
            self.reply(tid, f"玩家{i % 7}", f"第{i + 1}楼 内容 {tid}-{i + 1}")
        return t

    def reply(self, tid: int, author: str, text: str, *, quote_pid: int | None = None) -> int:
        t = self.threads[tid]
        pid = self.next_pid
        self.next_pid += 1
        self.now += timedelta(minutes=1)
        uid = 100 + (sum(map(ord, author)) % 50)
        t.posts.append(FakePost(pid, author, uid, text, self.now, quote_pid=quote_pid))
        return pid

    def post(self, pid: int) -> FakePost:
        for t in self.threads.values():
            for p in t.posts:
                if p.pid == pid:
                    return p
        raise KeyError(pid)

    def edit(self, pid: int, text: str, *, marker: bool = True) -> None:
        p = self.post(pid)
        self.now += timedelta(minutes=5)
        p.text = text
        if marker:
            p.edited_by, p.edited_at = p.author, self.now

    def delete(self, pid: int) -> None:
        self.post(pid).deleted = True

    # ---------------------------------------------------------------- rendering

    def pages(self, tid: int) -> int:
        return max(1, math.ceil(len(self.threads[tid].visible()) / self.ppp))

    def thread_html(self, tid: int, page: int) -> str:
        t = self.threads[tid]
        vis = t.visible()
        pages = self.pages(tid)
        page = min(max(page, 1), pages)
        by_pid = {p.pid: p for p in t.posts}
        floors = {p.pid: i + 1 for i, p in enumerate(vis)}
        on_page = vis[(page - 1) * self.ppp : page * self.ppp]
        sticky = [by_pid[x] for x in t.sticky_pids if x in floors] if page == 1 else []
        head = ""
        if page == 1:
            head = (
                '<div class="hm ptn"><span class="xg1">查看:</span> <span class="xi1">99</span>'
                '<span class="pipe">|</span><span class="xg1">回复:</span> '
                f'<span class="xi1">{t.replies}</span></div>'
            )
        posts = "".join(render_post(p, floors[p.pid], by_pid, tid, t.fid) for p in sticky + on_page)
        body = f"""<div id="pgt" class="pgs mbm cl ">{pager(tid, page, pages)}</div>
<div id="postlist" class="pl bm">
<table cellspacing="0" cellpadding="0"><tr><td class="pls ptn pbn">{head}</td>
<td class="plc ptm pbn vwthd"><h1 class="ts"><span id="thread_subject">{html.escape(t.subject)}</span></h1></td></tr></table>
{posts}
</div>
<div class="pgs mtm mbm cl">{pager(tid, page, pages)}</div>"""
        title = t.subject + (f" - 第{page}页" if page > 1 else "")
        return shell(title, body, f"var fid = parseInt('{t.fid}'), tid = parseInt('{tid}');")

    def forum_html(self, fid: int) -> str:
        rows = []
        for t in sorted(self.threads.values(), key=lambda t: t.last_post_at, reverse=True):
            if t.fid != fid:
                continue
            last = t.visible()[-1]
            rows.append(f"""<tbody id="normalthread_{t.tid}">
<tr>
<td class="icn"><a href="forum.php?mod=viewthread&amp;tid={t.tid}&amp;extra=page%3D1" target="_blank"></a></td>
<th class="new">
 <a href="forum.php?mod=viewthread&amp;tid={t.tid}&amp;extra=page%3D1" onclick="atarget(this)" class="s xst">{html.escape(t.subject)}</a>
</th>
<td class="by">
<cite><a href="home.php?mod=space&amp;uid={t.posts[0].uid}" c="1">{html.escape(t.posts[0].author)}</a></cite>
<em><span>{ymd(t.posts[0].at).split()[0]}</span></em>
</td>
<td class="num"><a href="forum.php?mod=viewthread&amp;tid={t.tid}&amp;extra=page%3D1" class="xi2">{t.replies}</a><em>99</em></td>
<td class="by">
<cite><a href="home.php?mod=space&username={html.escape(last.author)}" c="1">{html.escape(last.author)}</a></cite>
<em><a href="forum.php?mod=redirect&tid={t.tid}&goto=lastpost#lastpost"><span title="{ymd(t.last_post_at, False)}">{ymd(t.last_post_at, False)}</span></a></em>
</td>
</tr>
</tbody>""")
        body = f"""<div class="bm_h cl"><h1 class="xs2"><a href="forum.php?mod=forumdisplay&amp;fid={fid}">版杀区</a></h1></div>
<div id="threadlist" class="tl bm bmw">
<table summary="forum_{fid}" cellspacing="0" cellpadding="0" id="threadlisttableid">
{"".join(rows)}
</table>
</div>"""
        return shell("版杀区", body, f"var fid = parseInt('{fid}');")

    def api_thread(self, tid: int, page: int, ppp: int) -> dict[str, Any]:
        t = self.threads[tid]
        vis = t.visible()
        pages = max(1, math.ceil(len(vis) / ppp))
        page = min(max(page, 1), pages)
        by_pid = {p.pid: p for p in t.posts}
        postlist = []
        for i, p in enumerate(vis[(page - 1) * ppp : page * ppp], start=(page - 1) * ppp + 1):
            postlist.append(
                {
                    "pid": str(p.pid),
                    "tid": str(tid),
                    "first": "1" if i == 1 else "0",
                    "author": p.author,
                    "authorid": str(p.uid),
                    "dateline": ymd(p.at, False),
                    "dbdateline": str(int(p.at.timestamp())),
                    "message": render_body(p, by_pid, tid, marker=not self.api_strips_edit_marker),
                    "number": str(i),
                    "position": str(i),
                }
            )
        return {
            "Version": "4",
            "Charset": "UTF-8",
            "Variables": {
                "cookiepre": "test_2132_",
                "member_uid": "0",
                "formhash": "f0rmh4sh",
                "thread": {
                    "tid": str(tid),
                    "fid": str(t.fid),
                    "subject": html.escape(t.subject),
                    "replies": str(t.replies),
                    "maxposition": str(len(t.posts)),
                },
                "postlist": postlist,
                "ppp": str(ppp),
            },
        }

    def api_forum(self, fid: int) -> dict[str, Any]:
        rows = [
            {
                "tid": str(t.tid),
                "subject": t.subject,
                "replies": str(t.replies),
                "author": t.posts[0].author,
                "lastposter": t.visible()[-1].author,
                "dblastpost": str(int(t.last_post_at.timestamp())),
                "dbdateline": str(int(t.posts[0].at.timestamp())),
            }
            for t in self.threads.values()
            if t.fid == fid
        ]
        return {
            "Version": "4",
            "Charset": "UTF-8",
            "Variables": {
                "forum": {"fid": str(fid), "name": "版杀区"},
                "forum_threadlist": rows,
                "tpp": "20",
            },
        }

    # ---------------------------------------------------------------- HTTP

    def headers(self, content_type: str = "text/html; charset=utf-8") -> dict[str, str]:
        return {"Content-Type": content_type, "Date": format_datetime(self.now, usegmt=True)}

    def respond(self, request: Any) -> tuple[int, dict[str, str], bytes]:
        url = request.url
        self.requests.append(url)
        if self.fail_next:
            override = self.fail_next.pop(0)()
            if override is not None:
                return override  # type: ignore[no-any-return]
        parts = urlsplit(url)
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path.endswith("api/mobile/index.php"):
            return self._api(q)
        if parts.path.endswith("member.php"):
            return 200, self.headers(), login_page().encode()
        if q.get("mod") == "viewthread":
            tid = int(q.get("tid", "0"))
            if tid not in self.threads:
                return (
                    404,
                    self.headers(),
                    message_page("抱歉，指定的主题不存在或已被删除或正在被审核").encode(),
                )
            return 200, self.headers(), self.thread_html(tid, int(q.get("page", "1") or 1)).encode()
        if q.get("mod") == "forumdisplay":
            fid = int(q.get("fid", "0"))
            return 200, self.headers(), self.forum_html(fid).encode()
        return 404, self.headers(), message_page("抱歉，指定的主题不存在或已被删除或正在被审核").encode()

    def _api(self, q: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        js = "application/json"
        if self.api == "closed":
            return 200, self.headers(js), json.dumps({"error": "mobile_is_closed"}).encode()
        if self.api == "error503":
            return 503, self.headers(), SYSTEM_ERROR.encode()
        if self.api == "redirect":
            h = self.headers()
            h["Location"] = self.root + "forum.php?mod=viewthread&tid=1"
            return 302, h, b""
        if q.get("module") == "viewthread":
            tid = int(q.get("tid", "0"))
            if tid not in self.threads:
                body = {"Version": "4", "Message": {"messageval": "thread_nonexistence", "messagestr": "..."}}
                return 404, self.headers(js), json.dumps(body).encode()
            data = self.api_thread(tid, int(q.get("page", "1")), int(q.get("ppp", "10")))
            return 200, self.headers(js), json.dumps(data).encode()
        if q.get("module") == "forumdisplay":
            return 200, self.headers(js), json.dumps(self.api_forum(int(q.get("fid", "0")))).encode()
        return 200, self.headers(js), json.dumps({"error": "module_not_exists"}).encode()

    def install(self, rsps: responses.RequestsMock) -> None:
        pattern = re.compile("^" + re.escape(self.root) + r"(forum\.php|member\.php|api/mobile/index\.php).*")
        rsps.add_callback(responses.GET, pattern, callback=self.respond)

    def login_wall(self) -> tuple[int, dict[str, str], bytes]:
        """What a board answers a guest on a members-only thread: a redirect to the login form."""
        h = self.headers()
        h["Location"] = self.root + "member.php?mod=logging&action=login"
        return 302, h, b""

    def count(self, needle: str) -> int:
        return sum(1 for u in self.requests if needle in u)
