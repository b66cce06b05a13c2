"""The day: from the stored posts of the vote and discussion threads to a verdict for every post, the
count, revotes, overrides and proxy votes, and the day's close.

Everything a day's verdict depends on is recomputed from what the store holds (the posts and every
revision, the judges' overrides, proxy votes and revote calls), so tallying twice gives the same answer
and a judge can always show how it came about. The carry-over between days (vote strikes, the previous
round's attendance, proxy votes used, yellow cards) is replayed from day 1 rather than stored, for the
same reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from engine import (
    AttendanceResult,
    AttendanceRules,
    BallotKind,
    DayInput,
    DayResult,
    DayTimes,
    DiscussionPost,
    GameState,
    OutcomeKind,
    Override,
    Phase,
    ProxyVote,
    Resolution,
    VotePost,
    apply_day,
    count_valid_posts,
    double_kill_pair,
    judge_day,
    plan_revote,
    resolve_revote,
    round_window,
)
from forumbot.config import DayConfig
from forumbot.desk.applications import ApplicationSteps
from forumbot.errors import GameFileError, UsageError
from forumbot.parsers.votes import vote_posts as to_vote_posts
from forumbot.store import posts, records
from forumbot.store.records import OverrideRecord

# What a judge may turn a post into (``forumbot override --as``), and how the engine reads it.
OVERRIDE_KINDS = {
    "vote": BallotKind.VOTE,
    "abstain": BallotKind.VOTE,
    "void": BallotKind.VOID,
    "ignore": BallotKind.NOT_A_VOTE,
    "change": BallotKind.CHANGE,
}


@dataclass(frozen=True)
class DayJudgement:
    """A day's result with what the store said about it (how many posts, which were flagged)."""

    day: DayConfig
    result: DayResult
    attendance: AttendanceResult | None
    state: GameState | None  # the secret state the day started from (None: no setup stored)


class DaySteps(ApplicationSteps):
    # ------------------------------------------------------------------ posts → engine inputs

    def _thread_posts(self, tid: int | None) -> list[posts.StoredPost]:
        if tid is None:
            return []
        return posts.thread_posts(self.store, self.game.board, tid)

    def vote_posts(self, day: DayConfig) -> tuple[VotePost, ...]:
        """The day's vote thread as the engine reads it (each post's ballot, edits marked)."""
        stored = self._thread_posts(day.vote_tid)
        found = [p.to_post() for p in stored if p.author]
        edited = [p.pid for p in stored if len(p.revisions) > 1]
        return to_vote_posts(
            found,
            self.grammar,
            self.game.roster,
            require_reason_label=self.day_flags.r004_require_reason_label,
            allow_text_before_format=self.day_flags.r004_allow_text_before_format,
            void_is_vote_attempt=self.day_flags.r004_void_post_is_vote_attempt,
            edited_pids=edited,
        )

    def discussion_posts(self, day: DayConfig) -> list[DiscussionPost]:
        """The day's discussion thread as attendance counts it (the first revision of each reply)."""
        out = []
        for p in self._thread_posts(day.discussion_tid):
            if p.first or not p.author:
                continue
            rev = p.first_revision  # attendance counts what was posted; a later edit does not add a post
            smiley_only = "smiley" in rev.html and not rev.text.strip()
            out.append(
                DiscussionPost(
                    pid=p.pid,
                    author=p.author,
                    at=p.posted_at,
                    text=rev.text,
                    has_quote=bool(rev.quotes),
                    smiley_only=smiley_only,
                    floor=p.floor,
                )
            )
        return out

    def attendance_rules(self) -> AttendanceRules:
        base = AttendanceRules.from_flags(self.day_flags)
        extra = dict(self.game.attendance)
        try:
            if "bump_words" in extra:
                extra["bump_words"] = frozenset(extra["bump_words"])
            return replace(base, **extra)
        except TypeError as exc:
            raise GameFileError(
                f"unknown attendance setting: {exc}",
                field="attendance",
                fix="min_meaningful_chars, count_bumps, count_quote_only, count_smiley_only, "
                "bump_words, min_posts",
            ) from exc

    def attendance(self, day: DayConfig) -> AttendanceResult | None:
        """Valid discussion posts per player (None when the day has no discussion thread)."""
        if day.discussion_tid is None:
            return None
        window = round_window(day.closes, previous_close=None, case_post_at=day.discussion_opens)
        return count_valid_posts(
            self.discussion_posts(day), self.game.roster, window, self.attendance_rules()
        )

    def overrides(self, day: int) -> tuple[Override, ...]:
        with self.store.session() as s:
            rows = records.overrides_for(s, self.gid, day)
        return tuple(
            Override(
                pid=o.pid,
                kind=OVERRIDE_KINDS.get(o.as_kind, BallotKind.NOT_A_VOTE),
                why=o.why,
                by=o.by,
                at=o.at,
                target=o.target,
                abstain=o.as_kind == "abstain" or o.target == "弃权",
                not_edited=o.as_kind in ("vote", "abstain", "change") and "edit" in o.why.lower(),
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
            for _d, player, target, at, by in records.proxy_votes_for(s, self.gid, day.day):
                out.append(
                    ProxyVote(player, None if target == "弃权" else target, at, by, abstain=target == "弃权")
                )
        return tuple(out)

    # ------------------------------------------------------------------ judging the day

    def day_start_state(self, n: int) -> GameState | None:
        """The secret state the day began from: after night ``n`` was resolved."""
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
        first = next((p for p in self._thread_posts(day.discussion_tid) if p.first), None)
        if first is None or not first.posted_at < day.closes:
            return self.with_applications(day)
        opens = first.posted_at
        return self.with_applications(
            replace(
                day,
                opens=opens,
                discussion_opens=opens if n == self.game.days[0].day else day.discussion_opens,
            )
        )

    def _day_input(
        self, n: int, day: DayConfig, state: GameState | None
    ) -> tuple[DayInput, AttendanceResult | None]:
        """The engine's input for day ``n``: the posts, the times, and what carries over from day n-1."""
        prev = self.tally(n - 1).result if n > 1 and any(d.day == n - 1 for d in self.game.days) else None
        if state is not None:
            alive = frozenset(state.living())
            before = self.state_before_night(n)
            new_victim = before is None or len(alive) < len(before.living())
        else:
            dead = {name for d in self.game.days if d.day <= n for name in d.dead}
            alive = frozenset(self.game.roster) - self._eliminated_before(n) - dead
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
            previous_round_deficient=prev.discussion_deficient if prev else frozenset(),
            strikes=dict(prev.strikes_after) if prev else {},
            proxy_votes=self.proxy_votes(day),
            proxy_used=dict(prev.proxy_used_after) if prev else {},
            overrides=self.overrides(n),
            authority_holder=authority,
            double_kill_pair=pair,
            yellow_cards=dict(prev.yellow_totals) if prev else {},
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

        ``as_of`` gives the running count at that moment (provisional, not cached, no revotes).
        """
        if as_of is None and n in self._days:
            return self._days[n]
        day = self.day(n)
        state = self.day_start_state(n)
        inp, attendance = self._day_input(n, day, state)
        result = judge_day(inp, as_of=as_of)
        if as_of is None:
            result = self._called_revotes(n, result, inp)
        judged = DayJudgement(day, result, attendance, state)
        if as_of is None:
            self._days[n] = judged
        return judged

    def state_before_night(self, n: int) -> GameState | None:
        """The state night ``n`` started from (night 1: the setup)."""
        if n == 1:
            setups = [v.label for v in self.live_history() if v.label.startswith("setup")]
            return self.state_labelled(setups[-1]) if setups else None
        return self.state_labelled(f"day {n - 1}")

    def _eliminated_before(self, n: int) -> frozenset[str]:
        """Without a stored setup: who the earlier days' results removed (executions and drownings)."""
        gone: set[str] = set()
        for d in self.game.days:
            if d.day >= n:
                break
            r = self.tally(d.day).result
            gone |= set(r.executed) | set(r.drowned_names)
        return frozenset(gone)

    # ------------------------------------------------------------------ the judges' decisions

    def revote(self, n: int, called_at: datetime) -> DayJudgement:
        """Record that the revote day ``n`` waits for was called at ``called_at``; the day judged again."""
        judged = self.tally(n)
        r = judged.result
        if r.outcome.kind is not OutcomeKind.REVOTE or r.outcome.plan is None:
            raise UsageError(f"day {n} is not waiting for a revote ({r.outcome.text or r.outcome.kind})")
        plan = plan_revote(r, called_at)
        with self.store.session() as s:
            records.save_revote(
                s,
                self.gid,
                n,
                plan.number,
                {"candidates": list(plan.candidates), "participants": list(plan.participants)},
                called_at,
            )
            s.commit()
        self._days.pop(n, None)
        return self.tally(n)

    def day_of_vote_post(self, pid: int) -> int:
        """The day whose vote thread holds ``pid`` (the first such day when a thread serves several)."""
        for d in self.game.days:
            if d.vote_tid is not None and any(p.pid == pid for p in self._thread_posts(d.vote_tid)):
                return d.day
        raise UsageError(
            f"pid {pid} is in none of the game's vote threads in the store; "
            "run `forumbot poll` first, or check the pid"
        )

    def override(self, n: int, pid: int, as_kind: str, target: str | None, why: str) -> OverrideRecord:
        """A judge's correction of one post's verdict (logged with who and why; every later tally applies
        it). ``as_kind`` is one of OVERRIDE_KINDS."""
        day = self.game.day(n)
        if as_kind not in OVERRIDE_KINDS:
            raise UsageError(f"--as must be one of {', '.join(OVERRIDE_KINDS)}")
        if as_kind in ("vote", "change") and not target:
            raise UsageError(f"--as {as_kind} needs --target NAME")
        if target and target != "弃权" and target not in self.game.roster:
            raise UsageError(f"{target!r} is not in the roster (names match exactly)")
        pids = {p.pid for p in self.vote_posts(day)}
        if pid not in pids:
            raise UsageError(
                f"pid {pid} is not a post of day {n}'s vote thread (tid {day.vote_tid}) in the store; "
                "run `forumbot poll` first, or check the day"
            )
        if not why.strip():
            raise UsageError("an override needs --why (it is shown in every later tally)")
        with self.store.session() as s:
            rec = records.add_override(s, self.gid, n, pid, as_kind, target, why, self.by)
            s.commit()
        self._days.clear()
        return rec

    def proxy_vote(self, n: int, player: str, target: str, at: datetime) -> None:
        """A proxy vote (代投) entered by the judge for day ``n`` (``target`` may be 弃权)."""
        self.game.day(n)
        for name in (player, target):
            if name != "弃权" and name not in self.game.roster:
                raise UsageError(f"{name!r} is not in the roster (names match exactly)")
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

    def _apply(self, st: GameState, judged: DayJudgement) -> Resolution:
        """The day's result applied to the state: the vote's elimination, drownings, the judges' own
        decisions of the day from the game file (sendings-off, red cards), the day's counters, then the
        batch win check."""
        day = judged.day
        return apply_day(st, judged.result, sent_off=day.sent_off, red_cards=day.red_cards)

    def close_day(self, n: int) -> Resolution:
        """Apply day ``n``'s result to the secret state and store it as version ``day N``."""
        judged = self.tally(n)
        r = judged.result
        if r.outcome.kind is OutcomeKind.REVOTE:
            raise UsageError(
                f"day {n} waits for revote #{r.outcome.plan.number if r.outcome.plan else '?'}: "
                "call it with `forumbot revote --day N`, poll after its deadline, then close"
            )
        st = self.require_state()
        if st.phase is not Phase.DAY or st.round != n:
            raise UsageError(
                f"the game is at {st.phase.value} {st.round}, not day {n}: resolve night {n} first, "
                "or this day is already closed"
            )
        res = self._apply(st, judged)
        self.save_state(f"day {n}", res.state)
        return res
