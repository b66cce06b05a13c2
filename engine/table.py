"""What a win check reads: a GameState, or the scratch copy (engine.working.Work) inside a resolution."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.flags_night import NightFlags
from engine.state import Player


class Table(Protocol):
    """The part of a state a win check reads."""

    @property
    def players(self) -> Sequence[Player]: ...
    @property
    def flags(self) -> NightFlags: ...
    @property
    def spy_counted(self) -> bool: ...
    @property
    def ruleset_id(self) -> str: ...
