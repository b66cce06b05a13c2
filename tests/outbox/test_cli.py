"""``forumbot outbox``: a judge adds, edits on approval, sends and reads back, from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from forumbot.cli import main
from forumbot.exampleboard.server import LiveBoard
from tests.boards import ROOT
from tests.conftest import TEST_UA

GAME = f"""
[game]
name = "美食杀"
ruleset = "R001"
judges = ["法官大人"]
store = "game.db"

[board]
url = "{ROOT}"
username = "法官大人"
password_env = "FORUMBOT_TEST_PASSWORD"
min_interval = 0
user_agent = {json.dumps(TEST_UA)}

[players]
roster = ["饺子", "包子", "馄饨"]

[outbox]
pm_interval = 0
auto_approve = ["running_count"]

[outbox.uids]
"饺子" = 2
"包子" = 3
"馄饨" = 4
"法官大人" = 14

[[days]]
day = 1
vote = 5
discussion = 4
opens = "2026-06-03 17:20"
"""


@pytest.fixture
def game_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, board: LiveBoard) -> Path:
    path = tmp_path / "forumbot.toml"
    path.write_text(GAME, "utf-8")
    monkeypatch.setenv("FORUMBOT_TEST_PASSWORD", "hunter2")
    monkeypatch.setenv("FORUMBOT_JUDGE", "执法团甲")
    board.options.pmfloodctrl = 0
    return path


def run(game: Path, *argv: str) -> int:
    return main(["--game", str(game), "outbox", *argv])


def test_add_approve_with_editor_send_and_show(
    game_file: Path,
    board: LiveBoard,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        run(
            game_file,
            "add",
            "--reply",
            "5",
            "--kind",
            "vote_count",
            "--body",
            "【票数统计】草稿",
            "--day",
            "1",
        )
        == 0
    )
    assert (
        run(
            game_file,
            "add",
            "--pm",
            "2",
            "--kind",
            "private_notice",
            "--player",
            "饺子",
            "--body",
            "你的身份是【平民】",
        )
        == 0
    )
    # a secret to a public thread is refused with a message and an exit code, nothing stored
    assert (
        run(
            game_file,
            "add",
            "--reply",
            "5",
            "--kind",
            "private_notice",
            "--player",
            "饺子",
            "--body",
            "你是杀手",
        )
        == 1
    )
    assert "秘密" in capsys.readouterr().err
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys; p=sys.argv[1]; t=open(p,encoding='utf-8').read(); "
        "open(p,'w',encoding='utf-8').write(t.replace('草稿','烧卖 3 票'))"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    assert run(game_file, "approve", "1", "--edit") == 0
    assert run(game_file, "approve", "2") == 0
    capsys.readouterr()
    assert run(game_file, "send") == 0
    out = capsys.readouterr().out
    assert "已发送 2 条" in out
    assert board.writer.count("【票数统计】烧卖 3 票") == 1 and board.writer.count("你的身份是【平民】") == 1
    assert run(game_file, "show", "1", "--json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["status"] == "sent" and shown["approved_by"] == "执法团甲"
    assert [r["body"] for r in shown["revisions"]] == ["【票数统计】草稿", "【票数统计】烧卖 3 票"]
    assert run(game_file, "send") == 0  # nothing left: nothing posted again
    assert len(board.writer.received) == 2
    assert run(game_file, "--all") == 0
    listing = capsys.readouterr().out
    assert "#1" in listing and "已发送" in listing


def test_a_refusal_is_shown_in_the_boards_words(
    game_file: Path, board: LiveBoard, capsys: pytest.CaptureFixture[str]
) -> None:
    board.options.closed.add(5)
    run(game_file, "add", "--reply", "5", "--body", "【公告】")
    run(game_file, "approve", "1")
    assert run(game_file, "send") == 1
    assert "抱歉，本主题已关闭，不再接受新内容" in capsys.readouterr().out
    assert run(game_file, "cancel", "1", "--why", "帖子已关") == 0
    assert run(game_file, "cancel", "1") == 1
