"""The judge's commands for the acts the runner also reads: `forumbot authority` (R004 威权 handed over by
hand, or the director's draw) and `forumbot substitute` (替补/顶替), in the judge's language."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from forumbot.cli import main
from forumbot.config import load_game
from forumbot.desk import Desk
from forumbot.outbox import Outbox
from forumbot.resources import data_dir
from forumbot.store.db import Store, open_store

SRC = data_dir() / "examples" / "r004game"


@pytest.fixture
def args(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """【杀人游戏】 after night 1, where the killers killed the mayor 米线 (he holds 威权)."""
    shutil.copy(SRC / "game.toml", tmp_path / "game.toml")
    shutil.copy(SRC / "roles.toml", tmp_path / "roles.toml")
    monkeypatch.setenv("FORUMBOT_PASSWORD", "demo")
    monkeypatch.setenv("FORUMBOT_JUDGE", "导演")
    a = ["--game", str(tmp_path / "game.toml"), "--store", str(tmp_path / "game.db")]
    assert main([*a, "setup", "--roles", str(tmp_path / "roles.toml")]) == 0
    game = load_game(tmp_path / "game.toml")
    with open_store(str(tmp_path / "game.db")) as store:
        desk = Desk(game, store, by="导演")
        desk.night_entries(1, [{"kind": "kill", "by": "豆浆", "target": "米线", "at": "2026-06-08 21:00"}])
        desk.night_resolve(1)
    return a


def _desk(args: list[str]) -> tuple[Desk, Store]:
    store = open_store(args[3])
    return Desk(load_game(args[1]), store, by="导演"), store


def test_authority_by_hand_applies_it_and_drafts_the_new_holders_pm(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main([*args, "authority", "麻团", "--at", "2026-06-09 08:00", "--why", "米线 在QQ上告诉导演"]) == 0
    out = capsys.readouterr().out
    assert "威权已移交：米线 → 麻团" in out and "发件箱" in out
    desk, store = _desk(args)
    with store:
        assert desk.require_state().authority_holder == "麻团"
        (item,) = Outbox(store, desk.game).items()
        assert item.player == "麻团" and "你获得<威权>" in item.body and item.status == "draft"
    assert main([*args, "undo"]) == 0
    desk, store = _desk(args)
    with store:
        assert desk.require_state().authority_pending == "米线"


def test_authority_refused_says_why_in_chinese(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*args, "authority", "米线"]) != 0
    err = capsys.readouterr().err
    assert "不能交给自己" in err


def test_authority_random_draws_a_living_role(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*args, "authority", "--random"]) == 0
    assert "随机指定" in capsys.readouterr().out
    desk, store = _desk(args)
    with store:
        st = desk.require_state()
        assert st.authority_holder is not None and st.is_alive(st.authority_holder)


def test_substitute_by_hand(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*args, "substitute", "锅盔", "小笼包", "--at", "2026-06-09 10:00"]) == 0
    assert "小笼包 自 2026-06-09 10:00 起接替 锅盔" in capsys.readouterr().out
    assert main([*args, "substitute", "锅盔", "生煎", "--at", "2026-06-09 11:00"]) != 0
    assert "锅盔 在 06-09 11:00 不是本局在场的账号" in capsys.readouterr().err  # 小笼包 plays the slot now
    assert main([*args, "substitute", "小笼包", "生煎", "--at", "2026-06-09 11:00"]) != 0  # R004: once
    assert "只能被替补 1 次" in capsys.readouterr().err
