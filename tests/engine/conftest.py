"""Fixtures for the engine tests: preset TOML text read from the repository (the engine reads no files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import (
    PresetTable,
    parse_presets,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
RULESET_DATA = REPO_ROOT / "data" / "rulesets"


def read_preset_text(name: str) -> str:
    return (RULESET_DATA / f"{name}.toml").read_text("utf-8")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def preset_text() -> dict[str, str]:
    """The text of every data/rulesets/*.toml, by file stem (r001, r004, r000_gp, ...)."""
    return {p.stem: p.read_text("utf-8") for p in sorted(RULESET_DATA.glob("*.toml"))}


@pytest.fixture(scope="session")
def r004_presets() -> PresetTable:
    return parse_presets(read_preset_text("r004"))


@pytest.fixture(scope="session")
def r001_presets() -> PresetTable:
    return parse_presets(read_preset_text("r001"))
