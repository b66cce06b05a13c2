"""The night-submission grammar (forumbot.parsers.nightmsg): each rule reads like the rule it checks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import get_ruleset
from forumbot.parsers.nightmsg import Problem, keyword_table, read_night_message

ROSTER = ("包子", "油条", "烧卖", "月饼", "饺子", "馄饨", "汤圆", "锅贴", "Ken", "刀客")


def one(text: str, grammar: str = "r001", author: str | None = "包子") -> tuple[str, tuple[str, ...]]:
    sts = read_night_message(text, grammar, ROSTER, author=author).statements  # type: ignore[arg-type]
    assert len(sts) == 1, sts
    assert sts[0].problem is None, sts[0]
    return sts[0].kind, sts[0].targets


# --- R001 / R000 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "杀：烧卖",
        "杀:烧卖",
        "杀 烧卖",
        "杀烧卖",
        "今晚杀：烧卖",
        "刀：烧卖",
        "刀烧卖",
        "杀人：烧卖",
        "确认：杀：烧卖",
        "杀：@烧卖",
        "杀目标：烧卖",
        "同意。今晚杀：烧卖",
        "杀：烧卖吧",
    ],
)
def test_the_killers_victim_in_any_of_the_usual_forms(text: str) -> None:
    assert one(text) == ("kill", ("烧卖",))


def test_full_width_and_half_width_punctuation_are_alike() -> None:
    assert one("杀：烧卖") == one("杀:烧卖") == one("杀 ：烧卖") == ("kill", ("烧卖",))
    assert one("验：Ken，") == one("验:Ken,") == ("check", ("Ken",))


def test_a_name_in_full_width_letters_is_not_the_name_only_a_suggestion() -> None:
    (s,) = read_night_message("验：Ｋｅｎ", "r001", ROSTER).statements
    assert s.problem is Problem.UNKNOWN_NAME and s.suggestion == "Ken"


def test_the_kill_with_its_pledge_possession_and_kill_text_in_one_message() -> None:
    text = (
        "今晚杀：烧卖\n生死状：如果我们错杀毒药，月饼与毒药同死\n附体：汤圆\n线文：月黑风高杀人夜\n一刀毙命"
    )
    sts = read_night_message(text, "r001", ROSTER).statements
    got = [(s.kind, s.targets) for s in sts]
    assert got == [
        ("kill", ("烧卖",)),
        ("pledge", ("月饼",)),
        ("possess", ("汤圆",)),
        ("kill_text", ()),
    ]
    assert sts[-1].text == "月黑风高杀人夜\n一刀毙命"  # the kill text may mention 杀/刀 freely


def test_a_pledge_written_as_the_rules_sentence_without_the_word() -> None:
    sts = read_night_message("杀：烧卖\n如果我们错杀毒药，油条与毒药同死。", "r001", ROSTER).statements
    assert [(s.kind, s.targets) for s in sts] == [("kill", ("烧卖",)), ("pledge", ("油条",))]


def test_a_pledge_naming_two_players_picks_the_one_before_与毒药同死() -> None:
    assert one("生死状：包子说了，油条与毒药同死") == ("pledge", ("油条",))


def test_check_and_protect() -> None:
    assert one("验：包子") == ("check", ("包子",))
    assert one("验人 包子") == ("check", ("包子",))
    assert one("守护：饺子") == ("protect", ("饺子",))


def test_explicit_nothing_forms() -> None:
    for text, kind in (
        ("空刀", "kill"),
        ("今晚不杀人", "kill"),
        ("不附体", "possess"),
        ("放弃守护", "protect"),
    ):
        sts = read_night_message(text, "r001", ROSTER).statements
        assert [(s.kind, s.none) for s in sts] == [(kind, True)], text


def test_a_correction_is_marked() -> None:
    sts = read_night_message("杀：烧卖\n改刀 饺子", "r001", ROSTER).statements
    assert [(s.kind, s.targets, s.correction) for s in sts] == [
        ("kill", ("烧卖",), False),
        ("kill", ("饺子",), True),
    ]


def test_quoted_text_is_ignored() -> None:
    assert one("[quote]杀：月饼[/quote]同意，杀：饺子") == ("kill", ("饺子",))


def test_self_means_the_author_a_killer_may_kill_himself() -> None:
    assert one("杀：自己", author="油条") == ("kill", ("油条",))


def test_a_name_containing_a_keyword_is_the_name() -> None:
    assert one("杀：刀客") == ("kill", ("刀客",))
    assert read_night_message("刀客说得对", "r001", ROSTER).statements == ()


@pytest.mark.parametrize(
    "text",
    [
        "我是杀手",
        "抱歉我来晚了",
        "别杀烧卖",
        "不要验包子",
        "他错杀了好人",
        "烧卖自杀了吗",
        "杀文写什么好",
        "验证码错误",
    ],
)
def test_talk_is_not_a_submission(text: str) -> None:
    assert read_night_message(text, "r001", ROSTER).statements == ()
    assert read_night_message(text, "r004", ROSTER).statements == ()


def test_a_question_or_a_mid_sentence_mention_is_tentative() -> None:
    for text in ("要不要杀烧卖？", "我觉得可以杀烧卖", "杀烧卖吗"):
        sts = read_night_message(text, "r001", ROSTER).statements
        assert len(sts) == 1 and sts[0].targets == ("烧卖",) and not sts[0].firm, text


def test_a_name_one_edit_away_is_suggested_never_taken() -> None:
    (s,) = read_night_message("杀：烧麦", "r001", ROSTER).statements
    assert s.problem is Problem.UNKNOWN_NAME and s.targets == () and s.suggestion == "烧卖"
    assert "烧麦" in s.note and "烧卖" in s.note
    (s,) = read_night_message("验：ken", "r001", ROSTER).statements  # case folded: suggested only
    assert s.problem is Problem.UNKNOWN_NAME and s.suggestion == "Ken"


def test_an_unknown_name_after_a_colon_is_reported_without_suggestion() -> None:
    (s,) = read_night_message("杀：张三", "r001", ROSTER).statements
    assert s.problem is Problem.UNKNOWN_NAME and s.suggestion is None


def test_two_names_for_one_target_are_ambiguous() -> None:
    (s,) = read_night_message("杀：烧卖，饺子", "r001", ROSTER).statements
    assert s.problem is Problem.SEVERAL_NAMES and s.targets == ()


def test_a_keyword_with_a_colon_and_nothing_after() -> None:
    (s,) = read_night_message("验：", "r001", ROSTER).statements
    assert s.problem is Problem.NO_TARGET


def test_r004_skills_are_not_r001_words() -> None:
    assert read_night_message("救：烧卖", "r001", ROSTER).statements == ()
    assert read_night_message("附体：烧卖", "r004", ROSTER).statements == ()


# --- R004 -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "targets"),
    [
        ("杀：烧卖", "kill", ("烧卖",)),
        ("查验：包子", "check", ("包子",)),
        ("验：包子", "check", ("包子",)),
        ("救：烧卖", "heal", ("烧卖",)),
        ("救治 烧卖", "heal", ("烧卖",)),
        ("狙：月饼", "snipe", ("月饼",)),
        ("狙击：月饼", "snipe", ("月饼",)),
        ("抱：汤圆", "hug", ("汤圆",)),
        ("拥抱：汤圆", "hug", ("汤圆",)),
        ("绑：锅贴", "kidnap", ("锅贴",)),
        ("绑架：锅贴", "kidnap", ("锅贴",)),
        ("烟花：饺子", "fireworks", ("饺子",)),
        ("放烟花：饺子", "fireworks", ("饺子",)),
        ("潜伏：馄饨", "spy", ("馄饨",)),
        ("暗杀：月饼", "assassinate", ("月饼",)),
        ("丘比特：包子 油条", "arrow", ("包子", "油条")),
        ("丘比特之箭：包子和油条", "arrow", ("包子", "油条")),
        ("威权给饺子", "authority", ("饺子",)),
        ("移交威权：饺子", "authority", ("饺子",)),
        ("撕票：锅贴、汤圆", "kill_hostages", ("锅贴", "汤圆")),
        ("撕票", "kill_hostages", ()),
    ],
)
def test_r004_skills(text: str, kind: str, targets: tuple[str, ...]) -> None:
    assert one(text, "r004") == (kind, targets)


def test_r004_alert_is_forced_and_give_up_is_explicit() -> None:
    (s,) = read_night_message("警戒", "r004", ROSTER).statements
    assert s.kind == "alert" and "强制" in s.note
    (s,) = read_night_message("放弃行动", "r004", ROSTER).statements
    assert s.kind == "skip" and s.none


def test_r004_arrow_needs_exactly_two_names() -> None:
    (s,) = read_night_message("丘比特：包子", "r004", ROSTER).statements
    assert s.problem is Problem.WRONG_COUNT
    (s,) = read_night_message("丘比特：包子 油条 烧卖", "r004", ROSTER).statements
    assert s.problem is Problem.WRONG_COUNT


def test_several_actions_in_one_message_keep_their_order() -> None:
    sts = read_night_message("救：烧卖\n毒：今晚不用\n威权给饺子", "r004", ROSTER).statements
    assert [(s.kind, s.targets) for s in sts] == [
        ("heal", ("烧卖",)),
        ("authority", ("饺子",)),
    ]


def test_every_keyword_of_the_table_reads_with_a_colon() -> None:
    for grammar in ("r001", "r004"):
        for word, kind in keyword_table(grammar).items():
            if get_ruleset(grammar).night_word(kind).form.value == "forced":
                continue  # 警戒 takes no name: read only to say nothing needs submitting
            sts = read_night_message(f"{word}：烧卖", grammar, ROSTER).statements
            assert sts and sts[0].kind == kind, (grammar, word, sts)


# --- properties -----------------------------------------------------------------------------------------

_ALPHABET = st.sampled_from(
    list("杀刀验守护附体生死状线文救狙抱绑烟花丘比特警戒威权撕票暗潜伏改自己我不别吗？?：:，,、 \n[]/quote=")
    + list(ROSTER)
    + ["烧麦", "与毒药同死", "[quote]", "[/quote]", "[b]", "@", "\u3000", "Ｋｅｎ"]
)
_TEXT = st.lists(_ALPHABET, max_size=40).map("".join) | st.text(max_size=80)


@given(_TEXT, st.sampled_from(["r001", "r004"]), st.lists(st.text(max_size=6), max_size=6))
def test_any_text_reads_without_crashing_and_targets_are_roster_names(
    text: str, grammar: str, extra: list[str]
) -> None:
    roster = ROSTER + tuple(extra)
    reading = read_night_message(text, grammar, roster, author="包子")  # type: ignore[arg-type]
    for s in reading.statements:
        assert get_ruleset(grammar).has_night_kind(s.kind)
        assert s.problem is None or isinstance(s.problem, Problem)
        assert all(t in roster for t in s.targets)
        if s.problem is not None:
            assert s.targets == () and s.note
        if s.suggestion is not None:
            assert s.suggestion in roster


@given(_TEXT)
def test_quoted_text_never_makes_a_statement(text: str) -> None:
    inner = text.replace("[quote]", "").replace("[/quote]", "")
    reading = read_night_message(f"[quote]{inner}[/quote]", "r001", ROSTER)
    assert reading.statements == ()
