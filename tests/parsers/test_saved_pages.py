"""Saved pages and their reviewed expectations, one test per pair (recipe-scrapers style).

The pages under pages/ are small hand-written pages following the real Discuz! X3.5 (and X3.2 touch)
markup, covering what the captured boards never showed: banned/blocked/author-only/password/[hide]/
pending posts, jammer noise, anonymous and deleted authors, blacklisted posts, GBK bytes with
gb18030-only characters, double-escaped entities, every relative time form, rewritten URLs.
To add a page: write it, run save_expected.py on it, review the JSON, commit both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.parsers.save_expected import expected_path, parse_saved

PAGES = Path(__file__).parent / "pages"
SAVED = sorted(
    p for p in PAGES.iterdir() if p.suffix in (".html", ".json", ".xml") and expected_path(p).exists()
)


def _load(page: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(expected_path(page).read_text(encoding="utf-8"))
    return data


def test_every_saved_page_has_an_expectation() -> None:
    pages = [p for p in PAGES.iterdir() if p.is_file() and not p.name.endswith(".expected.json")]
    assert sorted(pages) == SAVED
    assert len(SAVED) >= 9


@pytest.mark.parametrize("page", SAVED, ids=lambda p: p.name)
def test_saved_page_matches_its_expectation(page: Path) -> None:
    saved = _load(page)
    assert parse_saved(page, saved["request"]) == saved["expected"]


@pytest.mark.parametrize("page", SAVED, ids=lambda p: p.name)
def test_saved_pages_read_without_problems(page: Path) -> None:
    expected = _load(page)["expected"]
    assert "error" not in expected
    assert expected.get("problems", []) == []
