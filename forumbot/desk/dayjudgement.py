"""A day's judgement as the desk hands it to every face: the engine's result and what the store said.

Why a module of its own: the desk's core caches judged days (desk/core.py) and the day's steps make
them (desk/day.py), which stand on the core; kept in day.py, the record made the core import the day.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import AttendanceResult, DayResult, GameState, Verdict
from forumbot.config import DayConfig
from forumbot.desk.rounds import DayRound, day_rounds, final_verdicts


@dataclass(frozen=True)
class DayJudgement:
    """A day's result with what the store said about it (how many posts, which were flagged)."""

    day: DayConfig
    result: DayResult
    attendance: AttendanceResult | None
    state: GameState | None  # the secret state the day started from (None: no setup stored)
    # Why the store cannot vouch for this judgement (issue 8, "judge only what was read"): one Chinese
    # reason per thread of the day that was not read completely after the moment judged (the close,
    # the last revote's deadline, or the ``--at`` moment). Empty: every thread was.
    read_reasons: tuple[str, ...] = ()

    @property
    def running(self) -> bool:
        """A running count (``tally --at``): never a verdict."""
        return self.result.as_of is not None

    @property
    def provisional(self) -> bool:
        """Not a final verdict: a running count, or a day whose threads were not read completely."""
        return self.result.provisional or bool(self.read_reasons)

    @property
    def verdicts(self) -> list[Verdict]:
        """One verdict per post, each in the round it belongs to (desk/rounds.py): what every face shows."""
        return final_verdicts(self.result)

    def rounds(self, judges: frozenset[str] = frozenset()) -> tuple[DayRound, ...]:
        """The day by round: each round's posts, tally, chart moves and ⚑ items (desk/rounds.py)."""
        return day_rounds(self.result, judges)

    @property
    def provisional_reasons(self) -> tuple[str, ...]:
        """Why the judgement is not final, in Chinese (the judge's table and JSON)."""
        out = list(self.read_reasons)
        if self.running and self.result.as_of is not None:
            out.insert(0, "这是截至某一时刻的实时统计，不是最终结果")
        return tuple(out)
