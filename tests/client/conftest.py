"""Fixtures for the client tests: a mocked board and a client wired to a fake clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import responses

from forumbot.board import BoardConfig
from forumbot.client import BoardClient, forget_login_failures
from forumbot.exampleboard.server import LiveBoard
from tests.boards import small_board
from tests.conftest import FakeClock, make_board


@pytest.fixture(autouse=True)
def _no_remembered_login_failures() -> Iterator[None]:
    forget_login_failures()
    yield
    forget_login_failures()


@pytest.fixture
def rsps() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as r:
        yield r


@pytest.fixture
def fake_board(rsps: responses.RequestsMock) -> LiveBoard:
    board = small_board()
    return board


@pytest.fixture
def make_client(clock: FakeClock) -> Callable[..., BoardClient]:
    def make(config: BoardConfig | None = None, **overrides: Any) -> BoardClient:
        cfg = config or make_board(**overrides)
        return BoardClient(cfg, sleep=clock.sleep, clock=clock.monotonic, now=clock.now)

    return make
