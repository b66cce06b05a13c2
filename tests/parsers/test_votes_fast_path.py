"""normalize_vote_text skips its markup patterns for a text without "[" (issue 12); every text still
reads as the plain sequence of substitutions reads it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import fold_punctuation
from forumbot.parsers.votes import (
    _BBCODE_TAG,
    _DROP_BLOCK,
    _EDIT_MARK,
    _EDIT_MARK_BB,
    _QUOTE_BLOCK,
    _QUOTE_TAG,
    normalize_vote_text,
)


def plain_normalize(text: str) -> str:
    t = text.replace("\r\n", "\n").replace("\r", "\n")
    prev = None
    while prev != t:
        prev = t
        t = _QUOTE_BLOCK.sub("", t)
    t = _QUOTE_TAG.sub("", t)
    t = _EDIT_MARK_BB.sub("", t)
    t = _EDIT_MARK.sub("", t)
    t = _DROP_BLOCK.sub("", t)
    t = _BBCODE_TAG.sub("", t)
    t = fold_punctuation(t)
    lines = [" ".join(line.split()) for line in t.split("\n")]
    return "\n".join(line for line in lines if line)


PIECES = st.sampled_from(
    [
        "[quote]",
        "[/quote]",
        "[i=s]本帖最后由 Ken 于 2026-6-1 12:00 编辑[/i]",
        "本帖最后由 Ken 于 2026-6-1 12:00 编辑",
        "[img]a[/img]",
        "[b]",
        "[/b]",
        "投票：",
        "Ken",
        "\r\n",
        "\r",
        "[",
        "，",
    ]
)


@settings(max_examples=500)
@given(st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=10).map("".join))
def test_normalize_is_the_plain_sequence(text: str) -> None:
    assert normalize_vote_text(text) == plain_normalize(text)
