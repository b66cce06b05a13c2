"""The worked cases of cases.md (Parts 3–8), and more cases for the rules they do not show, as data.

Each case in cases/*.toml is a start state, steps (submissions, votes' results) and expectations
(events by audience, the out-list, the outcome). See cases/README.md.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.helpers import load_cases, run_case

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']}:{c['title'][:60]}" for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    run_case(case)


def test_case_ids_are_unique() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
