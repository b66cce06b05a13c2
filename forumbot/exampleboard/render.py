"""Discuz! X3.5 markup for the example board: thread pages, thread lists (PC and touch), PM pages, board
messages, the write side's forms and answers, the mobile API v4's JSON.

Why here: the example board (:mod:`forumbot.exampleboard.server`) is the only simulated board, serving
the demo, the runner and every unit test that needs a board, so its pages must be a real X3.5 board's
(checked against ../shared/fixtures: viewthread and forumdisplay of discuz-x35-utf8, touch_forumdisplay,
the PM list 73 and the conversation 74, the no-permission page 93 and the write exchanges of
discuz-x35-posting/INDEX.md). Pure functions: data in, HTML (or JSON data) out; the board encodes.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

# ruff: noqa: E501  (board markup on Discuz!'s own long lines)

TZ = ZoneInfo("Asia/Shanghai")
Board = dict[str, Any]  # name, forum, fid, ppp (as in a scenario's [board])
Viewer = tuple[int, str]  # (uid, name) of the logged-in user
LABELS = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}


@dataclass
class P:
    pid: int
    tid: int
    author: str
    uid: int
    at: datetime
    text: str
    position: int
    edited_at: datetime | None
    first: bool
    html: str | None = None  # the body already rendered (the judge's BBCode); None: render ``text``
    state: str = "normal"  # normal | banned | blocked: the body is Discuz!'s placeholder
    marker: bool = True  # an edit shows «本帖最后由 … 编辑» (a moderator's silent edit does not)


def local(s: str) -> datetime:
    return datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(tzinfo=TZ)


def ymd(dt: datetime, seconds: bool = True) -> str:
    base = f"{dt.year}-{dt.month}-{dt.day} {dt:%H:%M}"
    return base + (f":{dt:%S}" if seconds else "")


def dgmdate_u(ts: datetime, now: datetime) -> str:
    """Discuz!'s 'u' date format (dateconvert on): relative forms with the exact time in a title."""
    s = ymd(ts)
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    diff = int((now - ts).total_seconds())
    if ts >= today:
        if diff > 3600:
            r = f"{diff // 3600}&nbsp;小时前"
        elif diff > 1800:
            r = "半小时前"
        elif diff > 60:
            r = f"{diff // 60}&nbsp;分钟前"
        elif diff > 0:
            r = f"{diff}&nbsp;秒前"
        elif diff == 0:
            r = "刚刚"
        else:
            return s
        return f'<span title="{s}">{r}</span>'
    days = int((today - ts).total_seconds() // 86400)
    if 0 <= days < 7:
        if days == 0:
            r = f"昨天&nbsp;{ts:%H:%M}"
        elif days == 1:
            r = f"前天&nbsp;{ts:%H:%M}"
        else:
            r = f"{days + 1}&nbsp;天前"
        return f'<span title="{s}">{r}</span>'
    return s


PLACEHOLDERS = {
    "banned": "作者被禁止或删除 内容自动屏蔽",
    "blocked": "该帖被管理员或版主屏蔽",
}


def render_body(p: P, by_pid: dict[int, P], *, marker: bool = True) -> str:
    """A post's ``td.t_f`` content; ``marker=False`` leaves out the edit marker (as the mobile API v4 does)."""
    if p.state in PLACEHOLDERS:
        return f'<div class="locked">{PLACEHOLDERS[p.state]}</div>'
    out: list[str] = []
    if marker and p.marker and p.edited_at is not None:
        out.append(
            f'<i class="pstatus"> 本帖最后由 {html.escape(p.author)} 于 {ymd(p.edited_at, False)} 编辑 </i><br />\n<br />\n'
        )
    if p.html is not None:
        out.append(p.html)
        return "".join(out)
    text = p.text
    m = re.match(r"\[quote=(\d+)\]\n?", text)
    if m:
        q = by_pid.get(int(m.group(1)), p)
        quoted = html.escape(q.text.split("\n")[0][:100])
        out.append(
            '<div class="quote"><blockquote><font size="2"><a href="forum.php?mod=redirect&amp;goto=findpost'
            f'&amp;pid={q.pid}&amp;ptid={q.tid}" target="_blank"><font color="#999999">{html.escape(q.author)} 发表于 '
            f"{ymd(q.at, False)}</font></a></font><br />\n{quoted}</blockquote></div><br />\n"
        )
        text = text[m.end() :]
    body = html.escape(text)
    body = re.sub(r"\[b\](.*?)\[/b\]", r"<strong>\1</strong>", body)
    body = body.replace(
        ":lol:", '<img src="static/image/smiley/default/lol.gif" smilieid="12" border="0" alt="" />'
    )
    out.append(body.replace("\n", "<br />\n"))
    return "".join(out)


def render_post(p: P, by_pid: dict[int, P], now: datetime, tid: int, fid: int) -> str:
    floor = LABELS.get(p.position)
    floor_html = floor if floor else f"<em>{p.position}</em><sup>#</sup>"
    href = (
        f"forum.php?mod=viewthread&tid={tid}"
        if p.first
        else (f"forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={p.pid}")
    )
    subject = ""
    return f"""<div id="post_{p.pid}" ><table id="pid{p.pid}" class="plhin" summary="pid{p.pid}" cellspacing="0" cellpadding="0">
<tr>
 <td class="pls" rowspan="2">
<div id="favatar{p.pid}" class="pls cl favatar">
<div class="pi">
<div class="authi"><a href="home.php?mod=space&amp;uid={p.uid}" target="_blank" class="xw1">{html.escape(p.author)}</a>
</div>
</div>
<div>
<div class="avatar"><a href="home.php?mod=space&amp;uid={p.uid}" class="avtm" target="_blank"><img src="uc_server/avatar.php?uid={p.uid}&size=middle" class="user_avatar"></a></div>
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
<div class="pdbt">
</div>
<div class="authi">
<img class="authicn vm" id="authicon{p.pid}" src="static/image/common/online_member.gif" />
<em id="authorposton{p.pid}">发表于 {dgmdate_u(p.at, now)}</em>
<span class="pipe">|</span>
<a href="forum.php?mod=viewthread&amp;tid={tid}&amp;page=1&amp;authorid={p.uid}" rel="nofollow">只看该作者</a>
</div>
</div>
</div><div class="pct"><div class="pcb">{subject}
<div class="t_fsz"><table cellspacing="0" cellpadding="0"><tr><td class="t_f" id="postmessage_{p.pid}">
{render_body(p, by_pid)}</td></tr></table>
</div>
<div id="comment_{p.pid}" class="cm">
</div>
</div>
</div>
</td></tr>
<tr>
<td class="pls"></td>
<td class="plc" style="overflow:visible;">
<div class="po hin">
<div class="pob cl">
<em>
<a class="fastre" href="forum.php?mod=post&amp;action=reply&amp;fid={fid}&amp;tid={tid}&amp;repquote={p.pid}&amp;extra=&amp;page=1" onclick="showWindow('reply', this.href)">回复</a>
</em>
</div>
</div>
</td>
</tr>
</table>
</div>
"""


def pager(tid: int, page: int, pages: int) -> str:
    if pages <= 1:
        return ""
    links = []
    if page > 1:
        links.append(
            f'<a href="forum.php?mod=viewthread&amp;tid={tid}&amp;page={page - 1}" class="prev">&nbsp;&nbsp;</a>'
        )
    for n in range(1, pages + 1):
        links.append(
            f"<strong>{n}</strong>"
            if n == page
            else f'<a href="forum.php?mod=viewthread&amp;tid={tid}&amp;page={n}">{n}</a>'
        )
    links.append(
        f'<label><input type="text" name="custompage" class="px" size="2" title="输入页码，按回车快速跳转" '
        f'value="{page}" /><span title="共 {pages} 页"> / {pages} 页</span></label>'
    )
    if page < pages:
        links.append(
            f'<a href="forum.php?mod=viewthread&amp;tid={tid}&amp;page={page + 1}" class="nxt">下一页</a>'
        )
    return '<div class="pg">' + "".join(links) + "</div>"


def page_shell(
    title: str, board: Board, body: str, fid: int, tid: int | None, viewer: Viewer | None = None
) -> str:
    """The page around ``body``; ``viewer`` (uid, name) is the logged-in user (a guest when None)."""
    js_ids = (
        f"var fid = parseInt('{fid}'), tid = parseInt('{tid}');" if tid else f"var fid = parseInt('{fid}');"
    )
    return f"""<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8" />
<title>{html.escape(title)} - {board["forum"]} -  {board["name"]} -  Powered by Discuz!</title>
<meta name="generator" content="Discuz! X3.5" />
<script type="text/javascript">var STYLEID = '1', STATICURL = 'static/', IMGDIR = 'static/image/common', VERHASH = 'FVC', charset = 'utf-8', discuz_uid = '{viewer[0] if viewer else 0}', cookiepre = 'demo_2132_', cookiedomain = '', cookiepath = '/', attackevasive = '0', disallowfloat = 'newthread';</script>
</head>
<body id="nv_forum" class="pg_viewthread">
{_um(viewer)}<div id="wp" class="wp">
{body}
</div>
<script type="text/javascript">{js_ids}</script>
</body>
</html>
"""


def render_thread(
    tid: int,
    subject: str,
    posts: list[P],
    by_pid: dict[int, P],
    now: datetime,
    board: Board,
    viewer: Viewer | None = None,
    sticky: list[P] | None = None,
) -> Iterator[tuple[int, str]]:
    """Every page of a thread: (page number, HTML), ``board['ppp']`` posts a page by position;
    ``sticky`` (pinned replies) are shown again at the top of page 1, as X3.5's 置顶回复."""
    ppp = int(board["ppp"])
    fid = int(board["fid"])
    maxpos = max((p.position for p in posts), default=1)  # none: 只看该作者 of someone who never posted
    pages = max(1, math.ceil(maxpos / ppp))
    replies = max(len(posts) - 1, 0)
    for page in range(1, pages + 1):
        lo, hi = (page - 1) * ppp + 1, page * ppp
        on_page = [p for p in posts if lo <= p.position <= hi]
        if page == 1 and sticky:
            on_page = [*sticky, *on_page]
        head = ""
        if page == 1:
            head = (
                '<div class="hm ptn"><span class="xg1">查看:</span> <span class="xi1">'
                f'{replies * 7 + 11}</span><span class="pipe">|</span><span class="xg1">回复:</span> '
                f'<span class="xi1">{replies}</span></div>'
            )
        body = f"""<div id="pgt" class="pgs mbm cl ">{pager(tid, page, pages)}</div>
<div id="postlist" class="pl bm">
<table cellspacing="0" cellpadding="0"><tr><td class="pls ptn pbn">{head}</td>
<td class="plc ptm pbn vwthd"><h1 class="ts"><span id="thread_subject">{html.escape(subject)}</span></h1></td></tr></table>
{"".join(render_post(p, by_pid, now, tid, fid) for p in on_page)}
</div>
<div class="pgs mtm mbm cl">{pager(tid, page, pages)}</div>"""
        yield (
            page,
            page_shell(subject + (f" - 第{page}页" if page > 1 else ""), board, body, fid, tid, viewer),
        )


def render_forum(
    threads: list[tuple[int, str, str, int, P]],
    now: datetime,
    board: Board,
    users: dict[str, Any],
    viewer: Viewer | None = None,
) -> str:
    """A forum's thread list (newest last post first): author, replies, the last post's time and poster."""
    fid = int(board["fid"])
    rows = []
    for tid, subject, author, replies, last in threads:
        rows.append(f"""<tbody id="normalthread_{tid}">
<tr>
<td class="icn"><a href="forum.php?mod=viewthread&amp;tid={tid}&amp;extra=page%3D1" target="_blank"><i class="fico-thread fic6 fc-l"></i></a></td>
<th class="new">
 <a href="forum.php?mod=viewthread&amp;tid={tid}&amp;extra=page%3D1" onclick="atarget(this)" class="s xst">{html.escape(subject)}</a>
</th>
<td class="by">
<cite><a href="home.php?mod=space&amp;uid={users[author]}" c="1">{html.escape(author)}</a></cite>
<em><span>{now:%Y-%m-%d}</span></em>
</td>
<td class="num"><a href="forum.php?mod=viewthread&amp;tid={tid}&amp;extra=page%3D1" class="xi2">{replies}</a><em>{replies * 7 + 11}</em></td>
<td class="by">
<cite><a href="home.php?mod=space&username={html.escape(last.author)}" c="1">{html.escape(last.author)}</a></cite>
<em><a href="forum.php?mod=redirect&tid={tid}&goto=lastpost#lastpost">{dgmdate_u(last.at, now).replace(ymd(last.at), ymd(last.at, False))}</a></em>
</td>
</tr>
</tbody>""")
    body = f"""<div class="bm_h cl"><h1 class="xs2"><a href="forum.php?mod=forumdisplay&amp;fid={fid}">{board["forum"]}</a></h1></div>
<div id="threadlist" class="tl bm bmw">
<form method="post" autocomplete="off" name="moderate" id="moderate" action="forum.php?mod=topicadmin&amp;action=moderate&amp;fid={fid}&amp;infloat=yes&amp;nopost=yes">
<input type="hidden" name="formhash" value="d3m0f0rm" />
<table summary="forum_{fid}" cellspacing="0" cellpadding="0" id="threadlisttableid">
<tbody id="separatorline" class="emptb"><tr><td class="icn"></td><th></th><td class="by"></td><td class="num"></td><td class="by"></td></tr></tbody>
{"".join(rows)}
</table>
</form>
</div>"""
    return page_shell(board["forum"], board, body, fid, None, viewer)


def _um(viewer: Viewer | None) -> str:
    """The header's user menu (``strong.vwmy``: who is logged in), only for a member; nothing for a guest."""
    if viewer is None:
        return ""
    uid, name = viewer
    return (
        f'<div id="um"><p><strong class="vwmy"><a href="home.php?mod=space&amp;uid={uid}" target="_blank" '
        f'title="访问我的空间">{html.escape(name)}</a></strong><span class="pipe">|</span>'
        f'<a href="home.php?mod=space&amp;do=pm" id="pm_ntc">消息</a></p></div>\n'
    )


# ---------------------------------------------------------------------------------------------- messages


def render_message(board: Board, text: str, kind: str = "alert_error", viewer: Viewer | None = None) -> str:
    """A showmessage page (提示信息), as 93/94 of discuz-x35-posting: ``div#messagetext.<kind>``."""
    login = ""
    if viewer is None and kind == "alert_info":
        login = '<p class="alert_btnleft"><a href="member.php?mod=logging&amp;action=login">登录</a></p>'
    body = f"""<div id="ct" class="wp cl w">
<div class="nfl">
<div class="f_c altw">
<div id="messagetext" class="{kind}">
<p>{text}</p>{login}</div>
</div>
</div>
</div>"""
    return page_shell("提示信息", {**board, "forum": board["name"]}, body, 0, None, viewer).replace(
        f" - {board['name']} -  {board['name']} - ", f" - {board['name']} - "
    )


# ---------------------------------------------------------------------------------------------- PMs


@dataclass
class PmView:
    """One private message as its reader sees it."""

    pmid: int
    from_uid: int
    from_name: str
    text: str
    at: datetime


def pm_time(ts: datetime, now: datetime) -> str:
    """A PM's time: the relative form with the minute in a title (73, 74: ``<span title="2026-12-1 21:42">``)."""
    shown = dgmdate_u(ts, now)
    if "title=" in shown:
        return re.sub(r'title="[^"]*"', f'title="{ymd(ts, False)}"', shown, count=1)
    return f'<span title="{ymd(ts, False)}">{ymd(ts, False)}</span>'


def _pm_text(text: str) -> str:
    return html.escape(text).replace("\n", "<br />\n")


def _pm_page(board: Board, viewer: Viewer, inner: str) -> str:
    body = f"""<div id="ct" class="ct2_a wp cl">
<div class="mn">
<div class="bm bw0">
<h1 class="mt"><i class="fico-email fic4 fc-p vm"></i>消息</h1>
<ul class="tb cl">
<li class="y"><a href="home.php?mod=space&amp;do=pm&amp;subop=setting" class="xi2">短消息设置</a></li>
<li class="a" ><a href="home.php?mod=space&amp;do=pm&amp;filter=privatepm">私人消息</a></li>
<li><a href="home.php?mod=space&amp;do=pm&amp;filter=announcepm">公共消息</a></li>
<li class="o"><a href="home.php?mod=spacecp&amp;ac=pm">发送消息</a></li>
</ul>
{inner}
</div>
</div>
</div>"""
    shell = page_shell("消息", {**board, "forum": "消息"}, body, 0, None, viewer)
    return shell.replace('<body id="nv_forum" class="pg_viewthread">', '<body id="nv_home" class="pg_space">')


def render_pm_list(
    board: Board,
    viewer: Viewer,
    conversations: list[tuple[int, Viewer, PmView, int, bool]],
    now: datetime,
) -> str:
    """The PM list ``home.php?mod=space&do=pm`` (73): one ``dl#pmlist_PLID`` per conversation, newest first.

    ``conversations``: (plid, the other user, the last message, messages in all, unread).
    """
    rows = []
    for plid, (ouid, oname), last, count, unread in conversations:
        if last.from_uid == viewer[0]:
            who = f'<span class="xi2">您</span> 对 <a href="home.php?mod=space&amp;uid={ouid}" target="_blank" class="xw1">{html.escape(oname)}</a> 说 :'
        else:
            who = f'<a href="home.php?mod=space&amp;uid={ouid}" target="_blank" class="xw1">{html.escape(oname)}</a> 对 <span class="xi2">您</span> 说 :'
        summary = html.escape(last.text[:150])
        rows.append(f"""<dl id="pmlist_{plid}" class="bbda cur1 cl{" newpm" if unread else ""}">
<dd class="m avt">
{'<div class="newpm_avt" title="有未读消息"></div>' if unread else ""}
<a href="home.php?mod=space&amp;uid={ouid}" target="_blank"><img src="uc_server/avatar.php?uid={ouid}&size=small" class="user_avatar"></a>
</dd>
<dd class="ptm pm_c">
<div class="o">
<input type="checkbox" name="deletepm_deluid[]" id="a_delete_{plid}" class="pc" value="{ouid}" />
</div>
{who}<br />
{summary} &nbsp;  <br />
<span class="xg1">{pm_time(last.at, now)}</span> &nbsp;
<span class="pm_o y">
<span class="xg1 z">共 {count} 条</span>
<a href="javascript:;" id="pm_o_{plid}" class="o">菜单</a>
 |
<a href="home.php?mod=space&amp;do=pm&amp;subop=view&amp;touid={ouid}#last" id="pmlist_{plid}_a">回复</a>
</span>
</dd>
</dl>
""")
    inner = f"""<form id="deletepmform" action="home.php?mod=spacecp&amp;ac=pm&amp;op=delete&amp;folder=" method="post" autocomplete="off" name="deletepmform">
<div class="xld xlda pml mtm mbm">
{"".join(rows)}</div>
</form>"""
    return _pm_page(board, viewer, inner)


def render_pm_view(
    board: Board,
    viewer: Viewer,
    other: Viewer,
    messages: list[PmView],
    total: int,
    page: int,
    pages: int,
    now: datetime,
) -> str:
    """One conversation ``…&subop=view&touid=UID`` (74): ``dl#pmlist_PMID`` per message, oldest first."""
    ouid, oname = other
    dls = []
    for i, m in enumerate(messages):
        if m.from_uid == viewer[0]:
            author = '<span class="xi2 xw1">您</span>'
        else:
            author = f'<a href="home.php?mod=space&amp;uid={m.from_uid}" target="_blank" class="xw1">{html.escape(m.from_name)}</a>'
        anchor = '<a name="last"></a>' if i == len(messages) - 1 else ""
        dls.append(f"""{anchor}<dl id="pmlist_{m.pmid}" class="bbda cl">
<dd class="m avt" >
<a href="home.php?mod=space&amp;uid={m.from_uid}" target="_blank"><img src="uc_server/avatar.php?uid={m.from_uid}&size=small" class="user_avatar"></a>
</dd>
<dd class="ptm">
{author}
 &nbsp;
<br />
{_pm_text(m.text)}<br />
<span class="xg1">{pm_time(m.at, now)}</span>
</dd>

</dl>""")
    pg = ""
    if pages > 1:
        links = "".join(
            f"<strong>{n}</strong>"
            if n == page
            else f'<a href="home.php?mod=space&amp;do=pm&amp;subop=view&amp;touid={ouid}&amp;page={n}">{n}</a>'
            for n in range(1, pages + 1)
        )
        pg = f'<div class="pgs cl mbm"><div class="pg">{links}<label><span title="共 {pages} 页"> / {pages} 页</span></label></div></div>'
    first = messages[0].pmid if messages else 0
    inner = f"""<div class="tbmu pml pm_op_r cl">
<div class="xw1">
共有 <span id="membernum" class="xi1">{total}</span> 条与 <a href="home.php?mod=space&amp;uid={ouid}">{html.escape(oname)}</a> 的交谈记录 &nbsp;
<a href="home.php?mod=spacecp&amp;ac=pm&amp;op=export&amp;touid={ouid}">[导出]</a>
</div>
</div>
{pg}<div id="pm_ul" class="xld xlda mbm pml">{"".join(dls)}<div id="pm_append" style="display: none"></div>
</div>
<div id="pm_ul_post" class="xld xlda pml">
<form id="pmform" name="pmform" method="post" autocomplete="off" action="home.php?mod=spacecp&amp;ac=pm&amp;op=send&amp;pmid={first}&amp;daterange=0&amp;handlekey=pmsend&amp;pmsubmit=yes">
<input type="hidden" name="formhash" value="d3m0f0rm" />
<input type="hidden" name="topmuid" value="{ouid}" />
<textarea rows="3" cols="40" name="message" class="pt" id="replymessage"></textarea>
</form>
</div>"""
    return _pm_page(board, viewer, inner)


# ---------------------------------------------------------------------------------------------- the write side

# The pages below answer the judge's writes and the board's refusals, written from
# ../shared/fixtures/discuz-x35-posting/INDEX.md (the exchange numbers are INDEX's).

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8" /><title>{title} - 版杀测试论坛 - Powered by Discuz!</title></head>
<body><div id="wp" class="wp"><div id="ct" class="wp cl w">{body}</div></div></body></html>"""

NOT_FOUND = """<!DOCTYPE html><html><head><meta charset="utf-8" /><title>提示信息 - 版杀测试论坛 - Powered by Discuz!</title></head>
<body><div id="wp" class="wp"><div id="ct" class="wp cl w"><div class="nfl"><div class="f_c altw">
<div id="messagetext" class="alert_error"><p>抱歉，指定的主题不存在或已被删除或正在被审核</p>
<script type="text/javascript">if(history.length > (BROWSER.ie ? 0 : 1)) {}</script>
<p class="alert_btnleft"><a href="javascript:history.back()">[ 点击这里返回上一页 ]</a></p></div></div></div></div></div></body></html>"""

# A wrong non-empty formhash: _xss_check's 503 (25).
TAINTED = """<!DOCTYPE html><html><head><title>{host} - System Error</title><meta charset="utf-8" /></head>
<body><div id="container"><h1>Discuz! System Error</h1><p>Time: 2026-06-04 11:00:00 +0800 IP: 127.0.0.1</p><div class="info"><li>您当前的访问请求当中含有非法字符，已经被系统拒绝</li></div></div></body></html>"""

# The anti-crawler (CC) refusal and a database error page.
CC_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8" /><title>提示信息</title></head><body>
<div id="messagetext" class="alert_error"><p>抱歉，您的请求来路不正确或刷新过于频繁，请稍后再试</p></div></body></html>"""

SYSTEM_ERROR = """<!DOCTYPE html><html><head><title>Discuz! System Error</title></head><body>
<div class="info"><h1>Discuz! System Error</h1><p>Discuz! has encountered a problem.</p></div></body></html>"""


def message_page(message: str, *, kind: str = "alert_error") -> str:
    """Discuz!'s bare showmessage page (抱歉，指定的主题不存在…), ``div#messagetext.<kind>``."""
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8" /><title>提示信息 - 版杀测试论坛 - Powered by Discuz!</title></head>
<body><div id="wp" class="wp"><div id="ct" class="wp cl w"><div class="nfl"><div class="f_c altw">
<div id="messagetext" class="{kind}"><p>{message}</p>
<p class="alert_btnleft"><a href="javascript:history.back()">[ 点击这里返回上一页 ]</a></p></div></div></div></div></div></body></html>"""


def login_page(*, formhash: str = "l0g1nfh", captcha: bool = False, referer: str = "./") -> str:
    """The login form ``member.php?mod=logging&action=login`` (01): form#loginform_…, its formhash."""
    seccode = (
        '<span id="seccode_cSA"></span><script type="text/javascript">updateseccode(\'cSA\');</script>'
        '<input name="seccodehash" type="hidden" value="cSA" />'
        if captcha
        else ""
    )
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8" /><title>登录 - 版杀测试论坛 - Powered by Discuz!</title></head>
<body><div id="wp" class="wp"><form method="post" autocomplete="off" name="login" id="loginform_LaB1c" class="cl"
action="member.php?mod=logging&amp;action=login&amp;loginsubmit=yes&amp;loginhash=LaB1c">
<input type="hidden" name="formhash" value="{formhash}" />
<input type="hidden" name="referer" value="{html.escape(referer)}" />
<input type="text" name="username" id="username_LaB1c" autocomplete="off" size="30" class="px p_fre" value="" />
<input type="password" id="password3_LaB1c" name="password" size="30" class="px p_fre" />
<select id="loginquestionid_LaB1c" name="questionid"><option value="0">安全提问(未设置请忽略)</option></select>
<input type="text" name="answer" id="loginanswer_LaB1c" autocomplete="off" size="30" class="px p_fre" />
{seccode}
<input type="checkbox" class="pc" name="cookietime" id="cookietime_LaB1c" value="2592000" />
<button class="pn pnc" type="submit" name="loginsubmit" value="true"><strong>登录</strong></button>
</form></div></body></html>"""


def login_welcome(name: str) -> str:
    """A login's answer (02): ``alert_right`` with the welcome line."""
    js = f"$('succeedlocation').innerHTML = '欢迎您回来，新手上路 {html.escape(name)}，现在将转入登录前页面';"
    body = (
        f'<div id="messagetext" class="alert_right"><p><script type="text/javascript">{js}</script></p></div>'
    )
    return PAGE.format(title="提示信息", body=body)


def post_form_page(
    action: str, hidden: dict[str, str], *, formhash: str, uid: int, subject: str = "", message: str = ""
) -> str:
    """The reply / new thread / edit form (05, 07, 13): form#postform with its hidden fields."""
    inputs = "".join(
        f'<input type="hidden" name="{k}" id="{k}" value="{html.escape(v)}" />\n' for k, v in hidden.items()
    )
    form = f"""<form method="post" autocomplete="off" id="postform" action="{html.escape(action)}" onsubmit="return validate(this)">
<input type="hidden" name="formhash" id="formhash" value="{formhash}" />
<input type="hidden" name="posttime" id="posttime" value="1796130998" />
<input type="hidden" name="wysiwyg" id="e_mode" value="1" />
{inputs}<input type="text" name="subject" id="subject" class="px" value="{html.escape(subject)}" />
<textarea name="message" id="e_textarea" class="pt" rows="15">{html.escape(message)}</textarea>
<input type="checkbox" name="usesig" id="usesig" class="pc" value="1" checked="checked" />
<input type="checkbox" name="htmlon" id="htmlon" class="pc" value="0" />
<input type="hidden" name="save" id="postsave" value="" />
</form>"""
    shell = PAGE.format(title="发表帖子", body=form)
    return shell.replace(
        "<body>",
        f"<body><script type=\"text/javascript\">var discuz_uid = '{uid}', charset = 'utf-8';</script>",
        1,
    )


def pm_popup(touid: int, formhash: str) -> str:
    """The «发送消息» popup's CDATA (64): form#pmform_UID."""
    return f"""<h3 class="flb"><em>发送消息</em></h3><form id="pmform_{touid}" name="pmform_{touid}" method="post" autocomplete="off" action="home.php?mod=spacecp&amp;ac=pm&amp;op=send&amp;touid={touid}">
<input type="hidden" name="pmsubmit" value="true" /><input type="hidden" name="touid" value="{touid}" />
<input type="hidden" name="formhash" value="{formhash}" /><input type="hidden" name="handlekey" value="sendpm" />
<input type="hidden" name="messageappend" id="messageappend" value="" />
<textarea rows="6" cols="80" name="message" id="pm_textarea" class="pt"></textarea></form>"""


def xml_answer(cdata: str) -> str:
    """An ``inajax=1`` answer: the XML root wrapping CDATA."""
    return f'<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[{cdata}]]></root>'


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


# ---------------------------------------------------------------------------------------------- mobile API v4


def api_thread(
    tid: int,
    fid: int,
    subject: str,
    posts: list[P],
    by_pid: dict[int, P],
    page: int,
    ppp: int,
    maxposition: int,
    *,
    strip_marker: bool = False,
) -> dict[str, Any]:
    """``api/mobile/index.php?module=viewthread`` (version 4): the page's posts by position, ``ppp`` a page.

    ``strip_marker``: the real API v4 leaves the edit marker out of ``message`` (the captures show it)."""
    pages = max(1, math.ceil(len(posts) / ppp))
    page = min(max(page, 1), pages)
    postlist = [
        {
            "pid": str(p.pid),
            "tid": str(tid),
            "first": "1" if p.first else "0",
            "author": p.author,
            "authorid": str(p.uid),
            "dateline": ymd(p.at, False),
            "dbdateline": str(int(p.at.timestamp())),
            "message": render_body(p, by_pid, marker=not strip_marker),
            "number": str(p.position),
            "position": str(p.position),
        }
        for p in posts[(page - 1) * ppp : page * ppp]
    ]
    return {
        "Version": "4",
        "Charset": "UTF-8",
        "Variables": {
            "cookiepre": "demo_2132_",
            "member_uid": "0",
            "formhash": "f0rmh4sh",
            "thread": {
                "tid": str(tid),
                "fid": str(fid),
                "subject": html.escape(subject),
                "replies": str(max(len(posts) - 1, 0)),
                "maxposition": str(maxposition),
            },
            "postlist": postlist,
            "ppp": str(ppp),
        },
    }


def api_forum(fid: int, name: str, threads: list[tuple[int, str, str, int, P, P]]) -> dict[str, Any]:
    """``api/mobile/index.php?module=forumdisplay``: (tid, subject, author, replies, first, last) a row."""
    rows = [
        {
            "tid": str(tid),
            "subject": subject,
            "replies": str(replies),
            "author": author,
            "lastposter": last.author,
            "dblastpost": str(int(last.at.timestamp())),
            "dbdateline": str(int(first.at.timestamp())),
        }
        for tid, subject, author, replies, first, last in threads
    ]
    return {
        "Version": "4",
        "Charset": "UTF-8",
        "Variables": {"forum": {"fid": str(fid), "name": name}, "forum_threadlist": rows, "tpp": "20"},
    }


# ---------------------------------------------------------------------------------------------- touch pages


def render_touch_forum(threads: list[tuple[int, str, str, int, int]], fid: int, forum: str) -> str:
    """The touch view's thread list (``&mobile=2``, ../shared/fixtures touch_forumdisplay): author, views
    and replies, no last-post time (only «1 小时前» of the thread). (tid, subject, author, uid, replies)."""
    items = []
    for tid, subject, author, uid, replies in threads:
        href = f"forum.php?mod=viewthread&amp;tid={tid}&amp;extra=page%3D1&amp;mobile=2"
        items.append(f"""<li class="list">
<div class="threadlist_top cl"><div class="muser"><h3><a href="home.php?mod=space&amp;uid={uid}&amp;mobile=2" class="mmc">{html.escape(author)}</a></h3>
<span class="mtime">1&nbsp;小时前</span></div></div>
<a href="{href}"><div class="threadlist_tit cl"><em>{html.escape(subject)}</em></div></a>
<div class="threadlist_foot cl"><ul><li><i class="dm-eye-fill"></i>{replies * 7 + 11}</li><li><i class="dm-chat-s-fill"></i>{replies}</li></ul></div>
</li>""")
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8" /><title>{html.escape(forum)}</title></head>
<body class="pg_forumdisplay"><div class="threadlist_box cl"><div class="threadlist cl"><ul>
{"".join(items)}
</ul></div></div></body></html>"""
