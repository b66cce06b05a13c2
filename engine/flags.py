"""Every reading of the rules the sources leave open, as one table: the day flags and the night flags.

Each flag's default is the proposal of the ambiguity register (rules.md §h); its metadata names the
``AMB-nn`` id. A game file's ``[flags]`` table sets any of them by name; a name that is neither a day
nor a night flag is an error, never silently ignored. Three names exist on both sides (the guardian
double-kill rule, the mayor's tie target, the red card's last-words slot): one setting sets both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from engine.errors import StateError
from engine.flags_day import DayFlags
from engine.flags_night import NightFlags, flags_from_dict

__all__ = ["OTHER_READINGS", "FlagRow", "all_flags", "split_flags"]


@dataclass(frozen=True, slots=True)
class FlagRow:
    name: str
    side: str  # "day", "night" or "both"
    default: Any
    amb: str
    doc: str


# Readings of the register that are not switches: either the register gives no alternative (the
# reading follows from the text), or the judges set them in the game file rather than as a flag.
# They are listed with the flags so that ``forumbot flags`` accounts for every AMB id.
OTHER_READINGS: tuple[FlagRow, ...] = (
    FlagRow(
        "(fixed) possession after the ghost dies",
        "fixed",
        "not executed",
        "AMB-09",
        "Kills resolve first; a ghost who died in the kill step (victim or pledge) does not possess.",
    ),
    FlagRow(
        "(fixed) drowned voters",
        "fixed",
        "void, not scattered, no revote",
        "AMB-26",
        "Players drowned this round have their votes voided, are not scattered and do not revote; they "
        "stay votable and may be tie candidates.",
    ),
    FlagRow(
        "(fixed) zero valid votes (R001)",
        "fixed",
        "平安夜，无人票死; strikes apply",
        "AMB-29",
        "Nobody is executed and there is no revote; vote strikes still apply.",
    ),
    FlagRow(
        "(game file) police last words",
        "config",
        "until posted or the next night deadline",
        "AMB-31",
        "The check result and the case post wait for an executed officer's last words, at most until the "
        "next night's deadline ([[days]] night_deadline): engine.last_words_windows / held_until; the "
        "desk reads his first post in [讨论] after the close (desk.last_words).",
    ),
    FlagRow(
        "(game file) R004 sizes 24–35",
        "config",
        "20–23 preset by N mod 4 + m×(杀手,警察,平民×2)",
        "AMB-79",
        "data/rulesets/r004.toml [growth]; sizes below 18 or above 35 are refused.",
    ),
    FlagRow(
        "(game file) acceleration",
        "config",
        "declared by the judges",
        "AMB-82",
        '[[days]] accelerated = true | "moment" and close = "..." (the director\'s own acceleration and '
        "close win); otherwise the process thread's applications ([[days]] process = TID) decide "
        "(engine.judge_applications; flags r004_acceleration_shortens_days, r004_delay_extends_days, "
        "r004_application_withdrawal).",
    ),
    FlagRow(
        "(game file) R004 closing time",
        "config",
        "21:00",
        "AMB-85",
        "[timetable] vote_close (21:00 for R004, 13:00 for R001), or a day's close.",
    ),
    FlagRow(
        "(fixed) zero valid votes (R004)",
        "fixed",
        "nobody out",
        "AMB-86",
        "No valid vote at all: nobody is out.",
    ),
    FlagRow(
        "(fixed) 威权 holder's tie vote",
        "fixed",
        "final valid vote; none or 弃权 ⇒ nobody out",
        "AMB-87",
        "The holder's final valid vote decides a tie; no post, an invalid vote or 弃权 ⇒ nobody is out.",
    ),
)


def all_flags(
    night_defaults: NightFlags | None = None, *, with_other_readings: bool = True
) -> tuple[FlagRow, ...]:
    """Every flag, day ones first, with its default (a rule set may pass its own night defaults), then
    the readings that are not switches (OTHER_READINGS)."""
    night = night_defaults or NightFlags()
    day_fields = {f.name: f for f in fields(DayFlags)}
    night_fields = {f.name: f for f in fields(NightFlags)}
    rows: list[FlagRow] = []
    for name, f in day_fields.items():
        side = "both" if name in night_fields else "day"
        rows.append(FlagRow(name, side, f.default, f.metadata.get("amb", ""), f.metadata.get("doc", "")))
    for name, f in night_fields.items():
        if name in day_fields:
            continue
        default = getattr(night, name)
        rows.append(
            FlagRow(
                name,
                "night",
                list(default) if isinstance(default, tuple) else default,
                f.metadata.get("amb", ""),
                f.metadata.get("doc", ""),
            )
        )
    if with_other_readings:
        rows += OTHER_READINGS
    return tuple(rows)


def split_flags(
    settings: Mapping[str, Any], night_base: NightFlags | None = None
) -> tuple[DayFlags, NightFlags]:
    """Apply ``settings`` (flag name → value) to the defaults; raise StateError on an unknown name."""
    day_names = {f.name for f in fields(DayFlags)}
    night_names = {f.name for f in fields(NightFlags)}
    unknown = sorted(set(settings) - day_names - night_names)
    if unknown:
        raise StateError(f"unknown flag(s): {', '.join(unknown)} (see `forumbot flags` for the list)")
    day_kwargs = {k: v for k, v in settings.items() if k in day_names}
    night_kwargs = {k: v for k, v in settings.items() if k in night_names}
    try:
        day = replace(DayFlags(), **day_kwargs)
    except (TypeError, ValueError) as exc:
        raise StateError(f"bad day flag value: {exc}") from exc
    night = flags_from_dict(night_kwargs, base=night_base or NightFlags())
    return day, night
