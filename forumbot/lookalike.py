"""Names that only *look* like a player's or a judge's: found where posts are matched to names.

Why: an account named ``饺<U+200B>子`` (a zero-width space inside), ``包⼦`` (the Kangxi radical ⼦,
U+2F26, for 子) or ``法官大⼈`` is another account, and the day is judged right when it is treated as
a non-player. But the board, the terminal and the drafts print it exactly like the real name, so a
reader sees «饺子：非本局玩家，投票无效» about the real 饺子. Such a post is flagged ⚑ for the judges,
with the code points that differ, and stays a non-player's post.

Two names look alike when they are equal once both are reduced to a *skeleton*: NFKC (which folds
compatibility forms: Kangxi radicals, full-width letters and digits, ligatures, circled forms) and
then every default-ignorable code point removed (zero-width spaces and joiners, bidi controls,
variation selectors, soft hyphens, tags). The table of default-ignorable code points is Unicode's
``Default_Ignorable_Code_Point`` (DerivedCoreProperties.txt), which ``unicodedata`` does not expose;
it is short and stable, so it is kept here rather than adding a dependency. This is not the full UTS
#39 confusables table: a Cyrillic letter for a Latin one is not caught (rosters here are Chinese).

Pure functions, no I/O; the parsers (forumbot/parsers/votes.py) call them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache

# Unicode 15.1 DerivedCoreProperties.txt, Default_Ignorable_Code_Point, as inclusive ranges.
_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG/JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ/AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
    (0x200B, 0x200F),  # ZERO WIDTH SPACE, ZWNJ, ZWJ, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # WORD JOINER, invisible operators, bidi isolates, deprecated format characters
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTORS
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE (BOM)
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # unassigned specials
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT CONTROLS
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN/END BEAM...
    (0xE0000, 0xE0FFF),  # TAGS, VARIATION SELECTORS SUPPLEMENT
)


def is_ignorable(ch: str) -> bool:
    """True for a default-ignorable code point (shown as nothing by a conforming renderer)."""
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE)


@lru_cache(maxsize=8192)
def skeleton(name: str) -> str:
    """``name`` as it looks: NFKC, default-ignorable code points dropped, NFKC again (a dropped joiner
    can leave a sequence that composes).

    >>> skeleton("饺\\u200b子") == skeleton("包⼦".replace("包", "饺")) == "饺子"
    True
    """
    folded = unicodedata.normalize("NFKC", name)
    if folded.isascii():
        return folded
    kept = "".join(ch for ch in folded if not is_ignorable(ch))
    return unicodedata.normalize("NFKC", kept)


def odd_code_points(name: str, like: str) -> tuple[str, ...]:
    """The characters of ``name`` that ``like`` does not have, each once, in order.

    >>> odd_code_points("包⼦", "包子")
    ('⼦',)
    """
    return tuple(dict.fromkeys(ch for ch in name if ch not in like))


def describe(ch: str) -> str:
    """``U+200B ZERO WIDTH SPACE``: a code point as a judge can look it up."""
    label = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" {label}" if label else "")


@dataclass(frozen=True)
class LookAlike:
    """``name`` looks like ``like`` (a roster or judge name) and is not it; ``odd`` the differing
    characters."""

    name: str
    like: str
    odd: tuple[str, ...]

    @property
    def code_points(self) -> str:
        """The differing characters for the judge: «U+200B ZERO WIDTH SPACE、U+2F26 KANGXI RADICAL CHILD»."""
        return "、".join(describe(ch) for ch in self.odd) or "?"

    @property
    def note(self) -> str:
        """The verdict's note (Chinese, public: it tells readers this is not the real account)."""
        return f"账号名与 {self.like} 只差不可见或异形字符（{self.code_points}），不是同一账号"


class LookAlikes:
    """The look-alike finder for a set of real names (the roster and the judges).

    Built once per name set (:func:`look_alikes`); each author is checked once (cached): a thread
    has thousands of posts and a few dozen authors."""

    def __init__(self, real: Collection[str]) -> None:
        self._real = frozenset(real)
        by_skeleton: dict[str, list[str]] = {}
        for name in sorted(self._real):
            by_skeleton.setdefault(skeleton(name), []).append(name)
        self._by_skeleton = {k: tuple(v) for k, v in by_skeleton.items()}
        self._seen: dict[str, LookAlike | None] = {}

    def find(self, name: str) -> LookAlike | None:
        """The real name ``name`` imitates, or None (a real name itself, or like none)."""
        if name in self._real or not name:
            return None
        if name in self._seen:
            return self._seen[name]
        found: LookAlike | None = None
        like = self._by_skeleton.get(skeleton(name))
        if like:
            found = LookAlike(name, like[0], odd_code_points(name, like[0]))
        self._seen[name] = found
        return found


@lru_cache(maxsize=64)
def _look_alikes(real: frozenset[str]) -> LookAlikes:
    return LookAlikes(real)


def look_alikes(real: Collection[str]) -> LookAlikes:
    """The (cached) finder for these real names."""
    return _look_alikes(frozenset(real))
