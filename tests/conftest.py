"""Shared test fixtures: a store on every backend, a fake clock, board settings.

The ``store`` fixture runs each test on in-memory SQLite, on an SQLite file, and on PostgreSQL when
FORUMBOT_TEST_DATABASE_URL is set (each test in a schema of its own, dropped afterwards). When that
server is unreachable the PostgreSQL runs are skipped, except under CI (CI=true) or with
FORUMBOT_REQUIRE_POSTGRES set, where they fail: a green CI must mean both backends passed.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from sqlalchemy import create_engine, text
from sqlalchemy.exc import SQLAlchemyError

from forumbot.board import BoardConfig
from forumbot.store import Store, open_store

# Property tests check behaviour, never speed (speed is measured in benchmarks/): no per-example deadline.
settings.register_profile("forumbot", deadline=None)
settings.load_profile("forumbot")


@pytest.fixture(autouse=True, scope="session")
def _game_cache_of_this_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Checked game files (forumbot/gamecache.py) are kept in a folder of this session, not the user's."""
    before = os.environ.get("FORUMBOT_CACHE_DIR")
    os.environ["FORUMBOT_CACHE_DIR"] = str(tmp_path_factory.mktemp("forumbot-cache"))
    yield
    if before is None:
        os.environ.pop("FORUMBOT_CACHE_DIR", None)
    else:
        os.environ["FORUMBOT_CACHE_DIR"] = before


@pytest.fixture(scope="session")
def yexiao_finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """【夜宵杀】 played to its end once per test process (tests/runner/yexiao.py ``play_to_the_end``).

    Why a session fixture: the modules that only read the finished game (the game's checks, the 复盘,
    the public words, the desk's result panel) each played it anew, seconds of the suite each; now each
    takes a copy of this one's store (``copy_of``)."""
    from tests.runner.yexiao import play_to_the_end

    with play_to_the_end(tmp_path_factory.mktemp("yexiao-finished")) as finished:
        yield finished


PG_ENV = "FORUMBOT_TEST_DATABASE_URL"
TEST_UA = (
    "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36 forum-judge-test/0.1 (+judge@example.com)"
)


def _postgres_required() -> bool:
    return os.environ.get("CI") == "true" or bool(os.environ.get("FORUMBOT_REQUIRE_POSTGRES"))


_pg_state: dict[str, Any] = {}


def _postgres_url() -> str:
    """The server URL, or skip/fail (once per session) when it is not set or not reachable."""
    url = os.environ.get(PG_ENV)
    if not url:
        if os.environ.get("FORUMBOT_REQUIRE_POSTGRES"):
            pytest.fail(f"{PG_ENV} is not set but FORUMBOT_REQUIRE_POSTGRES is")
        pytest.skip(f"{PG_ENV} not set: PostgreSQL runs skipped")
    if "error" not in _pg_state:
        try:
            engine = create_engine(url, connect_args={"connect_timeout": 5})
            with engine.connect() as conn:
                conn.execute(text("select 1"))
            engine.dispose()
            _pg_state["error"] = None
        except (SQLAlchemyError, ImportError) as exc:
            _pg_state["error"] = f"{type(exc).__name__}: {exc}"
    if _pg_state["error"] is not None:
        msg = f"PostgreSQL at {url} unreachable: {_pg_state['error']}"
        if _postgres_required():
            pytest.fail(msg)
        pytest.skip(msg)
    return url


@pytest.fixture
def pg_schema_store() -> Iterator[Callable[[], Store]]:
    """A factory of PostgreSQL stores, each in a fresh schema (dropped after the test)."""
    url = _postgres_url()
    admin = create_engine(url)
    schemas: list[str] = []
    stores: list[Store] = []

    def make() -> Store:
        schema = f"fbtest_{uuid.uuid4().hex[:12]}"
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        schemas.append(schema)
        st = open_store(url, connect_args={"options": f"-csearch_path={schema}"})
        stores.append(st)
        return st

    yield make
    for st in stores:
        st.close()
    with admin.begin() as conn:
        for schema in schemas:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    admin.dispose()


BACKENDS = [
    pytest.param("sqlite-memory", id="sqlite-memory"),
    pytest.param("sqlite-file", id="sqlite-file"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An empty store, on each backend in turn."""
    if request.param == "postgres":
        make = request.getfixturevalue("pg_schema_store")
        yield make()
        return
    st = open_store(":memory:" if request.param == "sqlite-memory" else tmp_path / "forumbot.db")
    try:
        yield st
    finally:
        st.close()


@pytest.fixture
def reopen_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Store]:
    """For crash tests: a factory that opens the SAME durable store again (SQLite file)."""
    path = tmp_path / "durable.db"
    opened: list[Store] = []

    def make() -> Store:
        st = open_store(path)
        opened.append(st)
        return st

    request.addfinalizer(lambda: [s.close() for s in opened])
    return make


@dataclass
class FakeClock:
    """A monotonic clock that moves only when slept on, and a matching UTC wall clock."""

    t: float = 1000.0
    wall0: datetime = field(default_factory=lambda: datetime(2026, 6, 4, 3, 0, 0, tzinfo=UTC))
    sleeps: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.t += seconds

    def now(self) -> datetime:
        return self.wall0 + timedelta(seconds=self.t - 1000.0)

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def make_board(**overrides: Any) -> BoardConfig:
    base: dict[str, Any] = {"url": "http://bbs.example.com/", "user_agent": TEST_UA, "fid": 3}
    base.update(overrides)
    return BoardConfig(**base)


@pytest.fixture
def english_messages() -> Iterator[None]:
    """Messages in English for a test that checks a rule by its error's wording (the msgid): the desk,
    game-file and outbox errors are Chinese by default (issue 11); tests/test_error_language.py checks
    that the judge reads them in Chinese, and in English with ``--lang en``."""
    from forumbot.i18n import current_language, set_language

    before = current_language()
    set_language("en")
    yield
    set_language(before)
