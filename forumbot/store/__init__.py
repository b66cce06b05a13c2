"""The lossless store: every post, every distinct revision, every state change, every fetch.

``open_store(url_or_path)`` (db.py) opens it; models.py holds every table. The units of work and
queries, by concern: posts.py (posts and their revisions), threads.py (what a poll learnt about each
thread), fetchlog.py (every HTTP exchange and poll run), records.py (the judges' records of a game:
state versions and undos, night submissions, overrides, proxy votes, revotes), health.py (counts and a
consistency check); base.py the unit of work they share; dberrors.py every database error in the
judge's words (a read-only store, a full disk), never with SQL. They return plain dataclasses (``StoredPost``
with its revisions): callers never see a row outside the store. idle.py is an idle poll's check and
record through the standard library's sqlite3 (no SQLAlchemy to import), values.py what it shares.

``Store`` and ``open_store`` are imported from db.py when first asked for, not with the package: the
package is also what idle.py is imported through, and db.py brings SQLAlchemy and SQLModel (most of an
idle poll's start-up, issue 12).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forumbot.store.values import DEFAULT_STORE

if TYPE_CHECKING:
    from forumbot.store.db import Store, open_store

__all__ = ["DEFAULT_STORE", "Store", "open_store"]


def __getattr__(name: str) -> object:
    if name in ("Store", "open_store"):
        from forumbot.store import db

        return getattr(db, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
