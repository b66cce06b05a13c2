"""The night: submissions checked against the rules when they come in, stored, and resolved in the rule
set's order; R001's extra check for the police.

Night actions are the engine's (``engine.ACTION_KINDS`` is the one table of kinds); this module
only turns what a judge types (CLI flags, a TOML ``[[submissions]]`` entry) into one of them.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine import (
    ACTION_KINDS,
    ActionKind,
    Arrow,
    GameState,
    Kill,
    KillHostages,
    Night,
    NightAction,
    Phase,
    Protect,
    Resolution,
    action_from_dict,
    action_to_dict,
    check_action,
    new_night,
    resolve_extra_check,
    resolve_night,
    submit,
)
from forumbot.config import parse_local_time
from forumbot.desk.applications import ApplicationSteps
from forumbot.errors import ConfigError, UsageError
from forumbot.store import records

# Every night action kind, in the engine's order (the CLI's choices).
NIGHT_ACTION_KINDS: tuple[str, ...] = tuple(kind.value for kind in ACTION_KINDS)


def action_from_fields(kind: str, f: Mapping[str, Any]) -> NightAction:
    """A night action from the fields a judge types (CLI flags or a TOML [[submissions]] entry)."""
    by = f.get("by")
    target = f.get("target")

    def need(key: str) -> Any:
        if not f.get(key):
            raise UsageError(f"a {kind} submission needs {key}")
        return f[key]

    if kind == ActionKind.KILL:
        return Kill(
            victim=target,
            pledge=f.get("pledge"),
            possess=f.get("possess"),
            text=f.get("kill_text") or "",
            by=by,
        )
    if kind == ActionKind.PROTECT:
        return Protect(guardian=need("by"), target=target)
    if kind == ActionKind.KILL_HOSTAGES:
        order = f.get("order")
        return KillHostages(order=tuple(order) if order else None, by=by)
    if kind == ActionKind.ARROW:
        return Arrow(first=need("first"), second=need("second"), by=by)
    if kind not in NIGHT_ACTION_KINDS:
        raise UsageError(f"unknown night action {kind!r} (one of {', '.join(NIGHT_ACTION_KINDS)})")
    action: NightAction = ACTION_KINDS[ActionKind(kind)].cls(target=need("target"), by=by)
    return action


def read_submissions(path: Path) -> list[dict[str, Any]]:
    """The [[submissions]] of a night file (kind, by, target, pledge, possess, kill_text, at ...)."""
    entries = list(tomllib.loads(path.read_text("utf-8")).get("submissions", []))
    if not entries:
        raise UsageError(f"{path}: no [[submissions]] entries")
    return entries


class NightSteps(ApplicationSteps):
    def night_deadline(self, n: int) -> datetime:
        """Night ``n``'s submissions are due at the deadline that follows day ``n - 1`` (night 1: the
        timetable's first night). R004: a granted delay or acceleration moves it with the close."""
        if n > 1:
            return self.with_applications(self.game.day(n - 1)).night_deadline
        if self.game.night1_deadline is None:
            raise ConfigError(
                "no deadline for night 1", field="timetable.first_night", fix='first_night = "2026-06-03"'
            )
        return self.game.night1_deadline

    def night_submit(self, n: int, action: NightAction, submitted_at: datetime) -> bool:
        """Check the action against the state now and store it. Returns whether it came late."""
        st = self.require_state()
        if st.phase is not Phase.NIGHT or st.round != n:
            raise UsageError(f"the game is at {st.phase.value} {st.round}, not night {n}")
        check_action(st, action)
        with self.store.session() as s:
            records.add_night_submission(s, self.gid, n, action_to_dict(action), submitted_at, self.by)
            s.commit()
        return submitted_at > self.night_deadline(n)

    def night_entries(self, n: int, entries: list[dict[str, Any]]) -> list[tuple[str, bool]]:
        """Check and store each typed submission (see :func:`action_from_fields`); (what, late) for
        each. A missing ``at`` means now; ``at`` is wall-clock in the game's time zone."""
        done = []
        for e in entries:
            action = action_from_fields(str(e.get("kind")), e)
            text = e.get("at")
            at = (
                datetime.now(UTC)
                if text is None
                else parse_local_time(text, self.game.tz, "night submission at")
            )
            done.append((f"{e.get('kind')} by {e.get('by') or '-'}", self.night_submit(n, action, at)))
        return done

    def night(self, n: int) -> tuple[GameState, Night]:
        """The current state and night ``n``'s stored submissions, as the engine holds them."""
        st = self.require_state()
        night = new_night(st)
        with self.store.session() as s:
            subs = records.night_submissions(s, self.gid, n)
        deadline = self.night_deadline(n)
        for data, at in subs:
            night = submit(st, night, action_from_dict(data), late=at > deadline)
        return st, night

    def night_extra_check(
        self, n: int, target: str, at: datetime, *, result_at: datetime | None = None
    ) -> Resolution:
        """R001: the police's extra check after checking the poison (AMB-15). It is late when submitted
        more than the flag's window after the first result reached the police (default: the moment
        night ``n`` was resolved here)."""
        resolved = self.resolved_at(f"night {n}")
        if resolved is None:
            raise UsageError(f"night {n} is not resolved yet")
        start = result_at or resolved
        late = (at - start).total_seconds() > self.night_flags.gp_extra_check_window_minutes * 60
        res = resolve_extra_check(self.require_state(), target, late=late)
        self.save_state(f"night {n} extra check", res.state)
        return res

    def night_resolve(self, n: int, *, seed: int | None = None) -> Resolution:
        """Resolve night ``n`` in the rule set's order and store the state as version ``night N``."""
        st, night = self.night(n)
        if st.phase is not Phase.NIGHT or st.round != n:
            raise UsageError(f"the game is at {st.phase.value} {st.round}, not night {n}")
        res = resolve_night(st, night, seed=seed)
        self.save_state(f"night {n}", res.state)
        self._days.clear()
        return res
