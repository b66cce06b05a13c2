"""What starting forumbot costs: CPU of ``forumbot --help`` beside ``python -c "import requests"``.

Why: a ``tick`` run from cron every minute pays the start-up each time, and it dominated an idle poll
(issue 12). Target: ``forumbot --help`` ≤ 3x the CPU of importing requests alone (the HTTP library any
board client needs); ``forumbot SUB --help`` the same. With ``--wheel`` (issue 21): the wheel built from
this tree and pip-installed into a folder of its own runs beside the checkout (a copy of this tree, its
catalogs compiled), and must start as cheaply: an installed forumbot compiled its Chinese catalog at
every start once, which a benchmark run from a checkout never saw. Target there: ``--help`` of the wheel
≤ 0.7x import requests, and within 10% of the checkout's. The idle poll's own target (≤ 0.3 s CPU) is
measured by benchmarks/poll.py.

Run: ``.venv/bin/python benchmarks/startup.py [--rounds N] [--before REV] [--wheel] [--no-callgrind]
[--no-bytecode-cache]`` (``--wheel`` needs hatchling importable; with ``--before`` that revision's wheel
is measured too). Each round runs every command once, in turn (interleaved), and takes the
child's user+system CPU; the figures are medians, the ratios medians of each round's ratio.
``--before main`` also runs the code of that git revision (exported to a temporary folder) in the
same rounds, for before/after figures from one run. With valgrind installed, each command also runs
once under callgrind: instruction counts, which the machine's load does not move. Bytecode is
compiled once and reused, as in an installed forumbot (see benchmarks/children.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parents[1]
if str(ROOT_DIR) not in sys.path:
    sys.path.insert(0, str(ROOT_DIR))

from benchmarks.children import Children, cpu_of, have_callgrind, instructions_of, python  # noqa: E402

TARGET = 3.0
WHEEL_TARGET = 0.7  # --help of an installed wheel / import requests (issue 21)
WHEEL_SAME = 1.1  # ... and / the checkout's
REFERENCE = 'python -c "import requests"'


def commands(
    before: Path | None, wheels: dict[str, Path] | None = None
) -> dict[str, tuple[list[str], Path | None]]:
    """Name -> (argv, code tree: None for this one). ``wheels``: label -> installed folder; the label
    "checkout" names the checkout's copy."""
    out: dict[str, tuple[list[str], Path | None]] = {
        "python -c pass": (python("-c", "pass"), None),
        REFERENCE: (python("-c", "import requests"), None),
        'python -c "import forumbot.cli"': (python("-c", "import forumbot.cli"), None),
        "forumbot --help": (python("-m", "forumbot", "--help"), None),
        "forumbot poll --help": (python("-m", "forumbot", "poll", "--help"), None),
        "forumbot tally --help": (python("-m", "forumbot", "tally", "--help"), None),
    }
    if before is not None:
        out["forumbot --help (before)"] = (python("-m", "forumbot", "--help"), before)
        out["forumbot poll --help (before)"] = (python("-m", "forumbot", "poll", "--help"), before)
    for label, folder in (wheels or {}).items():
        out[f"forumbot --help ({label})"] = (python("-m", "forumbot", "--help"), folder)
        out[f"forumbot poll --help ({label})"] = (python("-m", "forumbot", "poll", "--help"), folder)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--before", metavar="REV", help="also measure this git revision (e.g. main)")
    ap.add_argument("--wheel", action="store_true", help="also the installed wheel beside the checkout")
    ap.add_argument("--no-callgrind", action="store_true", help="skip the instruction counts")
    ap.add_argument("--no-bytecode-cache", action="store_true", help="compile forumbot on every start")
    args = ap.parse_args(argv)
    children = Children(bytecode_cache=not args.no_bytecode_cache)
    try:
        before = children.export(args.before) if args.before else None
        wheels: dict[str, Path] = {}
        if args.wheel:
            wheels["checkout"] = children.checkout()
            wheels["wheel"] = children.install_wheel(wheels["checkout"], "this")
            if before is not None:
                wheels[f"{args.before} wheel"] = children.install_wheel(before, "before")
        table = commands(before, wheels)
        cwd = children.tmp  # no ./forumbot.toml there
        for command, code in table.values():  # warm-up: bytecode compiled once, caches filled
            cpu_of(command, children.env(code), cwd)
        times: dict[str, list[float]] = {name: [] for name in table}
        for _ in range(args.rounds):
            for name, (command, code) in table.items():
                times[name].append(cpu_of(command, children.env(code), cwd))
        ref = times[REFERENCE]
        cache = "compiled once, reused" if children.bytecode_cache else "compiled on every start"
        print(f"CPU seconds (user+sys), median of {args.rounds} interleaved rounds; bytecode {cache}")
        for name, values in times.items():
            ratio = statistics.median(v / r for v, r in zip(values, ref, strict=True))
            print(f"  {name:<36} {statistics.median(values):6.3f} s  {ratio:5.2f}x import requests")
        counts: dict[str, int] = {}
        if not args.no_callgrind and have_callgrind():
            for name in (REFERENCE, "python -c pass", *(n for n in table if "--help" in n)):
                command, code = table[name]
                counts[name] = instructions_of(command, children.env(code), cwd)
            print("Instructions (callgrind, one run each)")
            for name, n in counts.items():
                print(f"  {name:<36} {n / 1e9:6.3f} G  {n / counts[REFERENCE]:5.2f}x import requests")
        failed = False
        for name in ("forumbot --help", "forumbot poll --help"):
            ratio = statistics.median(v / r for v, r in zip(times[name], ref, strict=True))
            verdict = "within" if ratio <= TARGET else "OVER"
            failed |= ratio > TARGET
            line = f"{name} / import requests: {ratio:.2f}x CPU"
            if name in counts:
                line += f", {counts[name] / counts[REFERENCE]:.2f}x instructions"
            before_name = f"{name} (before)"
            if before_name in times:
                was = statistics.median(v / r for v, r in zip(times[before_name], ref, strict=True))
                line += f" (before: {was:.2f}x CPU"
                if before_name in counts:
                    line += f", {counts[before_name] / counts[REFERENCE]:.2f}x instructions"
                line += ")"
            print(f"{line} — {verdict} the {TARGET:g}x target")
        for sub in ("forumbot --help", "forumbot poll --help"):
            if not wheels:
                break
            wheel, checkout = times[f"{sub} (wheel)"], times[f"{sub} (checkout)"]
            ratio = statistics.median(v / r for v, r in zip(wheel, ref, strict=True))
            same = statistics.median(w / c for w, c in zip(wheel, checkout, strict=True))
            ok = ratio <= WHEEL_TARGET and same <= WHEEL_SAME
            failed |= not ok
            line = f"{sub}, installed wheel: {ratio:.2f}x import requests, {same:.2f}x the checkout's CPU"
            if f"{sub} (wheel)" in counts:
                grind = counts[f"{sub} (wheel)"] / counts[f"{sub} (checkout)"]
                line += f", {grind:.2f}x its instructions"
            verdict = "within" if ok else "OVER"
            print(f"{line} — {verdict} the {WHEEL_TARGET:g}x / {WHEEL_SAME:g}x targets")
        return 1 if failed else 0
    finally:
        children.close()


if __name__ == "__main__":
    raise SystemExit(main())
