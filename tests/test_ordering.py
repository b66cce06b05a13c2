"""The order the suite runs in (tests/ordering.py): every test once, modules kept whole, each worker's
share opening with its slow modules."""

from __future__ import annotations

from tests.ordering import GROUPS, SLOW, SPLIT, arrange, shares, unit_of


def _modules() -> list[tuple[str, list[str]]]:
    fast = [(f"tests/fast/test_{i}.py", [f"fast{i}-{k}" for k in range(30)]) for i in range(40)]
    grouped = [p for group in GROUPS for p in group if p not in SLOW]
    slow = [(path, [f"{path}::{k}" for k in range(3)]) for path in [*SLOW, *grouped]]
    return fast[:20] + slow + fast[20:]


def test_shares_are_what_worksteal_hands_out_first() -> None:
    assert shares(4940, 2) == [2470, 2470]
    assert shares(11, 2) == [5, 6]
    assert shares(10, 3) == [3, 3, 4]
    assert sum(shares(4941, 4)) == 4941


def test_every_test_runs_once_and_each_module_stays_whole_in_each_share() -> None:
    modules = _modules()
    for workers in (1, 2, 3):
        order = arrange(modules, workers)
        assert sorted(order) == sorted(t for _, items in modules for t in items)
        start = 0
        for size in shares(len(order), workers):
            share = order[start : start + size]
            start += size
            for path, items in modules:
                mine = [t for t in items if t in share]
                if mine:  # together, in their own order; a slow module never cut
                    at = share.index(mine[0])
                    assert share[at : at + len(mine)] == mine
                    assert path not in SLOW or mine == items


def test_each_workers_share_opens_with_its_slow_modules_the_longest_first() -> None:
    modules = _modules()
    order = arrange(modules, 2)
    first, second = order[: shares(len(order), 2)[0]], order[shares(len(order), 2)[0] :]
    slowest = max(SLOW, key=lambda p: SLOW[p])
    assert first[0] == f"{slowest}::0"  # the slowest module opens the first worker's share
    for share in (first, second):
        kinds = ["fast" if t.startswith("fast") else "slow" for t in share]
        assert "slow" in kinds and kinds == sorted(kinds, key=lambda k: k == "fast")  # slow, then fast
    for group in GROUPS:  # one played game, one worker
        assert all(f"{p}::0" in first for p in group) or all(f"{p}::0" in second for p in group)


def test_without_workers_the_slow_modules_come_first() -> None:
    order = arrange(_modules(), 1)
    assert not order[0].startswith("fast") and order[-1].startswith("fast")


def test_a_split_modules_tests_are_dealt_one_by_one() -> None:
    (path,) = SPLIT
    tests = [key for key in SLOW if key.startswith(path + "::")]
    assert len(tests) == 2 and all(unit_of(t) == t for t in tests)
    assert unit_of("tests/runner/test_review.py::test_x[1]") == "tests/runner/test_review.py"
    order = arrange([*((t, [t]) for t in tests), ("tests/fast/test_a.py", ["a", "b"])], 2)
    assert order.index(tests[0]) < 2 <= order.index(tests[1])  # one each, at the head of its share
