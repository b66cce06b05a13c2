"""Small builders of parser records for the store tests."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from forumbot.parsers.records import (
    EditMarker,
    Post,
    PostState,
    QuoteRef,
    Source,
    ThreadInfo,
    ThreadPage,
    TimeSource,
)

BOARD = "http://bbs.example.com/"
T0 = datetime(2026, 6, 4, 1, 0, 0, tzinfo=UTC)


def post(
    pid: int,
    text: str = "",
    *,
    tid: int = 3,
    author: str | None = None,
    floor: int | None = None,
    state: PostState = PostState.NORMAL,
    edit: EditMarker | None = None,
    quotes: tuple[QuoteRef, ...] = (),
    at: datetime | None = None,
    html: str | None = None,
) -> Post:
    when = at or T0 + timedelta(minutes=pid)
    return Post(
        pid=pid,
        tid=tid,
        author=author if author is not None else f"玩家{pid % 5}",
        uid=100 + pid % 5,
        floor=floor if floor is not None else pid,
        posted_at=when,
        posted_until=when,
        time_source=TimeSource.TEXT,
        text=text or f"投票：饺子 ({pid})",
        html=html if html is not None else f"<b>{text or pid}</b>",
        quotes=quotes,
        edit=edit,
        state=state,
        first=pid == 1,
    )


def page(
    posts: list[Post],
    *,
    tid: int = 3,
    number: int = 1,
    pages: int = 1,
    source: Source = Source.PC,
    title: str = "【美食杀】第一日投票帖",
) -> ThreadPage:
    return ThreadPage(ThreadInfo(tid, 3, title, number, pages, replies=None), tuple(posts), source, url="")


def edited(p: Post, text: str, *, marker: bool = True, at: datetime | None = None) -> Post:
    mark = (
        EditMarker(p.author, at or T0 + timedelta(hours=1), f"本帖最后由 {p.author} 于 … 编辑")
        if marker
        else None
    )
    return replace(p, text=text, edit=mark, html=f"<i class='pstatus'>…</i>{text}")
