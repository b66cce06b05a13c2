"""The ``forumbot`` command line. Each subcommand lives in forumbot/commands/ and returns an exit code.

Settings come from flags, then the game file, then packaged defaults.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from engine import (
    EngineError,
)
from forumbot import __version__
from forumbot.commands import day, demo, login, night, outbox, reader, run, setup
from forumbot.errors import BoardError, ConfigError, ForumbotError

COMMAND_MODULES = (reader, setup, night, day, run, demo, login, outbox)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="forumbot",
        description="The judge's assistant for 版杀 games on Discuz! boards.",
    )
    parser.add_argument("--version", action="version", version=f"forumbot {__version__}")
    parser.add_argument(
        "--game",
        "-g",
        metavar="FILE",
        help="the game file (TOML); default: ./forumbot.toml when it exists",
    )
    parser.add_argument(
        "--store",
        metavar="URL",
        help="SQLAlchemy URL or SQLite path of the store (overrides the game file)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return code
    except BrokenPipeError:
        # The reader went away (`forumbot posts 3 | head`): not an error, and no traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush goes nowhere
        return 141  # what a shell reports for a command stopped by SIGPIPE
    except ConfigError as exc:
        print(f"forumbot: configuration error: {exc}", file=sys.stderr)
        return 2
    except BoardError as exc:
        print(f"forumbot: {exc}", file=sys.stderr)
        return 3
    except ForumbotError as exc:
        print(f"forumbot: {exc}", file=sys.stderr)
        return 1
    except EngineError as exc:  # an illegal action or a state the rules do not allow: the judge's to fix
        print(f"forumbot: refused: {exc}", file=sys.stderr)
        return 4
    except KeyboardInterrupt:
        print("forumbot: interrupted; the store keeps everything read so far", file=sys.stderr)
        return 130
