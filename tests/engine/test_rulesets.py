"""The rule-set registry: ids, aliases (Chinese names included), day procedures and flag defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import (
    ROLE_TABLES,
    ActionKind,
    NightFlags,
    RoleId,
    UnknownRuleSetError,
    all_rulesets,
    get_ruleset,
    parse_presets,
)


@pytest.mark.parametrize(
    ("name", "rid"),
    [
        ("R001", "R001"),
        ("r001", "R001"),
        ("001", "R001"),
        ("鬼毒", "R001"),
        ("12人鬼毒", "R001"),
        ("R000-GP", "R000-GP"),
        ("r000gp", "R000-GP"),
        ("鬼匪/毒药", "R000-GP"),
        ("R000-G1", "R000-G1"),
        ("守护神", "R000-G1"),
        ("R000-G2", "R000-G2"),
        ("双守护", "R000-G2"),
        ("R004", "R004"),
        ("004", "R004"),
        ("杀人游戏", "R004"),
        ("Ｒ００４", "R004"),
        (" 杀人游戏 ", "R004"),
    ],
)
def test_rule_sets_are_found_by_id_alias_or_chinese_name(name: str, rid: str) -> None:
    assert get_ruleset(name).id == rid


def test_unknown_rule_set_lists_the_known_ones() -> None:
    with pytest.raises(UnknownRuleSetError, match="R004"):
        get_ruleset("狼人杀")


def test_day_procedure_of_each_rule_set() -> None:
    """The R000 variants run on R001's cycle, voting and ties (AMB-49)."""
    procs = {rs.id: rs.family for rs in all_rulesets()}
    assert procs == {"R001": "r001", "R000-GP": "r001", "R000-G1": "r001", "R000-G2": "r001", "R004": "r004"}
    assert {rs.id: rs.win_check_timing for rs in all_rulesets()}["R004"] == "per_elimination"


def test_condition_2_is_on_for_r001_and_off_for_the_r000_variants() -> None:
    """AMB-02: the rule set supplies the default."""
    assert get_ruleset("R001").flags.r001_condition2_enabled is True
    for rid in ("R000-GP", "R000-G1", "R000-G2"):
        assert get_ruleset(rid).flags.r001_condition2_enabled is False
    assert get_ruleset("R004").flags == NightFlags()


def test_r004_uses_all_twelve_roles_and_each_role_row_is_complete() -> None:
    assert len(get_ruleset("R004").roles) == 12
    for family, table in ROLE_TABLES.items():
        for rid, spec in table.items():
            assert spec.id is rid and spec.name_zh and spec.check_label, (family, rid)
    assert ROLE_TABLES["r004"][RoleId.KIDNAPPER].night_actions == (
        ActionKind.KIDNAP,
        ActionKind.KILL_HOSTAGES,
    )
    assert ROLE_TABLES["r004"][RoleId.MAYOR].night_actions == ()
    counted = {r for r, s in ROLE_TABLES["r004"].items() if s.counted}
    assert RoleId.TERRORIST not in counted and RoleId.CUPID not in counted


def test_each_rule_set_names_its_presets_file_and_the_file_names_it_back() -> None:
    data = Path(__file__).resolve().parents[2] / "data" / "rulesets"
    for rs in all_rulesets():
        table = parse_presets((data / rs.presets_file).read_text("utf-8"))
        assert get_ruleset(table.ruleset_id) is rs
