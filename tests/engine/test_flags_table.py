"""Every ambiguity of the register (rules.md §h) is accounted for: a flag defaulting to our reading, or a
documented fixed reading / game-file setting. A game file's [flags] table is checked by name."""

from __future__ import annotations

import re

import pytest

from engine import (
    StateError,
    all_flags,
    split_flags,
)

REGISTER = (
    [f"AMB-{n:02d}" for n in range(1, 19)]
    + [f"AMB-{n}" for n in range(20, 34)]
    + [f"AMB-{n}" for n in range(40, 51)]
    + ["AMB-52", "AMB-60", "AMB-61"]
    + [f"AMB-{n}" for n in range(63, 90)]
)


def test_the_register_has_73_ids_and_every_one_is_in_the_flag_table() -> None:
    assert len(REGISTER) == 73
    listed = {a for row in all_flags() for a in re.findall(r"AMB-\d+", row.amb)}
    assert sorted(set(REGISTER) - listed) == []


def test_every_switch_names_its_ambiguity_and_has_a_default() -> None:
    for row in all_flags(with_other_readings=False):
        assert row.amb, row.name
        assert row.side in ("day", "night", "both")


def test_flags_are_set_by_name_on_their_side() -> None:
    day, night = split_flags({"r004_yellow_to_red": 2, "r004_empty_heal_counter": "per_doctor"})
    assert day.r004_yellow_to_red == 2
    assert night.r004_empty_heal_counter == "per_doctor"


def test_a_flag_on_both_sides_is_set_on_both() -> None:
    day, night = split_flags({"r004_mayor_target_must_be_tied": True})
    assert day.r004_mayor_target_must_be_tied and night.r004_mayor_target_must_be_tied


def test_an_unknown_flag_is_an_error_not_silently_ignored() -> None:
    with pytest.raises(StateError, match="unknown flag"):
        split_flags({"r004_yelow_to_red": 2})
