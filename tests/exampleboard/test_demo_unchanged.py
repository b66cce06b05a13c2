"""``forumbot demo`` plays the whole example game 【夜宵杀】 through the runner and prints the same judgement
every time: its whole output is compared with demo_output.txt (recorded when the demo moved to the runner
and the living example board, issue 10), with the port and the temporary paths masked. When the demo's
story is changed on purpose, record the file again (and read the difference: it is the judgement).
"""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from forumbot.commands.demo import run_demo

GOLDEN = Path(__file__).with_name("demo_output.txt")


def _masked(text: str) -> str:
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    text = re.sub(r"/tmp/\S+", "TMP", text)
    text = re.sub(r"\S*/demo\.db", "TMP", text)
    text = re.sub(r"first seen \d\d-\d\d \d\d:\d\d", "first seen NOW", text)
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00", "NOW", text)


def test_the_demo_plays_the_whole_game_and_prints_the_same_judgement(tmp_path: Path) -> None:
    out = Console(record=True, width=200, force_terminal=False, color_system=None)
    assert run_demo(tmp_path, out) == 0
    got = _masked(out.export_text()).splitlines()
    want = GOLDEN.read_text("utf-8").splitlines()
    assert any("麻花 被处决，身份：杀手" in line for line in want)
    assert any("winner police" in line for line in want)
    assert got == want
