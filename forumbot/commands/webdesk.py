"""Serving the judges' web desk: the server, its address, the warnings. What ``forumbot serve`` and
``forumbot demo --serve`` both use.

Why a module of its own: ``serve --demo`` plays the demo (commands/demo.py) and ``demo --serve`` serves
the desk; with the serving in serve.py, the two commands imported each other.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from forumbot.errors import UsageError
from forumbot.i18n import _

if TYPE_CHECKING:
    from forumbot.config import Game
    from forumbot.store.db import Store

DEFAULT_PORT = 8765
LOCALHOST = ("127.0.0.1", "localhost", "::1")


def need_web() -> None:
    """The desk's libraries come with the ``web`` extra: say how to get them instead of a traceback."""
    import importlib.util

    missing = [m for m in ("flask", "argon2", "waitress") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            _("the web desk needs {mods}: pip install 'forumbot[web]'").format(mods=", ".join(missing))
        )


def _warn_if_public(host: str) -> None:
    if host not in LOCALHOST:
        print(
            _(
                "warning: the desk shows roles and night actions; it now listens on {host}: "
                "put it behind HTTPS and a firewall"
            ).format(host=host),
            file=sys.stderr,
        )


def serve_game(game: Game, store: Store, *, host: str, port: int, lang: str) -> None:
    """Serve the desk over ``game`` and ``store`` until interrupted (the store stays open)."""
    from forumbot.store import judges as repo
    from forumbot.web.app import create_app

    _warn_if_public(host)
    if not repo.list_judges(store):
        print(_("no judge can log in yet: add one with `forumbot judges add NAME`"), file=sys.stderr)
    serve_app(create_app(game, store, lang=lang), host, port)


def make_server(app: Any, host: str, port: int) -> Any:
    """A waitress server for the desk (a small production WSGI server: threads, no reloader); port 0
    picks a free one (``server.effective_port``)."""
    from waitress import create_server  # type: ignore[import-untyped]

    return create_server(app, host=host, port=port, threads=4, ident="forumbot-desk")


def serve_app(app: Any, host: str, port: int) -> None:
    """Serve until interrupted, after printing the desk's address."""
    server = make_server(app, host, port)
    url = f"http://{host}:{server.effective_port}/"
    print(_("the judges' desk is open at {url}").format(url=url), flush=True)
    try:
        server.run()
    finally:
        server.close()
