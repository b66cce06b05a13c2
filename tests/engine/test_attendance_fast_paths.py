"""Attendance reads every text as the plain definitions do, whatever its fast paths skip (issue 12).

The plain definitions are written out here: strip quotes until none is left, drop images, smileys,
markup and the edit marker, keep the characters whose Unicode category is a letter or a digit; a post
is bumps (灌水) when a run of bump words spells its letters and digits, casefolded.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    AttendanceRules,
    DiscussionPost,
    PostAttendanceStatus,
    RoundWindow,
    count_valid_posts,
    judge_discussion_post,
    meaningful_text,
)

QUOTE_BLOCK = re.compile(r"\[quote(?:=[^\]]*)?\](?:(?!\[quote)[\s\S])*?\[/quote\]", re.IGNORECASE)
QUOTE_TAG = re.compile(r"\[/?quote(?:=[^\]]*)?\]", re.IGNORECASE)
IMG = re.compile(r"\[(img|attach|media|flash|audio)[^\]]*\][\s\S]*?\[/\1\]", re.IGNORECASE)
BBCODE_TAG = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?\]", re.IGNORECASE)
EDIT_MARK = re.compile(r"本帖最后由\s*\S+\s*于\s*[\d\-/: ]+\s*编辑")
SMILEY = re.compile(
    r"\{:\d+_\d+:\}"
    r"|\[em:?\d+:?\]|\[em\][\s\S]*?\[/em\]"
    r"|:(?:lol|loveliness|funk|curse|dizzy|shutup|sleepy|hug|victory|time|kiss|handshake|call):?"
    r"|:'\(|:[)(DoP$@LQ]|;P",
)


def plain_meaningful(text: str) -> str:
    prev = None
    while prev != text:
        prev = text
        text = QUOTE_BLOCK.sub("", text)
    t = QUOTE_TAG.sub("", text)
    for pattern in (IMG, SMILEY, BBCODE_TAG, EDIT_MARK):
        t = pattern.sub("", t)
    return "".join(ch for ch in t if unicodedata.category(ch)[0] in "LN")


def plain_only_bumps(s: str, words: frozenset[str]) -> bool:
    lowered = [w.casefold() for w in words if w]
    ok = [True] + [False] * len(s)
    for i in range(len(s)):
        if ok[i]:
            for w in lowered:
                if s.startswith(w, i):
                    ok[i + len(w)] = True
    return bool(s) and ok[len(s)]


PIECES = st.sampled_from(
    [
        "[quote]",
        "[/quote]",
        "[quote=Ken]",
        "[img]x.png[/img]",
        "[b]",
        "[/b]",
        "[em12]",
        "{:3_44:}",
        ":)",
        ":lol",
        ";P",
        ":D",
        ";",
        "本帖最后由 Ken 于 2026-6-1 12:00 编辑",
        "投票：",
        "粽子",
        "Ken",
        "顶",
        "up",
        "１２",
        "！",
        "ß",
        " ",
        "\n",
        "[",
        "]",
    ]
)
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=12).map("".join)
AT = datetime(2026, 6, 1, 5, 0, tzinfo=UTC)


@settings(max_examples=400)
@given(TEXTS)
def test_meaningful_text_is_the_plain_definition(text: str) -> None:
    assert meaningful_text(text) == plain_meaningful(text)


@settings(max_examples=400)
@given(
    st.lists(
        st.sampled_from(["顶", "up", "UP", "1", "ss", "ß", "顶顶", "x", "！"]), min_size=1, max_size=6
    ).map("".join),
    st.frozensets(st.sampled_from(["顶", "UP", "1", "ß", "dd", "up"]), min_size=1, max_size=4),
)
def test_a_post_is_bumps_exactly_when_bump_words_spell_it(text: str, words: frozenset[str]) -> None:
    rules = AttendanceRules(bump_words=words, min_meaningful_chars=1)
    verdict = judge_discussion_post(DiscussionPost(1, "Ken", AT, text), rules)
    core = plain_meaningful(text).casefold()
    if core:
        assert (verdict.status is PostAttendanceStatus.BUMP) == plain_only_bumps(core, words)


def test_a_character_no_bump_word_has_is_not_a_bump() -> None:
    rules = AttendanceRules(bump_words=frozenset({"顶"}), min_meaningful_chars=1)
    assert (
        judge_discussion_post(DiscussionPost(1, "Ken", AT, "顶顶顶"), rules).status
        is PostAttendanceStatus.BUMP
    )
    assert (
        judge_discussion_post(DiscussionPost(1, "Ken", AT, "顶顶a"), rules).status
        is PostAttendanceStatus.VALID
    )


def plain_judgement(text: str, has_quote: bool, smiley_only: bool, rules: AttendanceRules) -> tuple[str, str]:
    """A post's status and reason as AMB-20's proposal reads, written out once more."""
    quote_free = text
    prev = None
    while prev != quote_free:
        prev = quote_free
        quote_free = QUOTE_BLOCK.sub("", quote_free)
    quote_free = QUOTE_TAG.sub("", quote_free)
    core = plain_meaningful(text).casefold()
    if not core:
        if has_quote or quote_free.strip() != text.strip():
            if rules.count_quote_only:
                return "valid", "仅引用（按设置计为有效发言）"
            return "quote_only", "仅引用他人发言，无自己的内容，不计有效发言"
        if SMILEY.search(quote_free) or smiley_only:
            if rules.count_smiley_only:
                return "valid", "仅表情（按设置计为有效发言）"
            return "smiley_only", "仅表情，不计有效发言"
        return "empty", "无实际内容，不计有效发言"
    if not rules.count_bumps and plain_only_bumps(core, rules.bump_words):
        return "bump", f"灌水/顶帖（{core[:10]}），不计有效发言"
    if len(core) < rules.min_meaningful_chars:
        return "too_short", f"有效字数 {len(core)} 少于 {rules.min_meaningful_chars}，不计有效发言"
    return "valid", "有效发言"


WINDOW = RoundWindow(AT, AT + timedelta(hours=10))
POSTS = st.lists(
    st.tuples(
        st.sampled_from(["顶", "+1", "Ken 很可疑", ":)", "[quote]x[/quote]", "", "嗯", "ok;P"]) | TEXTS,
        st.sampled_from(["Pam", "Pat", "吃瓜群众", "法官", "Cal"]),
        st.sampled_from([-1, 0, 5, 10, 11]),  # hours after the window opens
        st.booleans(),
        st.booleans(),
    ),
    max_size=30,
)


@settings(max_examples=300)
@given(POSTS, st.booleans(), st.booleans(), st.booleans())
def test_a_count_judges_every_post_as_the_plain_definition(
    drawn: list[tuple[str, str, int, bool, bool]], bumps: bool, quotes: bool, smileys: bool
) -> None:
    """Each distinct content is judged once per count: every post still gets its own verdict, the
    one the plain definition gives, and the non-players' reason is asked once per name."""
    rules = AttendanceRules(count_bumps=bumps, count_quote_only=quotes, count_smiley_only=smileys)
    posts = [
        DiscussionPost(i, author, AT + timedelta(hours=h), text, has_quote, smiley_only)
        for i, (text, author, h, has_quote, smiley_only) in enumerate(drawn)
    ]
    asked: list[str] = []

    def apart(name: str) -> str:
        asked.append(name)
        return f"{name} 不计"

    result = count_valid_posts(posts, ("Pam", "Pat", "Cal"), WINDOW, rules, reason_apart=apart)
    assert len(result.posts) == len(posts)
    expected_counts = {"Pam": 0, "Pat": 0, "Cal": 0}
    for post, verdict in zip(posts, result.posts, strict=True):
        assert (verdict.pid, verdict.author, verdict.at) == (post.pid, post.author, post.at)
        if post.author not in expected_counts:
            assert (verdict.status, verdict.reason) == ("not_a_player", f"{post.author} 不计")
        elif not WINDOW.start <= post.at < WINDOW.end:
            where = "早于本轮开始" if post.at < WINDOW.start else "晚于本轮截止"
            assert (verdict.status, verdict.reason) == ("outside_window", f"{where}，不计入本轮")
        else:
            status, reason = plain_judgement(post.text, post.has_quote, post.smiley_only, rules)
            assert (verdict.status, verdict.reason) == (status, reason)
            assert judge_discussion_post(post, rules) == verdict
            expected_counts[post.author] += status == "valid"
    assert dict(result.counts) == expected_counts
    assert sorted(asked) == sorted({p.author for p in posts} - set(expected_counts))
    plain = count_valid_posts(posts, ("Pam", "Pat", "Cal"), WINDOW, rules)
    assert all(v.reason == "非本局玩家（角色账号），不计" for v in plain.posts if v.status == "not_a_player")
