"""The game files already checked, kept so that the next command does not check them again.

Why: checking a game file (forumbot.config.game_from_dict) needs the schema (pydantic) and the rules
engine (the rule set's name, its timetable defaults, its flags): about 1.1 G instructions of imports,
more than twice what ``import requests`` costs. An idle ``forumbot poll`` run from cron every few minutes
paid it every time for a file that had not changed since the last run (issue 21: an idle poll ≤ 1.5x
``import requests``). So a game built from a file is kept (pickled) under the user's cache folder, and a
later command reading the very same file, with the same forumbot, takes it from there.

The key is everything the built game depends on: the file's bytes, the path as given and the working
folder (a relative store is resolved against them), ``HOME`` (a cookie file's ``~``), the Python and
forumbot versions, and the size and modification time of every source file that reads a game file or
gives it its defaults (forumbot's config, schema and board modules, the whole engine): an edited file
or an upgraded forumbot checks again. A file with a problem is never kept (every command reports it),
nor a game of a rule set registered at run time (another process would not know it). The board password
is never written: it is read again from its environment variable at each load, as the check does.

``FORUMBOT_CACHE_DIR`` names the folder (default ``$XDG_CACHE_HOME/forumbot``, else ``~/.cache/forumbot``);
``FORUMBOT_CACHE_DIR=off`` turns the cache off. A folder that cannot be read or written only means the
file is checked every time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import sys
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from forumbot import __version__


class _Kept(Protocol):
    """What is kept: a checked game (forumbot.config.Game, which imports this module: so named by shape)."""

    @property
    def board(self) -> Any: ...

    @property
    def ruleset(self) -> str: ...


G = TypeVar("G", bound=_Kept)

_PACKAGE = Path(__file__).resolve().parent
# What a checked game is built from, besides the file: forumbot's readers of it, and the engine (rule
# sets, their timetables and flags).
_SOURCES = ("config.py", "gamefile.py", "board.py", "nightflags.py", "labels.py", "errors.py")
_FORMAT = "1"  # bumped when what is pickled changes shape


def cache_dir() -> Path | None:
    """Where checked games are kept; None when the cache is off."""
    named = os.environ.get("FORUMBOT_CACHE_DIR")
    if named == "off":
        return None
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "forumbot"


def _fingerprint() -> list[str]:
    """Size and modification time of each source file the check runs (an edit or upgrade changes it)."""
    out: list[str] = []
    folders = [str(_PACKAGE.parent / "engine")]
    files = [str(_PACKAGE / name) for name in _SOURCES]
    while folders:  # os.scandir, not pathlib: this runs at every start of a command with a game file
        folder = folders.pop()
        try:
            with os.scandir(folder) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError:
            out.append(f"{folder}:-")
            continue
        for entry in entries:
            if entry.is_dir() and entry.name != "__pycache__":
                folders.append(entry.path)
            elif entry.name.endswith(".py"):
                files.append(entry.path)
    for f in files:
        try:
            st = os.stat(f)
        except OSError:
            out.append(f"{f}:-")
            continue
        out.append(f"{f}:{st.st_size}:{st.st_mtime_ns}")
    return out


def key_of(path: Path, raw: bytes) -> str:
    """The cache key of the game file at ``path`` (as given) whose bytes are ``raw``."""
    h = hashlib.sha256()
    for part in (
        _FORMAT,
        __version__,
        sys.version,
        str(path),
        os.getcwd(),
        os.environ.get("HOME", ""),
        *_fingerprint(),
    ):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    h.update(raw)
    return h.hexdigest()


def load(path: Path, raw: bytes, kind: type[G]) -> G | None:
    """The game checked before from exactly this file, its password read again; None when not kept."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with (folder / "games" / f"{key_of(path, raw)}.pickle").open("rb") as f:
            game = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
        return None  # not kept (or kept by another layout): checked again
    if not isinstance(game, kind):
        return None
    board = game.board
    password = board.password_from_env(board.password_env)
    return cast(G, dataclasses.replace(cast(Any, game), board=dataclasses.replace(board, password=password)))


def save(path: Path, raw: bytes, game: _Kept) -> None:
    """Keep ``game``, just checked from ``raw`` (without its password). Failing to write is no error."""
    folder = cache_dir()
    if folder is None or not _builtin_ruleset(game.ruleset):
        return
    kept = dataclasses.replace(cast(Any, game), board=dataclasses.replace(game.board, password=None))
    target = folder / "games" / f"{key_of(path, raw)}.pickle"
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        with tmp.open("wb") as f:
            pickle.dump(kept, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, target)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return


def _builtin_ruleset(ruleset: str) -> bool:
    """Is ``ruleset`` one the engine defines itself (not a variant registered by this process only)?"""
    from engine import get_ruleset

    return type(get_ruleset(ruleset)).__module__.startswith("engine.")
