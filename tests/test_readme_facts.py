"""What the README states as a fact matches the program (issue 8: it said 75 flags, `flags --json` 84)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from forumbot.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_names_as_many_flags_as_forumbot_flags_lists(capsys: pytest.CaptureFixture[str]) -> None:
    m = re.search(r"`forumbot flags` lists all (\d+)", README.read_text("utf-8"))
    assert m is not None, "the README no longer says how many flags there are"
    assert main(["flags", "--json"]) == 0
    assert int(m.group(1)) == len(json.loads(capsys.readouterr().out))
