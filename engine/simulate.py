"""Random legal play, for property tests, the benchmark and rehearsals. Draws only from the given rng.

:func:`random_night` builds a :class:`~engine.actions.Night` of legal submissions (each checked with
:func:`engine.night.check`), sometimes late or missing; :func:`random_day` resolves a day with a random
vote outcome. Neither touches the global random module.
"""

from __future__ import annotations

import random

from engine import eliminations
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
    NightAction,
    Protect,
    Snipe,
    Spy,
)
from engine.errors import IllegalActionError
from engine.events import Resolution
from engine.guardians import GUARDIAN_ROLES
from engine.night import is_legal, submit
from engine.night_r001 import bandit_group
from engine.roles import RoleId
from engine.state import GameState


def _try(state: GameState, night: Night, action: NightAction, rng: random.Random, late_p: float) -> Night:
    try:
        return submit(state, night, action, late=rng.random() < late_p)
    except IllegalActionError:
        return night


def _pick(
    state: GameState, rng: random.Random, build: type | None, night: Night, tries: int = 4
) -> NightAction | None:
    living = state.living()
    if build is None or not living:
        return None
    for _ in range(tries):
        action: NightAction = build(rng.choice(living))
        if is_legal(state, action, night=night):
            return action
    return None


_RARE: dict[type, float] = {Fireworks: 0.1, Assassinate: 0.15, Snipe: 0.4}


def random_night(state: GameState, rng: random.Random, *, act_p: float = 0.8, late_p: float = 0.05) -> Night:
    """A night of random legal submissions for ``state`` (each kind submitted with probability act_p)."""
    night = Night(state.round)
    if state.family == "r001":
        bandits = bandit_group(state)
        if bandits and rng.random() < act_p:
            victim = rng.choice(state.living())
            pledge = rng.choice(bandits) if state.with_role(RoleId.POISON) else None
            possess = None
            ghost = state.with_role(RoleId.GHOST, alive=True)
            if ghost and not state.possession_used and rng.random() < 0.3:
                cands = [n for n in state.living() if n != victim and not state.is_bandit(n)]
                possess = rng.choice(cands) if cands else None
            night = _try(state, night, Kill(victim, pledge=pledge, possess=possess, text="线文"), rng, late_p)
        act = _pick(state, rng, Check, night)
        if act is not None and rng.random() < act_p:
            night = _try(state, night, act, rng, late_p)
        for g in [p.name for p in state.players if p.role in GUARDIAN_ROLES and p.alive]:
            if rng.random() < act_p:
                target = rng.choice(state.living())
                night = _try(state, night, Protect(g, target), rng, late_p)
        return night
    kinds: list[type] = [Kill, Snipe, Fireworks, Spy, Kidnap, Check, Heal, Hug, Assassinate]
    rng.shuffle(kinds)
    for cls in kinds:
        p = _RARE.get(cls, act_p)
        if rng.random() >= p:
            continue
        act = _pick(state, rng, cls, night)
        if act is not None:
            night = _try(state, night, act, rng, late_p)
    living = state.living()
    if rng.random() < 0.2 and len(living) >= 2:
        a, b = rng.sample(living, 2)
        night = _try(state, night, Arrow(a, b), rng, late_p)
    if rng.random() < 0.1:
        night = _try(state, night, KillHostages(), rng, late_p)
    return night


def random_day(state: GameState, rng: random.Random, *, seed: int | None = None) -> Resolution:
    """Resolve the current day with a random vote result (and, R001, an occasional drowning)."""
    day = state.round
    living = list(state.living())
    chosen = rng.choice(living) if living and rng.random() < 0.8 else None
    tied: frozenset[str] | None = None
    drowned: list[str] = []
    reds: list[str] = []
    if state.family == "r001":
        pair = eliminations.double_kill_pair(state, day)
        if pair is not None and rng.random() < 0.3:
            chosen, tied = None, frozenset(pair)
        if rng.random() < 0.1 and living:
            drowned = [rng.choice(living)]
    else:
        if chosen is not None and len(living) >= 3 and rng.random() < 0.2:
            tied = frozenset(rng.sample(living, 2))  # chosen plays the 威权 holder's target
        if rng.random() < 0.05 and living:
            reds = [rng.choice(living)]
            if reds[0] == chosen:
                reds = []
    res = eliminations.resolve_day(
        state, day=day, executed=chosen, tied=tied, drowned=drowned, red_cards=reds
    )
    st = res.state
    if st.outcome is None and st.authority_pending:
        res2 = eliminations.pass_authority(st, None, seed=rng.randrange(1 << 30) if seed is None else seed)
        return Resolution(res2.state, res.events + res2.events, res.out)
    return res
