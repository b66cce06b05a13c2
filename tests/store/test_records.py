"""The judges' records of a game: the secret state as versions, and an undo as a record of its own
(which version it cancels, which one the game is back at), on every backend. Nothing is deleted."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError

from forumbot.errors import UsageError
from forumbot.store import Store
from forumbot.store.records import ensure_game, load_state, record_undo, save_state, state_history


def _game(store: Store) -> int:
    with store.session() as s:
        gid = ensure_game(s, "美食杀", "R001").id
        s.commit()
    assert gid is not None
    return gid


def test_the_current_state_is_the_latest_version_no_undo_cancelled(store: Store) -> None:
    gid = _game(store)
    with store.session() as s:
        setup = save_state(s, gid, "setup (seed 1)", {"round": 0}, "法官大人")
        night = save_state(s, gid, "night 1", {"round": 1}, "法官大人")
        s.commit()
    with store.session() as s:
        assert load_state(s, gid) == ("night 1", {"round": 1})
        record_undo(s, gid, night, setup, "副法官")
        s.commit()
    with store.session() as s:
        assert load_state(s, gid) == ("setup (seed 1)", {"round": 0})
        history = state_history(s, gid)
    assert [(v.label, v.live, v.undone_by) for v in history] == [
        ("setup (seed 1)", True, None),
        ("night 1", False, "副法官"),
    ]
    assert history[1].undone_at is not None and history[1].by == "法官大人"


def test_a_redo_after_an_undo_is_a_new_version(store: Store) -> None:
    gid = _game(store)
    with store.session() as s:
        setup = save_state(s, gid, "setup (seed 1)", {"round": 0})
        night = save_state(s, gid, "night 1", {"round": 1})
        record_undo(s, gid, night, setup, "法官大人")
        again = save_state(s, gid, "night 1", {"round": 1, "again": True})
        s.commit()
    with store.session() as s:
        assert load_state(s, gid) == ("night 1", {"round": 1, "again": True})
        assert [v.id for v in state_history(s, gid) if v.live] == [setup, again]


def test_a_version_is_undone_at_most_once(store: Store) -> None:
    gid = _game(store)
    with store.session() as s:
        setup = save_state(s, gid, "setup (seed 1)", {"round": 0})
        night = save_state(s, gid, "night 1", {"round": 1})
        record_undo(s, gid, night, setup, "法官大人")
        s.commit()
    with store.session() as s, pytest.raises(IntegrityError):
        record_undo(s, gid, night, setup, "法官大人")
        s.commit()


@pytest.mark.usefixtures("english_messages")  # checked by the English wording (the msgid)
def test_a_game_keeps_its_rule_set(store: Store) -> None:
    _game(store)
    with store.session() as s, pytest.raises(UsageError, match="under rule set R001"):
        ensure_game(s, "美食杀", "R004")
