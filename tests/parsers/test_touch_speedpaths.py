"""The touch parser's cheaper paths give what the general ones give.

- ``_serialised_text`` (tags and entities read over the whole serialised body at once) against
  ``normalise_lines(_serialised_lines(...))`` (line by line), on generated plain inline markup;
- the author line read sibling to sibling against the index walk it replaced, and the usual X3.5
  line read straight off (``_usual_line``) against both, on every touch page saved here and on
  generated author lines;
- every path of ``read_body`` against the reader's own walk;
- the page walk (lists side by side) against the walk as it was (one object a post).
"""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import lxml.etree
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forumbot.parsers.encoding import parse_page_body, text_of
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
from forumbot.parsers.touch import (
    _author,
    _own_text,
    _post_parts,
    _PostParts,
    _usual_line,
    _walk_parts,
    scan_touch_page,
)

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


def _reference_parts(
    post: lxml.etree._Element,
    box: lxml.etree._Element | None,
    message: lxml.etree._Element | None,
    first: bool,
) -> tuple[object, ...]:
    """``_post_parts`` as it was: the box's children by index up to the body."""
    parts = _PostParts(message=message, first=first)
    if box is not None and message is not None:
        for i in range(len(box)):
            child = box[i]
            if child is message:
                break
            if child.tag == "ul" and child.get("class") == "authi":
                _reference_author_line(child, parts)
        if parts.time is not None and parts.floor is not None and parts.author is not None:
            return parts.floor, parts.author, parts.time, parts.message, parts.first
    walked = _walk_parts(post)
    return walked.floor, walked.author, walked.time, walked.message, walked.first


def _general_line(parts: tuple[object, ...]) -> tuple[object, ...]:
    """Floor label, author, uid and shown time as the general reading gets them from its elements."""
    floor, author, time = parts[0], parts[1], parts[2]
    assert isinstance(floor, lxml.etree._Element) and isinstance(time, lxml.etree._Element)
    label = floor.text or "" if not len(floor) else text_of(floor)
    return (label, *_author(author), _own_text(time))  # type: ignore[arg-type]


def _parts_by_walk(page: bytes) -> int:
    """Both readings of every post of a page agree, and the usual line's short reading agrees with
    them where it applies; the number of posts."""
    root = parse_page_body(page)[0]
    layout = scan_touch_page(root)
    for post, box, message, first in zip(
        layout.posts, layout.boxes, layout.messages, layout.firsts, strict=True
    ):
        parts = _post_parts(post, box, message, first)
        assert parts == _reference_parts(post, box, message, first)
        for ul in post.iter("ul"):
            usual = _usual_line(ul) if ul.get("class") == "authi" else None
            if usual is not None and ul.getnext() is parts[3] and ul.getprevious() is None:
                assert usual == _general_line(parts)
    return len(layout.posts)


def test_the_usual_line_is_read_straight_off() -> None:
    page = (
        '<html><body><div class="plc cl" id="pid7"><div class="display pi"><ul class="authi">'
        '<li class="mtit"><span class="y">\n5<sup>#</sup></span><span class="z">\n'
        '<a href="home.php?mod=space&amp;uid=12&amp;mobile=2">麻花</a>\n</span></li>'
        '<li class="mtime"><span class="y"><em>4</em></span>2&nbsp;分钟前</li></ul>'
        '<div class="message">m</div></div></div></body></html>'
    ).encode()
    ul = next(parse_page_body(page)[0].iter("ul"))
    assert _usual_line(ul) == ("\n5#", "麻花", 12, "2 分钟前")
    assert _parts_by_walk(page) == 1


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
        '<li class="mtit"><span class="y">\n11<sup>#</sup></span><span class="z">\n'
        '<a href="h?mod=space&amp;uid=9">饺 子</a>\n</span></li>',
        '<li class="mtit"><span class="y">楼主</span><span class="z"><a href="h?touid=9">t</a></span></li>',
        '<li class="mtit"><span class="y">沙发</span><span class="z"><a href="h?uid=8"><b>b</b></a>'
        "</span></li>",
        '<li class="mtime">\n2&nbsp;分钟前</li>',
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


def _reference_scan(root: lxml.etree._Element) -> tuple[object, ...]:
    """The page walk as it was before the layout kept its lists side by side: one object a post,
    every class through the whole comparison chain."""
    posts: list[list[object]] = []
    title = pager = replies = None
    post = None
    current: list[object] = ["", None, None, False]  # ident, box, message, first
    for div in root.iter("div"):
        cls = div.get("class")
        if not cls:
            continue
        if cls == "message":
            if current[2] is None and current[1] is not None and div.getparent() is current[1]:
                current[2] = div
        elif cls in ("display pi", "display pi pione", "pi") or (
            "plc" not in cls.split() and "pi" in cls.split() and cls not in _IGNORED_CLASSES
        ):
            if current[1] is None and post is not None and div.getparent() is post:
                current[1] = div
                current[3] = "pione" in cls
        elif cls == "plc cl" or ("plc" in cls.split() and cls not in _IGNORED_CLASSES):
            ident = div.get("id") or ""
            if ident.startswith("pid"):
                post = div
                current = [ident, None, None, False]
                posts.append(current)
        elif cls == "pg":
            pager = pager if pager is not None else div
        elif cls == "view_tit":
            title = title if title is not None else div
        elif cls == "txtlist cl" and replies is None:
            for mtit in div.iterchildren("div"):
                if mtit.get("class") == "mtit cl":
                    em = next(mtit.iterchildren("em"), None)
                    if em is not None:
                        replies = em
                        break
    return [tuple(p) for p in posts], title, pager, replies


_IGNORED_CLASSES = {
    "avatar", "threadlist_foot cl", "discuz_x cl", "mtit cl", "header cl", "mz", "my", "viewthread", "quote",
}  # fmt: skip


def _layout(root: lxml.etree._Element) -> tuple[object, ...]:
    found = scan_touch_page(root)
    posts = list(zip(found.idents, found.boxes, found.messages, found.firsts, strict=True))
    return posts, found.title, found.pager, found.replies


def test_saved_touch_pages_scan_as_the_reference_walk() -> None:
    for page in TOUCH_PAGES:
        root = parse_page_body(page.read_bytes())[0]
        assert _layout(root) == _reference_scan(root)


_DIV_CLASS = st.sampled_from(
    [
        "plc cl", "plc", "cl plc", "display pi", "display pi pione", "pi", "pi x", "message", "message x",
        "pg", "view_tit", "txtlist cl", "mtit cl", "avatar", "threadlist_foot cl", "quote", "", "x", "plc pi",
    ]
)  # fmt: skip
_DIV_ID = st.sampled_from(["", "pid1", "pid2", "pidx", "post_3"])
# Nested divs, bounded by their number of leaves: an unbounded st.deferred recursion had Hypothesis
# throw away about 7 of every 8 trees it began ("max depth exceeded"), most of this test's two minutes.
_DIV = st.recursive(
    st.tuples(_DIV_CLASS, _DIV_ID, st.just([])),
    lambda children: st.tuples(_DIV_CLASS, _DIV_ID, st.lists(children, max_size=3)),
    max_leaves=20,
)


def _markup(div: tuple[str, str, list[object]]) -> str:
    cls, ident, children = div
    attrs = (f' class="{cls}"' if cls else "") + (f' id="{ident}"' if ident else "")
    inner = "".join(_markup(child) for child in children)  # type: ignore[arg-type]
    return f"<div{attrs}>{inner}<em>3</em></div>"


_BOX_TWO_BODIES = ("display pi", "", [("message", "", []), ("message", "", [])])


@settings(max_examples=500, deadline=None)
@given(st.lists(_DIV, max_size=4))
@example([("plc cl", "pid1", [("avatar", "", []), _BOX_TWO_BODIES, ("display pi pione", "", [])])])
@example([("plc", "pid1", [("plc cl", "pid2", [_BOX_TWO_BODIES]), _BOX_TWO_BODIES]), ("pg", "", [])])
def test_the_scan_finds_what_the_reference_walk_finds(divs: list[tuple[str, str, list[object]]]) -> None:
    page = ("<html><body>" + "".join(_markup(d) for d in divs) + "</body></html>").encode()
    root = parse_page_body(page)[0]
    assert _layout(root) == _reference_scan(root)
