"""Random legal play for R004 (engine.simulate): a night's submissions, a day's decisions."""

from __future__ import annotations

import random

from engine.actions import (
    Arrow,
    Assassinate,
    Check,
    Fireworks,
    Heal,
    Hug,
    Kidnap,
    Kill,
    KillHostages,
    Night,
    Snipe,
    Spy,
)
from engine.simulate import pick, try_submit
from engine.state import GameState

_RARE: dict[type, float] = {Fireworks: 0.1, Assassinate: 0.15, Snipe: 0.4}


def random_night(state: GameState, rng: random.Random, act_p: float, late_p: float) -> Night:
    """Every one-target skill in a random order (the rare ones rarely), an arrow, an occasional 撕票."""
    night = Night(state.round)
    kinds: list[type] = [Kill, Snipe, Fireworks, Spy, Kidnap, Check, Heal, Hug, Assassinate]
    rng.shuffle(kinds)
    for cls in kinds:
        p = _RARE.get(cls, act_p)
        if rng.random() >= p:
            continue
        act = pick(state, rng, cls, night)
        if act is not None:
            night = try_submit(state, night, act, rng, late_p)
    living = state.living()
    if rng.random() < 0.2 and len(living) >= 2:
        a, b = rng.sample(living, 2)
        night = try_submit(state, night, Arrow(a, b), rng, late_p)
    if rng.random() < 0.1:
        night = try_submit(state, night, KillHostages(), rng, late_p)
    return night


def random_day_decisions(
    state: GameState, rng: random.Random, chosen: str | None, living: list[str]
) -> tuple[str | None, frozenset[str] | None, list[str], list[str]]:
    """An occasional 威权 tie-break and an occasional red card."""
    tied: frozenset[str] | None = None
    reds: list[str] = []
    if chosen is not None and len(living) >= 3 and rng.random() < 0.2:
        tied = frozenset(rng.sample(living, 2))  # chosen plays the 威权 holder's target
    if rng.random() < 0.05 and living:
        reds = [rng.choice(living)]
        # not the one the vote puts out: the chosen role, or his lover who goes instead (a red card
        # needs a living role)
        lover_swap = state.lovers is not None and chosen in state.lovers
        if reds[0] == chosen or (lover_swap and state.lovers is not None and reds[0] in state.lovers):
            reds = []
    return chosen, tied, [], reds
