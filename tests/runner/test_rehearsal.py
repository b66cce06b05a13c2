"""Rehearsal (`forumbot tick --at TIME --dry-run`): the tick as of TIME on a copy of the store; nothing
reaches the board, the real store is unchanged, and the judge sees the moments it would run with their
drafts. `status` says what each next moment reads, drafts and sends."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import inspect
from sqlmodel import SQLModel, func, select

from forumbot.cli import main
from forumbot.desk import Desk
from forumbot.errors import UsageError
from forumbot.labels import outbox_kind_label
from forumbot.resources import data_dir
from forumbot.runner.fastplay import FastClock, example_game, example_roles
from forumbot.runner.rehearsal import RehearsalClient, parse_at, rehearse, store_copy
from forumbot.store.db import Store
from tests.runner.yexiao import ALL_KINDS, START, board, open_runner

NIGHT1_DONE = datetime(2026, 6, 3, 9, 5, tzinfo=UTC)  # 17:05 Beijing: night 1's deadline (17:00) is past


def _dump(db: Path) -> list[str]:
    """The whole SQLite store as SQL text: equal dumps, unchanged store."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return list(con.iterdump())
    finally:
        con.close()


def _board_writes(requests: list[str]) -> list[str]:
    """The POSTs that are not a login (a login changes nothing a player sees)."""
    return [r for r in requests if r.startswith("POST ") and "mod=logging" not in r]


def test_a_rehearsed_night_deadline_drafts_its_posts_sends_nothing_and_leaves_the_store_as_it_was(
    tmp_path: Path,
) -> None:
    clock = FastClock(START)
    with board(clock) as b:
        db = tmp_path / "game.db"
        p = open_runner(b.url, db, clock)  # every kind auto-approved: a real tick would send at once
        p.runner.tick()  # a real tick before the deadline: reads, nothing due
        before = _dump(db)
        clock.now = NIGHT1_DONE  # the board as of the rehearsal's time
        lines: list[str] = []
        r = rehearse(p.game, p.store, NIGHT1_DONE, log=lines.append)
        assert "night1/deadline" in r.report.done
        assert any(i.kind == "case_post" and i.moment_key.startswith("night1/") for i in r.drafts)
        assert {i.id for i in r.would_send} >= {i.id for i in r.drafts}  # auto-approved, so due to send
        assert _board_writes(b.requests) == []
        assert b.writer.posts == [] and b.writer.pms == [] and b.writer.edits == {}
        assert any("第1夜：行动截止" in line for line in lines)  # the moment in words, not its key
        p.store.close()
    assert _dump(db) == before


def test_a_real_tick_after_a_rehearsal_does_the_moment_itself(tmp_path: Path) -> None:
    """Nothing of the rehearsal is left for a real tick to send or to take as done."""
    clock = FastClock(NIGHT1_DONE)
    with board(clock) as b:
        p = open_runner(b.url, tmp_path / "game.db", clock)
        rehearse(p.game, p.store, NIGHT1_DONE, log=lambda _l: None)
        assert p.steps.outbox.items() == []
        report = p.runner.tick()
        assert "night1/deadline" in report.done
        assert _board_writes(b.requests) != []  # the real tick sent what it approved
        p.store.close()


def test_the_rehearsal_client_refuses_every_write() -> None:
    game = example_game("yexiao", "http://127.0.0.1:9/", ":memory:", auto_approve=ALL_KINDS)
    client = RehearsalClient(game.board)
    with pytest.raises(UsageError):
        client.post_form("http://127.0.0.1:9/forum.php?mod=post&action=reply", b"message=x")
    assert client.requests_made == 0


def _counts(store: Store) -> dict[str, int]:
    """Rows per table of the store."""
    present = set(inspect(store.engine).get_table_names())
    with store.session() as s:
        return {
            t.name: s.exec(select(func.count()).select_from(t)).one()  # type: ignore[call-overload]
            for t in SQLModel.metadata.sorted_tables
            if t.name in present
        }


def test_the_copy_holds_every_row_of_the_store_on_every_backend(store: Store) -> None:
    game = example_game("yexiao", "http://127.0.0.1:9/", store.url)
    Desk(game, store, by="法官大人").setup(roles=example_roles("yexiao"))
    want = _counts(store)
    assert sum(want.values()) > 0
    with store_copy(store) as copy:
        assert _counts(copy) == want
    assert _counts(store) == want


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31)))
def test_at_is_read_in_the_boards_zone(t: datetime) -> None:
    game = example_game("yexiao", "http://127.0.0.1:9/", ":memory:")
    t = t.replace(second=0, microsecond=0)
    got = parse_at(t.strftime("%Y-%m-%d %H:%M"), game)
    assert got.replace(tzinfo=None) == t and got.utcoffset() == game.tz.utcoffset(t)


def test_a_time_not_in_the_expected_form_is_refused_naming_the_form() -> None:
    game = example_game("yexiao", "http://127.0.0.1:9/", ":memory:")
    with pytest.raises(UsageError, match="YYYY-MM-DD HH:MM"):
        parse_at("6/3 17:05", game)


def test_tick_dry_run_on_the_command_line_prints_the_drafts_and_status_says_what_moments_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FastClock(NIGHT1_DONE)
    with board(clock) as b:
        src = data_dir() / "examples" / "yexiao"
        text = (src / "game.toml").read_text("utf-8").replace("http://127.0.0.1:8080/", b.url)
        (tmp_path / "game.toml").write_text(text, "utf-8")
        shutil.copy(src / "roles.toml", tmp_path / "roles.toml")
        monkeypatch.setenv("FORUMBOT_PASSWORD", "demo")
        db = tmp_path / "game.db"
        args = ["--game", str(tmp_path / "game.toml"), "--store", str(db)]
        assert main([*args, "setup", "--roles", str(tmp_path / "roles.toml")]) == 0
        before = _dump(db)
        capsys.readouterr()
        assert main([*args, "tick", "--at", "2026-06-03 17:05", "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert "演练" in out and "第1夜：行动截止" in out
        assert "night1/" not in out  # neither the moment's key nor the drafts' keys
        assert outbox_kind_label("case_post") in out  # the night's drafts, printed in full
        assert "#1 " in out
        assert _board_writes(b.requests) == []
        assert _dump(db) == before
        # acting as of another time on the real board is refused
        assert main([*args, "tick", "--at", "2026-06-03 17:05"]) != 0
        assert _dump(db) == before
        capsys.readouterr()
        assert main([*args, "status", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        first = data["next"][0]
        assert first["key"] == "night1/deadline"
        assert set(first["does"]) == {"reads", "drafts", "sends"}
        assert main([*args, "status"]) == 0
        out = capsys.readouterr().out
        assert "读" in out and "拟" in out and "发送" in out
