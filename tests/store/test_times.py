"""Times survive the store exactly, whatever zone they come in (SQLite keeps naive UTC)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.store import Store, open_store
from forumbot.store.posts import get_post, record_thread_page
from tests.store.helpers import BOARD, page, post

zones = st.integers(min_value=-14 * 60, max_value=14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
instants = st.datetimes(
    min_value=datetime(1971, 1, 1), max_value=datetime(2099, 12, 31), timezones=st.just(UTC)
)
_pids = itertools.count(1)


@pytest.fixture(scope="module")
def memory_store() -> Iterator[Store]:
    with open_store(":memory:") as s:
        yield s


@settings(max_examples=60, deadline=None)
@given(when=instants, zone=zones, seen=instants)
def test_any_aware_time_round_trips_exactly(
    memory_store: Store, when: datetime, zone: timezone, seen: datetime
) -> None:
    pid = next(_pids)
    p = replace(post(pid), posted_at=when.astimezone(zone), posted_until=when.astimezone(zone))
    record_thread_page(memory_store, BOARD, page([p]), seen_at=seen.astimezone(zone))
    got = get_post(memory_store, BOARD, pid)
    assert got is not None
    assert got.posted_at == when and got.posted_at.tzinfo is UTC
    assert got.first_seen == seen and got.current.first_seen == seen
