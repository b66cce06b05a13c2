"""The runner's real steps: what each moment of the timetable does, on the board, through the desk.

Every step is written to be run again. The runner claims a moment before its work and marks it done
after; a process killed in between leaves the moment ``running``, and the next tick runs it again from
the start. So each step first looks in the store for its own earlier effects and never repeats them:

- night submissions read from the board are stored only when the same action with the same time is not
  stored yet;
- a night is resolved, a day closed, an extra check answered, only when its state version (``night N``,
  ``day N``, ``night N extra check``) does not exist; a revote is called only when the store has no call
  of that number; a night resolved before its deadline (``night_resolve_early``) records the instant it
  was read as of, and a run again reads it as of that instant; a last-words window changes no state;
- every outbox item has a stable key (``night2/case_post``, ``day1/revote1/call``, ``night2/private/烧卖``)
  and is added only when no item of this game has that key;
- the outbox items of a night or a day's close are added BEFORE the state version that the resolution
  makes: run again, the step finds the state unchanged, recomputes the same resolution (the engine is
  pure, the seed fixed) and adds only the items still missing; once the version exists, every item
  exists too.

What needs a judge stops the moment with :class:`~forumbot.runner.tick.WaitForJudge` (why, translated):
no roles stored; a night message only a judge can read (ambiguous, an unknown name, unreadable, a
group that disagrees). The judge then settles each doubtful message (``forumbot night override``: the
night's messages are kept, and every judgement of them applies the overrides, so the next tick resolves
the night) or types the night's actions (``forumbot night submit``): a night with submissions the judge
entered is resolved from those, and the runner's own reading is shown but not stored. A day's flagged
posts do NOT stop the close: the engine's verdict stands (every flag is in the vote-count draft, which
waits for the judge's approval in the outbox like every public post).

What cannot be had now (the board is down, a read is incomplete) raises
:class:`~forumbot.runner.tick.Delay` with the read status's reason: nothing final changes, and
the moment runs again on the next tick.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import col, select

from engine import (
    GROUP_ZH,
    ActionKind,
    Check,
    EventKind,
    GameState,
    GroupId,
    OutcomeKind,
    Phase,
    Resolution,
    action_to_dict,
    publishable_last_words,
)
from engine import pass_authority as engine_pass_authority
from forumbot.boardio import Board
from forumbot.boardtext import literal
from forumbot.client import BoardClient
from forumbot.config import Game
from forumbot.desk import Desk, LastWordsReport, case_post_draft, elevator_draft, vote_count_draft
from forumbot.desk.authority import AUTHORITY_DECISION, authority_key, authority_notes
from forumbot.desk.drafts import review_draft, winner_draft
from forumbot.desk.private import PrivateNote
from forumbot.desk.substitutes import SubstituteRefused, substitute_lines
from forumbot.drafts import local_text, words_without_authority
from forumbot.errors import BoardError, PollFailed, ThreadNotFound, UsageError
from forumbot.i18n import _
from forumbot.labels import phase_label
from forumbot.nightmail import (
    NightMail,
    NightMailFlags,
    NightMessage,
    mail_flags,
    pm_messages,
    thread_messages,
)
from forumbot.outbox import Destination, ItemKind, NewThread, Outbox, OutboxRefused, PrivateMessage, Reply
from forumbot.parsers.nightmsg import read_night_message
from forumbot.parsers.pm import PmMessage
from forumbot.parsers.proxyvote import read_proxy_request
from forumbot.poll import PollReport, poll
from forumbot.runner import ledger
from forumbot.runner.plan import GRACE, DayTimes, Facts, Moment, MomentKind, plan
from forumbot.runner.tick import Delay, NotYet, StepResult, WaitForJudge
from forumbot.store import posts, records
from forumbot.store.logins import guard_client
from forumbot.store.models import NightSubmissionRow, PostRow
from forumbot.store.reads import day_read_complete

RUNNER_BY = "forumbot-runner"  # who the runner's own decisions are logged as
EARLY_DECISION = "night_resolved_early"  # the decision recording when a night was resolved early
# A revote called within this time of the vote's deadline counts from that deadline (13:00 → 14:00);
# one called later (a delayed close) counts from the call, giving the players the whole window.
LATE_CALL = timedelta(minutes=10)
RATE_LIMIT_DECISION = "board_rate_limited"  # the board's Retry-After, stored for a runner started again
MAX_RATE_LIMIT_WAIT = timedelta(hours=6)  # the longest the runner defers its ticks for one Retry-After

# The vote thread's header (forumbot opens it, [threads]): the cutoff's name and the vote format, by the
# rule set's cutoff and vote grammar (what the rules tell the players to write).
_CUTOFF_WORDS = {"void_cutoff": "废票截止", "change_cutoff": "改票截止"}


def night_mail_flags(game_flags: Mapping[str, Any]) -> NightMailFlags:
    """The night-message flags the game file sets (``[flags]``, same names as NightMailFlags)."""
    return mail_flags(game_flags)


def _kind(note: PrivateNote) -> ItemKind:
    """The outbox kind of a private message: a police check result is filed as one."""
    return ItemKind.CHECK_RESULT if note.check_result else ItemKind.NIGHT_RESULT


class BoardSteps:
    """The desk's workflow behind the runner's :class:`~forumbot.runner.tick.Steps` interface."""

    def __init__(
        self,
        game: Game,
        store: Any,
        *,
        client: BoardClient | None = None,
        board: Board | None = None,
        outbox: Outbox | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        by: str = RUNNER_BY,
    ) -> None:
        self.game = game
        self.store = store
        self.clock = clock
        self.by = by
        self.desk = Desk(game, store, by=by)
        self.game_id = self.desk.gid
        # Every login of the runner (a poll, the night's PM read, the outbox) consults the store's
        # record of failed logins: a wrong password is tried once per lock-out window, not per tick.
        self.client = guard_client(client or BoardClient(game.board, now=clock), store, game.board)
        self.outbox = outbox or Outbox(store, game, client=self.client, board=board, now=clock, by=by)
        self._board = board

    @property
    def board(self) -> Board:
        """The board's operations (the groups' forum lists, the judge's PMs, every write) go through
        this seam, the outbox's own unless one was given; the poll, which keeps the fetch log, reads
        through :attr:`client` (a :class:`~forumbot.boardio.PolledBoard`)."""
        return self._board if self._board is not None else self.outbox.board

    # ------------------------------------------------------------------ the plan

    def revote_minutes(self) -> int:
        return int(getattr(self.desk.day_flags, "r001_revote_deadline_minutes", 60))

    def revote_deadline(self, called_at: datetime) -> datetime:
        """A called revote's deadline, as the engine re-times it (``plan_revote``): the call's time plus
        the revote minutes (AMB-28). The runner records its calls at the deadline of the vote they
        follow (13:00 → 14:00), so the plan's moment, the call post and the judgement agree."""
        return called_at + timedelta(minutes=self.revote_minutes())

    def plan(self) -> list[Moment]:
        """Every moment of the game, from the game file and the store (revotes called, last words and
        extra checks owed, the game over).

        Each day is followed by its night (the timetable's night deadline), so the last night of the
        file is played too. Once a night or a day ended the game, nothing after it is planned (no last
        words, no extra check: the game is over)."""
        cutoff = MomentKind(self.desk.ruleset.day_cutoff)  # the rule set says which cutoff its days have
        days = [
            DayTimes(
                d.day,
                d.change_cutoff if cutoff is MomentKind.CHANGE_CUTOFF else d.void_cutoff,
                d.closes,
                d.night_deadline,
            )
            for d in self.game.days
        ]
        revotes: dict[int, list[tuple[int, datetime]]] = {}
        with self.store.session() as s:
            for d in self.game.days:
                for number, _plan, called_at in records.revotes_for(s, self.game_id, d.day):
                    revotes.setdefault(d.day, []).append((number, self.revote_deadline(called_at)))
        st = self.desk.state()
        over = st is not None and st.outcome is not None
        facts = Facts(
            revotes=revotes,
            last_words={} if over else self._last_words_facts(),
            extra_checks={} if over else self._extra_check_facts(),
        )
        moments = plan(
            cutoff_kind=cutoff,
            night1_deadline=self.game.night1_deadline,
            days=days,
            facts=facts,
            last_night=True,
            signup_close=self.game.signup.closes_at if self.game.signup is not None else None,
        )
        if not over:
            return moments
        label = self.desk.live_history()[-1].label
        kind, _sep, num = label.partition(" ")
        day_kinds = (cutoff, MomentKind.CLOSE, MomentKind.REVOTE_DEADLINE)
        end = -1
        for i, m in enumerate(moments):
            if kind == "night" and m.kind is MomentKind.NIGHT_DEADLINE and str(m.round) == num:
                end = i
            if kind == "day" and m.kind in day_kinds and str(m.round) == num:
                end = i
        return moments[: end + 1] if end >= 0 else moments

    def _last_words_facts(self) -> dict[int, datetime]:
        """Day N → the deadline of the last words owed after it (R001: an executed police officer's;
        R004: the roles with a slot out at day N's close and in night N+1; N = 0: night 1's dead)."""
        out: dict[int, datetime] = {}
        first = 0 if self.desk.ruleset.last_words_due == "next_day_opens" else 1
        for n in range(first, max((d.day for d in self.game.days), default=0) + 1):
            windows = self.desk.last_words_owed(n)
            if windows:
                out[n] = max(w.due for w in windows)
            elif self._authority_owed(n):
                out[n] = self.desk.last_words_due(n)  # 威权 is due when the words are (行动时限)
        return out

    def _authority_owed(self, n: int) -> bool:
        """R004: whether a 威权 holder went out by the state the words after day ``n`` are read from
        (he must hand it over by the same deadline as the words, even without a words slot)."""
        if self.desk.ruleset.last_words_due != "next_day_opens":
            return False
        try:
            st = self.desk._state_for_last_words(n)
            self.desk.last_words_due(n)
        except UsageError:
            return False
        return st.authority_pending is not None

    def extra_check_window(self, n: int) -> tuple[datetime, bool, bool]:
        """(when night ``n``'s extra check window opens, whether the police's result was released,
        whether it was sent to every living officer).

        AMB-15: the window runs from the moment the first result reached the police. The runner takes
        the moment the judges released it (approved it in the outbox, or ``auto_approve`` did): it goes
        out at the same tick, or the next one. Not the moment it was sent: a runner killed while
        sending sends the rest a tick later, and the police's window must not depend on that. Until the
        result is released, the window is counted from when night ``n``'s moment was done (the desk's
        default: the resolution), and the moment waits for the judge."""
        st = self.desk.state_labelled(f"night {n}")
        items = []
        if st is not None:
            for name in st.group_members(GroupId.POLICE):
                item_id = self.outbox.by_key(f"night{n}/private/{name}")
                item = self.outbox.get(item_id) if item_id is not None else None
                if item is not None and item.kind == ItemKind.CHECK_RESULT and item.status != "cancelled":
                    items.append(item)
        released = [i.approved_at for i in items if i.approved_at is not None]
        if items and released:
            return min(released), True, all(i.sent_at is not None for i in items)
        with self.store.session() as s:
            rec = ledger.records(s, self.game_id).get(f"night{n}/deadline")
        if rec is not None and rec.finished_at is not None:
            return rec.finished_at, False, False
        return self.desk.night_deadline(n) + GRACE, False, False

    def extra_check_minutes(self) -> int:
        return int(self.desk.night_flags.gp_extra_check_window_minutes)

    def _extra_check_facts(self) -> dict[int, datetime]:
        """Night N → the end of its extra check's window, for each resolved night whose check hit the
        poison (R001 §五 毒药4: the police owe nothing, they may check once more)."""
        out: dict[int, datetime] = {}
        for v in self.desk.live_history():
            kind, _, num = v.label.partition(" ")
            if kind != "night" or not num.isdigit():
                continue
            n = int(num)
            st = self.desk.state_labelled(v.label)
            if st is None or st.extra_check_round != n or st.outcome is not None:
                continue
            start = self.extra_check_window(n)[0]
            out[n] = start + timedelta(minutes=self.extra_check_minutes())
        return out

    # ------------------------------------------------------------------ reading

    def _poll(self, tids: list[int], *, full: bool) -> PollReport:
        return poll(self.client, self.store, self.game.board, tids, full=full, progress=False)

    def read(self) -> str:
        """An incremental read of the day threads (the cheap poll between deadlines)."""
        self._rebind_game()
        report = self._poll(self.game.watched_tids(), full=False)
        if not report.ok:
            raise PollFailed(report.failure_message())
        notes = self.read_substitutions()
        return report.summary() + "".join(_("; ") + note for note in notes)

    def read_substitutions(self) -> list[str]:
        """Takeovers a judge announced in the game's threads («顶替：新账号 替换 旧账号»,
        desk/substitutes.py), entered once per post line at the post's time; returns what was entered or
        refused (Chinese)."""
        notes: list[str] = []
        judges = set(self.game.judges)
        for tid in self.game.watched_tids():
            for p in posts.thread_posts(self.store, self.game.board, tid):
                if p.author not in judges:
                    continue
                for new, old in substitute_lines(p.text):
                    known = any(
                        x.pid == p.pid and (x.old, x.new) == (old, new) for x in self.desk.substitutions()
                    )
                    try:
                        sub = self.desk.substitute(
                            old,
                            new,
                            p.posted_at,
                            pid=p.pid,
                            why=f"{p.author} 在主题 {tid}（pid {p.pid}）宣布：{new} 顶替 {old}",
                        )
                    except SubstituteRefused as exc:
                        notes.append(f"主题 {tid} pid {p.pid} 的顶替未录入：{exc}")
                        continue
                    if not known:
                        since = local_text(sub.at, self.game.tz)
                        notes.append(f"{sub.new} 自 {since} 起顶替 {sub.old}（角色 {sub.slot}）")
        return notes

    def _full_read(self, tids: list[int], after: datetime) -> None:
        """A full read of ``tids`` that must be complete and started after ``after``; else Delay.

        One already done after ``after`` (by this moment in an earlier life, killed since) is enough:
        every post up to the deadline is in the store, so the moment does not read everything again."""
        ok, _reasons = day_read_complete(self.store, self.game.board, tids, after, full=True, tz=self.game.tz)
        if ok:
            return
        self._poll(tids, full=True)
        ok, reasons = day_read_complete(self.store, self.game.board, tids, after, full=True, tz=self.game.tz)
        if not ok:
            raise Delay(_("; ").join(reasons))

    def group_tids(self) -> list[tuple[GroupId, int]]:
        """Each group's thread(s): the ``tid`` given, else every thread of the group's forum."""
        src = self.game.night_sources
        if src is None:
            return []
        out: list[tuple[GroupId, int]] = []
        for g in src.groups:
            try:  # [night_sources] names a group as the rule set does (its ``group_sources``)
                group = self.desk.ruleset.source_group(g.group)
            except KeyError as exc:
                raise UsageError(
                    _("[night_sources] names the group {group}, which {ruleset} does not have").format(
                        group=g.group, ruleset=self.desk.ruleset.id
                    )
                ) from exc
            if g.tid is not None:
                out.append((group, g.tid))
                continue
            try:
                page = self.board.fetch_forum_page(g.fid)
            except BoardError as exc:
                raise Delay(
                    _("cannot read the forum of the group {group} (fid {fid}): {error}").format(
                        group=g.group, fid=g.fid, error=exc
                    )
                ) from exc
            out += [(group, t.tid) for t in page.threads]
        return out

    def read_pms(self) -> list[PmMessage]:
        """Every private message in the judge's conversations (every page), read now with his login
        through the board's seam (:class:`~forumbot.boardio.Board`). A page the board showed only in
        part (the same-second pitfall), or any read that failed, is a Delay: a night is never judged
        on messages half read."""
        try:
            listing = self.board.fetch_pm_list()
            found: list[PmMessage] = []
            for conv in listing.conversations:
                if conv.other_uid is None:
                    continue
                view = self.board.fetch_pm_conversation(conv.other_uid)
                pages = [view]
                for n in range(1, (view.pages or 1) + 1):
                    if n != view.page:
                        pages.append(self.board.fetch_pm_conversation(conv.other_uid, n))
                for p in pages:
                    if p.problems:
                        raise Delay(
                            _("the private messages with {name} were not read completely: {problems}").format(
                                name=conv.other_name, problems=_("; ").join(p.problems)
                            )
                        )
                    found += p.messages
        except BoardError as exc:
            raise Delay(_("cannot read the judge's private messages: {error}").format(error=exc)) from exc
        unique = {m.pmid: m for m in found}
        # A substitute's PMs are his slot's from the takeover on; the replaced account's are no player's.
        subs = self.desk.substitutions()
        if subs:
            unique = {
                k: m if m.mine else replace(m, from_name=self.desk.posted_as(m.from_name, m.sent_at, subs))
                for k, m in unique.items()
            }
        return sorted(unique.values(), key=lambda m: (m.sent_at, m.pmid))

    # ------------------------------------------------------------------ the board's Retry-After

    def rate_limited_until(self, now: datetime) -> datetime | None:
        """Until when the board asked us not to come back (a 429/503 with Retry-After), if still ahead
        of ``now``: the client's latest answer is stored first (a decision ``board_rate_limited``), so
        a runner started again also waits. Bounded by MAX_RATE_LIMIT_WAIT: a board asking for days
        would stop the game, so after that the runner asks again (and learns again)."""
        fresh = getattr(self.client, "retry_after_until", None)
        with self.store.session() as s:
            found = records.decisions_for(s, self.game_id, RATE_LIMIT_DECISION)
            stored = datetime.fromisoformat(found[-1].detail["until"]) if found else None
            if isinstance(fresh, datetime) and (stored is None or fresh > stored):
                stored = min(fresh, now + MAX_RATE_LIMIT_WAIT)
                records.add_decision(
                    s,
                    self.game_id,
                    RATE_LIMIT_DECISION,
                    f"论坛要求在 {local_text(stored, self.game.tz)} 之前不要再请求（Retry-After）",
                    self.by,
                    detail={"until": stored.isoformat()},
                )
                s.commit()
        return stored if stored is not None and stored > now else None

    # ------------------------------------------------------------------ the steps

    def run(self, moment: Moment, now: datetime) -> StepResult:
        self.desk.refresh()
        self._rebind_game()
        if moment.kind in (
            MomentKind.VOID_CUTOFF,
            MomentKind.CHANGE_CUTOFF,
            MomentKind.CLOSE,
            MomentKind.REVOTE_DEADLINE,
        ):
            self._threads_ready(moment.round)
        if moment.kind is MomentKind.NIGHT_DEADLINE:
            return self.night_deadline(moment, now)
        if moment.kind in (MomentKind.VOID_CUTOFF, MomentKind.CHANGE_CUTOFF):
            return self.cutoff(moment)
        if moment.kind in (MomentKind.CLOSE, MomentKind.REVOTE_DEADLINE):
            return self.close(moment, now)
        if moment.kind is MomentKind.LAST_WORDS:
            return self.last_words(moment, now)
        if moment.kind is MomentKind.EXTRA_CHECK:
            return self.extra_check(moment, now)
        if moment.kind is MomentKind.SIGNUP_CLOSE:
            return self.signup_close(moment)
        raise UsageError(_("unknown moment {kind}").format(kind=moment.kind))

    def ready_early(self, moment: Moment, now: datetime) -> bool:
        """May ``moment`` be done now, before its time? Only with ``[flags] night_resolve_early``
        (AMB-NM8, R001 grammar): a night whose every required submission is in and accepted without
        doubt, and the last words the night's results wait for, once they are all posted. Reads the
        board (the groups' threads, the PMs, the discussion threads); changes nothing."""
        if not self.resolves_early():
            return False
        self.desk.refresh()
        if moment.kind is MomentKind.LAST_WORDS:
            return not self._last_words_report(moment, now).held.held
        if moment.kind is not MomentKind.NIGHT_DEADLINE:
            return False
        st = self.desk.state()
        n = moment.round
        if st is None or st.phase is not Phase.NIGHT or st.round != n or self.judged_entries(n):
            return False
        _msgs, mail = self._night_mail(n, st, after=now, cut=now)
        return not self.early_blockers(st, mail)

    def resolves_early(self) -> bool:
        early = night_mail_flags(self.game.flags).night_resolve_early
        return self.desk.ruleset.night_resolves_early and early

    def send(self) -> str:
        """Send what the judges approved (and settle anything unclear first)."""
        if not self.outbox.items(["approved", "unknown", "sending"]):
            return ""
        report = self.outbox.send()
        sent = sum(1 for s in report.steps if s.status == "sent")
        stopped = _("; stopped: {why}").format(why=report.stopped) if report.stopped else ""
        return _("{sent} sent").format(sent=sent) + stopped

    # ------------------------------------------------------------------ night

    def night_messages(self, n: int, after: datetime) -> list[NightMessage]:
        """Night ``n``'s messages: the groups' threads (read completely after ``after``, the deadline
        or, for an early resolution, now) and the PMs."""
        groups = self.group_tids()
        if groups:
            self._full_read([tid for _, tid in groups], after)
        msgs: list[NightMessage] = []
        for group, tid in groups:
            stored = posts.thread_posts(self.store, self.game.board, tid)
            msgs += thread_messages([p.to_post() for p in stored if not p.first and p.author], group)
        subs = self.desk.substitutions()
        if subs:  # a substitute's posts are his slot's (the PMs are mapped when read)
            msgs = [replace(x, author=self.desk.posted_as(x.author, x.at, subs)) for x in msgs]
        if self.game.night_sources is not None and self.game.night_sources.pm:
            msgs += pm_messages(self.read_pms())
        # Night n's messages: from day n-1's opening (the game's start for night 1) to day n's opening
        # (game.toml: [night_sources]); earlier ones were judged with their own night, later ones are
        # night n+1's. The police's messages read as night n-1's extra check were that check's.
        starts = self.game.day(n - 1).opens if n > 1 else None
        ends = next((d.opens for d in self.game.days if d.day == n), None)
        taken = self._extra_check_messages(n - 1)
        return [
            m
            for m in msgs
            if (starts is None or m.latest >= starts) and (ends is None or m.at < ends) and m.id not in taken
        ]

    def _extra_check_messages(self, n: int) -> set[str]:
        """The messages night ``n``'s extra check judged (its moment's record), so night ``n + 1`` does
        not read a 验 sent for the extra check as its own check too."""
        with self.store.session() as s:
            rec = ledger.records(s, self.game_id).get(f"night{n}/extra_check")
        if rec is None or rec.status is not ledger.MomentStatus.DONE:
            return set()
        return {str(v["id"]) for v in rec.result.get("verdicts", [])}

    def _night_mail(
        self, n: int, st: GameState, *, after: datetime, cut: datetime | None
    ) -> tuple[list[NightMessage], NightMail]:
        """Night ``n``'s messages read after ``after`` and judged against the deadline, or against
        ``cut`` when the night is (to be) resolved early: a message shown after the cut's minute was
        not there when the night was read, and is left out, so a run again after a crash reads the
        night as it was resolved (boards show minutes: one shown at the cut's minute counts)."""
        msgs = self.night_messages(n, after)
        deadline = self.desk.night_deadline(n)
        if cut is not None:
            deadline = min(deadline, cut.replace(second=0, microsecond=0) + timedelta(minutes=1))
            msgs = [x for x in msgs if x.at < deadline]
        self.desk.record_night_messages(n, msgs)  # kept: the judge lists and overrides them by id
        # with the judges' overrides of single messages
        mail = self.desk.night_mail(n, msgs, state=st, deadline=deadline)
        return msgs, mail

    def early_blockers(self, st: GameState, mail: NightMail) -> list[str]:
        """Why night ``st.round`` cannot be resolved before its deadline yet (translated; empty: it can).

        Required: each kind the rule set's night vocabulary marks ``required`` (R001 §二.3–4, the guardian
        variants: the kill of a group with a living member, the police's check while a police officer
        lives, each living guardian's protection); all on time, and nothing that waits for the judge
        (mail.open: a doubt, a 生死状 missing)."""
        why = list(mail.open)
        night = mail.night
        alive = set(st.living())
        for word in self.desk.ruleset.night_words:
            if not word.required:
                continue
            if word.group is not None:
                if alive & set(st.group_members(word.group)) and night.on_time(ActionKind(word.kind)) is None:
                    why.append(
                        _("{group} has not submitted {action} yet").format(
                            group=GROUP_ZH[word.group], action=word.name_zh
                        )
                    )
                continue
            for p in st.players:
                if p.name not in alive or p.role not in word.roles:
                    continue
                subs = [s for s in night.submissions if s.action.kind == word.kind]
                if not any(getattr(s.action, word.actor, None) == p.name and not s.late for s in subs):
                    why.append(
                        _("{player} has not submitted {action} yet").format(
                            player=p.name, action=word.name_zh
                        )
                    )
        return why

    def _early_cut(self, n: int) -> datetime | None:
        """When night ``n`` was resolved early (its messages were judged as of then), if it was."""
        with self.store.session() as s:
            found = records.decisions_for(s, self.game_id, EARLY_DECISION, n)
        return datetime.fromisoformat(found[-1].detail["cut"]) if found else None

    def judged_entries(self, n: int) -> int:
        """How many of night ``n``'s stored submissions a judge entered (not the runner), counting the
        runner's own a judge withdrew: once a judge has corrected what the runner stored, the runner
        resolves the night as stored and never adds back from the messages what the judge struck."""
        with self.store.session() as s:
            rows = s.exec(
                select(NightSubmissionRow).where(
                    NightSubmissionRow.game_id == self.game_id, NightSubmissionRow.night == n
                )
            ).all()
        return sum(
            1
            for r in rows
            if (r.entered_by != self.by and not r.withdrawn)
            or (r.entered_by == self.by and r.withdrawn_by not in ("", self.by))
        )

    def _store_accepted(self, n: int, mail: NightMail, deadline: datetime) -> int:
        """Store the night's final submissions (each once: a re-run finds them and adds nothing), marked
        as read from the messages (the desk re-reads them when a judge overrides a message later)."""
        return self.desk.store_mail_submissions(n, mail, deadline)

    def night_deadline(self, m: Moment, now: datetime) -> StepResult:
        """Night ``n``: its messages judged, the accepted ones stored, the night resolved, its case post
        and private results drafted. Run before its time (``now < m.at``) only when
        :meth:`ready_early` said so: the messages are then judged as of ``now``, which is recorded
        (a decision ``night_resolved_early``) so a run again after a crash judges them alike."""
        n = m.round
        st = self.desk.state()
        if st is None:
            raise WaitForJudge(
                _("no roles stored yet: run forumbot setup first (draw or enter them); the next tick goes on")
            )
        # Run again after a crash that came after the night was resolved: everything is computed again
        # from the state the night started from (same reads, same submissions, same seed), so the
        # result recorded is the same and only missing outbox items are added; nothing is stored again.
        resolved = self.desk.state_labelled(f"night {n}") is not None
        if resolved:
            before = self.desk.state_before_night(n)
            if before is None:
                raise WaitForJudge(
                    _(
                        "night {night} is resolved but the state it began with is missing: "
                        "a judge should look (forumbot history)"
                    ).format(night=n)
                )
            st = before
        if st.phase is not Phase.NIGHT or st.round != n:
            raise WaitForJudge(
                _("the game is at {phase}, not night {night}: a judge should look (forumbot state)").format(
                    phase=phase_label(st.phase.value, st.round), night=n
                )
            )
        deadline = self.desk.night_deadline(n)
        # Resolved early (or decided so, then killed): judged as of the recorded instant, whenever
        # this runs again. Else before its time: a fresh early attempt, as of now.
        cut = self._early_cut(n)
        fresh = cut is None and not resolved and now < m.at
        if fresh:
            cut = now
        msgs, mail = self._night_mail(n, st, after=cut or m.deadline, cut=cut)
        verdicts = [
            {"id": v.message_id, "author": v.author, "code": v.code.value, "reason": v.reason}
            for v in mail.verdicts
        ]
        by_judge = self.judged_entries(n)
        if fresh and cut is not None:
            blockers = (
                [_("a judge entered the night's actions")] if by_judge else self.early_blockers(st, mail)
            )
            if blockers:
                raise NotYet(
                    _("night {night} cannot be resolved early: {why}").format(
                        night=n, why=_("; ").join(blockers)
                    )
                )
            with self.store.session() as s:
                records.add_decision(
                    s,
                    self.game_id,
                    EARLY_DECISION,
                    _("every submission the night needs is in, with no doubt (night_resolve_early, AMB-NM8)"),
                    self.by,
                    day=n,
                    detail={"cut": cut.isoformat()},
                )
                s.commit()
        # A doubtful message sent after the deadline cannot change the night (a late submission is 不予受理,
        # §二.3-4): only doubts about messages on time wait for the judge.
        late = [f"{v.message_id}（" for v in mail.verdicts if v.needs_review and v.at >= (cut or deadline)]
        blocking = [o for o in mail.open if not any(o.startswith(p) for p in late)]
        if blocking and not by_judge and not resolved:
            raise WaitForJudge(
                _(
                    "night {night} has messages a judge must decide: {messages}. Rule on each with forumbot "
                    "night override MESSAGE --as accept/ignore (or enter the night's actions with forumbot "
                    "night submit); the next tick goes on"
                ).format(night=n, messages=_("; ").join(blocking))
            )
        added = 0 if by_judge or resolved else self._store_accepted(n, mail, deadline)
        night = self.desk.stored_night(n, st)  # the desk's one builder: AMB-08/AMB-10 voids kept
        seed = self.desk.night_seed(n)  # fixed: the resolution computed again after a crash is the same
        res = self.desk.night_preview(n, seed=seed, state=st)
        items = self._night_items(n, res, st)
        if not resolved:
            self.desk.night_resolve(n, seed=seed)
        if res.state.outcome is not None:
            items.append(self._review_item(self.desk.night_deadline(n)))
        result: dict[str, Any] = {
            "messages": len(msgs),
            "verdicts": verdicts,
            "accepted": [action_to_dict(s.action) for s in night.submissions],
            "stored": added,
            "by_judge": by_judge,
            "out": list(res.out),
            "outbox": items,
        }
        note = _("night {night} resolved: out {names}").format(
            night=n, names="、".join(res.out) or _("nobody")
        )
        if cut is not None:
            result["early"] = cut.isoformat()
            note += _(" (every submission needed was in: resolved early at {at})").format(
                at=local_text(cut, self.game.tz)
            )
        return StepResult(note, result)

    # ------------------------------------------------------------------ last words

    def _words_by_pm(self, n: int, due: datetime) -> tuple[dict[str, datetime], dict[str, str]]:
        """R004: the words each role owing them sent the judge by PM after day ``n``'s close (night 1's
        dead: since the game began) and by ``due``; a later PM replaces an earlier one (words refused
        for Discuz! code may be sent again before the deadline)."""
        owed = {w.player for w in self.desk.last_words_owed(n)}
        since = self.game.day(n).closes if n >= 1 else None
        received: dict[str, datetime] = {}
        texts: dict[str, str] = {}
        for pm in self.read_pms():
            if pm.mine or pm.from_name not in owed or pm.sent_at > due:
                continue
            if since is not None and pm.sent_at < since:
                continue
            received[pm.from_name], texts[pm.from_name] = pm.sent_at, pm.text
        return received, texts

    def _words_read(self) -> bool:
        """Whether the runner can see R004 words at all: they are sent to the judge, read by PM."""
        return self.game.night_sources is not None and self.game.night_sources.pm

    def _last_words_report(self, m: Moment, now: datetime) -> LastWordsReport:
        """The desk's reading of the window after day ``m.round`` as of ``now``, from a read made after
        the window's end (or now, when tried before it): R001 the discussion threads of day N and N+1
        (the officer's one post), R004 the judge's PMs."""
        n = m.round
        after = min(now, m.deadline)
        if self.desk.ruleset.last_words_due == "next_day_opens":
            received = self._words_by_pm(n, m.deadline)[0] if self._words_read() else {}
            return self.desk.last_words(n, now, received=received)
        day = self.game.day(n)
        if day.discussion_tid is not None:
            self._full_read([day.discussion_tid], after)
        nxt = next((d.discussion_tid for d in self.game.days if d.day == n + 1), None)
        if nxt is not None and nxt != day.discussion_tid:
            self._read_if_open(nxt, after)
        return self.desk.last_words(n, now)

    def _read_if_open(self, tid: int, after: datetime) -> None:
        """A full read of the next day's thread, where the words may be too: one the board says does not
        exist yet (opened with the case post, which waits for the words) holds none. Else Delay."""
        ok, _ = day_read_complete(self.store, self.game.board, [tid], after, full=True, tz=self.game.tz)
        if ok:
            return
        report = self._poll([tid], full=True)
        if report.ok or all(e.kind == ThreadNotFound.__name__ for e in report.errors):
            return
        raise Delay(report.failure_message())

    def last_words(self, m: Moment, now: datetime) -> StepResult:
        """The end of the last-words window after day ``n``: who posted them in time, who forfeited, and
        the release of what waits for them (R001: night n+1's check result and case post, drafted by
        the night's moment right after this one; R004: the words published in a judge's post in day
        n+1's thread). Done before its time only once every word is in (:meth:`ready_early`)."""
        n = m.round
        report = self._last_words_report(m, now)
        if now < m.at and report.held.held:
            raise NotYet(
                _("day {day}'s last words are not all in yet: {why}").format(day=n, why=report.held.reason)
            )
        r004 = self.desk.ruleset.last_words_due == "next_day_opens"
        unread = r004 and not self._words_read()
        tz = self.game.tz
        windows = [
            {
                "player": w.player,
                "due": local_text(w.due, tz),
                "where": w.where,
                "status": "not_read" if unread else w.status(now, report.posted.get(w.player)).value,
                "posted_at": local_text(report.posted[w.player], tz) if w.player in report.posted else None,
                "pid": report.pids.get(w.player),
                "holds": list(w.holds),
            }
            for w in report.windows
        ]
        items: list[int] = []
        if r004 and not unread and report.windows:
            items.append(self._words_post(n, report))
        authority: dict[str, Any] = {}
        if r004 and not unread:
            authority, more = self.authority(n, m.deadline)
            items += more
        if unread:
            note = _(
                "day {day}'s last words: this game reads no PMs; the judge collects and publishes them "
                "(forumbot lastwords --received)"
            ).format(day=n)
        else:
            words = _("; ").join(w.reason_zh(now, report.posted.get(w.player)) for w in report.windows)
            note = _("day {day}'s last words: {words}").format(day=n, words=words or _("none owed"))
            if authority.get("holder"):
                note += _("; 威权: {passer} → {holder}").format(
                    passer=authority["passer"], holder=authority["holder"]
                )
            refused = [f"{v['from']}：{v['reason']}" for v in authority.get("verdicts", []) if not v["ok"]]
            if refused:
                note += _("; 威权 hand-overs refused: {which}").format(which=_("; ").join(refused))
        released = local_text(report.held.released_at, tz) if report.held.released_at else None
        return StepResult(
            note,
            {
                "windows": windows,
                "held": {
                    "holds": list(report.held.holds),
                    "released_at": released,
                    "forfeited": list(report.held.forfeited),
                    "reason": report.held.reason,
                },
                "notes": list(report.notes),
                "authority": authority,
                "outbox": items,
            },
        )

    # ------------------------------------------------------------------ R004's 威权 hand-over

    def authority_messages(self, n: int, due: datetime) -> list[dict[str, Any]]:
        """Every hand-over of 威权 the judge's PMs carry after day ``n``'s close (night 1: since the game
        began), judged in time order against the state the words are read from: ``ok`` with the new
        holder, or refused with a Chinese reason (not the holder, the holder himself, a role out or
        unknown, after the deadline)."""
        base = self.desk._state_for_last_words(n)
        since = self.game.day(n).closes if n >= 1 else None
        out: list[dict[str, Any]] = []
        for pm in self.read_pms():
            if pm.mine or (since is not None and pm.sent_at < since):
                continue
            reading = read_night_message(pm.text, self.desk.ruleset, self.game.roster, author=pm.from_name)
            # A firm hand-over (a question or a remark naming 威权 in passing is not one); one without a
            # name is the holder's to redo, anyone else's is chatter.
            said = [
                st
                for st in reading.statements
                if st.kind == "authority"
                and st.firm
                and (st.target is not None or pm.from_name == base.authority_pending)
            ]
            if not said:
                continue
            last = said[-1]  # a PM that names two holders: its last word stands
            to = last.target
            if to is None:
                why = f"没有读出威权交给谁（写的是「{last.written}」），请写明：威权交给：角色名"
            elif pm.sent_at > due:
                why = f"移交威权须在下一讨论日开始前（{local_text(due, self.game.tz)}）送达，已超时，不予受理"
            else:
                why = self.desk.authority_problem(base, pm.from_name, to) or ""
            out.append(
                {
                    "pmid": pm.pmid,
                    "from": pm.from_name,
                    "to": to,
                    "at": pm.sent_at,
                    "ok": not why,
                    "reason": why,
                }
            )
        return out

    def authority(self, n: int, due: datetime) -> tuple[dict[str, Any], list[int]]:
        """R004 威权 after day ``n`` (行动时限, AMB-61): the holder who went out hands it over by PM before
        discussion day ``n + 1`` opens; his latest valid choice stands; with none, the director draws
        the new holder at random. The new holder is told by PM, each refused hand-over's sender too
        (with the reason); the hand-over is applied as the state version ``authority N``.

        Run again after a crash: the messages are judged against the same state (the one before the
        hand-over), every outbox item has its key and is added before the state changes, and a
        hand-over already applied (by this runner or by a judge, ``forumbot authority``) is not
        applied again."""
        base = self.desk._state_for_last_words(n)
        passer = base.authority_pending
        judged = self.authority_messages(n, due)
        items: list[int] = []
        for m in judged:
            if m["ok"]:
                continue
            body = f"【{self.game.name}】你的威权移交未被受理：{m['reason']}"
            if self.outbox.uid_map().get(m["from"]) is None:
                m["told"] = False  # the judge reads the reason in the moment's result and tells him
                continue
            items.append(
                self._pm_item(
                    f"day{n}/authority/refused/{m['pmid']}",
                    ItemKind.PRIVATE_NOTICE,
                    m["from"],
                    body,
                    n,
                    day=True,
                )
            )
        verdicts = [
            {k: (local_text(v, self.game.tz) if k == "at" else v) for k, v in m.items()} for m in judged
        ]
        if passer is None:
            return ({"verdicts": verdicts} if verdicts else {}), items
        current = self.desk.require_state()
        with self.store.session() as s:
            done = [
                d
                for d in records.decisions_for(s, self.game_id, AUTHORITY_DECISION)
                if d.detail.get("passer") == passer
            ]
        if done and current.authority_pending != passer:
            d = done[-1]
            holder = d.detail.get("holder")
            # Applied already (a run again, or a judge entered it by hand): what was applied stands;
            # the holder is told (the item exists after a run again).
            if holder:
                items += self._authority_notice(n, base, holder, passer)
            return {
                "passer": passer,
                "holder": holder,
                "drawn": d.detail.get("drawn"),
                "by": d.by,
                "verdicts": verdicts,
            }, items
        chosen = next((m for m in reversed(judged) if m["ok"]), None)
        to = chosen["to"] if chosen is not None else None
        seed = None if to is not None else self.game_id * 1000 + 500 + base.round
        preview = engine_pass_authority(base, to, seed=seed)
        holder = preview.state.authority_holder
        if holder:
            items += self._authority_notice(n, base, holder, passer)
        at = chosen["at"] if chosen is not None else due
        if current.authority_pending == passer:
            why = (
                f"{passer} 以站内短消息移交威权给 {holder}"
                if to is not None
                else f"{passer} 未在下一讨论日开始前有效移交威权：随机指定 {holder}（种子 {seed}）"
            )
            self.desk.pass_authority(to, at, seed=seed, sender=passer, why=why)
        return {
            "passer": passer,
            "holder": holder,
            "drawn": to is None,
            "by": self.by,
            "verdicts": verdicts,
        }, items

    def _authority_notice(self, n: int, base: GameState, holder: str, passer: str) -> list[int]:
        """The new holder's PM (desk/authority.py's words), once per hand-over."""
        return [
            self._pm_item(
                authority_key(passer, note.player),
                ItemKind.PRIVATE_NOTICE,
                note.player,
                note.body,
                n,
                day=True,
            )
            for note in authority_notes(self.game.name, base, holder)
        ]

    def _words_post(self, n: int, report: LastWordsReport) -> int:
        """R004: the words received, published with the day-start (公示前一天出局角色名单及遗言) in day
        n+1's thread; Discuz! code refused or stripped per ``r004_last_words_with_code``."""
        texts = self._words_by_pm(n, max(w.due for w in report.windows))[1]
        # Names and words come from the board: literal() makes the board show them as written.
        lines = [f"[b]【{literal(self.game.name)}】第{n + 1}讨论日 遗言[/b]"]
        for w in report.windows:
            text = texts.get(w.player)
            if text is not None:
                text = words_without_authority(text)  # the hand-over is private (issue 20)
            who = literal(w.player)
            if not text or w.player not in report.posted:
                lines.append(f"{who}：未留遗言")
                continue
            shown, why = publishable_last_words(w, text, self.desk.night_flags)
            lines.append(f"{who}：{literal(shown)}" if shown is not None else f"{who}：（{literal(why)}）")
        day = next((d for d in self.game.days if d.day == n + 1), None) or self.game.day(n)
        tid = day.discussion_tid or day.vote_tid
        if tid is None:
            raise WaitForJudge(
                _(
                    "day {day} has no discussion or vote thread: add them under [[days]] in the game file"
                ).format(day=n + 1)
            )
        return self._add(
            f"day{n}/lastwords/post", ItemKind.JUDGE_POST, Reply(tid), lambda: "\n".join(lines), day=n + 1
        )

    # ------------------------------------------------------------------ R001's extra check

    def extra_check(self, m: Moment, now: datetime) -> StepResult:
        """The end of night ``n``'s extra check window (R001 §五 毒药4, AMB-15): the police's messages
        in it read (the police group's threads and the PMs), the check answered on the night's truth
        and sent to the police privately; a late one is refused (追加验人超时，不予受理); none sent: the
        chance is gone. Done once: the state version ``night N extra check`` marks it; one a judge
        entered (``forumbot night extra-check``) is left as he made it."""
        n = m.round
        st = self.desk.state_labelled(f"night {n}")
        if st is None or st.extra_check_round != n:
            raise WaitForJudge(
                _(
                    "night {night} is not resolved or owes no extra check: a judge should look "
                    "(forumbot state --history)"
                ).format(night=n)
            )
        label = f"night {n} extra check"
        made = next((v for v in reversed(self.desk.live_history()) if v.label == label), None)
        if made is not None and made.by != self.by:
            note = _("night {night}'s extra check was entered by the judge {judge}").format(
                night=n, judge=made.by
            )
            return StepResult(note, {"by_judge": made.by})
        start, released, sent = self.extra_check_window(n)
        if not released and made is None:
            raise WaitForJudge(
                _(
                    "night {night}'s check result is not approved for the police yet (forumbot outbox): the "
                    "extra check's {minutes} minutes count from the approval"
                ).format(night=n, minutes=self.extra_check_minutes())
            )
        if not sent and made is None:
            raise WaitForJudge(
                _(
                    "night {night}'s check result is approved but not sent yet: the extra check is read once "
                    "it is sent (next tick)"
                ).format(night=n)
            )
        police = [tid for group, tid in self.group_tids() if group is GroupId.POLICE]
        if police:
            self._full_read(police, m.deadline)
        msgs: list[NightMessage] = []
        for tid in police:
            stored = posts.thread_posts(self.store, self.game.board, tid)
            msgs += thread_messages([p.to_post() for p in stored if not p.first and p.author], GroupId.POLICE)
        if self.game.night_sources is not None and self.game.night_sources.pm:
            members = set(st.group_members(GroupId.POLICE))
            msgs += [x for x in pm_messages(self.read_pms()) if x.author in members]
        msgs = [x for x in msgs if x.latest >= start]
        mail = self.desk.night_mail(n, msgs, state=st, deadline=m.deadline, opens_at=start)
        verdicts = [
            {"id": v.message_id, "author": v.author, "code": v.code.value, "reason": v.reason}
            for v in mail.verdicts
        ]
        window = {"opens": local_text(start, self.game.tz), "closes": local_text(m.deadline, self.game.tz)}
        on_time_doubts = [o for o in mail.open if not mail.extra_check or not mail.extra_check.late]
        if on_time_doubts and made is None:
            raise WaitForJudge(
                _(
                    "night {night}'s extra check has messages a judge must decide: {messages}. Enter it with "
                    "forumbot night extra-check --night {night} TARGET --at TIME"
                ).format(night=n, messages=_("; ").join(on_time_doubts))
            )
        extra = mail.extra_check
        if extra is None or not isinstance(extra.action, Check) or extra.action.target is None:
            return StepResult(
                _("night {night}: the police made no extra check (window {opens}–{closes})").format(
                    night=n, opens=window["opens"], closes=window["closes"]
                ),
                {"window": window, "verdicts": verdicts, "target": None, "outbox": []},
            )
        target = extra.action.target
        at = max((v.at for v in mail.verdicts for a in v.actions if a == extra.action), default=m.deadline)
        before, res = self.desk.extra_check_preview(n, target, late=extra.late)
        items = [
            self._pm_item(
                f"night{n}/extra_check/private/{note.player}", _kind(note), note.player, note.body, n
            )
            for note in self.desk.extra_check_private_messages(n, res, before)
        ]
        if made is None:
            self.desk.night_extra_check(n, target, at, result_at=start, late=extra.late)
        what = _("late, refused") if extra.late else _("answered to the police")
        return StepResult(
            _("night {night}'s extra check: {target} ({what})").format(night=n, target=target, what=what),
            {
                "window": window,
                "verdicts": verdicts,
                "target": target,
                "late": extra.late,
                "outbox": items,
            },
        )

    def _pm_item(self, key: str, kind: ItemKind, player: str, body: str, n: int, *, day: bool = False) -> int:
        account = self.desk.account_of(player, self.clock())  # a substituted slot: the new account
        uid = self.outbox.uid_map().get(account) if account == player else self._account_uid(account)
        player = account
        if uid is None:
            raise WaitForJudge(
                _(
                    "the uid of {player} is unknown, so night {night}'s result cannot be sent by private "
                    "message: add it under [outbox.uids] in the game file"
                ).format(player=player, night=n)
            )
        return self._add(
            key,
            kind,
            PrivateMessage(uid),
            functools.partial(str, body),
            day=n if day else None,
            night=None if day else n,
            player=player,
        )

    def _account_uid(self, account: str) -> int | None:
        """A substitute's uid: the game file's ``[outbox.uids]``, else his posts in the store."""
        uid = self.outbox.uid_map().get(account)
        if uid is not None:
            return uid
        with self.store.session() as s:
            found = s.exec(
                select(PostRow.uid).where(PostRow.author == account, col(PostRow.uid).is_not(None))
            ).first()
        return int(found) if found is not None else None

    def _night_items(self, n: int, res: Resolution, before: GameState) -> list[int]:
        """The case post and every private result, each added once."""
        ids = [
            self._add(
                f"night{n}/case_post",
                ItemKind.CASE_POST,
                self._case_destination(n),
                lambda: case_post_draft(self.desk, n, res.events),
                night=n,
            )
        ]
        if res.state.outcome is None:
            vote_thread = self._vote_thread_item(n)
            ids += [vote_thread] if vote_thread is not None else []
        for note in self.desk.night_private_messages(n, res, before):
            key = f"night{n}/private/{note.player}"
            ids.append(self._pm_item(key, _kind(note), note.player, note.body, n))
        # A night that ends the game: its case post already names the winner and every identity.
        return ids

    def _case_tid(self, n: int) -> int:
        """Where night ``n``'s case post goes: day ``n``'s discussion thread (else the last day's)."""
        day = next((d for d in self.game.days if d.day == n), None) or self.game.days[-1]
        tid = day.discussion_tid or day.vote_tid
        if tid is None:
            raise WaitForJudge(
                _(
                    "day {day} has no discussion or vote thread: add them under [[days]] in the game file"
                ).format(day=n)
            )
        return tid

    def _winner_item(self, tid: int, as_of: datetime) -> int:
        """The winner's announcement after a day that ends the game (a night that ends it says so in its
        case post): the desk's draft, added once the close is stored (it reads the stored state)."""
        return self._add("game/over", ItemKind.JUDGE_POST, Reply(tid), lambda: winner_draft(self.desk, as_of))

    def _review_item(self, as_of: datetime) -> int:
        """The 复盘 once the game is over (added after the state that ended it: it reads the stored
        versions), in a thread of its own when forumbot opens threads, else after the last day's."""
        threads = self.game.threads
        dest: Destination
        if threads is not None:
            dest = NewThread(threads.fid, f"【{self.game.name}】复盘")
        else:
            last = self.game.days[-1]
            dest = Reply(last.vote_tid or last.discussion_tid or self._case_tid(last.day))
        return self._add(
            "game/review", ItemKind.GAME_REVIEW, dest, lambda: review_draft(self.desk, as_of + GRACE)
        )

    # ------------------------------------------------------------------ sign-up

    def signup_close(self, m: Moment) -> StepResult:
        """The sign-up thread's close: read it completely, keep the lists, confirm them (``[signup]
        auto_confirm`` when no post needs a judge; else the judge does), set the roles up (``draw``,
        else the judge gives them) and add each player's identity notice to the outbox, once. The
        note lists the private forums the judge must open (forumbot changes no permission)."""
        cfg = self.game.signup
        if cfg is None:
            return StepResult(_("no sign-up thread"), {})
        self._full_read([cfg.tid], m.deadline)
        result = self.desk.signup_read()
        self.desk.signup_record(result)
        verdicts = [v.to_dict() for v in result.verdicts]
        if self.desk.signup_confirmed() is None:
            if not cfg.auto_confirm or result.review:
                raise WaitForJudge(
                    _(
                        "the sign-up closed with {players} players and {subs} substitutes ({review} posts "
                        "need a judge): check and confirm it with forumbot signup --confirm"
                    ).format(
                        players=len(result.players), subs=len(result.substitutes), review=len(result.review)
                    )
                )
            try:
                self.desk.signup_confirm(result)
            except UsageError as exc:
                raise WaitForJudge(str(exc)) from exc
        if self.desk.state() is None:
            if not cfg.draw:
                raise WaitForJudge(
                    _(
                        "the sign-up is confirmed: give the roles with forumbot signup --roles FILE "
                        "(or --seed N)"
                    )
                )
            self.desk.signup_roles(seed=cfg.seed)
        self._rebind_game()
        ids = []
        for notice in self.desk.identity_notices():
            if notice.uid is None:
                raise WaitForJudge(
                    _("the uid of {owner} is unknown: the identity notice of {player} cannot be sent").format(
                        owner=notice.owner, player=notice.player
                    )
                )
            ids.append(
                self._add(
                    f"setup/notice/{notice.player}",
                    ItemKind.PRIVATE_NOTICE,
                    PrivateMessage(notice.uid),
                    functools.partial(str, notice.body),
                    player=notice.player,
                )
            )
        forums = self.desk.private_forum_access()
        access = [{"group": a.group, "fid": a.fid, "members": list(a.members)} for a in forums]
        lines = _("; ").join(
            (
                _("{group} (fid {fid}): {members}").format(
                    group=a.group, fid=a.fid, members="、".join(a.members)
                )
                if a.fid is not None
                else _("{group} (no forum named in [night_sources]): {members}").format(
                    group=a.group, members="、".join(a.members)
                )
            )
            for a in forums
        )
        conf = self.desk.signup_confirmed()
        assert conf is not None
        return StepResult(
            _(
                "sign-up closed: {players} play, substitutes {subs}; the judge must open the private "
                "forums: {access}"
            ).format(
                players="、".join(conf.players),
                subs="、".join(conf.substitutes) or _("none"),
                access=lines or _("none"),
            ),
            {
                "players": list(conf.players),
                "substitutes": list(conf.substitutes),
                "confirmed_by": conf.by,
                "verdicts": verdicts,
                "access": access,
                "outbox": ids,
            },
        )

    def _rebind_game(self) -> None:
        """The desk's game (its roster once the sign-up is confirmed; the days' threads forumbot opened,
        once the board gave their tids) for the steps, the desk and the outbox."""
        self.game = self._bound_threads(self.desk.game)
        self.desk.game = self.game
        self.outbox.game = self.game

    # ------------------------------------------------------------------ the days' threads

    def _opened_tid(self, key: str) -> int | None:
        """The tid of the thread the outbox item ``key`` opened, once the board gave it (a 301's
        Location, or the forum list read to settle an unclear answer)."""
        item_id = self.outbox.by_key(key)
        if item_id is None:
            return None
        item = self.outbox.get(item_id)
        return item.result_tid if item.dest == "newthread" and item.status == "sent" else None

    def _bound_threads(self, game: Game) -> Game:
        """``game`` with each day's threads forumbot opened bound to the day; a tid in the file wins."""
        if game.threads is None:
            return game
        days = []
        for d in game.days:
            disc = d.discussion_tid or self._opened_tid(f"night{d.day}/case_post")
            vote = d.vote_tid or self._opened_tid(f"day{d.day}/vote_thread")
            days.append(replace(d, discussion_tid=disc, vote_tid=vote))
        return replace(game, days=tuple(days))

    def _case_destination(self, n: int) -> Destination:
        """Night ``n``'s case post: a reply in day ``n``'s discussion thread, or that thread's first
        post when forumbot opens it (``[threads]`` and no tid in the file)."""
        threads = self.game.threads
        day = next((d for d in self.game.days if d.day == n), None)
        if threads is not None and day is not None and day.discussion_tid is None:
            return NewThread(threads.fid, threads.subject(self.game.name, n, "讨论帖"))
        return Reply(self._case_tid(n))

    def _vote_thread_item(self, n: int) -> int | None:
        """Day ``n``'s vote thread opened by forumbot: a header with the day's deadlines and the vote
        format (the rule set's), once."""
        threads = self.game.threads
        day = next((d for d in self.game.days if d.day == n), None)
        if (
            threads is None
            or day is None
            or (day.vote_tid is not None and not self.outbox.by_key(f"day{n}/vote_thread"))
        ):
            return None
        subject = threads.subject(self.game.name, n, "投票帖")
        cutoff_kind = MomentKind(self.desk.ruleset.day_cutoff)
        cutoff = day.change_cutoff if cutoff_kind is MomentKind.CHANGE_CUTOFF else day.void_cutoff
        tz = self.game.tz
        body = "\n".join(
            [
                f"[b]{literal(subject)}[/b]",
                f"投票开始：第{n}日案情公布后（约{local_text(day.opens, tz)}）",
                f"{_CUTOFF_WORDS[cutoff_kind]}：{local_text(cutoff, tz)}",
                f"投票截止：{local_text(day.closes, tz)}",
                self.desk.ruleset.vote_format,
            ]
        )
        return self._add(
            f"day{n}/vote_thread", ItemKind.DAY_THREAD, NewThread(threads.fid, subject), lambda: body, day=n
        )

    def _threads_ready(self, n: int) -> None:
        """Day ``n``'s moments need its threads on the board: Delay while forumbot's are not sent yet."""
        if self.game.threads is None or not any(d.day == n for d in self.game.days):
            return
        day = self.game.day(n)
        for tid, key, what in (
            (day.discussion_tid, f"night{n}/case_post", "讨论帖"),
            (day.vote_tid, f"day{n}/vote_thread", "投票帖"),
        ):
            if tid is not None:
                continue
            item_id = self.outbox.by_key(key)
            status = self.outbox.get(item_id).status if item_id is not None else "-"
            raise Delay(
                _("day {day}'s {kind} is not on the board yet (outbox item {key}: {status})").format(
                    day=n, kind=what, key=key, status=status
                )
            )

    # ------------------------------------------------------------------ 代投 by PM

    def proxy_requests(self, n: int, upto: datetime) -> list[dict[str, Any]]:
        """Day ``n``'s proxy-vote requests (代投) sent to the judge by PM from the day's opening up to
        ``upto`` (the moment's deadline), each with a verdict and a Chinese reason; the ones a judge
        would enter are entered as the desk's proxy vote (``forumbot proxy``: the same operation),
        at the PM's time, once. The day engine then judges the proxy vote itself (R001: twice per
        game, AMB-32; R004: not in the last hour), with its own reason in the vote count.

        Only when the game reads the judge's PMs (``[night_sources] pm``); a refused request's sender
        is told why by PM when his uid is known."""
        if self.game.night_sources is None or not self.game.night_sources.pm:
            return []
        day = self.desk.day(n)
        with self.store.session() as s:
            have = {(p, t, at) for _d, p, t, at, _by in records.proxy_votes_for(s, self.game_id, n)}
        out: list[dict[str, Any]] = []
        for pm in self.read_pms():
            if pm.mine or pm.sent_at < day.opens or pm.sent_at > upto:
                continue
            req = read_proxy_request(pm.text, self.game.roster)
            if req is None:
                continue
            why = req.problem or ""
            if pm.from_name not in self.game.roster:
                why = f"{pm.from_name} 不是本局的玩家，不能申请代投"
            elif pm.sent_at >= day.closes:
                why = f"代投申请在投票截止（{local_text(day.closes, self.game.tz)}）之后送达，不予受理"
            verdict: dict[str, Any] = {
                "pmid": pm.pmid,
                "from": pm.from_name,
                "at": local_text(pm.sent_at, self.game.tz),
                "target": req.target,
                "written": req.written,
                "ok": not why,
                "reason": why or f"代投申请：{pm.from_name} 投 {req.target}（计票时按代投规则判定）",
            }
            out.append(verdict)
            if why:
                if self.outbox.uid_map().get(pm.from_name) is not None:
                    body = f"【{self.game.name}】你的代投申请未被受理：{why}"
                    self._pm_item(
                        f"day{n}/proxy/refused/{pm.pmid}",
                        ItemKind.PRIVATE_NOTICE,
                        pm.from_name,
                        body,
                        n,
                        day=True,
                    )
                continue
            target = req.target or "弃权"
            if (pm.from_name, target, pm.sent_at) not in have:
                self.desk.proxy_vote(n, pm.from_name, target, pm.sent_at)
                have.add((pm.from_name, target, pm.sent_at))
        return out

    # ------------------------------------------------------------------ day

    def cutoff(self, m: Moment) -> StepResult:
        """The void (R001) or change (R004) cutoff: a full read and the running count."""
        n = m.round
        day = self.game.day(n)
        tids = [t for t in (day.vote_tid,) if t is not None]
        self._full_read(tids, m.deadline)
        proxies = self.proxy_requests(n, m.deadline)
        judged = self.desk.tally(n, as_of=m.deadline)
        if day.vote_tid is None:
            return StepResult(_("no vote thread"), {})
        item = self._add(
            f"day{n}/{m.kind.value}/running_count",
            ItemKind.RUNNING_COUNT,
            Reply(day.vote_tid),
            lambda: vote_count_draft(self.desk, judged),
            day=n,
        )
        counts = {line.target: line.count for line in judged.result.final_tally}
        result: dict[str, Any] = {"count": counts, "outbox": [item]}
        if proxies:
            result["proxy_requests"] = proxies
        return StepResult(_("day {day}: the count before the cutoff").format(day=n), result)

    def close(self, m: Moment, now: datetime) -> StepResult:
        """The close or a revote's deadline: a full read, the day judged, a revote called or the day
        closed."""
        n = m.round
        day = self.game.day(n)
        tids = [t for t in (day.vote_tid, day.discussion_tid) if t is not None]
        self._full_read(tids, m.deadline)
        proxies = self.proxy_requests(n, m.deadline)
        if self.desk.state() is None:
            raise WaitForJudge(
                _("no roles stored yet: run forumbot setup first; the next tick judges this day")
            )
        with self.store.session() as s:
            called = records.revotes_for(s, self.game_id, n)
        # At the close, a revote already called means this moment ran before (a crash after the call):
        # only its post may be missing. At revote k's deadline, a revote k+1 already called likewise.
        if len(called) > m.number:
            number, plan_dict, called_at = called[m.number]
            item = self._revote_item(n, number, plan_dict, called_at)
            note = _("day {day}: revote #{number} called").format(day=n, number=number)
            return StepResult(note, {"revote": number, "outbox": [item]})
        closed = self.desk.state_labelled(f"day {n}") is not None
        judged = self.desk.tally(n)
        r = judged.result
        if r.outcome.kind is OutcomeKind.REVOTE and r.outcome.plan is not None:
            # Called from the vote's deadline (13:00), not from this moment's run time (13:01): its
            # deadline is 14:00 in the plan, the call post and the count alike. A call made long after
            # (the board was down, the runner stopped) counts from when it is made, so the players
            # still get the whole window.
            judged = self.desk.revote(n, None if now - m.deadline <= LATE_CALL else now)
            with self.store.session() as s:
                number, plan_dict, called_at = records.revotes_for(s, self.game_id, n)[-1]
            item = self._revote_item(n, number, plan_dict, called_at)
            note = _("day {day}: a tie, revote #{number}").format(day=n, number=number)
            return StepResult(note, {"revote": number, "outbox": [item]})
        preview = self.desk.preview_close(judged)
        if preview is None:
            raise WaitForJudge(
                _("day {day} cannot be closed: the stored state is not day {day} (forumbot state)").format(
                    day=n
                )
            )
        # Run again after a crash that came after the close: the same preview (from the state the day
        # began with), only missing items added, the day not closed twice.
        items = self._day_items(n, judged, preview, m)
        res = preview if closed else self.desk.close_day(n)
        if res.state.outcome is not None:
            items.append(self._winner_item(judged.day.vote_tid or 0, m.deadline + GRACE))
            items.append(self._review_item(m.deadline))
        counts = {line.target: line.count for line in r.final_tally}
        return StepResult(
            _("day {day} closed: out {names}").format(day=n, names="、".join(res.out) or _("nobody")),
            {
                "count": counts,
                "executed": list(r.executed),
                "drowned": list(r.drowned_names),
                "outbox": items,
            }
            | ({"proxy_requests": proxies} if proxies else {}),
        )

    def _revote_item(self, n: int, number: int, plan_dict: Mapping[str, Any], called_at: datetime) -> int:
        day = self.game.day(n)
        deadline = self.revote_deadline(called_at)
        body = (
            f"[b]【{literal(self.game.name)}】第{n}日 重投 #{number}[/b]\n"
            f"平票，候选人：{literal('、'.join(plan_dict.get('candidates', [])))}\n"
            f"需要重投的玩家：{literal('、'.join(plan_dict.get('participants', [])))}\n"
            f"重投截止：{local_text(deadline, self.game.tz)}（格式：重投：名字）"
        )
        return self._add(
            f"day{n}/revote{number}/call", ItemKind.REVOTE_CALL, Reply(day.vote_tid or 0), lambda: body, day=n
        )

    def _day_items(self, n: int, judged: Any, preview: Resolution, m: Moment) -> list[int]:
        day = judged.day
        vote_tid = day.vote_tid or 0
        ids = [
            self._add(
                f"day{n}/vote_count",
                ItemKind.VOTE_COUNT,
                Reply(vote_tid),
                lambda: vote_count_draft(self.desk, judged),
                day=n,
            )
        ]
        execution = [
            e.text
            for e in preview.events
            if e.public
            and e.kind in (EventKind.EXECUTION, EventKind.GUARDED_EXECUTION, EventKind.NO_EXECUTION)
        ]
        if execution:
            ids.append(
                self._add(
                    f"day{n}/execution",
                    ItemKind.EXECUTION_NOTICE,
                    Reply(vote_tid),
                    lambda: literal("\n".join(execution)),
                    day=n,
                )
            )
        drowned = [e.text for e in preview.events if e.public and e.kind is EventKind.DROWNING]
        if drowned:
            ids.append(
                self._add(
                    f"day{n}/drowning",
                    ItemKind.DROWNING_NOTICE,
                    Reply(vote_tid),
                    lambda: literal("\n".join(drowned)),
                    day=n,
                )
            )
        if judged.attendance is not None and day.discussion_tid is not None:
            ids.append(
                self._add(
                    f"day{n}/elevator",
                    ItemKind.ELEVATOR,
                    Reply(day.discussion_tid),
                    lambda: elevator_draft(self.desk, n, day.closes),  # as of the close, as the web shows
                    day=n,
                )
            )
        for note in self.desk.day_private_messages(judged, preview):
            key = f"day{n}/private/{note.player}"
            ids.append(self._pm_item(key, ItemKind.PRIVATE_NOTICE, note.player, note.body, n, day=True))
        return ids

    # ------------------------------------------------------------------ the outbox, once per key

    def _add(
        self,
        key: str,
        kind: ItemKind,
        dest: Destination,
        body: Callable[[], str],
        *,
        day: int | None = None,
        night: int | None = None,
        player: str = "",
    ) -> int:
        found = self.outbox.by_key(key)
        if found is not None:
            return found
        text = self.desk.with_accounts(body(), self.clock())  # a substituted slot named by its account
        try:
            return self.outbox.add(kind, dest, text, day=day, night=night, player=player, key=key)
        except OutboxRefused as exc:
            raise WaitForJudge(_("{key}: {error}").format(key=key, error=exc)) from exc


__all__ = ["RUNNER_BY", "BoardSteps", "night_mail_flags"]
