"""A body that is not plain inline markup is told apart at once, whatever its length: the fast path's
pattern must not backtrack over a long text (it once did, exponentially, and a post hung the demo)."""

from __future__ import annotations

from forumbot.parsers.htmltext import _SERIALISED_INLINE


def test_a_long_body_with_a_block_element_is_not_plain_inline_markup() -> None:
    body = "投票" * 2000 + "<b>烧卖</b>" + "字" * 2000 + "<div>引用</div>"
    assert _SERIALISED_INLINE.fullmatch(body) is None


def test_plain_inline_markup_still_takes_the_fast_path() -> None:
    assert _SERIALISED_INLINE.fullmatch("投票：<b>烧卖</b><br>理由" * 500) is not None
