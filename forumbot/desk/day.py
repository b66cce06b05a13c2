"""The day: from the stored posts of the vote and discussion threads to a verdict for every post, the
count, revotes, overrides and proxy votes, and the day's close.

Everything a day's verdict depends on is recomputed from what the store holds (the posts and every
revision, the judges' overrides, proxy votes and revote calls), so tallying twice gives the same answer
and a judge can always show how it came about. The posts are read through the judging read path
(forumbot/store/readpath.py: one query per thread, plain records, kept while the thread's version is
unchanged). The carry-over between days (vote strikes, the previous round's attendance, proxy votes
used, yellow cards, who went out) is what judging days 1…k-1 again would give, but each day is judged
once: its carry-over is stored with the fingerprint of its inputs and used while that still matches
(desk/carry.py).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection
from sqlmodel import Session

from engine import (
    AttendanceResult,
    AttendanceRules,
    BallotKind,
    DayInput,
    DayResult,
    DayTimes,
    DiscussionPost,
    EventKind,
    GameState,
    OutcomeKind,
    Override,
    Phase,
    ProxyVote,
    Resolution,
    VotePost,
    VoteStatus,
    apply_day,
    count_valid_posts,
    double_kill_pair,
    judge_day,
    plan_revote,
    resolve_revote,
    round_window,
)
from forumbot import drafts
from forumbot.config import DayConfig
from forumbot.desk.applications import ApplicationSteps
from forumbot.desk.carry import DayCarry, canon, fingerprint
from forumbot.desk.dayjudgement import DayJudgement as DayJudgement
from forumbot.desk.private import PrivateNote, private_notes
from forumbot.desk.substitutes import SubstituteSteps
from forumbot.errors import GameFileError, ReadIncomplete, UsageError
from forumbot.i18n import _
from forumbot.labels import phase_label
from forumbot.parsers.votes import vote_posts as to_vote_posts
from forumbot.store import readpath, records
from forumbot.store.dayresults import load_day_results, save_day_result
from forumbot.store.reads import day_read_complete, read_status
from forumbot.store.records import OverrideRecord

# What a judge may turn a post into (``forumbot override --as``), and how the engine reads it.
OVERRIDE_KINDS = {
    "vote": BallotKind.VOTE,
    "abstain": BallotKind.VOTE,
    "void": BallotKind.VOID,
    "ignore": BallotKind.NOT_A_VOTE,
    "change": BallotKind.CHANGE,
}


@contextmanager
def cycles_uncollected() -> Iterator[None]:
    """No cyclic garbage collection while a day is judged: judging makes hundreds of thousands of
    objects (posts, ballots, verdicts) and no cycles, and the collector's passes over them were 15% of
    a 100,000-post tally. Reference counting still frees everything; the collector runs again after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _read_discussion(conn: Connection, key: str, tid: int) -> tuple[DiscussionPost, ...]:
    """Attendance's posts: the replies with an author, each as first posted (a later edit does not add
    a post); a smiley-only post has the board's smiley in its HTML and no text. Made from the read
    path's plain rows: one record per post, not two."""
    return tuple(
        [
            DiscussionPost(pid, author, at, text, quoted, smiley and not text.strip(), floor)
            for pid, first, author, at, floor, text, quoted, smiley in readpath.first_rows(conn, key, tid)
            if not first and author
        ]
    )


class DaySteps(SubstituteSteps, ApplicationSteps):
    # ------------------------------------------------------------------ posts → engine inputs

    def vote_posts(self, day: DayConfig) -> tuple[VotePost, ...]:
        """The day's vote thread as the engine reads it (each post's ballot, edits marked).

        Kept by the desk while the thread is unchanged (its version, forumbot/store/readpath.py); the
        posts are read a batch at a time and only the engine's values are kept."""
        if day.vote_tid is None:
            return ()
        # A substitute's account is a name the votes may use (desk/substitutes.py): the view is kept per
        # set of names, and the authors and targets are then read as the slots they play.
        names = self.vote_names()
        view = "vote_posts" if names == self.game.roster else "vote_posts/" + "、".join(names)
        posts = self.threads.view(
            self.game.board, day.vote_tid, view, functools.partial(self._read_vote_posts, names=names)
        )
        return self.slots_in_votes(posts)

    def _read_vote_posts(
        self, conn: Connection, key: str, tid: int, *, names: tuple[str, ...] | None = None
    ) -> tuple[VotePost, ...]:
        out: list[VotePost] = []
        for batch in readpath.current_posts(conn, key, tid):
            # pids are unique and batches in pid order: the parser's order and dedupe hold across them
            out += to_vote_posts(
                [p for p in batch if p.author],
                self.grammar,
                names if names is not None else self.game.roster,
                require_reason_label=self.day_flags.r004_require_reason_label,
                allow_text_before_format=self.day_flags.r004_allow_text_before_format,
                void_is_vote_attempt=self.day_flags.r004_void_post_is_vote_attempt,
                edited_pids=[p.pid for p in batch if p.revision_count > 1],
                others=self.game.judges,
            )
        return tuple(out)

    def discussion_posts(self, day: DayConfig) -> list[DiscussionPost]:
        """The day's discussion thread as attendance counts it (the first revision of each reply)."""
        if day.discussion_tid is None:
            return []
        found = self.threads.view(self.game.board, day.discussion_tid, "discussion", _read_discussion)
        return self.slots_in_discussion(list(found))

    def attendance_rules(self) -> AttendanceRules:
        base = AttendanceRules.from_flags(self.day_flags)
        extra = dict(self.game.attendance)
        try:
            if "bump_words" in extra:
                extra["bump_words"] = frozenset(extra["bump_words"])
            return replace(base, **extra)
        except TypeError as exc:
            raise GameFileError(
                _("unknown attendance setting: {error}").format(error=exc),
                field="attendance",
                fix=_(
                    "use min_meaningful_chars, count_bumps, count_quote_only, count_smiley_only, "
                    "bump_words, min_posts"
                ),
            ) from exc

    def attendance(self, day: DayConfig) -> AttendanceResult | None:
        """Valid discussion posts per living player (None when the day has no discussion thread).

        Only the living are counted (a dead player's post counts for nobody); the dead, the judges and
        the spectators who posted get a verdict saying which they are (:meth:`attendance_apart`).
        """
        if day.discussion_tid is None:
            return None
        window = round_window(day.closes, previous_close=None, case_post_at=day.discussion_opens)
        living = self.living(day.day)
        judges = frozenset(self.game.judges)
        roster = frozenset(self.game.roster)

        def apart(author: str) -> str:
            """Who a poster counted for nobody is (asked once per name, not per post)."""
            if author in judges:
                return "法官，不计"
            if author in roster:
                return "已出局，不计"
            if author.endswith("（已被顶替）"):
                return "该账号已被顶替，此后的发言不计"
            return "旁观者（非本局玩家），不计"

        return count_valid_posts(
            self.discussion_posts(day),
            [p for p in self.game.roster if p in living],
            window,
            self.attendance_rules(),
            reason_apart=apart,
        )

    def attendance_apart(self, day: DayConfig, attendance: AttendanceResult) -> dict[str, list[str]]:
        """Who posted in the discussion thread without being counted: the dead, the judges, spectators."""
        living = self.living(day.day)
        apart: dict[str, list[str]] = {"dead": [], "judges": [], "spectators": []}
        for pa in attendance.posts:
            if pa.author in living:
                continue
            if pa.author in self.game.judges:
                key = "judges"
            elif pa.author in self.game.roster:
                key = "dead"
            else:
                key = "spectators"
            if pa.author not in apart[key]:
                apart[key].append(pa.author)
        return apart

    def living(self, n: int) -> frozenset[str]:
        """Who is alive during day ``n``: from the secret state the day began with, else the game file."""
        state = self.day_start_state(n)
        if state is not None:
            return frozenset(state.living())
        dead = {name for d in self.game.days if d.day <= n for name in d.dead}
        return frozenset(self.game.roster) - self._eliminated_before(n) - dead

    def overrides(self, day: int) -> tuple[Override, ...]:
        with self.store.session() as s:
            return self._overrides(s, day)

    def _overrides(self, s: Session, day: int) -> tuple[Override, ...]:
        rows = records.overrides_for(s, self.gid, day)
        waived = {d.pid for d in records.decisions_for(s, self.gid, "edit_waived", day)}
        return tuple(
            Override(
                pid=o.pid,
                kind=OVERRIDE_KINDS.get(o.as_kind, BallotKind.NOT_A_VOTE),
                why=o.why,
                by=o.by,
                at=o.at,
                target=o.target,
                abstain=o.as_kind == "abstain" or o.target == "弃权",
                not_edited=o.as_kind in ("vote", "abstain", "change") and o.pid in waived,
            )
            for o in rows
        )

    def proxy_votes(self, day: DayConfig) -> tuple[ProxyVote, ...]:
        """Proxy votes from the game file and those the judges entered (``forumbot proxy``)."""
        out = [
            ProxyVote(
                p.player,
                None if p.target == "弃权" else p.target,
                p.at,
                p.entered_by or "game file",
                abstain=p.target == "弃权",
            )
            for p in day.proxy_votes
        ]
        with self.store.session() as s:
            out += self._stored_proxy_votes(s, day.day)
        return tuple(out)

    def _stored_proxy_votes(self, s: Session, n: int) -> list[ProxyVote]:
        return [
            ProxyVote(player, None if target == "弃权" else target, at, by, abstain=target == "弃权")
            for _d, player, target, at, by in records.proxy_votes_for(s, self.gid, n)
        ]

    # ------------------------------------------------------------------ judging the day

    def day_start_state(self, n: int) -> GameState | None:
        """The secret state the day began from: after night ``n`` was resolved, or after a 威权
        hand-over made since (version ``authority N``, desk/authority.py): the new holder decides day
        ``n``'s tie (R004 §c.2)."""
        live = [v.label for v in self.live_history()]
        if f"night {n}" not in live:
            return None
        after = live[len(live) - 1 - live[::-1].index(f"night {n}") :]
        if f"authority {n}" in after:
            return self.state_labelled(f"authority {n}")
        return self.state_labelled(f"night {n}")

    def day(self, n: int) -> DayConfig:
        """Day ``n`` with the case post's real time as the opening, when the game file only estimated it.

        The case post opens the vote window (AMB-24). When a day has a discussion thread of its own
        and the file gives no ``opens``, the thread's opening post is the case post. R004: the process
        thread's delay/acceleration applications set the close and the accelerated state where the
        file is silent (desk/applications.py).
        """
        day = self.game.day(n)
        if day.opens_given or day.discussion_tid is None:
            return self.with_applications(day)
        if sum(1 for d in self.game.days if d.discussion_tid == day.discussion_tid) > 1:
            return self.with_applications(day)  # one thread for several days: its first post opens day 1 only
        opens_at = self.threads.view(self.game.board, day.discussion_tid, "opening", readpath.opening_post_at)
        if opens_at is None or not opens_at < day.closes:
            return self.with_applications(day)
        opens = opens_at
        return self.with_applications(
            replace(
                day,
                opens=opens,
                discussion_opens=opens if n == self.game.days[0].day else day.discussion_opens,
            )
        )

    def _day_input(
        self, n: int, day: DayConfig, state: GameState | None, fps: dict[int, str]
    ) -> tuple[DayInput, AttendanceResult | None]:
        """The engine's input for day ``n``: the posts, the times, and what carries over from day n-1
        (``fps``: the fingerprints of day n and the days before it, :meth:`day_fingerprints`)."""
        prev = self._carry(n - 1, fps) if n > 1 and any(d.day == n - 1 for d in self.game.days) else None
        alive = self.living(n) if state is not None else self._living_without_state(n, fps)
        if state is not None:
            before = self.state_before_night(n)
            new_victim = before is None or len(alive) < len(before.living())
        else:
            new_victim = bool(day.dead) or n == 1
        attendance = self.attendance(day)
        pair = None
        authority = None
        if state is not None:
            dk = double_kill_pair(state, n) if state.phase is Phase.DAY and state.round == n else None
            pair = frozenset(dk) if dk else None
            authority = state.authority_holder
        inp = DayInput(
            family=self.ruleset.family,
            day=n,
            roster=self.game.roster,
            alive=alive,
            posts=self.vote_posts(day),
            times=DayTimes(
                opens_at=day.opens,
                closes_at=day.closes,
                void_cutoff=day.void_cutoff,
                change_cutoff=day.change_cutoff,
                accelerated=day.accelerated,
                accelerated_at=day.accelerated_at,
                accelerated_until=day.accelerated_until,
            ),
            discussion_counts=dict(attendance.counts) if attendance else None,
            previous_round_deficient=prev.deficient if prev else frozenset(),
            strikes=dict(prev.strikes) if prev else {},
            proxy_votes=self.proxy_votes(day),
            proxy_used=dict(prev.proxy_used) if prev else {},
            overrides=self.overrides(n),
            authority_holder=authority,
            double_kill_pair=pair,
            yellow_cards=dict(prev.yellow_cards) if prev else {},
            flags=self.day_flags,
            new_victim=new_victim,
            judges=frozenset(self.game.judges),
            display_tz=self.game.tz,
        )
        return inp, attendance

    def _called_revotes(self, n: int, result: DayResult, inp: DayInput) -> DayResult:
        """Apply, in order, every revote the judges called for day ``n`` (while the day still waits)."""
        with self.store.session() as s:
            calls = records.revotes_for(s, self.gid, n)
        for number, _plan, called_at in calls:
            if result.outcome.kind is not OutcomeKind.REVOTE or result.outcome.plan is None:
                break
            if result.outcome.plan.number != number:
                break
            plan = plan_revote(result, called_at)
            result = resolve_revote(result, plan, inp.posts, overrides=inp.overrides)
        return result

    def tally(self, n: int, *, as_of: datetime | None = None) -> DayJudgement:
        """Judge day ``n`` from the store: the original count, then every revote the judges called.

        ``as_of`` gives the running count at that moment (provisional, not kept, no revotes). The days
        before start from their stored carry-overs (each judged at most once while its inputs stay the
        same); a judgement this desk made of day ``n`` with the same inputs is given again, its
        read status checked anew.
        """
        fps = self.day_fingerprints(n)
        if as_of is None:
            found = self._days.get(n)
            if found is not None and found[0] == fps[n]:
                judged = found[1]
                return replace(judged, read_reasons=self.read_reasons(judged.day, judged.result, None))
        with cycles_uncollected():
            return self._judge(n, fps, as_of)

    def _judge(
        self, n: int, fps: dict[int, str], as_of: datetime | None = None, *, keep: bool = True
    ) -> DayJudgement:
        """Day ``n`` judged from the posts (the days before from their carry-overs); a final judgement
        is kept (``keep``), and its carry-over stored under the day's fingerprint."""
        day = self.day(n)
        state = self.day_start_state(n)
        inp, attendance = self._day_input(n, day, state, fps)
        result = judge_day(inp, as_of=as_of)
        if as_of is None:
            result = self._called_revotes(n, result, inp)
        judged = DayJudgement(day, result, attendance, state, self.read_reasons(day, result, as_of))
        if as_of is None:
            if keep:
                self._days[n] = (fps[n], judged)
            self._keep_carry(n, fps[n], DayCarry.of(result))
        return judged

    # ------------------------------------------------------------------ each day judged once

    def day_fingerprints(self, n: int) -> dict[int, str]:
        """The fingerprint of day ``n`` and of every day before it in the game file (desk/carry.py).

        Read without a post: the threads' versions, the judges' records of each day, the state
        versions' ids. Computed BEFORE any input is read, so a judgement stored under a fingerprint
        was made from inputs at least as new (a write in between only makes it unused, never stale).
        Raises UsageError when day ``n`` is not in the game file."""
        self.game.day(n)
        days = sorted((d for d in self.game.days if d.day <= n), key=lambda d: d.day)
        tids = {t for d in days for t in (d.vote_tid, d.discussion_tid, d.process_tid) if t is not None}
        versions = self.threads.versions(self.game.board, tids)
        live: dict[str, int] = {}
        for v in self.live_history():
            live[v.label] = v.id  # the latest live version of each label
        setups = [label for label in live if label.startswith("setup")]
        setup_id = live[max(setups, key=lambda label: live[label])] if setups else None
        game = self._game_fingerprint()
        subs = [(x.slot, x.new, x.at.isoformat()) for x in self.substitutions()]
        out: dict[int, str] = {}
        prev: str | None = None
        with self.store.session() as s:
            for d in days:
                k = d.day
                out[k] = prev = fingerprint(
                    game,
                    d,
                    {t: versions[t] for t in (d.vote_tid, d.discussion_tid, d.process_tid) if t is not None},
                    live.get(f"night {k}"),  # the state the day starts from (day_start_state)
                    live.get(f"authority {k}"),  # …or a 威权 hand-over made since (desk/authority.py)
                    subs,  # the takeovers: whose posts count for which slot (desk/substitutes.py)
                    setup_id if k == 1 else live.get(f"day {k - 1}"),  # state_before_night
                    self._overrides(s, k),
                    self._stored_proxy_votes(s, k),
                    records.revotes_for(s, self.gid, k),
                    prev,
                )
        return out

    def _game_fingerprint(self) -> Any:
        """What judging any day uses of the game file and the rule set beside the day's own entry."""
        try:
            rules: object = self.attendance_rules()
        except GameFileError as exc:  # refused when a day with a discussion thread is judged
            rules = ["refused", str(exc)]
        return canon(
            [
                self.ruleset.id,
                self.ruleset.family,
                str(self.ruleset.grammar),
                self.ruleset.has_applications,
                self.game.board.key,
                self.game.roster,
                self.game.judges,
                self.game.timezone,
                self.day_flags,
                rules,
                [(d.day, d.discussion_tid) for d in self.game.days],
            ]
        )

    def _carry(self, n: int, fps: dict[int, str]) -> DayCarry:
        """What day ``n`` leaves for the days after it: kept by this desk, else stored, else judged."""
        fp = fps[n]
        kept = self._carries.get(n)
        if kept is not None and kept[0] == fp:
            return kept[1]
        stored = load_day_results(self.store, self.gid).get(n)
        if stored is not None and stored[0] == fp:
            carry = DayCarry.from_json(stored[1])
            self._carries[n] = (fp, carry)
            return carry
        # judged for what it carries only (the day asked for is later): neither the judgement nor the
        # day's posts are kept, so judging ten days for the first time holds one day's posts at a time
        self._judge(n, fps, keep=False)
        day = self.game.day(n)
        for tid in (day.vote_tid, day.discussion_tid):
            if tid is not None:
                self.threads.forget(self.game.board, tid)
        return self._carries[n][1]

    def _keep_carry(self, n: int, fp: str, carry: DayCarry) -> None:
        self._carries[n] = (fp, carry)
        text = carry.to_json()
        if load_day_results(self.store, self.gid).get(n) != (fp, text):
            save_day_result(self.store, self.gid, n, fp, text)

    def read_reasons(self, day: DayConfig, result: DayResult, as_of: datetime | None) -> tuple[str, ...]:
        """Why the day's threads cannot vouch for this judgement (empty when they can).

        A final verdict needs every thread of the day read completely from page 1 by a read that
        started after the close (or after the deadline of the last revote judged): an edit or a
        deletion on any page changes verdicts. A running count needs a complete read after its moment.
        """
        tids = [t for t in (day.vote_tid, day.discussion_tid) if t is not None]
        if not tids:
            return ()
        if as_of is not None:
            _ok, reasons = day_read_complete(self.store, self.game.board, tids, as_of, tz=self.game.tz)
            return tuple(reasons)
        after = max([day.closes, *(rv.plan.deadline for rv in result.revotes)])
        _ok, reasons = day_read_complete(self.store, self.game.board, tids, after, full=True, tz=self.game.tz)
        if not reasons and day.vote_tid is not None and self.game.board.source in ("api", "touch"):
            # API v4 strips the edit marker, touch pages give relative times: a verdict needs the vote
            # thread read from PC pages too (a full poll does it)
            st = read_status(self.store, self.game.board, day.vote_tid)
            if "pc" not in (st.full_source or "").split(","):
                reasons.append(
                    f"投票帖 {day.vote_tid} 截止后只经{st.full_source}完整读取"
                    "（API v4 没有「本帖最后由…编辑」标记，触屏版只有相对时间）："
                    "需再用电脑版页面完整读取一次，请运行 forumbot poll --full"
                )
        return tuple(reasons)

    def _eliminated_before(self, n: int, fps: dict[int, str] | None = None) -> frozenset[str]:
        """Without a stored setup: who the earlier days' results removed (executions and drownings)."""
        gone: set[str] = set()
        for d in self.game.days:
            if d.day >= n:
                break
            if fps is None:
                fps = self.day_fingerprints(n)
            carry = self._carry(d.day, fps)
            gone |= set(carry.executed) | set(carry.drowned)
        return frozenset(gone)

    def _living_without_state(self, n: int, fps: dict[int, str]) -> frozenset[str]:
        """:meth:`living` when no state is stored, from fingerprints already computed."""
        dead = {name for d in self.game.days if d.day <= n for name in d.dead}
        return frozenset(self.game.roster) - self._eliminated_before(n, fps) - dead

    # ------------------------------------------------------------------ the judges' decisions

    def revote(self, n: int, called_at: datetime | None = None) -> DayJudgement:
        """Record that the revote day ``n`` waits for was called at ``called_at``; the day judged again.

        ``called_at`` None: the call counts from the deadline of the vote it follows (the close for
        revote #1, revote #k's deadline for #k+1), as the engine plans it (AMB-28: the call is posted
        right after the close), so its deadline is that deadline plus the revote minutes (13:00 →
        14:00) however late the call is recorded. A judge who posts the call later gives its time
        (C-012: 13:05 → 14:05)."""
        judged = self.tally(n)
        r = judged.result
        if r.outcome.kind is not OutcomeKind.REVOTE or r.outcome.plan is None:
            raise UsageError(
                _("day {day} is not waiting for a revote ({outcome})").format(
                    day=n, outcome=r.outcome.text or r.outcome.kind
                )
            )
        plan = plan_revote(r, r.outcome.plan.opens_at if called_at is None else called_at)
        with self.store.session() as s:
            records.save_revote(
                s,
                self.gid,
                n,
                plan.number,
                {"candidates": list(plan.candidates), "participants": list(plan.participants)},
                plan.opens_at,
            )
            s.commit()
        self._days.pop(n, None)
        return self.tally(n)

    def day_of_vote_post(self, pid: int) -> int:
        """The day whose vote thread holds ``pid`` (the first such day when a thread serves several)."""
        for d in self.game.days:
            if d.vote_tid is not None and readpath.thread_has_post(
                self.store, self.game.board, d.vote_tid, pid
            ):
                return d.day
        raise UsageError(
            _(
                "pid {pid} is in none of the game's vote threads in the store; run `forumbot poll` first, "
                "or check the pid"
            ).format(pid=pid)
        )

    def day_closed(self, n: int) -> bool:
        """True once day ``n``'s close is stored (a live version ``day N``)."""
        return any(v.label == f"day {n}" for v in self.live_history())

    def override(
        self,
        n: int,
        pid: int,
        as_kind: str,
        target: str | None,
        why: str,
        *,
        waive_edit: bool = False,
        seen: int | None = None,
    ) -> OverrideRecord:
        """A judge's correction of one post's verdict (logged with who and why; every later tally applies
        it). ``as_kind`` is one of OVERRIDE_KINDS. ``waive_edit``: the post's edit does not void it
        (an explicit decision, whatever language ``why`` is written in). ``seen``: how many overrides
        of the post the judge read (the desk's form); another judge's override since is refused.

        Refused once the day is closed: the close applied the old verdicts to the secret state, so a
        correction now would change the count without changing the game. Undo the close first
        (``forumbot undo``), override, then close again.
        """
        day = self.game.day(n)
        if self.day_closed(n):
            raise UsageError(
                _(
                    "day {day} is closed and cannot be corrected any more (the close already changed the "
                    "game by the old verdict): `forumbot undo` the close of day {day} first, correct, then "
                    "`forumbot close` again"
                ).format(day=n)
            )
        if as_kind not in OVERRIDE_KINDS:
            raise UsageError(_("--as must be one of {kinds}").format(kinds=", ".join(OVERRIDE_KINDS)))
        if as_kind in ("vote", "change") and not target:
            raise UsageError(_("--as {kind} needs --target NAME").format(kind=as_kind))
        if target and target != "弃权" and target not in self.game.roster:
            raise UsageError(_("{name!r} is not in the roster (names match exactly)").format(name=target))
        pids = {p.pid for p in self.vote_posts(day)}
        if pid not in pids:
            raise UsageError(
                _(
                    "pid {pid} is not a post of day {day}'s vote thread (tid {tid}) in the store; run "
                    "`forumbot poll` first, or check the day"
                ).format(pid=pid, day=n, tid=day.vote_tid)
            )
        if not why.strip():
            raise UsageError(_("an override needs --why (it is shown in every later tally)"))
        if as_kind in ("vote", "change", "abstain"):
            self._refuse_unplayable_override(n, pid, as_kind)
        with self.store.session() as s:
            rec = records.add_override(
                s, self.gid, n, pid, as_kind, target, why, self.by, seen=seen, zone=self.game.tz
            )
            if waive_edit:
                records.add_decision(s, self.gid, "edit_waived", why, self.by, day=n, pid=pid)
            s.commit()
        self._days.clear()
        return rec

    def _refuse_unplayable_override(self, n: int, pid: int, as_kind: str) -> None:
        """An override the rules would not apply is refused before it is recorded (never «recorded, it
        applies» and then not applied): a post by a judge, by someone not in the game or by a player
        already out is no vote whatever it says, so it cannot be made a vote, a change or an abstention
        (``void`` and ``ignore`` are taken: they agree with it). A player's vote posted from another
        account is entered as his proxy vote instead."""
        try:
            verdict = self.tally(n).result.verdict(pid)
        except KeyError:
            return
        if verdict.status not in (VoteStatus.NOT_A_PLAYER, VoteStatus.DEAD):
            return
        raise UsageError(
            _(
                "pid {pid} is by {author}, who cannot vote on day {day} ({reason}): an override as {kind} "
                "would never count, so it was not recorded (--as void or ignore are taken); a player's "
                "vote posted from another account is entered with forumbot proxy --day {day} PLAYER TARGET "
                "--at TIME"
            ).format(pid=pid, author=verdict.author, day=n, reason=verdict.reason, kind=as_kind)
        )

    def proxy_vote(self, n: int, player: str, target: str, at: datetime) -> None:
        """A proxy vote (代投) entered by the judge for day ``n`` (``target`` may be 弃权)."""
        self.game.day(n)
        for name in (player, target):
            if name != "弃权" and name not in self.game.roster:
                raise UsageError(_("{name!r} is not in the roster (names match exactly)").format(name=name))
        with self.store.session() as s:
            records.add_proxy_vote(s, self.gid, n, player, target, at, self.by)
            s.commit()
        self._days.clear()

    # ------------------------------------------------------------------ closing the day

    def preview_close(self, judged: DayJudgement) -> Resolution | None:
        """What closing the day does to the secret state, from the state the day began with (pure:
        nothing is saved), so the draft is the same before and after ``close``."""
        st = judged.state
        if st is None or st.phase is not Phase.DAY or st.round != judged.day.day:
            return None
        return self._apply(st, judged)

    def outcome_text(self, judged: DayJudgement) -> str:
        """The day's result line every face shows (``tally --json``'s outcome.text, the web's day page):
        the public line the close posts, from :meth:`preview_close` when the state is known, so a
        top vote-getter protected by the guardian reads «…守护神 出局» as the draft and ``close`` say
        (AMB-50); a running count names who leads, never who is executed."""
        r = judged.result
        if judged.running:
            return drafts.running_text(r)
        if r.outcome.kind is not OutcomeKind.REVOTE:
            preview = self.preview_close(judged)
            if preview is not None:
                kinds = (EventKind.EXECUTION, EventKind.GUARDED_EXECUTION, EventKind.NO_EXECUTION)
                lines = [e.text for e in preview.events if e.public and e.kind in kinds]
                if lines:
                    return "\n".join(lines)
        return r.outcome.text or r.outcome.kind.value

    def day_private_messages(self, judged: DayJudgement, res: Resolution) -> tuple[PrivateNote, ...]:
        """What the day's close tells players in private (``res``: its :meth:`preview_close`), one per
        recipient the engine names, the executed included (R001: the executed officer's last words;
        R004: «你已出局…», the 威权 to pass)."""
        if judged.state is None:
            return ()
        header = f"【{self.game.name}】第{judged.day.day}日（仅你可见）"
        return private_notes(res.events, judged.state, res.state, header)

    def _apply(self, st: GameState, judged: DayJudgement) -> Resolution:
        """The day's result applied to the state: the vote's elimination, drownings, the judges' own
        decisions of the day from the game file (sendings-off, red cards), the day's counters, then the
        batch win check."""
        day = judged.day
        return apply_day(st, judged.result, sent_off=day.sent_off, red_cards=day.red_cards)

    def close_day(self, n: int, *, force_why: str | None = None) -> Resolution:
        """Apply day ``n``'s result to the secret state and store it as version ``day N``.

        Refused while the day's threads were not read completely after the close (ReadIncomplete,
        naming each thread and what to run): a close is final. ``force_why`` is the judge's decision
        to close anyway (e.g. the board is gone for good and the judges counted by hand); it is
        stored with who, when, why and the reasons it overrode.
        """
        judged = self.tally(n)
        r = judged.result
        if judged.read_reasons:
            if force_why is None or not force_why.strip():
                raise ReadIncomplete(
                    _(
                        "the threads of day {day} were not read in full after the deadline, so it cannot "
                        "be closed:\n  {reasons}\n(to close anyway: forumbot close --day N --force --why "
                        "REASON; the decision is recorded)"
                    ).format(day=n, reasons="\n  ".join(judged.read_reasons))
                )
            with self.store.session() as s:
                records.add_decision(
                    s,
                    self.gid,
                    "close_forced",
                    force_why,
                    self.by,
                    day=n,
                    detail={"read_reasons": list(judged.read_reasons)},
                )
                s.commit()
        if r.outcome.kind is OutcomeKind.REVOTE:
            raise UsageError(
                _(
                    "day {day} waits for revote #{number}: call it with `forumbot revote --day N`, poll "
                    "after its deadline, then close"
                ).format(day=n, number=r.outcome.plan.number if r.outcome.plan else "?")
            )
        st = self.require_state()
        if st.phase is not Phase.DAY or st.round != n:
            raise UsageError(
                _(
                    "the game is at {where}, not day {day}: resolve night {day} first, or this day "
                    "is already closed"
                ).format(where=phase_label(st.phase.value, st.round), day=n)
            )
        res = self._apply(st, judged)
        self.save_state(f"day {n}", res.state)
        return res
