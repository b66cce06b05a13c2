"""One table of night action kinds: the engine's. What a judge types (CLI flags, a night file's
[[submissions]]) becomes the engine's own action class for every kind, and the CLI offers exactly
those kinds."""

from __future__ import annotations

import pytest

from engine import ACTION_KINDS
from forumbot.cli import build_parser
from forumbot.desk import NIGHT_ACTION_KINDS, action_from_fields
from forumbot.errors import UsageError

# These tests check each rule by its message's English wording (the msgid); the Chinese a judge
# reads is checked in tests/test_error_language.py.
pytestmark = pytest.mark.usefixtures("english_messages")

FIELDS = {"by": "包子", "target": "饺子", "first": "饺子", "second": "烧卖", "order": ["饺子", "烧卖"]}


@pytest.mark.parametrize("kind", list(ACTION_KINDS))
def test_every_engine_action_kind_can_be_typed(kind: str) -> None:
    action = action_from_fields(str(kind), FIELDS)
    assert type(action) is ACTION_KINDS[kind].cls


def test_the_cli_offers_the_engine_kinds_in_the_engines_order() -> None:
    assert tuple(k.value for k in ACTION_KINDS) == NIGHT_ACTION_KINDS
    args = build_parser().parse_args(["night", "submit", "--night", "1", "hug", "--target", "饺子"])
    assert args.kind == "hug"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["night", "submit", "--night", "1", "poison", "--target", "饺子"])


def test_an_unknown_kind_or_a_missing_field_says_what_is_wrong() -> None:
    with pytest.raises(UsageError, match="unknown night action 'poison'"):
        action_from_fields("poison", FIELDS)
    with pytest.raises(UsageError, match="a check submission needs target"):
        action_from_fields("check", {"by": "包子"})
    with pytest.raises(UsageError, match="arrow submission needs second"):
        action_from_fields("arrow", {"first": "饺子"})
