"""Crash-safety: the runner killed at 100+ random instants of the whole 【夜宵杀】 game, restarted each time,
ends with exactly the store of an uninterrupted run (issue 10: no moment skipped or done twice, no post
doubled, no night resolved twice, no state version lost).

Each runner is a forked child (forked after the imports, so a restart costs milliseconds, not an
interpreter start). The child dies by ``os._exit`` right before its Nth SQL commit — no cleanup, no
flush, as under ``kill -9`` — through the ``FORUMBOT_CRASH_AT`` checkpoint (forumbot.runner.fastplay).
The example board lives in the parent, so what the judge's account posted survives every death; its
clock follows the child's fast clock through a file the child writes before each tick (a restarted
child resumes at the instant it died in). The kill points are drawn by a seeded RNG in rounds: each
round of TOP lives uses every kill point 1..TOP once, in a shuffled order, so every kill point is a
death (the test checks it) and the game is interrupted at every instant it ticks.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from forumbot.exampleboard.model import Scenario
from forumbot.exampleboard.server import LiveBoard
from forumbot.runner.fastplay import (
    CRASH_ENV,
    CRASH_EXIT,
    FastClock,
    count_commits,
    install_crash_point,
    play,
)
from tests.runner.yexiao import SCENARIO, START, UNTIL, open_runner, snapshot, variant

# 100, not 200 (measured: one crashed game is 50-65 deaths and already dies at every instant the runner
# ticks, 10 instants for 8 moments; games 2-4 of the former 200 added 3 more). With kill points drawn in
# rounds every kill point 1..TOP is a death (checked), most twice; 200 independent draws could miss one.
KILLS = 100
KILLS_OWED = 30
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


@dataclass(frozen=True)
class Story:
    """Which game the runners play: 【夜宵杀】 as written, or a variant (another draw, more posts, flags),
    until when, and whether they also tick at each instant the board changes (needed for a night resolved
    as soon as it is ready)."""

    scenario: Scenario = field(default_factory=lambda: SCENARIO)
    roles: Mapping[str, str] | None = None
    flags: Mapping[str, Any] | None = None
    until: datetime = UNTIL
    board_moments: tuple[datetime, ...] = ()  # instants to tick at besides the plan's moments
    top: int = TOP  # the largest kill point (in commits) of one runner's life


YEXIAO = Story()


def _runner_child(
    board_url: str, db: Path, clock_file: Path, kill_at: int | None, commits_file: Path, story: Story
) -> None:
    """The body of one forked runner: resume at the saved instant and play on (never returns)."""
    code = 0
    try:
        if kill_at is not None:
            install_crash_point({CRASH_ENV: str(kill_at)})
        counted = count_commits()
        clock = FastClock(_clock_file_reader(clock_file)())
        p = open_runner(board_url, db, clock, roles=story.roles, flags=story.flags, uids=story is not YEXIAO)
        play(
            p.runner,
            clock,
            until=story.until,
            board_moments=story.board_moments,
            save_clock=_save(clock_file),
        )
        commits_file.write_text(str(counted()))
    except BaseException as exc:  # a failure, not a planned death: say so to the parent
        commits_file.write_text(f"error: {type(exc).__name__}: {exc}")
        code = 3
    os._exit(code)


def _fork(
    board_url: str, db: Path, clock_file: Path, kill_at: int | None, commits_file: Path, story: Story
) -> int:
    pid = os.fork()
    if pid == 0:
        _runner_child(board_url, db, clock_file, kill_at, commits_file, story)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _game(
    tmp: Path, name: str, kill_at: Callable[[], int] | None, story: Story = YEXIAO
) -> tuple[dict[str, Any], LiveBoard, list[datetime], int]:
    """Play the game in forked runners, each killed before its ``kill_at()``-th commit, until one runs
    to the end (without ``kill_at``: one uninterrupted runner). Returns (the store's snapshot, the board,
    the fake instant of each death, the commits of the last run)."""
    folder = tmp / name
    folder.mkdir()
    db, clock_file, commits_file = folder / "game.db", folder / "clock", folder / "commits"
    read_clock = _clock_file_reader(clock_file)
    b = LiveBoard(story.scenario, now=START)
    b.follow(read_clock)
    deaths: list[datetime] = []
    with b:
        url = b.url
        while kill_at is not None and len(deaths) < 5000:
            code = _fork(url, db, clock_file, kill_at(), commits_file, story)
            if code == 0:
                break
            assert code == CRASH_EXIT, commits_file.read_text() if commits_file.exists() else code
            deaths.append(read_clock())
        else:
            code = _fork(url, db, clock_file, None, commits_file, story)
        assert code == 0, commits_file.read_text()
        from forumbot.store.db import open_store

        with open_store(f"sqlite:///{db}") as store:
            snap = snapshot(store)
    text = json.dumps(snap, ensure_ascii=False).replace(url, "BOARD/")
    b.base_url = url  # type: ignore[attr-defined]  # kept for _written after the board stopped
    return json.loads(text), b, deaths, int(commits_file.read_text())


def test_a_runner_killed_at_100_random_instants_ends_like_an_uninterrupted_one(tmp_path: Path) -> None:
    _, died_at = _crash_and_compare(tmp_path, YEXIAO, KILLS)
    # every kill point of a runner's life was a death, most of them twice or more
    assert set(died_at) == set(range(1, TOP + 1))


# 麻花 dealt the police card (his day-1 execution owes last words, posted at 15:00), 月饼 the poison (the
# police's night-1 check of her grants the extra check, sent at 17:30), and each night resolved as soon as
# it is ready: the moments the game makes owed, and a night resolved early, killed at random instants too.
OWED_SCENARIO = variant(
    {"pid": 900, "tid": 2, "author": "麻花", "at": "2026-06-04 15:00:00", "text": "遗言：月饼是毒药。"},
    {"pid": 901, "tid": 9, "author": "馄饨", "at": "2026-06-03 17:30:00", "text": "验：粽子"},
)
OWED = Story(
    scenario=OWED_SCENARIO,
    roles={"麻花": "警察", "汤圆": "杀手", "月饼": "毒药", "煎饼": "平民"},
    flags={"night_resolve_early": True},
    until=datetime(2026, 6, 4, 10, 0, tzinfo=UTC),  # 6/4 18:00 Beijing: night 2 is over
    # polls while night 1 and night 2 are open (a night resolved early is resolved at a poll)
    board_moments=tuple(
        t
        for t in OWED_SCENARIO.moments()
        if datetime(2026, 6, 3, 7, tzinfo=UTC) <= t < datetime(2026, 6, 3, 9, tzinfo=UTC)
        or datetime(2026, 6, 4, 6, tzinfo=UTC) <= t < datetime(2026, 6, 4, 9, tzinfo=UTC)
    ),
    top=100,  # a poll at every post costs commits: longer lives, so a game is not 200 deaths long
)


def test_the_owed_moments_and_an_early_night_survive_30_random_kills(tmp_path: Path) -> None:
    calm, _ = _crash_and_compare(tmp_path, OWED, KILLS_OWED)
    keys = [key for key, _status, _result in calm["moments"]]
    assert {"night1/extra_check", "day1/lastwords", "night2/deadline"} <= set(keys)
    night2 = next(json.loads(r) for k, _s, r in calm["moments"] if k == "night2/deadline")
    assert "early" in night2  # resolved before 17:00, once the kill and the check were in
    # the 验：粽子 of 6/3 17:30 was night 1's extra check, not night 2's check (that came by PM at 16:45)
    assert "pid:901" not in {v["id"] for v in night2["verdicts"]}
    assert datetime.fromisoformat(night2["early"]) == datetime(2026, 6, 4, 8, 45, tzinfo=UTC)


class _KillPoints:
    """Kill points 1..top drawn in rounds: each round uses every one once, in an order the seeded RNG
    shuffles. Random enough that a runner dies anywhere in its life, and no kill point is left unused the
    way independent draws leave some (200 draws from 1..40 leave one unused about one time in five)."""

    def __init__(self, rng: random.Random, top: int) -> None:
        self.rng, self.top = rng, top
        self.round: list[int] = []
        self.drawn: list[int] = []

    def __call__(self) -> int:
        if not self.round:
            self.round = list(range(1, self.top + 1))
            self.rng.shuffle(self.round)
        self.drawn.append(self.round.pop())
        return self.drawn[-1]


def _crash_and_compare(tmp_path: Path, story: Story, kills: int) -> tuple[dict[str, Any], list[int]]:
    """Crash games until ``kills`` deaths, each compared with the calm run; returns the calm run's
    snapshot and the kill point (the commit of its life) of each runner that died."""
    started = time.monotonic()
    calm, calm_board, _, total = _game(tmp_path, "calm", None, story)
    draw = _KillPoints(random.Random(SEED), story.top)
    died_at: list[int] = []
    # Each restarted runner dies before a random commit between 1 and TOP: a restart costs about 20
    # commits (the ledger's sync, the tick's read), so a runner often dies before it gets anywhere and
    # sometimes gets a moment further. One crashed game has about 40 deaths: the game is played again,
    # crashed anew, until enough deaths are reached; each ends with exactly the calm run's store and board.
    deaths: list[datetime] = []
    games = 0
    while len(deaths) < kills:
        games += 1
        before = len(draw.drawn)
        crashed, crashed_board, died, _ = _game(tmp_path, f"crashed{games}", draw, story)
        deaths += died
        # each draw was a death but the game's last (its runner played to the end)
        assert len(draw.drawn) - before == len(died) + 1
        died_at += draw.drawn[before:-1]
        assert crashed["states"] == calm["states"]  # every version, once, in order: no night resolved twice
        for got, want in zip(crashed["moments"], calm["moments"], strict=True):
            assert got == want  # every moment done, with the same result
        statuses = {status for _, status, _ in crashed["moments"]}
        # all done (a game played to its end), or not begun yet (a story stopped before the end)
        assert statuses == {"done"} if story.until == UNTIL else statuses <= {"done", "pending"}
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
    return calm, died_at


def _written(b: LiveBoard) -> list[tuple[str, int, str]]:
    """What the judge's account wrote on the board (posts by thread, PMs by recipient), links normalised."""
    url: str = b.base_url  # type: ignore[attr-defined]
    posts = [("post", w.tid, w.text.replace(url, "BOARD/")) for w in b.writer.posts]
    pms = [("pm", m.to_uid, m.text) for m in b.writer.pms]
    return sorted(posts + pms)
