"""The whole example game 【夜宵杀】 played by the runner on the living example board (shared by the
whole-game, crash and board-down tests)."""

from __future__ import annotations

import json
import sqlite3
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from forumbot.client import BoardClient
from forumbot.config import Game
from forumbot.desk import Desk
from forumbot.exampleboard.model import Scenario, load_scenario, scenario_from_dict
from forumbot.exampleboard.server import LiveBoard
from forumbot.outbox import ItemKind
from forumbot.resources import data_dir
from forumbot.runner.fastplay import FastClock, example_game, example_roles, play
from forumbot.runner.steps import BoardSteps
from forumbot.runner.tick import Runner
from forumbot.store.db import Store, open_store
from forumbot.store.models import GameStateRow, MomentRow, NightSubmissionRow, OutboxItemRow

GAME_DIR = data_dir() / "examples" / "yexiao"
SCENARIO: Scenario = load_scenario(GAME_DIR / "scenario.toml")
EXPECTED: dict[str, Any] = tomllib.loads((GAME_DIR / "expected.toml").read_text("utf-8"))
START = datetime(2026, 6, 3, 0, 0, tzinfo=UTC)  # 6/3 08:00 Beijing: before night 1's deadline
UNTIL = datetime(2026, 6, 7, tzinfo=UTC)
ALL_KINDS = [k.value for k in ItemKind]  # the test approves everything the runner drafts


@dataclass
class Played:
    game: Game
    store: Store
    steps: BoardSteps
    runner: Runner
    clock: FastClock


def open_runner(
    board_url: str,
    db: Path,
    clock: FastClock,
    *,
    setup: bool = True,
    roles: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
    uids: bool = False,
) -> Played:
    """The runner of 【夜宵杀】 on a board, with a store at ``db``; the judge's draw stored first.

    ``roles`` changes cards of the draw (a variant of the game: e.g. 麻花 dealt the police card);
    ``flags`` sets ``[flags]`` of the game file; ``uids``: the file names every player's uid
    (``[outbox.uids]``), for a private message to one who has not posted yet."""
    game = example_game("yexiao", board_url, str(db), auto_approve=ALL_KINDS)
    if flags:
        game = replace(game, flags={**game.flags, **flags})
    if uids:
        known = {u.name: u.uid for u in SCENARIO.users.values() if u.name in game.roster}
        game = replace(game, outbox={**game.outbox, "uids": known})
    store = open_store(game.store_url)
    if setup and Desk(game, store, by="法官大人").state() is None:
        Desk(game, store, by="法官大人").setup(roles=example_roles("yexiao") | dict(roles or {}))
    steps = BoardSteps(game, store, client=BoardClient(game.board, now=clock), clock=clock)
    steps.outbox.sleep = lambda _s: None
    runner = Runner(store, steps, clock=clock, log=lambda _line: None)
    return Played(game, store, steps, runner, clock)


def board(clock: FastClock, scenario: Scenario = SCENARIO) -> LiveBoard:
    b = LiveBoard(scenario, now=clock.now)
    b.follow(clock)
    return b


@dataclass(frozen=True)
class Finished:
    """【夜宵杀】 played to its end by the runner (as in test_yexiao_game): the store it left (closed) and
    the board it played on (still serving, with every post and PM the judge's account wrote)."""

    db: Path
    board: LiveBoard
    end: datetime  # the fast clock's last instant


@contextmanager
def play_to_the_end(folder: Path) -> Iterator[Finished]:
    """Play the whole game once, from START to UNTIL with a tick at every instant the board changes.

    Why shared: the game takes seconds to play and several modules only read what it left; each gets a
    copy of the finished store (:func:`copy_of`), so what one module writes never reaches another."""
    clock = FastClock(START)
    with board(clock) as b:
        p = open_runner(b.url, folder / "game.db", clock)
        play(p.runner, clock, until=UNTIL, board_moments=SCENARIO.moments())
        p.store.close()
        yield Finished(folder / "game.db", b, clock.now)


def copy_of(finished: Finished, db: Path) -> Played:
    """The runner of the finished game over a copy of its store at ``db`` (nothing played again): the
    same game file, board and last instant, so the store reads as right after the last tick."""
    src, dst = sqlite3.connect(finished.db), sqlite3.connect(db)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    return open_runner(finished.board.url, db, FastClock(finished.end))


def variant(
    *posts: Mapping[str, Any], pms: Sequence[Mapping[str, Any]] = (), moved: Mapping[int, str] | None = None
) -> Scenario:
    """【夜宵杀】's story with more posts and PMs (same fields as scenario.toml; pids from 900 on, so
    the story's own keep theirs); ``moved``: pid → another time for one of the story's posts."""
    raw = tomllib.loads((GAME_DIR / "scenario.toml").read_text("utf-8"))
    for post in raw["posts"]:
        post["at"] = (moved or {}).get(post["pid"], post["at"])
    raw["posts"] = [*raw["posts"], *(dict(p) for p in posts)]
    raw["pms"] = [*raw["pms"], *(dict(m) for m in pms)]
    return scenario_from_dict(raw, "yexiao variant")


def snapshot(store: Store) -> dict[str, Any]:
    """What a finished game leaves in the store, without ids and wall-clock times."""
    with store.session() as s:
        states = [
            (r.label, r.state_json) for r in s.exec(select(GameStateRow).order_by(col(GameStateRow.id))).all()
        ]
        moments = sorted((r.key, r.status, _result(r.result_json)) for r in s.exec(select(MomentRow)).all())
        subs = sorted(
            (r.night, r.action_json, r.submitted_at.isoformat(), r.withdrawn)
            for r in s.exec(select(NightSubmissionRow)).all()
        )
        items = sorted(
            (r.moment_key, r.kind, r.status, r.body, json.dumps(r.uids), r.player)
            for r in s.exec(select(OutboxItemRow)).all()
        )
    return {"states": states, "moments": moments, "submissions": subs, "outbox": items}


def _result(raw: str) -> str:
    """A moment's result without what depends on how often it ran (how many rows this run added)."""
    data = json.loads(raw or "{}")
    data.pop("stored", None)
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


__all__ = [
    "EXPECTED",
    "SCENARIO",
    "START",
    "UNTIL",
    "Finished",
    "Played",
    "board",
    "copy_of",
    "open_runner",
    "play_to_the_end",
    "snapshot",
    "variant",
]
