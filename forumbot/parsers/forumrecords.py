"""The records of a forum's thread list, and the names of the views and time sources: what reading a
forum list needs of forumbot/parsers/records.py, which re-exports them (import them from there).

Why a module of its own: an idle ``forumbot poll`` reads one forum-list page and no post, and creating
the thread pages' frozen dataclasses (Post, ThreadPage and their drafts) cost it about 4% of ``import
requests`` (issue 21). The thread-page readers import records.py as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class TimeSource(StrEnum):
    API = "api"  # dbdateline: exact to the second
    TITLE = "title"  # span title next to a relative form: exact to the second (or minute)
    TEXT = "text"  # plain absolute text: second or minute precision
    RELATIVE = "relative"  # 3 分钟前 / 昨天 12:00 resolved against the response's Date header


class Source(StrEnum):
    PC = "pc"
    TOUCH = "touch"
    API = "api"


@dataclass(frozen=True, slots=True)
class ForumThread:
    """A row of a forum's thread list: enough to know whether a watched thread has changed."""

    tid: int
    subject: str
    replies: int
    last_post_at: datetime | None = None  # UTC
    last_poster: str = ""
    author: str = ""


@dataclass(frozen=True, slots=True)
class ForumPage:
    fid: int
    name: str
    page: int
    pages: int
    threads: tuple[ForumThread, ...] = field(default_factory=tuple)
    formhash: str | None = None
    source: Source = Source.PC
    url: str = ""
