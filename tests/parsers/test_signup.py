"""The sign-up thread reader (forumbot.parsers.signup): each post's verdict and the two lists."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from forumbot.parsers.records import EditMarker, Post, PostState, TimeSource
from forumbot.parsers.signup import SignupCode, SignupIntent, read_signup, read_signup_intent

CLOSES = datetime(2026, 6, 2, 12, 0, tzinfo=UTC)  # 20:00 in Shanghai
T0 = CLOSES - timedelta(days=1)


def post(
    pid: int, author: str, text: str, *, minutes: int = 0, late: int | None = None, **kw: object
) -> Post:
    """A post ``minutes`` after the thread opened, or ``late`` minutes after the close."""
    at = T0 + timedelta(minutes=minutes) if late is None else CLOSES + timedelta(minutes=late)
    fields: dict[str, object] = {
        "pid": pid,
        "tid": 20,
        "author": author,
        "uid": 100 + pid,
        "floor": pid,
        "posted_at": at,
        "posted_until": at + timedelta(seconds=59),
        "time_source": TimeSource.TEXT,
        "text": text,
        "first": pid == 1,
    }
    fields.update(kw)
    return Post(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "报名",
        "报名+1",
        "报名＋1",
        "+1",
        "我要参加",
        "我也报",
        "算我一个",
        "新人，求带，报名",
        "[b]报名[/b]",
        "报个名！",
    ],
)
def test_the_usual_ways_to_sign_up(text: str) -> None:
    assert read_signup_intent(text)[0] is SignupIntent.JOIN


@pytest.mark.parametrize("text", ["退出", "取消报名", "不报了", "我不参加了", "临时有事，退出"])
def test_the_usual_ways_to_withdraw(text: str) -> None:
    assert read_signup_intent(text)[0] is SignupIntent.WITHDRAW


@pytest.mark.parametrize("text", ["报名替补", "替补+1", "我当替补", "报名替补，如果有人退出的话"])
def test_a_substitute_says_so(text: str) -> None:
    assert read_signup_intent(text)[0] is SignupIntent.SUBSTITUTE


@pytest.mark.parametrize("text", ["顶", "楼上加油", "报名的人好多", "这局几点开始报名", "我不报名", "1"])
def test_chatter_is_not_a_sign_up(text: str) -> None:
    assert read_signup_intent(text)[0] is SignupIntent.NONE


@pytest.mark.parametrize("text", ["还能报名吗？", "报名?", "帮小王报名", "报名，算了退出"])
def test_questions_and_sign_ups_for_someone_else_go_to_the_judge(text: str) -> None:
    intent, note = read_signup_intent(text)
    assert intent is SignupIntent.UNCLEAR and "法官" in note


def test_a_whole_thread_with_the_cap_a_withdrawal_a_substitute_and_a_late_post() -> None:
    posts = [
        post(1, "法官大人", "【夜宵杀】报名帖：限4人，20:00截止，报名请回复「报名」"),
        post(2, "老王", "报名", minutes=10),
        post(3, "小李", "报名+1", minutes=20),
        post(4, "吃瓜群众", "顶一下，期待", minutes=25),
        post(5, "阿强", "新人，求带，报名", minutes=30),
        post(6, "老王", "报名！", minutes=40),  # a second sign-up
        post(7, "法官大人", "还差一位", minutes=50),
        post(8, "小美", "我要参加", minutes=60),
        post(9, "大刘", "算我一个", minutes=70),  # the cap is reached: a substitute
        post(10, "阿花", "报名替补", minutes=80),
        post(11, "小李", "临时有事，退出", minutes=90),  # 大刘 moves up
        post(12, "路人甲", "退出", minutes=95),  # was on no list
        post(13, "小陈", "还能报名吗？", minutes=100),
        post(14, "迟到哥", "报名", late=1),  # after the close
    ]
    r = read_signup(posts, closes_at=CLOSES, cap=4, judges=("法官大人",))
    assert r.players == ("老王", "阿强", "小美", "大刘")
    assert r.substitutes == ("阿花",)
    codes = {v.pid: v.code for v in r.verdicts}
    assert codes == {
        1: SignupCode.OPENING,
        2: SignupCode.JOINED,
        3: SignupCode.JOINED,
        4: SignupCode.CHATTER,
        5: SignupCode.JOINED,
        6: SignupCode.DUPLICATE,
        7: SignupCode.JUDGE,
        8: SignupCode.JOINED,
        9: SignupCode.SUBSTITUTE,
        10: SignupCode.SUBSTITUTE,
        11: SignupCode.WITHDRAWN,
        12: SignupCode.NOT_SIGNED_UP,
        13: SignupCode.UNCLEAR,
        14: SignupCode.LATE,
    }
    reasons = {v.pid: v.reason for v in r.verdicts}
    assert "替补 大刘 递补" in reasons[11]
    assert "名额已满（4人）" in reasons[9]
    assert "第2楼" in reasons[6]
    assert "报名截止（06-02 20:00）后" in reasons[14]
    assert [v.pid for v in r.review] == [13]
    assert r.uids["老王"] == 102 and "迟到哥" not in r.uids


def test_a_post_shown_at_the_closing_minute_is_late_one_a_minute_before_counts() -> None:
    before = post(2, "老王", "报名", minutes=60 * 24 - 1)
    at = post(3, "小李", "报名", late=0)
    r = read_signup(
        [post(1, "法官大人", "报名帖"), before, at], closes_at=CLOSES, cap=None, judges=["法官大人"]
    )
    assert r.players == ("老王",)
    assert [v.code for v in r.verdicts][1:] == [SignupCode.JOINED, SignupCode.LATE]


def test_signing_up_again_after_a_withdrawal_joins_at_the_end() -> None:
    posts = [post(2, "甲", "报名"), post(3, "乙", "报名"), post(4, "甲", "退出"), post(5, "甲", "报名")]
    assert read_signup(posts, closes_at=CLOSES, cap=None).players == ("乙", "甲")


def test_a_withdrawal_after_the_close_keeps_the_player_and_says_it_is_late() -> None:
    posts = [post(2, "甲", "报名", minutes=5), post(3, "甲", "退出", late=5)]
    r = read_signup(posts, closes_at=CLOSES, cap=None)
    assert r.players == ("甲",) and r.verdicts[-1].code is SignupCode.LATE


def test_a_sign_up_edited_after_the_close_counts_and_is_flagged() -> None:
    edited = post(2, "甲", "报名", edit=EditMarker("甲", CLOSES + timedelta(minutes=3)))
    r = read_signup([edited], closes_at=CLOSES, cap=None)
    assert r.players == ("甲",) and r.review and "截止后被编辑" in r.review[0].reason


def test_hidden_posts_and_anonymous_ones_change_nothing() -> None:
    posts = [post(2, "甲", "", state=PostState.AUTHOR_ONLY), post(3, "", "报名")]
    r = read_signup(posts, closes_at=CLOSES, cap=None)
    assert r.players == () and {v.code for v in r.verdicts} == {SignupCode.UNREADABLE}
    assert r.verdicts[0].needs_review


def test_the_judges_own_sign_up_words_do_not_count() -> None:
    r = read_signup([post(2, "法官大人", "报名")], closes_at=CLOSES, cap=None, judges=["法官大人"])
    assert r.players == () and r.verdicts[0].code is SignupCode.JUDGE
