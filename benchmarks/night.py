"""Time to resolve 10,000 random R004 nights on the 22-player preset (target: under 1 s).

Usage: .venv/bin/python benchmarks/night.py [--nights N] [--seed S]

The nights are prepared first (random legal submissions on states reached by random play, so the
states vary: early and late nights, lovers, kidnapped roles, 警戒 nights...); only
``engine.night.resolve_night`` is timed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import (  # noqa: E402
    GameState,
    Night,
    draw_roles,
    parse_presets,
    random_day,
    random_night,
    resolve_night,
)


def prepare(count: int, seed: int) -> list[tuple[GameState, Night]]:
    table = parse_presets((ROOT / "data" / "rulesets" / "r004.toml").read_text("utf-8"))
    roster = [f"角色{i:02d}" for i in range(22)]
    rng = random.Random(seed)
    pairs: list[tuple[GameState, Night]] = []
    game = 0
    while len(pairs) < count:
        state = draw_roles("R004", roster, seed=seed + game, preset_table=table).state
        game += 1
        while state.outcome is None and len(pairs) < count:
            night = random_night(state, rng)
            pairs.append((state, night))
            state = resolve_night(state, night).state
            if state.outcome is None:
                state = random_day(state, rng, seed=game).state
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    pairs = prepare(args.nights, args.seed)
    best = float("inf")
    out = 0
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        out = 0
        for state, night in pairs:
            out += len(resolve_night(state, night).out)
        best = min(best, time.perf_counter() - t0)
    per = best / len(pairs) * 1e6
    verdict = "OK" if best < 1.0 else "SLOW"
    print(
        f"R004 22-player preset: resolved {len(pairs):,} random nights in {best:.3f} s "
        f"(best of {args.repeat}; {per:.1f} µs/night; {out:,} eliminations) — target < 1 s: {verdict}"
    )
    return 0 if best < 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
