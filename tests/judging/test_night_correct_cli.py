"""``forumbot night submissions`` and ``night correct`` (issue 20): the CLI face of the desk's night
corrections — the same stored rows and the same refusal once resolved as the web desk's night page.

R001, the example game: 烧卖 杀手 and 月饼 鬼匪 (the bandits); night 1 due 2026-06-03 17:00 Beijing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forumbot.config import load_game
from forumbot.desk import Desk
from forumbot.store import judges, open_store
from tests.judging.conftest import EXAMPLE
from tests.judging.test_night_overrides import cli, game_file  # noqa: F401  (the fixture)


def test_a_judge_lists_and_corrects_the_nights_submissions(
    game_file: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(game_file, "setup", "--roles", str(EXAMPLE / "roles.toml")) == 0
    assert cli(game_file, "night", "submit", "--night", "1", "kill", "--by", "烧卖", "--target", "锅贴",
               "--at", "2026-06-03 16:20") == 0  # fmt: skip
    capsys.readouterr()
    assert cli(game_file, "night", "submissions", "--night", "1", "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["action"]["victim"], r["withdrawn"]) for r in rows] == [("锅贴", False)]
    row = str(rows[0]["id"])

    assert cli(game_file, "night", "correct", row, "--night", "1", "--why", "x") == 1  # no action given
    assert cli(game_file, "night", "correct", row, "--night", "1", "--kind", "kill", "--by", "烧卖",
               "--target", "煎饼", "--why", "匪帮私信确认改刀") == 0  # fmt: skip
    capsys.readouterr()
    assert cli(game_file, "--lang", "zh_CN", "night", "submissions", "--night", "1") == 0
    listed = capsys.readouterr().out
    assert "匪帮私信确认改刀" in listed and "杀人 煎饼" in listed and "杀人 锅贴" in listed
    store = open_store(str(game_file.parent / "game.db"))
    with store:
        desk = Desk(load_game(game_file), store)
        assert desk.night_preview(1).out == ("煎饼",)
        assert judges.desk_log(store)[0].action == "night correction"

    assert cli(game_file, "night", "resolve", "--night", "1") == 0
    capsys.readouterr()
    assert cli(game_file, "night", "correct", str(rows[0]["id"] + 1), "--night", "1", "--withdraw",
               "--why", "再改") == 1  # fmt: skip
    assert "undo" in capsys.readouterr().err
