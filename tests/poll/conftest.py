"""Fixtures for the poll tests: a fake board behind ``responses``, a client on a fake clock, a store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import responses

from forumbot.client import BoardClient
from forumbot.exampleboard.server import LiveBoard
from tests.boards import small_board
from tests.conftest import FakeClock, make_board


@pytest.fixture
def clock() -> FakeClock:
    """The judge's clock, a day after the fake board's posts (LiveBoard.now moves a minute a reply).

    A real poll reads posts after they were written; a judge's clock BEHIND the board's posts would
    make every forum list look too fresh to prove a thread unchanged (see poll.listing_says_unchanged).
    """
    return FakeClock(wall0=datetime(2026, 6, 5, 3, 0, 0, tzinfo=UTC))


@pytest.fixture
def rsps() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as r:
        yield r


@pytest.fixture
def fake_board(rsps: responses.RequestsMock) -> LiveBoard:
    board = small_board()
    board.mock(rsps, writes=False)
    return board


@pytest.fixture
def make_client(clock: FakeClock) -> Callable[..., BoardClient]:
    def make(**overrides: Any) -> BoardClient:
        return BoardClient(make_board(**overrides), sleep=clock.sleep, clock=clock.monotonic, now=clock.now)

    return make


@pytest.fixture
def client(make_client: Callable[..., BoardClient]) -> BoardClient:
    return make_client()
