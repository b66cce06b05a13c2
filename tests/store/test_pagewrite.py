"""The batched page writer stores exactly what the ORM writer stored, in a handful of statements.

The oracle is the writer as it stood before issue 12 (tests/store/orm_writer.py). The same sequence of
pages (new posts, re-reads, edits, reverts, edit markers, state changes, vanishings and returns,
author-filtered views, repeated pids) goes into two empty stores, one per writer; every table must
then hold the same rows, ids included, and every page the same PageResult.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import create_engine, event, select
from sqlmodel import SQLModel

from forumbot.client import FetchRecord
from forumbot.errors import StoreError
from forumbot.parsers.records import EditMarker, Post, PostState, QuoteRef, Source, ThreadInfo, ThreadPage
from forumbot.store import Store, db, open_store, pagewrite
from forumbot.store.health import check_consistency
from forumbot.store.models import TABLE_NAMES
from forumbot.store.posts import PageResult, mark_vanished, post_events, record_thread_page, thread_posts
from tests.store.helpers import BOARD, T0, post
from tests.store.orm_writer import record_thread_page_orm

TEXTS = ("投票：饺子", "投票：包子", "投票：饺子  ", "顶", "")
MARKERS = (
    None,
    EditMarker("玩家1", T0 + timedelta(hours=1), "本帖最后由 玩家1 于 … 编辑"),
    EditMarker("玩家1", T0 + timedelta(hours=2), ""),
)
STATES = (PostState.NORMAL, PostState.NORMAL, PostState.BLOCKED, PostState.BANNED)


@dataclass(frozen=True)
class PageStep:
    tid: int
    number: int
    pages: int
    fid: int | None
    title: str
    source: Source
    author_filter: int | None
    posts: tuple[Post, ...]
    skip: frozenset[int]
    fetches: int
    ppp: int | None


@dataclass(frozen=True)
class Vanish:
    tid: int
    seen: frozenset[int]


Step = PageStep | Vanish


def variant(pid: int, text: int, marker: int, state: int, shape: int, tid: int) -> Post:
    """One view of post ``pid``: a few texts, edit markers, states, time precisions, missing fields."""
    p = post(pid, TEXTS[text] or f"闲聊 {pid}", tid=tid, edit=MARKERS[marker], state=STATES[state])
    if shape & 1:
        p = replace(p, quotes=(QuoteRef(1, "玩家1", "投票：饺子"),))
    if shape & 2:  # a touch page's minute-wide interval
        p = replace(
            p, posted_at=p.posted_at - timedelta(seconds=30), posted_until=p.posted_at + timedelta(30)
        )
    if shape & 4:  # an author-only view renumbers floors; an anonymous view hides the author
        p = replace(p, floor_exact=False, author="", uid=None)
    if shape & 8:
        p = replace(p, tid=None, html=f"<img smilieid='1'> {pid}")
    return p


def steps_strategy() -> st.SearchStrategy[list[Step]]:
    posts = st.builds(
        variant,
        pid=st.integers(1, 8),
        text=st.integers(0, len(TEXTS) - 1),
        marker=st.integers(0, len(MARKERS) - 1),
        state=st.integers(0, len(STATES) - 1),
        shape=st.integers(0, 15),
        tid=st.just(3),
    )
    pages = st.builds(
        PageStep,
        tid=st.sampled_from((3, 3, 4)),
        number=st.integers(1, 3),
        pages=st.integers(1, 3),
        fid=st.sampled_from((None, 3)),
        title=st.sampled_from(("", "【美食杀】第一日投票帖")),
        source=st.sampled_from(tuple(Source)),
        author_filter=st.sampled_from((None, None, 101)),
        posts=st.lists(posts, max_size=8).map(tuple),
        skip=st.frozensets(st.integers(1, 8), max_size=2),
        fetches=st.integers(0, 2),
        ppp=st.sampled_from((None, 10, 50)),
    )
    vanish = st.builds(Vanish, tid=st.just(3), seen=st.frozensets(st.integers(1, 8)))
    return st.lists(st.one_of(pages, pages, pages, vanish), min_size=1, max_size=10)


def random_steps(seed: int, n: int = 12) -> list[Step]:
    """The same kind of sequence without hypothesis (for the PostgreSQL runs)."""
    rng = random.Random(seed)
    steps: list[Step] = []
    for _ in range(n):
        if rng.random() < 0.15:
            steps.append(Vanish(3, frozenset(rng.sample(range(1, 9), rng.randint(0, 8)))))
            continue
        posts = tuple(
            variant(
                rng.randint(1, 8),
                rng.randrange(len(TEXTS)),
                rng.randrange(len(MARKERS)),
                rng.randrange(len(STATES)),
                rng.randrange(16),
                3,
            )
            for _ in range(rng.randint(0, 8))
        )
        steps.append(
            PageStep(
                rng.choice((3, 3, 4)),
                rng.randint(1, 3),
                rng.randint(1, 3),
                rng.choice((None, 3)),
                rng.choice(("", "标题")),
                rng.choice(tuple(Source)),
                rng.choice((None, None, 101)),
                posts,
                frozenset(rng.sample(range(1, 9), rng.randint(0, 2))),
                rng.randint(0, 2),
                rng.choice((None, 10, 50)),
            )
        )
    return steps


Writer = Callable[..., PageResult]


def play(store: Store, steps: list[Step], write: Writer) -> list[object]:
    """Run the steps on ``store`` with ``write``; what each step returned."""
    out: list[object] = []
    for i, step in enumerate(steps):
        at = T0 + timedelta(hours=3, minutes=7 * i)
        if isinstance(step, Vanish):
            out.append(mark_vanished(store, BOARD, step.tid, step.seen, at=at))
            continue
        info = ThreadInfo(step.tid, step.fid, step.title, step.number, step.pages, replies=None)
        tp = ThreadPage(info, step.posts, step.source, author_filter=step.author_filter)
        fetches = [
            FetchRecord("GET", f"{BOARD}t{step.tid}p{step.number}", 200, at, True, "", 0.01 * k, 100 + k)
            for k in range(step.fetches)
        ]
        out.append(write(store, BOARD, tp, seen_at=at, fetches=fetches, ppp=step.ppp, skip_pids=step.skip))
    return out


def dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows in id order (the board's creation time aside: it is the wall clock; and the
    threads' versions, which only the batched writer counts: tests/store/test_readpath.py checks them)."""
    tables = SQLModel.metadata.tables
    with store.engine.connect() as conn:
        out = {}
        for name in TABLE_NAMES:
            if name == "thread_versions":
                continue
            t = tables[name]
            cols = [c for c in t.columns if (name, c.name) != ("boards", "created_at")]
            out[name] = [tuple(r) for r in conn.execute(select(*cols).order_by(t.c.id))]
        return out


def raw_dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows as the driver reads them, no column type in between: on SQLite the text of
    each stored time and JSON value, which the writer's own driver SQL must write exactly as the
    column types did (issue 21)."""
    tables = SQLModel.metadata.tables
    with store.engine.connect() as conn:
        out = {}
        for name in TABLE_NAMES:
            if name == "thread_versions":
                continue
            cols = [f'"{c.name}"' for c in tables[name].columns if (name, c.name) != ("boards", "created_at")]
            sql = f'SELECT {", ".join(cols)} FROM "{name}" ORDER BY id'
            out[name] = [tuple(r) for r in conn.exec_driver_sql(sql)]
        return out


def assert_same_stores(make: Callable[[], Store], steps: list[Step]) -> None:
    old, new = make(), make()
    assert play(new, steps, pagewrite.record_page) == play(old, steps, record_thread_page_orm)
    assert dump(new) == dump(old)
    assert raw_dump(new) == raw_dump(old)
    assert check_consistency(new) == []


@contextmanager
def memory_stores() -> Iterator[Callable[[], Store]]:
    opened: list[Store] = []

    def make() -> Store:
        opened.append(open_store(":memory:"))
        return opened[-1]

    try:
        yield make
    finally:
        for s in opened:
            s.close()


@given(steps_strategy())
def test_any_sequence_of_pages_stores_what_the_orm_writer_stored(steps: list[Step]) -> None:
    with memory_stores() as make:
        assert_same_stores(make, steps)


@pytest.mark.parametrize("seed", range(4))
def test_the_same_on_an_sqlite_file(seed: int, tmp_path: Any) -> None:
    stores = [open_store(tmp_path / f"{k}.db") for k in range(2)]
    try:
        assert_same_stores(iter(stores).__next__, random_steps(seed, 20))
    finally:
        for s in stores:
            s.close()


@pytest.mark.postgres
@pytest.mark.parametrize("seed", range(6))
def test_the_same_on_postgresql(seed: int, pg_schema_store: Callable[[], Store]) -> None:
    assert_same_stores(pg_schema_store, random_steps(seed, 20))


def test_the_edit_story_is_told_the_same(tmp_path: Any) -> None:
    """A vote edited, edited back, blocked, vanished and back, with the marker arriving late."""
    base = post(5, "投票：饺子")
    views = [
        base,
        replace(base, text="投票：包子"),
        base,
        replace(base, edit=MARKERS[1]),
        replace(base, edit=MARKERS[1], state=PostState.BLOCKED),
    ]
    steps: list[Step] = [PageStep(3, 1, 1, 3, "t", Source.PC, None, (v,), frozenset(), 1, 10) for v in views]
    steps.insert(3, Vanish(3, frozenset()))
    with memory_stores() as make:
        assert_same_stores(make, steps)
        fresh = make()
        play(fresh, steps, pagewrite.record_page)
        kinds = [e.kind for e in post_events(fresh, BOARD, pid=5)]
    # blocking changes the content key (the state is hashed): a new revision, then the state change
    assert kinds == ["revised", "reverted", "deleted", "edit_marker", "restored", "revised", "state"]


# --------------------------------------------------------------------------- statements per page


def count_statements(store: Store, action: Callable[[], object]) -> int:
    """SQL statements sent to the database while ``action`` runs (an executemany counts once)."""
    seen: list[str] = []

    def listener(*args: Any) -> None:
        seen.append(args[2])

    event.listen(store.engine, "before_cursor_execute", listener)
    try:
        action()
    finally:
        event.remove(store.engine, "before_cursor_execute", listener)
    control = ("BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")  # a file SQLite begins IMMEDIATE
    return len([s for s in seen if s.strip().upper() not in control])


def ten_posts(start: int) -> ThreadPage:
    posts = tuple(post(pid) for pid in range(start, start + 10))
    return ThreadPage(ThreadInfo(3, 3, "t", start // 10 + 1, 9, None), posts, Source.PC)


def test_a_new_page_takes_a_handful_of_statements_and_a_reread_few(store: Store) -> None:
    fetch = [FetchRecord("GET", BOARD, 200, T0, True, "", 0.01, 10)]

    def new_page(writer: Writer, start: int, when: datetime) -> Callable[[], object]:
        return lambda: writer(store, BOARD, ten_posts(start), seen_at=when, fetches=fetch)

    record_thread_page(store, BOARD, ten_posts(1), seen_at=T0)  # board and thread exist
    old_new = count_statements(store, new_page(record_thread_page_orm, 11, T0))
    new_new = count_statements(store, new_page(pagewrite.record_page, 21, T0))
    old_again = count_statements(store, new_page(record_thread_page_orm, 11, T0 + timedelta(1)))
    new_again = count_statements(store, new_page(pagewrite.record_page, 21, T0 + timedelta(1)))
    # 2 SELECTs; the thread; posts, revisions, the posts' state; the thread's version; the fetch log
    assert new_new <= 8 < 30 <= old_new
    # 2 SELECTs (the whole check); the thread; the posts and revisions seen again; the fetch log
    assert new_again <= 6 < old_again
    assert count_statements(store, new_page(pagewrite.record_page, 21, T0 + timedelta(2))) == new_again
    if store.engine.dialect.name == "postgresql":  # issue 21: writes <= 1.5x the bare driver
        # the thread, the stored posts and the new ids in one; each post with its revision, linked,
        # and the thread's version; the fetch log
        assert new_new == 3
        # the opening one; the posts and revisions seen again; the fetch log
        assert new_again == 4
    assert check_consistency(store) == []


def test_any_page_size_fits_the_parameter_limits(store: Store) -> None:
    """A page far bigger than any board serves (an API dump) is checked in chunks of pids."""
    big = tuple(post(pid) for pid in range(1, 2 * pagewrite.CHUNK + 7))
    tp = ThreadPage(ThreadInfo(3, 3, "t", 1, 1, None), big, Source.API)
    assert len(pagewrite.record_page(store, BOARD, tp, seen_at=T0).new_posts) == len(big)
    again = pagewrite.record_page(store, BOARD, tp, seen_at=T0 + timedelta(1))
    assert again.new_posts == () and again.new_revisions == () and len(again.pids) == len(big)
    assert check_consistency(store) == []


class LookupOnly(Collection[int]):
    """The pids of a read so far, as a poll passes them: only to be looked up. Walking them (copying
    them into a set on every page) made a first read quadratic in the thread's length (issue 21)."""

    def __init__(self, pids: set[int]) -> None:
        self._pids = pids

    def __contains__(self, pid: object) -> bool:
        return pid in self._pids

    def __iter__(self) -> Iterator[int]:
        raise AssertionError("the writer walked every pid of the read so far")

    def __len__(self) -> int:
        raise AssertionError("the writer measured every pid of the read so far")


def test_the_pids_of_the_read_so_far_are_looked_up_not_copied(store: Store) -> None:
    skip = LookupOnly({13, 15})
    tp = ten_posts(11)
    result = pagewrite.record_page(store, BOARD, tp, seen_at=T0, skip_pids=skip)
    assert result.pids == tuple(pid for pid in range(11, 21) if pid not in (13, 15))


# --------------------------------------------------------------------------- PostgreSQL: ids and connections


@pytest.mark.postgres
def test_rows_the_opening_statement_drew_no_ids_for_get_them_all_the_same(
    pg_schema_store: Callable[[], Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The opening statement draws the new rows' ids; should it draw too few (its test of what is new
    differing from the writer's), the writer draws the rest: every post is kept, linked to its revision."""
    st = pg_schema_store()
    record_thread_page(st, BOARD, ten_posts(1), seen_at=T0)
    real = pagewrite._open_page

    def drawing_none(*args: Any) -> Any:
        opened = real(*args)
        if opened is not None:
            opened.post_ids, opened.rev_ids = [], []
        return opened

    monkeypatch.setattr(pagewrite, "_open_page", drawing_none)
    first = replace(ten_posts(1).posts[0], text="改票：包子")
    mixed = replace(ten_posts(1), posts=(first, *ten_posts(11).posts))  # an edit and ten new posts
    result = pagewrite.record_page(st, BOARD, mixed, seen_at=T0 + timedelta(1))
    assert result.new_posts == tuple(range(11, 21)) and result.new_revisions == (1,)
    assert check_consistency(st) == []
    stored = thread_posts(st, BOARD, 3)
    assert [p.pid for p in stored] == list(range(1, 21))
    assert (stored[0].current.number, stored[0].text) == (2, "改票：包子")
    assert all(p.current == p.revisions[-1] for p in stored)
    assert [len(p.revisions) for p in stored] == [2] + [1] * 19


def _terminate(store: Store) -> int:
    """End the server session of the store's pooled connection (as a server restart would); its pid."""
    with store.engine.connect() as conn:
        pid = int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
    admin = create_engine(store.url)
    try:
        with admin.connect() as conn:
            assert conn.exec_driver_sql("SELECT pg_terminate_backend(%s, 5000)", (pid,)).scalar_one()
    finally:
        admin.dispose()
    return pid


def _backend_pid(store: Store) -> int:
    with store.engine.connect() as conn:
        return int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())


@pytest.mark.postgres
def test_a_page_whose_connection_was_lost_is_stored_on_a_fresh_one(
    pg_schema_store: Callable[[], Store],
) -> None:
    """The pooled connection is not pinged between two pages of a poll (issue 21): when it died in
    between, the page is stored again, once, on a fresh connection, and nothing is lost."""
    st = pg_schema_store()
    record_thread_page(st, BOARD, ten_posts(1), seen_at=T0)
    dead = _terminate(st)
    result = record_thread_page(st, BOARD, ten_posts(11), seen_at=T0)
    assert result.new_posts == tuple(range(11, 21))
    assert [p.pid for p in thread_posts(st, BOARD, 3)] == list(range(1, 21))
    assert _backend_pid(st) != dead
    assert check_consistency(st) == []


@pytest.mark.postgres
def test_a_connection_that_rested_is_pinged_and_replaced(
    pg_schema_store: Callable[[], Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    st = pg_schema_store()
    record_thread_page(st, BOARD, ten_posts(1), seen_at=T0)
    dead = _terminate(st)
    monkeypatch.setattr(db, "PING_AFTER_IDLE", 0.0)  # it rested long enough
    assert len(thread_posts(st, BOARD, 3)) == 10  # no error: the ping found it dead
    assert _backend_pid(st) != dead


@pytest.mark.postgres
def test_a_connection_lost_under_another_unit_of_work_is_said_so_then_replaced(
    pg_schema_store: Callable[[], Store],
) -> None:
    """Not pinged (it rested only a moment), a dead connection fails the unit of work with an error
    that says the connection was lost; the next one connects afresh."""
    st = pg_schema_store()
    record_thread_page(st, BOARD, ten_posts(1), seen_at=T0)
    dead = _terminate(st)
    with pytest.raises(StoreError) as caught:
        thread_posts(st, BOARD, 3)
    assert "terminating connection" in str(caught.value)
    assert len(thread_posts(st, BOARD, 3)) == 10
    assert _backend_pid(st) != dead
