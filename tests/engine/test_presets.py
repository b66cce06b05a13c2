"""R004 presets (C-110 is the spec), R001/R000 setups, and the preset TOML parser.

“脑杀可行的身份配置 … 24人及以上：以20~23人局为标准，每增加4人，再增加杀手 警察 平民×2，不超过35人。”
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest

from engine import (
    NightFlags,
    PresetError,
    PresetTable,
    RoleId,
    SetupError,
    parse_presets,
    role_id,
)
from tests.engine.helpers import CASES_DIR

C110 = tomllib.loads((CASES_DIR / "c110_presets.toml").read_text("utf-8"))["preset"]


def _cells(*cells: str) -> tuple[dict[RoleId, int], int | None, bool]:
    """Role counts, X and whether the spy counts, from C-110 table cells (医生/花蝴蝶 → doctor)."""
    counts: dict[RoleId, int] = {}
    bullets: int | None = None
    spy_counted = True
    for token in " ".join(cells).split():
        m = re.fullmatch(r"(.+?)(?:×(\d+))?(?:\(X=(\d)\))?(\(不算轮次\))?(\*)?", token)
        assert m, token
        name, count, x, uncounted, _ = m.groups()
        if x:
            bullets = int(x)
        if uncounted:
            spy_counted = False
        rid = RoleId.DOCTOR if name == "医生/花蝴蝶" else role_id("r004", name)
        counts[rid] = counts.get(rid, 0) + int(count or 1)
    return counts, bullets, spy_counted


@pytest.mark.parametrize("row", C110, ids=[str(r["players"]) for r in C110])
def test_c110_preset_for_each_size_18_to_35(r004_presets: PresetTable, row: dict[str, Any]) -> None:
    comp = r004_presets.composition(row["players"])
    counts, bullets, spy_counted = _cells(row["killer"], row["civilian"])
    assert dict(comp.roles) == counts
    assert comp.total == row["total"] == row["players"]
    assert comp.sniper_bullets == bullets
    assert comp.spy_counted is spy_counted
    assert comp.counted_killers == row["kc"], "KC = counted killer-camp roles = last-words slots L"
    assert comp.gods == row["gods"]
    assert comp.killer_camp == row["killer_camp"]
    base, _, m = row["built_from"].partition("+")
    assert comp.built_from.split("+")[0] == base
    assert comp.built_from.startswith(f"{base}+{m}×") if m != "0" else comp.built_from == base
    assert bool(comp.warnings) is ("市长*" in row["civilian"])


def test_21_player_line_as_written_adds_up_to_20_and_mayor_is_added_with_a_warning(
    r004_presets: PresetTable,
) -> None:
    """AMB-78: “21人局：杀手×3 狙击手（X=1） 间谍 警察×3 医生/花蝴蝶 平民×10 恐怖分子” lists 20 roles."""
    assert sum(r004_presets.presets[21].roles.values()) == 20
    comp = r004_presets.composition(21)
    assert comp.count(RoleId.MAYOR) == 1
    assert any("AMB-78" in w for w in comp.warnings)


@pytest.mark.parametrize("n", [21, 25, 29, 33])
def test_21_player_alternative_reading_adds_an_11th_civilian(r004_presets: PresetTable, n: int) -> None:
    flags = NightFlags(r004_preset21_missing_role="civilian")
    comp = r004_presets.composition(n, flags=flags)
    assert comp.count(RoleId.MAYOR) == 0
    assert comp.gods == {21: 4, 25: 5, 29: 6, 33: 7}[n]
    assert comp.count(RoleId.CIVILIAN) == 11 + 2 * ((n - 20) // 4)
    assert r004_presets.composition(n, missing_role="civilian") == comp


def test_doctor_or_butterfly_is_one_role_chosen_by_the_director(r004_presets: PresetTable) -> None:
    """AMB-70: “医生/花蝴蝶” means exactly one of the two."""
    doc = r004_presets.composition(22)
    bf = r004_presets.composition(22, doctor_or_butterfly="butterfly")
    assert (doc.count(RoleId.DOCTOR), doc.count(RoleId.BUTTERFLY)) == (1, 0)
    assert (bf.count(RoleId.DOCTOR), bf.count(RoleId.BUTTERFLY)) == (0, 1)
    assert r004_presets.composition(22, flags=NightFlags(r004_doctor_or_butterfly="butterfly")) == bf
    with pytest.raises(SetupError):
        r004_presets.composition(22, doctor_or_butterfly="nurse")


@pytest.mark.parametrize("n", [0, 12, 17, 36, 40])
def test_sizes_below_18_or_above_35_are_refused(r004_presets: PresetTable, n: int) -> None:
    """AMB-79: “不超过35人”; below 18 is undefined."""
    with pytest.raises(SetupError, match="18–35 人局"):
        r004_presets.composition(n)


def test_r004_table_lists_every_size_from_18_to_35(r004_presets: PresetTable) -> None:
    assert r004_presets.sizes() == tuple(range(18, 36))


def test_r001_twelve_player_setup(r001_presets: PresetTable) -> None:
    """R001 §一: “共12人。2警察、2杀手（含1鬼匪）、1毒药、7平民。”"""
    comp = r001_presets.composition(12)
    assert dict(comp.roles) == {RoleId.POLICE: 2, RoleId.BANDIT: 2, RoleId.POISON: 1, RoleId.CIVILIAN: 7}
    assert comp.ghost_from_bandits == 1
    with pytest.raises(SetupError):
        r001_presets.composition(13)


def test_every_ruleset_data_file_parses(preset_text: dict[str, str]) -> None:
    assert set(preset_text) >= {"r001", "r004", "r000_gp", "r000_g1", "r000_g2"}
    for text in preset_text.values():
        table = parse_presets(text)
        for n in table.sizes():
            assert table.composition(n).total == n


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not toml = = 1", "does not parse"),
        ("min_players = 1\nmax_players = 2\n[presets.1]\nroles = {}", "missing 'ruleset'"),
        (
            'ruleset = "R004"\nmin_players = 18\nmax_players = 18\n[presets.18]\nroles = { wizard = 18 }',
            "unknown role",
        ),
        (
            'ruleset = "R004"\nmin_players = 18\nmax_players = 18\n[presets.18]\nroles = { civilian = 17 }',
            "add up to 17",
        ),
        (
            'ruleset = "R004"\nmin_players = 1\nmax_players = 1\n[presets.x]\nroles = { civilian = 1 }',
            "player count",
        ),
        ('ruleset = "R004"\nmin_players = "a"\nmax_players = 1\npresets = {}', "must be int"),
        (
            'ruleset = "R004"\nmin_players = 1\nmax_players = 9\n[growth]\nbase = [5]\nstep = 4\nadd = {}\n'
            "[presets.1]\nroles = { civilian = 1 }",
            "base size 5",
        ),
    ],
)
def test_bad_preset_data_is_refused_with_the_field_named(text: str, message: str) -> None:
    with pytest.raises(PresetError, match=re.escape(message)):
        parse_presets(text)
