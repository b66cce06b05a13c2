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

__all__ = ["FlagRow", "all_flags", "split_flags"]


@dataclass(frozen=True, slots=True)
class FlagRow:
    name: str
    side: str  # "day", "night" or "both"
    default: Any
    amb: str
    doc: str


def all_flags(night_defaults: NightFlags | None = None) -> tuple[FlagRow, ...]:
    """Every flag, day ones first, with its default (a rule set may pass its own night defaults)."""
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
