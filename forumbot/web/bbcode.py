"""Discuz! BBCode rendered roughly as the board shows it, as safe HTML, for the outbox preview.

Why a tokenizer with a stack and not regex substitutions: a draft is pasted as is, so the preview
must show what a broken draft looks like too (an unclosed [b] bolds to the end, a stray [/i] stays
visible as text) and must never let a tag's argument out of its attribute. Everything that is not a
known tag is HTML-escaped; colours, sizes and URLs are checked against a narrow grammar, and a URL
that is not http(s) (or a board-relative forum.php link) is shown as text, never linked.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

_TAG = re.compile(r"\[(/?)([a-z*]+)(?:=([^\]\[]{0,200}))?\]", re.IGNORECASE)
_COLOR = re.compile(
    r"^(#[0-9a-f]{3}|#[0-9a-f]{6}|[a-z]{3,20}|rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\))$", re.I
)
_URL = re.compile(r"^(https?://[^\s\"'<>]+|forum\.php\?[^\s\"'<>]*)$", re.I)
# Discuz!'s [size=1..7] maps to the old <font size>; in px as the default style shows them.
_SIZES = {"1": "10px", "2": "13px", "3": "16px", "4": "18px", "5": "24px", "6": "32px", "7": "48px"}
_PX = re.compile(r"^(\d{1,2})(px|pt)$", re.I)
_ALIGN = {"left", "center", "right"}


@dataclass(frozen=True)
class _Open:
    name: str
    close_html: str


def _style_tag(name: str, arg: str | None) -> tuple[str, str] | None:
    """The opening and closing HTML of a known tag with a valid argument, else None."""
    simple = {"b": "strong", "i": "em", "u": "u", "s": "s", "strike": "s", "sub": "sub", "sup": "sup"}
    if name in simple and arg is None:
        return f"<{simple[name]}>", f"</{simple[name]}>"
    if name in ("color", "backcolor") and arg and _COLOR.match(arg.strip()):
        prop = "color" if name == "color" else "background-color"
        return f'<span style="{prop}:{html.escape(arg.strip())}">', "</span>"
    if name == "size" and arg:
        a = arg.strip()
        size = _SIZES.get(a) or (a if _PX.match(a) and int(_PX.match(a).group(1)) <= 48 else None)  # type: ignore[union-attr]
        if size:
            return f'<span style="font-size:{size}">', "</span>"
    if name == "font" and arg and re.match(r"^[\w\s\-\u4e00-\u9fff,]{1,50}$", arg):
        return f'<span style="font-family:{html.escape(arg)}">', "</span>"
    if name == "align" and arg and arg.strip().lower() in _ALIGN:
        return f'<div style="text-align:{arg.strip().lower()}">', "</div>"
    if name == "quote" and arg is None:
        return '<blockquote class="bb-quote">', "</blockquote>"
    if name == "code" and arg is None:
        return '<pre class="bb-code">', "</pre>"
    if name == "list" and arg is None:
        return "<ul>", "</ul>"
    if name == "list" and arg in ("1", "a", "A", "i", "I"):
        return f'<ol type="{arg}">', "</ol>"
    if name == "table" and arg is None:
        return '<table class="bb-table">', "</table>"
    if name in ("tr", "td") and arg is None:
        return f"<{name}>", f"</{name}>"
    if name == "url" and arg is not None:
        url = arg.strip().strip("'\"")
        if _URL.match(url):
            return f'<a href="{html.escape(url)}" rel="noopener noreferrer" target="_blank">', "</a>"
        return f'<span class="bb-badurl" title="{html.escape(url)}">', "</span>"
    return None


def _text(s: str) -> str:
    return html.escape(s).replace("\n", "<br>\n")


def to_html(bbcode: str) -> str:
    """The draft as safe HTML (every character outside a known tag is escaped)."""
    out: list[str] = []
    stack: list[_Open] = []
    pos = 0
    text = bbcode.replace("\r\n", "\n")
    while pos < len(text):
        m = _TAG.search(text, pos)
        if m is None:
            out.append(_text(text[pos:]))
            break
        out.append(_text(text[pos : m.start()]))
        pos = m.end()
        closing, name, arg = m.group(1) == "/", m.group(2).lower(), m.group(3)
        raw = m.group(0)
        if closing:
            names = [o.name for o in stack]
            if name in names:  # close everything opened inside it (as browsers forgive, so does the board)
                while stack:
                    o = stack.pop()
                    out.append(o.close_html)
                    if o.name == name:
                        break
            else:
                out.append(_text(raw))
            continue
        if name == "hr" and arg is None:
            out.append("<hr>")
            continue
        if name == "*":
            if any(o.name == "list" for o in stack):
                if stack and stack[-1].name == "*":
                    out.append(stack.pop().close_html)
                out.append("<li>")
                stack.append(_Open("*", "</li>"))
            else:
                out.append(_text(raw))
            continue
        if name in ("url", "img") and arg is None:
            end = text.lower().find(f"[/{name}]", pos)
            if end == -1:
                out.append(_text(raw))
                continue
            inner = text[pos:end].strip()
            pos = end + len(name) + 3
            if _URL.match(inner):
                href = html.escape(inner)
                label = "[图片]" if name == "img" else href
                out.append(f'<a href="{href}" rel="noopener noreferrer" target="_blank">{label}</a>')
            else:
                out.append(_text(inner))
            continue
        tag = _style_tag(name, arg)
        if tag is None:
            out.append(_text(raw))
            continue
        if name == "list" and stack and stack[-1].name == "*":
            pass  # a nested list inside an item
        out.append(tag[0])
        stack.append(_Open(name, tag[1]))
    while stack:
        out.append(stack.pop().close_html)
    return "".join(out)
