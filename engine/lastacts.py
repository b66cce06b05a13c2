"""The generic "on death, the role may act" hook: armed submissions.

A night word with ``armed=True`` (engine/vocab.py; e.g. a variant's 猎人 who names, each night, whom he
shoots if he goes out) is not resolved with the night: :func:`split_night` takes it out of the night the
rule set resolves and :func:`arm` keeps it in ``GameState.armed`` (holder → action), the latest on-time
one replacing the earlier. Whenever a core resolution puts players out (the night's resolution, the
day's execution and the day's later steps), :func:`fire_armed` hands each one who holds an armed action
to the rule set (:meth:`engine.ruleset.RuleSet.resolve_armed`), in the order they went out, and again
for anyone that puts out; the rule set decides from the holder's cause whether it fires (a 猎人 shot
dead at night or executed) and says so in its events.

Pure: state in, :class:`~engine.events.Resolution` out.
"""

from __future__ import annotations

from dataclasses import replace

from engine.actions import Night, NightAction, Submission, action_from_dict, action_to_dict
from engine.events import Event, Resolution
from engine.gameover import game_over_events
from engine.ruleset import evaluate_outcome, rules_of
from engine.state import GameState, Phase, frozen_map


def armed_kinds(state: GameState) -> frozenset[str]:
    return frozenset(w.kind for w in rules_of(state).night_words if w.armed)


def split_night(state: GameState, night: Night) -> tuple[Night, tuple[Submission, ...]]:
    """(the night without armed submissions, the armed ones)."""
    kinds = armed_kinds(state)
    if not kinds:
        return night, ()
    rest = tuple(s for s in night.submissions if s.action.kind not in kinds)
    armed = tuple(s for s in night.submissions if s.action.kind in kinds)
    return Night(night.round, rest), armed


def holder_of(state: GameState, action: NightAction) -> str | None:
    word = rules_of(state).night_word(action.kind)
    name = getattr(action, word.actor, None)
    return name if isinstance(name, str) else None


def arm(state: GameState, submissions: tuple[Submission, ...]) -> GameState:
    """Keep each on-time armed submission of a living holder (a late one is forfeited: not kept)."""
    if not submissions:
        return state
    armed = {k: dict(v) for k, v in state.armed.items()}
    for sub in submissions:
        holder = holder_of(state, sub.action)
        if sub.late or holder is None or not state.is_alive(holder):
            continue
        armed[holder] = action_to_dict(sub.action)
    return replace(state, armed=frozen_map(armed))


def fire_armed(res: Resolution, *, check_win: bool) -> Resolution:
    """Resolve the armed action of every player ``res`` put out (and of those that puts out).

    ``check_win``: the caller's resolution already ran its win check (a night's batch check), so one
    is run again when an armed action put someone out."""
    state = res.state
    events: list[Event] = list(res.events)
    out: list[str] = list(res.out)
    queue = [name for name in res.out if name in state.armed]
    fired = False
    while queue and state.outcome is None:
        holder = queue.pop(0)
        data = state.armed.get(holder)
        if data is None:
            continue
        state = replace(state, armed=frozen_map({k: v for k, v in state.armed.items() if k != holder}))
        step = rules_of(state).resolve_armed(state, holder, action_from_dict(data))
        state = step.state
        events += step.events
        out += step.out
        fired = fired or bool(step.out)
        queue += [name for name in step.out if name in state.armed]
    if fired and check_win and state.outcome is None:
        found = evaluate_outcome(state)
        if found is not None:
            state = replace(state, outcome=found, phase=Phase.OVER)
            events += game_over_events(state)
    return Resolution(state, tuple(events), tuple(out))
