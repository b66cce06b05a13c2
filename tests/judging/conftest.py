"""The example board playing an example game (data/examples) behind responses.

``board.use("s2")`` moves the board's clock to the scenario's named moment: a vote is edited and a
discussion post is deleted between s1 and s2.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import responses

from forumbot.config import Game, game_from_dict
from forumbot.exampleboard.model import load_scenario
from forumbot.exampleboard.server import LiveBoard
from forumbot.resources import data_dir

EXAMPLE = data_dir() / "examples" / "meishi"
EXAMPLE_R004 = data_dir() / "examples" / "r004"
BOARD_URL = "https://bbs.example.com/"


@dataclass
class MockBoard:
    board: LiveBoard
    mock: responses.RequestsMock

    def use(self, snapshot: str) -> None:
        self.board.use(snapshot)

    @property
    def calls(self) -> int:
        return len(self.mock.calls)


@contextmanager
def mocked(example: Path) -> Iterator[MockBoard]:
    """The example's board behind responses (no socket), at the scenario's first snapshot."""
    scenario = load_scenario(example / "scenario.toml")
    board = LiveBoard(scenario, now=min(scenario.snapshots.values()))
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        board.mock(mock, BOARD_URL)
        yield MockBoard(board, mock)


@pytest.fixture
def mock_board() -> Iterator[MockBoard]:
    with mocked(EXAMPLE) as board:
        yield board


@pytest.fixture
def r004_board() -> Iterator[MockBoard]:
    with mocked(EXAMPLE_R004) as board:
        yield board


def example_data(days: int = 2) -> dict[str, Any]:
    """The example game file, keeping its first ``days`` days (day 2's threads exist only in s3)."""
    data = tomllib.loads((EXAMPLE / "game.toml").read_text("utf-8"))
    data["board"]["url"] = BOARD_URL
    data["days"] = data["days"][:days]
    return data


def example_game(store_url: str, days: int = 1, **flags: Any) -> Game:
    data = example_data(days)
    data["game"]["store"] = store_url
    if flags:
        data["flags"] = flags
    return game_from_dict(data)


def example_roles() -> dict[str, str]:
    return tomllib.loads((EXAMPLE / "roles.toml").read_text("utf-8"))["roles"]
