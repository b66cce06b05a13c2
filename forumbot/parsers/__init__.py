"""Page parsers: bytes a Discuz! board served (plus the URL and the response's Date) → typed records.

Pure functions: nothing here fetches, sleeps or reads the clock. Relative times ("3 分钟前") are resolved
against the ``Date`` header given by the caller, in the board's time zone ``tz``.

Public API::

    parse_thread_page(body, url, *, date_header=None, content_type=None, tz=..., status=200) -> ThreadPage
    parse_forum_page(body, url, *, date_header=None, content_type=None, tz=..., status=200) -> ForumPage
    page_kind(url) -> Source
    decode_page(body, content_type=None) -> str
    page_to_json(page, tz) -> dict
    parse_pm_page(body, url, *, date_header=None, content_type=None, tz=..., status=200)
        -> PmListPage | PmConversationPage      (forumbot.parsers.pm; is_pm_url(url) tells a PM URL)

Which view a page is comes from its content first (a ``mobile=2`` URL may have been redirected to the PC
page; an API URL may answer with an HTML error), the URL second. Errors: a page that is a board message
(thread missing, no permission, login wall, CC defence, anti-theft script, system error, API
``Message``) raises the matching :class:`~forumbot.errors.BoardError` subclass with the URL and the
board's own words; a page with nothing recognisable raises :class:`~forumbot.errors.UnparseablePage`;
a page cut off before its end (HTML without its closing ``</html>``, JSON ending mid-object) raises
:class:`~forumbot.errors.TruncatedPage` (see :mod:`forumbot.parsers.complete`; the post-count check
needs the page size and is :func:`check_post_count`, applied by the client).
Nothing else escapes: an unexpected exception inside a parser is re-raised as ``UnparseablePage`` whose
detail starts with ``internal parser error`` (tests treat that as a bug). A page that is readable but has
unreadable posts is returned with ``ThreadPage.problems`` ("post 52: no time found").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forumbot.parsers.complete import check_post_count
    from forumbot.parsers.dispatch import (
        BOARD_TZ,
        page_kind,
        page_to_json,
        parse_forum_page,
        parse_thread_page,
        post_to_json,
    )
    from forumbot.parsers.encoding import decode_page
    from forumbot.parsers.pm import is_pm_url, parse_pm_page

__all__ = [
    "BOARD_TZ",
    "check_post_count",
    "decode_page",
    "is_pm_url",
    "page_kind",
    "page_to_json",
    "parse_forum_page",
    "parse_pm_page",
    "parse_thread_page",
    "post_to_json",
]

# Each public name is imported on first use (PEP 562): a command that reads only votes
# (``forumbot.parsers.votes``) or records does not import the page parsers (issue 12, start-up).
_DISPATCH = frozenset(
    {"BOARD_TZ", "page_kind", "page_to_json", "parse_forum_page", "parse_thread_page", "post_to_json"}
)


def __getattr__(name: str) -> Any:
    value: Any
    if name in _DISPATCH:
        from forumbot.parsers import dispatch

        value = getattr(dispatch, name)
    elif name == "check_post_count":
        from forumbot.parsers.complete import check_post_count as value
    elif name == "decode_page":
        from forumbot.parsers.encoding import decode_page as value
    elif name in ("is_pm_url", "parse_pm_page"):
        from forumbot.parsers import pm

        value = getattr(pm, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later uses find it directly
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
