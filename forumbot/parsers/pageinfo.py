"""What a page says about itself (ids, page counts, the viewer) rather than about its posts.

Shared by the PC, touch and forum-list parsers. URL helpers accept both ``forum.php?mod=viewthread&tid=T``
and the rewritten ``thread-T-P-1.html`` / ``forum-F-P.html`` forms. The header regexes run over the raw
bytes: every Discuz! charset keeps ASCII as ASCII, and a regex with a literal prefix is far cheaper than
an XPath scan of the whole document.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from forumbot.parsers.encoding import Node, text_of

__all__ = [
    "HeaderInfo",
    "int_or_none",
    "pages_from_count",
    "query",
    "read_header",
    "read_pager",
    "search_after",
    "url_authorid",
    "url_fid",
    "url_page",
    "url_tid",
]

_THREAD_REWRITE = re.compile(r"thread-(\d+)-(\d+)-\d+\.html")
_FORUM_REWRITE = re.compile(r"forum-(\d+)-(\d+)\.html")
_ARCHIVER = re.compile(r"[?&]tid-(\d+)\.html")
_FID_TID_JS = re.compile(rb"var fid = parseInt\('(\d+)'\), tid = parseInt\('(\d+)'\)")
_DISCUZ_UID = re.compile(rb"discuz_uid\s*=\s*'(\d+)'")
_FORMHASH = re.compile(rb"name=\"formhash\"[^>]{0,40}?value=[\"']([0-9A-Za-z]+)[\"']")
_FORMHASH_JS = re.compile(rb"formhash\s*[=:]\s*[\"']([0-9A-Za-z]{6,})[\"']")
_DIGITS = re.compile(r"\d+")
_TOTAL = re.compile(r"(\d+)")


def int_or_none(value: object) -> int | None:
    """``"12"`` → 12; anything that is not a whole number (None, "", "abc", []) → None."""
    kind = type(value)
    if kind is str:  # the common case (every API scalar is a string): no isinstance chain
        if value.isdigit():  # type: ignore[attr-defined]
            return int(value)  # type: ignore[call-overload, no-any-return]
    elif kind is int:
        return value  # type: ignore[return-value]
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        value = value.strip()
        if value.isdigit():
            return int(value)
        if value.startswith("-") and value[1:].isdigit():
            return int(value)
    return None


_PLAIN_QUERY = re.compile(r"[^\t\r\n\[\]%+;]*")


def query(url: str) -> dict[str, str]:
    """The URL's query parameters (last value wins), keys as given.

    A URL with nothing to unescape (the board's own links) is split by hand: ``parse_qsl`` costs as much
    as reading a post, and every page asks for its tid, page and authorid.
    """
    if _PLAIN_QUERY.fullmatch(url):
        out: dict[str, str] = {}
        for field in url.partition("?")[2].partition("#")[0].split("&"):
            if field:
                name, _, value = field.partition("=")
                out[name] = value
        return out
    try:
        return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
    except ValueError:
        return {}


def url_tid(url: str, params: Mapping[str, str] | None = None) -> int | None:
    """The thread id a URL names; ``params``: its :func:`query` when the caller has it already."""
    if params is None:
        params = query(url)
    for key in ("tid", "ptid"):
        found = int_or_none(params.get(key))
        if found is not None:
            return found
    match = _THREAD_REWRITE.search(url) or _ARCHIVER.search(url)
    return int(match.group(1)) if match else None


def url_page(url: str, params: Mapping[str, str] | None = None) -> int | None:
    found = int_or_none((query(url) if params is None else params).get("page"))
    if found is not None:
        return found
    match = _THREAD_REWRITE.search(url)
    if match:
        return int(match.group(2))
    match = _FORUM_REWRITE.search(url)
    return int(match.group(2)) if match else None


def url_fid(url: str) -> int | None:
    found = int_or_none(query(url).get("fid"))
    if found is not None:
        return found
    match = _FORUM_REWRITE.search(url)
    return int(match.group(1)) if match else None


def url_authorid(url: str, params: Mapping[str, str] | None = None) -> int | None:
    found = int_or_none((query(url) if params is None else params).get("authorid"))
    return found if found else None


def pages_from_count(items: int | None, per_page: int | None) -> int | None:
    """Pages needed for ``items`` at ``per_page`` a page (at least 1); None when either is unknown."""
    if items is None or not per_page or per_page <= 0:
        return None
    return max(1, math.ceil(items / per_page))


def read_pager(pg: Node | None) -> tuple[int | None, int | None]:
    """(current page, total pages) from a ``div.pg``; (None, None) without one.

    Total: ``<span title="共 N 页">``, else the ``a.last`` "... N" link, else the highest number shown.
    Current: the ``<strong>``.
    """
    if pg is None:
        return None, None
    current = total = None
    links = []
    for el in pg.iter():  # one walk instead of three filtered ones (a filter costs as much as the walk)
        tag = el.tag
        if tag == "a":
            links.append(el)
        elif tag == "strong":
            if current is None:
                current = int_or_none(text_of(el))
        elif tag == "span" and total is None:
            title = el.get("title") or ""
            if "页" in title or "頁" in title or "page" in title.lower():
                match = _TOTAL.search(title)
                if match:
                    total = int(match.group(1))
    if total is None:
        numbers = [current or 0]
        for a in links:
            digits = _DIGITS.findall(text_of(a))
            if digits and not (a.get("class") or "").startswith(("nxt", "prev")):
                numbers.append(int(digits[-1]))
        total = max(numbers) or None
    if current is not None and total is not None:
        total = max(total, current)
    return current, total


@dataclass(frozen=True, slots=True)
class HeaderInfo:
    """fid/tid from the viewthread JS, the viewer's uid (0: guest) and the formhash, from the raw bytes."""

    fid: int | None
    tid: int | None
    viewer_uid: int | None
    formhash: str | None


def search_after(
    pattern: re.Pattern[bytes], prefix: bytes, data: bytes, start: int = 0, end: int | None = None
) -> re.Match[bytes] | None:
    """``pattern.search(data, start)`` for a pattern that begins with the literal ``prefix``, starting
    before ``end`` when given.

    Why: the regex engine looks for the prefix a byte at a time, while ``bytes.find`` skips through the
    page; over a whole page that is a tenth of the instructions. Same answer: the first place where
    the whole pattern matches.
    """
    at = data.find(prefix, start, end)
    while at >= 0:
        match = pattern.match(data, at)
        if match is not None:
            return match
        at = data.find(prefix, at + 1, end)
    return None


def _formhash(body: bytes) -> str | None:
    """The form's ``name="formhash" value=`` first, else a script's ``formhash = '…'``: both start at a
    "formhash", so one pass over the page finds the candidates of both."""
    places = []
    at = body.find(b"formhash")
    while at >= 0:
        places.append(at)
        if body.startswith(b'name="', at - 6) and (match := _FORMHASH.match(body, at - 6)):
            return match.group(1).decode("ascii")
        at = body.find(b"formhash", at + 8)
    for at in places:
        if match := _FORMHASH_JS.match(body, at):
            return match.group(1).decode("ascii")
    return None


def read_header(body: bytes, js_before: int | None = None) -> HeaderInfo:
    """The page's header facts from its bytes. ``js_before``: where the viewthread script
    (``var fid = parseInt(…)``) can no longer start (the PC template puts it before the post list; a
    touch page, which carries none, is not searched to its end for it)."""
    fid = tid = uid = None
    match = search_after(_FID_TID_JS, b"var fid = parseInt(", body, 0, js_before)
    if match:
        fid, tid = int(match.group(1)), int(match.group(2))
    match = search_after(_DISCUZ_UID, b"discuz_uid", body)
    if match:
        uid = int(match.group(1))
    formhash = _formhash(body)
    return HeaderInfo(fid, tid, uid, formhash)
