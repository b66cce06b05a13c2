"""What the records say, in the judge's words (issue 20): the desk's change log, the outbox's log, who did
it (the runner is «forumbot 自动运行», not ``forumbot-runner``), the state's versions, the night messages
(«帖子（pid 25）», not ``pid:25``), the runner's moments (第1夜：行动截止, not ``night1/deadline``).

The records keep what was written (English, with codes: a tool reads them); labels.py reads them back
for a judge. The walks over forumbot/outbox.py and forumbot/web/data.py fail when a new note or a new
logged action has no words yet.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from forumbot.i18n import set_language
from forumbot.labels import (
    DESK_ACTION_LABELS,
    actor_label,
    desk_log_label,
    message_label,
    moment_words,
    out_label,
    outbox_note_label,
    outcome_label,
    version_label,
)

ROOT = Path(__file__).resolve().parents[1]
ASCII_WORD = re.compile(r"[A-Za-z_]{3,}")


@pytest.fixture(autouse=True)
def chinese() -> Iterator[None]:
    set_language("zh_CN")
    yield
    set_language("zh_CN")


def test_the_change_log_lines_of_issue_20_read_in_chinese() -> None:
    assert desk_log_label("outbox approve", "#22 vote_count (edited: revision 4)") == (
        "发件箱：批准",
        "#22 计票（已修改：第4版）",
    )
    assert desk_log_label("undo", "day 2 → night 2") == ("撤销", "第2日 → 第2夜")
    assert desk_log_label("night override", "night 1 pid:25 → ignore: 只是闲聊") == (
        "改判夜间消息",
        "第1夜 帖子（pid 25） → 不予理会：只是闲聊",
    )
    assert desk_log_label("close day", "day 1 → 麻花 (forced: 论坛宕机)") == (
        "结算白天",
        "第1日：出局 麻花（强制结算：论坛宕机）",
    )
    action, detail = desk_log_label("outbox send", "#3 case_post → sent 发送成功")
    assert (action, detail) == ("发件箱：发送", "#3 案情 → 已发送 发送成功")


def test_a_log_line_no_pattern_knows_is_shown_as_written() -> None:
    assert desk_log_label("brand new", "something") == ("brand new", "something")
    assert desk_log_label("undo", "no arrow here") == ("撤销", "no arrow here")


def _logged_actions() -> set[str]:
    found = set()
    for path in (ROOT / "forumbot").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "log_change":
                arg = node.args[2] if len(node.args) > 2 else None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
    return found


def test_every_action_the_desk_logs_has_words() -> None:
    actions = _logged_actions()
    assert {"outbox approve", "undo", "close day"} <= actions
    assert actions <= set(DESK_ACTION_LABELS), actions - set(DESK_ACTION_LABELS)


def _sample(field: ast.expr) -> str:
    """A value for one field of a note's f-string, of the kind the outbox puts there."""
    code = ast.unparse(field)
    if "outcome" in code:
        return "flood"
    if " if " in code:  # f' (uid {uid})' if uid else ''
        return " (uid 4)"
    if "charset" in code:
        return "gbk"
    if "name_characters" in code:
        return "€"
    return "7"


def _renders(expr: ast.expr) -> Iterator[str]:
    """The texts an expression for a note may give: both sides of ``a if c else b`` and ``why or "x"``."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str) and expr.value:
        yield expr.value
    elif isinstance(expr, ast.JoinedStr):
        yield "".join(str(v.value) if isinstance(v, ast.Constant) else _sample(v.value) for v in expr.values)  # type: ignore[attr-defined]
    elif isinstance(expr, ast.IfExp):
        yield from _renders(expr.body)
        yield from _renders(expr.orelse)
    elif isinstance(expr, ast.BoolOp):
        for value in expr.values:
            yield from _renders(value)
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        for left in _renders(expr.left):
            for right in _renders(expr.right):
                yield left + right


def _outbox_notes() -> Iterator[str]:
    """Each note forumbot/outbox.py writes (``note=…`` or ``note = …``), its fields filled with samples."""
    tree = ast.parse((ROOT / "forumbot" / "outbox.py").read_text("utf-8"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.keyword) and node.arg == "note") or (
            isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "note" for t in node.targets)
        ):
            yield from _renders(node.value)


NOTES = sorted(set(_outbox_notes()))


@pytest.mark.parametrize("note", NOTES)
def test_every_note_the_outbox_writes_reads_in_chinese(note: str) -> None:
    shown = outbox_note_label(note)
    bare = re.sub(r"\[outbox\] auto_approve|uid|pmid|pid|gbk", "", shown)
    assert not ASCII_WORD.search(bare), f"{note!r} → {shown!r}"


def test_the_outbox_walk_finds_the_notes() -> None:
    assert "approved" in NOTES and any(n.startswith("POST to the board") for n in NOTES)
    assert outbox_note_label("POST to the board (uid 4) from vm pid 9576") == (
        "向论坛发出（uid 4），发送方 vm pid 9576"
    )
    assert outbox_note_label("verified on the board: found on page 3") == "已在论坛核实：在第3页找到"
    assert outbox_note_label("取消：发错了") == "取消：发错了"  # a judge's own reason, as written


def test_who_did_it() -> None:
    assert actor_label("forumbot-runner") == "forumbot 自动运行"
    assert actor_label("web-desk") == "网页工作台"
    assert actor_label("二号法官") == "二号法官"
    set_language("en")
    assert actor_label("forumbot-runner") == "forumbot (automatic run)"


def test_the_state_and_its_versions() -> None:
    assert outcome_label("bandits_wiped_out", "police") == "警察与平民获胜（匪全灭）"
    assert out_label("killed", 2) == "被杀（第2轮）"
    assert version_label("undo #5 (day 2)") == "撤销 #5（第2日）"
    assert version_label("night 1 extra check") == "第1夜：追加查验"


def test_messages_and_moments() -> None:
    assert message_label("pid:25") == "帖子（pid 25）" and message_label("pm:9") == "短消息（编号 9）"
    assert message_label("odd") == "odd"
    assert moment_words("night1/deadline") == "第1夜：行动截止"
    assert moment_words("day1/revote2") == "第1日：重投 #2 截止"
    set_language("en")
    assert moment_words("day2/close") == "day 2: vote closes"
