"""The judge's desk: joins the game file, the store and the pure engine.

Everything a day's verdict depends on is recomputed from what the store holds (the posts and every
revision, the judges' overrides, proxy votes and revote calls), so running ``tally`` twice gives the
same answer and a judge can always show how it came about. The carry-over between days (vote
strikes, the previous round's attendance, proxy votes used, yellow cards) is replayed from day 1
rather than stored, for the same reason. The secret game state (roles, who is out, night counters)
is the engine's, stored as JSON versions (``setup``, ``night N``, ``day N``) by forumbot/gamerecords.py.
"""

from __future__ import annotations

import getpass
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from engine import (
    ROLE_TABLES,
    AttendanceResult,
    AttendanceRules,
    BallotKind,
    DayInput,
    DayResult,
    DayTimes,
    DiscussionPost,
    EngineError,
    GameState,
    Night,
    NightAction,
    OutcomeKind,
    Override,
    Phase,
    PresetTable,
    ProxyVote,
    Resolution,
    RoleId,
    RuleSet,
    Setup,
    VotePost,
    action_from_dict,
    action_to_dict,
    apply_day,
    check_action,
    count_valid_posts,
    double_kill_pair,
    draw_roles,
    get_ruleset,
    judge_day,
    new_game,
    new_night,
    parse_presets,
    plan_revote,
    resolve_extra_check,
    resolve_night,
    resolve_revote,
    round_window,
    split_flags,
    state_from_dict,
    state_to_dict,
    submit,
)
from forumbot import gamerecords as gr
from forumbot.config import DayConfig, Game
from forumbot.errors import ConfigError, GameFileError, UsageError
from forumbot.parsers.votes import Grammar
from forumbot.parsers.votes import vote_posts as to_vote_posts
from forumbot.resources import read_data
from forumbot.store import repo
from forumbot.store.db import Store

_UNDO = re.compile(r"undo #(\d+) ")

OVERRIDE_KINDS = {
    "vote": BallotKind.VOTE,
    "abstain": BallotKind.VOTE,
    "void": BallotKind.VOID,
    "ignore": BallotKind.NOT_A_VOTE,
    "change": BallotKind.CHANGE,
}


def whoami() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "judge"


def role_from_name(family: str, name: str) -> RoleId:
    """A role by its Chinese name (杀手, 鬼匪, 毒药...) or its id (killer, ghost, poison...)."""
    table = ROLE_TABLES[family]
    for rid, spec in table.items():
        if name in (spec.name_zh, rid.value):
            return rid
    known = "、".join(spec.name_zh for spec in table.values())
    raise UsageError(f"unknown role {name!r} for this rule set (known: {known})")


@dataclass(frozen=True)
class DayJudgement:
    """A day's result with what the store said about it (how many posts, which were flagged)."""

    day: DayConfig
    result: DayResult
    attendance: AttendanceResult | None
    state: GameState | None  # the secret state the day started from (None: no setup stored)


class Judge:
    """One game's desk. Open with a loaded game file and an open store; every method is one unit of work."""

    def __init__(self, game: Game, store: Store, *, by: str | None = None) -> None:
        self.game = game
        self.store = store
        self.by = by or whoami()
        gr.create_tables(store.engine)
        try:
            self.ruleset: RuleSet = get_ruleset(game.ruleset)
        except EngineError as exc:
            raise GameFileError(
                str(exc), field="game.ruleset", fix="use R001, R000-GP, R000-G1, R000-G2 or R004"
            ) from exc
        try:
            self.day_flags, self.night_flags = split_flags(game.flags, self.ruleset.flags)
        except EngineError as exc:
            raise GameFileError(
                str(exc), field="flags", fix="see `forumbot flags` for every flag and its values"
            ) from exc
        with store.session() as s:
            self.gid = gr.ensure_game(s, game.name, self.ruleset.id).id or 0
            s.commit()
        self._days: dict[int, DayJudgement] = {}

    def refresh(self) -> None:
        """Forget the judged days: the store has changed (a poll, an override, a revote call)."""
        self._days.clear()

    # ------------------------------------------------------------------ secret state

    @property
    def grammar(self) -> Grammar:
        """The vote grammar of the game's rule set (forumbot/parsers/votes.py reads it)."""
        return cast(Grammar, self.ruleset.grammar)

    def state(self) -> GameState | None:
        with self.store.session() as s:
            found = gr.load_state(s, self.gid)
        return state_from_dict(found[1]) if found else None

    def require_state(self) -> GameState:
        st = self.state()
        if st is None:
            raise UsageError("no roles are stored for this game yet: run `forumbot setup` first")
        return st

    def _live_history(self) -> list[tuple[int, str, datetime]]:
        """The state versions that were not undone (an undo is itself a version, naming the one undone)."""
        rows = self.history()
        undone = {int(m.group(1)) for _, lab, _ in rows if (m := _UNDO.match(lab))}
        return [r for r in rows if r[0] not in undone and not _UNDO.match(r[1])]

    def state_labelled(self, label: str) -> GameState | None:
        wanted = [rid for rid, lab, _ in self._live_history() if lab == label]
        if not wanted:
            return None
        with self.store.session() as s:
            found = gr.load_state_by_id(s, wanted[-1])
        return state_from_dict(found) if found is not None else None

    def undo(self) -> tuple[str, str]:
        """Step the secret state back one version (a night resolved, a day closed, a setup). Nothing is
        deleted: the undo is recorded as a new version. Returns (what was undone, what is current now)."""
        live = self._live_history()
        if len(live) < 2:
            raise UsageError("nothing to undo: the game is at its first stored state (or has none)")
        (last_id, last_label, _), (prev_id, prev_label, _) = live[-1], live[-2]
        with self.store.session() as s:
            data = gr.load_state_by_id(s, prev_id)
            assert data is not None
            gr.save_state(s, self.gid, f"undo #{last_id} ({last_label})", data, self.by)
            s.commit()
        self.refresh()
        return last_label, prev_label

    def save_state(self, label: str, state: GameState) -> None:
        with self.store.session() as s:
            gr.save_state(s, self.gid, label, state_to_dict(state), self.by)
            s.commit()

    def history(self) -> list[tuple[int, str, datetime]]:
        with self.store.session() as s:
            return gr.state_history(s, self.gid)

    # ------------------------------------------------------------------ setup

    def presets(self) -> PresetTable:
        return parse_presets(read_data("rulesets", self.ruleset.presets_file))

    def setup(
        self,
        *,
        seed: int | None = None,
        roles: Mapping[str, str] | None = None,
        variant: str | None = None,
        force: bool = False,
    ) -> Setup | GameState:
        """Draw (or take the judges' own) roles for the roster and store them as the first state."""
        if self.state() is not None and not force:
            raise UsageError(
                "roles are already stored for this game; pass --force to draw again (kept in history)"
            )
        roster = list(self.game.roster)
        if roles is not None:
            missing = [n for n in roster if n not in roles]
            extra = [n for n in roles if n not in roster]
            if missing or extra:
                raise UsageError(
                    "the roles file must name every player once "
                    f"(missing: {missing or '-'}, unknown: {extra or '-'})"
                )
            st = new_game(
                self.ruleset,
                [(n, role_from_name(self.ruleset.family, roles[n])) for n in roster],
                flags=self.night_flags,
            )
            self.save_state("setup (roles given by the judges)", st)
            return st
        if seed is None:
            raise UsageError("give --seed N (recorded, so the draw can be checked) or --roles FILE")
        drawn = draw_roles(
            self.ruleset,
            roster,
            seed=seed,
            preset_table=self.presets(),
            flags=self.night_flags,
            variant=variant,
        )
        self.save_state(f"setup (seed {seed})", drawn.state)
        return drawn

    # ------------------------------------------------------------------ posts → engine inputs

    def _thread_posts(self, tid: int | None) -> list[repo.StoredPost]:
        if tid is None:
            return []
        return repo.thread_posts(self.store, self.game.board, tid)

    def vote_posts(self, day: DayConfig) -> tuple[VotePost, ...]:
        stored = self._thread_posts(day.vote_tid)
        posts = [p.to_post() for p in stored if p.author]
        edited = [p.pid for p in stored if len(p.revisions) > 1]
        return to_vote_posts(
            posts,
            self.grammar,
            self.game.roster,
            require_reason_label=self.day_flags.r004_require_reason_label,
            allow_text_before_format=self.day_flags.r004_allow_text_before_format,
            edited_pids=edited,
        )

    def discussion_posts(self, day: DayConfig) -> list[DiscussionPost]:
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
        if day.discussion_tid is None:
            return None
        window = round_window(day.closes, previous_close=None, case_post_at=day.discussion_opens)
        return count_valid_posts(
            self.discussion_posts(day), self.game.roster, window, self.attendance_rules()
        )

    def overrides(self, day: int) -> tuple[Override, ...]:
        with self.store.session() as s:
            rows = gr.overrides_for(s, self.gid, day)
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
            for _d, player, target, at, by in gr.proxy_votes_for(s, self.gid, day.day):
                out.append(
                    ProxyVote(player, None if target == "弃权" else target, at, by, abstain=target == "弃权")
                )
        return tuple(out)

    # ------------------------------------------------------------------ the day

    def day_start_state(self, n: int) -> GameState | None:
        """The secret state the day began from: after night ``n`` was resolved."""
        return self.state_labelled(f"night {n}")

    def effective_day(self, n: int) -> DayConfig:
        """Day ``n`` with the case post's real time as the opening, when the game file only estimated it.

        The case post opens the vote window (AMB-24). When a day has a discussion thread of its own
        and the file gives no ``opens``, the thread's opening post is the case post.
        """
        day = self.game.day(n)
        if day.opens_given or day.discussion_tid is None:
            return day
        if sum(1 for d in self.game.days if d.discussion_tid == day.discussion_tid) > 1:
            return day  # one thread for several days: its first post opens day 1 only
        first = next((p for p in self._thread_posts(day.discussion_tid) if p.first), None)
        if first is None or not first.posted_at < day.closes:
            return day
        opens = first.posted_at
        return replace(
            day, opens=opens, discussion_opens=opens if n == self.game.days[0].day else day.discussion_opens
        )

    def judge_day(self, n: int, *, as_of: datetime | None = None) -> DayJudgement:
        """Judge day ``n`` from the store: the original count, then every revote the judges called."""
        if as_of is None and n in self._days:
            return self._days[n]
        day = self.effective_day(n)
        prev = self.judge_day(n - 1).result if n > 1 and any(d.day == n - 1 for d in self.game.days) else None
        state = self.day_start_state(n)
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
        result = judge_day(inp, as_of=as_of)
        if as_of is None:
            with self.store.session() as s:
                calls = gr.revotes_for(s, self.gid, n)
            for number, _plan, called_at in calls:
                if result.outcome.kind is not OutcomeKind.REVOTE or result.outcome.plan is None:
                    break
                if result.outcome.plan.number != number:
                    break
                plan = plan_revote(result, called_at)
                result = resolve_revote(result, plan, inp.posts, overrides=inp.overrides)
        judged = DayJudgement(day, result, attendance, state)
        if as_of is None:
            self._days[n] = judged
        return judged

    def state_before_night(self, n: int) -> GameState | None:
        if n == 1:
            hist = [lab for _, lab, _ in self.history() if lab.startswith("setup")]
            return self.state_labelled(hist[-1]) if hist else None
        return self.state_labelled(f"day {n - 1}")

    def _eliminated_before(self, n: int) -> frozenset[str]:
        """Without a stored setup: who the earlier days' results removed (executions and drownings)."""
        gone: set[str] = set()
        for d in self.game.days:
            if d.day >= n:
                break
            r = self.judge_day(d.day).result
            gone |= set(r.executed) | set(r.drowned_names)
        return frozenset(gone)

    def call_revote(self, n: int, called_at: datetime) -> DayJudgement:
        judged = self.judge_day(n)
        r = judged.result
        if r.outcome.kind is not OutcomeKind.REVOTE or r.outcome.plan is None:
            raise UsageError(f"day {n} is not waiting for a revote ({r.outcome.text or r.outcome.kind})")
        plan = plan_revote(r, called_at)
        with self.store.session() as s:
            gr.save_revote(
                s,
                self.gid,
                n,
                plan.number,
                {"candidates": list(plan.candidates), "participants": list(plan.participants)},
                called_at,
            )
            s.commit()
        self._days.pop(n, None)
        return self.judge_day(n)

    def day_of_vote_post(self, pid: int) -> int:
        """The day whose vote thread holds ``pid`` (the first such day when a thread serves several)."""
        for d in self.game.days:
            if d.vote_tid is not None and any(p.pid == pid for p in self._thread_posts(d.vote_tid)):
                return d.day
        raise UsageError(
            f"pid {pid} is in none of the game's vote threads in the store; "
            "run `forumbot poll` first, or check the pid"
        )

    def add_override(self, n: int, pid: int, as_kind: str, target: str | None, why: str) -> gr.OverrideRecord:
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
            rec = gr.add_override(s, self.gid, n, pid, as_kind, target, why, self.by)
            s.commit()
        self._days.clear()
        return rec

    def add_proxy_vote(self, n: int, player: str, target: str, at: datetime) -> None:
        self.game.day(n)
        for name in (player, target):
            if name != "弃权" and name not in self.game.roster:
                raise UsageError(f"{name!r} is not in the roster (names match exactly)")
        with self.store.session() as s:
            gr.add_proxy_vote(s, self.gid, n, player, target, at, self.by)
            s.commit()
        self._days.clear()

    def preview_day(self, judged: DayJudgement) -> Resolution | None:
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
        judged = self.judge_day(n)
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

    # ------------------------------------------------------------------ the night

    def night_deadline(self, n: int) -> datetime:
        """Night ``n``'s submissions are due at the deadline that follows day ``n - 1`` (night 1: the
        timetable's first night)."""
        if n > 1:
            return self.game.day(n - 1).night_deadline
        if self.game.night1_deadline is None:
            raise ConfigError(
                "no deadline for night 1", field="timetable.first_night", fix='first_night = "2026-06-03"'
            )
        return self.game.night1_deadline

    def submit_action(self, n: int, action: NightAction, submitted_at: datetime) -> bool:
        """Check the action against the state now and store it. Returns whether it came late."""
        st = self.require_state()
        if st.phase is not Phase.NIGHT or st.round != n:
            raise UsageError(f"the game is at {st.phase.value} {st.round}, not night {n}")
        check_action(st, action)
        with self.store.session() as s:
            gr.add_night_submission(s, self.gid, n, action_to_dict(action), submitted_at, self.by)
            s.commit()
        return submitted_at > self.night_deadline(n)

    def night(self, n: int) -> tuple[GameState, Night]:
        st = self.require_state()
        night = new_night(st)
        with self.store.session() as s:
            subs = gr.night_submissions(s, self.gid, n)
        deadline = self.night_deadline(n)
        for data, at in subs:
            night = submit(st, night, action_from_dict(data), late=at > deadline)
        return st, night

    def extra_check(
        self, n: int, target: str, at: datetime, *, result_at: datetime | None = None
    ) -> Resolution:
        """R001: the police's extra check after checking the poison (AMB-15). It is late when submitted
        more than the flag's window after the first result reached the police (default: the moment
        night ``n`` was resolved here)."""
        resolved = [when for _, label, when in self._live_history() if label == f"night {n}"]
        if not resolved:
            raise UsageError(f"night {n} is not resolved yet")
        start = result_at or resolved[-1]
        late = (at - start).total_seconds() > self.night_flags.gp_extra_check_window_minutes * 60
        res = resolve_extra_check(self.require_state(), target, late=late)
        self.save_state(f"night {n} extra check", res.state)
        return res

    def resolve_night(self, n: int, *, seed: int | None = None) -> Resolution:
        st, night = self.night(n)
        if st.phase is not Phase.NIGHT or st.round != n:
            raise UsageError(f"the game is at {st.phase.value} {st.round}, not night {n}")
        res = resolve_night(st, night, seed=seed)
        self.save_state(f"night {n}", res.state)
        self._days.clear()
        return res


def describe_state(st: GameState) -> dict[str, Any]:
    """The judge's view of the secret state (roles included): for ``forumbot state``."""
    table = ROLE_TABLES[st.family]
    return {
        "ruleset": st.ruleset_id,
        "phase": f"{st.phase.value} {st.round}",
        "outcome": None if st.outcome is None else str(st.outcome),
        "players": [
            {
                "name": p.name,
                "role": table[p.role].name_zh,
                "alive": p.alive,
                "out": None if p.alive else f"{p.cause.value if p.cause else '?'} ({p.out_round})",
                "possessed": p.possessed,
                "converted": p.converted,
            }
            for p in st.players
        ],
        "strikes": dict(st.strikes),
        "counters": {k: v for k, v in state_to_dict(st).items() if k not in ("players", "flags")},
    }
