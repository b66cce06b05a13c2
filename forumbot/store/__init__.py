"""The lossless store: every post, every distinct revision, every state change, every fetch.

``open_store(url_or_path)`` (db.py) opens it; repo.py holds the units of work and queries, which
return plain dataclasses (``StoredPost`` with its revisions): callers never see a session.
"""

from forumbot.store.db import DEFAULT_STORE, Store, open_store

__all__ = ["DEFAULT_STORE", "Store", "open_store"]
