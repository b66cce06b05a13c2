"""The web desk's fixtures: the bundled example game played once into a store, then copied for each
test that changes something; a Flask test client logged in as a judge."""

from __future__ import annotations

import io
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the web desk needs the 'web' extra")

from flask import Flask
from flask.testing import FlaskClient
from rich.console import Console

from forumbot.config import Game
from forumbot.i18n import set_language
from forumbot.store import judges
from forumbot.store.db import Store, open_store
from forumbot.web import data
from forumbot.web.app import create_app
from tests.web.meishi_game import play_meishi

JUDGE, PASSWORD = "执法甲", "correct horse battery"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture(scope="session")
def played_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example game (night 1, day 1, night 2, day 2) played through the real client into a store."""
    work = tmp_path_factory.mktemp("demo")
    play_meishi(work, Console(file=io.StringIO()))
    return work / "demo.db"


@dataclass
class Desk:
    game: Game
    store: Store
    app: Flask
    path: Path


@pytest.fixture
def desk(played_demo: Path, tmp_path: Path) -> Iterator[Desk]:
    """A copy of the played example with one judge account, and the desk app over it (Chinese)."""
    path = tmp_path / "desk.db"
    shutil.copy(played_demo, path)
    store = open_store(path)
    judges.add_judge(store, JUDGE, PASSWORD)
    game = data.example_game(store.url, data.board_of(store))
    app = create_app(game, store, secret="test-secret")
    app.config["TESTING"] = True
    try:
        yield Desk(game, store, app, path)
    finally:
        store.close()
        set_language("zh_CN")


def csrf_of(html: str) -> str:
    m = CSRF.search(html)
    assert m, "the page has no CSRF token"
    return m.group(1)


def log_in(client: FlaskClient, name: str = JUDGE, password: str = PASSWORD) -> None:
    token = csrf_of(client.get("/login").get_data(as_text=True))
    resp = client.post("/login", data={"name": name, "password": password, "csrf": token})
    assert resp.status_code == 302, resp.get_data(as_text=True)


@pytest.fixture
def client(desk: Desk) -> FlaskClient:
    c = desk.app.test_client()
    log_in(c)
    return c


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Keep each phase's report on the test, so a browser fixture knows to save a screenshot."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"rep_{report.when}", report)
