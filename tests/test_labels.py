"""Every code forumbot shows a judge has a label in both languages: a new verdict status, night code, outbox
kind, winner or runner moment without one would reach the judge as a bare English code (issue 11)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

import pytest

from engine import Cause, LastWordsStatus, Termination, VoteStatus, Winner
from forumbot.board import SourceKind
from forumbot.i18n import _, set_language
from forumbot.labels import (
    CAUSE_LABELS,
    LAST_WORDS_STATUS_LABELS,
    MOMENT_LABELS,
    OUTBOX_KIND_LABELS,
    POST_OUTCOME_LABELS,
    POST_STATE_LABELS,
    SOURCE_LABELS,
    STATUS_LABELS,
    TERMINATION_LABELS,
    WINNER_LABELS,
    moment_label,
    outbox_kind_label,
    status_label,
    winner_label,
)
from forumbot.nightmail import CODE_LABELS, NightCode
from forumbot.outbox import ItemKind
from forumbot.parsers.records import PostState
from forumbot.posting import Outcome as PostOutcome
from forumbot.runner.plan import MomentKind

CJK = re.compile(r"[\u4e00-\u9fff]")
TABLES: list[tuple[type[StrEnum], Mapping[Any, str]]] = [
    (VoteStatus, STATUS_LABELS),
    (NightCode, CODE_LABELS),  # keyed by the enum: a StrEnum hashes as its value
    (ItemKind, OUTBOX_KIND_LABELS),
    (Winner, WINNER_LABELS),
    (MomentKind, MOMENT_LABELS),
    (Cause, CAUSE_LABELS),
    (Termination, TERMINATION_LABELS),
    (PostState, POST_STATE_LABELS),
    (SourceKind, SOURCE_LABELS),
    (LastWordsStatus, LAST_WORDS_STATUS_LABELS),
    (PostOutcome, POST_OUTCOME_LABELS),
]


@pytest.fixture(autouse=True)
def chinese_after() -> Iterator[None]:
    yield
    set_language("zh_CN")


@pytest.mark.parametrize(("enum", "table"), TABLES, ids=lambda x: getattr(x, "__name__", ""))
def test_every_code_has_a_label(enum: type[StrEnum], table: dict[str, str]) -> None:
    assert {c.value for c in enum} <= set(table), f"{enum.__name__}: add the new codes to forumbot/labels.py"


def test_the_labels_are_chinese_by_default_and_english_on_request() -> None:
    set_language("zh_CN")
    zh = [
        _(CODE_LABELS[NightCode.NOT_A_SUBMISSION]),
        status_label("void_wrong_name"),
        outbox_kind_label("case_post"),
        winner_label("police"),
        moment_label("revote_deadline", 1, 2),
    ]
    assert all(CJK.search(text) for text in zh), zh
    assert moment_label("close", 3) == "第3日：投票截止" and winner_label(None) == "无胜方"
    set_language("en")
    assert _(CODE_LABELS[NightCode.NOT_A_SUBMISSION]) == "not a submission"
    assert moment_label("revote_deadline", 1, 2) == "day 1: revote #2 closes"
    assert winner_label("police") == "police and civilians"


def test_an_unknown_code_is_shown_as_it_is() -> None:
    assert winner_label("aliens") == "aliens"
    assert moment_label("brand_new", 4) == "brand_new 4"
