"""Every flag a judge can set is explained in Chinese (issue 20): `forumbot flags` shows no English
meaning and no Python True/False by default."""

from __future__ import annotations

import json
import re

import pytest

from forumbot.cli import main
from forumbot.commands.setup import flag_lines
from forumbot.flagmeanings import MEANING_ZH, value_text

HAN = re.compile(r"[\u4e00-\u9fff]")


def test_every_engine_flag_has_a_chinese_meaning() -> None:
    missing = [r.name for r in flag_lines() if r.side != "night_messages" and r.name not in MEANING_ZH]
    assert missing == []
    assert all(HAN.search(text) for text in MEANING_ZH.values())


def test_no_meaning_left_for_a_flag_that_is_gone() -> None:
    names = {r.name for r in flag_lines()}
    assert set(MEANING_ZH) <= names


def test_the_meanings_carry_no_rule_ids() -> None:
    """The AMB id has its own column; the meaning is for the judge."""
    assert [n for n, text in MEANING_ZH.items() if "AMB-" in text] == []


def test_switches_read_as_yes_and_no() -> None:
    assert value_text(True, "zh_CN") == "是（true）"
    assert value_text(False, "zh_CN") == "否（false）"
    assert value_text(None, "zh_CN") == "空"
    assert value_text(True, "en") == "True"


def test_flags_prints_chinese_meanings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["flags"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"│\s*(True|False|None)\s*│", out), "a value cell shows Python's words"
    assert "是（true）" in out
    assert "被附体的平民除算作匪之外" in out.replace("\n", "").replace("│", "").replace(" ", "")


def test_flags_json_keeps_the_english_doc_and_adds_the_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["flags", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert all(HAN.search(r["meaning_zh"]) for r in rows), [
        r["name"] for r in rows if not HAN.search(r["meaning_zh"])
    ]
    gp = next(r for r in rows if r["name"] == "gp_possessed_counts_as_civilian")
    assert gp["doc"].startswith("Whether a possessed civilian")
