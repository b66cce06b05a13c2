"""A throwaway parser for the pages of pagebuilder.FakeBoard, used until forumbot.parsers lands.

It implements the parsers API (parse_thread_page, parse_forum_page) just far enough for the client
and poll tests: PC thread pages, the PC forum list, the API v4 JSON, and the error pages the
builder serves. It is not a model for the real parsers.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import lxml.html

from forumbot import errors
from forumbot.parsers.records import (
    EditMarker,
    ForumPage,
    ForumThread,
    Post,
    PostState,
    QuoteRef,
    Source,
    ThreadInfo,
    ThreadPage,
    TimeSource,
)

PLACEHOLDER_STATES = {
    "作者被禁止或删除 内容自动屏蔽": PostState.BANNED,
    "该帖被管理员或版主屏蔽": PostState.BLOCKED,
}


def _time(text: str, tz: ZoneInfo) -> datetime:
    m = re.search(r"(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{2})(?::(\d{2}))?", text)
    if not m:
        raise ValueError(text)
    y, mo, d, h, mi, s = (int(x) if x else 0 for x in m.groups())
    return datetime(y, mo, d, h, mi, s, tzinfo=tz).astimezone(UTC)


def _raise_for_html(text: str, url: str, status: int) -> None:
    if "Discuz! System Error" in text or status >= 500:
        raise errors.BoardSystemError(url, "Discuz! System Error")
    if "刷新过于频繁" in text:
        raise errors.CCDefence(url, "刷新过于频繁")
    m = re.search(r'id="messagetext"[^>]*>\s*<p>(.*?)</p>', text, re.S)
    if m:
        msg = m.group(1)
        if "主题不存在" in msg:
            raise errors.ThreadNotFound(url, msg)
        if "尚未登录" in msg:
            raise errors.LoginRequired(url, msg)
        raise errors.NoPermission(url, msg)
    if 'name="password"' in text and "loginform" in text:
        raise errors.LoginRequired(url, "login form")


def _api(body: bytes, url: str, status: int) -> dict:
    try:
        data = json.loads(body.decode("utf-8"))
    except ValueError as exc:
        raise errors.UnparseablePage(url, detail="not JSON") from exc
    if "error" in data:
        raise errors.ApiClosed(url, data["error"])
    msg = data.get("Message", {}).get("messageval", "")
    if msg == "thread_nonexistence":
        raise errors.ThreadNotFound(url, msg)
    if "login" in msg:
        raise errors.LoginRequired(url, msg)
    return data["Variables"]


def parse_thread_page(
    body: bytes,
    url: str,
    *,
    date_header: str | None = None,
    content_type: str | None = None,
    tz: ZoneInfo,
    status: int = 200,
) -> ThreadPage:
    if "api/mobile" in url:
        v = _api(body, url, status)
        t = v["thread"]
        ppp = int(v.get("ppp", "10"))
        replies = int(t.get("replies", "0"))
        page = int(re.search(r"page=(\d+)", url).group(1)) if "page=" in url else 1  # type: ignore[union-attr]
        pages = max(1, -(-(replies + 1) // ppp))
        page = min(page, pages)
        posts = []
        for p in v["postlist"]:
            at = datetime.fromtimestamp(int(p["dbdateline"]), UTC)
            text, quotes, edit, state = _body(p["message"], tz)
            posts.append(
                Post(
                    pid=int(p["pid"]),
                    tid=int(p["tid"]),
                    author=p["author"],
                    uid=int(p["authorid"]),
                    floor=int(p["position"]),
                    posted_at=at,
                    posted_until=at,
                    time_source=TimeSource.API,
                    text=text,
                    html=p["message"],
                    quotes=quotes,
                    edit=None,  # v4 strips the marker
                    state=state,
                    first=p.get("first") == "1",
                )
            )
        info = ThreadInfo(int(t["tid"]), int(t["fid"]), t["subject"], page, pages, replies=replies)
        return ThreadPage(info, tuple(posts), Source.API, url)
    text = body.decode("utf-8")
    _raise_for_html(text, url, status)
    root = lxml.html.fromstring(body)
    js = re.search(r"var fid = parseInt\('(\d+)'\), tid = parseInt\('(\d+)'\)", text)
    if not js:
        raise errors.UnparseablePage(url, detail="no tid")
    fid, tid = int(js.group(1)), int(js.group(2))
    pg = root.xpath('//div[@class="pg"]')
    if pg:
        page = int(pg[0].xpath("./strong/text()")[0])
        pages = int(re.search(r"共 (\d+) 页", lxml.html.tostring(pg[0], encoding="unicode")).group(1))  # type: ignore[union-attr]
    else:
        page = pages = 1
    replies = None
    m = re.search(r'回复:</span> <span class="xi1">(\d+)</span>', text)
    if m:
        replies = int(m.group(1))
    posts = []
    for div in root.xpath('//div[@id="postlist"]/div[starts-with(@id, "post_")]'):
        pid = int(div.get("id")[5:])
        a = div.xpath('.//div[@class="authi"]/a[contains(@href, "uid=")]')[0]
        uid = int(re.search(r"uid=(\d+)", a.get("href")).group(1))  # type: ignore[union-attr]
        num = div.xpath(f'.//a[@id="postnum{pid}"]')[0]
        em = num.xpath("./em/text()")
        label = num.text_content().strip()
        floor = int(em[0]) if em else {"楼主": 1, "沙发": 2, "板凳": 3, "地板": 4}[label]
        at = _time(div.xpath(f'.//em[@id="authorposton{pid}"]')[0].text_content(), tz)
        td = div.xpath(f'.//td[@id="postmessage_{pid}"]')[0]
        inner = (td.text or "") + "".join(lxml.html.tostring(c, encoding="unicode") for c in td)
        body_text, quotes, edit, state = _body(inner, tz)
        posts.append(
            Post(
                pid=pid,
                tid=tid,
                author=a.text_content().strip(),
                uid=uid,
                floor=floor,
                posted_at=at,
                posted_until=at,
                time_source=TimeSource.TEXT,
                text=body_text,
                html=inner.strip(),
                quotes=quotes,
                edit=edit,
                state=state,
                first=floor == 1,
            )
        )
    title = root.xpath('//span[@id="thread_subject"]')[0].text_content()
    return ThreadPage(ThreadInfo(tid, fid, title, page, pages, replies=replies), tuple(posts), Source.PC, url)


def _body(markup: str, tz: ZoneInfo) -> tuple[str, tuple[QuoteRef, ...], EditMarker | None, PostState]:
    frag = lxml.html.fragment_fromstring(markup or "<div></div>", create_parent="div")
    locked = frag.xpath('.//div[@class="locked"]')
    if locked:
        msg = locked[0].text_content().strip()
        return msg, (), None, PLACEHOLDER_STATES.get(msg, PostState.BLOCKED)
    edit = None
    for i in frag.xpath('.//i[@class="pstatus"]'):
        raw = i.text_content().strip()
        m = re.search(r"本帖最后由 (.+?) 于 (.+?) 编辑", raw)
        if m:
            edit = EditMarker(m.group(1), _time(m.group(2), tz), raw)
        i.drop_tree()
    quotes = []
    for q in frag.xpath('.//div[@class="quote"]'):
        link = q.xpath(".//a[contains(@href, 'findpost')]")
        pid = int(re.search(r"pid=(\d+)", link[0].get("href")).group(1)) if link else None  # type: ignore[union-attr]
        who = link[0].text_content().split(" 发表于")[0] if link else ""
        quotes.append(QuoteRef(pid, who, ""))
        q.drop_tree()
    for br in frag.xpath(".//br"):
        br.tail = "\n" + (br.tail or "")
    text = "\n".join(line.strip() for line in frag.text_content().split("\n") if line.strip())
    return text, tuple(quotes), edit, PostState.NORMAL


def parse_forum_page(
    body: bytes,
    url: str,
    *,
    date_header: str | None = None,
    content_type: str | None = None,
    tz: ZoneInfo,
    status: int = 200,
) -> ForumPage:
    if "api/mobile" in url:
        v = _api(body, url, status)
        threads = tuple(
            ForumThread(
                int(t["tid"]),
                t["subject"],
                int(t["replies"]),
                datetime.fromtimestamp(int(t["dblastpost"]), UTC),
                t.get("lastposter", ""),
            )
            for t in v["forum_threadlist"]
        )
        return ForumPage(
            int(v["forum"]["fid"]), v["forum"]["name"], 1, 1, threads, source=Source.API, url=url
        )
    text = body.decode("utf-8")
    _raise_for_html(text, url, status)
    root = lxml.html.fromstring(body)
    threads_l = []
    for tb in root.xpath('//tbody[starts-with(@id, "normalthread_")]'):
        tid = int(tb.get("id").split("_")[1])
        subject = tb.xpath('.//a[contains(@class, "xst")]')[0].text_content()
        replies = int(tb.xpath('.//td[@class="num"]/a')[0].text_content())
        last = tb.xpath('.//td[@class="by"][2]//span[@title]')
        last_at = _time(last[0].get("title"), tz) if last else None
        threads_l.append(ForumThread(tid, subject, replies, last_at))
    fid = int(re.search(r"var fid = parseInt\('(\d+)'\)", text).group(1))  # type: ignore[union-attr]
    return ForumPage(fid, "版杀区", 1, 1, tuple(threads_l), url=url)
