"""``forumbot login``: log in once by hand, or retry after a failed login (``--retry``).

Why a command of its own: after a failed login no process tries that account again for 15 minutes
(Discuz! locks the IP after 5 failures; see forumbot/store/logins.py). Once the judge has fixed the
password, ``forumbot login --retry`` is the explicit, single retry; ``--status`` shows what is recorded.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime

from forumbot.commands.reader import _board, _fmt, _game, _store_url
from forumbot.i18n import _
from forumbot.labels import colon, login_cleared_label, login_failure_label


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "login",
        help=_("log in to the board (--retry after a failed login, --status to see failures)"),
        description=_(
            "Log in with [board] username and the password from password_env. After a failure "
            "no process tries again for 15 minutes unless you pass --retry."
        ),
    )
    p.add_argument("--retry", action="store_true", help=_("try once more although a login failed recently"))
    p.add_argument("--status", action="store_true", help=_("show the recorded login failures, do not log in"))
    p.add_argument("--board", metavar="URL", help=_("the board's root URL (overrides the game file)"))
    p.set_defaults(func=cmd_login)


def cmd_login(args: argparse.Namespace) -> int:
    from forumbot.client import BoardClient
    from forumbot.store import open_store
    from forumbot.store.logins import LOCKOUT, StoreLoginGuard, blocking_failure, login_failures

    game = _game(args)
    board = _board(args, game)
    tz = board.tz
    with open_store(_store_url(args, game)) as store:
        if args.status:
            failures = login_failures(store, board)
            if not failures:
                print(_("no failed login recorded"))
            for f in failures:
                cleared = (
                    _(", cleared ({who})").format(who=login_cleared_label(f.cleared_by))
                    if f.cleared_at
                    else ""
                )
                what = login_failure_label(f.kind)
                print(
                    f"{_fmt(f.at, tz)}  {f.username}  {what}{colon()}{f.board_message or f.detail}{cleared}"
                )
            if board.username:
                block = blocking_failure(store, board, board.username, at=datetime.now(UTC))
                if block is not None:  # a judge must say --retry before anyone tries again
                    until = _fmt(block.at + LOCKOUT, tz)
                    print(_("before {until} a login needs --retry").format(until=until), file=sys.stderr)
            return 0
        with BoardClient(board, login_guard=StoreLoginGuard(store, board, tz=tz)) as client:
            client.login(retry=args.retry)
            print(_("logged in to {url} ({name})").format(url=board.url, name=board.username))
    return 0
