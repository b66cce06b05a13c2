"""Every refusal and reason a judge reads is Chinese, and nothing internal reaches the players (issue 20).

Three walks, each over the source so that a new refusal or reason is checked the day it is written:

- every message the engine raises to a judge (IllegalActionError, GameOverError, SetupError) and every
  reason, note and event text it writes (verdicts, day outcomes, the night's events that become the case
  post and the private results) — no English word, no ``{x!r}`` repr, no enum code (``phase.value``);
  the ambiguity register's id (AMB-nn) and a rule set's id (R004) may stay, for the judges;
- every reason forumbot's night-message verdicts give (forumbot/nightmail.py): Chinese, and a message
  named in the judge's words, not by its internal id (``pid:25``);
- every kind of draft the runner writes, over the played example games (tests/runner/test_public_words.py
  plays them): no rule id of any kind (AMB-nn, R001 §…, R000-G2), no field name (``by=``, snake_case),
  no enum repr, no ``True``/``False``/``None``, no English sentence.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What a judge may read as it is: the register's ids, a rule set's id, Discuz!'s own words, and a value
# in double quotes that he types into the game file as written ("doctor").
_ALLOWED = re.compile(r'AMB-\d+|R\d{3}(?:-[A-Z]\d)?|§|\bpid\b|\buid\b|BBCode|Discuz!?|[A-Z]\b|"[a-z_]+"')
_WORD = re.compile(r"[A-Za-z_]{2,}")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")

# The calls whose text argument reaches a judge (or, through the drafts, the players), and the keywords.
_MESSAGE_CALLS = {"IllegalActionError", "GameOverError", "SetupError", "event", "verdict", "DayOutcome"}
_TEXT_KEYWORDS = {"reason", "text", "note", "rule"}  # rule: appended to the message (…（AMB-10）)


def _literal(node: ast.expr) -> str | None:
    """A string literal or f-string as written, its fields kept as ``{expr}`` (``{expr!r}`` for a repr)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                out.append("{" + ast.unparse(v.value) + ("!r" if v.conversion == ord("r") else "") + "}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        if left is not None or right is not None:
            return (left or "{}") + (right or "{}")
    return None


def _texts(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name in _MESSAGE_CALLS:
            for arg in node.args:
                if (text := _literal(arg)) is not None:
                    yield node.lineno, text
        for kw in node.keywords:
            if kw.arg in _TEXT_KEYWORDS and (text := _literal(kw.value)) is not None:
                yield node.lineno, text


def leaks(text: str) -> list[str]:
    """What in a judge-facing text template is not the judge's language."""
    found = []
    for field in _PLACEHOLDER.findall(text):
        if field.endswith("!r}"):
            found.append(f"repr {field}")
        elif re.search(r"\.(?:value|kind)\}$|__name__", field):
            found.append(f"code {field}")
    bare = _ALLOWED.sub("", _PLACEHOLDER.sub("", text))
    found += [f"word {w!r}" for w in _WORD.findall(bare)]
    return found


def _engine_files() -> list[Path]:
    return sorted((ROOT / "engine").rglob("*.py"))


ENGINE_TEXTS = [
    (f"{path.relative_to(ROOT)}:{line}", text) for path in _engine_files() for line, text in _texts(path)
]


def test_the_walk_finds_the_engines_refusals_and_reasons() -> None:
    assert len(ENGINE_TEXTS) > 150
    assert any("附体" in t for _w, t in ENGINE_TEXTS) and any("代投" in t for _w, t in ENGINE_TEXTS)


@pytest.mark.parametrize(("where", "text"), ENGINE_TEXTS, ids=[w for w, _t in ENGINE_TEXTS])
def test_every_engine_refusal_and_reason_is_chinese(where: str, text: str) -> None:
    assert leaks(text) == [], f"{where}: {text}"


def test_the_check_sees_todays_kinds_of_leak() -> None:
    """The check itself: what issue 20 found in the engine's reasons is caught."""
    assert leaks("{name!r} is already out and cannot be {what}")
    assert leaks("{what} belongs to day {day}, but the game is at {state.phase.value}")
    assert leaks("须在下一讨论日开始前交出<威权>，否则随机指定（pass_authority）")
    assert leaks("不合规则（AMB-08）：the kill and the possession name the same player")
    assert leaks("第{n}夜：{kill.by} 已死亡，不能提交匪帮的杀人（R001 §二.3）") == []
    assert leaks("守护人与被守护人平票，二者同死，不重投（AMB-40）") == []


# --------------------------------------------------------------------------- night-message verdicts

NIGHTMAIL = ROOT / "forumbot" / "nightmail.py"
NIGHT_TEXTS = [(f"nightmail.py:{line}", text) for line, text in _texts(NIGHTMAIL)]


@pytest.mark.parametrize(("where", "text"), NIGHT_TEXTS, ids=[w for w, _t in NIGHT_TEXTS])
def test_every_night_message_reason_is_chinese(where: str, text: str) -> None:
    """A verdict's reason names another message as the judge sees it (第…楼 / 短消息), never its id."""
    assert leaks(text) == [], f"{where}: {text}"
    assert not re.search(r"\{[^{}]*(?:_id|\.id|\bmid)\}", text), f"{where}: a message id in a reason: {text}"


# ----------------------------------------------------------------------- the readers' and the desk's notes

READER_FILES = [
    ROOT / "forumbot" / "parsers" / "nightmsg.py",
    ROOT / "forumbot" / "parsers" / "votes.py",
    *sorted((ROOT / "forumbot" / "desk").glob("*.py")),
]
READER_TEXTS = [
    (f"{path.relative_to(ROOT)}:{line}", text) for path in READER_FILES for line, text in _texts(path)
]


@pytest.mark.parametrize(("where", "text"), READER_TEXTS, ids=[w for w, _t in READER_TEXTS])
def test_every_note_the_readers_and_the_desk_give_a_verdict_is_chinese(where: str, text: str) -> None:
    """A ballot's or a night message's note (``帖子状态异常（banned）`` was one) becomes part of a reason."""
    assert leaks(text) == [], f"{where}: {text}"
