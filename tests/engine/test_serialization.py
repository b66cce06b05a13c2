"""GameState, actions and nights round-trip through JSON-able dicts (the store persists them as JSON)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Arrow,
    Check,
    GameState,
    Kill,
    KillHostages,
    Night,
    NightAction,
    NightFlags,
    Protect,
    Snipe,
    StateError,
    Submission,
    action_from_dict,
    action_to_dict,
    event_from_dict,
    event_to_dict,
    flags_from_dict,
    flags_to_dict,
    night_from_dict,
    night_to_dict,
    random_day,
    random_night,
    resolve_night,
    state_from_dict,
    state_to_dict,
)
from tests.engine.helpers import make_state

name = st.text(min_size=1, max_size=6).map(str.strip).filter(bool)


def _json(data: object) -> Any:
    return json.loads(json.dumps(data, ensure_ascii=False))


@given(
    st.one_of(
        st.builds(
            Kill, victim=st.none() | name, pledge=st.none() | name, possess=st.none() | name, text=st.text()
        ),
        st.builds(Check, target=name, by=st.none() | name),
        st.builds(Protect, guardian=name, target=st.none() | name),
        st.builds(Snipe, target=name),
        st.builds(KillHostages, order=st.none() | st.lists(name, max_size=3).map(tuple)),
        st.builds(Arrow, first=name, second=name),
    )
)
def test_actions_round_trip_through_json(action: NightAction) -> None:
    data = action_to_dict(action)
    assert action_from_dict(_json(data)) == action


def test_night_round_trip_keeps_lateness_and_order() -> None:
    night = Night(3, (Submission(Kill("Cid", pledge="Ken"), late=True), Submission(Check("Zoe"))))
    assert night_from_dict(_json(night_to_dict(night))) == night


def test_bad_action_dict_is_refused() -> None:
    with pytest.raises(StateError):
        action_from_dict({"kind": "fly", "target": "x"})
    with pytest.raises(StateError):
        action_from_dict({"kind": "check", "wrong": "x"})


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["R001", "R004", "R000-G2", "R000-G1"]))
def test_state_round_trips_after_random_play(seed: int, ruleset: str) -> None:
    roster = {"R001": "S12", "R004": "B22", "R000-G2": "G12", "R000-G1": "G10"}[ruleset]
    state: GameState = make_state(ruleset, roster)
    rng = random.Random(seed)
    for _ in range(rng.randrange(1, 6)):
        if state.outcome is not None:
            break
        res = resolve_night(state, random_night(state, rng), seed=seed)
        for ev in res.events:
            assert event_from_dict(_json(event_to_dict(ev))).text == ev.text
        state = res.state
        if state.outcome is not None:
            break
        state = random_day(state, rng, seed=seed).state
        data = _json(state_to_dict(state))
        assert state_from_dict(data) == state


def test_state_from_a_foreign_dict_is_refused() -> None:
    data = state_to_dict(make_state("R001", "S12"))
    with pytest.raises(StateError, match="version"):
        state_from_dict({**data, "version": 99})
    with pytest.raises(StateError, match="format"):
        state_from_dict({**data, "format": "x"})


def test_flags_round_trip_and_unknown_flag_is_refused() -> None:
    flags = NightFlags(r004_alert_causes=("killers",), r001_simultaneous_a_and_b="police")
    assert flags_from_dict(_json(flags_to_dict(flags))) == flags
    with pytest.raises(StateError, match="unknown"):
        flags_from_dict({"r004_typo": 1})
    with pytest.raises(StateError, match="not one of"):
        NightFlags(r004_empty_heal_counter="per_week")
