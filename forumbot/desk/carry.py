"""Each day judged once: what a day carries into the next, and the fingerprint that says it still holds.

Why: the counters a day starts from (vote strikes, proxy votes used, yellow cards, who was short of
discussion posts the round before) and who the earlier days put out come from the earlier days'
results. Judging days 1…k-1 again for every ``tally --day k`` made a game O(D²). Instead, each judged
day's :class:`DayCarry` is stored (forumbot/store/dayresults.py) with a fingerprint of everything it was
judged from, and day k starts from day k-1's carry while the fingerprint computed now is the same.

The fingerprint (:func:`fingerprint`) is a SHA-256 over a canonical form (:func:`canon`) of the day's
inputs, without reading a single post: the game file's part that judging uses, the day's entry, the
versions of its threads (forumbot/store/readpath.py: every write that changes a post moves them), the
judges' overrides, waived edits, proxy votes and revote calls of the day, the ids of the state versions
the day reads, forumbot's judging code (:func:`code_digest`), and the fingerprint of the day before, so
a change to day 2 invalidates days 3, 4… as well. Exact, not heuristic: anything the day used changes,
the fingerprint changes, and the day is judged again; nothing it did not use is needed to match.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from enum import Enum
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from engine import DayResult

FORMAT = 1  # the fingerprint's and the carry's layout; a change makes every stored day stale


@dataclasses.dataclass(frozen=True)
class DayCarry:
    """What a judged day leaves for the days after it (what ``tally --day k`` needs of day k-1 and
    earlier): the counters carried into the next day's input, and who the day put out."""

    strikes: Mapping[str, int]
    proxy_used: Mapping[str, int]
    yellow_cards: Mapping[str, int]
    deficient: frozenset[str]  # short of discussion posts: the next round's previous_round_deficient
    executed: tuple[str, ...]
    drowned: tuple[str, ...]

    @classmethod
    def of(cls, result: DayResult) -> DayCarry:
        return cls(
            strikes=dict(result.strikes_after),
            proxy_used=dict(result.proxy_used_after),
            yellow_cards=dict(result.yellow_totals),
            deficient=frozenset(result.discussion_deficient),
            executed=tuple(result.executed),
            drowned=tuple(result.drowned_names),
        )

    def to_json(self) -> str:
        """JSON keeping the counters' order (the engine reads them in order)."""
        return json.dumps(
            {
                "strikes": list(self.strikes.items()),
                "proxy_used": list(self.proxy_used.items()),
                "yellow_cards": list(self.yellow_cards.items()),
                "deficient": sorted(self.deficient),
                "executed": list(self.executed),
                "drowned": list(self.drowned),
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> DayCarry:
        data = json.loads(text)
        return cls(
            strikes={k: int(v) for k, v in data["strikes"]},
            proxy_used={k: int(v) for k, v in data["proxy_used"]},
            yellow_cards={k: int(v) for k, v in data["yellow_cards"]},
            deficient=frozenset(data["deficient"]),
            executed=tuple(data["executed"]),
            drowned=tuple(data["drowned"]),
        )


def canon(value: Any) -> Any:
    """``value`` as plain JSON data that is the same in every process for equal inputs: dataclasses by
    class and fields, enums by class and value, sets sorted, mappings in their order, times in ISO form.
    What it does not know is written as its ``repr`` (a value whose repr differs between processes only
    makes the stored days unused, never wrong)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Enum):
        return ["enum", type(value).__name__, canon(value.value)]
    if isinstance(value, datetime | date | time):
        return ["time", value.isoformat()]
    if isinstance(value, timedelta):
        return ["delta", value.total_seconds()]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            "dc",
            type(value).__qualname__,
            [[f.name, canon(getattr(value, f.name))] for f in dataclasses.fields(value)],
        ]
    if isinstance(value, Mapping):
        return ["map", [[canon(k), canon(v)] for k, v in value.items()]]
    if isinstance(value, set | frozenset):
        items = [canon(v) for v in value]
        return ["set", sorted(items, key=lambda v: json.dumps(v, ensure_ascii=False, sort_keys=True))]
    if isinstance(value, list | tuple):
        return [canon(v) for v in value]
    if isinstance(value, ZoneInfo):
        return ["zone", value.key]
    if isinstance(value, Path):
        return ["path", str(value)]
    return ["repr", type(value).__qualname__, repr(value)]


def fingerprint(*parts: Any) -> str:
    """SHA-256 of the canonical JSON of ``parts``, with the layout version and the judging code."""
    payload = json.dumps([FORMAT, code_digest(), canon(parts)], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


# The code a day's judgement runs: the engine, the vote and application parsers, the desk, the read path.
_JUDGING_CODE = ("engine", "forumbot/desk", "forumbot/parsers", "forumbot/store/readpath.py")


@functools.cache
def code_digest() -> str:
    """A digest of forumbot's judging code (its source files), so a new version of forumbot judges
    every day again instead of starting from a day its predecessor judged. Read once per process."""
    import engine
    import forumbot

    root = Path(forumbot.__file__).resolve().parent.parent
    engine_root = Path(engine.__file__).resolve().parent.parent
    h = hashlib.sha256(f"forumbot {forumbot.__version__}".encode())
    for where in _JUDGING_CODE:
        base = engine_root if where == "engine" else root
        path = base / where
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            try:
                data = f.read_bytes()
            except OSError:
                continue  # an installation without sources: the version above still counts
            h.update(f"{where}/{f.relative_to(path) if path.is_dir() else f.name}\0".encode())
            h.update(hashlib.sha256(data).digest())
    return h.hexdigest()
