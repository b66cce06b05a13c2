"""Attendance reads every text as the plain definitions do, whatever its fast paths skip (issue 12).

The plain definitions are written out here: strip quotes until none is left, drop images, smileys,
markup and the edit marker, keep the characters whose Unicode category is a letter or a digit; a post
is bumps (灌水) when a run of bump words spells its letters and digits, casefolded.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    AttendanceRules,
    DiscussionPost,
    PostAttendanceStatus,
    judge_discussion_post,
    meaningful_text,
)

QUOTE_BLOCK = re.compile(r"\[quote(?:=[^\]]*)?\](?:(?!\[quote)[\s\S])*?\[/quote\]", re.IGNORECASE)
QUOTE_TAG = re.compile(r"\[/?quote(?:=[^\]]*)?\]", re.IGNORECASE)
IMG = re.compile(r"\[(img|attach|media|flash|audio)[^\]]*\][\s\S]*?\[/\1\]", re.IGNORECASE)
BBCODE_TAG = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?\]", re.IGNORECASE)
EDIT_MARK = re.compile(r"本帖最后由\s*\S+\s*于\s*[\d\-/: ]+\s*编辑")
SMILEY = re.compile(
    r"\{:\d+_\d+:\}"
    r"|\[em:?\d+:?\]|\[em\][\s\S]*?\[/em\]"
    r"|:(?:lol|loveliness|funk|curse|dizzy|shutup|sleepy|hug|victory|time|kiss|handshake|call):?"
    r"|:'\(|:[)(DoP$@LQ]|;P",
)


def plain_meaningful(text: str) -> str:
    prev = None
    while prev != text:
        prev = text
        text = QUOTE_BLOCK.sub("", text)
    t = QUOTE_TAG.sub("", text)
    for pattern in (IMG, SMILEY, BBCODE_TAG, EDIT_MARK):
        t = pattern.sub("", t)
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
        "[em12]",
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
AT = datetime(2026, 6, 1, 5, 0, tzinfo=UTC)


@settings(max_examples=400)
@given(TEXTS)
def test_meaningful_text_is_the_plain_definition(text: str) -> None:
    assert meaningful_text(text) == plain_meaningful(text)


@settings(max_examples=400)
@given(
    st.lists(
        st.sampled_from(["顶", "up", "UP", "1", "ss", "ß", "顶顶", "x", "！"]), min_size=1, max_size=6
    ).map("".join),
    st.frozensets(st.sampled_from(["顶", "UP", "1", "ß", "dd", "up"]), min_size=1, max_size=4),
)
def test_a_post_is_bumps_exactly_when_bump_words_spell_it(text: str, words: frozenset[str]) -> None:
    rules = AttendanceRules(bump_words=words, min_meaningful_chars=1)
    verdict = judge_discussion_post(DiscussionPost(1, "Ken", AT, text), rules)
    core = plain_meaningful(text).casefold()
    if core:
        assert (verdict.status is PostAttendanceStatus.BUMP) == plain_only_bumps(core, words)


def test_a_character_no_bump_word_has_is_not_a_bump() -> None:
    rules = AttendanceRules(bump_words=frozenset({"顶"}), min_meaningful_chars=1)
    assert (
        judge_discussion_post(DiscussionPost(1, "Ken", AT, "顶顶顶"), rules).status
        is PostAttendanceStatus.BUMP
    )
    assert (
        judge_discussion_post(DiscussionPost(1, "Ken", AT, "顶顶a"), rules).status
        is PostAttendanceStatus.VALID
    )
