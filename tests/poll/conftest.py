"""Fixtures for the poll tests: a fake board behind ``responses``, a client on a fake clock, a store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import responses

from forumbot.client import BoardClient
from tests.client.pagebuilder import FakeBoard
from tests.conftest import FakeClock, make_board


@pytest.fixture
def rsps() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as r:
        yield r


@pytest.fixture
def fake_board(rsps: responses.RequestsMock) -> FakeBoard:
    board = FakeBoard()
    board.install(rsps)
    return board


@pytest.fixture
def make_client(clock: FakeClock) -> Callable[..., BoardClient]:
    def make(**overrides: Any) -> BoardClient:
        return BoardClient(make_board(**overrides), sleep=clock.sleep, clock=clock.monotonic, now=clock.now)

    return make


@pytest.fixture
def client(make_client: Callable[..., BoardClient]) -> BoardClient:
    return make_client()
