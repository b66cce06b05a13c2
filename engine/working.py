"""A mutable scratch copy of a GameState, used inside one resolution and frozen once at the end.

Resolutions change many counters; copying the whole frozen state for each change would be slow (the
benchmark resolves 10,000 nights). :class:`Work` keeps the changed players and fields and builds one
new :class:`GameState` in :meth:`Work.freeze`. Nothing outside a resolution ever sees a Work.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.events import Event
from engine.outcome import Outcome
from engine.roles import Cause, RoleId
from engine.ruleset import evaluate_outcome
from engine.state import GameState, Phase, Player, copy_state, frozen_map


class Work:
    def __init__(self, state: GameState) -> None:
        self.base = state
        self.players: list[Player] = list(state.players)
        self.index: Mapping[str, int] = state._index  # names never change inside a game
        self.changes: dict[str, Any] = {}
        self.events: list[Event] = []
        self.out: list[str] = []  # eliminations made by this resolution, in order
        self.flags = state.flags

    # ---- reading ----
    def __getattr__(self, name: str) -> Any:
        # Current value of a GameState field (changed or not).
        d = self.__dict__
        try:
            return d["changes"][name]
        except KeyError:
            return getattr(d["base"], name)

    def p(self, name: str) -> Player:
        return self.players[self.index[name]]

    def alive(self, name: str) -> bool:
        i = self.index.get(name)
        return i is not None and self.players[i].alive

    def role(self, name: str) -> RoleId:
        return self.p(name).role

    def living(self) -> list[str]:
        return [p.name for p in self.players if p.alive]

    def holders(self, *roles: RoleId, alive: bool | None = None) -> list[str]:
        return [p.name for p in self.players if p.role in roles and (alive is None or p.alive is alive)]

    # ---- writing ----
    def set(self, **kwargs: Any) -> None:
        self.changes.update(kwargs)

    def set_player(self, name: str, **kwargs: Any) -> None:
        i = self.index[name]
        self.players[i] = replace(self.players[i], **kwargs)

    def _set_out(self, name: str, cause: Cause, round_: int) -> None:
        i = self.index[name]
        p = self.players[i]
        self.players[i] = Player(p.name, p.role, False, cause, round_, p.possessed, p.converted)

    def bump(self, field_name: str, key: str, by: int = 1) -> int:
        current: dict[str, int] = dict(getattr(self, field_name))
        value = int(current.get(key, 0)) + by
        current[key] = value
        self.set(**{field_name: frozen_map(current)})
        return value

    def put(self, field_name: str, key: str, value: Any) -> None:
        current = dict(getattr(self, field_name))
        current[key] = value
        self.set(**{field_name: frozen_map(current)})

    def emit(self, *events: Event) -> None:
        self.events.extend(events)

    def eliminate(self, name: str, cause: Cause, round_: int) -> bool:
        """Mark ``name`` out. False (and nothing changes) if he is already out."""
        if not self.alive(name):
            return False
        self._set_out(name, cause, round_)
        self.set(out_order=(*self.out_order, name))
        self.out.append(name)
        return True

    def outcome_now(self) -> Outcome | None:
        """The win conditions on the scratch values (a win check part-way through a resolution)."""
        return evaluate_outcome(self)

    def freeze(self, **extra: Any) -> GameState:
        """The new state. Names never change, so the base's name index is reused (no __post_init__)."""
        changes = dict(self.changes)
        changes.update(extra)
        changes["players"] = tuple(self.players)
        return copy_state(self.base, changes)

    def end(self, outcome: Outcome) -> None:
        self.set(outcome=outcome, phase=Phase.OVER)
