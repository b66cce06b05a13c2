"""The process thread's grammar (进程帖): 申请延时/延时申请/延时, 申请加速/加速申请/加速, full/half width,
quotes ignored; 取消… withdraws; negations, questions and mixed posts are not applications."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import ApplicationKind
from forumbot.parsers.applications import application_posts, read_application
from forumbot.parsers.records import Post, PostState, TimeSource

D, A, N, U = ApplicationKind.DELAY, ApplicationKind.ACCELERATE, ApplicationKind.NONE, ApplicationKind.UNCLEAR
WD, WA = ApplicationKind.WITHDRAW_DELAY, ApplicationKind.WITHDRAW_ACCELERATE

TABLE = [
    ("申请延时", D),
    ("延时申请", D),
    ("延时", D),
    ("延时！", D),
    ("延时!", D),
    ("  延时+1 ", D),
    ("我申请延时", D),
    ("申请加速", A),
    ("加速申请", A),
    ("加速", A),
    ("加速。", A),
    ("[quote]申请延时[/quote]\n加速", A),  # the quoted application is not this post's
    ("申请延时，今天信息太多了，讨论不完", D),
    ("取消延时", WD),
    ("撤回加速申请", WA),
    ("撤销我的延时申请", WD),
    ("不延时", N),
    ("反对加速", N),
    ("没必要延时", N),
    ("要延时吗？", U),
    ("延时还是加速？", U),
    ("大家觉得延时有用吗", U),
    ("顶", N),
    ("", N),
    ("[quote]延时[/quote]", N),
]


@pytest.mark.parametrize(("text", "kind"), TABLE, ids=[repr(t)[:30] for t, _ in TABLE])
def test_reading_a_process_thread_post(text: str, kind: ApplicationKind) -> None:
    assert read_application(text)[0] is kind


@given(st.text(max_size=60))
def test_any_text_is_read_without_raising(text: str) -> None:
    kind, note = read_application(text)
    assert isinstance(kind, ApplicationKind) and isinstance(note, str)


def _post(pid: int, author: str, text: str, **kw: object) -> Post:
    t = datetime(2026, 6, 11, 2, pid, tzinfo=UTC)
    return Post(
        pid=pid,
        tid=9,
        author=author,
        uid=None,
        floor=pid,
        posted_at=t,
        posted_until=t,
        time_source=TimeSource.API,
        text=text,
        **kw,  # type: ignore[arg-type]
    )


def test_the_opening_post_and_the_judges_posts_are_no_applications() -> None:
    posts = [
        _post(1, "导演", "申请延时格式：延时", first=True),
        _post(2, "导演", "加速"),
        _post(3, "Ada", "延时"),
        _post(3, "Ada", "延时"),
        _post(4, "Bob", "加速", state=PostState.BLOCKED),
    ]
    out = application_posts(posts, judges=("导演",))
    assert [(p.pid, p.author, p.kind) for p in out] == [(3, "Ada", D), (4, "Bob", U)]
    assert "blocked" in out[1].note
