"""Who plays when the game file lists no players: the confirmed sign-up's list (desk/signup.py confirms it).

Why its own module: the desk's core reads the roster at every opening, the outbox and the web desk
too, while the sign-up's steps build on the desk's setup (and so on its core); kept here, the roster
lookup depends on the store alone and no module imports its importer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from forumbot.config import Game
from forumbot.store import records
from forumbot.store.db import Store

SIGNUP_CONFIRMED = "signup_confirmed"


@dataclass(frozen=True)
class ConfirmedSignup:
    """The lists a judge (or auto_confirm) accepted: who plays, the substitutes, their uids."""

    players: tuple[str, ...]
    substitutes: tuple[str, ...]
    uids: Mapping[str, int]
    by: str
    at: datetime
    why: str


def confirmed_signup(store: Store, gid: int) -> ConfirmedSignup | None:
    """The latest confirmed sign-up of game ``gid``, or None."""
    with store.session() as s:
        found = records.decisions_for(s, gid, SIGNUP_CONFIRMED)
    if not found:
        return None
    d = found[-1]
    return ConfirmedSignup(
        tuple(d.detail.get("players", ())),
        tuple(d.detail.get("substitutes", ())),
        {str(k): int(v) for k, v in d.detail.get("uids", {}).items()},
        d.by,
        d.at,
        d.why,
    )


def signed_up_game(game: Game, store: Store, gid: int) -> Game:
    """``game`` with the confirmed sign-up as its roster when the file lists none (the players play with
    the accounts they signed up with); ``game`` itself otherwise."""
    if game.signup is None or game.roster:
        return game
    conf = confirmed_signup(store, gid)
    return game if conf is None else replace(game, roster=conf.players)


def with_signup_roster(game: Game, store: Store) -> Game:
    """:func:`signed_up_game` for a caller without a desk (the outbox, the web desk): the game's records
    are found by its name and rule set."""
    if game.signup is None or game.roster:
        return game
    with store.session() as s:
        gid = records.find_game(s, game.name, game.ruleset)
    return game if gid is None else signed_up_game(game, store, gid)
