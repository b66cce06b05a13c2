"""Which parser reads a page, and the thread and forum pages' records as JSON (the package's public
functions live here; :mod:`forumbot.parsers` names them, importing this module on first use)."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any, NoReturn
from zoneinfo import ZoneInfo

import lxml.etree

from forumbot.errors import BoardError, BoardSystemError, TruncatedPage, UnparseablePage
from forumbot.parsers.complete import html_complete, raise_if_cut_html
from forumbot.parsers.encoding import Node, PageTree, parse_html, parse_page_body
from forumbot.parsers.errorpages import classify_board_message, raise_for_showmessage, raise_unrecognised_html
from forumbot.parsers.forumlist import (
    find_pc_forum_table,
    find_touch_forum_rows,
    parse_pc_forum,
    parse_touch_forum,
)
from forumbot.parsers.forumrecords import ForumPage, Source
from forumbot.parsers.pageinfo import query
from forumbot.parsers.times import parse_http_date

if TYPE_CHECKING:
    from forumbot.parsers.records import Post, ThreadPage
    from forumbot.parsers.touch import TouchLayout

# The thread pages' readers (PC, touch, API) are imported by the functions that read with them: an idle
# poll reads one forum-list page, and imports only what reads it (issue 21).

__all__ = ["BOARD_TZ", "page_kind", "page_to_json", "parse_forum_page", "parse_thread_page", "post_to_json"]

BOARD_TZ = ZoneInfo("Asia/Shanghai")

_AJAX = re.compile(rb"^\s*<\?xml[^>]*\?>\s*<root>\s*<!\[CDATA\[(.*)\]\]>\s*</root>\s*$", re.DOTALL)
_AJAX_PID = re.compile(rb"<table id=\"pid(\d+)\"")
_POSTLIST = lxml.etree.XPath("id('postlist')")


def page_kind(url: str) -> Source:
    """The view a URL asks for: API (``api/mobile/``), touch (``mobile=2``/``mobile=yes``), else PC.

    Only a hint: a desktop User-Agent asking for ``mobile=2`` is redirected to the PC page, and the
    parsers look at the content to decide.
    """
    if "api/mobile/" in url.lower():
        return Source.API
    mobile = query(url).get("mobile", "").lower()
    if mobile in ("2", "yes", "touch", "3"):
        return Source.TOUCH
    return Source.PC


_FIRST_BYTE = re.compile(rb"\s*(\S)")


def _first_byte(body: bytes) -> bytes:
    """The first non-blank byte (b"" for a blank body), without copying the body."""
    match = _FIRST_BYTE.match(body)
    return match.group(1) if match else b""


_API_START = re.compile(rb'\{\s*"(?:Version|Charset|Variables|Message|error)"')


def _json_start(body: bytes, url: str) -> int | None:
    """Where the JSON starts: at the first byte for a JSON answer (after a UTF-8 BOM); for an API URL
    also after PHP warnings printed before it (boards with notices on); None for anything else."""
    start = 3 if body.startswith(b"\xef\xbb\xbf") else 0
    match = _FIRST_BYTE.match(body, start)
    if match and match.group(1) in (b"{", b"["):
        return match.start(1)
    if "api/mobile/" in url.lower():  # page_kind(url) is Source.API, without reading the query
        found = _API_START.search(body, 0, 8192)
        if found:
            return found.start()
    return None


def _guard(url: str, exc: Exception) -> UnparseablePage:
    return UnparseablePage(url, "", f"internal parser error: {type(exc).__name__}: {exc}")


def _empty(body: bytes, url: str, status: int) -> None:
    if not _first_byte(body):
        if status >= 500:
            raise BoardSystemError(url, "", f"empty answer, HTTP {status}")
        raise UnparseablePage(url, "", f"empty answer (HTTP {status})")


def _unwrap_ajax(body: bytes, url: str) -> bytes | None:
    """``inajax=1`` answers wrap HTML in ``<root><![CDATA[…]]></root>``: return the HTML, made into a
    post list when it holds a post (``viewpid=``), so the PC reader applies."""
    match = _AJAX.match(body)
    if not match:
        return None
    inner = match.group(1)
    pid = _AJAX_PID.search(inner)
    if pid:
        return (
            b'<html><body><div id="postlist"><div id="post_' + pid.group(1) + b'">' + inner + b"</div></div>"
        )
    return b"<html><body>" + inner + b"</body></html>"


def parse_thread_page(
    body: bytes,
    url: str,
    *,
    date_header: str | None = None,
    content_type: str | None = None,
    tz: ZoneInfo = BOARD_TZ,
    status: int = 200,
    keep_html: bool = True,
) -> ThreadPage:
    """Read one page of a thread in any view (PC HTML, touch HTML, mobile API v1/v2/v4 JSON).

    ``date_header``: the response's ``Date`` (relative times are resolved against it);
    ``content_type``: the response's ``Content-Type`` (its charset wins over the page's own);
    ``status``: the HTTP status (a 404/5xx page is named accordingly); ``keep_html``: keep each body's
    HTML on the Post (off saves ~10 % of the time).

    Raises a BoardError subclass when the page is a board message or unreadable (see module docstring).
    """
    try:
        return _parse_thread(body, url, date_header, content_type, tz, status, keep_html)
    except BoardError:
        raise
    except Exception as exc:
        raise _guard(url, exc) from exc


def _parse_thread(
    body: bytes,
    url: str,
    date_header: str | None,
    content_type: str | None,
    tz: ZoneInfo,
    status: int,
    keep_html: bool,
) -> ThreadPage:
    from forumbot.parsers.pc import parse_pc_thread
    from forumbot.parsers.touch import ends_at_pager, reading_end, scan_touch_page

    body = bytes(body)
    _empty(body, url, status)
    now = parse_http_date(date_header)
    start = _json_start(body, url)
    if start is not None:
        from forumbot.parsers.api import load_api_json, parse_api_thread

        page = parse_api_thread(load_api_json(body[start:], url), url, now=now, tz=tz, keep_html=keep_html)
        if _first_byte(body[:start]) not in (b"", b"\xef"):
            note = f"page: {start} bytes of PHP output before the JSON ignored"
            page = dataclasses.replace(page, problems=(*page.problems, note))
        return page
    ajax = _unwrap_ajax(body, url)
    if ajax is None and ("mobile=2" in url or "mobile=yes" in url) and _touch_posts_first(body):
        # The URL asks for the touch view and the bytes show a touch post before any PC post list:
        # read the page as a touch page first, without looking through all its bytes for the post
        # list or a board message (two scans of the whole page); a page that shows no touch post is
        # read the general way below.
        tree = parse_page_body(body, content_type, url=url, ids=False, end=reading_end)
        if not tree.tail_left_out or ends_at_pager(tree.root):
            layout = scan_touch_page(tree.root)
            if layout.posts:
                return _touch_page(tree, layout, body, body, url, now, tz, keep_html, content_type)
    html = ajax if ajax is not None else body
    # Only a page whose bytes name an id can hold the element: the PC reader looks its parts up by id,
    # a touch page needs libxml2's id table only to be a showmessage box. The head is left out (nothing
    # read from it but a fallback title, for which the page is parsed again whole).
    has_messagetext = b"messagetext" in html
    has_postlist = b"postlist" in html
    # A touch page is read up to its last pager (reading_end): the footer after it holds nothing read.
    touch = ajax is None and not has_postlist and not has_messagetext
    tree = parse_page_body(html, content_type, url=url, ids=not touch, end=reading_end if touch else None)
    root, charset = tree.root, tree.charset

    def whole() -> Node:
        return parse_html(html, content_type, url=url)[0] if tree.partial or not has_postlist else root

    if has_messagetext:
        raise_for_showmessage(root, url, status)
    found = _POSTLIST(root) if has_postlist else None
    if found:
        if ajax is None:
            raise_if_cut_html(body, url, "PC thread page")
        page = parse_pc_thread(
            root, found[0], body, url, charset=charset, now=now, tz=tz, keep_html=keep_html, whole=whole
        )
        if page.posts:
            return page
        raise UnparseablePage(url, "", "; ".join(page.problems) or "the post list is empty")
    if tree.tail_left_out and not ends_at_pager(root):  # the pager was no page's pager: read it all
        tree = parse_page_body(html, content_type, url=url, ids=False)
        root = tree.root
    layout = scan_touch_page(root)
    if layout.posts:
        return _touch_page(tree, layout, html, body, url, now, tz, keep_html, content_type)
    if ajax is not None:
        _raise_ajax_message(root, url, status)
    _raise_unrecognised(whole(), body, url, status, "thread")


def _touch_page(
    tree: PageTree,
    layout: TouchLayout,
    html: bytes,
    body: bytes,
    url: str,
    now: datetime | None,
    tz: ZoneInfo,
    keep_html: bool,
    content_type: str | None,
) -> ThreadPage:
    """A touch thread page whose walk found posts (``html``: the page, ``body``: the response)."""
    from forumbot.parsers.touch import parse_touch_thread

    raise_if_cut_html(body, url, "touch thread page")

    def whole() -> Node:
        return parse_html(html, content_type, url=url)[0] if tree.partial else tree.root

    return parse_touch_thread(
        tree.root, layout, body, url, charset=tree.charset, now=now, tz=tz, keep_html=keep_html, whole=whole
    )


def _touch_posts_first(body: bytes) -> bool:
    """Whether a touch post's ``<div class="plc`` shows before any ``postlist``: a PC page served for a
    touch URL (a desktop User-Agent) holds its posts in the post list, and is not parsed twice."""
    at = body.find(b'<div class="plc')
    return at > 0 and body.find(b"postlist", 0, at) < 0


def _raise_unrecognised(root: Node, body: bytes, url: str, status: int, what: str) -> NoReturn:
    """Name a page that is no thread (forum) page; one that is only unrecognised because it was cut
    off (no closing markup) is a TruncatedPage, not a guess at what it might have been."""
    try:
        raise_unrecognised_html(root, url, status, what)
    except UnparseablePage as exc:
        if type(exc) is UnparseablePage and not html_complete(body):
            raise TruncatedPage(exc.url, exc.board_message, f"{exc.detail}; no closing </html>") from exc
        raise
    raise UnparseablePage(url, "", "unreachable")  # pragma: no cover - raise_unrecognised_html always raises


def _raise_ajax_message(root: Node, url: str, status: int) -> None:
    text = " ".join(t.strip() for t in root.xpath("//body//text()[not(ancestor::script)]") if t.strip())
    cls = classify_board_message(text)
    if cls is not None:
        raise cls(url, text[:300], f"ajax answer, HTTP {status}")


def parse_forum_page(
    body: bytes,
    url: str,
    *,
    date_header: str | None = None,
    content_type: str | None = None,
    tz: ZoneInfo = BOARD_TZ,
    status: int = 200,
) -> ForumPage:
    """Read one page of a forum's thread list (PC, touch, or API v4 ``forum_threadlist``).

    Raises a BoardError subclass for board messages (forum missing, members only, …) and unreadable pages.
    """
    try:
        return _parse_forum(bytes(body), url, date_header, content_type, tz, status)
    except BoardError:
        raise
    except Exception as exc:
        raise _guard(url, exc) from exc


def _parse_forum(
    body: bytes, url: str, date_header: str | None, content_type: str | None, tz: ZoneInfo, status: int
) -> ForumPage:
    _empty(body, url, status)
    now = parse_http_date(date_header)
    start = _json_start(body, url)
    if start is not None:
        from forumbot.parsers.api import load_api_json, parse_api_forum

        return parse_api_forum(load_api_json(body[start:], url), url)
    root, _charset = parse_html(body, content_type, url=url)
    raise_for_showmessage(root, url, status)
    table = find_pc_forum_table(root)
    if table is not None:
        return parse_pc_forum(root, table, body, url, now=now, tz=tz)
    rows = find_touch_forum_rows(root)
    if rows or root.xpath("//body[contains(@class,'pg_forumdisplay')]//div[contains(@class,'threadlist')]"):
        return parse_touch_forum(root, rows, body, url)
    _raise_unrecognised(root, body, url, status, "forum")


def _iso(value: datetime | None, tz: ZoneInfo) -> str | None:
    return value.astimezone(tz).isoformat() if value is not None else None


def post_to_json(post: Post, tz: ZoneInfo = BOARD_TZ) -> dict[str, Any]:
    """One post in the exported JSON shape (times in the board's zone, ISO 8601 with offset)."""
    return {
        "pid": post.pid,
        "floor": post.floor,
        "author": post.author,
        "uid": post.uid,
        "posted_at": _iso(post.posted_at, tz),
        "text": post.text,
        "quoted_pids": list(post.quoted_pids),
        "edit": {"by": post.edit.by, "at": _iso(post.edit.at, tz)} if post.edit else None,
        "state": str(post.state),
    }


def page_to_json(page: ThreadPage, tz: ZoneInfo = BOARD_TZ) -> dict[str, Any]:
    """The exported JSON of a page (``forumbot parse FILE --json``, saved-page expectations)."""
    info = page.thread
    return {
        "thread": {
            "tid": info.tid,
            "fid": info.fid,
            "title": info.title,
            "page": info.page,
            "pages": info.pages,
        },
        "posts": [post_to_json(post, tz) for post in page.posts],
    }
