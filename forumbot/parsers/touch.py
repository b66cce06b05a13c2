"""The touch (mobile web) thread page: ``forum.php?mod=viewthread&tid=T&mobile=2``.

Two layouts are read:

- X3.5 (captured): ``div.plc#pid<pid>`` > ``div.display.pi`` (``pione`` on the opening post) >
  ``ul.authi`` > ``li.mtit`` (``span.y`` floor, ``span.z`` author) and ``li.mtime`` (time), then
  ``div.message``;
- X3.2–X3.4 (discuz.md): ``li.grey em`` floor, ``b a.blue[href*=uid]`` author, ``li.grey.rela`` time.

Recent times are relative with no exact time behind them, so touch times are intervals resolved against
the response's ``Date``; prefer the PC page or the API when the exact second matters.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import lxml.etree

from forumbot.parsers.encoding import Node, text_of
from forumbot.parsers.htmltext import read_body
from forumbot.parsers.pageinfo import int_or_none, read_header, read_pager, url_authorid, url_page, url_tid
from forumbot.parsers.pc import parse_floor_label
from forumbot.parsers.records import Post, Source, ThreadInfo, ThreadPage
from forumbot.parsers.times import UNKNOWN_TIME, parse_display_time

__all__ = ["find_touch_posts", "parse_touch_thread"]

_POSTS = lxml.etree.XPath(
    "//div[starts-with(@id,'pid')][contains(concat(' ',normalize-space(@class),' '),' plc ')]"
)
_FLOOR = lxml.etree.XPath(".//li[@class='mtit']/span[@class='y'] | .//li[@class='grey']/em")
_AUTHOR_BOX = lxml.etree.XPath(".//li[@class='mtit']/span[@class='z'] | .//li[@class='grey']/b")
_TIME = lxml.etree.XPath(".//li[@class='mtime'] | .//li[@class='grey rela']")
_MESSAGE = lxml.etree.XPath(".//div[@class='message']")
_FIRST = lxml.etree.XPath(".//div[contains(@class,'pione')]")
_TITLE = lxml.etree.XPath("//div[@class='view_tit']")
_PAGER = lxml.etree.XPath("//div[@class='pg']")
_HEAD_TITLE = lxml.etree.XPath("/html/head/title")
_REPLIES = lxml.etree.XPath("//div[@class='txtlist cl']/div[@class='mtit cl']/em")
_FID = re.compile(rb"forumdisplay&(?:amp;)?fid=(\d+)")
_TID = re.compile(rb"[?&;]tid=(\d+)")
_UID = re.compile(r"(?<![a-zA-Z])uid=(\d+)")
_WS = re.compile(r"[\s\xa0]+")


def find_touch_posts(root: Node) -> list[Node]:
    """The post containers of a touch page (empty when the page is not a touch thread)."""
    found: list[Node] = _POSTS(root)
    return found


def _own_text(el: Node) -> str:
    """The element's text without its children's (``li.mtime`` also holds view counts and edit links)."""
    parts = [el.text or ""]
    parts.extend(child.tail or "" for child in el)
    return _WS.sub(" ", "".join(parts)).strip()


def _author(post: Node) -> tuple[str, int | None]:
    boxes = _AUTHOR_BOX(post)
    if not boxes:
        return "", None
    box = boxes[0]
    for a in box.iter("a"):
        match = _UID.search(a.get("href") or "")
        if match:
            return _WS.sub(" ", text_of(a)).strip(), int(match.group(1))
    for em in box.iter("em"):
        if "删除" in text_of(em) or "刪除" in text_of(em):
            return (box.text or "").strip(), None
    return "", None  # anonymous or guest


def parse_touch_thread(
    root: Node,
    containers: list[Node],
    body: bytes,
    url: str,
    *,
    charset: str,
    now: datetime | None,
    tz: ZoneInfo,
    keep_html: bool = True,
) -> ThreadPage:
    header = read_header(body)
    author_filter = url_authorid(url)
    tid = url_tid(url) or header.tid
    if tid is None:
        match = _TID.search(body)
        tid = int(match.group(1)) if match else None
    problems: list[str] = []
    posts: list[Post] = []
    seen: set[int] = set()
    floor_exact = author_filter is None

    for el in containers:
        ident = el.get("id") or ""
        if not ident[3:].isdigit():
            continue
        pid = int(ident[3:])
        if pid in seen:
            continue
        seen.add(pid)
        floors = _FLOOR(el)
        floor = parse_floor_label(text_of(floors[0])) if floors and floor_exact else None
        author, uid = _author(el)
        times = _TIME(el)
        time_range = parse_display_time(_own_text(times[0]), now=now, tz=tz) if times else None
        if time_range is None:
            problems.append(
                f"post {pid}: no time found" + ("" if now else " (relative time and no Date header)")
            )
            time_range = UNKNOWN_TIME
        messages = _MESSAGE(el)
        text = read_body(messages[0] if messages else None, tz, keep_html=keep_html)
        if not messages:
            problems.append(f"post {pid}: no body found")
        first = bool(_FIRST(el)) or (floor == 1 and floor_exact)
        posts.append(
            Post(
                pid=pid,
                tid=tid,
                author=author,
                uid=uid,
                floor=floor,
                posted_at=time_range.start,
                posted_until=time_range.end,
                time_source=time_range.source,
                text=text.text,
                html=text.html,
                quotes=text.quotes,
                mentions=text.mentions,
                edit=text.edit,
                state=text.state,
                first=first,
                floor_exact=floor_exact,
            )
        )

    titles = _TITLE(root)
    title = ""
    if titles:
        title = _own_text(titles[0]) or _WS.sub(" ", text_of(titles[0])).strip()
    else:  # older touch templates: the <title> is "subject - forum - board - 手机版 - Powered by Discuz!"
        heads = _HEAD_TITLE(root)
        title = text_of(heads[0]).split(" - ")[0].strip() if heads else ""
    pagers = _PAGER(root)
    current, total = read_pager(pagers[0] if pagers else None)
    page = current or (1 if not pagers else url_page(url)) or 1
    fid = header.fid
    if fid is None:
        match = _FID.search(body)
        fid = int(match.group(1)) if match else None
    replies_el = _REPLIES(root)
    info = ThreadInfo(
        tid=tid or 0,
        fid=fid,
        title=title,
        page=page,
        pages=total or page,
        replies=int_or_none(text_of(replies_el[0])) if replies_el else None,
        formhash=header.formhash,
        viewer_uid=header.viewer_uid,
        charset=charset,
    )
    if not tid:
        problems.append("thread: no tid in the page or the URL")
    return ThreadPage(
        thread=info,
        posts=tuple(posts),
        source=Source.TOUCH,
        url=url,
        author_filter=author_filter,
        problems=tuple(problems),
    )
