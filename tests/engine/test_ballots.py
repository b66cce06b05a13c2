"""engine.ballots: name suggestions (AMB-25) and punctuation folding."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Ballot,
    BallotKind,
    fold_name,
    fold_punctuation,
    suggest_name,
    within_one_edit,
)

S12 = ("Kai", "Ken", "Pam", "Pat", "Zoe", "Cal", "Cid", "Cora", "Cy", "Cleo", "Cole", "Cruz")
FOOD = ("饺子", "包子", "馄饨", "烧卖", "汤圆", "油条", "春卷", "粽子", "月饼", "麻花", "煎饼", "锅贴")


@pytest.mark.parametrize(
    ("written", "players", "expected"),
    [
        ("Kenn", S12, "Ken"),  # one insertion
        ("Ke", S12, "Ken"),  # one deletion
        ("Kem", S12, "Ken"),  # one substitution
        ("ken", S12, "Ken"),  # case folded
        ("ＫＥＮ", S12, "Ken"),  # width and case folded
        (" Ken ", S12, None),  # already exact after trimming
        ("Ken", S12, None),  # exact: nothing to suggest
        ("Pa", S12, None),  # Pam and Pat are both one edit away: no single suggestion
        ("Coro", S12, "Cora"),
        ("Col", S12, None),  # Cole (one insertion) and Cal (one substitution): ambiguous
        ("Xyzzy", S12, None),
        ("", S12, None),
        ("馄沌", FOOD, "馄饨"),  # the captured board's typo
        ("包", FOOD, "包子"),
        ("包子子", FOOD, "包子"),
        ("饺子包子", FOOD, None),
        ("Ken", (), None),
    ],
)
def test_suggest_name_finds_the_one_player_within_one_edit(
    written: str, players: tuple[str, ...], expected: str | None
) -> None:
    assert suggest_name(written, players) == expected


@pytest.mark.parametrize(
    ("a", "b", "near"),
    [
        ("", "", True),
        ("a", "", True),
        ("ab", "", False),
        ("abc", "abd", True),
        ("abc", "acb", False),
        ("abc", "abcd", True),
        ("abcd", "abc", True),
        ("abc", "xabc", True),
        ("abc", "xabcx", False),
    ],
)
def test_within_one_edit(a: str, b: str, near: bool) -> None:
    assert within_one_edit(a, b) is near


def test_punctuation_is_folded_but_letters_and_digits_are_not() -> None:
    assert fold_punctuation("投票：Ken（理由）！？，；") == "投票:Ken(理由)!?,;"
    assert fold_punctuation("Ｋｅｎ１") == "Ｋｅｎ１"
    assert fold_punctuation("【包子】\u3000“好”") == '[包子] "好"'
    assert fold_name("Ｋｅｎ １") == "ken1"


# The marks folded: every character fold_punctuation changes (the table's keys, read through the API).
_FOLDED = [c for c in map(chr, range(0x10000)) if fold_punctuation(c) != c]


@settings(max_examples=500)
@given(
    st.lists(st.one_of(st.sampled_from(_FOLDED), st.sampled_from(list("投票Ken1 .:()")), st.text(max_size=2)))
)
def test_folding_reads_as_one_character_by_character_map(pieces: list[str]) -> None:
    """fold_punctuation replaces the marks it finds one after the other (issue 21): the same text as
    folding each character on its own (str.translate's reading), few or many distinct marks alike."""
    text = "".join(pieces)
    assert fold_punctuation(text) == "".join(fold_punctuation(c) for c in text)


def test_every_folded_mark_becomes_ascii_and_no_ascii_is_folded() -> None:
    """What makes replacing one mark after the other the same as one translate: no replacement can
    itself be a mark to fold."""
    assert len(_FOLDED) > 50
    assert all(not c.isascii() and fold_punctuation(c).isascii() for c in _FOLDED)


def test_ballot_is_a_frozen_value() -> None:
    b = Ballot(BallotKind.VOTE, "Ken")
    with pytest.raises(AttributeError):
        b.target = "Cal"  # type: ignore[misc]
    assert b.is_vote_like and not Ballot(BallotKind.VOID).is_vote_like


@given(st.text(max_size=30), st.lists(st.text(max_size=8), max_size=12))
def test_suggest_name_never_raises_and_only_returns_a_player(written: str, players: list[str]) -> None:
    s = suggest_name(written, players)
    assert s is None or s in players
