"""What reaches the board and the players' PMs carries none of our internal words (issue 20): no rule ids
of the ambiguity register (AMB-nn), no field names (by=, victim=), no action codes (kill(...)), no English
sentences. Checked over every post and PM of played example games (R001 【夜宵杀】 by the runner on the
example board; R004's night 1), and over the scrubber itself for any text."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from forumbot.drafts import public_words
from forumbot.store.db import Store
from tests.runner.test_private_recipients import _r004_steps
from tests.runner.test_r004_last_words import sh
from tests.runner.test_yexiao_game import played  # noqa: F401  (the module fixture: the played game)

_INTERNAL = re.compile(
    r"AMB-|\b(?:by|victim|pledge|possess|target|guardian|text)=|\bkill\(|\bkill（"
    r"|\bR\d{3}(?:-[A-Z]\d)?\b|§"  # a rule id of any kind: the register's, a rule set's, a section
    r"|\b[a-z]+_[a-z_]+\b"  # a python field or code name (pass_authority, case_post)
    r"|<\w+\.\w+: '[^']*'>|\w+\(\w+="  # an enum's or a dataclass's repr
    r"|\b(?:True|False|None)\b"
)
_ENGLISH = re.compile(r"\b[A-Za-z]{3,}(?:\s+[A-Za-z]{2,}){2,}\b")  # three English words in a row


def _visible(body: str) -> str:
    """A body without its links (URLs are ASCII by nature) and BBCode tags."""
    body = re.sub(r"\[url=[^\]]*\]", "", body)
    return re.sub(r"\[/?[a-z]+(?:=[^\]]*)?\]", "", body)


def assert_public(body: str, names: tuple[str, ...] = ()) -> None:
    text = _visible(body)
    for name in names:
        text = text.replace(name, "")
    assert not _INTERNAL.search(text), body
    assert not _ENGLISH.search(text), body


# Every kind of draft the runner writes (forumbot.outbox.ItemKind), except the judges' own PMs (their text is
# theirs): the played games below must draft each at least once, so a new kind is checked when it appears.
DRAFTED_KINDS = {
    "case_post",
    "vote_count",
    "running_count",
    "revote_call",
    "execution_notice",
    "drowning_notice",
    "elevator",
    "check_result",
    "night_result",
    "judge_post",  # the game-over post
}


def test_the_check_catches_what_issue_20_found() -> None:
    for leak in (
        "累计两次淹水（AMB-23）",
        "kill（by=粽子，pledge=麻花，text=…，victim=月饼）",
        "杀手阵营不能使用技能（R004 市长·警戒）",
        "须交出<威权>（pass_authority）",
        "Outcome(termination=<Termination.BANDITS_WIPED_OUT: 'bandits_wiped_out'>, winner=None)",
        "生死状：None",
    ):
        assert _INTERNAL.search(leak), leak
    assert not _INTERNAL.search("麻花 被处决，身份：杀手\n本轮计淹水：饺子（累计 1 次）")


def test_every_post_and_pm_of_the_played_r001_game_is_in_the_players_words(played: tuple[Any, Any]) -> None:  # noqa: F811
    p, _ = played
    items = p.steps.outbox.items()
    kinds = {i.kind for i in items}
    assert DRAFTED_KINDS - {"judge_post"} <= kinds, DRAFTED_KINDS - kinds
    for item in items:
        assert_public(item.body, tuple(p.steps.game.roster))


def test_r004_nights_posts_and_pms_are_in_the_players_words(store: Store) -> None:
    steps = _r004_steps(store)
    moment = next(m for m in steps.plan() if m.key == "night1/deadline")
    steps.run(moment, sh("2026-06-09 08:00"))
    items = steps.outbox.items()
    assert any(i.dest == "pm" for i in items)
    for item in items:
        assert_public(item.body, tuple(steps.game.roster))


_WORDS = st.text(alphabet="投票无效改票机会已用设置黄牌红牌罚下不在平票者中，、；", min_size=0, max_size=12)


@given(
    _WORDS,
    st.integers(1, 99),
    _WORDS,
    st.sampled_from(["（{id}）", "（{w}，{id}）", "（{id}，{w}）", "（设置，{id}）"]),
)
def test_no_rule_id_survives_the_scrubber(before: str, n: int, words: str, shape: str) -> None:
    rid = f"AMB-{n:02d}"
    text = before + shape.format(id=rid, w=words or "不罚")
    out = public_words(text)
    assert "AMB-" not in out
    assert out.startswith(before.strip()) or before.strip() == ""


def test_the_words_beside_an_id_stay() -> None:
    assert public_words("投票帖被编辑过（AMB-76，不罚）") == "投票帖被编辑过（不罚）"
    assert public_words("无有效票（AMB-86）") == "无有效票"
    assert public_words("没有任何规则编号") == "没有任何规则编号"


def test_the_judges_post_of_r004_last_words_is_in_the_players_words(store: Store) -> None:
    """The kind the R001 game does not draft (it ends in a night's case post): R004's last-words post."""
    from tests.runner.test_r004_last_words import steps_after_night_1, the_moment, words

    steps = steps_after_night_1(store, pm=True)
    steps.read_pms = lambda: [words("豆花", "我是好人，请看好锅盔。\n威权交给：锅盔", "2026-06-09 07:30")]  # type: ignore[method-assign]
    res = steps.run(the_moment(steps), sh("2026-06-09 09:01"))
    items = [steps.outbox.get(i) for i in res.result["outbox"]]
    assert {i.kind for i in items} == {"judge_post"}
    for item in items:
        assert_public(item.body, tuple(steps.game.roster))
        assert "威权" not in item.body


_JUDGE_ENGLISH = re.compile(r"[A-Za-z_]{3,}")
_JUDGE_ALLOWED = re.compile(
    r"AMB-\d+|R\d{3}(?:-[A-Z]\d)?|\bpid\b|\buid\b|Discuz!?|BBCode|forumbot \w+(?: --\w+)?"
)


def test_every_reason_the_judges_read_in_the_played_game_is_chinese(played: tuple[Any, Any]) -> None:  # noqa: F811
    """The judges' own view (the desk, the ledger): every night verdict's and day verdict's reason of the
    played game, and each day's outcome, has no English word and names no message by its id (pid:25)."""
    from forumbot.runner.ledger import records

    p, _ = played
    names = tuple(sorted(p.steps.game.roster, key=len, reverse=True))

    def bare(text: str) -> str:
        for name in names:
            text = text.replace(name, "")
        return _JUDGE_ALLOWED.sub("", text)

    reasons: list[str] = []
    with p.steps.store.session() as s:
        for rec in records(s, p.steps.game_id).values():
            reasons += [v["reason"] for v in rec.result.get("verdicts", [])]
            reasons.append(rec.note)
    for day in (1, 2):
        result = p.steps.desk.tally(day).result
        reasons += [v.reason for v in result.verdicts]
        reasons += [result.outcome.reason, result.outcome.text]
    assert len(reasons) > 40
    for reason in reasons:
        assert not _JUDGE_ENGLISH.search(bare(reason)), reason
        assert not re.search(r"\b(?:pid|pm):\d", reason), reason
