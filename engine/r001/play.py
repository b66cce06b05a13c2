"""Random legal play for the r001 family (engine.simulate): a night's submissions, a day's decisions."""

from __future__ import annotations

import random

from engine.actions import Check, Kill, Night, Protect
from engine.eliminations import double_kill_pair
from engine.r001.guardians import GUARDIAN_ROLES
from engine.r001.night import bandit_group
from engine.roles import RoleId
from engine.simulate import pick, try_submit
from engine.state import GameState


def random_night(state: GameState, rng: random.Random, act_p: float, late_p: float) -> Night:
    """The bandits' kill (with pledge and an occasional possession), the police check, each protection."""
    night = Night(state.round)
    bandits = bandit_group(state)
    if bandits and rng.random() < act_p:
        victim = rng.choice(state.living())
        pledge = rng.choice(bandits) if state.with_role(RoleId.POISON) else None
        possess = None
        ghost = state.with_role(RoleId.GHOST, alive=True)
        if ghost and not state.possession_used and rng.random() < 0.3:
            cands = [n for n in state.living() if n != victim and not state.is_bandit(n)]
            possess = rng.choice(cands) if cands else None
        night = try_submit(
            state, night, Kill(victim, pledge=pledge, possess=possess, text="线文"), rng, late_p
        )
    act = pick(state, rng, Check, night)
    if act is not None and rng.random() < act_p:
        night = try_submit(state, night, act, rng, late_p)
    for g in [p.name for p in state.players if p.role in GUARDIAN_ROLES and p.alive]:
        if rng.random() < act_p:
            target = rng.choice(state.living())
            night = try_submit(state, night, Protect(g, target), rng, late_p)
    return night


def random_day_decisions(
    state: GameState, rng: random.Random, chosen: str | None, living: list[str]
) -> tuple[str | None, frozenset[str] | None, list[str], list[str]]:
    """An occasional double kill (AMB-40) and an occasional drowning."""
    tied: frozenset[str] | None = None
    drowned: list[str] = []
    pair = double_kill_pair(state, state.round)
    if pair is not None and rng.random() < 0.3:
        chosen, tied = None, frozenset(pair)
    if rng.random() < 0.1 and living:
        drowned = [rng.choice(living)]
    return chosen, tied, drowned, []
