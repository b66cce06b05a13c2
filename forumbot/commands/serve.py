"""``forumbot serve`` (the judges' web desk) and ``forumbot judges`` (who may log in to it).

The desk listens on 127.0.0.1 unless ``--host`` says otherwise (and then warns: it shows roles and
night actions, so put it behind HTTPS and a firewall). ``serve --demo`` plays the bundled example
game into a folder and serves it, for a first look.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import sys
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from forumbot.commands.webdesk import DEFAULT_PORT, need_web, serve_game
from forumbot.commands.webdesk import make_server as make_server
from forumbot.errors import ForumbotError, UsageError
from forumbot.i18n import _, current_language, set_language

if TYPE_CHECKING:
    from forumbot.store.db import Store


def _store_for(args: argparse.Namespace) -> Store:
    """The store named by --store, else the game file's."""
    from forumbot.store.db import open_store

    url = getattr(args, "store", None)
    if not url:
        from forumbot.commands.common import open_game

        url = open_game(args).store_url
    return open_store(url)


def _board_zone(args: argparse.Namespace) -> tzinfo:
    """The game's time zone for the times shown (the store keeps UTC); Asia/Shanghai, the boards' usual
    zone, when no game file is at hand (``--store`` alone)."""
    from zoneinfo import ZoneInfo

    from forumbot.config import find_game_file, load_game

    path = find_game_file(getattr(args, "game", None))
    if path is not None:
        with contextlib.suppress(ForumbotError):
            return load_game(path).tz
    return ZoneInfo("Asia/Shanghai")


def _ask_password(name: str) -> str:
    """The new judge's password, typed twice at the terminal. Without a terminal (a script, cron, a
    pipe) nobody can type it: say to use ``--password-env`` instead of Python's EOFError."""
    no_terminal = UsageError(
        _(
            "no terminal to type the password at: put it in an environment variable and pass "
            "--password-env VAR"
        )
    )
    if not sys.stdin.isatty():
        raise no_terminal
    try:
        password = getpass.getpass(_("Password for {name}: ").format(name=name))
        again = getpass.getpass(_("Again: "))
    except EOFError as exc:
        raise no_terminal from exc
    if again != password:
        raise UsageError(_("the two passwords differ; nothing was changed"))
    return password


def cmd_judges(args: argparse.Namespace) -> int:
    need_web()
    from forumbot.store import judges as repo

    set_language(getattr(args, "lang", None) or current_language())
    with _store_for(args) as store:
        if args.judges_cmd == "add":
            if args.password_env:
                password = os.environ.get(args.password_env, "")
                if not password:
                    raise UsageError(
                        _("the environment variable {var} is empty or unset").format(var=args.password_env)
                    )
            else:
                password = _ask_password(args.name)
            acc = repo.add_judge(store, args.name, password, replace=args.reset)
            print(_("judge {name} may now log in to the desk").format(name=acc.name))
        elif args.judges_cmd == "remove":
            repo.remove_judge(store, args.name)
            print(_("judge {name} can no longer log in").format(name=args.name))
        else:
            rows = repo.list_judges(store)
            if not rows:
                print(_("no judge yet: add one with `forumbot judges add NAME`"))
            zone = _board_zone(args)
            for a in rows:
                last = a.last_login_at.astimezone(zone).strftime("%Y-%m-%d %H:%M") if a.last_login_at else ""
                print(_("{name}\tlast login: {when}").format(name=a.name, when=last or _("never")))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from forumbot.store.db import open_store

    need_web()
    if args.demo:
        from forumbot.commands.demo import serve_demo

        return serve_demo(
            Path(args.workdir) if args.workdir else None,
            host=args.host,
            port=args.port,
            lang=args.lang or current_language(),
        )
    from forumbot.commands.common import open_game

    lang = args.lang or current_language()
    set_language(lang)
    game = open_game(args)
    with open_store(getattr(args, "store", None) or game.store_url) as store:
        serve_game(game, store, host=args.host, port=args.port, lang=lang)
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help=_("open the judges' web desk on this machine"),
        description=_(
            "The judges' web desk: the game, each day's verdicts, each night, the drafts, "
            "the state history. Every page needs a judge's login."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help=_("address to listen on (default: 127.0.0.1)"))
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=_("port (default: 8765; 0 picks a free one)")
    )
    p.add_argument(
        "--lang",
        choices=("zh_CN", "en"),
        help=_("language of the pages (default: Chinese; LANG=en… gives English)"),
    )
    p.add_argument("--demo", action="store_true", help=_("play the bundled example game and serve it"))
    p.add_argument("--workdir", help=_("with --demo: keep the example's store here"))
    p.set_defaults(func=cmd_serve)

    j = sub.add_parser(
        "judges",
        help=_("who may log in to the web desk"),
        description=_("Add, list or remove the judges who may log in to the web desk."),
    )
    jsub = j.add_subparsers(dest="judges_cmd", metavar="ACTION")
    add = jsub.add_parser("add", help=_("add a judge (asks for the password twice)"))
    add.add_argument("name", help=_("the judge's login name"))
    add.add_argument(
        "--password-env", metavar="VAR", help=_("read the password from this environment variable")
    )
    add.add_argument("--reset", action="store_true", help=_("give an existing judge a new password"))
    rm = jsub.add_parser("remove", help=_("stop a judge from logging in (kept in the log)"))
    rm.add_argument("name", help=_("the judge's login name"))
    jsub.add_parser("list", help=_("list the judges"))
    j.add_argument("--lang", choices=("zh_CN", "en"), help=_("language of the messages"))
    j.set_defaults(func=cmd_judges, judges_cmd="list")
