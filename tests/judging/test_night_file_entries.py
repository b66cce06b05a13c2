"""Issue 22: a night file records what the judges received, so an incomplete entry is refused whole,
naming the entry and the missing field, before anything is recorded. A kill with no target and no
time was recorded as a late kill (平安夜 by accident); now each kind says what it needs: a time
always, a target (or ``none = true`` for 空刀 / 放弃守护, or a possession for AMB-18) for a kill or a
protection, the kind's own fields otherwise (example game: 烧卖 杀手, 包子 警察; night 1 due
2026-06-03 17:00)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from forumbot.cli import main
from forumbot.desk import Desk, action_from_fields, read_submissions
from forumbot.errors import UsageError
from forumbot.store import Store, records
from tests.judging.conftest import EXAMPLE, example_data, example_game, example_roles

# These tests check each rule by its message's English wording (the msgid); the Chinese a judge
# reads is checked in tests/test_error_language.py.
pytestmark = pytest.mark.usefixtures("english_messages")

KILL = {"kind": "kill", "by": "烧卖", "target": "锅贴", "pledge": "烧卖", "at": "2026-06-03 16:40"}
CHECK = {"kind": "check", "by": "包子", "target": "烧卖", "at": "2026-06-03 16:55"}


def night_file(tmp_path: Path, *entries: dict[str, Any]) -> Path:
    path = tmp_path / "night.toml"
    path.write_text(tomli_w.dumps({"submissions": list(entries)}), "utf-8")
    return path


def without(entry: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in keys}


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        (without(KILL, "target", "at"), "no time"),  # the case: the time is checked first
        (without(KILL, "target"), "a kill submission needs target"),
        (without(KILL, "at"), "no time"),
        (without(CHECK, "target"), "a check submission needs target"),
        (without(CHECK, "kind"), "no kind"),
        ({"kind": "protect", "target": "烧卖", "at": "2026-06-03 16:50"}, "a protect submission needs by"),
        ({"kind": "protect", "by": "饺子", "at": "2026-06-03 16:50"}, "a protect submission needs target"),
        ({"kind": "arrow", "first": "饺子", "at": "2026-06-03 16:50"}, "an? arrow submission needs second"),
        (KILL | {"taget": "锅贴"}, "unknown field taget"),
        (KILL | {"none": True}, "a kill submission names target '锅贴' and none"),
        (CHECK | {"none": True}, "none \\(no target\\) goes with a kill or a protect"),
    ],
)
def test_an_incomplete_entry_is_refused_naming_the_entry_and_the_field(
    tmp_path: Path, entry: dict[str, Any], named: str
) -> None:
    path = night_file(tmp_path, CHECK, entry)
    with pytest.raises(UsageError, match=f"entry 2: {named}.*nothing was recorded"):
        read_submissions(path)


@pytest.mark.parametrize(
    "entry",
    [
        KILL,
        without(KILL, "target") | {"none": True},  # 空刀, said on purpose
        without(KILL, "target") | {"possess": "锅贴"},  # AMB-18: a possession-only night
        {"kind": "protect", "by": "饺子", "none": True, "at": "2026-06-03 16:50"},  # 放弃守护
        CHECK,
    ],
)
def test_a_complete_entry_or_a_deliberate_nothing_is_read(tmp_path: Path, entry: dict[str, Any]) -> None:
    assert read_submissions(night_file(tmp_path, entry)) == [entry]


def test_a_kill_said_to_have_no_target_is_a_night_without_kill() -> None:
    action = action_from_fields("kill", {"by": "烧卖", "none": True})
    assert action.victim is None  # type: ignore[union-attr]


def test_a_typed_kill_without_target_is_refused_too() -> None:
    """The CLI's `night submit kill` without --target (nor --none) was a silent 空刀."""
    with pytest.raises(UsageError, match="a kill submission needs target"):
        action_from_fields("kill", {"by": "烧卖"})


# Fields each kind needs in a night file (besides kind): a missing one must be named.
NEEDED: dict[str, tuple[str, ...]] = {
    "kill": ("at", "target"),
    "check": ("at", "target"),
    "protect": ("at", "by", "target"),
    "arrow": ("at", "first", "second"),
}
COMPLETE: dict[str, dict[str, Any]] = {
    "kill": KILL,
    "check": CHECK,
    "protect": {"kind": "protect", "by": "饺子", "target": "烧卖", "at": "2026-06-03 16:50"},
    "arrow": {"kind": "arrow", "by": "卤蛋", "first": "饺子", "second": "烧卖", "at": "2026-06-03 16:50"},
}


@hyp_settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(data=st.data())
def test_any_entry_missing_a_needed_field_is_refused_and_names_a_missing_one(
    tmp_path: Path, data: st.DataObject
) -> None:
    kind = data.draw(st.sampled_from(sorted(COMPLETE)))
    full = COMPLETE[kind]
    dropped = data.draw(st.sets(st.sampled_from(sorted(k for k in full if k != "kind"))))
    path = night_file(tmp_path, without(full, *dropped))
    missing = dropped & set(NEEDED[kind])
    if not missing:
        assert read_submissions(path) == [without(full, *dropped)]
        return
    with pytest.raises(UsageError) as refused:
        read_submissions(path)
    said = str(refused.value)
    assert "nothing was recorded" in said
    assert ("no time" in said) if "at" in missing else any(f"needs {k}" in said for k in missing)


# --------------------------------------------------------------------------- the command and the desk


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    data = example_data(days=1)
    data["game"]["store"] = "game.db"
    p = tmp_path / "forumbot.toml"
    p.write_text(tomli_w.dumps(data), "utf-8")
    return p


def test_night_submit_file_with_a_kill_without_target_or_time_records_nothing(
    game_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--game", str(game_file), "setup", "--roles", str(EXAMPLE / "roles.toml")]) == 0
    path = night_file(tmp_path, CHECK, {"kind": "kill", "by": "烧卖"})
    code = main(["--game", str(game_file), "night", "submit", "--night", "1", "--file", str(path)])
    assert code == 1
    err = capsys.readouterr().err  # the CLI speaks Chinese by default
    assert "第 2 条：缺少 at（时间）" in err and "未录入任何提交" in err
    assert main(["--game", str(game_file), "night", "submit", "--night", "1", "--file", str(path)]) == 1
    # the complete entries of the same night are recorded as before
    good = night_file(tmp_path, CHECK, KILL)
    assert main(["--game", str(game_file), "night", "submit", "--night", "1", "--file", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.count("已录入") == 2 and "迟交" not in out  # the CLI speaks Chinese by default


def test_the_cli_kill_with_none_is_a_deliberate_no_kill(
    game_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--game", str(game_file), "setup", "--roles", str(EXAMPLE / "roles.toml")]) == 0
    args = ["--game", str(game_file), "night", "submit", "--night", "1", "kill", "--by", "烧卖"]
    assert main([*args, "--at", "2026-06-03 16:40"]) == 1
    assert "kill 提交缺少 target（目标）" in capsys.readouterr().err
    assert main([*args, "--none", "--at", "2026-06-03 16:40"]) == 0


def test_a_refused_file_leaves_the_night_empty(store: Store, tmp_path: Path) -> None:
    desk = Desk(example_game(store.url), store, by="test-judge")
    desk.setup(roles=example_roles())
    with pytest.raises(UsageError):
        desk.night_entries(1, read_submissions(night_file(tmp_path, CHECK, without(KILL, "target"))))
    with store.session() as s:
        assert records.night_submissions(s, desk.gid, 1) == []
