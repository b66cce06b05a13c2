"""What starting forumbot costs: CPU of ``forumbot --help`` beside ``python -c "import requests"``.

Why: a ``tick`` run from cron every minute pays the start-up each time, and it dominated an idle poll
(issue 12). Target: ``forumbot --help`` ≤ 3x the CPU of importing requests alone (the HTTP library any
board client needs). This script only measures (the start-up fix is a later step).

Run: ``.venv/bin/python benchmarks/startup.py [--rounds N]``. Each round runs every command once, in
turn (interleaved), and takes the child's user+system CPU from ``getrusage``; the figures are medians.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

TARGET = 3.0


def _forumbot() -> list[str]:
    script = Path(sys.executable).with_name("forumbot")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "forumbot"]


COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    'python -c "import requests"': [sys.executable, "-c", "import requests"],
    'python -c "import forumbot.cli"': [sys.executable, "-c", "import forumbot.cli"],
    "forumbot --help": [*_forumbot(), "--help"],
}


def cpu_of(argv: list[str]) -> float:
    """User + system CPU seconds of one run of ``argv`` (its output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=os.environ)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    ratios: list[float] = []
    for _ in range(args.rounds):
        for name, command in COMMANDS.items():
            times[name].append(cpu_of(command))
        ratios.append(times["forumbot --help"][-1] / times['python -c "import requests"'][-1])
    print(f"CPU seconds (user+sys), median of {args.rounds} interleaved rounds")
    for name, values in times.items():
        print(f"  {name:<34} {statistics.median(values):6.3f} s")
    ratio = statistics.median(ratios)
    verdict = "within" if ratio <= TARGET else "over"
    print(f"forumbot --help / import requests: {ratio:.2f}x ({verdict} the {TARGET:g}x target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
