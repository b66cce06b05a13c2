"""The attendance text helpers' fast paths (issue 12) read every text exactly as the plain definitions do.

The plain definitions are written out here: strip quotes until none is left, drop images, smileys,
markup and the edit marker, keep the characters whose Unicode category is a letter or a digit; a core
is bumps when a run of bump words spells it.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.attendance import (
    _BBCODE_TAG,
    _EDIT_MARK,
    _IMG,
    _QUOTE_BLOCK,
    _SMILEY,
    _only_bumps,
    meaningful_text,
)


def plain_meaningful(text: str) -> str:
    prev = None
    while prev != text:
        prev = text
        text = _QUOTE_BLOCK.sub("", text)
    t = re.sub(r"\[/?quote(?:=[^\]]*)?\]", "", text, flags=re.IGNORECASE)
    t = _IMG.sub("", t)
    t = _SMILEY.sub("", t)
    t = _BBCODE_TAG.sub("", t)
    t = _EDIT_MARK.sub("", t)
    return "".join(ch for ch in t if unicodedata.category(ch)[0] in "LN")


def plain_only_bumps(s: str, words: frozenset[str]) -> bool:
    lowered = [w.casefold() for w in words if w]
    ok = [True] + [False] * len(s)
    for i in range(len(s)):
        if ok[i]:
            for w in lowered:
                if s.startswith(w, i):
                    ok[i + len(w)] = True
    return bool(s) and ok[len(s)]


PIECES = st.sampled_from(
    [
        "[quote]",
        "[/quote]",
        "[quote=Ken]",
        "[img]x.png[/img]",
        "[b]",
        "[/b]",
        "{:3_44:}",
        ":)",
        ":lol",
        "本帖最后由 Ken 于 2026-6-1 12:00 编辑",
        "投票：",
        "粽子",
        "Ken",
        "顶",
        "up",
        "１２",
        "！",
        "ß",
        " ",
        "\n",
        "[",
        "]",
    ]
)
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=12).map("".join)


@settings(max_examples=400)
@given(TEXTS)
def test_meaningful_text_is_the_plain_definition(text: str) -> None:
    assert meaningful_text(text) == plain_meaningful(text)


@settings(max_examples=400)
@given(
    st.lists(st.sampled_from(["顶", "up", "1", "ss", "ß", "顶顶", "x"]), max_size=6).map("".join),
    st.frozensets(st.sampled_from(["顶", "UP", "1", "ß", "", "dd"]), max_size=4),
)
def test_only_bumps_is_the_plain_definition(s: str, words: frozenset[str]) -> None:
    assert _only_bumps(s, words) == plain_only_bumps(s, words)
    assert _only_bumps(s, sorted(words)) == plain_only_bumps(s, words)  # any collection of words


def test_a_character_no_bump_word_has_ends_the_search() -> None:
    assert _only_bumps("顶顶顶", frozenset({"顶"}))
    assert not _only_bumps("顶顶a", frozenset({"顶"}))
