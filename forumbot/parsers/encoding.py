"""Finding a page's charset and turning its bytes into an lxml tree.

Discuz! boards are UTF-8 or GBK (older official packages; X3.5 can be transcoded). The charset comes from
the Content-Type header, then ``<meta charset>``, then the header script's ``charset = '...'``, then an
XML declaration; UTF-8 when none says (the mobile API's ``Charset`` names the board's, not the JSON's).
GBK and GB2312 are decoded as gb18030, their superset, so a character outside GBK never breaks the page.

Non-UTF-8 pages are decoded in Python with ``errors="replace"`` rather than inside libxml2: libxml2 stops
reading a document at the first byte its iconv cannot convert, silently dropping every later post. UTF-8
bytes go to lxml untouched (libxml2 replaces invalid sequences itself and reads on); anything else is
decoded, then re-encoded as UTF-8, so lxml always receives bytes with a known encoding, which also wins
over the page's ``<meta charset>`` (and an XML declaration, which lxml refuses in a ``str``).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from typing import NamedTuple, TypeAlias

import lxml.etree

from forumbot.errors import UnparseablePage

__all__ = [
    "CLASS",
    "HREF",
    "ID",
    "STYLE",
    "Node",
    "PageTree",
    "body_start",
    "charset_from_content_type",
    "decode_page",
    "detect_charset",
    "html_fragment",
    "normalise_charset",
    "parse_html",
    "parse_page_body",
    "sniff_charset",
    "text_of",
]

# Plain lxml.etree elements: lxml.html's HtmlElement costs a Python-level class lookup for every element
# the parsers touch (≈ 10 % of a page's parse time); the parsers need none of its extras.
Node: TypeAlias = lxml.etree._Element

_STRING = lxml.etree.XPath("string()", smart_strings=False)

# Attribute names as bytes for the hot loops: ``el.get(b"class")`` skips lxml's encoding of a str name
# on every call (a sixth of the call), and answers the same str.
CLASS = b"class"
ID = b"id"
HREF = b"href"
STYLE = b"style"


def text_of(el: Node) -> str:
    """All text inside ``el`` (descendants included, comments excluded), like HtmlElement.text_content().

    An element without children (most that are read: labels, names, times) is its ``.text``: the XPath
    costs ten times as much.
    """
    size = len(el)
    if not size:
        return el.text or ""
    if size <= 3:  # a label around a few childless elements (a > em + sup): no XPath either
        parts = [el.text or ""]
        for child in el:
            if len(child):
                break
            if isinstance(child.tag, str):  # a comment's text is no text
                parts.append(child.text or "")
            parts.append(child.tail or "")
        else:
            return "".join(parts)
    text: str = _STRING(el)
    return text


# Names boards send, mapped to the Python codec we decode with.
_ALIASES = {
    "gbk": "gb18030",
    "gb2312": "gb18030",
    "gb_2312": "gb18030",
    "gb_2312-80": "gb18030",
    "x-gbk": "gb18030",
    "cp936": "gb18030",
    "windows-936": "gb18030",
    "euc-cn": "gb18030",
    "gb18030": "gb18030",
    "utf8": "utf-8",
    "utf-8": "utf-8",
    "big5": "big5hkscs",
    "big-5": "big5hkscs",
}

_CT_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)
_META_CHARSET = re.compile(rb"<meta[^>]{0,200}?charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)
_JS_CHARSET = re.compile(rb"\bcharset\s*=\s*'([\w.:-]+)'")
_XML_DECL = re.compile(rb"^\s*<\?xml[^>]{0,100}?encoding\s*=\s*[\"']([\w.:-]+)[\"']", re.IGNORECASE)

_SNIFF_BYTES = 4096

_UTF8_PARSER = lxml.etree.HTMLParser(encoding="utf-8")
_NO_IDS_PARSER = lxml.etree.HTMLParser(encoding="utf-8", collect_ids=False)
_HEAD_END = re.compile(rb"</head>\s*(?=<body[\s>])", re.IGNORECASE)


def normalise_charset(name: str | None) -> str | None:
    """The Python codec for a charset label, or None when Python does not know the label."""
    if not name:
        return None
    label = name.strip().strip("\"'").lower()
    if label in _ALIASES:
        return _ALIASES[label]
    try:
        return codecs.lookup(label).name
    except (LookupError, ValueError):  # unknown, or not even a name ("\x00")
        return None


def charset_from_content_type(content_type: str | None) -> str | None:
    """``text/html; charset=gbk`` → ``gb18030``; None when the header names no (known) charset."""
    if not content_type:
        return None
    match = _CT_CHARSET.search(content_type)
    return normalise_charset(match.group(1)) if match else None


def sniff_charset(body: bytes) -> str | None:
    """The charset the page declares about itself: ``<meta>``, then the header JS, then an XML declaration."""
    head = body[:_SNIFF_BYTES]
    for pattern in (_META_CHARSET, _JS_CHARSET, _XML_DECL):
        match = pattern.search(head)
        if match:
            found = normalise_charset(match.group(1).decode("ascii", "replace"))
            if found:
                return found
    return None


def detect_charset(body: bytes, content_type: str | None = None) -> str:
    """Header first (it is what the browser obeys), then the page's own declarations, then UTF-8."""
    return charset_from_content_type(content_type) or sniff_charset(body) or "utf-8"


def decode_page(body: bytes, content_type: str | None = None) -> str:
    """The page as text. Never raises: undecodable bytes become U+FFFD."""
    charset = detect_charset(body, content_type)
    if body.startswith(codecs.BOM_UTF8):
        body, charset = body[3:], "utf-8"
    return body.decode(charset, errors="replace")


def parse_html(body: bytes, content_type: str | None = None, *, url: str = "") -> tuple[Node, str]:
    """Parse a page into an lxml document; returns (root, charset the page was decoded with).

    Raises UnparseablePage for an empty document (lxml's ParserError).
    """
    tree = parse_page_body(body, content_type, url=url, whole=True)
    return tree.root, tree.charset


def body_start(data: bytes) -> int:
    """Where the page's ``<body>`` start tag begins when ``</head>``, blanks and ``<body`` follow each
    other; 0 otherwise. (Such a ``</head>`` inside a script of the head would only make the rest of
    the head part of the body: no post is read differently.)"""
    at = data.find(b"</head>")
    if at < 0:
        return 0
    found = _HEAD_END.match(data, at)
    return found.end() if found is not None else 0


class PageTree(NamedTuple):
    """A page parsed for reading (:func:`parse_page_body`)."""

    root: Node
    charset: str  # the charset the page was decoded with
    head_left_out: bool  # the ``<head>`` was not parsed
    tail_left_out: bool  # the bytes after ``end(data)`` were not parsed

    @property
    def partial(self) -> bool:
        """Whether any part of the page was left out (the whole page must be parsed again to read it)."""
        return self.head_left_out or self.tail_left_out


def parse_page_body(
    body: bytes,
    content_type: str | None = None,
    *,
    url: str = "",
    whole: bool = False,
    ids: bool = True,
    end: Callable[[bytes], int] | None = None,
) -> PageTree:
    """Parse a page for reading its content.

    Why: a reader of posts needs nothing in the ``<head>`` (a sixth of a touch page's bytes), and
    libxml2's table of ids only serves ``id()`` lookups; leaving both out saves a seventh of the parse.
    ``whole``: parse the head too; ``ids``: build the id table (False only when no ``id()`` lookup
    follows). The tree below ``<body>`` is the same either way. ``end``: where the part the caller
    reads ends in the (UTF-8) bytes; libxml2 closes what is open there, so the tree before it is the
    same as the whole page's, and the caller checks that the end fell where it meant (e.g.
    :func:`forumbot.parsers.touch.ends_at_pager`). Raises UnparseablePage like :func:`parse_html`.
    """
    charset = detect_charset(body, content_type)
    if body.startswith(codecs.BOM_UTF8):
        body, charset = body[3:], "utf-8"
    # libxml2 reads UTF-8 itself and replaces invalid sequences with U+FFFD, so UTF-8 bytes go in as
    # they are; any other charset is decoded here (libxml2's iconv path truncates at the first bad byte).
    data = body if charset == "utf-8" else body.decode(charset, errors="replace").encode("utf-8")
    size = len(data)
    start = 0 if whole else body_start(data)
    stop = size if whole or end is None else end(data)
    if stop <= start:  # an end inside the head: not the part the caller meant
        stop = size
    if start or stop < size:
        data = data[start:stop]
    try:
        root = lxml.etree.fromstring(data, _UTF8_PARSER if ids else _NO_IDS_PARSER)
    except (lxml.etree.LxmlError, ValueError) as exc:
        raise UnparseablePage(url, "", f"not an HTML page: {exc}") from exc
    if root is None:
        raise UnparseablePage(url, "", "not an HTML page: the document is empty")
    return PageTree(root, charset, start > 0, stop < size)


def html_fragment(markup: str) -> Node:
    """Parse an HTML fragment into a wrapper ``div`` (the mobile API's ``message``)."""
    root = lxml.etree.fromstring(
        ("<html><body><div>" + markup + "</div></body></html>").encode("utf-8"), _UTF8_PARSER
    )
    wrapper: Node = root[0][0]
    return wrapper
