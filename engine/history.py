"""A judge's session with history: every step is recorded so it can be undone and replayed.

:class:`Game` is the convenience layer over the pure functions (like python-chess's ``Board`` with its
``move_stack``): it holds the current state, the night's submissions so far, and a list of
:class:`Step` — each a JSON-able ``(op, args)`` record. ``undo()`` pops the last step; ``Game.replay``
rebuilds a game from its initial state and steps (e.g. after the judge corrects a submission).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from engine import eliminations
from engine import night as night_mod
from engine.actions import (
    Night,
    NightAction,
    action_from_dict,
    action_to_dict,
    night_from_dict,
    night_to_dict,
)
from engine.day.model import DayResult
from engine.eliminations import with_day_counters
from engine.errors import StateError
from engine.events import Event, Resolution
from engine.roles import ActionKind
from engine.state import GameState, frozen_map, state_from_dict, state_to_dict


@dataclass(frozen=True, slots=True)
class Step:
    op: str
    args: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "args": dict(self.args)}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Step:
        return Step(str(data["op"]), MappingProxyType(dict(data.get("args", {}))))


_Op = Callable[[GameState, Night, Mapping[str, Any]], tuple[GameState, Night, tuple[Event, ...]]]


def _res(r: Resolution, night: Night | None = None) -> tuple[GameState, Night, tuple[Event, ...]]:
    return r.state, night if night is not None else Night(r.state.round), r.events


def _opt_set(v: Any) -> frozenset[str] | None:
    return frozenset(v) if v else None


_OPS: dict[str, _Op] = {
    "submit": lambda s, n, a: (
        s,
        night_mod.submit(s, n, action_from_dict(a["action"]), late=bool(a.get("late"))),
        (),
    ),
    "withdraw": lambda s, n, a: (
        s,
        night_mod.withdraw(n, ActionKind(a["kind"]), guardian=a.get("guardian")),
        (),
    ),
    "resolve_night": lambda s, n, a: _res(night_mod.resolve_night(s, n, seed=a.get("seed"))),
    "resolve_extra_check": lambda s, n, a: _res(
        night_mod.resolve_extra_check(s, a["target"], late=bool(a.get("late"))), n
    ),
    "resolve_execution": lambda s, n, a: _res(
        eliminations.resolve_execution(s, a.get("chosen"), day=a["day"], tied=_opt_set(a.get("tied"))), n
    ),
    "resolve_drowning": lambda s, n, a: _res(eliminations.resolve_drowning(s, a["names"], day=a["day"]), n),
    "send_off": lambda s, n, a: _res(eliminations.send_off(s, a["name"], day=a["day"]), n),
    "resolve_red_cards": lambda s, n, a: _res(eliminations.resolve_red_cards(s, a["names"], day=a["day"]), n),
    "close_day": lambda s, n, a: _res(eliminations.close_day(s, day=a["day"])),
    "pass_authority": lambda s, n, a: _res(
        eliminations.pass_authority(s, a.get("to"), seed=a.get("seed")), n
    ),
    "concede": lambda s, n, a: _res(eliminations.concede(s, a["side"]), n),
    "surrender": lambda s, n, a: _res(eliminations.surrender(s, a["agreeing"]), n),
    "end_game": lambda s, n, a: _res(eliminations.end_game(s, a["reason"]), n),
    "add_strike": lambda s, n, a: (eliminations.add_strike(s, a["name"], a.get("n", 1)), n, ()),
    "record_proxy_vote": lambda s, n, a: (eliminations.record_proxy_vote(s, a["name"]), n, ()),
    "add_yellow_card": lambda s, n, a: (eliminations.add_yellow_card(s, a["name"]), n, ()),
    "apply_day": lambda s, n, a: _res(_apply_day(s, a)),
}


def _apply_day(state: GameState, a: Mapping[str, Any]) -> Resolution:
    """A whole day (decisions and the day's counters, as recorded by :meth:`Game.apply_day`)."""
    if "counters" in a:
        c = a["counters"]
        state = replace(
            state,
            strikes=frozen_map(c.get("strikes", {})),
            proxy_votes_used=frozen_map(c.get("proxy_votes_used", {})),
            yellow_cards=frozen_map(c.get("yellow_cards", {})),
            discussion_deficient=tuple(c.get("discussion_deficient", ())),
        )
    return eliminations.apply_day(
        state,
        day=a["day"],
        executed=a.get("executed"),
        tied=_opt_set(a.get("tied")),
        drowned=a.get("drowned", ()),
        sent_off=a.get("sent_off", ()),
        red_cards=a.get("red_cards", ()),
        close=bool(a.get("close", True)),
    )


class Game:
    """Current state + pending night + the steps that led here (undo / replay)."""

    def __init__(self, initial: GameState) -> None:
        self.initial = initial
        self._stack: list[tuple[GameState, Night, tuple[Event, ...]]] = [(initial, Night(initial.round), ())]
        self.steps: list[Step] = []

    @property
    def state(self) -> GameState:
        return self._stack[-1][0]

    @property
    def night(self) -> Night:
        return self._stack[-1][1]

    def apply(self, op: str, **args: Any) -> tuple[Event, ...]:
        """Run one step (raises the engine's errors without recording anything)."""
        if op not in _OPS:
            raise StateError(f"unknown step {op!r}; known: {', '.join(_OPS)}")
        st, nt, evs = _OPS[op](self.state, self.night, args)
        self._stack.append((st, nt, evs))
        self.steps.append(Step(op, MappingProxyType(args)))
        return evs

    # convenience wrappers -------------------------------------------------------------------------
    def submit(self, action: NightAction, *, late: bool = False) -> None:
        self.apply("submit", action=action_to_dict(action), late=late)

    def resolve_night(self, *, seed: int | None = None) -> tuple[Event, ...]:
        return self.apply("resolve_night", seed=seed)

    def execute(self, chosen: str | None, *, tied: Sequence[str] | None = None) -> tuple[Event, ...]:
        return self.apply(
            "resolve_execution", chosen=chosen, day=self.state.round, tied=sorted(tied) if tied else None
        )

    def close_day(self) -> tuple[Event, ...]:
        return self.apply("close_day", day=self.state.round)

    def apply_day(
        self, result: DayResult, *, sent_off: Sequence[str] = (), red_cards: Sequence[str] = ()
    ) -> tuple[Event, ...]:
        """Apply a judged day (its decisions and counters) and close it, as one recorded step."""
        executed, tied, drowned, reds = eliminations.day_decisions(result)
        counted = with_day_counters(self.state, result)
        return self.apply(
            "apply_day",
            day=result.input.day,
            executed=executed,
            tied=sorted(tied) if tied else None,
            drowned=list(drowned),
            sent_off=list(sent_off),
            red_cards=reds + [n for n in red_cards if n not in reds],
            counters={
                "strikes": dict(counted.strikes),
                "proxy_votes_used": dict(counted.proxy_votes_used),
                "yellow_cards": dict(counted.yellow_cards),
                "discussion_deficient": list(counted.discussion_deficient),
            },
        )

    def undo(self) -> Step:
        """Take back the last step; returns it (IndexError if there is nothing to undo)."""
        if not self.steps:
            raise IndexError("nothing to undo")
        self._stack.pop()
        return self.steps.pop()

    @classmethod
    def replay(cls, initial: GameState, steps: Sequence[Step]) -> Game:
        game = cls(initial)
        for step in steps:
            game.apply(step.op, **dict(step.args))
        return game

    def to_dict(self) -> dict[str, Any]:
        return {
            "initial": state_to_dict(self.initial),
            "steps": [s.to_dict() for s in self.steps],
            "night": night_to_dict(self.night),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        game = cls.replay(
            state_from_dict(data["initial"]), [Step.from_dict(s) for s in data.get("steps", ())]
        )
        if "night" in data and night_from_dict(data["night"]) != game.night:
            raise StateError("the saved night does not match the replayed steps")
        return game
