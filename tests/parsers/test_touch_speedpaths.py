"""The touch parser's cheaper paths give what the general ones give.

- ``_serialised_text`` (tags and entities read over the whole serialised body at once) against
  ``normalise_lines(_serialised_lines(...))`` (line by line), on generated plain inline markup;
- the author line read sibling to sibling against the general walk of the post (``_walk_parts``) and
  against the saved pages' expectations, on every touch page saved here and on varied author lines;
- ``read_body`` stopping at a body's first child that is no ``<br>`` against the reader's own walk.
"""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import lxml.etree
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.parsers.encoding import parse_page_body
from forumbot.parsers.htmltext import (
    _SERIALISED_INLINE,
    _Reader,
    _serialised_lines,
    _serialised_text,
    inner_html,
    normalise_lines,
    normalise_text,
    read_body,
)
from forumbot.parsers.touch import _post_parts, _PostParts, _walk_parts, scan_touch_page

TZ = ZoneInfo("Asia/Shanghai")
PAGES = Path(__file__).parent / "pages"
TOUCH_PAGES = sorted(PAGES.glob("touch_*.html"))

_TEXT = st.lists(
    st.sampled_from([*"ab 投票&>;#\t\n\xa0\u3000", "&amp;", "&lt;", "&gt;", "&#25105;"]), max_size=12
).map("".join)
_TAG = st.sampled_from(
    ["<br>", '<br class="x">', "<b>", "</b>", '<font color="red">', "</font>", '<img src="a.gif">', "<i>"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_TEXT, _TAG), max_size=12))
def test_serialised_text_reads_as_line_by_line(parts: list[str]) -> None:
    markup = "".join(parts)  # serialised markup: a bare "<" only ever opens a tag
    assert _SERIALISED_INLINE.fullmatch(markup)
    assert _serialised_text(markup) == normalise_lines(_serialised_lines(markup))


def test_serialised_text_with_marker_characters_falls_back() -> None:
    for markup in ("a\x00b<br>c", "a\x01<b>b</b>", "\x00\x01"):
        assert _serialised_text(markup) == normalise_lines(_serialised_lines(markup))


def _element(markup: str) -> lxml.etree._Element:
    root = lxml.etree.fromstring(f"<html><body><div>{markup}</div></body></html>", lxml.etree.HTMLParser())
    div: lxml.etree._Element = root[0][0]
    return div


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(_TEXT, _TAG, st.sampled_from(["<a href='x?uid=3'>@n</a>", "<div>q</div>"])), max_size=10
    )
)
def test_read_body_matches_the_reader(parts: list[str]) -> None:
    """Whatever path read_body takes, its text is the reader's (the walk every path stands in for)."""
    el = _element("".join(parts))
    reader = _Reader(TZ)
    reader.walk(el)
    walked = normalise_text("".join(reader.out))
    for keep_html in (True, False):
        found = read_body(el, TZ, keep_html=keep_html)
        if found.edit is None:
            assert found.text == walked
        if keep_html:
            assert found.html == inner_html(el) or not len(el)
    markup = inner_html(el)
    if _SERIALISED_INLINE.fullmatch(markup):
        assert _serialised_text(markup) == walked


def _reference_author_line(ul: lxml.etree._Element, parts: _PostParts) -> None:
    """The author line as it was read before the sibling walk: children by index, in order."""
    for i in range(len(ul)):
        li = ul[i]
        if li.tag != "li":
            continue
        cls = li.get("class")
        if cls == "mtit":
            for j in range(len(li)):
                span = li[j]
                if span.tag == "span":
                    sc = span.get("class")
                    if sc == "y":
                        if parts.floor is None:
                            parts.floor = span
                    elif sc == "z" and parts.author is None:
                        parts.author = span
        elif cls == "mtime" or cls == "grey rela":
            if parts.time is None:
                parts.time = li
        elif cls == "grey":
            if parts.floor is None:
                parts.floor = next(li.iterchildren("em"), None)
            if parts.author is None:
                parts.author = next(li.iterchildren("b"), None)


def _reference_parts(post: lxml.etree._Element, found: _PostParts) -> _PostParts:
    """``_post_parts`` as it was: the box's children by index up to the body."""
    parts = _PostParts(found.ident, found.box, None, None, None, found.message, found.first)
    box, message = parts.box, parts.message
    if box is not None and message is not None:
        for i in range(len(box)):
            child = box[i]
            if child is message:
                break
            if child.tag == "ul" and child.get("class") == "authi":
                _reference_author_line(child, parts)
        if parts.time is not None and parts.floor is not None and parts.author is not None:
            return parts
    walked = _walk_parts(post)
    walked.ident = parts.ident
    return walked


def _parts_by_walk(page: bytes) -> int:
    """Both readings of every post of a page agree; the number of posts."""
    root = parse_page_body(page)[0]
    layout = scan_touch_page(root)
    for post, found in zip(layout.posts, layout.parts, strict=True):
        expected = _reference_parts(post, found)
        fast = _post_parts(
            post, _PostParts(found.ident, found.box, None, None, None, found.message, found.first)
        )
        assert (fast.ident, fast.floor, fast.author, fast.time, fast.message, fast.first) == (
            expected.ident,
            expected.floor,
            expected.author,
            expected.time,
            expected.message,
            expected.first,
        )
    return len(layout.posts)


def test_saved_touch_pages_read_the_same_by_both_walks() -> None:
    assert TOUCH_PAGES
    assert sum(_parts_by_walk(page.read_bytes()) for page in TOUCH_PAGES) >= 10


_LI = st.sampled_from(
    [
        '<li class="mtit"><span class="y">5#</span><span class="z"><a href="u?uid=2">n</a></span></li>',
        '<li class="mtit"><span class="z"><a href="u?uid=3">m</a></span><span class="y">6#</span></li>',
        '<li class="mtime">1 分钟前</li>',
        '<li class="mtime"><span class="y"><em>5</em></span>刚刚</li>',
        '<li class="grey"><em>7#</em><b><a href="u?uid=4">g</a></b></li>',
        '<li class="grey rela">2026-6-3 12:34</li>',
        "<!-- c -->",
        "<li>x</li>",
        '<li class="mtit"></li>',
    ]
)
_BEFORE = st.sampled_from(
    ["", '<ul class="authi">{}</ul>', "<p>p</p>", "<!-- c -->", '<ul class="x">{}</ul>']
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_BEFORE, st.lists(_LI, max_size=4)), max_size=3))
def test_author_lines_read_the_same_by_both_walks(blocks: list[tuple[str, list[str]]]) -> None:
    box = "".join(before.format("".join(items)) for before, items in blocks)
    page = (
        '<html><body><div class="plc cl" id="pid7"><div class="display pi">'
        f'{box}<div class="message">m</div></div></div></body></html>'
    ).encode()
    assert _parts_by_walk(page) == 1
