"""The store's tables (SQLModel). Lossless by design: nothing here is ever deleted.

Why these tables: a judge must be able to show, long after the fact, what a post said when forumbot
first saw it, every different thing it said later, and when it vanished or was blocked. So a post
(``posts``, one row per board and pid) points at its current revision, every distinct content ever
seen is a row of ``post_revisions`` (keyed by a hash of the normalised text, quotes and state), and
every change is an event in ``post_events``. ``fetch_log`` keeps every HTTP exchange and
``poll_runs`` every poll, so "when did forumbot last look?" has an answer.

Times are UTC. :class:`UTCDateTime` stores naive UTC (SQLite has no time zones; PostgreSQL gets the
same column type so both backends behave alike) and hands back aware UTC datetimes; a naive datetime
given to the store is a bug and raises.

Rows stay inside :mod:`forumbot.store.repo`; callers get plain dataclasses.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime, ForeignKey, Index, Integer, Text, UniqueConstraint
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out; naive UTC in the database."""

    impl = DateTime(timezone=False)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"the store takes aware datetimes only (got naive {value!r}); use UTC")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


class BoardRow(SQLModel, table=True):
    """One Discuz! board, named by its root URL."""

    __tablename__ = "boards"

    id: int | None = Field(default=None, primary_key=True)
    url: str = Field(unique=True, index=True, max_length=500)
    name: str = ""
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ThreadRow(SQLModel, table=True):
    """A thread forumbot reads, with what the last poll learnt about it (to poll only what changed)."""

    __tablename__ = "threads"
    __table_args__ = (UniqueConstraint("board_id", "tid", name="uq_threads_board_tid"),)

    id: int | None = Field(default=None, primary_key=True)
    board_id: int = Field(foreign_key="boards.id", index=True)
    tid: int
    fid: int | None = None
    title: str = Field(default="", sa_type=Text)
    kind: str | None = None  # vote | discussion | ... (the game's name for it; optional)
    day: int | None = None
    pages: int | None = None  # page count the board last reported
    replies: int | None = None  # replies at the last complete read (from the forum list or page 1)
    last_post_at: datetime | None = Field(default=None, sa_type=UTCDateTime)  # from the forum list
    resume_page: int | None = None  # the last page stored, in the pages of resume_ppp
    resume_ppp: int | None = None  # posts per page of the source that page came from
    first_seen_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    last_read_at: datetime | None = Field(default=None, sa_type=UTCDateTime)  # a page stored
    last_polled_at: datetime | None = Field(default=None, sa_type=UTCDateTime)  # a complete read
    last_full_poll_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class PostRow(SQLModel, table=True):
    """One post (unique per board by pid): what does not change, plus its current state and revision."""

    __tablename__ = "posts"
    __table_args__ = (
        UniqueConstraint("board_id", "pid", name="uq_posts_board_pid"),
        Index("ix_posts_board_tid", "board_id", "tid"),
    )

    id: int | None = Field(default=None, primary_key=True)
    board_id: int = Field(foreign_key="boards.id")
    thread_id: int = Field(foreign_key="threads.id", index=True)
    pid: int
    tid: int
    floor: int | None = None
    page: int | None = None  # where it was last seen (in the pages of that source)
    author: str = ""
    uid: int | None = None
    posted_at: datetime = Field(sa_type=UTCDateTime)
    posted_until: datetime = Field(sa_type=UTCDateTime)
    time_source: str = "text"
    first: bool = False
    state: str = "normal"  # a PostState value
    current_revision_id: int | None = Field(
        default=None,
        sa_column=Column(
            Integer,
            ForeignKey("post_revisions.id", use_alter=True, name="fk_posts_current_revision"),
            nullable=True,
        ),
    )
    revision_count: int = 0
    edit_by: str | None = None  # the latest edit marker seen ("本帖最后由 X 于 T 编辑")
    edit_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    first_seen_at: datetime = Field(sa_type=UTCDateTime)
    last_seen_at: datetime = Field(sa_type=UTCDateTime)
    last_source: str = ""


class RevisionRow(SQLModel, table=True):
    """A distinct content of a post, as first seen; ``last_seen_at`` moves on each re-sighting."""

    __tablename__ = "post_revisions"
    __table_args__ = (UniqueConstraint("post_id", "content_hash", name="uq_revisions_post_hash"),)

    id: int | None = Field(default=None, primary_key=True)
    post_id: int = Field(foreign_key="posts.id", index=True)
    number: int  # 1 for the first content seen, then 2, 3...
    content_hash: str = Field(max_length=64)
    text: str = Field(default="", sa_type=Text)
    html: str = Field(default="", sa_type=Text)
    quotes: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSON)  # [{pid, author, text}]
    quoted_pids: list[int] = Field(default_factory=list, sa_type=JSON)
    mentions: list[str] = Field(default_factory=list, sa_type=JSON)
    title: str = Field(default="", sa_type=Text)
    state: str = "normal"
    edit_by: str | None = None
    edit_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    edit_raw: str = ""
    source: str = ""  # pc | touch | api: the view it was first read from
    first_seen_at: datetime = Field(sa_type=UTCDateTime)
    last_seen_at: datetime = Field(sa_type=UTCDateTime)
    seen_count: int = 1


class EventRow(SQLModel, table=True):
    """Something that happened to a post: a state change, a new revision, a vanishing."""

    __tablename__ = "post_events"
    __table_args__ = (Index("ix_post_events_board_tid", "board_id", "tid"),)

    id: int | None = Field(default=None, primary_key=True)
    board_id: int = Field(foreign_key="boards.id")
    post_id: int = Field(foreign_key="posts.id", index=True)
    pid: int
    tid: int
    at: datetime = Field(sa_type=UTCDateTime)
    kind: str  # state | revised | reverted | edit_marker | deleted | restored
    old_state: str | None = None
    new_state: str | None = None
    revision_id: int | None = Field(default=None, foreign_key="post_revisions.id")
    note: str = Field(default="", sa_type=Text)


class FetchLogRow(SQLModel, table=True):
    """One HTTP exchange with a board (or the error a page turned out to be)."""

    __tablename__ = "fetch_log"

    id: int | None = Field(default=None, primary_key=True)
    board_id: int = Field(foreign_key="boards.id", index=True)
    at: datetime = Field(sa_type=UTCDateTime)
    method: str = "GET"
    url: str = Field(sa_type=Text)
    status: int | None = None
    ok: bool = True
    error: str = Field(default="", sa_type=Text)
    elapsed_ms: int = 0
    size: int = 0
    tid: int | None = None
    page: int | None = None


class PollRunRow(SQLModel, table=True):
    """One poll: what it asked and found. A judge's answer to "is the store up to date?"."""

    __tablename__ = "poll_runs"

    id: int | None = Field(default=None, primary_key=True)
    board_id: int = Field(foreign_key="boards.id", index=True)
    started_at: datetime = Field(sa_type=UTCDateTime)
    finished_at: datetime = Field(sa_type=UTCDateTime)
    full: bool = False
    tids: list[int] = Field(default_factory=list, sa_type=JSON)
    requests: int = 0
    pages_read: int = 0
    new_posts: int = 0
    new_revisions: int = 0
    state_changes: int = 0
    errors: int = 0
    notes: list[str] = Field(default_factory=list, sa_type=JSON)


ALL_TABLES = (BoardRow, ThreadRow, PostRow, RevisionRow, EventRow, FetchLogRow, PollRunRow)
TABLE_NAMES = ("boards", "threads", "posts", "post_revisions", "post_events", "fetch_log", "poll_runs")


class JudgeAccountRow(SQLModel, table=True):
    """A judge who may log in to the web desk (``forumbot judges add``). Only an Argon2 hash of the
    password is kept; removing a judge keeps the row (disabled) so the log's "who" still resolves."""

    __tablename__ = "judge_accounts"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True, max_length=100)
    password_hash: str = Field(sa_type=Text)
    active: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    last_login_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class DeskLogRow(SQLModel, table=True):
    """One change made through the web desk: who, when, what, why (the desk's own audit trail)."""

    __tablename__ = "desk_log"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    who: str = Field(max_length=100, index=True)
    action: str = Field(max_length=50)
    detail: str = Field(default="", sa_type=Text)


DESK_TABLE_NAMES = ("judge_accounts", "desk_log")  # created by forumbot/store/judges.py when first used
