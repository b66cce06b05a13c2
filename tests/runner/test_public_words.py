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

_INTERNAL = re.compile(r"AMB-|\b(?:by|victim|pledge|possess|target|guardian|text)=|\bkill\(|\bkill（")
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


def test_every_post_and_pm_of_the_played_r001_game_is_in_the_players_words(played: tuple[Any, Any]) -> None:  # noqa: F811
    p, _ = played
    items = p.steps.outbox.items()
    kinds = {i.kind for i in items}
    assert {"case_post", "vote_count"} <= kinds, kinds
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
