"""What a vote-thread post says, before anyone judges it.

A :class:`Ballot` is the reading of one post's text: a vote, a change of vote, an active void (废票), or
nothing. Whether it *counts* (time windows, one vote per round, living targets, the reply-to-floor rule)
is decided by the day engine (:mod:`engine.judgement`), which knows the round; the reader only knows the text.

Name helpers live here too (not in the forum parsers) because the day engine needs them for its own
verdicts ("写错名字算废票：Kenn 不是存活玩家（是否为 Ken？）") and must not import forumbot.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from enum import StrEnum

from engine.quickinit import quick_init

__all__ = [
    "Ballot",
    "BallotKind",
    "exact_player",
    "fold_name",
    "fold_punctuation",
    "suggest_name",
    "within_one_edit",
]


class BallotKind(StrEnum):
    """What a post is, as text. Abstention is a VOTE (or CHANGE) with ``abstain=True``."""

    VOTE = "vote"  # 投票 / 投票对象
    CHANGE = "change"  # 改票对象 (R004); R001 knows no change and treats it as a second vote
    VOID = "void"  # 废票 (R001 only)
    NOT_A_VOTE = "not_a_vote"  # chat, bumps, questions
    UNREADABLE = "unreadable"  # looks like a vote but breaks the format (R004: an invalid vote)


@quick_init
@dataclass(frozen=True, slots=True)
class Ballot:
    """The reading of one post.

    ``target`` is the name as written (trimmed, punctuation width folded) — *not* corrected: a typo stays a
    typo, and the day engine voids it ("写错名字算废票") while suggesting the likely name to the judge.
    ``reason`` is the voter's own stated reason (may be empty); ``note`` is the reader's one-line
    explanation in Chinese. ``names`` lists the players the target part mentions (two or more and
    ``ambiguous`` is set: "投票：Cal，Ken").
    """

    kind: BallotKind
    target: str | None = None
    abstain: bool = False
    reason: str = ""
    needs_review: bool = False
    note: str = ""
    ambiguous: bool = False
    names: tuple[str, ...] = ()

    @property
    def is_vote_like(self) -> bool:
        """A vote or change (valid-looking or not): the post tries to cast or move a vote."""
        return self.kind in (BallotKind.VOTE, BallotKind.CHANGE)


# --- width folding -------------------------------------------------------------------------------------

_EXTRA_PUNCT = {
    "\u3000": " ",  # ideographic space
    "\u00a0": " ",
    "\u3002": ".",  # 。
    "\u201c": '"',
    "\u201d": '"',
    "\u2018": "'",
    "\u2019": "'",
    "\u3010": "[",  # 【
    "\u3011": "]",  # 】
    "\u300c": '"',  # 「
    "\u300d": '"',  # 」
    "\u300e": '"',
    "\u300f": '"',
    "\u2014": "-",  # —
    "\u2026": "...",  # …
    "\ufe30": ":",
    "\ufe55": ":",  # small colon
    "\u2236": ":",  # ratio sign, looks like a colon
    "\u200b": "",  # zero-width space
    "\u200c": "",
    "\u200d": "",
    "\ufeff": "",
}


def _build_punct_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0xFF01, 0xFF5F):
        ch = chr(code)
        if unicodedata.category(ch)[0] in "PS":  # punctuation and symbols only, never letters or digits
            table[code] = chr(code - 0xFEE0)
    for ch, repl in _EXTRA_PUNCT.items():
        table[ord(ch)] = repl
    return table


_PUNCT_TABLE = _build_punct_table()


# The characters the table folds, and each one's replacement. Every replacement is ASCII (or empty) and
# no ASCII character is folded, so replacing the characters one after the other reads as one translate.
_FOLD_CHAR = {chr(code): repl for code, repl in _PUNCT_TABLE.items()}
_FOLDABLE = re.compile("[" + "".join(re.escape(c) for c in sorted(_FOLD_CHAR)) + "]")
_FEW = 6  # distinct foldable characters up to which replacing each beats translate


def fold_punctuation(text: str) -> str:
    """Fold full-width *punctuation* to half-width ("标点符号不区分全半角"); letters, digits stay (AMB-25).

    ``str.translate`` looks every character of a non-ASCII text up in the table (raising and clearing a
    KeyError for each one it does not fold); a vote post holds a few distinct punctuation marks, so they
    are found by one regex scan and replaced each by one C call (issue 21). Same result, for any text."""
    found = _FOLDABLE.findall(text)
    if not found:
        return text
    marks = set(found)
    if len(marks) > _FEW:
        return text.translate(_PUNCT_TABLE)
    for ch in marks:
        text = text.replace(ch, _FOLD_CHAR[ch])
    return text


def fold_name(name: str) -> str:
    """Case- and width-insensitive key of a name, whitespace removed: used only for suggestions."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(folded.split())


# --- suggestions ---------------------------------------------------------------------------------------


def within_one_edit(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are at most one insertion, deletion or substitution apart."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la > lb:
        a, b, la, lb = b, a, lb, la
    # now la <= lb
    i = 0
    while i < la and a[i] == b[i]:
        i += 1
    if la == lb:
        return a[i + 1 :] == b[i + 1 :]
    return a[i:] == b[i + 1 :]


def suggest_name(written: str, players: Iterable[str]) -> str | None:
    """The one player ``written`` most likely meant, or None.

    A suggestion exists when exactly one player is equal after case/width folding, or (failing that)
    exactly one is within one edit of it. A name that is already exact gets no suggestion. The verdict
    shows the suggestion to the judge; it never counts by itself ("写错名字算废票", AMB-25).
    """
    written = written.strip()
    if not written:
        return None
    pool = list(dict.fromkeys(p for p in players if p))
    if written in pool:
        return None
    key = fold_name(written)
    if not key:
        return None
    keys = {p: fold_name(p) for p in pool}
    same = [p for p in pool if keys[p] == key]
    if len(same) == 1:
        return same[0]
    if same:
        return None
    near = [p for p in pool if keys[p] and within_one_edit(keys[p], key)]
    return near[0] if len(near) == 1 else None


def exact_player(written: str, players: Collection[str]) -> str | None:
    """``written`` if it is exactly a player's name after trimming, else None (AMB-25: no typo tolerance)."""
    w = written.strip()
    return w if w in players else None
