"""Issue 22: a read-only store serves every reading command, and a writing command says in Chinese
that the store is read-only and names it (no SQL, no parameters).

A game is played on a writable store (setup, night 1, a full poll, a tally), then every reading
command runs on the same store opened read-only, and must answer what it answered on the writable
store. Tests run as root, so a file mode does not stop a write: SQLite's ``mode=ro`` URI and a
PostgreSQL session with ``default_transaction_read_only`` make the database itself refuse writes.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
import tomli_w
from sqlalchemy import create_engine, text

from forumbot.cli import main
from tests.conftest import _postgres_url
from tests.judging.conftest import EXAMPLE, MockBoard, example_data

BACKENDS = [
    pytest.param("sqlite-file", id="sqlite-file"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]

# (command, arguments): every command that only reads the store, with what the example game gives it.
READS = [
    ("tally", ["tally", "--day", "1", "--json"]),
    ("attendance", ["attendance", "--day", "1", "--json"]),
    ("posts", ["posts", "3", "--json"]),
    ("state", ["state", "--json", "--history"]),
    ("status", ["status", "--json"]),
    ("night messages", ["night", "messages", "--night", "1", "--json"]),
    ("outbox", ["outbox", "--all", "--json"]),
    ("lastwords", ["lastwords", "--day", "1", "--json"]),
    ("login status", ["login", "--status"]),
    ("judges list", ["judges", "list"]),
]

# Commands that must write: each refused with the store named, nothing written.
WRITES = [
    ("override", ["override", "39", "--as", "ignore", "--why", "迟到票不列出"]),
    ("proxy", ["proxy", "馄饨", "烧卖", "--day", "1", "--at", "2026-06-04 12:00"]),
    ("close", ["close", "--day", "1"]),
    ("undo", ["undo"]),
]


@pytest.fixture(params=BACKENDS)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(writable URL, read-only URL) of one store, on each backend."""
    if request.param == "sqlite-file":
        path = tmp_path / "game.db"
        yield f"sqlite:///{path}", f"sqlite:///file:{quote(str(path))}?mode=ro&uri=true"
        return
    server = _postgres_url()
    schema = f"fbtest_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in server else "?"
    writable = f"{server}{sep}options={quote(f'-csearch_path={schema}')}"
    read_only = f"{server}{sep}options={quote(f'-csearch_path={schema} -cdefault_transaction_read_only=on')}"
    try:
        yield writable, read_only
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def played(
    stores: tuple[str, str], tmp_path: Path, mock_board: MockBoard, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str, str]:
    """The example game's first day played on the writable store: (game file, writable, read-only)."""
    writable, read_only = stores
    data = example_data(days=1)
    data["game"]["store"] = writable
    game_file = tmp_path / "forumbot.toml"
    game_file.write_text(tomli_w.dumps(data), "utf-8")
    run = ["--game", str(game_file)]
    assert main([*run, "setup", "--roles", str(EXAMPLE / "roles.toml")]) == 0
    assert main([*run, "night", "submit", "--night", "1", "--file", str(EXAMPLE / "night1.toml")]) == 0
    assert main([*run, "night", "resolve", "--night", "1"]) == 0
    mock_board.use("s2")
    assert main([*run, "poll", "--full"]) == 0
    capsys.readouterr()
    return game_file, writable, read_only


def answer(
    game_file: Path, store: str, args: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    code = main(["--game", str(game_file), "--store", store, *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out if code == 0 else captured.err


def without_clock(out: str) -> str:
    """``status`` prints the time it was asked: the rest must be the same."""
    try:
        data = json.loads(out)
    except ValueError:
        return out
    if isinstance(data, dict):
        data.pop("now", None)
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def test_every_reading_command_answers_on_a_read_only_store_as_on_a_writable_one(
    played: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    game_file, writable, read_only = played
    for name, args in READS:  # read-only first: a first read that would write is caught
        got = answer(game_file, read_only, args, capsys)
        expected = answer(game_file, writable, args, capsys)
        assert got[0] == expected[0], f"{name}: {got[1]}"
        assert without_clock(got[1]) == without_clock(expected[1]), name


def test_a_tally_never_judged_before_is_judged_on_a_read_only_store(
    played: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The first tally stores the day's carry-over (a shortcut for the next one): on a read-only
    store it is judged all the same and nothing is kept."""
    game_file, writable, read_only = played
    code, out = answer(game_file, read_only, ["tally", "--day", "1", "--json"], capsys)
    assert code == 0
    tally = json.loads(out)
    assert [(t["target"], t["count"]) for t in tally["tally"]] == [("烧卖", 3), ("饺子", 2)]
    assert answer(game_file, writable, ["tally", "--day", "1", "--json"], capsys) == (0, out)


@pytest.mark.parametrize(("name", "args"), WRITES, ids=[w[0] for w in WRITES])
def test_a_writing_command_says_the_store_is_read_only_and_names_it(
    played: tuple[Path, str, str], capsys: pytest.CaptureFixture[str], name: str, args: list[str]
) -> None:
    game_file, writable, read_only = played
    before = answer(game_file, writable, ["state", "--json", "--history"], capsys)
    code, err = answer(game_file, read_only, args, capsys)
    assert code == 1, err
    assert "只读" in err  # Chinese: read-only
    assert "password" not in err and ("game.db" in err or "postgresql" in err)  # the store, named
    for leak in ("SQL", "INSERT", "UPDATE", "parameters", "sqlite3.", "psycopg."):
        assert leak not in err
    assert answer(game_file, writable, ["state", "--json", "--history"], capsys) == before


def test_a_poll_into_a_read_only_store_says_so(
    played: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    game_file, _writable, read_only = played
    code, err = answer(game_file, read_only, ["poll", "--full"], capsys)
    assert code == 1, err
    assert "只读" in err and "INSERT" not in err and "parameters" not in err
