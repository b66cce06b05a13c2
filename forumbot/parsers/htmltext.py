"""From a post's body HTML to the text a judge reads votes from.

The same cleaning serves the PC, touch and API views, because all three render the same ``discuzcode``:

- quote blocks (``div.quote > blockquote``, the v4 API's ``div.reply_wrap``) are cut out of the text and
  kept as :class:`QuoteRef` (the quoted pid from the ``findpost`` link): quoted text belongs to the quoted
  post, and the quoted pid is how a change of vote points at the original vote;
- the edit marker ``<i class="pstatus"> 本帖最后由 X 于 T 编辑 </i>`` becomes an :class:`EditMarker`;
- anti-scraping noise (``<font class="jammer">``, ``<span style="display:none">``), scripts, smileys'
  images and attachment tips are dropped;
- placeholders (``div.locked``, touch ``div.quote`` without a blockquote, the API's bare notices) set the
  :class:`PostState` instead of becoming text;
- ``<br>`` and block elements become line breaks, the source's own whitespace collapses as a browser
  would, each line is stripped, runs of blank lines shrink to one;
- numeric entities that a GBK board double-escaped (``&amp;#25105;`` shows as ``&#25105;``) are
  unescaped once more.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import lxml.etree

from forumbot.parsers.encoding import CLASS, STYLE, Node, html_fragment, text_of
from forumbot.parsers.records import EditMarker, PostState, QuoteRef
from forumbot.parsers.times import parse_absolute

__all__ = [
    "BodyText",
    "classify_notice",
    "inner_html",
    "normalise_text",
    "number_after",
    "read_body",
    "read_fragment",
    "split_edit_marker",
    "squash",
    "uid_in",
    "unescape_numeric",
]

_NL = "\x00"  # a hard line break while assembling (<br>); the source's own newlines are just whitespace
_BLOCK = "\x01"  # a block boundary: a line break unless the line is already empty (as a browser does)
_SOFT = re.compile("\x01[ ]*(?:\x01[ ]*)*")
_SOFT_AFTER_HARD = re.compile("\x00 ?\x01")
_WS = re.compile(r"[ \t\r\n\f\v\xa0]+")
_BLANKS = re.compile(r"\n{3,}")
_NUMERIC = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,6})|(\d{1,7}));")
_SPACES = re.compile(r"\s+")  # any Unicode space (\xa0 and \u3000 included)
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_EDIT = re.compile(
    r"^\s*(?:本帖最后由|本帖最後由)\s*(?P<by>\S.*?)\s*(?:于|於)\s*(?P<at>.+?)\s*(?:编辑|編輯)\s*$"
    r"|^\s*This post was last edited by\s+(?P<by2>\S+)\s+(?:at|on)\s+(?P<at2>.+?)\s*$",
    re.IGNORECASE,
)
_QUOTE_HEAD = re.compile(
    r"^\s*(?P<author>.*?)\s*(?:发表于|發表於|posted (?:at|on))\s*(?P<at>.*)$", re.IGNORECASE
)

_EDIT_STARTS = ("本帖最后由", "本帖最後由", "This post was last edited")
_SKIP_TAGS = frozenset({"script", "style", "textarea", "select", "option", "input", "button", "noscript"})
_BLOCK_TAGS = frozenset(
    {
        "div", "p", "li", "ul", "ol", "tr", "table", "tbody", "thead", "tfoot", "blockquote", "h1", "h2",
        "h3", "h4", "h5", "h6", "dd", "dt", "dl", "pre", "hr", "center", "section", "article", "header",
        "footer", "form", "fieldset", "caption",
    }
)  # fmt: skip
_CELL_TAGS = frozenset({"td", "th"})
_TIP_CLASSES = frozenset({"tip", "aimg_tip", "attach_nopermission", "attach_tips", "atips_close", "jammer"})

# Placeholder texts (Discuz! lang keys message_banned, message_single_banned, message_ishidden_hiddenreplies,
# message_password_exists, post_hide_reply_hidden, moderate_need), simplified and traditional.
_NOTICES: tuple[tuple[str, PostState], ...] = (
    ("作者被禁止或删除", PostState.BANNED),
    ("作者被禁止或刪除", PostState.BANNED),
    ("内容自动屏蔽", PostState.BANNED),
    ("該帖被管理員或版主屏蔽", PostState.BLOCKED),
    ("该帖被管理员或版主屏蔽", PostState.BLOCKED),
    ("该帖被屏蔽", PostState.BLOCKED),
    ("仅作者可见", PostState.AUTHOR_ONLY),
    ("僅作者可見", PostState.AUTHOR_ONLY),
    ("待审核", PostState.PENDING),
    ("待審核", PostState.PENDING),
    ("需要审核", PostState.PENDING),
    ("审核后", PostState.PENDING),
    ("密码帖", PostState.HIDDEN),
    ("密碼帖", PostState.HIDDEN),
    ("隐藏内容", PostState.HIDDEN),
    ("隱藏內容", PostState.HIDDEN),
    ("回复可见", PostState.HIDDEN),
    ("回复才可以浏览", PostState.HIDDEN),
)
_RANK = {
    PostState.NORMAL: 0,
    PostState.HIDDEN: 1,
    PostState.PENDING: 2,
    PostState.AUTHOR_ONLY: 3,
    PostState.BLOCKED: 4,
    PostState.BANNED: 5,
}


def squash(text: str) -> str:
    """``text`` on one line: every run of whitespace (any Unicode space) one space, the ends stripped.

    What names, floor labels, times and titles are read through. Most are clean already, and then no
    regex runs: a regex call costs as much as the rest of reading a name.
    """
    text = text.strip()
    if text.isprintable() and "  " not in text:  # no space but single ASCII ones: nothing to collapse
        return text
    return _SPACES.sub(" ", text)


def name_in(a: Node) -> str:
    """An author's name as the board serves it in his profile link.

    A name is plain text, and its link's text is read. But a board that prints a name holding
    ``<…>`` without escaping it (an imported account, an old board, the example board) serves markup
    inside the link: its text alone would be empty (``<img src=x>``), so the post would lose its author
    and drop out of the count, or another player's name (``<b>饺子</b>`` read as 饺子). Then the link's
    content is kept as served, tags included (entities resolved), so the name is never empty and never
    someone else's.
    """
    if not len(a):
        return squash(a.text or "")
    return squash(html.unescape(inner_html(a)))


def uid_in(href: str) -> int | None:
    """The number after the first ``uid=`` that is no part of a longer name (``touid=`` is not one)."""
    return number_after(href, "uid=")


def number_after(href: str, key: str) -> int | None:
    """The number after the first ``key`` (``"uid="``) that does not end a longer name (``touid=`` for
    ``uid=``), as ``re.search(r"(?<![a-zA-Z])uid=(\\d+)", href)`` finds it; None when there is none.

    A URL parameter is read on every post; a regex call costs more than this whole loop.
    """
    start = 0
    skip, length = len(key), len(href)
    while True:
        at = href.find(key, start)
        if at < 0:
            return None
        start = end = at + skip
        if at and href[at - 1] in _ASCII_LETTERS:
            continue
        while end < length and href[end].isdecimal():
            end += 1
        if end > start:
            return int(href[start:end])


_ANY_NOTICE = re.compile("|".join(re.escape(needle) for needle, _state in _NOTICES))


def classify_notice(text: str) -> PostState | None:
    """The post state a board placeholder text stands for, or None when it is not a placeholder."""
    if _ANY_NOTICE.search(text) is None:  # one pass for all the needles: most texts hold none
        return None
    found: PostState | None = None
    for needle, state in _NOTICES:
        if needle in text and (found is None or _RANK[state] > _RANK[found]):
            found = state
    return found


def unescape_numeric(text: str) -> str:
    """``&#25105;`` / ``&#x6211;`` → 我: GBK boards send characters outside GBK as numeric entities, and
    sometimes escape the ampersand once more, so they survive one round of HTML decoding."""
    if "&#" not in text:
        return text

    def repl(match: re.Match[str]) -> str:
        hexa, dec = match.groups()
        code = int(hexa, 16) if hexa else int(dec)
        if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return match.group(0)
        return chr(code)

    return _NUMERIC.sub(repl, text)


def normalise_text(raw: str) -> str:
    """Collapse the source's whitespace, turn hard breaks into newlines, strip lines, ≤ 1 blank line."""
    if _NL not in raw and _BLOCK not in raw:  # one line (most posts): strip, then collapse what is left
        text = raw.strip()
        if not text.isprintable() or "  " in text:  # tabs, newlines, no-break or double spaces inside
            text = _WS.sub(" ", text)
        return unescape_numeric(text) if "&#" in text else text
    collapsed = _WS.sub(" ", raw)
    if _BLOCK in collapsed:
        collapsed = _SOFT_AFTER_HARD.sub(_NL, _SOFT.sub(_BLOCK, collapsed)).replace(_BLOCK, _NL)
    lines = [line.strip() for line in collapsed.split(_NL)]
    text = "\n".join(lines).strip("\n")
    if "\n\n\n" in text:
        text = _BLANKS.sub("\n\n", text)
    return unescape_numeric(text)


def normalise_lines(pieces: list[str]) -> str:
    """:func:`normalise_text` of ``_NL.join(pieces)``: the text between hard line breaks, line by line.

    Why: a body of text and ``<br>`` is most of what is posted, and its lines are mostly clean, so
    they are stripped without a regex. Pieces holding a marker character fall back to the whole.
    """
    joined = _NL.join(pieces)
    if _BLOCK in joined or joined.count(_NL) != len(pieces) - 1:
        return normalise_text(joined)
    return _clean_lines(pieces)


def _clean_lines(pieces: list[str]) -> str:
    """:func:`normalise_lines` of pieces known to hold neither marker character."""
    lines = []
    for piece in pieces:
        piece = piece.strip()
        if not piece.isprintable() or "  " in piece:  # tabs, newlines, no-break or double spaces inside
            piece = _WS.sub(" ", piece)
        lines.append(piece)
    text = "\n".join(lines).strip("\n")
    if "\n\n\n" in text:
        text = _BLANKS.sub("\n\n", text)
    return unescape_numeric(text) if "&#" in text else text


def split_edit_marker(text: str, tz: ZoneInfo) -> EditMarker | None:
    """Parse ``本帖最后由 X 于 T 编辑`` (or the English template's line); None when it is not one."""
    match = _EDIT.match(text)
    if not match:
        return None
    by = match.group("by") or match.group("by2") or ""
    at_text = match.group("at") or match.group("at2") or ""
    found = parse_absolute(at_text, tz)
    return EditMarker(by=by.strip(), at=found.start if found else None, raw=text.strip())


def _escape(text: str) -> str:
    """``html.escape(text, quote=False)``, which is what lxml's HTML serialiser does to text."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def inner_html(el: Node) -> str:
    """The element's content as served (its text and children, without its own tag).

    One serialisation of the element, its own tags cut off, instead of one per child; the slow way
    stays for an element whose start tag cannot be cut at its first ``>`` (an attribute holding one).
    """
    if len(el) > 1 and not any(">" in value for value in el.values()):
        # UTF-8 bytes decoded here: lxml serialises to UTF-8 for "unicode" too, and decodes more slowly
        data: bytes = lxml.etree.tostring(el, encoding="utf-8", method="html", with_tail=False)
        whole = data.decode("utf-8")
        end = f"</{el.tag}>"
        if whole.endswith(end):
            return whole[whole.index(">") + 1 : -len(end)]
    parts = [_escape(el.text)] if el.text else []
    parts.extend(lxml.etree.tostring(child, encoding="unicode", method="html") for child in el)
    return "".join(parts)


@dataclass(slots=True)
class BodyText:
    """What :func:`read_body` finds in a post body."""

    text: str = ""
    quotes: tuple[QuoteRef, ...] = ()
    mentions: tuple[str, ...] = ()
    edit: EditMarker | None = None
    state: PostState = PostState.NORMAL
    html: str = ""


def _hidden_style(style: str) -> bool:
    compact = style.replace(" ", "").lower()
    return "display:none" in compact or "visibility:hidden" in compact


class _Reader:
    """One walk over a body element; collects text pieces and the side information."""

    __slots__ = ("edit", "mentions", "out", "quotes", "skip", "state", "tz")

    def __init__(self, tz: ZoneInfo) -> None:
        self.tz = tz
        self.out: list[str] = []
        self.quotes: list[QuoteRef] = []
        self.mentions: list[str] = []
        self.edit: EditMarker | None = None
        self.state = PostState.NORMAL
        self.skip: Node | None = None

    def note_state(self, state: PostState | None) -> None:
        if state is not None and _RANK[state] > _RANK[self.state]:
            self.state = state

    def walk(self, el: Node) -> None:
        out = self.out
        if el.text:
            out.append(el.text)
        for child in el:
            tag = child.tag
            if isinstance(tag, str):
                self.element(child, tag)
            if child.tail:
                out.append(child.tail)

    def element(self, el: Node, tag: str) -> None:
        out = self.out
        if tag == "br":
            out.append(_NL)
            return
        if tag == "img" or tag in _SKIP_TAGS or el is self.skip:
            return
        names = el.keys()  # most inline markup has no style or class: one call answers both
        style = el.get(STYLE) if names and "style" in names else None
        if style and _hidden_style(style):
            return
        cls = el.get(CLASS) if names and "class" in names else None
        if cls:
            classes = cls.split()
            if "jammer" in classes or not _TIP_CLASSES.isdisjoint(classes):
                return
            if tag == "i" and "pstatus" in classes:
                self.edit = self.edit or split_edit_marker(text_of(el), self.tz)
                return
            if tag == "div" and ("quote" in classes or "reply_wrap" in classes):
                self.quote_or_notice(el)
                out.append(_BLOCK)  # the block is gone, the line break around it stays
                return
            if "locked" in classes:
                self.note_state(classify_notice(text_of(el)) or PostState.HIDDEN)
                out.append(_BLOCK)
                return
            if tag == "span" and "xg1" in classes:
                state = classify_notice(text_of(el))
                if state is PostState.PENDING:
                    self.note_state(state)
                    return
            if "showhide" in classes:
                for h4 in el.iterchildren("h4"):
                    self.skip = h4
                    break
        if tag == "blockquote":
            self.quote_or_notice(el)
            out.append(_BLOCK)
            return
        if tag == "a":
            self.mention(el)
        block = tag in _BLOCK_TAGS
        if block:
            out.append(_BLOCK)
        elif tag in _CELL_TAGS:
            out.append(" ")
        self.walk(el)
        if block:
            out.append(_BLOCK)

    def mention(self, el: Node) -> None:
        href = el.get("href") or ""
        if "uid=" not in href and "username=" not in href:
            return
        label = text_of(el).strip()
        if label.startswith("@") and len(label) > 1:
            name = label[1:].strip()
            if name and name not in self.mentions:
                self.mentions.append(name)

    def quote_or_notice(self, el: Node) -> None:
        link = None
        for a in el.iter("a"):  # the "X 发表于 T" header links to goto=findpost&pid=N
            if "findpost" in (a.get("href") or ""):
                link = a
                break
        if link is None and el.tag == "div" and not any(True for _ in el.iter("blockquote")):
            state = classify_notice(text_of(el))
            if state is not None:  # touch X3.5 renders placeholders as div.quote
                self.note_state(state)
                return
        self.quotes.append(_read_quote(el, link, self.tz))


def _read_quote(el: Node, link: Node | None, tz: ZoneInfo) -> QuoteRef:
    pid: int | None = None
    author = ""
    sub = _Reader(tz)
    if link is not None:
        href = link.get("href") or ""
        pid = number_after(html.unescape(href) if "&" in href else href, "pid=")
        label = text_of(link)
        if not label.isprintable() or "  " in label:
            label = _WS.sub(" ", label)
        head = _QUOTE_HEAD.match(label)
        if head:
            author = head.group("author").strip()
            sub.skip = link
    # div.quote > blockquote: read the blockquote's content (walking the div would take the blockquote
    # for a nested quote and drop it); div.reply_wrap and a bare blockquote hold the content directly
    inner = next(el.iterchildren("blockquote"), None) if el.tag != "blockquote" else None
    sub.walk(inner if inner is not None else el)
    return QuoteRef(pid=pid, author=author, text=normalise_text("".join(sub.out)))


# Inline markup the reader passes through when it has neither class nor style: its text is the post's.
_PLAIN_INLINE = frozenset(
    {"strong", "b", "em", "u", "s", "strike", "font", "span", "big", "small", "sub", "sup", "i", "ins", "del"}
)


def _inline_only(el: Node, out: list[str]) -> bool:
    """The pieces :class:`_Reader` collects from ``el``, into ``out``, when ``el`` holds nothing but text,
    ``<br>``, images and :data:`_PLAIN_INLINE` elements without class or style (bold, colour, size:
    most formatted posts). False, with ``out`` unfinished, at anything else."""
    if el.text:
        out.append(el.text)
    for child in el:
        tag = child.tag
        if tag == "br":
            out.append(_NL)
        elif tag == "img":
            pass
        elif tag in _PLAIN_INLINE:
            names = child.keys()
            if names and ("class" in names or "style" in names):
                return False
            if len(child):
                if not _inline_only(child, out):
                    return False
            elif child.text:
                out.append(child.text)
        else:
            return False  # blocks, links, quotes, comments: the reader's business
        if child.tail:
            out.append(child.tail)
    return True


# lxml's HTML serialisation of a body that holds text, <br>, images and plain inline markup (no class or
# style): in that form tags are lower case, attribute values quoted, and text escapes only &, < and >.
_ATTRS = r"""(?: (?!class=|style=)[^\s=<>"'/]+(?:="[^"]*"|='[^']*')?)*"""
_INLINE_NAMES = "strong|b|em|u|s|strike|font|span|big|small|sub|sup|i|ins|del"
_SERIALISED_INLINE = re.compile(
    # possessive: a text run is never split again when the match fails (a failing fullmatch over (x+)*
    # backtracks exponentially in the text's length)
    rf"(?:[^<]++|<br(?: [^<>]*)?>|<img(?: [^<>]*)?>|<(?:{_INLINE_NAMES}){_ATTRS}>|</(?:{_INLINE_NAMES})>)*+"
)
_SERIALISED_BR = re.compile(r"<br(?: [^<>]*)?>")
_SERIALISED_TAG = re.compile(r"<[^<>]*>")


def _serialised_lines(markup: str) -> list[str]:
    """The text between the <br>s of a body serialised as :data:`_SERIALISED_INLINE`: what
    :class:`_Reader` collects from the same element, read from the string lxml made of it (one C pass
    instead of a Python step per element)."""
    lines = _SERIALISED_BR.split(markup)
    for i, line in enumerate(lines):
        if "<" in line:
            line = _SERIALISED_TAG.sub("", line)
        if "&" in line:
            line = line.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        lines[i] = line
    return lines


def _serialised_text(markup: str) -> str:
    """``normalise_lines(_serialised_lines(markup))``, with the tags cut and the entities read over the
    whole string at once rather than line by line (a formatted body has a dozen lines).

    The same text: without a marker character in the markup, the <br>s can become :data:`_NL` first
    (each other tag closes on the line it opens on, and no entity holds a marker), then the other
    tags go and the three entities are read, as on each line.
    """
    if _NL in markup or _BLOCK in markup:
        return normalise_lines(_serialised_lines(markup))
    joined = markup.replace("<br>", _NL)  # what lxml writes for a bare <br>: no regex for those
    if "<br " in joined:
        joined = _SERIALISED_BR.sub(_NL, joined)
    if "<" in joined:
        joined = _SERIALISED_TAG.sub("", joined)
    if "&" in joined:
        joined = joined.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return _clean_lines(joined.split(_NL))


def read_body(el: Node | None, tz: ZoneInfo, *, keep_html: bool = True) -> BodyText:
    """Read one post body element (``td.t_f``, ``div.message``, or an API message fragment)."""
    if el is None:
        return BodyText()
    if not len(el):  # text only (most posts): no walk, and the served HTML is the escaped text
        raw = el.text or ""
        found = BodyText(html=_escape(raw) if keep_html and raw else "")
        text = raw.strip()  # normalise_text of one line, inline
        if not text.isprintable() or "  " in text:
            text = _WS.sub(" ", text)
        if "&#" in text:
            text = unescape_numeric(text)
        if text.startswith(_EDIT_STARTS):
            return _finish_text(text, tz, found)
        found.text = text
        return found
    children = list(el)
    if all(child.tag == "br" for child in children):  # text and line breaks: the walk's pieces, directly
        pieces = [el.text or ""]
        pieces.extend([child.tail or "" for child in children])
        markup = ""
        if keep_html:
            if any(child.keys() for child in children):
                markup = inner_html(el)
            else:  # what lxml serialises for text and bare <br>s
                markup = "<br>".join([_escape(piece) for piece in pieces])
        return _finish_text(normalise_lines(pieces), tz, BodyText(html=markup))
    markup = ""
    if keep_html:
        markup = inner_html(el)
        if _SERIALISED_INLINE.fullmatch(markup):  # plain inline markup: its text from the string
            return _finish_text(_serialised_text(markup), tz, BodyText(html=markup))
    else:
        out: list[str] = []
        if _inline_only(el, out):  # text, line breaks and plain inline markup: no reader, lines one by one
            return _finish_text(normalise_lines("".join(out).split(_NL)), tz, BodyText())
    reader = _Reader(tz)
    reader.walk(el)
    found = BodyText(
        quotes=tuple(reader.quotes),
        mentions=tuple(reader.mentions),
        edit=reader.edit,
        state=reader.state,
        html=markup,
    )
    return _finish("".join(reader.out), tz, found)


def _finish(raw: str, tz: ZoneInfo, found: BodyText) -> BodyText:
    """Normalise the collected text into ``found``; a leading edit line becomes the edit marker."""
    return _finish_text(normalise_text(raw), tz, found)


def _finish_text(text: str, tz: ZoneInfo, found: BodyText) -> BodyText:
    """The normalised ``text`` into ``found``; a leading edit line becomes the edit marker."""
    if found.edit is None and text.startswith(_EDIT_STARTS):
        first, _, rest = text.partition("\n")
        found.edit = split_edit_marker(first, tz)
        if found.edit is not None:
            text = rest.strip("\n")
    found.text = text
    return found


_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
# Markup that is plain text with line breaks: no other tag, no entity, no character libxml2 would drop
_PLAIN_MARKUP = re.compile(r"[^<&\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]*")
_PLAIN_RUN = r"[^<&\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]+"
# Served markup of plain inline formatting: <strong>, <font color=...>, smileys' <img>... with no class or
# style, no entity, no comment: its text is what the tree gives, the tags left out.
_RAW_ATTRS = (
    r"""(?>\s++(?!class\b|style\b)[a-z_:][-a-z0-9_:.]*+"""
    r"""(?>\s*+=\s*+(?>"[^"<>]*+"|'[^'<>]*+'|[^\s"'=<>`]++))?)*+\s*+"""
)  # atomic and possessive throughout: a failed match must fail fast, not try every split of the blanks
_RAW_INLINE = re.compile(
    rf"(?>{_PLAIN_RUN}+|<br\s*+/?>|<img(?=[\s/>]){_RAW_ATTRS}/?>|<(?:{_INLINE_NAMES})(?=[\s/>]){_RAW_ATTRS}>"
    rf"|</(?:{_INLINE_NAMES})\s*+>)*+",
    re.IGNORECASE,
)
_RAW_TAG = re.compile(r"<[^<>]*>")


def _plain_fragment(markup: str, tz: ZoneInfo) -> BodyText | None:
    """A message that is only text and ``<br />`` (most replies are), or text in plain inline markup,
    read without building a tree: the same text the tree walk gives. None when the markup holds
    anything else."""
    if "<" not in markup:
        if "&" not in markup and markup.isprintable():  # one clean line (most replies)
            text = markup.strip()
            if "  " in text:
                text = _WS.sub(" ", text)
            return _finish_text(text, tz, BodyText())
        if not _PLAIN_MARKUP.fullmatch(markup):
            return None
        return _finish_text(normalise_text(markup), tz, BodyText())
    if "&" in markup:
        return None
    lines = _BR.split(markup)
    if any("<" in line for line in lines):
        if not _RAW_INLINE.fullmatch(markup):
            return None
        lines = [_RAW_TAG.sub("", line) if "<" in line else line for line in lines]
    elif not _PLAIN_MARKUP.fullmatch("".join(lines)):
        return None
    return _finish_text(normalise_lines(lines), tz, BodyText())


def read_fragment(markup: str, tz: ZoneInfo, *, keep_html: bool = True) -> BodyText:
    """Read a body given as an HTML string (the mobile API's ``message``)."""
    if not markup.strip():
        return BodyText(html=markup if keep_html else "")
    plain = _plain_fragment(markup, tz)
    if plain is not None:
        if keep_html:
            plain.html = markup
        return plain
    body = read_body(html_fragment(markup), tz, keep_html=False)
    if keep_html:
        body.html = markup
    return body
