"""The PC thread page: ``forum.php?mod=viewthread&tid=T&page=P`` (also ``thread-T-P-1.html``).

Every lookup that can be an id lookup is one (``id('postnum52')`` is a hash probe in libxml2, while
``//div[@id=...]`` walks the whole document), and all of a page's are ONE ``id()`` call (an XPath call
costs ten times the probe); everything else is scoped to one ``div#post_<pid>``.

Markup (Discuz! X3.5 default template, see shared/fixtures STRUCTURE.md)::

    div#postlist > div#post_P [style="display:none" when the author is blacklisted]
      table#pidP.plhin
        td.pls  div.pi > div.authi > a[href*=uid=]
                (anonymous: div.pi text; deleted user: NAME <em>该用户已被删除</em>)
        td.plc  a#postnumP > <em>N</em><sup>#</sup> | 楼主/沙发/板凳/地板
                em#authorpostonP  发表于 <span title="Y-n-j H:i:s">N 分钟前</span> | 发表于 Y-n-j H:i[:s]
                div.pcb > [div.locked placeholder] [h2 subject] td.t_f#postmessage_P (the body)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

import lxml.etree

from forumbot.parsers.encoding import Node, text_of
from forumbot.parsers.htmltext import classify_notice, name_in, read_body, squash, uid_in
from forumbot.parsers.pageinfo import int_or_none, read_header, read_pager, url_authorid, url_page, url_tid
from forumbot.parsers.records import (
    Post,
    PostState,
    Source,
    ThreadPage,
    new_post,
    new_thread_info,
    new_thread_page,
)
from forumbot.parsers.times import UNKNOWN_TIME, parse_display_time

__all__ = ["FLOOR_LABELS", "parse_floor_label", "parse_pc_thread"]

# Discuz!'s default postno labels (setting "postnocustom"): floors 1-4 carry names instead of numbers.
FLOOR_LABELS = {"楼主": 1, "樓主": 1, "沙发": 2, "沙發": 2, "板凳": 3, "地板": 4}

_BY_ID = lxml.etree.XPath("id($i)")
_AUTHOR_LINK = lxml.etree.XPath(".//div[@class='authi']/a[contains(@href,'uid=')]")
_AUTHOR_NOLINK = lxml.etree.XPath(".//div[contains(@class,'favatar')]/div[@class='pi']")
_AUTHOR_PLAIN = lxml.etree.XPath(".//div[@class='authi']/a[@class='xw1' or @class='xi2']")
_PCB = lxml.etree.XPath(".//div[@class='pcb' or @class='pcbs']")
_PCT = lxml.etree.XPath(".//div[@class='pct']")
_HEADER_COUNTS = lxml.etree.XPath("./table[1]//span[@class='xi1']")
_PAGER = lxml.etree.XPath(".//div[@class='pg']")
_ANY_PAGER = lxml.etree.XPath("//div[@class='pg']")
_TITLE = lxml.etree.XPath("//title")
_NO_FLOOR = re.compile(r"推荐|推薦|recommend", re.IGNORECASE)  # a recommended reply shown on top: no floor
_FROM_FLOOR = re.compile(r"(?:来自|來自|from)\s*(\d+)")
_WS = re.compile(r"[\s\xa0]+")


def _by_ids(root: Node, idents: str) -> dict[str, Node]:
    """The elements of the space-separated ``idents`` (those that exist), by id: one XPath call."""
    return {el.get("id") or "": el for el in _BY_ID(root, i=idents)}


def parse_floor_label(text: str) -> int | None:
    """``5#`` → 5, ``楼主`` → 1, ``来自 5#`` (a pinned copy) → 5; None for 推荐 or anything unknown."""
    label = text.strip()
    if label[-1:] == "#" and label[:-1].isdigit():  # the usual "5#": no regex
        return int(label[:-1])
    if label in FLOOR_LABELS:
        return FLOOR_LABELS[label]
    text = _WS.sub("", text)
    if not text:
        return None
    match = _FROM_FLOOR.search(text)
    if match:
        return int(match.group(1))
    if text in FLOOR_LABELS:
        return FLOOR_LABELS[text]
    digits = text.rstrip("#楼樓F")
    return int(digits) if digits.isdigit() else None


def _link_author(a: Node) -> tuple[str, int | None]:
    return name_in(a), uid_in(a.get("href") or "")


def _box_author(box: Node) -> tuple[str, int | None]:
    """The left column's ``div.pi`` when it holds no profile link."""
    for em in box.iter("em"):
        if "删除" in text_of(em) or "刪除" in text_of(em):
            name = (box.text or "").strip()
            if not name:
                for a in box.iter("a"):
                    name = (a.text or "").strip()
                    break
            return name, None  # deleted user: the name stays, the uid is gone
    return "", None  # anonymous (匿名) or a guest: no author to credit


def _author(favatar: Node | None, post_div: Node) -> tuple[str, int | None]:
    if favatar is not None:  # fast path: favatarP > div.pi > div.authi > a[href*=uid]
        for pi in favatar:
            if pi.tag != "div" or pi.get("class") != "pi":
                continue
            for authi in pi:
                if authi.tag == "div" and authi.get("class") == "authi":
                    for a in authi:
                        if a.tag == "a" and "uid=" in (a.get("href") or ""):
                            return _link_author(a)
            break
    links = _AUTHOR_LINK(post_div)
    if links:
        return _link_author(links[0])
    boxes = _AUTHOR_NOLINK(post_div)
    if boxes:
        return _box_author(boxes[0])
    plain = _AUTHOR_PLAIN(post_div)
    if plain:
        return squash(text_of(plain[0])), None
    return "", None


def _pcb(message: Node | None, post_div: Node) -> Node | None:
    """The ``div.pcb`` around a body: walk up from ``td.t_f`` (a few steps) instead of searching."""
    node = message
    for _ in range(6):
        if node is None:
            break
        node = node.getparent()
        if node is not None and node.tag == "div" and node.get("class") in ("pcb", "pcbs"):
            return node
    found = _PCB(post_div)
    return found[0] if found else None


def parse_pc_thread(
    root: Node,
    postlist: Node,
    body: bytes,
    url: str,
    *,
    charset: str,
    now: datetime | None,
    tz: ZoneInfo,
    keep_html: bool = True,
    whole: Callable[[], Node] | None = None,
) -> ThreadPage:
    """Read a PC thread page whose ``div#postlist`` is ``postlist``. Never raises for a single bad post:
    what cannot be read goes to ``problems``. ``whole``: the page parsed with its head, when ``root``
    was parsed without it (the title falls back to the ``<title>``)."""
    header = read_header(body)
    author_filter = url_authorid(url)
    problems: list[str] = []
    posts: list[Post] = []
    seen: dict[int, int] = {}
    tid = header.tid or url_tid(url)
    # Floors are renumbered in the only-this-author view, and the ajax viewpid fragment numbers its one
    # post by its own count (pid 52, floor 8, shows as 10#): neither is the real floor.
    renumbered = author_filter is not None or "viewpid=" in url

    found: list[tuple[Node, int]] = []
    for div in postlist:
        if div.tag != "div":
            continue
        ident = div.get("id") or ""
        if ident.startswith("post_") and ident[5:].isdigit():
            found.append((div, int(ident[5:])))
    names = [f"postnum{pid} authorposton{pid} postmessage_{pid} favatar{pid}" for _div, pid in found]
    by_id = _by_ids(root, " ".join([*names, "thread_subject pgt"]))
    for div, pid in found:
        post = _read_post(by_id, div, pid, tid, renumbered, now, tz, keep_html, problems)
        if post is None:
            continue
        if pid in seen:  # a pinned reply repeated at the top of page 1: keep the copy with a floor
            index = seen[pid]
            if posts[index].floor is None and post.floor is not None:
                posts[index] = post
            continue
        seen[pid] = len(posts)
        posts.append(post)
    if posts and not renumbered and all(p.floor is None for p in posts):
        problems.append(
            "page: no floor numbers shown (Discuz! hides them from User-Agents that look like robots)"
        )

    subject_el = by_id.get("thread_subject")
    if subject_el is not None:
        title = squash(text_of(subject_el))
    else:
        titles = _TITLE(root if whole is None else whole())
        title = text_of(titles[0]).split(" - ")[0].strip() if titles else ""

    pgt = by_id.get("pgt")
    pagers = _PAGER(pgt) if pgt is not None else _ANY_PAGER(root)
    current, total = read_pager(pagers[0] if pagers else None)
    page = current or (1 if not pagers else url_page(url)) or 1
    pages = total or page

    replies = None
    counts = _HEADER_COUNTS(postlist)
    if len(counts) >= 2:
        replies = int_or_none(text_of(counts[1]))

    info = new_thread_info(
        tid or 0,
        header.fid,
        title,
        page,
        pages,
        replies,
        header.formhash,
        header.viewer_uid,
        charset,
    )
    if not tid:
        problems.append("thread: no tid in the page or the URL")
    return new_thread_page(
        info,
        tuple(posts),
        Source.PC,
        url,
        author_filter,
        tuple(problems),
    )


def _read_post(
    by_id: dict[str, Node],
    div: Node,
    pid: int,
    tid: int | None,
    renumbered: bool,
    now: datetime | None,
    tz: ZoneInfo,
    keep_html: bool,
    problems: list[str],
) -> Post | None:
    postnum = by_id.get(f"postnum{pid}")
    poston = by_id.get(f"authorposton{pid}")
    message = by_id.get(f"postmessage_{pid}")
    if poston is None and message is None:
        pct = _PCT(div)
        note = squash(text_of(pct[0])) if pct else ""
        problems.append(f"post {pid}: no author line or body ({note or 'unknown layout'}); skipped")
        return None

    author, uid = _author(by_id.get(f"favatar{pid}"), div)

    floor: int | None = None
    first = False
    if postnum is not None:
        label = text_of(postnum)
        floor = parse_floor_label(label)
        href = postnum.get("href") or ""
        first = "findpost" not in href and "viewthread" in href
        if floor is None and not renumbered and label.strip() and not _NO_FLOOR.search(label):
            problems.append(f"post {pid}: floor label {_WS.sub(' ', label).strip()!r} not understood")
    floor_exact = not renumbered
    if renumbered:
        floor = None

    time_range = None
    if poston is not None:
        title = None
        for span in poston:  # the first span child (poston.find("span") without ElementPath)
            if span.tag == "span":
                title = span.get("title")
                break
        time_range = parse_display_time(text_of(poston), title=title, now=now, tz=tz)
    if time_range is None:
        problems.append(f"post {pid}: no time found")
        time_range = UNKNOWN_TIME

    text = read_body(message, tz, keep_html=keep_html)
    state = text.state
    subject = ""
    pcb = _pcb(message, div)
    if pcb is not None:
        for child in pcb:
            tag = child.tag
            if tag == "h2":
                subject = squash(text_of(child))
            elif tag == "div" and child.get("class") == "locked":
                found = classify_notice(text_of(child))
                if found is not None and (
                    state is PostState.NORMAL or found in (PostState.BANNED, PostState.BLOCKED)
                ):
                    state = found
    if message is None and state is PostState.NORMAL:
        problems.append(f"post {pid}: no body found")

    return new_post(
        pid,
        tid,
        author,
        uid,
        floor,
        time_range.start,
        time_range.end,
        time_range.source,
        text.text,
        text.html,
        text.quotes,
        text.mentions,
        text.edit,
        state,
        first or (floor == 1 and floor_exact),
        subject,
        floor_exact,
    )
