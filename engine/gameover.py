"""The game-over post: the result and every identity (the rule set labels each player)."""

from __future__ import annotations

from engine.events import PUBLIC, Event, EventKind, event
from engine.ruleset import rules_of
from engine.state import GameState


def game_over_events(state: GameState) -> list[Event]:
    """The game-over post: the result and every identity (ghost and possession history included)."""
    assert state.outcome is not None
    lines = [f"游戏结束：{state.outcome.text}"]
    rules = rules_of(state)
    identities: dict[str, str] = {}
    for p in state.players:
        label = rules.final_identity(p, state)
        identities[p.name] = label
        lines.append(f"{p.name}：{label}{'' if p.alive else '（出局）'}")
    return [
        event(
            EventKind.GAME_OVER,
            PUBLIC,
            "\n".join(lines),
            termination=state.outcome.termination.value,
            winner=state.outcome.winner.value if state.outcome.winner else None,
            identities=identities,
        )
    ]
