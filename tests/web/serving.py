"""The desk served by waitress in a thread for a test, and stopped without a race.

Why: ``server.close()`` from the test's thread closes the sockets while the server's thread is inside
``select()`` on them, which then raises EBADF in that thread (a teardown error now and then). Stopping
from inside the server's own loop (its trigger runs a callable there) closes every socket between two
``select()`` calls; the loop then finds its map empty and returns. The worker threads are stopped
before, since a task that ends pulls the trigger (a closed one: EBADF in the worker).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from waitress import wasyncore  # type: ignore[import-untyped]

from forumbot.commands.webdesk import make_server


@contextmanager
def serving(app: Any) -> Iterator[Any]:
    """``with serving(app) as server: server.effective_port`` — the desk on 127.0.0.1, a free port."""
    server = make_server(app, "127.0.0.1", 0)
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    try:
        yield server
    finally:
        server.task_dispatcher.shutdown()  # the workers first: a finished task pulls the trigger
        server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
        t.join(10)
