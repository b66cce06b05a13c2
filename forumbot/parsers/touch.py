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
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

import lxml.etree

from forumbot.parsers.encoding import CLASS, HREF, ID, Node, text_of
from forumbot.parsers.htmltext import name_in, number_after, read_body, squash, uid_in
from forumbot.parsers.pageinfo import (
    int_or_none,
    query,
    read_header,
    read_pager,
    search_after,
    url_authorid,
    url_page,
    url_tid,
)
from forumbot.parsers.pc import parse_floor_label
from forumbot.parsers.records import (
    Post,
    Source,
    ThreadPage,
    new_post,
    new_thread_info,
    new_thread_page,
)
from forumbot.parsers.times import UNKNOWN_TIME, TimeRange, parse_display_time

__all__ = [
    "TouchLayout",
    "ends_at_pager",
    "find_touch_posts",
    "parse_touch_thread",
    "reading_end",
    "scan_touch_page",
]

_HEAD_TITLE = lxml.etree.XPath("/html/head/title")
_FID = re.compile(rb"forumdisplay&(?:amp;)?fid=(\d+)")
_TID = re.compile(rb"(?<=[?&;])tid=(\d+)")


@dataclass(slots=True)
class _PostParts:
    floor: Node | None = None  # li.mtit > span.y (X3.5) or li.grey > em (X3.2)
    author: Node | None = None  # li.mtit > span.z or li.grey > b
    time: Node | None = None  # li.mtime or li.grey.rela
    message: Node | None = None  # the first div.message
    first: bool = False  # a div whose class holds "pione": the opening post


@dataclass(slots=True)
class TouchLayout:
    """What one walk over a touch page's ``div`` elements finds (see :func:`scan_touch_page`).

    Each post's divs are kept in lists side by side with ``posts`` rather than in an object a post:
    building a small object costs as much as reading one of its divs' classes.
    """

    posts: list[Node] = field(default_factory=list)  # div.plc[id^=pid], in document order
    idents: list[str] = field(default_factory=list)  # each post div's id, pid<N>
    boxes: list[Node | None] = field(default_factory=list)  # each post's own div.pi the walk met
    messages: list[Node | None] = field(default_factory=list)  # each box's first div.message
    firsts: list[bool] = field(default_factory=list)  # each box's class holds "pione": the opening post
    title: Node | None = None  # the first div.view_tit
    pager: Node | None = None  # the first div.pg
    replies: Node | None = None  # div.txtlist.cl > div.mtit.cl > em (the reply count)


def _is_pi(cls: str) -> bool:
    return cls == "display pi" or cls == "pi" or cls == "display pi pione" or "pi" in cls.split()


_IGNORED, _MESSAGE, _BOX, _POST, _PAGER, _TITLE, _REPLIES = range(7)
# The classes the templates give divs, looked up once per div instead of compared in turn.
_KINDS = {
    "message": _MESSAGE,
    "display pi": _BOX,
    "display pi pione": _BOX,
    "pi": _BOX,
    "plc cl": _POST,
    "pg": _PAGER,
    "view_tit": _TITLE,
    "txtlist cl": _REPLIES,
    "avatar": _IGNORED,
    "threadlist_foot cl": _IGNORED,
    "discuz_x cl": _IGNORED,
    "mtit cl": _IGNORED,
    "header cl": _IGNORED,
    "mz": _IGNORED,
    "my": _IGNORED,
    "viewthread": _IGNORED,
    "quote": _IGNORED,
}


def scan_touch_page(root: Node) -> TouchLayout:
    """Find the posts, each post's author box and body, the title, the pager and the reply count in ONE
    walk over the page's divs.

    Why: reading an element's class costs more than anything else done with it, and a touch page is
    mostly divs: each div is asked once, here, instead of once by a page scan and again by a walk of
    each post. Results are in document order, the first match wins. A post's box is the first
    ``div.pi`` that is the post's child, its body the first ``div.message`` that is the box's child;
    a post where they are not found is walked on its own (:func:`_walk_parts`).
    """
    found = TouchLayout()
    posts, boxes, messages = found.posts, found.boxes, found.messages
    post: Node | None = None  # the post the walk is in
    box: Node | None = None  # that post's box, once met
    in_body = False  # that box's body met
    kinds = _KINDS
    for div in root.iter("div"):
        cls = div.get(CLASS)
        if not cls:
            continue
        kind = kinds.get(cls)
        if kind is None:  # a class the template does not use on these divs: read it the long way
            if "plc" in cls and "plc" in cls.split():
                kind = _POST
            elif _is_pi(cls):
                kind = _BOX
            else:
                continue
        elif kind == _IGNORED:  # a third of a page's classed divs: no comparison chain
            continue
        if kind == _MESSAGE:
            if not in_body and box is not None and div.getparent() is box:
                messages[-1] = div
                in_body = True
        elif kind == _BOX:
            if box is None and post is not None and div.getparent() is post:
                box = boxes[-1] = div
                found.firsts[-1] = "pione" in cls
        elif kind == _POST:
            ident = div.get(ID) or ""
            if ident.startswith("pid"):
                post = div
                box = None
                in_body = False
                posts.append(div)
                found.idents.append(ident)
                boxes.append(None)
                messages.append(None)
                found.firsts.append(False)
        elif kind == _PAGER:
            if found.pager is None:
                found.pager = div
        elif kind == _TITLE:
            if found.title is None:
                found.title = div
        elif found.replies is None:  # _REPLIES
            for mtit in div.iterchildren("div"):
                if mtit.get("class") == "mtit cl":
                    em = next(mtit.iterchildren("em"), None)
                    if em is not None:
                        found.replies = em
                        break
    return found


_PAGER_OPEN = b'<div class="pg">'
# What the page walk starts reading at (a post, the title, the reply count): when one of these shows
# after the last pager, the page is parsed whole. (A post begun before the pager and going on after it
# is found in the tree: ends_at_pager.)
_READ_AFTER = (b"pid", b"view_tit", b"txtlist")


def reading_end(data: bytes) -> int:
    """Where the part of a touch thread page that is read ends: right after the page's last pager
    (``<div class="pg">``, which holds no div), or ``len(data)``.

    Why: what follows the last pager (the reply bar, the footer, its scripts) is a tenth of a touch
    page's bytes and nothing in it is read; parsing stops there. The page is parsed whole when the
    pager holds a div, or when a post, the title or the reply count shows after it;
    :func:`ends_at_pager` then checks in the tree that the part ended at a pager outside every post.
    """
    at = data.rfind(_PAGER_OPEN)
    if at < 0:
        return len(data)
    end = data.find(b"</div>", at)
    if end < 0 or data.find(b"<div", at + len(_PAGER_OPEN), end) >= 0:
        return len(data)
    end += len(b"</div>")
    for marker in _READ_AFTER:
        if data.find(marker, end) >= 0:
            return len(data)
    return end


def ends_at_pager(root: Node) -> bool:
    """Whether a touch page parsed up to :func:`reading_end` ends in a pager outside every post: the
    way down from the root along last children meets the ``div.pg`` before any post (``div.plc``) or
    body (``div.message``). False means the page must be parsed whole (the pager was a post's own
    markup, or the part ended elsewhere)."""
    el = root
    while len(el):
        el = el[-1]
        if el.tag == "div":
            cls = el.get(CLASS)
            if cls == "pg":
                return True
            if cls and ("plc" in cls or "message" in cls):
                return False
    return False


def find_touch_posts(root: Node) -> list[Node]:
    """The post containers of a touch page (empty when the page is not a touch thread)."""
    return scan_touch_page(root).posts


_Line = tuple[Node | None, Node | None, Node | None]  # floor, author, time


def _author_line(ul: Node, floor: Node | None, author: Node | None, time: Node | None) -> _Line:
    """The floor, author and time of an ``ul.authi``'s items, first of each (those given are kept).

    Items are walked sibling to sibling (``getnext``): for the two or three children here, indexing
    walks the list again on each step and an iterator costs more than the steps it saves.
    """
    li = ul[0] if len(ul) else None
    while li is not None:
        if li.tag == "li":
            cls = li.get(CLASS)
            if cls == "mtit":
                span = li[0] if len(li) else None
                while span is not None:
                    if span.tag == "span":
                        sc = span.get(CLASS)
                        if sc == "y":
                            if floor is None:
                                floor = span
                        elif sc == "z" and author is None:
                            author = span
                    span = span.getnext()
            elif cls == "mtime" or cls == "grey rela":
                if time is None:
                    time = li
            elif cls == "grey":
                if floor is None:
                    floor = next(li.iterchildren("em"), None)
                if author is None:
                    author = next(li.iterchildren("b"), None)
        li = li.getnext()
    return floor, author, time


def _usual_line(ul: Node) -> tuple[str, str, int, str] | None:
    """The floor label, author, uid and shown time of an ``ul.authi`` in its usual X3.5 shape, read
    straight off; None for any other shape (then :func:`_author_line` and :func:`_author` read it).

    The usual shape: ``li.mtit`` (``span.y`` the floor, ``span.z`` > one ``a`` with a uid, the
    author) then ``li.mtime`` (the time), and nothing else. Why: seven posts in eight look so, and
    reading them through the general walk and its helpers costs a fifth of a touch page's own work.
    What it returns is what the general reading gives for the same line
    (``tests/parsers/test_touch_speedpaths.py``).
    """
    if len(ul) != 2:
        return None
    mtit = ul[0]
    mtime = mtit.getnext()
    if mtit.tag != "li" or mtime is None or mtime.tag != "li" or len(mtit) != 2:
        return None
    if mtit.get(CLASS) != "mtit" or mtime.get(CLASS) != "mtime":
        return None
    floor = mtit[0]
    name = floor.getnext()
    if floor.tag != "span" or name is None or name.tag != "span" or len(name) != 1:
        return None
    if floor.get(CLASS) != "y" or name.get(CLASS) != "z":
        return None
    a = name[0]
    if a.tag != "a" or len(a):
        return None
    uid = number_after(a.get(HREF) or "", "uid=")
    if uid is None:
        return None
    label = floor.text or "" if not len(floor) else text_of(floor)
    return label, squash(a.text or ""), uid, _own_text(mtime)


# A post's floor, author, time and body elements, and whether it opens the thread.
_Parts = tuple[Node | None, Node | None, Node | None, Node | None, bool]


def _post_parts(post: Node, box: Node | None, message: Node | None, first: bool) -> _Parts:
    """A post's floor, author and time from the ``ul.authi`` before the body in the post's box (where
    both templates put them), given the box and body the page walk found; a post laid out otherwise
    is walked (:func:`_walk_parts`).

    The box's children before the body are found walking back from the body (one step on both
    templates, where the list comes right before it) and read in document order.
    """
    if box is not None and message is not None:
        floor = author = time = None
        child = message.getprevious()
        if child is not None and child.getprevious() is None:  # the usual: the list, then the body
            if child.tag == "ul" and child.get(CLASS) == "authi":
                floor, author, time = _author_line(child, None, None, None)
        else:
            lines = []
            while child is not None:
                if child.tag == "ul" and child.get(CLASS) == "authi":
                    lines.append(child)
                child = child.getprevious()
            for ul in reversed(lines):
                floor, author, time = _author_line(ul, floor, author, time)
        if time is not None and floor is not None and author is not None:
            return floor, author, time, message, first
    walked = _walk_parts(post)
    return walked.floor, walked.author, walked.time, walked.message, walked.first


def _walk_parts(post: Node) -> _PostParts:
    """One walk over a post's li and div elements: each part is the first match in document order.

    The walk stops once everything is found.
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
    size = len(el)
    if not size:
        return squash(el.text or "")
    parts = [el.text or ""]
    parts.extend([child.tail or "" for child in el])
    return squash("".join(parts))


def _author(box: Node | None) -> tuple[str, int | None]:
    if box is None:
        return "", None
    if len(box):
        a = box[0]
        if a.tag == "a":  # X3.5: span.z > a, the first link there is
            uid = number_after(a.get(HREF) or "", "uid=")
            if uid is not None:
                return name_in(a), uid
    for a in box.iter("a"):
        uid = uid_in(a.get("href") or "")
        if uid is not None:
            return name_in(a), uid
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
    whole: Callable[[], Node] | None = None,
) -> ThreadPage:
    """Read a touch thread page whose walk found ``layout``. ``whole``: the page parsed with its head,
    when ``root`` was parsed without it (the title falls back to the ``<title>``)."""
    posts_at = body.find(b'<div class="plc')
    header = read_header(body, posts_at if posts_at > 0 else None)
    params = query(url)
    author_filter = url_authorid(url, params)
    tid = url_tid(url, params) or header.tid
    if tid is None:
        match = search_after(_TID, b"tid=", body)
        tid = int(match.group(1)) if match else None
    problems: list[str] = []
    posts: list[Post] = []
    seen: set[int] = set()
    floor_exact = author_filter is None
    times: dict[str, TimeRange | None] = {}

    for el, ident, box, body_el, first in zip(
        layout.posts, layout.idents, layout.boxes, layout.messages, layout.firsts, strict=True
    ):
        number = ident[3:]
        if not number.isdigit():
            continue
        pid = int(number)
        if pid in seen:
            continue
        seen.add(pid)
        head = None
        if body_el is not None and box is not None:
            ul = body_el.getprevious()
            if ul is not None and ul.tag == "ul" and ul.getprevious() is None and ul.get(CLASS) == "authi":
                head = _usual_line(ul)
        floor = None
        uid: int | None
        shown: str | None
        if head is not None:  # the usual X3.5 line, read straight off
            label, author, uid, shown = head
            message = body_el
            if floor_exact:
                floor = parse_floor_label(label)
        else:
            floor_el, author_el, time_el, message, first = _post_parts(el, box, body_el, first)
            if floor_el is not None and floor_exact:
                floor = parse_floor_label(floor_el.text or "" if not len(floor_el) else text_of(floor_el))
            author, uid = _author(author_el)
            shown = _own_text(time_el) if time_el is not None else None
        time_range = None
        if shown is not None:
            if shown in times:  # posts of a page often show the same "N 分钟前": read each once
                time_range = times[shown]
            else:
                time_range = times[shown] = parse_display_time(shown, now=now, tz=tz)
        if time_range is None:
            problems.append(
                f"post {pid}: no time found" + ("" if now else " (relative time and no Date header)")
            )
            time_range = UNKNOWN_TIME
        text = read_body(message, tz, keep_html=keep_html)
        if message is None:
            problems.append(f"post {pid}: no body found")
        posts.append(
            new_post(
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
                text.state,
                first or (floor == 1 and floor_exact),
                "",
                floor_exact,
            )
        )

    title_el = layout.title
    title = ""
    if title_el is not None:
        title = _own_text(title_el) or squash(text_of(title_el))
    else:  # older touch templates: the <title> is "subject - forum - board - 手机版 - Powered by Discuz!"
        heads = _HEAD_TITLE(root if whole is None else whole())
        title = text_of(heads[0]).split(" - ")[0].strip() if heads else ""
    current, total = read_pager(layout.pager)
    page = current or (1 if layout.pager is None else url_page(url, params)) or 1
    fid = header.fid
    if fid is None:
        match = search_after(_FID, b"forumdisplay&", body)
        fid = int(match.group(1)) if match else None
    replies_el = layout.replies
    info = new_thread_info(
        tid or 0,
        fid,
        title,
        page,
        total or page,
        int_or_none(text_of(replies_el)) if replies_el is not None else None,
        header.formhash,
        header.viewer_uid,
        charset,
    )
    if not tid:
        problems.append("thread: no tid in the page or the URL")
    return new_thread_page(
        info,
        tuple(posts),
        Source.TOUCH,
        url,
        author_filter,
        tuple(problems),
    )
