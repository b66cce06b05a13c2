"""A forum's thread list (``forum.php?mod=forumdisplay&fid=F``), PC and touch.

Enough to tell which watched threads changed since the last poll: tid, subject, replies, last post.

PC: ``table#threadlisttableid > tbody#normalthread_T|stickthread_T``: ``a.xst`` subject, ``td.num > a``
replies, the second ``td.by``'s ``em span[title]`` the last post (minute precision, taken as the start of
the minute) and its ``cite a`` the last poster. Touch: ``div.threadlist li.list``: no last-post time.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import lxml.etree

from forumbot.parsers.encoding import Node, text_of
from forumbot.parsers.forumrecords import ForumPage, ForumThread, Source
from forumbot.parsers.pageinfo import int_or_none, read_header, read_pager, url_fid, url_page
from forumbot.parsers.times import parse_display_time

__all__ = ["find_pc_forum_table", "find_touch_forum_rows", "parse_pc_forum", "parse_touch_forum"]

_BY_ID = lxml.etree.XPath("id($i)")
_ROWS = lxml.etree.XPath("./tbody[starts-with(@id,'normalthread_') or starts-with(@id,'stickthread_')]")
_SUBJECT = lxml.etree.XPath(".//a[contains(concat(' ',@class,' '),' xst ')]")
_REPLIES = lxml.etree.XPath(".//td[@class='num']/a")
_BY = lxml.etree.XPath(".//td[@class='by']")
_PAGER = lxml.etree.XPath("//div[@class='pg']")
_NAME = lxml.etree.XPath("//h1[@class='xs2']/a | //div[@class='header cl']/h2")
_TOUCH_ROWS = lxml.etree.XPath("//div[contains(@class,'threadlist')]//li[@class='list']")
_TID = re.compile(r"(?<![a-zA-Z])tid=(\d+)")
_FID_SUMMARY = re.compile(r"forum_(\d+)")
_FID_BYTES = re.compile(rb"fid=(\d+)")
_WS = re.compile(r"[\s\xa0]+")


def _clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


def parse_pc_forum(
    root: Node, table: Node, body: bytes, url: str, *, now: datetime | None, tz: ZoneInfo
) -> ForumPage:
    threads: list[ForumThread] = []
    for row in _ROWS(table):
        tid = int_or_none((row.get("id") or "").rpartition("_")[2])
        if tid is None:
            continue
        subjects = _SUBJECT(row)
        replies = _REPLIES(row)
        by = _BY(row)
        author = last_poster = ""
        last_post_at = None
        if by:
            authors = by[0].xpath("./cite/a")
            author = _clean(text_of(authors[0])) if authors else ""
        if len(by) >= 2:
            posters = by[1].xpath("./cite/a")
            last_poster = _clean(text_of(posters[0])) if posters else _clean(by[1].xpath("string(./cite)"))
            ems = by[1].xpath("./em")
            if ems:
                spans = ems[0].xpath(".//span[@title]")
                title = spans[0].get("title") if spans else None
                found = parse_display_time(text_of(ems[0]), title=title, now=now, tz=tz)
                last_post_at = found.start if found else None
        threads.append(
            ForumThread(
                tid=tid,
                subject=_clean(text_of(subjects[0])) if subjects else "",
                replies=(int_or_none(_clean(text_of(replies[0]))) or 0) if replies else 0,
                last_post_at=last_post_at,
                last_poster=last_poster,
                author=author,
            )
        )
    match = _FID_SUMMARY.search(table.get("summary") or "")
    fid = url_fid(url) or (int(match.group(1)) if match else None) or read_header(body).fid or 0
    names = _NAME(root)
    pagers = _PAGER(root)
    current, total = read_pager(pagers[0] if pagers else None)
    page = current or url_page(url) or 1
    return ForumPage(
        fid=fid,
        name=_clean(text_of(names[0])) if names else "",
        page=page,
        pages=total or page,
        threads=tuple(threads),
        formhash=read_header(body).formhash,
        source=Source.PC,
        url=url,
    )


def find_pc_forum_table(root: Node) -> Node | None:
    found = _BY_ID(root, i="threadlisttableid")
    return found[0] if found else None


def find_touch_forum_rows(root: Node) -> list[Node]:
    rows: list[Node] = _TOUCH_ROWS(root)
    return rows


def parse_touch_forum(root: Node, rows: list[Node], body: bytes, url: str) -> ForumPage:
    threads: list[ForumThread] = []
    for row in rows:
        tid = None
        for a in row.iter("a"):
            match = _TID.search(a.get("href") or "")
            if match:
                tid = int(match.group(1))
                break
        if tid is None:
            continue
        titles = row.xpath(".//div[contains(@class,'threadlist_tit')]")
        authors = row.xpath(".//div[@class='muser']//a")
        counts = row.xpath(".//div[contains(@class,'threadlist_foot')]//li")
        replies = 0
        for li in counts:  # eye = views, chat = replies
            icons = " ".join(i.get("class") or "" for i in li.iter("i"))
            if "chat" in icons:
                replies = int_or_none(_clean(text_of(li))) or 0
        threads.append(
            ForumThread(
                tid=tid,
                subject=_clean(text_of(titles[0])) if titles else "",
                replies=replies,
                author=_clean(text_of(authors[0])) if authors else "",
            )
        )
    header = read_header(body)
    names = _NAME(root)
    pagers = _PAGER(root)
    current, total = read_pager(pagers[0] if pagers else None)
    page = current or url_page(url) or 1
    fid = url_fid(url)
    if fid is None:
        found = _FID_BYTES.search(body)
        fid = int(found.group(1)) if found else 0
    return ForumPage(
        fid=fid,
        name=_clean(text_of(names[0])) if names else "",
        page=page,
        pages=total or page,
        threads=tuple(threads),
        formhash=header.formhash,
        source=Source.TOUCH,
        url=url,
    )
