"""Shared test fixtures: a store on every backend, a fake clock, board settings.

The ``store`` fixture runs each test on in-memory SQLite, on an SQLite file, and on PostgreSQL when
FORUMBOT_TEST_DATABASE_URL is set (each test in a schema of its own that holds nothing of another test:
a new one, or one a test before it left as the store made it, emptied; see ``_SchemaPool``). When that
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


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the slow modules first, each worker's share opening with its own (tests/ordering.py): under
    ``--dist worksteal`` the two workers then finish together instead of one waiting on a long test."""
    from tests.ordering import arrange, unit_of

    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(unit_of(item.nodeid), []).append(item)
    items[:] = arrange(list(modules.items()), workers)


@pytest.fixture(autouse=True, scope="session")
def desk_password_hasher() -> Iterator[tuple[Any, str] | None]:
    """Judges' passwords are hashed with Argon2id at its lowest cost in the suite; yields the desk's own
    hasher and dummy hash (None without the ``web`` extra).

    Why: the desk's Argon2id (argon2-cffi's defaults: 64 MiB, 3 passes, 4 lanes) takes a fifth of a
    second of both cores per hash, by design, and nearly every desk test adds a judge and logs him in:
    a minute or two of the suite. What the tests check (only a hash stored, who may log in, the throttle,
    the re-hash at login) does not depend on the cost; tests/web/test_auth.py checks the desk's own
    hasher, at its real cost, once."""
    try:
        from argon2 import PasswordHasher

        from forumbot.store import judges
    except ImportError:
        yield None
        return
    real = (judges._hasher, judges._DUMMY)
    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    judges._hasher, judges._DUMMY = cheap, cheap.hash("not a real password, only for timing")
    yield real
    judges._hasher, judges._DUMMY = real


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


# What a schema holds besides rows: its relations and their columns, defaults and privileges, constraints,
# indexes, triggers, functions and the schema's own privileges. A schema's shape is only ever compared
# with its own, read when the store had just been made in it.
_SHAPE = """
SELECT 'rel', c.relname, c.relkind::text, coalesce(a.attname, ''),
       coalesce(format_type(a.atttypid, a.atttypmod), ''), coalesce(a.attnotnull::text, ''),
       coalesce(pg_get_expr(d.adbin, d.adrelid), ''), coalesce(c.relacl::text, '')
  FROM pg_class c
  LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
 WHERE c.relnamespace = to_regnamespace(:s)
UNION ALL
SELECT 'con', conname, pg_get_constraintdef(oid), '', '', '', '', ''
  FROM pg_constraint WHERE connamespace = to_regnamespace(:s)
UNION ALL
SELECT 'idx', c.relname, pg_get_indexdef(c.oid), '', '', '', '', ''
  FROM pg_class c WHERE c.relnamespace = to_regnamespace(:s) AND c.relkind = 'i'
UNION ALL
SELECT 'trg', t.tgname, pg_get_triggerdef(t.oid), '', '', '', '', ''
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
 WHERE c.relnamespace = to_regnamespace(:s) AND NOT t.tgisinternal
UNION ALL
SELECT 'fn', proname, pg_get_function_identity_arguments(oid), '', '', '', '', ''
  FROM pg_proc WHERE pronamespace = to_regnamespace(:s)
UNION ALL
SELECT 'nsp', nspname, coalesce(nspacl::text, ''), '', '', '', '', ''
  FROM pg_namespace WHERE oid = to_regnamespace(:s)
ORDER BY 1, 2, 3, 4
"""


class _SchemaPool:
    """This test process's PostgreSQL schemas, each of which holds one test's store at a time.

    Why: making a store's schema (CREATE SCHEMA and some sixty CREATE TABLE/INDEX) and dropping it took
    most of a second per PostgreSQL test, a quarter of a thousand tests. A schema a test is done with is
    given to the next one only when it is as the store made it (:data:`_SHAPE`: no table, column,
    index, constraint or privilege added, dropped or changed), emptied of every row and with every
    sequence back at its start: what the next test opens is an empty store, as a fresh schema's is.
    Any other schema is dropped, as before. All are dropped at the end of the session."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.admin = create_engine(url)
        self.clean: list[str] = []  # emptied, ready for the next test
        self.made: list[str] = []
        self.shapes: dict[str, list[tuple[str, ...]]] = {}  # each schema as the store made it

    def _shape(self, conn: Any, schema: str) -> list[tuple[str, ...]]:
        return [tuple(row) for row in conn.execute(text(_SHAPE), {"s": f'"{schema}"'})]

    def open(self) -> tuple[Store, str]:
        """A store in a schema of its own (an emptied one of this pool, else a new one), and the schema."""
        if self.clean:
            schema = self.clean.pop()
            return open_store(self.url, connect_args={"options": f"-csearch_path={schema}"}), schema
        schema = f"fbtest_{uuid.uuid4().hex[:12]}"
        with self.admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        self.made.append(schema)
        st = open_store(self.url, connect_args={"options": f"-csearch_path={schema}"})
        with self.admin.begin() as conn:
            self.shapes[schema] = self._shape(conn, schema)
        return st, schema

    def done(self, schema: str) -> None:
        """After the test (its stores closed): empty the schema for the next test, or drop it."""
        try:
            with self.admin.begin() as conn:
                conn.execute(text("SET LOCAL lock_timeout = '10s'"))
                # every row goes, so no foreign key can be left dangling: its checks (which a cycle of
                # keys, posts ↔ post_revisions, would fail half-way) are not run (a superuser's right:
                # without it the schema is dropped, as before)
                conn.execute(text("SET LOCAL session_replication_role = replica"))
                if self._shape(conn, schema) != self.shapes.get(schema):
                    raise LookupError(schema)
                present = {row[1] for row in self.shapes[schema] if row[0] == "rel" and row[2] == "r"}
                for name in sorted(present):
                    conn.execute(text(f'DELETE FROM "{schema}"."{name}"'))
                conn.execute(
                    text(
                        "SELECT setval(c.oid, s.seqstart, false) FROM pg_class c "
                        "JOIN pg_sequence s ON s.seqrelid = c.oid WHERE c.relnamespace = to_regnamespace(:s)"
                    ),
                    {"s": f'"{schema}"'},
                )
        except (LookupError, SQLAlchemyError):
            self.drop(schema)
            return
        self.clean.append(schema)

    def drop(self, schema: str) -> None:
        with self.admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        self.made.remove(schema)
        self.shapes.pop(schema, None)

    def close(self) -> None:
        for schema in list(self.made):
            self.drop(schema)
        self.admin.dispose()


@pytest.fixture(scope="session")
def _pg_schema_pool() -> Iterator[_SchemaPool]:
    pool = _SchemaPool(_postgres_url())
    yield pool
    pool.close()


@pytest.fixture
def pg_schema_store(request: pytest.FixtureRequest) -> Iterator[Callable[[], Store]]:
    """A factory of PostgreSQL stores, each in a schema of its own that holds nothing of another test
    (a fresh schema, or one of :class:`_SchemaPool` emptied; dropped or emptied after the test)."""
    _postgres_url()  # skipped (or failed under CI) before the pool is made when there is no server
    pool: _SchemaPool = request.getfixturevalue("_pg_schema_pool")
    opened: list[tuple[Store, str]] = []

    def make() -> Store:
        opened.append(pool.open())
        return opened[-1][0]

    yield make
    for st, _schema in opened:
        st.close()
    for _st, schema in opened:
        pool.done(schema)


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
