"""Random legal play, for property tests, the benchmark and rehearsals. Draws only from the given rng.

:func:`random_night` builds a :class:`~engine.actions.Night` of legal submissions (each checked with
:func:`engine.night.check`), sometimes late or missing; :func:`random_day` resolves a day with a random
vote outcome. Neither touches the global random module. What a random night or day holds is the rule
set's (``RuleSet.random_night`` / ``RuleSet.random_day_decisions``).
"""

from __future__ import annotations

import random

from engine.actions import Night, NightAction
from engine.eliminations import apply_day, pass_authority
from engine.errors import IllegalActionError
from engine.events import Resolution
from engine.night import is_legal, submit
from engine.ruleset import rules_of
from engine.state import GameState


def try_submit(
    state: GameState, night: Night, action: NightAction, rng: random.Random, late_p: float
) -> Night:
    """``night`` with ``action`` submitted (late with probability ``late_p``), unchanged if illegal."""
    try:
        return submit(state, night, action, late=rng.random() < late_p)
    except IllegalActionError:
        return night


def pick(
    state: GameState, rng: random.Random, build: type | None, night: Night, tries: int = 4
) -> NightAction | None:
    """A legal one-target action of class ``build`` naming a random living player (a few tries)."""
    living = state.living()
    if build is None or not living:
        return None
    for _ in range(tries):
        action: NightAction = build(rng.choice(living))
        if is_legal(state, action, night=night):
            return action
    return None


def random_night(state: GameState, rng: random.Random, *, act_p: float = 0.8, late_p: float = 0.05) -> Night:
    """A night of random legal submissions for ``state`` (each kind submitted with probability act_p)."""
    return rules_of(state).random_night(state, rng, act_p, late_p)


def random_day(state: GameState, rng: random.Random, *, seed: int | None = None) -> Resolution:
    """Resolve the current day with a random vote result (and, R001, an occasional drowning)."""
    day = state.round
    living = list(state.living())
    chosen = rng.choice(living) if living and rng.random() < 0.8 else None
    chosen, tied, drowned, reds = rules_of(state).random_day_decisions(state, rng, chosen, living)
    res = apply_day(state, day=day, executed=chosen, tied=tied, drowned=drowned, red_cards=reds)
    st = res.state
    if st.outcome is None and st.authority_pending:
        res2 = pass_authority(st, None, seed=rng.randrange(1 << 30) if seed is None else seed)
        return Resolution(res2.state, res.events + res2.events, res.out)
    return res
