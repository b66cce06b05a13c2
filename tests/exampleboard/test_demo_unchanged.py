"""``forumbot demo`` plays the whole example game 【夜宵杀】 through the runner and prints the same judgement
every time: its whole output is compared with demo_output.txt (recorded when the demo moved to the runner
and the living example board, issue 10; recorded again when its words moved to the catalogs, issue 11),
with the port and the temporary paths masked. When the demo's story is changed on purpose, record the
file again (and read the difference: it is the judgement).

The demo speaks the judge's language: Chinese unless English is asked for. Its headings, verdicts,
outbox kinds, moments and the winner are labels from the catalogs, never the codes that ``--json`` and
the ledger keep (``counted``, ``not_a_submission``, ``case_post``, ``night1/deadline``, ``police``).
"""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from engine import VoteStatus, Winner
from forumbot.commands.demo import run_demo
from forumbot.i18n import current_language
from forumbot.nightmail import NightCode
from forumbot.outbox import ItemKind
from forumbot.runner.plan import MomentKind

GOLDEN = Path(__file__).with_name("demo_output.txt")
CODES = sorted(
    {c.value for enum in (VoteStatus, NightCode, ItemKind, Winner, MomentKind) for c in enum}
    | {"message", "author", "verdict", "reason", "floor", "target", "outbox", "winner", "alive", "Setup"}
)


def _masked(text: str) -> str:
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    text = re.sub(r"/tmp/[^\s（）]+", "TMP", text)
    text = re.sub(r"[^\s：（）]*/demo\.db", "TMP", text)
    text = re.sub(r"first seen \d\d-\d\d \d\d:\d\d", "first seen NOW", text)
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00", "NOW", text)


def english_codes(text: str) -> list[str]:
    """The codes and English headings found as words in ``text`` (URLs and BBCode tags set aside)."""
    words = re.sub(r"https?://\S+|\[/?\w+(=[^\]]*)?\]", " ", text)
    return [c for c in CODES if re.search(rf"(?<![\w/]){re.escape(c)}(?![\w/])", words)]


def test_the_demo_plays_the_whole_game_and_prints_the_same_judgement(tmp_path: Path) -> None:
    assert current_language() == "zh_CN"  # the default: no --lang, no LANG=en
    out = Console(record=True, width=200, force_terminal=False, color_system=None)
    assert run_demo(tmp_path, out) == 0
    got = _masked(out.export_text()).splitlines()
    want = GOLDEN.read_text("utf-8").splitlines()
    assert any("麻花 被处决，身份：杀手" in line for line in want)
    assert any("胜方 警察与平民" in line for line in want)
    assert english_codes("\n".join(got)) == []
    assert got == want


def test_the_code_check_can_fail() -> None:
    assert english_codes("│ 2 │ 饺子 │ counted │ 麻花 │") == ["counted"]
    assert english_codes("06-03 17:00 night_deadline") == ["night_deadline"]
    assert english_codes("case_post → tid 2:") == ["case_post"]
    assert english_codes("[b]计票[/b] http://127.0.0.1/forum.php?mod=redirect&goto=findpost") == []
    assert english_codes("│ 2 │ 饺子 │ 有效 │ 麻花 │") == []
