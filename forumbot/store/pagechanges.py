"""What storing one page changed, and the key a post's revision is stored under.

Why a module of its own: both the queries (posts.py, whose :func:`~forumbot.store.posts.record_thread_page`
is the public way to store a page) and the batched writer behind it (pagewrite.py) need these records;
kept in either, the two modules imported each other.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from forumbot.parsers.records import Post, PostState, QuoteRef


@dataclass(frozen=True, slots=True)
class StateChange:
    pid: int
    tid: int
    old: PostState | None
    new: PostState
    at: datetime
    note: str = ""


@dataclass(frozen=True, slots=True)
class PageResult:
    """What storing one page changed."""

    tid: int
    page: int
    pids: tuple[int, ...]  # the pids stored from this page (after dedupe)
    new_posts: tuple[int, ...] = ()
    new_revisions: tuple[int, ...] = ()  # pids that got a new revision
    state_changes: tuple[StateChange, ...] = ()


def normalise_text(text: str) -> str:
    """NFC, no-break spaces as spaces, runs of blanks collapsed, blank lines dropped."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\xa0", " ").replace("\u3000", " ")
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def content_hash(text: str, quotes: Iterable[QuoteRef], state: PostState | str) -> str:
    """The revision key: normalised text, whom the quotes quote (pid, else author and excerpt), state."""
    qs = [
        [q.pid, normalise_text(q.author)]
        if q.pid is not None
        else [None, normalise_text(q.author), normalise_text(q.text)]
        for q in quotes
    ]
    payload = json.dumps(
        {"t": normalise_text(text), "q": qs, "s": str(state)}, ensure_ascii=False, sort_keys=True
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def post_hash(post: Post) -> str:
    return content_hash(post.text, post.quotes, post.state)
