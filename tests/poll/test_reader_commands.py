"""The reading commands: ``forumbot poll``, ``forumbot parse``, ``forumbot posts``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forumbot.cli import main
from forumbot.commands.reader import parse_when, read_headers_file
from forumbot.exampleboard.render import TZ
from forumbot.exampleboard.server import LiveBoard
from forumbot.resources import data_dir
from forumbot.store import open_store
from forumbot.store.threads import list_threads
from tests.boards import ROOT, small_board
from tests.shared_fixtures import SHARED_FIXTURES, require_shared

FIXTURES = SHARED_FIXTURES / "discuz-x35-utf8"
EXAMPLE_GAME = data_dir() / "examples" / "meishi" / "game.toml"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no stray ./forumbot.toml or ./forumbot.db


def test_poll_and_posts_with_flags(
    fake_board: LiveBoard, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_board.add_thread(2, 12)
    vote = fake_board.reply(2, "月饼", "投票：饺子")
    db = str(tmp_path / "s.db")
    args = ["--store", db, "poll", "--board", ROOT, "--fid", "3", "--thread", "2", "--min-interval", "0"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "3 次请求" in out and "13 个新帖子" in out and "首次读取" in out
    fake_board.edit(vote, "投票：包子")
    assert main([*args, "--full"]) == 0
    assert "1 个新版本" in capsys.readouterr().out

    assert main(["--store", db, "posts", "2", "--author", "月饼", "--revisions"]) == 0
    out = capsys.readouterr().out
    assert "投票：包子" in out and "第 1 版" in out and "第 2 版" in out and "投票：饺子" in out
    local = fake_board.post(vote).at.astimezone(TZ).strftime("%Y-%m-%d %H:%M:%S")
    assert local in out  # board time, not UTC

    assert main(["--store", db, "posts", "2", "--json", "--revisions"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["pid"] for p in data] == list(range(1, 14))
    assert [r["text"] for r in data[-1]["revisions"]] == ["投票：饺子", "投票：包子"]

    since = fake_board.post(vote).at.astimezone(TZ).strftime("%Y-%m-%d %H:%M:%S")
    assert main(["--store", db, "posts", "2", "--json", "--since", since]) == 0
    assert [p["pid"] for p in json.loads(capsys.readouterr().out)] == [vote]


def test_poll_reports_board_errors_with_exit_code_3(
    fake_board: LiveBoard, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "s.db")
    code = main(["--store", db, "poll", "--board", ROOT, "--thread", "77", "--min-interval", "0", "--json"])
    assert code == 3
    report = json.loads(capsys.readouterr().out)
    assert report["errors"][0]["kind"] == "ThreadNotFound"


def test_poll_from_a_game_file(
    fake_board: LiveBoard, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_board.add_thread(2, 4)
    fake_board.add_thread(3, 6)
    fake_board.add_thread(4, 1)  # the example game's day-2 threads
    fake_board.add_thread(5, 1)
    game = EXAMPLE_GAME.read_text("utf-8").replace("http://127.0.0.1:8080/", ROOT)
    game = game.replace("[game]\n", '[game]\nstore = "game.db"\n', 1)
    (tmp_path / "forumbot.toml").write_text(game, "utf-8")
    assert main(["poll"]) == 0
    assert "12 个新帖子" in capsys.readouterr().out
    with open_store(tmp_path / "game.db") as store:
        threads = list_threads(store, ROOT)
        assert [(t.tid, t.kind, t.day) for t in threads] == [
            (2, "discussion", 1),
            (3, "vote", 1),
            (4, "discussion", 2),
            (5, "vote", 2),
        ]
    assert main(["posts", "3"]) == 0  # board and store from the game file
    assert "显示 6 个回帖" in capsys.readouterr().out


def test_poll_without_a_board_is_a_config_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["poll", "--thread", "2"]) == 2
    assert "--board" in capsys.readouterr().err


def test_parse_a_saved_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = small_board()
    board.add_thread(7, 13)
    board.edit(12, "改了")
    page = tmp_path / "p2.html"
    page.write_bytes(board.thread_html(7, 2).encode())
    (tmp_path / "p2.html.headers").write_text(
        f"GET {ROOT}forum.php?mod=viewthread&tid=7&page=2\nHTTP 200\nDate: Thu, 04 Jun 2026 03:00:00 GMT\n"
        "Content-Type: text/html; charset=utf-8\n",
        "utf-8",
    )
    assert main(["parse", str(page), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    text = json.dumps(data, ensure_ascii=False)
    assert "改了" in text and "13" in text
    assert main(["parse", str(page)]) == 0
    out = capsys.readouterr().out
    assert "第 2/2 页" in out and "改了" in out


def test_parse_a_forum_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = small_board()
    board.add_thread(7, 3)
    f = tmp_path / "forum.html"
    f.write_bytes(board.answer_get("forum.php?mod=forumdisplay&fid=3", "")[1])
    assert main(["parse", str(f), "--url", ROOT + "forum.php?mod=forumdisplay&fid=3"]) == 0
    assert "回复     2" in capsys.readouterr().out


def test_read_headers_file_follows_redirects(tmp_path: Path) -> None:
    h = tmp_path / "x.headers"
    h.write_text(
        "GET http://127.0.0.1:8080/forum.php?mod=viewthread&tid=4&mobile=2\n"
        "HTTP 302 (redirect)\nDate: Sun, 29 Nov 2026 13:31:52 GMT\n"
        "Location: member.php?mod=logging&action=login&mobile=2\n\n"
        "HTTP 200\nDate: Sun, 29 Nov 2026 13:31:53 GMT\nContent-Type: text/html; charset=utf-8\n",
        "utf-8",
    )
    saved = read_headers_file(h)
    assert saved.url == "http://127.0.0.1:8080/member.php?mod=logging&action=login&mobile=2"
    assert (saved.status, saved.date) == (200, "Sun, 29 Nov 2026 13:31:53 GMT")
    assert saved.content_type == "text/html; charset=utf-8"


def test_parse_when() -> None:
    assert parse_when("2026-06-04 13:00", TZ).isoformat() == "2026-06-04T05:00:00+00:00"
    assert parse_when("2026/6/4 9:00:30", TZ).isoformat() == "2026-06-04T01:00:30+00:00"  # Discuz! Y-n-j
    assert parse_when("2026-06-04T13:00:00+00:00", TZ).hour == 13


@pytest.mark.conformance
def test_parse_a_captured_page_uses_its_headers(capsys: pytest.CaptureFixture[str]) -> None:
    require_shared(FIXTURES / "thread3_vote" / "pc_page2.guest.html")
    assert main(["parse", str(FIXTURES / "thread3_vote" / "pc_page2.guest.html"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "59" in json.dumps(data)  # the change vote lives on page 2


def test_posts_without_a_store_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--store", "nowhere.db", "posts", "2"]) == 1
    assert "nowhere.db 没有存储" in capsys.readouterr().err
