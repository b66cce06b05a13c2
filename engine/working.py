"""A mutable scratch copy of a GameState, used inside one resolution and frozen once at the end.

Resolutions change many counters; copying the whole frozen state for each change would be slow (the
benchmark resolves 10,000 nights). :class:`Work` keeps the changed players and fields and builds one
new :class:`GameState` in :meth:`Work.freeze`. Nothing outside a resolution ever sees a Work.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.events import Event
from engine.outcome import Outcome, evaluate_outcome
from engine.roles import Cause, RoleId
from engine.state import GameState, Phase, Player, frozen_map


class Work:
    def __init__(self, state: GameState) -> None:
        self.base = state
        self.players: list[Player] = list(state.players)
        self.index: dict[str, int] = {p.name: i for i, p in enumerate(state.players)}
        self.changes: dict[str, Any] = {}
        self.events: list[Event] = []
        self.out: list[str] = []  # eliminations made by this resolution, in order
        self.flags = state.flags

    # ---- reading ----
    def __getattr__(self, name: str) -> Any:
        # Current value of a GameState field (changed or not).
        changes = self.__dict__.get("changes")
        if changes is not None and name in changes:
            return changes[name]
        return getattr(self.__dict__["base"], name)

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

    def bump(self, field_name: str, key: str, by: int = 1) -> int:
        current = dict(getattr(self, field_name))
        current[key] = int(current.get(key, 0)) + by
        self.set(**{field_name: frozen_map(current)})
        return current[key]

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
        self.set_player(name, alive=False, cause=cause, out_round=round_)
        self.set(out_order=(*self.out_order, name))
        self.out.append(name)
        return True

    def outcome_now(self) -> Outcome | None:
        """The win conditions on the scratch values (a win check part-way through a resolution)."""
        return evaluate_outcome(self)

    def freeze(self, **extra: Any) -> GameState:
        changes = dict(self.changes)
        changes.update(extra)
        changes["players"] = tuple(self.players)
        return replace(self.base, **changes)

    def end(self, outcome: Outcome) -> None:
        self.set(outcome=outcome, phase=Phase.OVER)
