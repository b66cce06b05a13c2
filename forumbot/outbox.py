"""The outbox: every post, edit and private message the judge's account writes, reviewed, sent once, verified.

The workflow (statuses of an item)::

    draft ──approve──▶ approved ──send──▶ sending ──▶ sent (pid/pmid, url, time)
      │                   ▲                  │   ├──▶ failed  (the board's words; approve again to resend)
      └──cancel──▶ cancelled                 │   └──▶ unknown  (no readable answer: read the board first)
                          └──── not found on the board ◀── verify ◀┘

Why it is built this way:

- **Sent once.** ``sending`` is written and committed BEFORE the POST leaves (the writer calls back right
  before it). A POST is never retried blindly: only an answer in which the board says it refused (flood
  control, whose interval we then wait) lets the same item go again in the same run. A timeout, an
  unreadable answer or a crash leaves the item ``sending``/``unknown``; at the next start every
  ``sending`` item becomes ``unknown``, and an ``unknown`` item is settled only by reading the
  destination (the thread's last pages, the forum's thread list, the edited post, the PM conversation)
  for a post by the judge with that body: found → ``sent`` with the pid/pmid read back, not found →
  ``approved`` again. Nothing is sent while any item is unsettled.
- **Reviewed.** Only ``approved`` items are sent. The game file's ``[outbox] auto_approve`` names the kinds
  a judge lets go alone (e.g. the running vote count). Every change is logged with who and why; every
  body a judge edited is kept as a revision. Nothing is deleted.
- **Secrets stay secret.** A secret kind (a private notice, a check result, a night result) can only be a
  private message to the one uid of its own player; a private message to a uid outside the roster and the
  judges is refused. Checked when the item is added and again right before it is sent.
- **Paced.** Flood control waits the board's interval (capped); private messages wait UCenter's
  ``pmfloodctrl`` (15 s by default, ``[outbox] pm_interval``) between two PMs, with progress shown.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlmodel import col, select

from forumbot import urls
from forumbot.boardio import Board, DiscuzBoard
from forumbot.client import BoardClient
from forumbot.config import Game
from forumbot.errors import BoardError, ConfigError, TruncatedPage, UnparseablePage, UsageError
from forumbot.i18n import _
from forumbot.labels import outbox_status_label
from forumbot.parsers import parse_thread_page
from forumbot.posting import (
    BoardWriter,
    Outcome,
    PostResult,
    WriterSettings,
    bodies_match,
    name_characters,
    outside_charset,
)
from forumbot.posting import as_board_shows as shown_by_board
from forumbot.store import outbox as repo
from forumbot.store import records
from forumbot.store.db import Store
from forumbot.store.logins import guard_client
from forumbot.store.models import BoardRow, OutboxItemRow, PostRow
from forumbot.store.outbox import OutboxItem
from forumbot.urls import Url


class ItemKind(StrEnum):
    """What an item is. The desk's drafts map onto these; ``judge_post``/``judge_pm`` are a judge's own."""

    CASE_POST = "case_post"  # 案情: the night's outcome
    VOTE_COUNT = "vote_count"  # the final vote count
    RUNNING_COUNT = "running_count"  # a running count, usually an edit of one floor
    REVOTE_CALL = "revote_call"
    EXECUTION_NOTICE = "execution_notice"
    DROWNING_NOTICE = "drowning_notice"
    ELEVATOR = "elevator"  # 电梯
    JUDGE_POST = "judge_post"
    PRIVATE_NOTICE = "private_notice"  # a player's secret role (本尊ID, team mates)
    CHECK_RESULT = "check_result"  # 验人结果
    NIGHT_RESULT = "night_result"  # what one player learns at night
    JUDGE_PM = "judge_pm"  # a judge's own private message (not secret by kind)
    DAY_THREAD = "day_thread"  # a day's vote thread forumbot opens (its header is the first post)
    GAME_REVIEW = "game_review"  # 复盘: every role, every night, every day's tally, once the game ends


SECRET_KINDS = frozenset({ItemKind.PRIVATE_NOTICE, ItemKind.CHECK_RESULT, ItemKind.NIGHT_RESULT})

DRAFT, APPROVED, SENDING, SENT, FAILED, UNKNOWN, CANCELLED = (
    "draft",
    "approved",
    "sending",
    "sent",
    "failed",
    "unknown",
    "cancelled",
)
STATUSES = (DRAFT, APPROVED, SENDING, SENT, FAILED, UNKNOWN, CANCELLED)
STATUS_ZH = {
    DRAFT: "草稿",
    APPROVED: "已批准",
    SENDING: "发送中",
    SENT: "已发送",
    FAILED: "被拒绝",
    UNKNOWN: "待核实",
    CANCELLED: "已取消",
}


# --------------------------------------------------------------------------- destinations


@dataclass(frozen=True, slots=True)
class Reply:
    """A reply to thread ``tid`` (quoting ``quote_pid`` when given)."""

    tid: int
    fid: int | None = None
    quote_pid: int | None = None


@dataclass(frozen=True, slots=True)
class NewThread:
    fid: int
    subject: str


@dataclass(frozen=True, slots=True)
class Edit:
    """A new text for one of the judge's own posts (a running count kept up to date in one floor)."""

    tid: int
    pid: int
    fid: int | None = None
    subject: str | None = None


@dataclass(frozen=True, slots=True)
class PrivateMessage:
    """One private message to each of ``uids`` (sent one by one, paced)."""

    uids: tuple[int, ...]

    def __init__(self, uids: int | Iterable[int]) -> None:
        object.__setattr__(self, "uids", (uids,) if isinstance(uids, int) else tuple(uids))


Destination = Reply | NewThread | Edit | PrivateMessage


def destination_of(item: OutboxItem) -> Destination:
    if item.dest == "reply":
        assert item.tid is not None
        return Reply(item.tid, item.fid, item.quote_pid)
    if item.dest == "newthread":
        assert item.fid is not None
        return NewThread(item.fid, item.subject)
    if item.dest == "edit":
        assert item.tid is not None and item.pid is not None
        return Edit(item.tid, item.pid, item.fid, item.subject or None)
    return PrivateMessage(item.uids)


def describe(item: OutboxItem, names: Mapping[int, str] | None = None) -> str:
    """The destination in a judge's words; ``names`` (uid → name, :meth:`Outbox.names`) names the
    recipients of a private message."""
    if item.dest == "reply":
        return f"回复 tid {item.tid}" + (f"（引用 pid {item.quote_pid}）" if item.quote_pid else "")
    if item.dest == "newthread":
        return f"新主题 fid {item.fid}「{item.subject}」"
    if item.dest == "edit":
        return f"编辑 pid {item.pid}（tid {item.tid}）"
    known = names or {}
    # a recipient whose name is not known is shown by his uid alone, never as "?"
    who = ", ".join(f"{known[u]}(uid {u})" if u in known else f"uid {u}" for u in item.uids)
    return f"私信 {who}"


class OutboxRefused(UsageError):
    """An item that must not exist: a secret to a public place, a PM to a stranger..."""


class OutsideCharset(UsageError):
    """A text with characters the board's charset lacks (GBK: €, 𠮷, ✓, emoji), caught before approval."""

    def __init__(self, message: str, *, chars: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.chars = tuple(chars)


class SentByAnother(UsageError):
    """Two senders raced for one item and this one lost: the message names the winner and when."""


#: This process, as the log of a ``sending`` change names it (so a sender that loses a race can say
#: which forumbot won: the same judge may run two, on two machines).
SENDER = f"{socket.gethostname()} pid {os.getpid()}"


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class OutboxSettings:
    """``[outbox]`` in the game file."""

    auto_approve: frozenset[str] = frozenset()
    pm_interval: float = 15.0  # UCenter pmfloodctrl (its default)
    flood_cap: float = 120.0  # never wait longer than this for the board's flood control
    flood_retries: int = 3  # refusals by flood control in a row before the item is marked failed
    via: str = "web"  # web | api
    fast_reply: bool = False
    uids: Mapping[str, int] = field(default_factory=dict)  # name -> uid, for names not yet seen in the store

    @classmethod
    def from_game(cls, game: Game) -> OutboxSettings:
        raw: Mapping[str, Any] = getattr(game, "outbox", {}) or {}
        auto = [str(k) for k in raw.get("auto_approve", ())]
        known = {k.value for k in ItemKind}
        for k in auto:
            if k not in known:
                raise ConfigError(
                    _("unknown outbox kind {kind!r}").format(kind=k),
                    field="outbox.auto_approve",
                    fix=_("use any of {kinds}").format(kinds=", ".join(sorted(known))),
                )
        via = str(raw.get("via", "web"))
        if via not in ("web", "api"):
            raise ConfigError(
                _("via = {value!r} is neither web nor api").format(value=via),
                field="outbox.via",
                fix=_('"web" (the forms) or "api" (mobile API)'),
            )
        uids_raw = raw.get("uids", {})
        try:
            uids = {str(k): int(v) for k, v in dict(uids_raw).items()}
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                _("uids must map names to numbers"), field="outbox.uids", fix='[outbox.uids] "饺子" = 2'
            ) from exc
        for name in uids:
            if name not in game.roster and name not in game.judges:
                raise ConfigError(
                    _("{name!r} is neither a player nor a judge").format(name=name),
                    field="outbox.uids",
                    fix=_("names match the roster"),
                )
        try:
            pm_interval = float(raw.get("pm_interval", 15.0))
            flood_cap = float(raw.get("flood_cap", 120.0))
        except (TypeError, ValueError) as exc:
            raise ConfigError(_("not a number"), field="outbox.pm_interval", fix="pm_interval = 15") from exc
        if pm_interval < 0 or flood_cap < 0:
            raise ConfigError(_("a negative wait"), field="outbox.pm_interval", fix="pm_interval = 15")
        return cls(
            auto_approve=frozenset(auto),
            pm_interval=pm_interval,
            flood_cap=flood_cap,
            via=via,
            fast_reply=bool(raw.get("fast_reply", False)),
            uids=uids,
        )


# --------------------------------------------------------------------------- reports


@dataclass(frozen=True, slots=True)
class SendStep:
    item_id: int
    outcome: str  # an Outcome value, or verified / not_found
    status: str  # the item's status afterwards
    words: str  # the board's words or our note


@dataclass
class SendReport:
    steps: list[SendStep] = field(default_factory=list)
    stopped: str = ""  # why the run stopped early ("" when it went through)

    def add(self, item: OutboxItem, outcome: str, words: str) -> None:
        self.steps.append(SendStep(item.id, outcome, item.status, words))


# --------------------------------------------------------------------------- the outbox


class Outbox:
    """The outbox of one game. ``client`` (a BoardClient) is made from the game file when not given.

    ``sleep``/``now`` are injectable so tests never wait; ``progress`` receives one line per step.
    """

    def __init__(
        self,
        store: Store,
        game: Game,
        *,
        client: BoardClient | None = None,
        board: Board | None = None,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        progress: Callable[[str], None] | None = None,
        by: str = "forumbot",
    ) -> None:
        self.store = store
        if game.signup is not None and not game.roster:  # the players are the confirmed sign-up's
            from forumbot.desk.roster import with_signup_roster

            game = with_signup_roster(game, store)
        self.game = game
        self.settings = OutboxSettings.from_game(game)
        self._client = guard_client(client, store, game.board) if client is not None else None
        self._board = board  # the seam every write goes through (default: the Discuz! board on client)
        self.sleep = sleep
        self.now = now
        self.progress = progress or (lambda line: None)
        self.by = by
        self._last_pm_at: datetime | None = None

    # ------------------------------------------------------------------ who is who

    def uid_map(self) -> dict[str, int]:
        """Player and judge names → uids: the game file's ``[outbox.uids]``, else the posts in the store."""
        names = set(self.game.roster) | set(self.game.judges)
        found: dict[str, int] = {}
        with self.store.session() as s:
            rows = s.exec(
                select(PostRow.author, PostRow.uid)
                .join(BoardRow, col(BoardRow.id) == col(PostRow.board_id))
                .where(
                    BoardRow.url == self.game.board.url,
                    col(PostRow.author).in_(sorted(names)),
                    col(PostRow.uid).is_not(None),
                )
            )
            for author, uid in rows:
                if uid:
                    found.setdefault(author, int(uid))
        found.update(self.settings.uids)
        return found

    def owner_uids(self) -> dict[str, int]:
        """Role account → the uid of the player's own account (本尊ID), from the sign-up's draw
        (forumbot/desk/signup.py): where an identity notice goes when the game uses role accounts."""
        if self.game.signup is None or not self.game.signup.role_accounts:
            return {}
        with self.store.session() as s:
            gid = records.find_game(s, self.game.name, self.game.ruleset)
            found = records.decisions_for(s, gid, "signup_draw") if gid is not None else []
        return {str(k): int(v) for k, v in found[-1].detail.get("owner_uids", {}).items()} if found else {}

    def _check_safe(self, kind: ItemKind, dest: Destination, player: str) -> None:
        """Refuse what must never be sent (see the module doc). Raises OutboxRefused."""
        if kind in SECRET_KINDS:
            if not isinstance(dest, PrivateMessage):
                raise OutboxRefused(
                    _(
                        "{kind} is secret: it may only be sent by private message to that player, "
                        "never to a public place ({place})"
                    ).format(kind=kind.value, place=type(dest).__name__)
                )
            if not player or player not in self.game.roster:
                raise OutboxRefused(
                    _(
                        "{kind} must name the player who receives it (a role in the roster), got {player!r}"
                    ).format(kind=kind.value, player=player)
                )
            uid = self.uid_map().get(player)
            owner = self.owner_uids().get(player) if kind is ItemKind.PRIVATE_NOTICE else None
            if owner is not None and dest.uids == (owner,):
                uid = owner  # the identity notice goes to the player's own account (本尊ID)
            if uid is None:
                raise OutboxRefused(
                    _(
                        "the uid of {player} is not known: write {player} = UID under [outbox.uids] "
                        "in the game file"
                    ).format(player=player)
                )
            if dest.uids != (uid,):
                raise OutboxRefused(
                    _("{kind} may only be sent to {player} (uid {uid}), not to {uids}").format(
                        kind=kind.value, player=player, uid=uid, uids=list(dest.uids)
                    )
                )
        if isinstance(dest, PrivateMessage):
            if not dest.uids:
                raise OutboxRefused(_("the private message has no recipient"))
            allowed = set(self.uid_map().values()) | set(self.owner_uids().values())
            strangers = [u for u in dest.uids if u not in allowed]
            if strangers:
                raise OutboxRefused(
                    _(
                        "uid {uids} is not a player or judge of this game: private message refused "
                        "(name them under [outbox.uids] first)"
                    ).format(uids=strangers)
                )
            if len(set(dest.uids)) != len(dest.uids):
                raise OutboxRefused(_("a recipient is named twice: {uids}").format(uids=list(dest.uids)))

    # ------------------------------------------------------------------ adding and reviewing

    def add(
        self,
        kind: ItemKind | str,
        destination: Destination,
        body: str,
        *,
        day: int | None = None,
        night: int | None = None,
        player: str = "",
        by: str | None = None,
        key: str = "",
    ) -> int:
        """Add a draft (approved at once when the game file auto-approves its kind); returns its id.

        ``key``: the runner's stable key for this item (see :meth:`by_key`); "" for a judge's own."""
        try:
            k = ItemKind(kind)
        except ValueError as exc:
            raise UsageError(
                _("unknown outbox kind {kind!r}: one of {kinds}").format(
                    kind=kind, kinds=", ".join(k.value for k in ItemKind)
                )
            ) from exc
        if not body.strip():
            raise UsageError(_("the body is empty: the board would answer 抱歉，您尚未输入标题或内容"))
        self._check_safe(k, destination, player)
        if isinstance(destination, Edit) and not self._is_judges_post(destination.pid):
            raise OutboxRefused(
                _("pid {pid} is not the judge's own post: only your own posts can be edited").format(
                    pid=destination.pid
                )
            )
        fields: dict[str, Any] = {
            "game": self.game.name,
            "board_url": self.game.board.url,
            "kind": k.value,
            "day": day,
            "night": night,
            "player": player,
            "body": body,
            "moment_key": key,
        }
        if isinstance(destination, Reply):
            fields.update(
                dest="reply", tid=destination.tid, fid=destination.fid, quote_pid=destination.quote_pid
            )
        elif isinstance(destination, NewThread):
            if not destination.subject.strip():
                raise UsageError(_("a new thread needs a subject"))
            fields.update(dest="newthread", fid=destination.fid, subject=destination.subject)
        elif isinstance(destination, Edit):
            fields.update(
                dest="edit",
                tid=destination.tid,
                pid=destination.pid,
                fid=destination.fid,
                subject=destination.subject or "",
            )
        else:
            fields.update(dest="pm", uids=list(destination.uids))
        auto = k.value in self.settings.auto_approve
        who = by or self.by
        lost = self.unencodable(body, fields.get("subject", ""))
        note = "auto-approved by [outbox] auto_approve" if auto else "draft"
        if lost:  # flagged now, and never approved alone: a judge must decide (see approve)
            auto = False
            note = (
                f"draft: the board ({self.board_charset()}) cannot store {name_characters(lost)}; "
                "change the text or approve it as the board would show it"
            )
            self.progress(
                _("the board ({charset}) cannot store {chars}: left as a draft for a judge").format(
                    charset=self.board_charset(), chars=name_characters(lost)
                )
            )
        return repo.add_item(
            self.store,
            status=APPROVED if auto else DRAFT,
            by=who,
            note=note,
            at=self.now(),
            **fields,
        )

    def board_charset(self) -> str | None:
        """The board's charset as far as it is known before anything is sent: the game file's
        ``[board] charset``, else what the writer learnt from a form page in this process."""
        if self.game.board.charset:
            return self.game.board.charset
        return self._board.writer.charset if isinstance(self._board, DiscuzBoard) else None

    def unencodable(self, body: str, subject: str = "", *, failed_for_it: bool = False) -> tuple[str, ...]:
        """The characters of a text the board cannot store (GBK boards: €, 𠮷, ✓, emoji).

        ``failed_for_it``: the item was refused for exactly this before (the writer saw a GBK form), so
        the board is GBK even when the game file does not say."""
        charset = self.board_charset() or ("gbk" if failed_for_it else None)
        return outside_charset(subject + body, charset)

    def _is_judges_post(self, pid: int) -> bool:
        """False only when the store knows the post and it is someone else's (the board checks too)."""
        with self.store.session() as s:
            row = s.exec(
                select(PostRow)
                .join(BoardRow, col(BoardRow.id) == col(PostRow.board_id))
                .where(PostRow.pid == pid, BoardRow.url == self.game.board.url)
            ).first()
        if row is None:
            return True
        mine = {self.game.board.username or "", *self.game.judges} - {""}
        return row.author in mine

    def get(self, item_id: int) -> OutboxItem:
        return repo.get_item(self.store, item_id)

    def by_key(self, key: str) -> int | None:
        """The id of this game's item added with ``key`` (the runner looks before it adds, so a moment
        run again after a crash never adds a second item)."""
        with self.store.session() as s:
            row = s.exec(
                select(OutboxItemRow.id).where(
                    OutboxItemRow.game == self.game.name, OutboxItemRow.moment_key == key
                )
            ).first()
        return int(row) if row is not None else None

    def items(self, statuses: Sequence[str] | None = None) -> list[OutboxItem]:
        return repo.list_items(self.store, game=self.game.name, statuses=statuses)

    def approve(
        self,
        item_id: int,
        *,
        by: str,
        body: str | None = None,
        subject: str | None = None,
        as_board_shows: bool = False,
        expected_revision: int | None = None,
    ) -> OutboxItem:
        """Approve a draft (or a refused item, to send it again), with an edited body kept as a revision.
        ``expected_revision``: the revision the judge read (the web form's); a newer edit by another
        judge is refused (StaleChange) instead of approved unseen or overwritten.

        On a GBK board a text with characters GBK lacks is refused (:class:`OutsideCharset`, naming
        them) unless ``as_board_shows``: the text is then rewritten as the board will show it (``€`` →
        ``&#8364;``), kept as a revision, so what is approved is what the players will read."""
        item = self.check_revision(item_id, expected_revision, by=by)
        new_body = item.body if body is None else body
        new_subject = item.subject if subject is None else subject
        failed_for_it = item.outcome == Outcome.UNENCODABLE.value
        lost = self.unencodable(new_body, new_subject, failed_for_it=failed_for_it)
        if lost and not as_board_shows:
            raise OutsideCharset(
                _(
                    "outbox item {id}: the board ({charset}) cannot store {chars}; players would see "
                    "the codes. Change the text (--edit), or approve it as the board would show it "
                    "(--as-board-shows)"
                ).format(
                    id=item_id,
                    charset=self.board_charset() or "GBK",
                    chars=name_characters(lost),
                ),
                chars=lost,
            )
        if lost:
            charset = self.board_charset() or "gbk"
            body = shown_by_board(new_body, charset)
            subject = shown_by_board(new_subject, charset) if item.dest == "newthread" else subject
        if body is not None:
            if not body.strip():
                raise UsageError(_("the edited body is empty: nothing approved"))
            repo.revise(
                self.store,
                item_id,
                body=body,
                subject=subject,
                by=by,
                note=(
                    f"written as the board shows it: {name_characters(lost)}"
                    if lost
                    else "edited on approval"
                ),
                expect={DRAFT, FAILED, APPROVED},
                at=self.now(),
                expected_revision=expected_revision,
                zone=self.game.tz,
            )
            item = self.get(item_id)
        self._check_safe(ItemKind(item.kind), destination_of(item), item.player)
        if item.status == APPROVED:
            return item
        return repo.change_status(
            self.store,
            item_id,
            APPROVED,
            expect={DRAFT, FAILED},
            by=by,
            note="approved",
            at=self.now(),
            approved_by=by,
            approved_at=self.now(),
            expected_revision=expected_revision if body is None else item.revision,
            zone=self.game.tz,
        )

    def cancel(
        self, item_id: int, *, by: str, why: str = "", expected_revision: int | None = None
    ) -> OutboxItem:
        """Cancel an item that is not on the board (an unknown one must be verified first);
        ``expected_revision`` as for :meth:`approve`."""
        return repo.change_status(
            self.store,
            item_id,
            CANCELLED,
            expect={DRAFT, APPROVED, FAILED},
            by=by,
            note=why or "cancelled",
            at=self.now(),
            expected_revision=expected_revision,
            zone=self.game.tz,
        )

    def check_revision(self, item_id: int, expected_revision: int | None, *, by: str) -> OutboxItem:
        """The item, if its text is still revision ``expected_revision`` (the one the judge read before
        pressing send); StaleChange naming who edited it since and when, else."""
        item = self.get(item_id)
        if expected_revision is not None and item.revision != expected_revision:
            repo.change_status(  # raises StaleChange naming the newer edit
                self.store,
                item_id,
                item.status,
                expect={item.status},
                by=by,
                expected_revision=expected_revision,
                zone=self.game.tz,
            )
        return item

    # ------------------------------------------------------------------ the board

    @property
    def client(self) -> BoardClient:
        if self._client is None:
            # The store's login guard: a failed login is not tried again by the next send (nor by poll,
            # tick or the web desk) until the lock-out window has passed (forumbot/store/logins.py).
            self._client = guard_client(
                BoardClient(self.game.board, now=self.now), self.store, self.game.board
            )
        return self._client

    @property
    def board(self) -> Board:
        """The board every write (and the PM check of an unclear send) goes through: the one given,
        else the Discuz! board on :attr:`client` with the game file's way of writing."""
        if self._board is None:
            self._board = DiscuzBoard(
                self.client, WriterSettings(self.settings.via, self.settings.fast_reply)
            )
        return self._board

    @property
    def writer(self) -> BoardWriter:
        """The Discuz! writer behind :attr:`board` (what it learnt: the board's charset)."""
        board = self.board
        if not isinstance(board, DiscuzBoard):
            raise UsageError(
                _("this outbox writes through {board}, not a Discuz! writer").format(board=board)
            )
        return board.writer

    # ------------------------------------------------------------------ recovery

    def in_flight_grace(self) -> timedelta:
        """How long a ``sending`` item may belong to a live process (its POST still waiting for the answer):
        the board's timeout plus a margin. Younger ones are left alone (another judge may be sending)."""
        return timedelta(seconds=self.game.board.timeout + 30)

    def recover(self) -> tuple[list[OutboxItem], list[OutboxItem]]:
        """Items found in ``sending`` (a crash or kill between the POST and its answer) become unknown.

        Returns (recovered, busy): ``busy`` items went to ``sending`` too recently to be abandoned.
        """
        out: list[OutboxItem] = []
        busy: list[OutboxItem] = []
        for item in self.items([SENDING]):
            if item.sending_at is not None and self.now() - item.sending_at < self.in_flight_grace():
                busy.append(item)
                continue
            out.append(
                repo.change_status(
                    self.store,
                    item.id,
                    UNKNOWN,
                    expect={SENDING},
                    by=self.by,
                    at=self.now(),
                    note="found in sending at start: the board's answer was never read",
                )
            )
        return out, busy

    def verify(self, item_id: int) -> tuple[OutboxItem, bool]:
        """Settle an unknown item by reading its destination. Returns (item, found)."""
        item = self.get(item_id)
        if item.status != UNKNOWN:
            raise UsageError(
                _("outbox item {id} is {status}, not unknown: nothing to verify").format(
                    id=item_id, status=item.status
                )
            )
        pids, pmids = repo.claimed_ids(self.store, board_url=item.board_url, exclude=item.id)
        since = (item.sending_at or item.updated_at) - timedelta(minutes=10)
        if item.dest == "pm":
            uid = item.sending_uid
            if uid is None:  # nothing in flight: the delivered ones are known
                return self._settle_pm(item, None, None), True
            conversation = self.board.fetch_pm_conversation(uid)
            for msg in reversed(conversation.messages):
                if (
                    msg.mine
                    and msg.pmid not in pmids
                    and msg.pmid not in item.delivered.values()
                    and bodies_match(item.body, msg.text)
                ):
                    self.progress(f"#{item.id} 核实：私信 uid {uid} 已在对话中（pmid {msg.pmid}）")
                    return self._settle_pm(item, uid, msg.pmid), True
            if conversation.problems:
                # The board showed the conversation in part (the newest message is hidden when it is
                # read in the same second it was sent): "not there" would be a guess, and a resend a
                # duplicate. Stop; the next send reads it again.
                raise TruncatedPage(
                    conversation.url or f"uid {uid}",
                    "",
                    _("the conversation was shown in part: {problems}").format(
                        problems=_("; ").join(conversation.problems)
                    ),
                )
            self.progress(f"#{item.id} 核实：私信 uid {uid} 不在对话中，可以重发")
            return self._not_found(
                item, f"the conversation with uid {uid} holds no such message from us"
            ), False
        if item.dest == "edit":
            assert item.tid is not None and item.pid is not None
            page_no = self.client.find_post_page(item.tid, item.pid) or 1
            page = self.client.fetch_thread_page(item.tid, page_no)
            for post in page.posts:
                if post.pid == item.pid and bodies_match(item.body, post.text):
                    return self._found(
                        item, pid=item.pid, tid=item.tid, note="the post shows the new text"
                    ), True
            return self._not_found(item, f"pid {item.pid} does not show the new text"), False
        if item.dest == "newthread":
            assert item.fid is not None
            forum = self.client.fetch_forum_page(item.fid)
            me = self.client.config.username or ""
            for t in forum.threads:
                if t.subject.strip() == item.subject.strip() and (not t.author or t.author == me):
                    first = self.client.fetch_thread_page(t.tid, 1)
                    if first.posts and bodies_match(item.body, first.posts[0].text):
                        return self._found(
                            item, pid=first.posts[0].pid, tid=t.tid, note="the thread is in the forum list"
                        ), True
            return self._not_found(item, f"no thread 「{item.subject}」 by us in fid {item.fid}"), False
        assert item.tid is not None
        last = self.client.fetch_thread_page(item.tid, 999999)
        pages = [last]
        if last.thread.page > 1:
            pages.insert(0, self.client.fetch_thread_page(item.tid, last.thread.page - 1))
        me = self.client.config.username or ""
        my_uid = self.uid_map().get(me)
        if my_uid is not None and self.client.current_source() == "pc":
            # Only the judge's own posts (authorid=UID), last page: found even after many later replies.
            url = urls.build(
                self.game.board.url, Url.VIEWTHREAD_AUTHOR, tid=item.tid, page=999999, uid=my_uid
            )
            fetched = self.client.get(url)
            try:
                pages.append(
                    parse_thread_page(
                        fetched.body,
                        fetched.url,
                        date_header=fetched.date,
                        content_type=fetched.content_type,
                        tz=self.game.board.tz,
                        status=fetched.status,
                    )
                )
            except UnparseablePage as exc:
                # The board's answer when the judge has no post in the thread: an empty post list.
                if fetched.status != 200 or "post list is empty" not in exc.detail:
                    raise
        for page in pages:
            for post in page.posts:
                if (
                    post.author == me
                    and post.pid not in pids
                    and post.posted_until >= since
                    and bodies_match(item.body, post.text)
                ):
                    return self._found(
                        item, pid=post.pid, tid=item.tid, note=f"found on page {page.thread.page}"
                    ), True
        return self._not_found(item, f"not on the last pages of tid {item.tid}"), False

    def _found(self, item: OutboxItem, *, pid: int | None, tid: int | None, note: str) -> OutboxItem:
        url = self._post_url(tid, pid)
        self.progress(f"#{item.id} 核实：已在论坛上（pid {pid}）")
        return repo.change_status(
            self.store,
            item.id,
            SENT,
            expect={UNKNOWN},
            by=self.by,
            at=self.now(),
            note=f"verified on the board: {note}",
            result_pid=pid,
            result_tid=tid,
            result_url=url,
            sent_at=item.sent_at or item.sending_at or self.now(),
            outcome="verified",
        )

    def _not_found(self, item: OutboxItem, note: str) -> OutboxItem:
        return repo.change_status(
            self.store,
            item.id,
            APPROVED,
            expect={UNKNOWN},
            by=self.by,
            at=self.now(),
            note=f"verified: not on the board ({note}); may be sent again",
            sending_uid=None,
            outcome="not_found",
        )

    def _settle_pm(self, item: OutboxItem, uid: int | None, pmid: int | None) -> OutboxItem:
        return self._delivered(
            item,
            uid,
            pmid,
            expect=UNKNOWN,
            note=f"verified: delivered to uid {uid} (pmid {pmid})",
            result_pmid=pmid or item.result_pmid,
            sent_at=item.sending_at or self.now(),
            outcome="verified",
        )

    def _delivered(
        self, item: OutboxItem, uid: int | None, pmid: int | None, *, expect: str, note: str, **fields: Any
    ) -> OutboxItem:
        """Record one recipient of a private message as delivered: the item is sent once every recipient
        has it, else it goes back to approved for the next one (one place for the sender and the check
        that settles an unclear answer)."""
        delivered = dict(item.delivered)
        if uid is not None:
            delivered[uid] = pmid or 0
        done = all(u in delivered for u in item.uids)
        return repo.change_status(
            self.store,
            item.id,
            SENT if done else APPROVED,
            expect={expect},
            by=self.by,
            at=self.now(),
            note=note,
            delivered={str(k): v for k, v in delivered.items()},
            sending_uid=None,
            **fields,
        )

    def _post_url(self, tid: int | None, pid: int | None) -> str:
        root = self.game.board.url
        if tid and pid:
            return urls.build(root, Url.FINDPOST, tid=tid, pid=pid)
        if tid:
            return urls.build(root, Url.THREAD_LINK, tid=tid)
        return ""

    # ------------------------------------------------------------------ sending

    def send(self, ids: Sequence[int] | None = None) -> SendReport:
        """Send approved items (all, or ``ids``), oldest first, after settling every unclear one.

        Stops at the first answer it cannot read (the item is then unknown) and when the board cannot
        be reached: nothing more is sent until the board has been read.
        """
        report = SendReport()
        _, busy = self.recover()
        if busy:
            ids_busy = ", ".join(f"#{i.id}{self._sent_by(i)}" for i in busy)
            report.stopped = (
                f"{ids_busy} 正在发送中（{self.in_flight_grace().seconds} 秒内开始）："
                "可能另一个 forumbot 正在发送，稍后再试；什么也没有发送"
            )
            return report
        for item in self.items([UNKNOWN]):
            try:
                settled, found = self.verify(item.id)
            except BoardError as exc:
                report.stopped = f"#{item.id} 无法核实（{exc}）：先解决它，什么也没有发送"
                return report
            report.add(settled, "verified" if found else "not_found", settled.outcome)
        todo = [i for i in self.items([APPROVED]) if ids is None or i.id in ids]
        if ids is not None:
            missing = set(ids) - {i.id for i in todo}
            for mid in sorted(missing):
                it = self.get(mid)
                report.add(it, "skipped", f"{STATUS_ZH.get(it.status, it.status)}：只发送已批准的条目")
        for n, item in enumerate(todo, 1):
            self.progress(f"[{n}/{len(todo)}] #{item.id} {item.kind} → {describe(item, self._names())}")
            try:
                done = self._send_one(item, report)
            except BoardError as exc:  # a form page could not be read: nothing was posted for it
                report.add(self.get(item.id), "board_error", str(exc))
                report.stopped = f"#{item.id}: {exc}"
                return report
            if not done:
                report.stopped = f"#{item.id}: {self.get(item.id).board_message or '答复不明'}"
                return report
        return report

    def names(self) -> dict[int, str]:
        """uid → player or judge name (the reverse of :meth:`uid_map`), for :func:`describe`."""
        return self._names()

    def _names(self) -> dict[int, str]:
        return {uid: name for name, uid in self.uid_map().items()}

    def _mark_sending(self, item: OutboxItem, uid: int | None) -> Callable[[], None]:
        def before_post() -> None:
            try:
                repo.change_status(
                    self.store,
                    item.id,
                    SENDING,
                    expect={APPROVED},
                    by=self.by,
                    at=self.now(),
                    note=f"POST to the board{f' (uid {uid})' if uid else ''} from {SENDER}",
                    sending_at=self.now(),
                    sending_uid=uid,
                    attempts=self.get(item.id).attempts + 1,
                )
            except repo.StatusConflict as exc:
                raise self._lost_race(exc) from exc

        return before_post

    def _sent_by(self, item: OutboxItem) -> str:
        """Who put a busy item in ``sending`` and when (board time), for the judge: «（执法乙，host pid 42，
        2026-06-04 11:00:00 开始）»; "" when the log does not say."""
        last = repo.last_change_to(self.store, item.id, SENDING)
        if last is None or not last.by:
            return ""
        process = last.note.rpartition(" from ")[2] if " from " in last.note else ""
        when = self.game.local(last.at).strftime("%Y-%m-%d %H:%M:%S")
        return f"（{last.by}{f'，{process}' if process else ''}，{when} 开始）"

    def _lost_race(self, exc: repo.StatusConflict) -> UsageError:
        """Another sender moved the item first: name it (who, from which process, when in the board's
        zone) so the judge knows whom to ask; nothing was posted by this one."""
        if not exc.by or exc.at is None:
            return exc
        when = self.game.local(exc.at).strftime("%Y-%m-%d %H:%M:%S")
        process = exc.note.rpartition(" from ")[2] if " from " in exc.note else ""
        return SentByAnother(
            _(
                "outbox item {id} was taken by another sender: {who}{process} made it {status} at {at} "
                "({tz}); nothing was posted from here"
            ).format(
                id=exc.item_id,
                who=exc.by,
                process=f" ({process})" if process else "",
                status=outbox_status_label(exc.status),
                at=when,
                tz=self.game.timezone,
            )
        )

    def _send_one(self, item: OutboxItem, report: SendReport) -> bool:
        """Send one item; False when the run must stop (unknown answer, board unreachable)."""
        self._check_safe(ItemKind(item.kind), destination_of(item), item.player)
        if item.dest == "pm":
            for uid in item.pending_uids:
                if not self._send_pm(self.get(item.id), uid, report):
                    return False
                if self.get(item.id).status != APPROVED:
                    break
            return True
        floods = 0
        while True:
            item = self.get(item.id)
            result = self._post(item)
            if result.outcome in (Outcome.FLOOD,) and floods < self.settings.flood_retries:
                floods += 1
                self._back_to_approved(item, result)
                wait = min(float(result.wait_seconds or 15) + 1.0, self.settings.flood_cap)
                self.progress(f"#{item.id} 论坛灌水限制：{result.board_message}；等待 {wait:.0f} 秒再发")
                self.sleep(wait)
                continue
            return self._record(item, result, report)

    def _post(self, item: OutboxItem) -> PostResult:
        before = self._mark_sending(item, None)
        if item.dest == "reply":
            assert item.tid is not None
            return self.board.reply(
                item.tid, item.body, fid=item.fid, quote_pid=item.quote_pid, before_post=before
            )
        if item.dest == "newthread":
            assert item.fid is not None
            return self.board.new_thread(item.fid, item.subject, item.body, before_post=before)
        assert item.tid is not None and item.pid is not None
        return self.board.edit(
            item.tid, item.pid, item.body, fid=item.fid, subject=item.subject or None, before_post=before
        )

    def _back_to_approved(self, item: OutboxItem, result: PostResult) -> None:
        current = self.get(item.id)
        if current.status == SENDING:
            repo.change_status(
                self.store,
                item.id,
                APPROVED,
                expect={SENDING},
                by=self.by,
                at=self.now(),
                note=f"refused for now ({result.outcome}): {result.words()}",
                outcome=result.outcome.value,
                board_message=result.board_message,
                sending_uid=None,
            )

    def _refused(self, item: OutboxItem, result: PostResult, report: SendReport, was: str, note: str) -> bool:
        """The board said no (on the form page, or to the POST): the item fails, with the board's words."""
        failed = repo.change_status(
            self.store,
            item.id,
            FAILED,
            expect={was},
            by=self.by,
            at=self.now(),
            note=note,
            outcome=result.outcome.value,
            board_message=result.board_message,
        )
        self.progress(f"#{item.id} 被拒绝：{result.words()}")
        report.add(failed, result.outcome.value, result.words())
        return True

    def _record(self, item: OutboxItem, result: PostResult, report: SendReport) -> bool:
        current = self.get(item.id)
        if current.status != SENDING:  # refused before any POST (the form page said no)
            if result.outcome in (Outcome.UNKNOWN, Outcome.NOT_SENT):
                report.add(current, result.outcome.value, result.words())
                return False
            why = "not sent" if result.outcome is Outcome.UNENCODABLE else "the form page refused"
            return self._refused(item, result, report, APPROVED, f"{why}: {result.words()}")
        if result.sent:
            url = result.url or self._post_url(result.tid or item.tid, result.pid)
            done = repo.change_status(
                self.store,
                item.id,
                SENT,
                expect={SENDING},
                by=self.by,
                at=self.now(),
                note=f"sent: {result.detail}",
                result_pid=result.pid,
                result_tid=result.tid or item.tid,
                result_url=url,
                sent_at=self.now(),
                outcome=result.outcome.value,
                board_message=result.board_message,
            )
            self.progress(f"#{item.id} 已发送 pid {result.pid or '-'} {url}")
            report.add(done, result.outcome.value, result.words())
            return True
        if result.outcome is Outcome.NOT_SENT:
            self._back_to_approved(item, result)
            report.add(self.get(item.id), result.outcome.value, result.words())
            return False
        if result.refused:
            return self._refused(item, result, report, SENDING, f"refused: {result.words()}")
        unknown = repo.change_status(
            self.store,
            item.id,
            UNKNOWN,
            expect={SENDING},
            by=self.by,
            at=self.now(),
            note=f"unclear answer: {result.words()}",
            outcome=result.outcome.value,
            board_message=result.board_message,
        )
        self.progress(f"#{item.id} 答复不明（{result.words()}）：先读论坛核实，不会盲目重发")
        report.add(unknown, result.outcome.value, result.words())
        return False

    def _pace_pm(self) -> None:
        if self._last_pm_at is None:
            latest = repo.touch_pm_times(self.items([SENT, APPROVED, FAILED]))
            self._last_pm_at = latest
        if self._last_pm_at is None:
            return
        wait = self.settings.pm_interval - (self.now() - self._last_pm_at).total_seconds()
        if wait > 0:
            self.progress(f"等待 {wait:.0f} 秒（站内短消息间隔 {self.settings.pm_interval:.0f} 秒）")
            self.sleep(wait)

    def _send_pm(self, item: OutboxItem, uid: int, report: SendReport) -> bool:
        floods = 0
        while True:
            self._pace_pm()
            item = self.get(item.id)
            result = self.board.send_pm(uid, item.body, before_post=self._mark_sending(item, uid))
            if result.outcome is Outcome.PM_FLOOD and floods < self.settings.flood_retries:
                floods += 1
                self._back_to_approved(item, result)
                self._last_pm_at = self.now()
                self.progress(f"#{item.id} {result.board_message}：等待后再发给 uid {uid}")
                continue
            break
        current = self.get(item.id)
        if result.sent and current.status == SENDING:
            self._last_pm_at = self.now()
            new = self._delivered(
                current,
                uid,
                result.pmid,
                expect=SENDING,
                note=f"PM delivered to uid {uid} (pmid {result.pmid})",
                result_pmid=result.pmid,
                sent_at=self.now(),
                outcome=result.outcome.value,
                board_message=result.board_message,
                result_url=result.url,
            )
            self.progress(
                f"#{item.id} 私信 uid {uid} 已发送"
                f"（pmid {result.pmid or '?'}，{len(new.delivered)}/{len(current.uids)}）"
            )
            report.add(new, result.outcome.value, result.words())
            return True
        return self._record(current, result, report)
