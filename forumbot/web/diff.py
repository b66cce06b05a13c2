"""Two revisions of a post side by side, for the judge who must decide whether an edit changed a vote.

Lines are matched first (a vote post is a few short lines), then a changed line is compared
character by character: Chinese has no spaces, so a word diff would mark the whole line changed
when one name was swapped.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import zip_longest
from typing import Literal

Kind = Literal["same", "del", "ins"]


@dataclass(frozen=True)
class Segment:
    kind: Kind
    text: str


@dataclass(frozen=True)
class DiffRow:
    """One line of each side (``None``: no line on that side); ``changed`` when they differ."""

    left: tuple[Segment, ...] | None
    right: tuple[Segment, ...] | None
    changed: bool


def _chars(old: str, new: str) -> tuple[tuple[Segment, ...], tuple[Segment, ...]]:
    left: list[Segment] = []
    right: list[Segment] = []
    sm = SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            left.append(Segment("same", old[i1:i2]))
            right.append(Segment("same", new[j1:j2]))
            continue
        if i2 > i1:
            left.append(Segment("del", old[i1:i2]))
        if j2 > j1:
            right.append(Segment("ins", new[j1:j2]))
    return tuple(left), tuple(right)


def side_by_side(old: str, new: str) -> list[DiffRow]:
    """``old`` and ``new`` as rows of a two-column diff."""
    a, b = old.splitlines() or [""], new.splitlines() or [""]
    rows: list[DiffRow] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            rows.extend(
                DiffRow((Segment("same", line),), (Segment("same", line),), False) for line in a[i1:i2]
            )
            continue
        for left_line, right_line in zip_longest(a[i1:i2], b[j1:j2]):
            if left_line is None:
                rows.append(DiffRow(None, (Segment("ins", right_line),), True))
            elif right_line is None:
                rows.append(DiffRow((Segment("del", left_line),), None, True))
            else:
                left, right = _chars(left_line, right_line)
                rows.append(DiffRow(left, right, True))
    return rows


def changed(old: str, new: str) -> bool:
    return any(r.changed for r in side_by_side(old, new))
