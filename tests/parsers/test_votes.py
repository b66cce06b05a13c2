"""forumbot.parsers.votes: tables of (text, expected reading), junk included; and it never raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    BallotKind,
)
from forumbot.parsers.votes import normalize_vote_text, read_ballot, suggest_name

S12 = ("Kai", "Ken", "Pam", "Pat", "Zoe", "Cal", "Cid", "Cora", "Cy", "Cleo", "Cole", "Cruz")
FOOD = ("饺子", "包子", "馄饨", "烧卖", "汤圆", "油条", "春卷", "粽子", "月饼", "麻花", "煎饼", "锅贴")
B13 = ("Ada", "Bob", "Cam", "Dee", "Eva", "Flo", "Gia", "Hux", "Ida", "Jon", "Kit", "Lou", "Max", "Mo")

V, C, X, N, U = (
    BallotKind.VOTE,
    BallotKind.CHANGE,
    BallotKind.VOID,
    BallotKind.NOT_A_VOTE,
    BallotKind.UNREADABLE,
)

# (text, kind, target, flags): flags "a" abstain, "m" ambiguous, "r" needs_review (absent: must be False)
R001_TABLE: list[tuple[str, BallotKind, str | None, str]] = [
    # canonical and its spellings
    ("投票:Ken", V, "Ken", ""),
    ("投票：Ken", V, "Ken", ""),
    ("投票: Cal", V, "Cal", ""),
    ("投票 ： Ken", V, "Ken", ""),
    ("投票Ken", V, "Ken", ""),
    ("投票 Ken", V, "Ken", ""),
    ("  投票：Ken  \n", V, "Ken", ""),
    ("投票:Ken\n", V, "Ken", ""),
    ("投票：@Ken", V, "Ken", ""),
    ("投票对象：Ken\n投票理由：诡异", V, "Ken", ""),
    ("vote: Ken", V, "Ken", ""),
    ("VOTE:Ken", V, "Ken", ""),
    ("[b]投票：Ken[/b]", V, "Ken", ""),
    ("[color=red][size=4]投票：Ken[/size][/color]", V, "Ken", ""),
    ("投票：Ken\u200b", V, "Ken", ""),
    # reasons and remarks are ignored
    ("投票：Ken 理由：昨晚发言前后矛盾", V, "Ken", ""),
    ("投票：Ken（感觉他在带节奏）", V, "Ken", ""),
    ("投票：Ken(感觉他在带节奏)", V, "Ken", ""),
    ("投票：Ken【跟票】", V, "Ken", ""),
    ("投票：Ken，理由见讨论帖", V, "Ken", ""),
    ("投票：Ken。", V, "Ken", ""),
    ("投票：Ken！！！", V, "Ken", ""),
    ("投票：Ken 感觉 Cal 是好人", V, "Ken", ""),
    ("投票：Ken 理由：Cal 的票是废票", V, "Ken", ""),
    ("投票：Ken\n理由：Cal 说他是警察，我不信", V, "Ken", ""),
    ("想了想还是改一下\n投票：Ken", V, "Ken", ""),
    ("看了一圈讨论帖：\n1. Cal 回应自然\n2. Ken 动机可疑\n\n投票：Ken", V, "Ken", ""),
    # quotes belong to the quoted post
    ("[quote]投票：Cal[/quote]\n投票：Ken", V, "Ken", ""),
    ("[quote][quote]投票：Cy[/quote]投票：Cal[/quote]投票：Ken", V, "Ken", ""),
    ("[quote]Cal 发表于 2026-6-4 18:00\n投票：Cal[/quote]", N, None, ""),
    # abstain
    ("投票：弃权", V, None, "a"),
    ("投票:弃权 信息不足", V, None, "a"),
    ("弃权", V, None, "a"),
    ("我弃权。", V, None, "a"),
    ("弃权票", V, None, "a"),
    ("弃权是因为信息太少，明天再说。", N, None, "r"),
    # voids
    ("废票", X, None, ""),
    ("我废票", X, None, ""),
    ("废票！", X, None, ""),
    ("申请废票", X, None, ""),
    ("此票作废", X, None, ""),
    ("投票：废票", X, None, ""),
    ("废票\n投票：Ken", X, None, "r"),
    ("Cal 的票是废票吗？", N, None, "r"),
    ("废票吗？", N, None, "r"),
    # wrong names are votes as written (the engine voids them)
    ("投票:Kenn", V, "Kenn", ""),
    ("投票:Kenny", V, "Kenny", ""),
    ("投票：ken", V, "ken", ""),
    ("投票:Ｋｅｎ", V, "Ｋｅｎ", ""),
    ("投票:Cole", V, "Cole", ""),
    ("投票：某某某", V, "某某某", ""),
    ("投票Kenn", V, "Kenn", ""),
    # ambiguous
    ("投票：Cal，Ken", V, None, "mr"),
    ("投票：Cal、Ken", V, None, "mr"),
    ("投票：Cal和Ken", V, None, "mr"),
    ("投票：Cal Ken", V, None, "mr"),
    ("投票：Cal/Ken", V, None, "mr"),
    ("投票：Ken\n投票：Cal", V, None, "mr"),
    ("投票：Ken\n投票：Ken", V, "Ken", ""),
    # free format: accepted, flagged
    ("我投Ken吧，理由不写了", V, "Ken", "r"),
    ("我坚持投Cal", V, "Cal", "r"),
    ("投给Ken", V, "Ken", "r"),
    ("票投Ken", V, "Ken", "r"),
    ("投票：Ken吧", V, "Ken", "r"),
    ("Ken", V, "Ken", "r"),
    ("@Ken", V, "Ken", "r"),
    ("投Ken一票", V, "Ken", "r"),
    ("改票：Ken", C, "Ken", ""),
    # not votes
    ("投票截止前还能改吗？", N, None, ""),
    ("投票帖在哪里", N, None, ""),
    ("大家别投Ken，他是好人", N, None, ""),
    ("为什么都投我？？我真的是好人 :'(", N, None, ""),
    ("谁投的Ken？", N, None, ""),
    ("？？？一上来就三票，我是好人啊", N, None, ""),
    ("顶", N, None, ""),
    ("+1", N, None, ""),
    ("1", N, None, ""),
    ("", N, None, ""),
    ("   ", N, None, ""),
    ("[img]http://x/a.png[/img]", N, None, ""),
    ("Ken一票", N, None, "r"),
    # unreadable
    ("投票：", U, None, "r"),
    ("投票：   ", U, None, "r"),
]


@pytest.mark.parametrize(
    ("text", "kind", "target", "flags"), R001_TABLE, ids=[repr(r[0])[:40] for r in R001_TABLE]
)
def test_r001_reading(text: str, kind: BallotKind, target: str | None, flags: str) -> None:
    b = read_ballot(text, "r001", S12)
    assert b.kind is kind, b
    if "m" not in flags:
        assert b.target == target, b
    assert b.abstain is ("a" in flags), b
    assert b.ambiguous is ("m" in flags), b
    assert b.needs_review is ("r" in flags), b


def test_r001_ambiguous_ballots_name_both_players() -> None:
    b = read_ballot("投票：Cal，Ken", "r001", S12)
    assert b.names == ("Cal", "Ken") and b.note
    b = read_ballot("投票：饺子包子", "r001", FOOD)
    assert b.ambiguous and b.names == ("饺子", "包子")


def test_r001_chinese_names() -> None:
    assert read_ballot("投票：馄饨", "r001", FOOD).target == "馄饨"
    assert read_ballot("投票：馄沌", "r001", FOOD).target == "馄沌"
    assert read_ballot("投票：包子（第一个投票的人最可疑）", "r001", FOOD).target == "包子"
    assert read_ballot("投票：包子理由：见上", "r001", FOOD).target == "包子"
    b = read_ballot("投票：包子吧", "r001", FOOD)
    assert b.target == "包子" and b.needs_review
    assert read_ballot("我坚持投饺子", "r001", FOOD).target == "饺子"


def test_longest_name_wins() -> None:
    players = ("小明", "小明明", "Al", "Alice")
    assert read_ballot("投票：小明明", "r001", players).target == "小明明"
    assert read_ballot("投票：Alice", "r001", players).target == "Alice"
    assert read_ballot("投票：Al", "r001", players).target == "Al"


def test_r001_reason_is_kept() -> None:
    assert read_ballot("投票：Ken 理由：昨晚发言前后矛盾", "r001", S12).reason == "昨晚发言前后矛盾"


# R004: strict
R004_TABLE: list[tuple[str, BallotKind, str | None, str]] = [
    ("投票对象：Bob\n投票理由：发言诡异", V, "Bob", ""),
    ("投票对象:Cam 投票理由:跟票", V, "Cam", ""),
    ("投票对象：Bob投票理由：直觉", V, "Bob", ""),
    ("投票对象：Dee\n投票理由：", V, "Dee", ""),
    ("投票对象： Bob \n投票理由：先挂一票", V, "Bob", ""),
    ("投票对象 ： Bob\n投票理由 ： x", V, "Bob", ""),
    ("投票对象：@Bob\n投票理由：x", V, "Bob", ""),
    ("[b]投票对象：Bob[/b]\n投票理由：x", V, "Bob", ""),
    ("[i=s] 本帖最后由 Ada 于 2026-6-11 10:30 编辑 [/i]\n\n投票对象：Bob\n投票理由：x", V, "Bob", ""),
    ("投票对象：弃权\n投票理由：信息不足", V, None, "a"),
    ("投票对象：弃权 投票理由：", V, None, "a"),
    ("改票对象：Cam\n改票理由：…", C, "Cam", ""),
    ("[quote]投票对象：Bob\n投票理由：x[/quote]\n\n改票对象：Cam\n改票理由：觉得更诡异", C, "Cam", ""),
    ("改票对象：弃权\n改票理由：再看看", C, None, "a"),
    ("投票对象：Mo\n投票理由：…", V, "Mo", ""),
    ("投票对象：Bobb\n投票理由：x", V, "Bobb", ""),
    ("投票对象：Ｂｏｂ\n投票理由：x", V, "Ｂｏｂ", ""),
    ("投票对象：Bob，Cam\n投票理由：x", V, None, "mr"),
    ("说一下我的想法：\n1. Bob 可疑\n\n投票对象：Bob\n投票理由：见上", V, "Bob", "r"),
    # format errors → unreadable (an invalid vote)
    ("投票对象：Bob", U, "Bob", ""),
    ("投票对象：弃权", U, None, "a"),
    ("投票：Bob", U, "Bob", ""),
    ("投票:Bob", U, "Bob", ""),
    ("我投Bob", U, "Bob", "r"),
    ("弃权", U, None, "a"),
    ("废票", N, None, ""),  # R004 has no void vote: not a vote at all (AMB-72)
    ("投票对象：\n投票理由：x", U, None, ""),
    ("投票对象 Bob 投票理由 x", U, None, "r"),
    ("投票对象：Bob 投票理由 x", U, "Bob", ""),
    ("投票对象：Bob\n改票理由：x", U, "Bob", ""),
    ("改票对象：Cam", U, "Cam", ""),
    ("投票对象：Bob\n投票理由：x\n改票对象：Cam\n改票理由：y", U, None, "r"),
    # chat
    ("顶", N, None, ""),
    ("投票截止前还能改吗？", N, None, ""),
    ("打错字了", N, None, ""),
    ("", N, None, ""),
]


@pytest.mark.parametrize(
    ("text", "kind", "target", "flags"), R004_TABLE, ids=[repr(r[0])[:40] for r in R004_TABLE]
)
def test_r004_reading(text: str, kind: BallotKind, target: str | None, flags: str) -> None:
    b = read_ballot(text, "r004", B13)
    assert b.kind is kind, b
    if "m" not in flags:
        assert b.target == target, b
    assert b.abstain is ("a" in flags), b
    assert b.ambiguous is ("m" in flags), b
    assert b.needs_review is ("r" in flags), b
    if kind is U:
        assert b.note.startswith(("格式错误", "同一帖")), b


def test_r004_void_post_is_no_vote_or_an_invalid_attempt_by_the_flag() -> None:
    """R004 knows no 废票. Default: «废票» casts nothing; the alternative reads it as an invalid vote."""
    assert read_ballot("废票", "r004", B13).kind is N
    assert read_ballot("我废票", "r004", B13).kind is N
    attempt = read_ballot("废票", "r004", B13, void_is_vote_attempt=True)
    assert attempt.kind is U and "没有废票" in attempt.note


def test_r004_reason_label_may_be_optional_by_flag() -> None:
    b = read_ballot("投票对象：Bob", "r004", B13, require_reason_label=False)
    assert b.kind is V and b.target == "Bob" and "按设置接受" in b.note
    b = read_ballot("改票对象：弃权", "r004", B13, require_reason_label=False)
    assert b.kind is C and b.abstain
    # a mismatched label is still a format error
    assert read_ballot("投票对象：Bob\n改票理由：x", "r004", B13, require_reason_label=False).kind is U


def test_r004_text_before_the_format_is_read_and_flagged_or_refused_by_the_flag() -> None:
    """“请严格依照投票格式或改票格式进行投票。” Default: read it, flag it; strict flag: a format error."""
    text = "说一下我的想法：Bob 可疑\n投票对象：Bob\n投票理由：见上"
    relaxed = read_ballot(text, "r004", B13)
    assert relaxed.kind is V and relaxed.target == "Bob" and relaxed.needs_review
    strict = read_ballot(text, "r004", B13, allow_text_before_format=False)
    assert strict.kind is U and "前有其他文字" in strict.note


def test_r004_reason_text() -> None:
    assert read_ballot("投票对象：Bob\n投票理由：发言\n很诡异", "r004", B13).reason == "发言\n很诡异"


def test_names_with_full_width_punctuation_match_their_half_width_spelling() -> None:
    players = ("小明（二号）", "Bob")
    assert read_ballot("投票：小明(二号)", "r001", players).target == "小明（二号）"
    assert read_ballot("投票对象：小明(二号)\n投票理由：x", "r004", players).target == "小明（二号）"


def test_unknown_grammar_is_an_error() -> None:
    with pytest.raises(ValueError, match="grammar"):
        read_ballot("投票：Ken", "r999", S12)  # type: ignore[arg-type]


def test_suggest_name_is_exported() -> None:
    assert suggest_name("Kenn", S12) == "Ken"


def test_normalize_strips_quotes_markup_and_edit_marker() -> None:
    raw = (
        "[i=s] 本帖最后由 月饼 于 2026-11-29 21:30 编辑 [/i]\n\n[quote]x[/quote]\n"
        "[b]投票对象：粽子[/b]\r\n投票理由：可疑"
    )
    assert normalize_vote_text(raw) == "投票对象:粽子\n投票理由:可疑"


_TEXT = st.one_of(
    st.text(max_size=120),
    st.lists(
        st.sampled_from(
            [
                "投票",
                "改票",
                "对象",
                "理由",
                "：",
                ":",
                "弃权",
                "废票",
                "[quote]",
                "[/quote]",
                "Ken",
                "Cal",
                "Kenn",
                "，",
                "、",
                "\n",
                " ",
                "@",
                "吧",
                "（",
                "）",
                "[b]",
                "投",
                "别",
                "?",
                "票",
            ]
        ),
        max_size=25,
    ).map("".join),
)


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.sampled_from(["r001", "r004"]), st.booleans())
def test_reading_never_raises_on_any_text(text: str, grammar: str, require_label: bool) -> None:
    b = read_ballot(text, grammar, S12, require_reason_label=require_label)  # type: ignore[arg-type]
    assert isinstance(b.kind, BallotKind)
    assert "\n" not in b.note
    if b.abstain:
        assert b.target is None
    if b.kind is BallotKind.VOID:
        assert b.target is None


@given(st.lists(st.text(min_size=1, max_size=6), max_size=8), st.text(max_size=60))
def test_reading_never_raises_for_odd_rosters(players: list[str], text: str) -> None:
    read_ballot(text, "r001", players)
    read_ballot(text, "r004", players)


def test_vote_posts_turns_stored_records_into_engine_posts() -> None:
    from datetime import UTC, datetime, timedelta

    from forumbot.parsers.records import EditMarker, Post, PostState, QuoteRef, TimeSource
    from forumbot.parsers.votes import vote_posts

    t = datetime(2026, 6, 11, 2, 0, tzinfo=UTC)

    def rec(pid: int, text: str, **kw: object) -> Post:
        base: dict[str, object] = {
            "pid": pid,
            "tid": 3,
            "author": "Ada",
            "uid": 2,
            "floor": pid - 40,
            "posted_at": t,
            "posted_until": t,
            "time_source": TimeSource.API,
            "text": text,
        }
        base.update(kw)
        return Post(**base)  # type: ignore[arg-type]

    records = [
        rec(
            52,
            "投票对象：Bob\n投票理由：x",
            edit=EditMarker("Ada", t, "本帖最后由 Ada 于 2026-6-11 10:30 编辑"),
        ),
        rec(
            59,
            "改票对象：Cam\n改票理由：y",
            quotes=(QuoteRef(52, "Ada"),),
            posted_until=t + timedelta(seconds=59),
        ),
        rec(60, "投票对象：Dee\n投票理由：z", floor_exact=False),
        rec(61, "作者被禁止或删除 内容自动屏蔽", state=PostState.BANNED),
        rec(62, "投票对象：Eva\n投票理由：", state=PostState.DELETED),
        rec(52, "duplicate of a pinned post"),
        rec(63, "投票对象：Flo\n投票理由："),
        rec(
            64,
            "投票对象：Gia\n投票理由：",
            edit=EditMarker("法官大人", t, "本帖最后由 法官大人 于 2026-6-11 10:31 编辑"),
        ),
    ]
    vp = {p.pid: p for p in vote_posts(records, "r004", B13, edited_pids={63})}
    assert sorted(vp) == [52, 59, 60, 61, 62, 63, 64]
    # an edit by someone else (a judge, a moderator) is flagged for review, not held against the voter
    assert not vp[64].edited and vp[64].ballot.needs_review and "法官大人" in vp[64].ballot.note
    assert vp[52].edited and "本帖最后由" in vp[52].edit_note and vp[52].ballot.target == "Bob"
    assert vp[59].quoted_pids == (52,) and vp[59].at_latest == t + timedelta(seconds=59)
    assert vp[59].ballot.kind is C
    assert vp[60].floor is None and vp[52].floor == 12
    assert vp[61].ballot.kind is N and vp[61].ballot.needs_review
    assert vp[62].ballot.target == "Eva" and vp[62].ballot.needs_review
    assert vp[63].edited and not vp[59].edited
