"""The lossless store: every post, every distinct revision, every state change, every fetch.

``open_store(url_or_path)`` (db.py) opens it; models.py holds every table. The units of work and
queries, by concern: posts.py (posts and their revisions), threads.py (what a poll learnt about each
thread), fetchlog.py (every HTTP exchange and poll run), records.py (the judges' records of a game:
state versions and undos, night submissions, overrides, proxy votes, revotes), health.py (counts and a
consistency check); base.py the unit of work they share. They return plain dataclasses (``StoredPost``
with its revisions): callers never see a row outside the store.
"""

from forumbot.store.db import DEFAULT_STORE, Store, open_store

__all__ = ["DEFAULT_STORE", "Store", "open_store"]
