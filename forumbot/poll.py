"""Polling: bring the store up to date with the watched threads, asking the board as little as possible.

Why it works this way:

- Boards answer no conditional GET (no ETag/Last-Modified: shared/fixtures MEASURE.md), so the cheap
  question is the forum's thread list: ONE request tells each watched thread's ``replies`` and last
  post time. Threads that did not change cost nothing more; an idle poll is one request.
- A changed thread is read from the last page stored onward: new replies land on the last pages.
  A page beyond the last comes back as the last page, so the read stops when the board's page number
  stops growing or reaches the page count.
- Edits and deletions happen on any page and show in no list, so ``full=True`` re-reads every page of
  every watched thread; a pid stored earlier but found on no page is marked DELETED, and only after
  the WHOLE thread was read (a pid moves to another page when earlier posts are deleted).
- Every page is stored in its own transaction as soon as it is read: a crash, a Ctrl-C or a board
  error loses at most the page in flight. A BoardError on one thread is logged and reported, and the
  other threads are still polled. Anything else (a bug, an interrupt) propagates.
- An idle poll is the common case (cron runs one every minute), so :func:`poll_store` (what ``forumbot
  poll`` runs) first tries it without SQLAlchemy: the forum list is compared with what an SQLite store
  holds through the standard library's sqlite3 (forumbot/store/idle.py), and when every watched thread
  is proven unchanged the poll is recorded there, in one transaction. Anything else hands the list
  already fetched to :func:`poll` on the ORM store (no second request). This module imports the store
  only inside the functions that use it, so that path never loads it (issue 12).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from forumbot.board import BoardConfig, SourceKind
from forumbot.errors import BoardError, ThreadNotFound
from forumbot.fetches import FetchRecord
from forumbot.i18n import N_, _, ngettext
from forumbot.store.values import ThreadRead

if TYPE_CHECKING:
    from forumbot.boardio import PolledBoard
    from forumbot.client import LoginGuard
    from forumbot.parsers.forumrecords import ForumThread
    from forumbot.parsers.records import ThreadPage
    from forumbot.store.db import Store
    from forumbot.store.posts import StateChange
    from forumbot.store.threads import StoredThread

MAX_PAGES_PER_THREAD = 1000  # a guard against a board that never reports its last page
# How exact a forum list's last-post time is, by the list's view (touch lists show none at all).
LIST_PRECISION = {"pc": timedelta(minutes=1), "api": timedelta(seconds=1)}
# How far the judge's clock and the board's may disagree: a last post this close to our last complete
# read may have a sibling the read did not see, with the same minute and the same reply count.
CLOCK_SKEW = timedelta(minutes=2)


@dataclass(frozen=True, slots=True)
class PollError:
    tid: int | None  # None for the forum list
    url: str
    kind: str  # the BoardError subclass name
    message: str


@dataclass
class ThreadOutcome:
    tid: int
    reason: str  # why it was read or skipped: unchanged, new replies, full, first read, ...
    start_page: int | None = None
    pages_read: int = 0
    new_posts: int = 0
    new_revisions: int = 0
    deleted: list[int] = field(default_factory=list)
    complete: bool = False
    error: PollError | None = None
    source: str = ""  # the view(s) the pages came from ("api,pc" after a fallback)
    problems: list[str] = field(default_factory=list)  # posts a page showed but the parser skipped


@dataclass
class PollReport:
    """What one poll did. ``ok`` is False when any thread (or the forum list) failed."""

    board: str
    full: bool
    started_at: datetime
    finished_at: datetime | None = None
    requests: int = 0
    pages_read: int = 0
    new_posts: int = 0
    new_revisions: int = 0
    new_pids: list[int] = field(default_factory=list)
    revised_pids: list[int] = field(default_factory=list)
    state_changes: list[StateChange] = field(default_factory=list)
    errors: list[PollError] = field(default_factory=list)
    threads: dict[int, ThreadOutcome] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    source: str = ""  # the view used in the end (api, pc, touch)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def incomplete_tids(self) -> list[int]:
        """Threads this poll could not read completely."""
        return sorted(tid for tid, o in self.threads.items() if not o.complete)

    def failure_message(self) -> str:
        """One line for the judge when the poll failed ("" when it did not)."""
        if self.ok:
            return ""
        first = self.errors[0].message
        missing = self.incomplete_tids
        if missing:
            what = _("threads {tids} were not read completely").format(tids=", ".join(map(str, missing)))
        else:
            what = _("the forum list could not be read")
        return _(
            "poll incomplete: {what} ({error}). Every count based on these threads is provisional; "
            "run forumbot poll again once the board is back."
        ).format(what=what, error=first)

    def summary(self) -> str:
        """One line for the judge: what the poll asked and found, in the judge's language."""
        counts = [
            ngettext("{n} request", "{n} requests", self.requests).format(n=self.requests),
            ngettext("{n} page read", "{n} pages read", self.pages_read).format(n=self.pages_read),
            ngettext("{n} new post", "{n} new posts", self.new_posts).format(n=self.new_posts),
            ngettext("{n} new revision", "{n} new revisions", self.new_revisions).format(
                n=self.new_revisions
            ),
            ngettext("{n} state change", "{n} state changes", len(self.state_changes)).format(
                n=len(self.state_changes)
            ),
            ngettext("{n} error", "{n} errors", len(self.errors)).format(n=len(self.errors)),
        ]
        return _(", ").join(counts)


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """Sent to a progress hook: ``kind`` is "start" (threads = how many to read), "page", "done"."""

    kind: str
    tid: int | None = None
    page: int | None = None
    pages: int | None = None
    threads: int = 0


ProgressHook = Callable[[ProgressEvent], None]


class RichProgress:
    """A rich progress bar on stderr; silent when stderr is not a terminal (pipes, cron, tests)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

        console = Console(stderr=True)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal,
        )
        self._task: TaskID | None = None
        self._thread_task: TaskID | None = None

    def __call__(self, ev: ProgressEvent) -> None:
        p = self._progress
        if ev.kind == "start":
            p.start()
            self._task = p.add_task(_("threads"), total=ev.threads)
        elif ev.kind == "thread" and ev.tid is not None:
            if self._thread_task is not None:
                p.remove_task(self._thread_task)
            self._thread_task = p.add_task(_("thread {tid}").format(tid=ev.tid), total=None)
        elif ev.kind == "page":
            if self._thread_task is not None:
                p.update(
                    self._thread_task,
                    description=_("thread {tid} page {page}/{pages}").format(
                        tid=ev.tid, page=ev.page, pages=ev.pages
                    ),
                    completed=ev.page,
                    total=ev.pages,
                )
        elif ev.kind == "thread_done":
            if self._task is not None:
                p.advance(self._task)
        elif ev.kind == "done":
            p.stop()


def _newer(listed: datetime | None, stored: datetime | None) -> bool:
    return listed is not None and stored is not None and listed > stored


def _start_page(stored: StoredThread, ppp_now: int) -> int:
    """Where an incremental read resumes, in the current source's pages."""
    page = stored.resume_page or 1
    if stored.resume_ppp and stored.resume_ppp != ppp_now:
        page = (page - 1) * stored.resume_ppp // ppp_now + 1
    return max(page, 1)


class KnownCounts(Protocol):
    """What the store knew of a thread after its last complete read (StoredThread; the idle check's
    KnownThread)."""

    @property
    def replies(self) -> int | None: ...

    @property
    def last_post_at(self) -> datetime | None: ...


def listing_says_unchanged(
    stored: KnownCounts,
    listed: ForumThread,
    list_source: str,
    last: ThreadRead | None,
    newest_stored: datetime | None = None,
) -> tuple[bool, str]:
    """Does the forum list PROVE that nothing was posted since the last complete read?

    The reply count alone proves nothing: a deletion and a new post leave it as it was. So the list
    must also show the same last-post time and last poster as at that read, and that time must lie
    before the read started by more than the list's precision (a minute on PC pages) plus the clock
    skew: otherwise a post in the same minute, after the read, would go unseen. A touch list shows no
    last-post time, so it proves nothing and the thread's last page is read. ``newest_stored``: the
    newest stored post's time, when no list told the last-post time before. Returns (unchanged, why).
    """
    if last is None:
        return False, "never read completely"
    precision = LIST_PRECISION.get(list_source)
    if precision is None or listed.last_post_at is None:
        return False, "the forum list shows no last-post time"
    if stored.replies is None:
        return False, "replies unknown"
    if listed.replies != stored.replies:
        return False, "new replies"
    known = stored.last_post_at or newest_stored
    if known is None or _newer(listed.last_post_at, known):
        return False, "new last post"
    if listed.last_poster and last.listed_last_poster and listed.last_poster != last.listed_last_poster:
        return False, "new last poster"
    if last.started_at < listed.last_post_at + precision + CLOCK_SKEW:
        return False, "last post too close to the last read"
    return True, "unchanged"


def _unchanged_read(
    tid: int, pages: int | None, listed: ForumThread, source: str, at: datetime
) -> ThreadRead:
    """The read logged for a thread the forum list proved unchanged (no page asked)."""
    return ThreadRead(
        tid=tid,
        started_at=at,
        finished_at=at,
        full=False,
        complete=True,
        source=f"{source} forum list".strip(),
        reason="unchanged",
        first_page=None,
        last_page=None,
        pages=pages,
        pages_read=0,
        posts_seen=0,
        error_kind="",
        error="",
        listed_replies=listed.replies,
        listed_last_post_at=listed.last_post_at,
        listed_last_poster=listed.last_poster,
    )


# --------------------------------------------------------------------------- the forum list


@dataclass(frozen=True, slots=True)
class ListExchange:
    """One forum's list request: its HTTP exchanges (for the fetch log) and the error when it failed."""

    fid: int
    fetches: list[FetchRecord]
    error: BoardError | None = None
    at: datetime | None = None  # when it failed


@dataclass
class ForumListing:
    """What the forum lists said at the start of an incremental poll (one request per forum): each
    listed thread's replies and last post, and the view it came from. Asked before the store is opened
    by the idle check (:func:`poll_store`), handed to :func:`poll` when something changed."""

    started_at: datetime  # when the poll started (just before its first request)
    requests_before: int  # the client's count of requests then
    threads: dict[int, ForumThread] = field(default_factory=dict)
    sources: dict[int, str] = field(default_factory=dict)
    at: datetime | None = None  # when the last list was asked
    ok: bool = False  # every list was read (False too when there was no forum to ask)
    exchanges: list[ListExchange] = field(default_factory=list)


def fetch_listing(
    client: PolledBoard, fids: Sequence[int], started_at: datetime | None = None
) -> ForumListing:
    """Ask each forum in ``fids`` for its thread list. Board errors are kept in the listing (with the
    exchanges that led to them), not raised: the threads are then read directly."""
    now = client.utcnow
    listing = ForumListing(started_at=started_at or now(), requests_before=client.requests_made)
    listing.ok = bool(fids)
    for fid in fids:
        try:
            listing.at = now()
            forum = client.fetch_forum_page(fid)
        except BoardError as exc:
            listing.ok = False
            listing.exchanges.append(ListExchange(fid, client.drain_fetches(), exc, now()))
            continue
        listing.exchanges.append(ListExchange(fid, client.drain_fetches()))
        listing.threads.update({t.tid: t for t in forum.threads})
        listing.sources.update({t.tid: str(forum.source) for t in forum.threads})
    return listing


def _forum_ids(cfg: BoardConfig, known_fids: Iterable[int | None]) -> list[int]:
    """The forums to ask: the board's, else those the stored threads were found in."""
    return [cfg.fid] if cfg.fid else sorted({fid for fid in known_fids if fid is not None})


def _api_note(client: PolledBoard, cfg: BoardConfig, report: PollReport) -> None:
    if client.api_disabled is not None and cfg.source == "api":
        report.notes.append(
            _("the API failed, PC pages were read instead: {error}").format(error=client.api_disabled)
        )


# --------------------------------------------------------------------------- the poll


def poll(
    client: PolledBoard,
    store: Store,
    board: BoardConfig | str | None,
    watched_tids: Iterable[int],
    *,
    full: bool = False,
    progress: ProgressHook | bool | None = None,
    retry_login: bool = False,
    marker_tids: Iterable[int] = (),
    listing: ForumListing | None = None,
) -> PollReport:
    """Poll ``watched_tids`` on ``board`` (default: the client's board) into ``store``.

    ``progress``: None shows a rich bar when stderr is a terminal, False shows nothing, a callable
    receives :class:`ProgressEvent`. Board errors are reported, not raised; StoreError and anything
    unexpected propagate (what was stored before stays stored). Every thread read is logged in the
    store (:mod:`forumbot.store.reads`), complete or not, and the poll's process is recorded while it
    runs. Logins go through the store's record of failures (:mod:`forumbot.store.logins`):
    ``retry_login`` is the judge's explicit retry after a failure.

    ``marker_tids`` (the game's vote threads): on a full poll through the mobile API, these threads are
    read once more from PC pages. API v4 strips the 「本帖最后由 … 编辑」 marker, so a vote edited before
    forumbot's first read would be counted from the API and voided from PC pages; the PC read puts the
    marker into the store (the same content is no new revision) so every source gives one verdict.
    PC pages rather than API v1/v2 (which keep the marker): v1/v2 lack the floor numbers the drafts
    link to, and PC pages are the view the players themselves read.

    ``listing``: the forum lists already asked by this poll (:func:`poll_store`'s idle check); they are
    logged and used instead of asking again (an incremental poll only).
    """
    from forumbot.store import reads
    from forumbot.store.base import ensure_board
    from forumbot.store.logins import StoreLoginGuard

    cfg = board if isinstance(board, BoardConfig) else client.config
    key = board if isinstance(board, str) else cfg.key
    now = client.utcnow
    report = PollReport(board=key, full=full, started_at=listing.started_at if listing else now())
    tids: list[int] = list(dict.fromkeys(int(t) for t in watched_tids))
    hook: ProgressHook | None
    if progress is None:
        hook = RichProgress() if sys.stderr.isatty() else None
    elif progress is True:
        hook = RichProgress()
    elif progress is False:
        hook = None
    else:
        hook = progress

    ensure_board(store, key)
    if client.login_guard is None or retry_login:
        client.login_guard = StoreLoginGuard(store, key, retry=retry_login)
    process_id = reads.start_poll_process(store, key, at=report.started_at, full=full, tids=tids)
    try:
        _poll(client, store, cfg, key, tids, full, report, hook, process_id, None if full else listing)
        if full:
            _reread_for_markers(client, store, key, [int(t) for t in marker_tids], report, hook, process_id)
    finally:
        done = report.finished_at is not None
        reads.finish_poll_process(store, process_id, at=now(), ok=report.ok and done)
    return report


def _poll(
    client: PolledBoard,
    store: Store,
    cfg: BoardConfig,
    key: str,
    tids: list[int],
    full: bool,
    report: PollReport,
    hook: ProgressHook | None,
    process_id: int,
    listing: ForumListing | None,
) -> None:
    from forumbot.store import reads
    from forumbot.store.fetchlog import record_fetches, record_poll
    from forumbot.store.threads import list_threads

    now = client.utcnow
    req0 = listing.requests_before if listing is not None else client.requests_made
    leftover = client.drain_fetches()  # exchanges made before this poll (a login): log them too
    if leftover:
        record_fetches(store, key, leftover)
    stored = {t.tid: t for t in list_threads(store, key, tids)}

    # One forum-list request per forum tells which threads changed.
    if not full:
        if listing is None:
            listing = fetch_listing(client, _forum_ids(cfg, (t.fid for t in stored.values())))
        for ex in listing.exchanges:
            if ex.error is None:
                record_fetches(store, key, ex.fetches)
                continue
            _record_error(store, key, ex.fetches, ex.error, None, report, ex.at or now())
            report.notes.append(
                _("forum {fid} list failed: every watched thread is checked directly").format(fid=ex.fid)
            )
    listed: dict[int, ForumThread] = listing.threads if listing is not None else {}
    list_source: dict[int, str] = listing.sources if listing is not None else {}
    listed_ok = listing is not None and listing.ok

    plan: list[tuple[int, int, str]] = []
    for tid in tids:
        st = stored.get(tid)
        if full:
            plan.append((tid, 1, "full"))
            continue
        if st is None or st.resume_page is None:
            plan.append((tid, 1, "first read"))
            continue
        start = _start_page(st, client.posts_per_page(client.current_source()))
        ft = listed.get(tid)
        if ft is None:
            why = "not in the forum list" if listed_ok else "no forum list"
            plan.append((tid, start, why))
            continue
        last = reads.last_complete_read(store, key, tid)
        newest = reads.newest_post_at(store, key, tid) if st.last_post_at is None else None
        unchanged, why = listing_says_unchanged(st, ft, list_source.get(tid, ""), last, newest)
        if unchanged:
            assert listing is not None
            at = listing.at or now()
            report.threads[tid] = ThreadOutcome(tid, "unchanged", complete=True, source="list")
            read = _unchanged_read(tid, st.pages, ft, list_source.get(tid, ""), at)
            reads.record_thread_read(store, key, read, process_id=process_id)
            continue
        if st.replies is not None and ft.replies < st.replies:
            report.notes.append(
                _(
                    "thread {tid}: replies went down from {before} to {after} "
                    "(posts deleted?): run a full poll to find which"
                ).format(tid=tid, before=st.replies, after=ft.replies)
            )
        plan.append((tid, start, why))

    if hook:
        hook(ProgressEvent("start", threads=len(plan)))
    try:
        for tid, start, why in plan:
            if hook:
                hook(ProgressEvent("thread", tid=tid))
            outcome = _read_thread(
                client, store, key, tid, start, why, full, listed.get(tid), report, now, hook, process_id
            )
            report.threads[tid] = outcome
            if hook:
                hook(ProgressEvent("thread_done", tid=tid))
    finally:
        if hook:
            hook(ProgressEvent("done"))

    report.finished_at = now()
    report.requests = client.requests_made - req0
    report.source = client.current_source()
    _api_note(client, cfg, report)
    record_poll(
        store,
        key,
        started_at=report.started_at,
        finished_at=report.finished_at,
        full=full,
        tids=tids,
        requests=report.requests,
        pages_read=report.pages_read,
        new_posts=report.new_posts,
        new_revisions=report.new_revisions,
        state_changes=len(report.state_changes),
        errors=len(report.errors),
        notes=report.notes,
    )


class _MarkerReread(BoardError):
    what = N_("vote thread read again from PC pages")


def _reread_for_markers(
    client: PolledBoard,
    store: Store,
    key: str,
    tids: list[int],
    report: PollReport,
    hook: ProgressHook | None,
    process_id: int,
) -> None:
    """After a full poll through API v4 or touch pages: read ``tids`` again from PC pages, for the edit
    markers v4 strips and for the times touch pages give only relatively («3 小时前»), so that a post
    whose interval crosses the opening, the void cutoff or the close is settled from an exact source."""
    source = client.current_source()
    if not tids or source not in ("api", "touch"):
        return
    saved, config = client.api_disabled, client.config
    if source == "api":
        client.api_disabled = _MarkerReread(client.config.url, "", _("API v4 strips the edit marker"))
    else:
        client.config = replace(config, source=SourceKind.PC)
    req0 = client.requests_made
    try:
        for tid in dict.fromkeys(tids):
            outcome = _read_thread(
                client,
                store,
                key,
                tid,
                1,
                "exact view",
                True,
                None,
                report,
                client.utcnow,
                hook,
                process_id,
            )
            if not outcome.complete:
                report.threads[tid] = outcome  # the vote thread is not known completely without it
            report.notes.append(
                _("thread {tid}: read again from PC pages (edit markers, exact times)").format(tid=tid)
            )
    finally:
        client.api_disabled, client.config = saved, config
        report.requests += client.requests_made - req0


def _log_error(
    store: Store,
    key: str,
    client: PolledBoard,
    exc: BoardError,
    tid: int | None,
    report: PollReport,
    now: Callable[[], datetime],
    page: int | None = None,
) -> PollError:
    return _record_error(store, key, client.drain_fetches(), exc, tid, report, now(), page)


def _record_error(
    store: Store,
    key: str,
    fetches: Sequence[FetchRecord],
    exc: BoardError,
    tid: int | None,
    report: PollReport,
    at: datetime,
    page: int | None = None,
) -> PollError:
    """Log the exchanges that ended in ``exc`` (the last one marked with it) and report the error."""
    from forumbot.store.fetchlog import record_fetches

    err = PollError(tid, exc.url, type(exc).__name__, str(exc))
    record_fetches(store, key, fetches, tid=tid, page=page, error=err.message, at=at, url=exc.url)
    report.errors.append(err)
    return err


def _read_thread(
    client: PolledBoard,
    store: Store,
    key: str,
    tid: int,
    start: int,
    reason: str,
    full: bool,
    listed: ForumThread | None,
    report: PollReport,
    now: Callable[[], datetime],
    hook: ProgressHook | None,
    process_id: int | None = None,
) -> ThreadOutcome:
    """Read ``tid`` from page ``start`` to its last page, then log the read (complete or not)."""
    from forumbot.store import reads

    out = ThreadOutcome(tid, reason, start_page=start)
    started_at = now()
    sources: list[str] = []
    last_info: list[int | None] = [None, None]  # last page read, page count
    seen: set[int] = set()
    try:
        _read_pages(
            client, store, key, tid, start, full, listed, report, now, hook, out, seen, sources, last_info
        )
    except _ApiPageMissing as missing:
        # The API answered "no such thread" for a page of a thread it may well hold (a ppp page the
        # board will not serve): read the rest from PC pages instead of judging an empty thread.
        fallback: BoardError = missing.error
        pc_page = (missing.page - 1) * client.posts_per_page("api") // client.posts_per_page("pc") + 1
        report.notes.append(
            _(
                "thread {tid}: the API said page {page} does not exist; read from PC page {pc_page} instead"
            ).format(tid=tid, page=missing.page, pc_page=pc_page)
        )
        saved = client.api_disabled
        client.api_disabled = fallback  # this thread only: restored below
        try:
            out.error = None
            _read_pages(
                client,
                store,
                key,
                tid,
                pc_page,
                full,
                listed,
                report,
                now,
                hook,
                out,
                seen,
                sources,
                last_info,
                first=start == 1,
            )
        finally:
            if client.api_disabled is fallback:
                client.api_disabled = saved
    out.source = ",".join(dict.fromkeys(sources))
    err = out.error
    reads.record_thread_read(
        store,
        key,
        ThreadRead(
            tid=tid,
            started_at=started_at,
            finished_at=now(),
            full=full and start == 1,
            complete=out.complete,
            source=out.source,
            reason=reason,
            first_page=start,
            last_page=last_info[0],
            pages=last_info[1],
            pages_read=out.pages_read,
            posts_seen=len(seen),
            error_kind=err.kind if err else ("" if out.complete else "Incomplete"),
            error=err.message if err else ("" if out.complete else _("stopped before the last page")),
            listed_replies=listed.replies if listed is not None else None,
            listed_last_post_at=listed.last_post_at if listed is not None else None,
            listed_last_poster=listed.last_poster if listed is not None else "",
        ),
        process_id=process_id,
    )
    return out


class _ApiPageMissing(Exception):
    """Internal: the API said ThreadNotFound for page ``page`` (a PC read decides)."""

    def __init__(self, page: int, error: ThreadNotFound) -> None:
        super().__init__(str(error))
        self.page = page
        self.error = error


def _read_pages(
    client: PolledBoard,
    store: Store,
    key: str,
    tid: int,
    start: int,
    full: bool,
    listed: ForumThread | None,
    report: PollReport,
    now: Callable[[], datetime],
    hook: ProgressHook | None,
    out: ThreadOutcome,
    seen: set[int],
    sources: list[str],
    last_info: list[int | None],
    *,
    first: bool | None = None,
) -> None:
    from forumbot.store.fetchlog import record_fetches
    from forumbot.store.posts import mark_vanished, record_thread_page
    from forumbot.store.threads import update_thread

    first_page: ThreadPage | None = None
    page = start
    while True:
        source = client.current_source()
        try:
            tp = client.fetch_thread_page(tid, page)
        except ThreadNotFound as exc:
            if source == "api" and client.current_source() == "api":
                fetches = client.drain_fetches()
                record_fetches(store, key, fetches, tid=tid, page=page, error=str(exc), at=now(), url=exc.url)
                raise _ApiPageMissing(page, exc) from exc
            out.error = _log_error(store, key, client, exc, tid, report, now, page)
            return
        except BoardError as exc:
            out.error = _log_error(store, key, client, exc, tid, report, now, page)
            return
        if first_page is None:
            first_page = tp
        sources.append(str(tp.source))
        info = tp.thread
        result = record_thread_page(
            store,
            key,
            tp,
            seen_at=now(),
            fetches=client.drain_fetches(),
            ppp=client.posts_per_page(str(tp.source)),
            skip_pids=seen,
        )
        seen.update(p.pid for p in tp.posts)
        last_info[0], last_info[1] = info.page, info.pages
        skipped = [f"page {info.page}: {p}" for p in tp.problems if "skipped" in p]
        out.problems.extend(skipped)
        out.pages_read += 1
        out.new_posts += len(result.new_posts)
        out.new_revisions += len(result.new_revisions)
        report.pages_read += 1
        report.new_posts += len(result.new_posts)
        report.new_revisions += len(result.new_revisions)
        report.new_pids.extend(result.new_posts)
        report.revised_pids.extend(result.new_revisions)
        report.state_changes.extend(result.state_changes)
        if hook:
            hook(ProgressEvent("page", tid=tid, page=info.page, pages=info.pages))
        if info.page < page or info.page >= info.pages:
            break  # the last page (or the board clamped us to it)
        if out.pages_read >= MAX_PAGES_PER_THREAD:
            report.notes.append(
                _("thread {tid}: stopped after {count} pages").format(tid=tid, count=MAX_PAGES_PER_THREAD)
            )
            return
        page = info.page + 1

    if out.problems:
        # A post the parser could not read is a post the store lacks: not a complete read, and no
        # post may be declared deleted on the strength of it.
        problems = _("; ").join(out.problems)
        err = PollError(
            tid, tp.url, "UnreadablePost", _("thread {tid}: {problems}").format(tid=tid, problems=problems)
        )
        report.errors.append(err)
        out.error = err
        return
    out.complete = True
    at = now()
    from_page_one = start == 1 if first is None else first
    if full and first_page is not None and from_page_one:
        changes = mark_vanished(store, key, tid, seen, at=at)
        report.state_changes.extend(changes)
        out.deleted = [c.pid for c in changes]
    replies = listed.replies if listed is not None else None
    if replies is None and first_page is not None and first_page.thread.page == 1:
        replies = first_page.thread.replies
    update_thread(
        store,
        key,
        tid,
        replies=replies,
        last_post_at=listed.last_post_at if listed is not None else None,
        polled_at=at,
        full_polled_at=at if full else None,
    )


# --------------------------------------------------------------------------- forumbot poll: idle first


class _StoreOnDemand:
    """The ORM store at ``url``, opened when first needed (something changed, a login) and closed once."""

    def __init__(self, url: str | Path | None) -> None:
        self.url = url
        self._store: Store | None = None

    def get(self) -> Store:
        if self._store is None:
            from forumbot.store.db import open_store

            self._store = open_store(self.url)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


class _LoginGuardOnDemand:
    """The client's login guard during the idle check: the store's own (StoreLoginGuard), on a store
    opened only when a login is asked for (a login wall mid-session), so no login skips the record of
    failed logins that protects the board's IP."""

    def __init__(self, stores: _StoreOnDemand, key: str) -> None:
        self.stores = stores
        self.key = key

    def _guard(self) -> LoginGuard:
        from forumbot.store.logins import StoreLoginGuard

        return StoreLoginGuard(self.stores.get(), self.key)

    def check(self, board: str, username: str, *, at: datetime, retry: bool = False) -> None:
        self._guard().check(board, username, at=at, retry=retry)

    def failed(self, board: str, username: str, error: BoardError, *, at: datetime) -> None:
        self._guard().failed(board, username, error, at=at)

    def succeeded(self, board: str, username: str, *, at: datetime) -> None:
        self._guard().succeeded(board, username, at=at)


def poll_store(
    client: PolledBoard,
    store_url: str | Path | None,
    board: BoardConfig,
    watched_tids: Iterable[int],
    *,
    full: bool = False,
    retry_login: bool = False,
    marker_tids: Iterable[int] = (),
    thread_days: Sequence[tuple[int, str, int]] = (),
    progress: ProgressHook | bool | None = None,
) -> PollReport:
    """What ``forumbot poll`` runs: :func:`poll` into the store at ``store_url``, an idle poll first.

    When the store is an SQLite file and the poll incremental, the forum list is compared with what the
    store holds through sqlite3 (forumbot/store/idle.py); when it proves every watched thread unchanged,
    the poll is recorded there (process, fetch log, thread reads, poll run) and SQLAlchemy is never
    imported. Otherwise the ORM store is opened and :func:`poll` reads what changed, using the forum list
    already asked. ``thread_days`` (tid, kind, day): which thread is which day's vote or discussion,
    remembered on each thread read completely (later entries win). ``progress`` as :func:`poll` (an idle
    poll shows none: it reads no page). Raises what :func:`poll` raises (StoreError, StoreBusy...).
    """
    tids: list[int] = list(dict.fromkeys(int(t) for t in watched_tids))
    days = [(tid, kind, day) for tid, kind, day in thread_days if tid in tids]
    stores = _StoreOnDemand(store_url)
    saved_guard = client.login_guard
    try:
        listing: ForumListing | None = None
        if not full and not retry_login:
            found = _idle_poll(client, store_url, board, tids, days, stores)
            if isinstance(found, PollReport):
                return found
            listing = found
        from forumbot.store.threads import update_thread

        store = stores.get()
        report = poll(
            client,
            store,
            board,
            tids,
            full=full,
            progress=progress,
            retry_login=retry_login,
            marker_tids=marker_tids,
            listing=listing,
        )
        for tid, kind, day in days:
            outcome = report.threads.get(tid)
            if outcome is not None and outcome.complete:
                update_thread(store, board, tid, kind=kind, day=day)
        return report
    finally:
        client.login_guard = saved_guard
        stores.close()


def _idle_poll(
    client: PolledBoard,
    store_url: str | Path | None,
    cfg: BoardConfig,
    tids: list[int],
    thread_days: Sequence[tuple[int, str, int]],
    stores: _StoreOnDemand,
) -> PollReport | ForumListing | None:
    """The idle poll through sqlite3: its report when every watched thread is proven unchanged (and
    recorded); the forum listing when the list was asked but something changed or could not be
    recorded here; None when the check could not even start (the list not asked: poll() asks it)."""
    from forumbot.store.idle import IdleStore, IdleStoreUnusable

    if not tids or client.fetches or (client.has_credentials and not client.logged_in):
        return None  # exchanges to log first, or a login to come: both through the ORM store
    key = cfg.key
    started_at = client.utcnow()
    opened = IdleStore.open(store_url, key)
    if opened is None:
        return None
    with opened as idle:
        try:
            known = idle.threads(tids)
            if any(tid not in known or known[tid].resume_page is None for tid in tids):
                return None  # a first read
            lasts = {tid: idle.last_complete_read(tid) for tid in tids}
            if any(last is None for last in lasts.values()):
                return None  # never read completely
            newest = {tid: idle.newest_post_at(tid) for tid in tids if known[tid].last_post_at is None}
        except IdleStoreUnusable:
            return None
        fids = _forum_ids(cfg, (k.fid for k in known.values()))
        if not fids:
            return None
        if client.login_guard is None:
            client.login_guard = _LoginGuardOnDemand(stores, key)
        listing = fetch_listing(client, fids, started_at)
        if not listing.ok:
            return listing
        for tid in tids:
            ft = listing.threads.get(tid)
            source = listing.sources.get(tid, "")
            if (
                ft is None
                or not listing_says_unchanged(known[tid], ft, source, lasts[tid], newest.get(tid))[0]
            ):
                return listing
        report = PollReport(board=key, full=False, started_at=listing.started_at)
        at = listing.at or client.utcnow()
        thread_reads: list[ThreadRead] = []
        for tid in tids:
            report.threads[tid] = ThreadOutcome(tid, "unchanged", complete=True, source="list")
            listed = listing.threads[tid]
            thread_reads.append(
                _unchanged_read(tid, known[tid].pages, listed, listing.sources.get(tid, ""), at)
            )
        report.finished_at = client.utcnow()
        report.requests = client.requests_made - listing.requests_before
        report.source = client.current_source()
        _api_note(client, cfg, report)
        try:
            idle.record_idle_poll(
                started_at=report.started_at,
                finished_at=report.finished_at,
                tids=tids,
                fetches=[f for ex in listing.exchanges for f in ex.fetches],
                reads=thread_reads,
                requests=report.requests,
                notes=report.notes,
                thread_days=thread_days,
            )
        except IdleStoreUnusable:
            return listing  # poll() records it through the ORM (and says what is wrong, if anything)
        return report
