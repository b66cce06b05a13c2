"""The seam between forumbot and a board: one protocol for every board operation, one Discuz! behind it.

Why a seam, like an HTTP library's transport adapter (requests' ``BaseAdapter``/``HTTPAdapter``): the
runner and the outbox need a handful of operations (log in, read a thread page, a forum's thread list,
the judge's private messages, reply, edit, open a thread, send a PM), not how Discuz! spells them. Said
once here as :class:`Board`, they can be driven by a small fake in a test, and the Discuz! specifics
(URLs, forms, charsets, the API's fallbacks) stay in one implementation, :class:`DiscuzBoard`, built
from what reads (:class:`~forumbot.client.BoardClient`: polite GETs, login, the parsers) and what
writes (:class:`~forumbot.posting.BoardWriter`: forms, the board's answers).

The records that cross the seam are the parsers' (:class:`~forumbot.parsers.records.ThreadPage`,
:class:`~forumbot.parsers.records.ForumPage`, :class:`~forumbot.parsers.pm.PmListPage`,
:class:`~forumbot.parsers.pm.PmConversationPage` of :class:`~forumbot.parsers.pm.PmMessage`) and the
writer's :class:`~forumbot.posting.PostResult`. Reads raise the BoardError subclasses of
:mod:`forumbot.errors`; a write never raises for the board's answer: its PostResult says what happened
(UNKNOWN when it may have been stored).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol, runtime_checkable

from forumbot.board import BoardConfig
from forumbot.client import BoardClient, LoginGuard
from forumbot.errors import BoardError
from forumbot.fetches import FetchRecord
from forumbot.parsers.pm import PmConversationPage, PmListPage
from forumbot.parsers.records import ForumPage, ThreadPage
from forumbot.posting import BoardWriter, PostResult, WriterSettings

#: Called right before a write's request leaves (the outbox commits ``sending`` there).
BeforePost = Callable[[], None] | None


@runtime_checkable
class Board(Protocol):
    """Every board operation the runner, the poll's callers and the outbox ask for, as one object."""

    def login(self, *, retry: bool = False) -> None:
        """Log in with the configured account (``retry``: the judge asked again after a failure)."""
        ...

    def fetch_thread_page(self, tid: int, page: int = 1) -> ThreadPage:
        """Page ``page`` of thread ``tid``; a page beyond the last comes back as the last one."""
        ...

    def fetch_forum_page(self, fid: int, page: int = 1) -> ForumPage:
        """Page ``page`` of forum ``fid``'s thread list."""
        ...

    def fetch_pm_list(self, page: int = 1) -> PmListPage:
        """Page ``page`` of the logged-in account's private conversations."""
        ...

    def fetch_pm_conversation(self, uid: int, page: int | None = None) -> PmConversationPage:
        """Page ``page`` of the conversation with ``uid`` (None: the board's default, the last page)."""
        ...

    def reply(
        self,
        tid: int,
        message: str,
        *,
        fid: int | None = None,
        quote_pid: int | None = None,
        before_post: BeforePost = None,
    ) -> PostResult:
        """Reply to ``tid`` (quoting ``quote_pid`` when given)."""
        ...

    def edit(
        self,
        tid: int,
        pid: int,
        message: str,
        *,
        fid: int | None = None,
        subject: str | None = None,
        before_post: BeforePost = None,
    ) -> PostResult:
        """Replace the text (and the subject, when given) of one of the account's own posts."""
        ...

    def new_thread(
        self, fid: int, subject: str, message: str, *, before_post: BeforePost = None
    ) -> PostResult:
        """Open a thread in forum ``fid``."""
        ...

    def send_pm(self, uid: int, message: str, *, before_post: BeforePost = None) -> PostResult:
        """One private message to ``uid``."""
        ...


@runtime_checkable
class PolledBoard(Protocol):
    """What the poll (forumbot/poll.py) reads a board through: the thread and forum pages of
    :class:`Board`, and the bookkeeping of the reads it stores with them (the fetch log, the request
    count, which view answered and how many posts its pages hold, the API's fallback to PC pages, the
    store's login guard). The Discuz! client (:class:`~forumbot.client.BoardClient`) is one."""

    config: BoardConfig
    api_disabled: BoardError | None  # set: the API failed, PC pages are read instead
    login_guard: LoginGuard | None
    requests_made: int
    fetches: list[FetchRecord]

    @property
    def has_credentials(self) -> bool: ...

    @property
    def logged_in(self) -> bool: ...

    def fetch_thread_page(self, tid: int, page: int = 1) -> ThreadPage: ...

    def fetch_forum_page(self, fid: int, page: int = 1) -> ForumPage: ...

    def utcnow(self) -> datetime:
        """The wall-clock time (UTC) the reads are stamped with."""
        ...

    def current_source(self) -> str:
        """The view the next thread read uses: "api", "pc" or "touch"."""
        ...

    def posts_per_page(self, source: str) -> int: ...

    def drain_fetches(self) -> list[FetchRecord]:
        """The exchanges since the last call, for the store's fetch log."""
        ...


class DiscuzBoard:
    """A Discuz! X board: reads through ``client``, writes through a :class:`BoardWriter` on the same
    client (one session, one cookie jar, one politeness interval, one login for both)."""

    def __init__(self, client: BoardClient, settings: WriterSettings | None = None) -> None:
        self.client = client
        self.writer = BoardWriter(client, settings or WriterSettings())

    def login(self, *, retry: bool = False) -> None:
        self.client.login(retry=retry)

    def fetch_thread_page(self, tid: int, page: int = 1) -> ThreadPage:
        return self.client.fetch_thread_page(tid, page)

    def fetch_forum_page(self, fid: int, page: int = 1) -> ForumPage:
        return self.client.fetch_forum_page(fid, page)

    def fetch_pm_list(self, page: int = 1) -> PmListPage:
        return self.client.fetch_pm_list(page)

    def fetch_pm_conversation(self, uid: int, page: int | None = None) -> PmConversationPage:
        return self.client.fetch_pm_conversation(uid, page)

    def reply(
        self,
        tid: int,
        message: str,
        *,
        fid: int | None = None,
        quote_pid: int | None = None,
        before_post: BeforePost = None,
    ) -> PostResult:
        return self.writer.reply(tid, message, fid=fid, quote_pid=quote_pid, before_post=before_post)

    def edit(
        self,
        tid: int,
        pid: int,
        message: str,
        *,
        fid: int | None = None,
        subject: str | None = None,
        before_post: BeforePost = None,
    ) -> PostResult:
        return self.writer.edit(tid, pid, message, fid=fid, subject=subject, before_post=before_post)

    def new_thread(
        self, fid: int, subject: str, message: str, *, before_post: BeforePost = None
    ) -> PostResult:
        return self.writer.new_thread(fid, subject, message, before_post=before_post)

    def send_pm(self, uid: int, message: str, *, before_post: BeforePost = None) -> PostResult:
        return self.writer.send_pm(uid, message, before_post=before_post)
