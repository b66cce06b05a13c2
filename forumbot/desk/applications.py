"""R004 delay and acceleration applications (延时/加速申请): from the day's process thread (进程帖) to the
day's close and accelerated state.

The game file names the thread per day (``[[days]] process = TID``). What the game file says about the
day (``close``, ``accelerated``) still wins: the applications set only what it leaves out, and the
director's own acceleration (``accelerated = true | "moment"``) is the engine's input (AMB-82). Living
roles are the secret state's (after the night before the day), else the roster less the known dead.
"""

from __future__ import annotations

from dataclasses import replace

from engine import (
    ApplicationsInput,
    ApplicationsResult,
    judge_applications,
)
from forumbot.config import DayConfig
from forumbot.desk.core import DeskCore
from forumbot.parsers.applications import application_posts


class ApplicationSteps(DeskCore):
    def applications(self, day: DayConfig) -> ApplicationsResult | None:
        """The day's applications judged (None: not R004, or no process thread in the game file)."""
        if not self.ruleset.has_applications or day.process_tid is None:
            return None
        stored = self.threads.posts(self.game.board, day.process_tid)  # a process thread is short
        found = application_posts([p.to_post() for p in stored], judges=self.game.judges)
        auto = (
            day.accelerated_at if day.accelerated_at is not None else (day.opens if day.accelerated else None)
        )
        return judge_applications(
            ApplicationsInput(
                posts=found,
                living=self._living_on(day),
                roster=self.game.roster,
                opens=day.opens,
                close=day.closes,
                auto_accelerated_at=auto,
                flags=self.day_flags,
                display_tz=self.game.tz,
            )
        )

    def _living_on(self, day: DayConfig) -> frozenset[str]:
        state = self.state_labelled(f"night {day.day}")
        if state is not None:
            return frozenset(state.living())
        dead = {name for d in self.game.days if d.day <= day.day for name in d.dead}
        gone = {name for d in self.game.days if d.day < day.day for name in d.red_cards}
        return frozenset(self.game.roster) - dead - gone

    def with_applications(self, day: DayConfig) -> DayConfig:
        """``day`` with the close and the accelerated state the applications decided, where the game file
        is silent. The cutoffs derived from the close move with it."""
        result = self.applications(day)
        if result is None:
            return day
        changes: dict[str, object] = {}
        shift = result.close - day.closes
        if "close" not in day.given and shift:
            changes["closes"] = result.close
            for key, attr in (
                ("void_cutoff", "void_cutoff"),
                ("change_cutoff", "change_cutoff"),
                ("night_deadline", "night_deadline"),
            ):
                if key not in day.given:
                    changes[attr] = getattr(day, attr) + shift
        if "accelerated" not in day.given:
            changes["accelerated"] = False
            changes["accelerated_at"] = result.accelerated_at
            changes["accelerated_until"] = result.acceleration_ended_at
        return replace(day, **changes) if changes else day  # type: ignore[arg-type]
