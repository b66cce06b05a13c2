"""Crash-safety: the runner killed at 200+ random instants of the whole 【夜宵杀】 game, restarted each time,
ends with exactly the store of an uninterrupted run (issue 10: no moment skipped or done twice, no post
doubled, no night resolved twice, no state version lost).

Each runner is a forked child (forked after the imports, so a restart costs milliseconds, not an
interpreter start). The child dies by ``os._exit`` right before its Nth SQL commit — no cleanup, no
flush, as under ``kill -9`` — through the ``FORUMBOT_CRASH_AT`` checkpoint (forumbot.runner.fastplay).
The example board lives in the parent, so what the judge's account posted survives every death; its
clock follows the child's fast clock through a file the child writes before each tick (a restarted
child resumes at the instant it died in). The kill points are drawn by a seeded RNG.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from forumbot.exampleboard.server import LiveBoard
from forumbot.runner.fastplay import (
    CRASH_ENV,
    CRASH_EXIT,
    FastClock,
    count_commits,
    install_crash_point,
    play,
)
from tests.runner.yexiao import SCENARIO, START, UNTIL, open_runner, snapshot

KILLS = 200
TOP = 40  # the largest kill point (in commits) of one runner's life
SEED = 20260603

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the crash test forks its runners")


def _clock_file_reader(path: Path) -> Callable[[], datetime]:
    def now() -> datetime:
        try:
            return datetime.fromisoformat(path.read_text())
        except (OSError, ValueError):
            return START

    return now


def _save(path: Path) -> Callable[[datetime], None]:
    def save(t: datetime) -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(t.isoformat())
        os.replace(tmp, path)

    return save


def _runner_child(
    board_url: str, db: Path, clock_file: Path, kill_at: int | None, commits_file: Path
) -> None:
    """The body of one forked runner: resume at the saved instant and play on (never returns)."""
    code = 0
    try:
        if kill_at is not None:
            install_crash_point({CRASH_ENV: str(kill_at)})
        counted = count_commits()
        clock = FastClock(_clock_file_reader(clock_file)())
        p = open_runner(board_url, db, clock)
        play(p.runner, clock, until=UNTIL, save_clock=_save(clock_file))
        commits_file.write_text(str(counted()))
    except BaseException as exc:  # a failure, not a planned death: say so to the parent
        commits_file.write_text(f"error: {type(exc).__name__}: {exc}")
        code = 3
    os._exit(code)


def _fork(board_url: str, db: Path, clock_file: Path, kill_at: int | None, commits_file: Path) -> int:
    pid = os.fork()
    if pid == 0:
        _runner_child(board_url, db, clock_file, kill_at, commits_file)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _game(
    tmp: Path, name: str, kill_at: Callable[[], int] | None
) -> tuple[dict[str, Any], LiveBoard, list[datetime], int]:
    """Play the game in forked runners, each killed before its ``kill_at()``-th commit, until one runs
    to the end (without ``kill_at``: one uninterrupted runner). Returns (the store's snapshot, the board,
    the fake instant of each death, the commits of the last run)."""
    folder = tmp / name
    folder.mkdir()
    db, clock_file, commits_file = folder / "game.db", folder / "clock", folder / "commits"
    read_clock = _clock_file_reader(clock_file)
    b = LiveBoard(SCENARIO, now=START)
    b.follow(read_clock)
    deaths: list[datetime] = []
    with b:
        url = b.url
        while kill_at is not None and len(deaths) < 5000:
            code = _fork(url, db, clock_file, kill_at(), commits_file)
            if code == 0:
                break
            assert code == CRASH_EXIT, commits_file.read_text() if commits_file.exists() else code
            deaths.append(read_clock())
        else:
            code = _fork(url, db, clock_file, None, commits_file)
        assert code == 0, commits_file.read_text()
        from forumbot.store.db import open_store

        with open_store(f"sqlite:///{db}") as store:
            snap = snapshot(store)
    text = json.dumps(snap, ensure_ascii=False).replace(url, "BOARD/")
    b.base_url = url  # type: ignore[attr-defined]  # kept for _written after the board stopped
    return json.loads(text), b, deaths, int(commits_file.read_text())


def test_a_runner_killed_at_200_random_instants_ends_like_an_uninterrupted_one(tmp_path: Path) -> None:
    started = time.monotonic()
    calm, calm_board, _, total = _game(tmp_path, "calm", None)
    rng = random.Random(SEED)
    # Each restarted runner dies before a random commit between 1 and TOP: a restart costs about 20
    # commits (the ledger's sync, the tick's read), so a runner often dies before it gets anywhere and
    # sometimes gets a moment further. One crashed game has about 40 deaths: the game is played again,
    # crashed anew, until 200 deaths are reached; each ends with exactly the calm run's store and board.
    deaths: list[datetime] = []
    games = 0
    while len(deaths) < KILLS:
        games += 1
        crashed, crashed_board, died, _ = _game(tmp_path, f"crashed{games}", lambda: rng.randint(1, TOP))
        deaths += died
        assert crashed["states"] == calm["states"]  # every version, once, in order: no night resolved twice
        for got, want in zip(crashed["moments"], calm["moments"], strict=True):
            assert got == want  # every moment done, with the same result
        assert all(status == "done" for _, status, _ in crashed["moments"])
        assert crashed["submissions"] == calm["submissions"]
        assert crashed["outbox"] == calm["outbox"]
        assert all(item[2] == "sent" for item in crashed["outbox"])
        # on the board: every post and PM the judge's account wrote, exactly once
        assert _written(crashed_board) == _written(calm_board)
        assert len(calm_board.writer.posts) + len(calm_board.writer.pms) == len(calm["outbox"])
    elapsed = time.monotonic() - started
    instants = sorted(set(deaths))
    print(
        f"\ncrash test: {len(deaths)} kills in {games} crashed games, at {len(instants)} instants "
        f"({instants[0]:%m-%d %H:%M} … {instants[-1]:%m-%d %H:%M} UTC), "
        f"{total} commits in the calm run, {elapsed:.1f} s"
    )
    # deaths at every instant the runner ticks: each moment of the game was interrupted somewhere
    assert len(instants) >= len(calm["moments"])


def _written(b: LiveBoard) -> list[tuple[str, int, str]]:
    """What the judge's account wrote on the board (posts by thread, PMs by recipient), links normalised."""
    url: str = b.base_url  # type: ignore[attr-defined]
    posts = [("post", w.tid, w.text.replace(url, "BOARD/")) for w in b.writer.posts]
    pms = [("pm", m.to_uid, m.text) for m in b.writer.pms]
    return sorted(posts + pms)
