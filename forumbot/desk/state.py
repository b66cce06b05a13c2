"""The judge's view of the secret state (roles included): what ``forumbot state`` shows."""

from __future__ import annotations

from typing import Any

from engine import ROLE_TABLES, GameState, state_to_dict


def describe_state(st: GameState) -> dict[str, Any]:
    """Phase, outcome, every player with role and status, strikes and the night counters."""
    table = ROLE_TABLES[st.family]
    return {
        "ruleset": st.ruleset_id,
        "phase": f"{st.phase.value} {st.round}",
        "outcome": None if st.outcome is None else str(st.outcome),
        "players": [
            {
                "name": p.name,
                "role": table[p.role].name_zh,
                "alive": p.alive,
                "out": None if p.alive else f"{p.cause.value if p.cause else '?'} ({p.out_round})",
                "possessed": p.possessed,
                "converted": p.converted,
            }
            for p in st.players
        ],
        "strikes": dict(st.strikes),
        "counters": {k: v for k, v in state_to_dict(st).items() if k not in ("players", "flags")},
    }
