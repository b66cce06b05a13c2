"""Typed records the page parsers produce. Every parser (PC, touch, API) returns these shapes.

Times are timezone-aware datetimes in UTC. A view that shows only a relative or minute-precision time
gives an interval: ``posted_at`` is the earliest instant consistent with the page, ``posted_until`` the
latest (equal when the page shows the second). Judges compare deadlines against ``posted_at`` when
exact and flag posts whose interval straddles a deadline.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, make_dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

# The forum list's records and the views' names live in forumrecords.py (what an idle poll reads);
# every parser still names them from here.
from forumbot.parsers.forumrecords import ForumPage as ForumPage
from forumbot.parsers.forumrecords import ForumThread as ForumThread
from forumbot.parsers.forumrecords import Source as Source
from forumbot.parsers.forumrecords import TimeSource as TimeSource


class PostState(StrEnum):
    """What the board shows in place of (or around) a post's body."""

    NORMAL = "normal"
    BANNED = "banned"  # 作者被禁止或删除 内容自动屏蔽
    BLOCKED = "blocked"  # 该帖被管理员或版主屏蔽
    AUTHOR_ONLY = "author_only"  # 此帖仅作者可见
    PENDING = "pending"  # 待审核 (awaiting moderation)
    HIDDEN = "hidden"  # [hide] 回复可见 / 本帖为密码帖: part of the content is withheld
    DELETED = "deleted"  # store only: forumbot saw the post once, and it is gone now


@dataclass(frozen=True, slots=True)
class QuoteRef:
    """A quote block inside a post: whom it quotes. ``pid`` is None when the block has no findpost link."""

    pid: int | None
    author: str
    text: str = ""  # the quoted excerpt as shown (at most 100 chars / 3 lines on Discuz!)


@dataclass(frozen=True, slots=True)
class EditMarker:
    """``本帖最后由 EDITOR 于 TIME 编辑``: only the latest edit, and absent for quick or admin edits."""

    by: str
    at: datetime | None  # UTC; minute precision on Discuz!
    raw: str = ""


@dataclass(frozen=True, slots=True)
class Post:
    pid: int
    tid: int | None
    author: str  # "" for an anonymous post
    uid: int | None  # None when the view does not link the author (anonymous, deleted user)
    floor: int | None  # the real position in the thread (楼主 = 1); None when the view cannot tell
    posted_at: datetime  # UTC, earliest instant consistent with the page
    posted_until: datetime  # UTC, latest instant consistent with the page
    time_source: TimeSource
    text: str  # body text: quotes, smileys' markup, jammer noise and the edit marker removed
    html: str = ""  # the body's inner HTML as served (kept for review and re-parsing)
    quotes: tuple[QuoteRef, ...] = ()
    mentions: tuple[str, ...] = ()  # @name links in the body
    edit: EditMarker | None = None
    state: PostState = PostState.NORMAL
    first: bool = False  # the thread's opening post
    title: str = ""  # optional per-post subject (h2)
    floor_exact: bool = True  # False in views that renumber floors (only-this-author)

    @property
    def quoted_pids(self) -> tuple[int, ...]:
        return tuple(q.pid for q in self.quotes if q.pid is not None)

    @property
    def time_exact(self) -> bool:
        return self.posted_at == self.posted_until


def _draft_of(cls: type) -> Any:
    """A class with ``cls``'s fields as slots, in ``cls``'s order, that may be written (see
    :func:`new_post`). Python allows an object of it to become a ``cls`` only while both lay out the
    same slots, so the two cannot drift apart unnoticed."""
    return make_dataclass(f"_{cls.__name__}Draft", [(f.name, Any) for f in fields(cls)], slots=True)


_PostDraft = _draft_of(Post)


def new_post(
    pid: int,
    tid: int | None,
    author: str,
    uid: int | None,
    floor: int | None,
    posted_at: datetime,
    posted_until: datetime,
    time_source: TimeSource,
    text: str,
    html: str,
    quotes: tuple[QuoteRef, ...],
    mentions: tuple[str, ...],
    edit: EditMarker | None,
    state: PostState,
    first: bool,
    title: str,
    floor_exact: bool,
) -> Post:
    """``Post(...)`` with every field given, built the fast way: the page parsers' constructor.

    Why: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (about 1,500
    instructions a field: half of reading a short post's text). The fields are written into a draft
    (:func:`_draft_of`) whose slots are Post's, and the object then becomes a Post: the same object
    ``Post(...)`` makes (equal, hashable, frozen from then on) for a fifth of the cost.
    """
    draft = _PostDraft(
        pid, tid, author, uid, floor, posted_at, posted_until, time_source, text, html, quotes, mentions,
        edit, state, first, title, floor_exact,
    )  # fmt: skip
    draft.__class__ = Post
    post: Post = draft
    return post


@dataclass(frozen=True, slots=True)
class ThreadInfo:
    tid: int
    fid: int | None
    title: str
    page: int
    pages: int
    replies: int | None = None
    formhash: str | None = None
    viewer_uid: int | None = None  # 0 for a guest
    charset: str = "utf-8"


@dataclass(frozen=True, slots=True)
class ThreadPage:
    """One page of a thread. ``problems`` collects what could not be read, post by post (never raised)."""

    thread: ThreadInfo
    posts: tuple[Post, ...]
    source: Source
    url: str = ""
    author_filter: int | None = None  # authorid=UID view
    problems: tuple[str, ...] = ()


_ThreadInfoDraft = _draft_of(ThreadInfo)
_ThreadPageDraft = _draft_of(ThreadPage)


def new_thread_info(
    tid: int,
    fid: int | None,
    title: str,
    page: int,
    pages: int,
    replies: int | None,
    formhash: str | None,
    viewer_uid: int | None,
    charset: str,
) -> ThreadInfo:
    """``ThreadInfo(...)`` built as :func:`new_post` builds a Post (once a page, but a page of an API
    answer costs little more than this would)."""
    draft = _ThreadInfoDraft(tid, fid, title, page, pages, replies, formhash, viewer_uid, charset)
    draft.__class__ = ThreadInfo
    info: ThreadInfo = draft
    return info


def new_thread_page(
    thread: ThreadInfo,
    posts: tuple[Post, ...],
    source: Source,
    url: str,
    author_filter: int | None,
    problems: tuple[str, ...],
) -> ThreadPage:
    """``ThreadPage(...)`` built as :func:`new_post` builds a Post."""
    draft = _ThreadPageDraft(thread, posts, source, url, author_filter, problems)
    draft.__class__ = ThreadPage
    page: ThreadPage = draft
    return page
