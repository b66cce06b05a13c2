"""What every judge's command opens (the game file, the store, the desk) and prints to."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from forumbot.errors import ConfigError
from forumbot.i18n import _
from forumbot.labels import audience_label

if TYPE_CHECKING:
    from rich.console import Console

    from engine import Event
    from forumbot.config import Game
    from forumbot.desk import Desk
    from forumbot.store.db import Store


def open_game(args: argparse.Namespace) -> Game:
    from forumbot.config import find_game_file, load_game

    path = find_game_file(getattr(args, "game", None))
    if path is None:
        raise ConfigError(
            _("no game file"),
            field="--game",
            fix=_("pass --game FILE or create ./forumbot.toml (README: The game file)"),
        )
    return load_game(path)


def open_desk(args: argparse.Namespace) -> tuple[Game, Store, Desk]:
    from forumbot.desk import Desk
    from forumbot.store.db import open_store

    game = open_game(args)
    store = open_store(getattr(args, "store", None) or game.store_url)
    one_shot_gc()  # the imports and the game file: alive until the command ends
    return game, store, Desk(game, store, by=judge(args, game))


def judge(args: argparse.Namespace, game: Game | None) -> str:
    """The judge's name for what this command records (forumbot/judgename.py: ``--judge``, then
    $FORUMBOT_JUDGE, then the game file's judge account). Not ``--by``: in ``night`` it names a player."""
    from forumbot.judgename import judge_name

    return judge_name(game, getattr(args, "judge", None))


#: True when forumbot runs as its own process (``forumbot …``, ``python -m forumbot``): set by
#: :func:`forumbot.cli.main` when it reads ``sys.argv`` itself; a caller passing its own arguments
#: (tests, scripts) keeps its process as it is.
OWN_PROCESS = False


@contextmanager
def long_lived() -> Iterator[None]:
    """Run a block whose objects live as long as the process (the modules it imports, the game file it
    reads) without the cyclic garbage collector walking them.

    Why: a fresh process importing a command's modules makes a few hundred thousand objects, and every
    pass of the collector during the imports walked all of them again; after it, every pass of the
    oldest generation did. A short command such as an idle ``forumbot poll`` spent about a twentieth of
    its CPU there (issue 21). So the collector is paused during the block and, in forumbot's own process
    (:data:`OWN_PROCESS`), what is alive at its end moves to the generation never scanned
    (``gc.freeze``); the collector then runs as before. A Python caller (the tests) keeps its objects
    scannable: only the pause applies to it."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if OWN_PROCESS:
            gc.freeze()
        if was:
            gc.enable()


def one_shot_gc() -> None:
    """A command that ends when its work is done needs no cyclic garbage collection.

    Why: a command judging 100,000 posts keeps the modules it imported and the day it judged for its
    whole life; every collection scanned them again (a fifth of a judged day went to it), and the
    first one after the judging walked every object the judging made. What is alive now moves to the
    generation that is never scanned (``gc.freeze``) and the collector stays off until the process
    ends: reference counting still frees everything our records hold (they make no cycles); the few
    cycles a library makes are freed at exit. Only for commands that end, and only in forumbot's own
    process (:data:`OWN_PROCESS`): the runner, the web desk and a Python caller such as the tests keep
    the collector."""
    if not OWN_PROCESS:
        return
    gc.freeze()
    gc.disable()


def local_time(game: Game, text: str | None, what: str) -> datetime:
    from forumbot.config import parse_local_time

    if text is None:
        return datetime.now(UTC)
    return parse_local_time(text, game.tz, what)


def lit(value: object) -> str:
    """A board text (a name, a reason quoting a post, an event naming players) escaped for Rich markup,
    so that the terminal prints it as written: ``[i]饺子[/i]`` is a spectator's name, not «饺子» in
    italics (issue 22). Every board text in a ``Console.print`` or a table cell goes through it."""
    from rich.markup import escape

    return escape(str(value))


def console() -> Console:
    """A console that does not cut Chinese reasons short when the output is a file or a pipe."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)


def print_events(events: tuple[Event, ...], out: Console) -> None:
    by_audience: dict[str, list[Event]] = {}
    for e in events:
        by_audience.setdefault(str(e.audience), []).append(e)
    for audience, evs in by_audience.items():
        if audience == "public":
            continue
        out.print(f"\n[b]→ {lit(audience_label(audience))}[/b]")
        for e in evs:
            out.print(f"  {lit(e.text)}")
