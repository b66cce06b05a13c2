"""`forumbot tick` / `status` from the command line, and the game file's [night_sources]."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from forumbot.cli import main
from forumbot.config import NightGroupSource, game_from_dict
from forumbot.errors import GameFileError
from forumbot.resources import data_dir

BASE = {
    "game": {"ruleset": "R001"},
    "board": {"url": "https://bbs.example.com/"},
    "players": {"roster": ["甲", "乙"]},
    "timetable": {"first_night": "2026-06-03"},
    "days": [{"day": 1, "vote": 3}],
}


def test_night_sources_name_each_groups_forum_and_thread_and_the_pms() -> None:
    game = game_from_dict(
        {**BASE, "night_sources": {"pm": True, "killers": {"fid": 6, "tid": 8}, "police": {"fid": 7}}}
    )
    assert game.night_sources is not None and game.night_sources.pm
    assert game.night_sources.groups == (
        NightGroupSource("killers", 6, 8),
        NightGroupSource("police", 7, None),
    )
    assert game_from_dict(BASE).night_sources is None


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ({"doctors": {"fid": 6}}, "night_sources.doctors"),
        ({"killers": {"tid": 8}}, "night_sources.killers"),
        ({"pm": "yes"}, "night_sources.pm"),
        ({"police": {"fid": 7, "tid": "9"}}, "night_sources.police.tid"),
    ],
)
def test_a_wrong_night_sources_table_names_the_field(table: dict[str, object], field: str) -> None:
    with pytest.raises(GameFileError) as err:
        game_from_dict({**BASE, "night_sources": table})
    assert field in str(err.value)


def test_tick_with_the_board_down_delays_night_1_and_status_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    src = data_dir() / "examples" / "yexiao"
    text = (src / "game.toml").read_text("utf-8")
    text = text.replace('url = "http://127.0.0.1:8080/"', 'url = "http://127.0.0.1:9/"\nretries = 0')
    (tmp_path / "game.toml").write_text(text, "utf-8")
    shutil.copy(src / "roles.toml", tmp_path / "roles.toml")
    monkeypatch.setenv("FORUMBOT_PASSWORD", "demo")
    args = ["--game", str(tmp_path / "game.toml"), "--store", str(tmp_path / "game.db")]
    assert main([*args, "setup", "--roles", str(tmp_path / "roles.toml")]) == 0
    assert main([*args, "tick"]) == 0  # every moment of June 2026 is due: night 1 first, and it cannot read
    out = capsys.readouterr().out
    assert "推迟：第1夜：行动截止" in out  # the tick's status lines in the judge's language
    assert "night1/deadline" not in out  # the ledger's key stays in the ledger and in --json
    assert main([*args, "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["phase"] == "night 1"
    assert [m["key"] for m in data["stuck"]] == ["night1/deadline"]
    assert data["stuck"][0]["status"] == "delayed"
    assert data["next"][0]["key"] == "night1/deadline" and data["next"][0]["at"] == "2026-06-03 17:01"
    assert data["outbox_waiting"] == []
    assert main([*args, "status"]) == 0
    shown = capsys.readouterr().out
    assert "推迟或等待法官" in shown and "第1夜：行动截止 推迟" in shown, shown
    assert "night1/deadline" not in shown
