"""A judge can undo and replay: every step is recorded as JSON-able data."""

from __future__ import annotations

import json

import pytest

from engine import (
    Check,
    Game,
    IllegalActionError,
    Kill,
    Step,
)
from tests.engine.helpers import make_state


def test_undo_takes_back_the_last_step_and_replay_rebuilds_the_game() -> None:
    game = Game(make_state("R001", "S12"))
    game.submit(Kill("Cole", pledge="Ken", text="线文"))
    game.submit(Check("Cid"))
    events = game.resolve_night()
    assert any(e.text == "死者：Cole\n线文" for e in events)
    game.execute("Cruz")
    assert not game.state.is_alive("Cruz")
    step = game.undo()
    assert step.op == "resolve_execution" and game.state.is_alive("Cruz")
    game.execute("Ken")
    game.close_day()
    saved = json.loads(json.dumps(game.to_dict(), ensure_ascii=False))
    again = Game.from_dict(saved)
    assert again.state == game.state
    assert [s.op for s in again.steps] == [
        "submit",
        "submit",
        "resolve_night",
        "resolve_execution",
        "close_day",
    ]


def test_a_refused_step_is_not_recorded() -> None:
    game = Game(make_state("R001", "S12"))
    with pytest.raises(IllegalActionError):
        game.submit(Kill("Cole", pledge="Cal"))
    assert game.steps == [] and game.night.submissions == ()
    with pytest.raises(IndexError):
        game.undo()


def test_undo_restores_the_pending_night() -> None:
    game = Game(make_state("R001", "S12"))
    game.submit(Kill("Cole", pledge="Ken"))
    game.submit(Kill("Cid", pledge="Ken"))
    assert game.night.on_time(Kill.kind) == Kill("Cid", pledge="Ken")
    game.undo()
    assert game.night.on_time(Kill.kind) == Kill("Cole", pledge="Ken")


def test_replay_of_an_edited_history() -> None:
    game = Game(make_state("R001", "S12"))
    game.submit(Kill("Cole", pledge="Ken"))
    game.resolve_night()
    steps = list(game.steps)
    steps[0] = Step("submit", {"action": {"kind": "kill", "victim": "Cid", "pledge": "Ken"}, "late": False})
    fixed = Game.replay(game.initial, steps)
    assert fixed.state.is_alive("Cole") and not fixed.state.is_alive("Cid")
