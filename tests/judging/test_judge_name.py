"""Whose name a record carries (issue 22 e): one rule for every record a judge makes, never the OS login.

forumbot/judgename.py: ``--judge`` (or the web desk's login), then $FORUMBOT_JUDGE, then the game file's
board account, then the only judge of ``[game] judges``, else ``judge``.
"""

from __future__ import annotations

import getpass
import json
from dataclasses import replace
from pathlib import Path

import pytest
import tomli_w

from forumbot.cli import main
from forumbot.config import load_game
from forumbot.desk import Desk
from forumbot.judgename import judge_name
from forumbot.store import open_store
from tests.judging.conftest import EXAMPLE, example_data, example_game
from tests.judging.test_night_overrides import NIGHT1


@pytest.fixture(autouse=True)
def root_at_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's OS login is root: it must never be the judge on a record."""
    monkeypatch.setattr(getpass, "getuser", lambda: "root")
    monkeypatch.delenv("FORUMBOT_JUDGE", raising=False)


def test_the_rule_in_its_order() -> None:
    game = example_game("sqlite://")  # judges = ["法官大人"], no board account
    with_account = replace(game, board=replace(game.board, username="裁判账号"))
    two_judges = replace(game, judges=("执法甲", "执法乙"))
    env = {"FORUMBOT_JUDGE": "执法丙"}
    assert judge_name(with_account, "执法乙", env=env) == "执法乙"  # --judge / the web login first
    assert judge_name(with_account, None, env=env) == "执法丙"  # then $FORUMBOT_JUDGE
    assert judge_name(with_account, " ", env={}) == "裁判账号"  # then the board account
    assert judge_name(game, None, env={}) == "法官大人"  # then the only judge
    assert judge_name(two_judges, None, env={}) == "judge"  # nobody said: no guess
    assert judge_name(None, None, env={}) == "judge"


def test_a_desk_without_a_name_never_records_the_os_login(tmp_path: Path) -> None:
    desk = Desk(example_game(str(tmp_path / "g.db")), open_store(tmp_path / "g.db"))
    assert desk.by == "法官大人"


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    data = example_data(days=1)
    data["game"]["store"] = "game.db"
    p = tmp_path / "forumbot.toml"
    p.write_text(tomli_w.dumps(data), "utf-8")
    return p


def test_every_command_that_records_a_judge_records_the_same_judge(
    game_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(*args: str) -> int:
        return main(["--game", str(game_file), *args])

    # setup: nobody named → the game file's only judge, not root
    assert run("setup", "--roles", str(EXAMPLE / "roles.toml")) == 0
    # a night resolved and undone, each by the judge named on the line
    assert run("night", "submit", "--night", "1", "--file", str(EXAMPLE / "night1.toml")) == 0
    assert run("--judge", "执法丁", "night", "resolve", "--night", "1") == 0
    assert run("--judge", "执法甲", "undo") == 0
    game = load_game(game_file)
    store = open_store(game_file.parent / "game.db")
    Desk(game, store, by="法官大人").record_night_messages(1, NIGHT1)
    # a night override with --judge
    assert (
        run("--judge", "执法乙", "night", "override", "pid:102", "--as", "ignore", "--why", "只是讨论") == 0
    )
    assert "执法乙" in capsys.readouterr().out
    # its undo, with the judge named once in the shell
    monkeypatch.setenv("FORUMBOT_JUDGE", "执法丙")
    assert run("night", "override", "pid:102", "--undo", "--why", "记错了") == 0
    # the outbox: added with --judge, approved by $FORUMBOT_JUDGE
    assert run("--judge", "执法乙", "outbox", "add", "--reply", "4", "--body", "【公告】") == 0
    assert run("outbox", "approve", "1") == 0
    capsys.readouterr()

    desk = Desk(game, store, by="test")
    history = desk.history()
    assert [(h.by, h.undone_by) for h in history] == [("法官大人", None), ("执法丁", "执法甲")]
    overrides = [(o.verdict, o.by) for o in desk.night_override_history(1)]
    assert overrides == [("ignore", "执法乙"), ("undo", "执法丙")]
    assert run("outbox", "show", "1", "--json") == 0
    item = json.loads(capsys.readouterr().out)
    assert (item["created_by"], item["approved_by"]) == ("执法乙", "执法丙")
    everyone = {*(h.by for h in history), *(b for _, b in overrides), item["created_by"], item["approved_by"]}
    assert "root" not in everyone
    store.close()
