"""The order the suite's modules run in under pytest-xdist's ``--dist worksteal`` (tests/conftest.py).

Why: worksteal hands each worker a contiguous share of the collected tests (the first half to the first
worker, and so on) and lets an idle worker steal the tail of a busy one's queue. In collection order the
slowest modules (whole games played by the runner, the crash test, the 70,000-post threads) sat wherever
their folder sorts, and a worker could start a minute-long test while the other had nothing left to
steal: the run ended on one core. Here the slow modules go first, each worker's share opening with its
slow modules (dealt longest first to the worker with the least so far), the fast ones after: what is
left to steal at the end is short.

Whole modules are moved, never single tests: a module's tests keep their order and stay together, so a
module-scoped fixture (a played game) is set up once; only a fast module at the border of two shares is
cut in two, as worksteal cuts modules anyway when it steals. Only the order changes, never which tests
run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

# Seconds each module took on the CI machine kind (2 cores, shared with other jobs while measured; summed
# over its tests with --durations=0, issue 21). Only their order matters; a module not listed counts as
# fast. Modules that share one played game (the session fixture ``yexiao_finished``) are dealt together
# (GROUPS), so that the game is played once, not once per worker.
CRASH = "tests/runner/test_crash.py::"
SLOW: dict[str, float] = {
    CRASH + "test_a_runner_killed_at_100_random_instants_ends_like_an_uninterrupted_one": 50,
    CRASH + "test_the_owed_moments_and_an_early_night_survive_30_random_kills": 30,
    "tests/store/test_readpath.py": 53,
    "tests/runner/test_owed_moments.py": 50,
    "tests/runner/test_one_judgement.py": 50,
    "tests/web/test_pages.py": 46,
    "tests/judging/test_read_only_store.py": 40,
    "tests/judging/test_stale_changes.py": 39,
    "tests/web/test_auth.py": 36,
    "tests/web/test_browser.py": 33,
    "tests/judging/test_days_judged_once.py": 32,
    "tests/judging/test_day_e2e.py": 31,
    "tests/store/test_pagewrite.py": 31,
    "tests/web/test_browser_widths.py": 29,
    "tests/store/test_posts.py": 27,
    "tests/judging/test_revote_draft.py": 27,
    "tests/poll/test_poll.py": 26,
    "tests/runner/test_day_threads.py": 25,
    "tests/runner/test_r004_game.py": 24,
    "tests/exampleboard/test_liveboard.py": 23,
    "tests/outbox/test_send_once.py": 21,
    "tests/exampleboard/test_demo_unchanged.py": 21,
    "tests/runner/test_signup.py": 19,
    "tests/judging/test_night_overrides.py": 19,
    "tests/web/test_result_panel.py": 19,
    "tests/web/test_cli.py": 18,
    "tests/web/test_actions.py": 18,
    "tests/judging/test_rule_features.py": 17,
    "tests/runner/test_yexiao_game.py": 15,
    "tests/runner/test_review.py": 15,
    "tests/runner/test_r004_authority.py": 14,
    "tests/parsers/test_properties.py": 14,
    "tests/client/test_login_errors.py": 13,
    "tests/outbox/test_review.py": 13,
    "tests/runner/test_board_down.py": 13,
    "tests/judging/test_never_wrong.py": 12,
    "tests/web/test_stale_forms.py": 10,
    "tests/runner/test_substitutes.py": 10,
    "tests/judging/test_one_judgement_day.py": 10,
    "tests/poll/test_read_status.py": 10,
    "tests/store/test_busy.py": 10,
    "tests/web/test_browser_live.py": 9,
    "tests/runner/test_r004_last_words.py": 8,
}
# Modules whose tests are dealt one by one (keyed path::name above): no module-scoped fixture, and
# each test long enough to be worth a worker of its own.
SPLIT = frozenset({"tests/runner/test_crash.py"})
GROUPS: tuple[tuple[str, ...], ...] = (
    (
        "tests/runner/test_yexiao_game.py",
        "tests/runner/test_review.py",
        "tests/runner/test_public_words.py",
        "tests/web/test_result_panel.py",
    ),
)


def shares(total: int, workers: int) -> list[int]:
    """How many tests worksteal first hands each worker: of what is left, an even share (rounded down)."""
    out = []
    left = total
    for i in range(workers):
        out.append(left // (workers - i))
        left -= out[-1]
    return out


def unit_of(nodeid: str) -> str:
    """What is dealt as one: the test's module, or the test itself in a module of :data:`SPLIT`."""
    path = nodeid.split("::", 1)[0]
    return nodeid if path in SPLIT else path


def arrange(modules: Sequence[tuple[str, Sequence[T]]], workers: int) -> list[T]:
    """Every test of ``modules`` (:func:`unit_of` key, tests; in collection order) once, in the order to
    run them: for each worker's share, its slow modules (longest first), then fast ones in collection
    order."""
    tests = {path: list(items) for path, items in modules}
    units: list[tuple[float, list[str]]] = []  # (seconds, module paths), slow ones only
    grouped = {path for group in GROUPS for path in group}
    for group in GROUPS:
        present = [p for p in group if p in tests]
        if present:
            units.append((sum(SLOW.get(p, 0.0) for p in present), present))
    units += [(SLOW[p], [p]) for p in tests if p in SLOW and p not in grouped]
    units.sort(key=lambda unit: -unit[0])
    lanes: list[list[T]] = [[] for _ in range(max(workers, 1))]
    loads = [0.0] * len(lanes)
    for seconds, paths in units:
        i = loads.index(min(loads))
        loads[i] += seconds
        for p in paths:
            lanes[i] += tests[p]
    slow = {p for _, paths in units for p in paths}
    fast = [t for p, items in tests.items() if p not in slow for t in items]
    total = sum(len(items) for items in tests.values())
    out: list[T] = []
    for lane, share in zip(lanes, shares(total, len(lanes)), strict=True):
        need = max(share - len(lane), 0)
        out += lane + fast[:need]
        del fast[:need]
    return out + fast
