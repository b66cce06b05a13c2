"""The day engine is pure (no forumbot, no I/O, no clock) and every day flag names its AMB id."""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

import pytest

from engine import (
    DayFlags,
    EditedVotePolicy,
    flag_table,
)

ENGINE = Path(__file__).resolve().parents[2] / "engine"
DAY_MODULES = sorted(
    [*ENGINE.glob("day/*.py"), ENGINE / "ballots.py", ENGINE / "flags_day.py", ENGINE / "attendance.py"]
)
FORBIDDEN_IMPORTS = (
    "forumbot",
    "requests",
    "sqlmodel",
    "sqlalchemy",
    "httpx",
    "socket",
    "urllib",
    "os",
    "time",
    "random",
    "subprocess",
    "pathlib",
    "io",
)
FORBIDDEN_CALLS = {"now", "utcnow", "today", "time", "open", "print", "input"}


@pytest.mark.parametrize("path", DAY_MODULES, ids=[p.relative_to(ENGINE).as_posix() for p in DAY_MODULES])
def test_day_engine_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            names = []
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN_IMPORTS, f"{path.name} imports {name}"
        if isinstance(node, ast.Call):
            fn = node.func
            called = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            assert called not in FORBIDDEN_CALLS, f"{path.name} line {node.lineno} calls {called}()"


def test_every_day_flag_names_its_ambiguity_and_says_what_it_does() -> None:
    for info in flag_table():
        assert info.amb.startswith("AMB-"), info.name
        assert len(info.doc) > 20, info.name
    assert len(flag_table()) == len(fields(DayFlags))


def test_day_flag_defaults_are_the_proposals() -> None:
    f = DayFlags()
    assert f.r001_void_cutoff_inclusive is True
    assert f.void_frees_revote is False
    assert f.r001_attendance_on_peaceful_round is True
    assert f.r001_revote_deadline_minutes == 60
    assert f.r001_revote_cumulative is True
    assert f.r001_proxy_limit_per_game == 2
    assert f.r004_mayor_target_must_be_tied is False
    assert f.r004_yellow_to_red is None and f.r004_min_posts_per_day is None
    assert f.r004_yellow_for_invalid_uncorrected is False
    assert f.r004_require_reason_label is True
    assert f.r004_edited_vote is EditedVotePolicy.INVALID_NO_PENALTY
    assert f.self_vote_allowed is True and f.name_fold_width_case is False
    assert f.r004_void_post_is_vote_attempt is False  # R004 has no 废票 (AMB-72)
    assert f.r004_application_withdrawal == "explicit"
    assert f.r004_acceleration_shortens_days == 1 and f.r004_delay_extends_days == 1  # AMB-82


def test_day_flags_validate_their_values() -> None:
    with pytest.raises(ValueError, match="revote_deadline"):
        DayFlags(r001_revote_deadline_minutes=0)
    with pytest.raises(ValueError, match="yellow_to_red"):
        DayFlags(r004_yellow_to_red=0)
    assert DayFlags(r004_edited_vote="valid").r004_edited_vote is EditedVotePolicy.VALID  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        DayFlags(r004_edited_vote="whatever")  # type: ignore[arg-type]


def test_application_flags_validate_their_values() -> None:
    with pytest.raises(ValueError, match="r004_application_withdrawal"):
        DayFlags(r004_application_withdrawal="sometimes")
    with pytest.raises(ValueError, match="must be ≥ 1"):
        DayFlags(r004_delay_extends_days=0)
