"""Render an example game scenario into Discuz! X3.5 PC pages (the markup of a real X3.5 board).

Usage: python tools/make_example_board.py data/examples/meishi

Writes ``board/<snapshot>/`` beside the scenario: ``viewthread-<tid>-<page>.html``,
``forumdisplay-<fid>-1.html`` and ``snapshot.json`` (the moment the pages were rendered: the HTTP
Date header the demo server sends, against which relative times like "2 小时前" resolve).
The pages are committed; this script exists so that a changed scenario can be re-rendered.
"""

from __future__ import annotations

import html
import json
import math
import re
import sys
import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

TZ = ZoneInfo("Asia/Shanghai")
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


def render_body(p: P, by_pid: dict[int, P]) -> str:
    out = []
    if p.edited_at is not None:
        out.append(
            f'<i class="pstatus"> 本帖最后由 {p.author} 于 {ymd(p.edited_at, False)} 编辑 </i><br />\n<br />\n'
        )
    text = p.text
    m = re.match(r"\[quote=(\d+)\]\n?", text)
    if m:
        q = by_pid[int(m.group(1))]
        quoted = html.escape(q.text.split("\n")[0][:100])
        out.append(
            '<div class="quote"><blockquote><font size="2"><a href="forum.php?mod=redirect&amp;goto=findpost'
            f'&amp;pid={q.pid}&amp;ptid={q.tid}" target="_blank"><font color="#999999">{q.author} 发表于 '
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
<div class="authi"><a href="home.php?mod=space&amp;uid={p.uid}" target="_blank" class="xw1">{p.author}</a>
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


def page_shell(title: str, board: dict, body: str, fid: int, tid: int | None) -> str:
    js_ids = (
        f"var fid = parseInt('{fid}'), tid = parseInt('{tid}');" if tid else f"var fid = parseInt('{fid}');"
    )
    return f"""<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8" />
<title>{html.escape(title)} - {board["forum"]} -  {board["name"]} -  Powered by Discuz!</title>
<meta name="generator" content="Discuz! X3.5" />
<script type="text/javascript">var STYLEID = '1', STATICURL = 'static/', IMGDIR = 'static/image/common', VERHASH = 'FVC', charset = 'utf-8', discuz_uid = '0', cookiepre = 'demo_2132_', cookiedomain = '', cookiepath = '/', attackevasive = '0', disallowfloat = 'newthread';</script>
</head>
<body id="nv_forum" class="pg_viewthread">
<div id="wp" class="wp">
{body}
</div>
<script type="text/javascript">{js_ids}</script>
</body>
</html>
"""


def render_thread(tid: int, subject: str, posts: list[P], by_pid: dict[int, P], now: datetime, board: dict):
    ppp = int(board["ppp"])
    fid = int(board["fid"])
    maxpos = max(p.position for p in posts)
    pages = max(1, math.ceil(maxpos / ppp))
    replies = len(posts) - 1
    for page in range(1, pages + 1):
        lo, hi = (page - 1) * ppp + 1, page * ppp
        on_page = [p for p in posts if lo <= p.position <= hi]
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
        yield page, page_shell(subject + (f" - 第{page}页" if page > 1 else ""), board, body, fid, tid)


def render_forum(threads: list[tuple[int, str, str, int, P]], now: datetime, board: dict, users: dict) -> str:
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
<cite><a href="home.php?mod=space&amp;uid={users[author]}" c="1">{author}</a></cite>
<em><span>{now:%Y-%m-%d}</span></em>
</td>
<td class="num"><a href="forum.php?mod=viewthread&amp;tid={tid}&amp;extra=page%3D1" class="xi2">{replies}</a><em>{replies * 7 + 11}</em></td>
<td class="by">
<cite><a href="home.php?mod=space&username={last.author}" c="1">{last.author}</a></cite>
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
    return page_shell(board["forum"], board, body, fid, None)


def main(folder: Path) -> None:
    sc = tomllib.loads((folder / "scenario.toml").read_text("utf-8"))
    board, users = sc["board"], sc["users"]
    snaps = [s["name"] for s in sc["snapshots"]]
    for snap in sc["snapshots"]:
        name, now = snap["name"], local(snap["at"])
        idx = snaps.index(name)
        out = folder / "board" / name
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.html"):
            old.unlink()
        positions: dict[int, int] = {}
        by_pid: dict[int, P] = {}
        visible: dict[int, list[P]] = {}
        for raw in sc["posts"]:
            tid = int(raw["tid"])
            positions[tid] = positions.get(tid, 0) + 1
            if "from_snapshot" in raw and snaps.index(raw["from_snapshot"]) > idx:
                continue
            edited = "edit_from_snapshot" in raw and snaps.index(raw["edit_from_snapshot"]) <= idx
            p = P(
                pid=int(raw["pid"]),
                tid=tid,
                author=raw["author"],
                uid=int(users[raw["author"]]),
                at=local(raw["at"]),
                text=raw["edited_text"] if edited else raw["text"],
                position=positions[tid],
                edited_at=local(raw["edited_at"]) if edited else None,
                first=positions[tid] == 1,
            )
            by_pid[p.pid] = p
            if "deleted_from_snapshot" in raw and snaps.index(raw["deleted_from_snapshot"]) <= idx:
                continue
            visible.setdefault(tid, []).append(p)
        listing = []
        for t in sc["threads"]:
            tid = int(t["tid"])
            posts = visible.get(tid, [])
            if not posts:  # the thread does not exist yet at this snapshot
                continue
            for page, text in render_thread(tid, t["subject"], posts, by_pid, now, board):
                (out / f"viewthread-{tid}-{page}.html").write_text(text, "utf-8")
            listing.append((tid, t["subject"], t["author"], len(posts) - 1, posts[-1]))
        listing.sort(key=lambda row: row[4].at, reverse=True)
        (out / f"forumdisplay-{board['fid']}-1.html").write_text(
            render_forum(listing, now, board, users), "utf-8"
        )
        date = now.astimezone(ZoneInfo("UTC"))
        (out / "snapshot.json").write_text(
            json.dumps({"name": name, "date": date.strftime("%a, %d %b %Y %H:%M:%S GMT")}, indent=1) + "\n",
            "utf-8",
        )
        print(f"{out}: {len(list(out.glob('*.html')))} pages")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "data/examples/meishi"))
