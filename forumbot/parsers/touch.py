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
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

import lxml.etree

from forumbot.parsers.encoding import Node, text_of
from forumbot.parsers.htmltext import read_body
from forumbot.parsers.pageinfo import int_or_none, read_header, read_pager, url_authorid, url_page, url_tid
from forumbot.parsers.pc import parse_floor_label
from forumbot.parsers.records import Post, Source, ThreadInfo, ThreadPage
from forumbot.parsers.times import UNKNOWN_TIME, TimeRange, parse_display_time

__all__ = ["TouchLayout", "find_touch_posts", "parse_touch_thread", "scan_touch_page"]

_HEAD_TITLE = lxml.etree.XPath("/html/head/title")
_FID = re.compile(rb"forumdisplay&(?:amp;)?fid=(\d+)")
_TID = re.compile(rb"[?&;]tid=(\d+)")
_UID = re.compile(r"(?<![a-zA-Z])uid=(\d+)")
_WS = re.compile(r"[\s\xa0]+")


@dataclass(slots=True)
class TouchLayout:
    """What one walk over a touch page's ``div`` elements finds (see :func:`scan_touch_page`)."""

    posts: list[Node] = field(default_factory=list)  # div.plc[id^=pid], in document order
    title: Node | None = None  # the first div.view_tit
    pager: Node | None = None  # the first div.pg
    replies: Node | None = None  # div.txtlist.cl > div.mtit.cl > em (the reply count)


def scan_touch_page(root: Node) -> TouchLayout:
    """Find the posts, the title, the pager and the reply count in ONE walk over the page's divs.

    Why: each of these was an XPath ``//div[...]`` scan of the whole document, and a touch page is
    mostly divs; libxml2 filtering ``iter("div")`` in C and one Python test per div costs less than four
    scans. Results are in document order, the first match wins: the same answers as the XPaths.
    """
    found = TouchLayout()
    for div in root.iter("div"):
        cls = div.get("class")
        if not cls:
            continue
        if cls == "pg":
            if found.pager is None:
                found.pager = div
        elif cls == "view_tit":
            if found.title is None:
                found.title = div
        elif cls == "txtlist cl":
            if found.replies is None:
                for mtit in div.iterchildren("div"):
                    if mtit.get("class") == "mtit cl":
                        em = next(mtit.iterchildren("em"), None)
                        if em is not None:
                            found.replies = em
                            break
        elif "plc" in cls and (div.get("id") or "").startswith("pid") and "plc" in cls.split():
            found.posts.append(div)
    return found


def find_touch_posts(root: Node) -> list[Node]:
    """The post containers of a touch page (empty when the page is not a touch thread)."""
    return scan_touch_page(root).posts


@dataclass(slots=True)
class _PostParts:
    floor: Node | None = None  # li.mtit > span.y (X3.5) or li.grey > em (X3.2)
    author: Node | None = None  # li.mtit > span.z or li.grey > b
    time: Node | None = None  # li.mtime or li.grey.rela
    message: Node | None = None  # the first div.message
    first: bool = False  # a div whose class holds "pione": the opening post


def _post_parts(post: Node) -> _PostParts:
    """One walk over a post's li and div elements instead of five XPath searches of its subtree.

    Each part is the first match in document order, as the former XPath unions returned; the walk
    stops once everything is found.
    """
    parts = _PostParts()
    for el in post.iter("li", "div"):
        cls = el.get("class")
        if cls is None:
            continue
        if el.tag == "li":
            if cls == "mtit":
                for span in el.iterchildren("span"):
                    sc = span.get("class")
                    if sc == "y" and parts.floor is None:
                        parts.floor = span
                    elif sc == "z" and parts.author is None:
                        parts.author = span
            elif cls == "grey":
                if parts.floor is None:
                    parts.floor = next(el.iterchildren("em"), None)
                if parts.author is None:
                    parts.author = next(el.iterchildren("b"), None)
            elif cls in ("mtime", "grey rela") and parts.time is None:
                parts.time = el
        elif cls == "message":
            if parts.message is None:
                parts.message = el
                if parts.first and None not in (parts.floor, parts.author, parts.time):
                    break  # a later pione cannot change anything: all parts are found
        elif "pione" in cls:
            parts.first = True
    return parts


def _own_text(el: Node) -> str:
    """The element's text without its children's (``li.mtime`` also holds view counts and edit links)."""
    parts = [el.text or ""]
    parts.extend(child.tail or "" for child in el)
    return _WS.sub(" ", "".join(parts)).strip()


def _author(box: Node | None) -> tuple[str, int | None]:
    if box is None:
        return "", None
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
    layout: TouchLayout,
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
    times: dict[str, TimeRange | None] = {}

    for el in layout.posts:
        ident = el.get("id") or ""
        if not ident[3:].isdigit():
            continue
        pid = int(ident[3:])
        if pid in seen:
            continue
        seen.add(pid)
        parts = _post_parts(el)
        floor = parse_floor_label(text_of(parts.floor)) if parts.floor is not None and floor_exact else None
        author, uid = _author(parts.author)
        time_el = parts.time
        time_range = None
        if time_el is not None:
            shown = _own_text(time_el)
            if shown not in times:  # posts of a page often show the same "N 分钟前": read each once
                times[shown] = parse_display_time(shown, now=now, tz=tz)
            time_range = times[shown]
        if time_range is None:
            problems.append(
                f"post {pid}: no time found" + ("" if now else " (relative time and no Date header)")
            )
            time_range = UNKNOWN_TIME
        text = read_body(parts.message, tz, keep_html=keep_html)
        if parts.message is None:
            problems.append(f"post {pid}: no body found")
        first = parts.first or (floor == 1 and floor_exact)
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

    title_el = layout.title
    title = ""
    if title_el is not None:
        title = _own_text(title_el) or _WS.sub(" ", text_of(title_el)).strip()
    else:  # older touch templates: the <title> is "subject - forum - board - 手机版 - Powered by Discuz!"
        heads = _HEAD_TITLE(root)
        title = text_of(heads[0]).split(" - ")[0].strip() if heads else ""
    current, total = read_pager(layout.pager)
    page = current or (1 if layout.pager is None else url_page(url)) or 1
    fid = header.fid
    if fid is None:
        match = _FID.search(body)
        fid = int(match.group(1)) if match else None
    replies_el = layout.replies
    info = ThreadInfo(
        tid=tid or 0,
        fid=fid,
        title=title,
        page=page,
        pages=total or page,
        replies=int_or_none(text_of(replies_el)) if replies_el is not None else None,
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
