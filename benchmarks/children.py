"""Running forumbot in child processes for the start-up benchmarks (startup.py, poll.py): CPU seconds,
callgrind instruction counts, and the code of another revision to compare with in the same run.

Why children: start-up is what is measured, so each run is a fresh interpreter; its CPU (user + system)
comes from ``getrusage(RUSAGE_CHILDREN)``, which a loaded 2-core machine disturbs far less than wall
time. Instruction counts (valgrind's callgrind, when installed) do not move with the load at all.

Bytecode: a pip-installed forumbot has its modules compiled once, at install, like its dependencies.
So the children write and reuse compiled bytecode in a temporary folder (``PYTHONPYCACHEPREFIX``, the
source tree untouched) and every command runs once before it is measured. ``--no-bytecode-cache``
measures instead what a checkout run with ``PYTHONDONTWRITEBYTECODE=1`` pays: every forumbot module
compiled on every start (its dependencies keep their installed bytecode either way).
"""

from __future__ import annotations

import io
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class Children:
    """How child interpreters are started: which forumbot (this tree or an exported revision) and the
    bytecode settings shared by every child of a run."""

    def __init__(self, *, bytecode_cache: bool = True) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="forumbot-bench-")
        self.tmp = Path(self._tmp.name)
        self.bytecode_cache = bytecode_cache
        self.pycache = self.tmp / "pycache"

    def close(self) -> None:
        self._tmp.cleanup()

    def env(self, code: Path | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of a child running the forumbot in ``code`` (default: this tree)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = str(code or ROOT)
        if self.bytecode_cache:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(self.pycache)
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.pop("PYTHONPYCACHEPREFIX", None)
        env["FORUMBOT_CACHE_DIR"] = str(self.tmp / "cache")  # checked game files: this run's own
        env.update(extra or {})
        return env

    def export(self, rev: str) -> Path:
        """The tree of git revision ``rev`` in a temporary folder, its catalogs compiled (as a wheel has
        them): the code before a change, to be measured beside this tree in the same run."""
        dest = self.tmp / f"rev-{re.sub(r'[^A-Za-z0-9._-]', '_', rev)}"
        if dest.exists():
            return dest
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", rev], capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(dest, filter="data")
        _compile_catalogs(dest)
        return dest

    def checkout(self) -> Path:
        """This working tree (uncommitted edits included) copied to a temporary folder, its catalogs
        compiled: the checkout as it runs once built, without writing the build's .mo files into it."""
        dest = self.tmp / "checkout"
        if dest.exists():
            return dest
        for name in BUILD_INPUTS:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
            else:
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, dest / name)
        _compile_catalogs(dest)
        return dest

    def install_wheel(self, tree: Path, name: str) -> Path:
        """The wheel of ``tree`` (a checkout or an exported revision) built as a release builds it and
        installed with pip into a folder of its own (no dependencies: the running venv's serve), as a
        judge's ``pip install forumbot`` lays it out. Needs hatchling importable (no build isolation:
        no network)."""
        dest = self.tmp / f"wheel-{name}"
        if dest.exists():
            return dest
        dist = self.tmp / f"dist-{name}"
        pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
        build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(dist), "."]
        done = subprocess.run(build, cwd=tree, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(
                f"building the wheel of {tree} failed (is hatchling installed?): {done.stderr}"
            )
        (wheel,) = dist.glob("forumbot-*.whl")
        install = [*pip, "install", "--no-deps", "--no-index", "--target", str(dest), str(wheel)]
        subprocess.run(install, capture_output=True, text=True, check=True)
        return dest


# What a wheel is built from (pyproject.toml's wheel target and its build hook).
BUILD_INPUTS = ("forumbot", "engine", "templates", "data", "pyproject.toml", "hatch_build.py", "README.md")


def _compile_catalogs(tree: Path) -> None:
    """The .mo beside each .po of ``tree``, as the build hook writes them."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted((tree / "forumbot" / "locale").glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as f:
            catalog = read_po(f)
        with po.with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog)


def cpu_of(argv: Sequence[str], env: Mapping[str, str], cwd: Path | None = None) -> float:
    """User + system CPU seconds of one run of ``argv`` (output discarded; a failure raises)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=dict(env), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def have_callgrind() -> bool:
    return shutil.which("valgrind") is not None


def instructions_of(argv: Sequence[str], env: Mapping[str, str], cwd: Path | None = None) -> int:
    """Instructions executed by one run of ``argv`` under callgrind (slow: ~30x)."""
    with tempfile.NamedTemporaryFile(suffix=".callgrind") as out:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}", *argv],
            env=dict(env),
            cwd=cwd,
            capture_output=True,
            text=True,
        )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind of {' '.join(argv)} failed: {done.stderr[-500:]}")
    return int(found.group(1))


def python(*args: str) -> list[str]:
    return [sys.executable, *args]
