"""The ``forumbot`` command line. Each subcommand lives in forumbot/commands/ and returns an exit code.

Settings come from flags, then the game file, then packaged defaults.

Chinese first: the language is chosen (``--lang en`` anywhere on the line, else LANG/LANGUAGE starting
with ``en`` gives English, anything else Chinese) *before* the parser is built, because argparse keeps
the help text it is given; every judge-facing string goes through ``_()`` and the catalogs
(forumbot/locale), argparse's own words included (``usage:``, ``options``, its error messages). What a
subcommand module leaves out is filled in here, once for all: a description (its one-line help), the
help of the options every command shares (``--day``, ``--json`` ...), and the examples of the judge's
daily commands. JSON keys and codes stay English.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NoReturn

from forumbot import __version__
from forumbot.errors import BoardError, ConfigError, ForumbotError, error_page
from forumbot.i18n import LANGUAGES, N_, _, install_argparse, setup_from_argv

# The modules of forumbot/commands/, in the order their commands are listed, and the commands each one
# registers (tests/test_cli_lazy.py checks this table against what the modules register). Why a table:
# a command line naming one of these commands builds a parser of that module alone, so ``forumbot poll``
# run from cron imports one command module, not all eleven (issue 21). Any other line, a help or a
# problem, gets the whole parser (what the judge reads is the same either way).
COMMAND_TABLE: dict[str, tuple[str, ...]] = {
    "reader": ("parse", "poll", "posts"),
    "setup": ("flags", "init", "setup", "signup", "state", "undo"),
    "night": ("night",),
    "day": ("attendance", "authority", "close", "override", "proxy", "revote", "substitute", "tally"),
    "rulesteps": ("applications", "lastwords"),
    "run": ("run", "status", "tick", "watch"),
    "demo": ("demo",),
    "login": ("login",),
    "outbox": ("outbox",),
    "serve": ("judges", "serve"),
    "export": ("export",),
}
# The top-level options that take a value (the scan for the command skips it).
_VALUE_OPTIONS = ("--game", "-g", "--store", "--judge", "--lang")


def command_modules(names: Sequence[str] | None = None) -> tuple[ModuleType, ...]:
    """The command modules (``names``: those only, by their name in forumbot/commands/), imported now
    (each by its own import statement: the import graph stays readable, tests/test_layout.py)."""
    return tuple(_command_module(n) for n in (names or COMMAND_TABLE))


def _command_module(name: str) -> ModuleType:
    match name:
        case "reader":
            from forumbot.commands import reader

            return reader
        case "setup":
            from forumbot.commands import setup

            return setup
        case "night":
            from forumbot.commands import night

            return night
        case "day":
            from forumbot.commands import day

            return day
        case "rulesteps":
            from forumbot.commands import rulesteps

            return rulesteps
        case "run":
            from forumbot.commands import run

            return run
        case "demo":
            from forumbot.commands import demo

            return demo
        case "login":
            from forumbot.commands import login

            return login
        case "outbox":
            from forumbot.commands import outbox

            return outbox
        case "serve":
            from forumbot.commands import serve

            return serve
        case "export":
            from forumbot.commands import export

            return export
    raise KeyError(name)


def __getattr__(name: str) -> object:
    """``COMMAND_MODULES``: every command module, imported on first use (not by ``import forumbot.cli``)."""
    if name == "COMMAND_MODULES":
        return command_modules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The help of options that many subcommands share, by their ``dest`` (a module's own help wins).
SHARED_HELP: dict[str, str] = {
    "json": N_("print JSON for tools (stable English keys and codes)"),
    "day": N_("the game day (1, 2, ...)"),
    "night": N_("the night (1, 2, ...)"),
    "target": N_("the target player (his role account's name, as in the roster)"),
    "id": N_("the outbox item's number"),
    "ids": N_("the outbox items' numbers"),
    "file": N_("a saved board page (HTML) to parse"),
    "thread": N_("the thread's tid"),
    "since": N_("only posts from this time on (board's time zone, YYYY-MM-DD HH:MM)"),
    "until": N_("only posts up to this time (board's time zone, YYYY-MM-DD HH:MM)"),
    "kind": N_("what kind of item or action: %(choices)s"),
    "first": N_("Cupid's first lover"),
    "second": N_("Cupid's second lover"),
    "pid": N_("the post's pid (the number in its link)"),
    "as_kind": N_("what the post counts as: vote, abstain, void, ignore (not a vote) or change"),
    "why": N_("why (shown in every later tally and draft)"),
    "player": N_("the player (his role account's name)"),
    "at": N_("when (board's time zone, YYYY-MM-DD HH:MM; default: now)"),
}

# Examples shown under ``--help`` for the judge's daily commands.
EXAMPLES: dict[str, str] = {
    "poll": N_(
        "examples:\n"
        "  forumbot poll                 # read what changed (one request when nothing did)\n"
        "  forumbot poll --full          # at the deadline: re-read every page (edits, deletions)\n"
        "  forumbot poll -t 3 --json     # one thread, the report as JSON"
    ),
    "tally": N_(
        "examples:\n"
        '  forumbot tally --day 1 --at "2026-06-04 11:00"   # the running count at that moment\n'
        "  forumbot tally --day 1                          # every post's verdict, the count, the draft\n"
        "  forumbot tally --day 1 --json                   # the same for tools"
    ),
    "attendance": N_(
        "examples:\n"
        "  forumbot attendance --day 1              # valid posts per player, who is short\n"
        "  forumbot attendance --day 1 --elevator   # and the elevator (电梯) draft"
    ),
    "override": N_(
        "examples:\n"
        '  forumbot override 23 --as vote --target 烧卖 --why "烧麦 = 烧卖, 执法团认可"\n'
        '  forumbot override 31 --as void --why "执法团认定无效"\n'
        "  (the day is found from the pid; every override is kept with who, when and why)"
    ),
    "revote": N_(
        "examples:\n"
        "  forumbot revote --day 1 --call   # on a tie: record the call (its deadline follows)\n"
        "  forumbot revote --day 1          # after its deadline (and a poll): the revote's tally"
    ),
    "close": N_(
        "examples:\n  forumbot tally --day 1 && forumbot close --day 1   # check the count, then apply it"
    ),
    "outbox": N_(
        "examples:\n"
        "  forumbot outbox                # what waits to be posted\n"
        "  forumbot outbox show 4         # one item: destination, body, revisions, log\n"
        "  forumbot outbox approve 4 5    # approve (add --edit to change the body first)\n"
        "  forumbot outbox send           # send every approved item, once"
    ),
    "run": N_(
        "examples:\n"
        "  forumbot run             # run the game's timetable: polls, counts, drafts\n"
        "  forumbot run --once      # one step now, then stop"
    ),
    "tick": N_("examples:\n  forumbot tick             # one step of the timetable now"),
}


def _complete(parser: argparse.ArgumentParser, path: str = "") -> None:
    """Give every subcommand a description (its help), every option a help, the daily commands their
    examples, walking the whole tree of subcommands."""
    for action in parser._actions:
        if not action.help and action.dest in SHARED_HELP:
            action.help = _(SHARED_HELP[action.dest])
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                if not sub.description and helps.get(name):
                    sub.description = helps[name]
                if not path and name in EXAMPLES and not sub.epilog:
                    sub.epilog = _(EXAMPLES[name])
                    sub.formatter_class = argparse.RawDescriptionHelpFormatter
                _complete(sub, f"{path} {name}".strip())


def build_parser(
    modules: Sequence[str] | None = None,
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> argparse.ArgumentParser:
    """The command line's parser: every command, or only those of ``modules`` (see COMMAND_TABLE)."""
    install_argparse()
    parser = parser_class(
        prog="forumbot",
        description=_("The judge's assistant for 版杀 games on Discuz! boards."),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"forumbot {__version__}",
        help=_("show program's version number and exit"),
    )
    parser.add_argument(
        "--game",
        "-g",
        metavar="FILE",
        help=_("the game file (TOML); default: ./forumbot.toml when it exists"),
    )
    parser.add_argument(
        "--store",
        metavar="URL",
        help=_("SQLAlchemy URL or SQLite path of the store (overrides the game file)"),
    )
    parser.add_argument(
        "--judge",
        metavar="NAME",
        help=_(
            "who you are: the judge's name on every record this command makes "
            "(default: $FORUMBOT_JUDGE, then the game file's board account)"
        ),
    )
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        help=_("the language of the messages (default: Chinese; LANG=en... gives English)"),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in command_modules(modules):
        module.register(sub)
    _complete(parser)
    return parser


def _is_engine_error(exc: BaseException) -> bool:
    """Is ``exc`` an :class:`engine.EngineError`? Asked without importing the engine: a command that never
    imported it (``poll``, ``--help``) cannot have raised one, and importing it here would cost every
    command the engine's start-up."""
    engine = sys.modules.get("engine")
    return engine is not None and isinstance(exc, engine.EngineError)


class _NotOneModule(Exception):
    """The command line is not one the parser of its command's module alone reads as the whole would."""


class _OneModuleParser(argparse.ArgumentParser):
    """The parser of one command module, trying the line first: nothing abbreviated, and any problem
    raised to :func:`parse`, which gives the line to the whole parser (its message, its usage)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise _NotOneModule(message)


def _module_of(argv: Sequence[str]) -> str | None:
    """The command module of the line's command when the line is plain (only top-level options with their
    values before the command, no help asked before it); None otherwise."""
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in _VALUE_OPTIONS:
            i += 2
            continue
        if token.startswith("-"):
            if not token.startswith(tuple(f"{o}=" for o in _VALUE_OPTIONS if o.startswith("--"))):
                return None  # -h, --version, an abbreviation: the whole parser
            i += 1
            continue
        return next((m for m, names in COMMAND_TABLE.items() if token in names), None)
    return None


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The line parsed: by its command's module alone when that reads it, else by the whole parser."""
    line = list(sys.argv[1:] if argv is None else argv)
    module = _module_of(line)
    if module is not None:
        try:
            return build_parser([module], _OneModuleParser).parse_args(line)
        except _NotOneModule:
            pass  # the whole parser reads it again, and says what is wrong if anything is
    return build_parser().parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: this process's own, ``sys.argv[1:]``); the exit code.

    In forumbot's own process (``argv`` None: the console script, ``python -m forumbot``) the modules
    imported to read the command line are kept out of the cyclic garbage collector's way
    (:func:`forumbot.commands.common.long_lived`), and on the way out everything is frozen: the
    interpreter's exit then does not walk every object once more only to free memory the system takes
    back anyway (about a sixth of an idle ``forumbot poll``'s CPU, issue 21). Nothing is lost: what its
    reference count frees is freed as before (a closed store, a flushed file), and the standard
    streams are flushed at exit as always.
    """
    # Imported here: parse() alone imports no module of forumbot/commands/ but its command's.
    from forumbot.commands import common

    if argv is not None:
        return _main(argv)
    common.OWN_PROCESS = True
    try:
        return _main(None)
    finally:
        gc.freeze()  # nothing of the process is needed any more: exit without walking it


def _main(argv: Sequence[str] | None) -> int:
    from forumbot.commands.common import long_lived

    with long_lived():  # the command modules: alive until the process ends
        setup_from_argv(argv)  # before the parser: argparse keeps the help text it is given
        args = parse(argv)
    if not getattr(args, "func", None):
        build_parser().print_help()  # the whole parser's help: every command
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
        print(_("forumbot: configuration error: {exc}").format(exc=exc), file=sys.stderr)
        return 2
    except BoardError as exc:
        print(error_page(exc), file=sys.stderr)
        return 3
    except ForumbotError as exc:
        print(error_page(exc), file=sys.stderr)
        return 1
    except Exception as exc:
        if not _is_engine_error(exc):
            raise
        # an illegal action or a state the rules do not allow: the judge's to fix
        print(_("forumbot: refused: {exc}").format(exc=exc), file=sys.stderr)
        return 4
    except KeyboardInterrupt:
        print(_("forumbot: interrupted; the store keeps everything read so far"), file=sys.stderr)
        return 130
