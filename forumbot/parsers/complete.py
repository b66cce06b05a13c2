"""Is this page the whole page? A page cut off in transit must be an error, never a shorter thread.

Why: a board (or a proxy) that drops the connection mid-body without a Content-Length hands over a page
that parses: libxml2 closes every open element, and the posts after the cut are simply absent. Read as
complete, those posts would be taken for deleted by a full poll. So a page is complete only when:

- **HTML** (PC and touch): its closing ``</html>`` arrived (every Discuz! template ends with it; a cut
  anywhere before the last bytes removes it);
- **JSON** (mobile API): the object parses; a decode error at the very end of the text is a cut
  (:func:`json_cut_off`), anything else is a broken answer;
- **the post count** (:func:`check_post_count`, needs the page size, which only the caller knows): a page
  that is not the last holds a full page of posts. Discuz! X3.5 pages by floor (``position``) when the
  thread has one: floor range ``(P-1)·ppp+1 … P·ppp``, and a deleted floor leaves a hole, so a short page
  whose every post shows its exact floor inside one such range is complete (the range, not the page
  number, decides: a URL without ``page=`` says nothing about which page came back); without exact floors (the
  only-this-author view, older boards paging by row) a short page that is not the last is cut off.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from forumbot.errors import TruncatedPage

if TYPE_CHECKING:
    from forumbot.parsers.records import ThreadPage

__all__ = ["check_post_count", "html_complete", "json_cut_off", "raise_if_cut_html"]

_CLOSING = re.compile(rb"</html\s*>", re.IGNORECASE)
_TAIL = 65536  # the closing tag is looked for in the last bytes only (a proxy may append a script)


def html_complete(body: bytes) -> bool:
    """True when the page's closing ``</html>`` arrived."""
    start = max(0, len(body) - _TAIL)
    if body.rfind(b"</html>", start) >= 0:  # the templates' own spelling: a C-speed scan from the end
        return True
    return _CLOSING.search(body, start) is not None


def raise_if_cut_html(body: bytes, url: str, what: str) -> None:
    """Raise :class:`TruncatedPage` for an HTML page whose end never arrived."""
    if not html_complete(body):
        tail = body[-60:].decode("utf-8", "replace").strip()
        raise TruncatedPage(url, "", f"{what}: no closing </html> ({len(body)} bytes, ends with {tail!r})")


def json_cut_off(text: str, exc: json.JSONDecodeError) -> bool:
    """True when ``json.loads`` failed because the text ended (not because it is broken midway): the
    error is at the very end, within a ``\\uXXXX`` escape of it, or a string never closed (the decoder
    names where such a string started)."""
    if exc.msg.startswith("Extra data"):
        return False
    return exc.msg.startswith("Unterminated string") or exc.pos >= len(text.rstrip()) - 6


def check_post_count(page: ThreadPage, ppp: int) -> None:
    """Raise :class:`TruncatedPage` when a page that is not the last holds fewer posts than ``ppp``
    and the floors shown do not explain the shortfall by deleted floors (see the module docstring)."""
    info = page.thread
    count = len(page.posts)
    if ppp <= 0 or info.page >= info.pages or count >= ppp:
        return
    floors = [p.floor for p in page.posts if p.floor_exact and p.floor is not None and p.floor > 0]
    if count and len(floors) == count:
        lo = (min(floors) - 1) // ppp * ppp + 1  # the floor range the page's first floor falls in
        if max(floors) < lo + ppp:
            return  # paged by floor: the missing floors of lo..lo+ppp-1 were deleted, the page is whole
    raise TruncatedPage(
        page.url,
        "",
        f"page {info.page} of {info.pages} holds {count} posts, fewer than the {ppp} a page holds "
        "(if the board shows another number of posts a page, set [board] posts_per_page to it)",
    )
