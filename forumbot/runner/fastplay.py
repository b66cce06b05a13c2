"""Playing a game on a fast clock: the runner's own code (plan, ledger, tick, the real steps) driven by a
clock that jumps from one instant to the next, for ``forumbot demo`` and the whole-game tests.

The clock jumps to the next instant that matters: the next moment of the plan not done yet, or (with
``board_moments``) the next instant the example board changes, so every incremental read between two
deadlines happens too. Nothing else differs from ``forumbot run``: the same :class:`Runner`, the same
:class:`BoardSteps`, the same store.

The crash checkpoint (:func:`install_crash_point`) is how the crash test kills a runner at a chosen
instant: with ``FORUMBOT_CRASH_AT=N`` in the environment, the process exits at once (``os._exit``, as
``kill -9`` would: no cleanup, no flush) right before its Nth SQL commit.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from forumbot.config import Game, game_from_dict
from forumbot.resources import data_dir
from forumbot.runner.tick import Runner, TickReport

CRASH_ENV = "FORUMBOT_CRASH_AT"
CRASH_EXIT = 137  # what a shell reports for a process killed by SIGKILL


@dataclass
class FastClock:
    """A settable clock (UTC) the runner, the outbox and the example board all read."""

    now: datetime

    def __call__(self) -> datetime:
        return self.now


def example_game(
    name: str,
    board_url: str,
    store: str,
    *,
    auto_approve: Iterable[str] = (),
    password: str | None = "demo",
    overlay: str | None = None,
) -> Game:
    """A bundled example game (data/examples/NAME/game.toml) pointed at a local board and a store, with
    the example board's judge password (the file names only the environment variable). ``overlay``: a
    TOML file beside it whose tables replace the game file's (``signup.toml``: the game from its sign-up
    thread; with a [signup] and no [players], game.toml's roster is left out: the sign-up gives it)."""
    folder = data_dir() / "examples" / name
    data: dict[str, Any] = tomllib.loads((folder / "game.toml").read_text("utf-8"))
    if overlay is not None:
        extra = tomllib.loads((folder / overlay).read_text("utf-8"))
        if "signup" in extra and "players" not in extra:
            data.pop("players", None)
        data.update(extra)
    data["board"]["url"] = board_url
    data["board"]["min_interval"] = 0.0  # a local board: no politeness pause, no retries
    data["board"]["retries"] = 0
    data["game"]["store"] = store
    outbox = dict(data.get("outbox", {}))
    if auto_approve:
        outbox["auto_approve"] = sorted(set(auto_approve))
    outbox.setdefault("pm_interval", 0)
    data["outbox"] = outbox
    game = game_from_dict(data)
    if password is not None and not game.board.password:
        game = replace(game, board=replace(game.board, password=password))
    return game


def example_roles(name: str) -> dict[str, str]:
    path: Path = data_dir() / "examples" / name / "roles.toml"
    roles: dict[str, str] = tomllib.loads(path.read_text("utf-8"))["roles"]
    return roles


def next_instant(runner: Runner, now: datetime, board_moments: Iterable[datetime] = ()) -> datetime | None:
    """The next instant after ``now`` at which something is due or the board changes (None: nothing)."""
    done = runner.done_keys()
    found = [m.at for m in runner.steps.plan() if m.key not in done and m.at > now]
    found += [t for t in board_moments if t > now]
    return min(found) if found else None


RETRY = timedelta(minutes=1)  # more than the outbox's in-flight grace (the board's timeout + 30 s)


def play(
    runner: Runner,
    clock: FastClock,
    *,
    until: datetime,
    board_moments: Iterable[datetime] = (),
    settle: timedelta = timedelta(minutes=10),
    on_tick: Callable[[TickReport], None] | None = None,
    save_clock: Callable[[datetime], None] | None = None,
) -> list[TickReport]:
    """Tick at every instant that matters until nothing is left before ``until``; then keep ticking
    every ``settle`` (at most a few times) while the outbox still holds approved or unclear items.

    ``save_clock`` is called with each instant before its tick (the crash test keeps the clock in a
    file, so a restarted runner resumes at the instant it died in)."""
    instants = sorted(set(board_moments))
    reports: list[TickReport] = []
    retries = 0
    while True:
        if save_clock is not None:
            save_clock(clock.now)
        report = runner.tick()
        reports.append(report)
        if on_tick is not None:
            on_tick(report)
        nxt = next_instant(runner, clock.now, instants)
        if pending_outbox(runner) and retries < 3:
            # Something is still to send (an item a killed runner left ``sending`` is busy for the
            # outbox's grace): tick again a minute later, as ``run --every`` would, rather than leave
            # it until the next moment (its post would land after the players' posts of the hour).
            retries += 1
            nxt = clock.now + RETRY if nxt is None else min(nxt, clock.now + RETRY)
        else:
            retries = 0
        if nxt is None or nxt > until:
            break
        clock.now = nxt
    for _ in range(6):
        if not pending_outbox(runner):
            break
        clock.now += settle
        if save_clock is not None:
            save_clock(clock.now)
        reports.append(runner.tick())
    return reports


def pending_outbox(runner: Runner) -> bool:
    outbox = getattr(runner.steps, "outbox", None)
    return bool(outbox is not None and outbox.items(["approved", "unknown", "sending"]))


def install_crash_point(env: dict[str, str] | None = None) -> int | None:
    """With ``FORUMBOT_CRASH_AT=N``: exit at once right before this process's Nth SQL commit.

    Returns N (None when the variable is unset). A test hook: a judge never sets it."""
    raw = (env if env is not None else os.environ).get(CRASH_ENV, "").strip()
    if not raw:
        return None
    limit = int(raw)
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    count = [0]

    def before_commit(conn: object) -> None:
        count[0] += 1
        if count[0] >= limit:
            os._exit(CRASH_EXIT)

    event.listen(Engine, "commit", before_commit)
    return limit


def count_commits() -> Callable[[], int]:
    """Count this process's SQL commits from now on (the crash test sizes its kill points with it)."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    count = [0]

    def on_commit(conn: object) -> None:
        count[0] += 1

    event.listen(Engine, "commit", on_commit)
    return lambda: count[0]
