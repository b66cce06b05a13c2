"""The R001 reader's shortcuts (issue 21) read every text exactly as the general reader does:

- a name at a position is found by one regex of the roster's names, longest first (``_Names.match_at``),
  where the reader compared every name sharing the first character: the same name, the same end, for
  any text and roster; ``find_all`` finds the same names in the same order;
- a one-line «投票/改票: name [reason]» post is read by ``_canonical_vote``: the same Ballot as the
  general reader's (``_read_r001(..., fast=False)``), or left to it;
- a text without 投, 票 or vote (chat) skips the search for statements: the same Ballot too;
- brackets are stripped and a reason's label removed as the plain substitutions did.
"""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.parsers.votes import (
    _BRACKETS,
    _REASON_LABEL,
    _canonical_vote,
    _clean_reason,
    _holds_keyword,
    _is_word,
    _names_for,
    _read_r001,
    _strip_brackets,
    normalize_vote_text,
)

ROSTERS = [
    ("玩家01", "玩家02", "玩家1", "玩家10", "Ken", "Kenny", "Cal", "投手", "票王", "小(明)", "A_b", "吧主"),
    tuple(f"玩家{i:02d}" for i in range(35)) + tuple(f"Player{i:02d}" for i in range(0, 35, 3)),
]

PIECES = st.sampled_from(
    [
        "投票",
        "改票",
        ":",
        "：",
        " ",
        "  ",
        "(",
        ")",
        "（",
        "）",
        "理由",
        "理由:",
        "见讨论帖第5楼",
        "吧",
        "了",
        "投",
        "票",
        "vote",
        "VOTE",
        "Vote",
        "弃权",
        "废票",
        "作废",
        "@",
        "，",
        ",",
        "和",
        "、",
        "\n",
        "abc",
        "1",
        "_",
        "好人",
        "[b]",
        "'",
        '"',
        "<",
        *ROSTERS[0],
        *ROSTERS[1][:6],
    ]
)
TEXTS = st.lists(PIECES, min_size=0, max_size=9).map("".join)


def reference_match_at(names: object, s: str, pos: int) -> tuple[str, int] | None:
    """The matcher as it was: every name with the position's first character, longest first."""
    by_key: dict[str, str] = names.by_key  # type: ignore[attr-defined]
    by_first: dict[str, tuple[str, ...]] = names.by_first  # type: ignore[attr-defined]
    if pos >= len(s):
        return None
    keys = by_first.get(s[pos])
    if not keys:
        return None
    before = s[pos - 1] if pos > 0 else ""
    for key in keys:
        if not s.startswith(key, pos):
            continue
        end = pos + len(key)
        if before and _is_word(before) and _is_word(key[0]):
            continue
        if end < len(s) and _is_word(key[-1]) and _is_word(s[end]):
            continue
        return by_key[key], end
    return None


@settings(max_examples=400)
@given(TEXTS, st.sampled_from(ROSTERS))
def test_a_name_is_found_where_and_as_the_reference_finds_it(text: str, roster: tuple[str, ...]) -> None:
    names = _names_for(roster)
    for s in (text, normalize_vote_text(text)):
        for pos in range(len(s) + 1):
            assert names.match_at(s, pos) == reference_match_at(names, s, pos), (s, pos)


@settings(max_examples=600)
@given(st.sampled_from(["投票", "改票", "投票 ", "改票  "]), st.sampled_from([":", "：", " :"]), TEXTS)
def test_a_canonical_vote_reads_as_the_general_reader_reads_it(head: str, colon: str, tail: str) -> None:
    for roster in ROSTERS:
        names = _names_for(roster)
        for raw in (head + colon + tail, head + colon + roster[0] + tail, head + colon + roster[-1] + tail):
            t = normalize_vote_text(raw)
            assert _read_r001(t, names) == _read_r001(t, names, fast=False), t


@settings(max_examples=300)
@given(TEXTS)
def test_any_text_reads_the_same_with_or_without_the_shortcut(text: str) -> None:
    for roster in ROSTERS:
        names = _names_for(roster)
        t = normalize_vote_text(text)
        assert _read_r001(t, names) == _read_r001(t, names, fast=False), t


def test_the_shortcut_takes_the_usual_vote_and_leaves_the_rest() -> None:
    names = _names_for(ROSTERS[1])
    taken = _canonical_vote(normalize_vote_text("投票：玩家32（理由见讨论帖第857楼）"), names)
    assert taken is not None and taken.target == "玩家32" and taken.reason == "理由见讨论帖第857楼"
    for text in (
        "投票：玩家32，玩家01",
        "投票：玩家32吧",
        "投票：玩家32\n改票：玩家01",
        "投票：弃权",
        "投票：玩家32 我投玩家01",
    ):
        assert _canonical_vote(normalize_vote_text(text), names) is None, text


def reference_find_all(names: object, s: str) -> list[str]:
    """The names of a text as they were found: the matcher at each position, a match skipping to its end."""
    found: list[str] = []
    i = 0
    while i < len(s):
        m = reference_match_at(names, s, i)
        if m is None:
            i += 1
            continue
        if m[0] not in found:
            found.append(m[0])
        i = m[1]
    return found


@settings(max_examples=400)
@given(TEXTS, st.sampled_from(ROSTERS))
def test_the_names_of_a_text_are_found_as_the_reference_finds_them(
    text: str, roster: tuple[str, ...]
) -> None:
    names = _names_for(roster)
    for s in (text, normalize_vote_text(text)):
        assert names.find_all(s) == reference_find_all(names, s), s


def test_a_roster_of_regex_characters_and_none_at_all_match_as_written() -> None:
    odd = _names_for(("a.b", "(x)", "c*", "[d]", "e|f", "\\g"))
    assert odd.match_at("a.b", 0) == ("a.b", 3) and odd.match_at("axb", 0) is None
    assert odd.find_all("(x) c* [d] e|f \\g cc") == ["(x)", "c*", "[d]", "e|f", "\\g"]
    empty = _names_for(())
    assert empty.match_at("玩家01", 0) is None and empty.find_all("玩家01") == []


CHAT = st.lists(
    st.sampled_from(
        [
            "顶",
            "+1",
            "我是好人",
            "???",
            "等等看",
            "同意楼上",
            "(",
            ")",
            "（",
            "）",
            "[",
            "]",
            "<",
            ">",
            "说的第",
            "楼",
            "5",
            " ",
            "\n",
            "@",
            "吧",
            "~",
            "!",
            "弃权",
            "我弃权",
            "废票",
            "作废",
            "撤回",
            "?",
            "票",
            "的",
            "Ve",
            "ote",
            *ROSTERS[0],
            *ROSTERS[1][:4],
        ]
    ),
    max_size=8,
).map("".join)


@settings(max_examples=500)
@given(CHAT)
def test_a_text_without_a_vote_keyword_reads_as_the_general_reader_reads_it(text: str) -> None:
    """The chat shortcut (no 投, 票 or vote: no statement to look for) against the general reader, on
    texts of chat, brackets, bare names, abstentions and voids."""
    for roster in ROSTERS:
        names = _names_for(roster)
        t = normalize_vote_text(text)
        assert _read_r001(t, names) == _read_r001(t, names, fast=False), t


def test_only_v_and_capital_v_match_the_case_insensitive_v_of_vote() -> None:
    """Why a text without 投, 票, v or V holds no keyword (votes._KEY_CHAR)."""
    v = re.compile("(?i:v)")
    assert [c for c in map(chr, range(sys.maxunicode + 1)) if v.fullmatch(c)] == ["V", "v"]
    for text in ("vote", "VOTE", "投", "票", "我要vOtE了"):
        assert _holds_keyword(text), text
    assert not _holds_keyword("顶(玩家07说的第321楼)")


def plain_strip_brackets(s: str) -> str:
    prev = None
    while prev != s:
        prev = s
        s = _BRACKETS.sub("", s)
    return s


@settings(max_examples=400)
@given(
    st.lists(st.sampled_from(["(", ")", "[", "]", "<", ">", "（", "）", "a", "投票", " "]), max_size=12).map(
        "".join
    )
)
def test_brackets_are_stripped_until_nothing_changes(text: str) -> None:
    assert _strip_brackets(text) == plain_strip_brackets(text)


@settings(max_examples=300)
@given(
    st.lists(
        st.sampled_from([" ", ",", ")", "]", "理由", "原因", ":", "\n", "见5楼", "(", "~"]), max_size=8
    ).map("".join)
)
def test_a_reason_loses_its_label_as_a_substitution_removed_it(after: str) -> None:
    assert _clean_reason(after) == _REASON_LABEL.sub("", after).strip(" ,.;:!?()[]~")
