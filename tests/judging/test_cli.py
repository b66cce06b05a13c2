"""The judge's day on the command line, against a responses-mocked board and a store file."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
import tomli_w

from forumbot.cli import main
from tests.judging.conftest import EXAMPLE, MockBoard, example_data


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    data = example_data(days=1)
    data["game"]["store"] = "game.db"
    p = tmp_path / "forumbot.toml"
    p.write_text(tomli_w.dumps(data), "utf-8")
    return p


def run(game_file: Path, *args: str) -> int:
    return main(["--game", str(game_file), *args])


def out_json(capsys: pytest.CaptureFixture[str]) -> dict:
    return json.loads(capsys.readouterr().out)


def test_a_judges_day_from_setup_to_close(game_file: Path, mock_board: MockBoard, capsys) -> None:
    assert run(game_file, "setup", "--roles", str(EXAMPLE / "roles.toml")) == 0
    assert run(game_file, "night", "submit", "--night", "1", "--file", str(EXAMPLE / "night1.toml")) == 0
    capsys.readouterr()
    assert run(game_file, "night", "resolve", "--day", "1", "--json") == 0  # --day is --night's alias
    night = out_json(capsys)
    assert night["out"] == ["锅贴"] and "死者：锅贴" in night["case_post"]

    mock_board.use("s2")
    assert run(game_file, "poll", "--full") == 0  # a verdict needs every page read after the close
    capsys.readouterr()
    assert run(game_file, "tally", "--day", "1", "--json") == 0
    tally = out_json(capsys)
    assert tally["provisional"] is False and tally["provisional_reasons"] == []
    assert [(t["target"], t["count"]) for t in tally["tally"]] == [("烧卖", 3), ("饺子", 2)]
    assert tally["outcome"]["kind"] == "execute"
    assert {v["pid"]: v["status"] for v in tally["verdicts"]}[39] == "late"
    assert "烧卖 被处决，身份：杀手" in tally["draft"]

    assert (
        run(game_file, "override", "39", "--as", "ignore", "--why", "迟到票不列出") == 0
    )  # day found from the pid
    capsys.readouterr()
    assert run(game_file, "tally", "--day", "1", "--json") == 0
    v39 = next(v for v in out_json(capsys)["verdicts"] if v["pid"] == 39)
    assert v39["status"] == "overridden" and v39["override"]["why"] == "迟到票不列出"

    assert run(game_file, "close", "--day", "1") == 0
    capsys.readouterr()
    assert run(game_file, "state", "--json") == 0
    state = out_json(capsys)
    assert state["phase"] == "night 2"
    assert {p["name"]: p["alive"] for p in state["players"]}["烧卖"] is False


def test_an_illegal_night_action_is_refused_with_the_rule(game_file: Path, capsys) -> None:
    assert run(game_file, "setup", "--roles", str(EXAMPLE / "roles.toml")) == 0
    code = run(game_file, "night", "submit", "--night", "1", "check", "--by", "包子", "--target", "无名氏")
    assert code == 4
    assert "无名氏" in capsys.readouterr().err


def test_attendance_and_the_elevator(game_file: Path, mock_board: MockBoard, capsys) -> None:
    mock_board.use("s2")
    assert run(game_file, "poll") == 0
    capsys.readouterr()
    assert run(game_file, "attendance", "--day", "1", "--json") == 0
    att = out_json(capsys)
    assert att["counts"]["馄饨"] == 0 and "馄饨" in att["deficient"]
    assert run(game_file, "attendance", "--day", "1", "--elevator") == 0
    assert "【美食杀】第1日电梯" in capsys.readouterr().out


def test_flags_lists_every_amb_proposal(capsys) -> None:
    assert main(["flags", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    ambs = {r["amb"] for r in rows}
    assert {"AMB-24", "AMB-43", "AMB-63", "AMB-75"} <= ambs


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["tally", "--day", "1"], 2, "game file"),
        (["tally", "--day", "9"], 1, "游戏文件中没有第9日"),  # Chinese by default (issue 11)
        (["override", "12345", "--day", "1", "--as", "void", "--why", "x"], 1, "pid 12345"),
        (["state"], 1, "forumbot setup"),
    ],
)
def test_clear_errors_and_exit_codes(game_file: Path, tmp_path: Path, args, code, words, capsys) -> None:
    if words == "game file":
        assert main(["--game", str(tmp_path / "missing.toml"), *args]) == code
    else:
        assert run(game_file, *args) == code
    assert words in capsys.readouterr().err


def test_init_writes_a_starter_game_file_that_loads(tmp_path: Path, capsys) -> None:
    from forumbot.config import load_game

    target = tmp_path / "forumbot.toml"
    assert (
        main(["--game", str(target), "init", "--ruleset", "杀人游戏", "--board", "https://b.example/"]) == 0
    )
    data = tomllib.loads(target.read_text("utf-8"))
    assert data["game"]["ruleset"] == "R004" and data["timetable"]["vote_close"] == "21:00"
    data["players"]["roster"] = ["甲"]
    target.write_text(tomli_w.dumps(data), "utf-8")
    assert load_game(target).ruleset == "R004"
    assert main(["--game", str(target), "init"]) == 1  # never overwrites without --force
    assert "已存在" in capsys.readouterr().err  # Chinese first


def test_undo_is_shown_in_the_history_with_who_undid_what(game_file: Path, capsys) -> None:
    assert run(game_file, "setup", "--roles", str(EXAMPLE / "roles.toml")) == 0
    assert run(game_file, "night", "submit", "--night", "1", "--file", str(EXAMPLE / "night1.toml")) == 0
    assert run(game_file, "night", "resolve", "--night", "1") == 0
    assert run(game_file, "undo") == 0
    assert "已撤销：第1夜；游戏回到：法官录入身份" in capsys.readouterr().out  # the labels, not the codes
    assert run(game_file, "state", "--json", "--history") == 0
    state = out_json(capsys)
    assert state["phase"] == "night 1"  # the roles as set up, before the night was resolved
    history = [(h["label"], h["undone_at"] is not None) for h in state["history"]]
    assert history == [("setup (roles given by the judges)", False), ("night 1", True)]
    assert state["history"][1]["undone_by"] == state["history"][1]["by"]  # the same judge's desk


def test_state_status_and_outbox_speak_the_judges_words(game_file: Path, capsys) -> None:
    """Issue 20: no «R001, night 3», «killed (2)», «Outcome(…)», «night1/deadline», ``case_post`` or
    ``forumbot-runner`` where a judge reads; --json keeps the codes."""
    assert run(game_file, "setup", "--roles", str(EXAMPLE / "roles.toml")) == 0
    assert run(game_file, "night", "submit", "--night", "1", "--file", str(EXAMPLE / "night1.toml")) == 0
    submitted = capsys.readouterr().out
    assert "第1夜：已录入 杀人（烧卖）" in submitted and "kill by" not in submitted, submitted
    assert run(game_file, "night", "resolve", "--night", "1") == 0
    resolved = capsys.readouterr().out
    assert "→ 警署讨论组" in resolved and "→ group:" not in resolved, resolved
    assert run(game_file, "state", "--history") == 0
    state = capsys.readouterr().out
    assert state.startswith("R001，第1日") and "出局：被杀（第1轮）" in state, state
    assert "#2 第1夜" in state and "#1 法官录入身份" in state, state
    for code in ("night 1", "day 1", "killed", "(1)", "setup (", "Outcome("):
        assert code not in state, (code, state)

    assert run(game_file, "status") == 0
    status = capsys.readouterr().out
    assert "第1日" in status and "第1日：投票截止" in status, status
    for code in ("day 1", "day1/", "night1/", "/close", "case_post"):
        assert code not in status, (code, status)
    assert run(game_file, "status", "--json") == 0
    data = out_json(capsys)
    assert data["phase"] == "day 1" and any(m["key"] == "day1/close" for m in data["next"])

    body = "[b]【美食杀】第1夜结果[/b]"
    args = ("--kind", "case_post", "--reply", "2", "--body", body, "--night", "1")
    assert run(game_file, "outbox", "add", *args) == 0
    capsys.readouterr()
    assert run(game_file, "outbox") == 0
    listing = capsys.readouterr().out
    assert "案情" in listing and "case_post" not in listing, listing
    first = listing.split()[0].lstrip("#")
    assert run(game_file, "outbox", "show", first) == 0
    shown = capsys.readouterr().out
    assert "所属：第1夜" in shown and "草稿" in shown, shown
    for code in ("case_post", "draft", "night 1", "(draft)"):
        assert code not in shown, (code, shown)
