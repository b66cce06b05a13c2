"""The store's plain values and helpers that need no SQLAlchemy: where the store is, and one read of a
thread as callers see it.

Why a module of its own: an idle ``forumbot poll`` reads and records through the standard library's
sqlite3 (forumbot/store/idle.py) so that it starts in a fraction of the time SQLAlchemy and SQLModel
take to import (issue 12); what it shares with the ORM modules (db.py, reads.py) lives here, once.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

DEFAULT_STORE = "forumbot.db"


def store_url(url_or_path: str | Path | None) -> str:
    """The SQLAlchemy URL for a URL or an SQLite path (``None``: ./forumbot.db; ``":memory:"``)."""
    if url_or_path is None:
        url_or_path = DEFAULT_STORE
    text = str(url_or_path)
    if text == ":memory:":
        return "sqlite://"
    if "://" not in text:
        return f"sqlite:///{Path(text).expanduser()}"
    # A bare postgresql:// would pick psycopg2, which forumbot does not depend on.
    for bare in ("postgresql://", "postgres://"):
        if text.startswith(bare):
            return "postgresql+psycopg://" + text[len(bare) :]
    return text


def this_command() -> str:
    """The command line of this process, shortened (what the judge typed)."""
    argv = [os.path.basename(sys.argv[0]) if sys.argv else "forumbot", *sys.argv[1:]]
    text = " ".join(argv)
    return text if len(text) <= 200 else text[:197] + "..."


@dataclass(frozen=True, slots=True)
class ThreadRead:
    """One read of one thread (the row, as callers see it)."""

    tid: int
    started_at: datetime
    finished_at: datetime
    full: bool
    complete: bool
    source: str
    reason: str
    first_page: int | None
    last_page: int | None
    pages: int | None
    pages_read: int
    posts_seen: int
    error_kind: str
    error: str
    listed_replies: int | None
    listed_last_post_at: datetime | None
    listed_last_poster: str
