"""The store's health: row counts per table and a consistency check of the posts and their revisions."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import SQLModel, select

from forumbot.store.db import Store
from forumbot.store.models import TABLE_NAMES, EventRow, PostRow, RevisionRow


def table_counts(store: Store) -> dict[str, int]:
    """Rows per table (for tests and ``forumbot`` diagnostics)."""
    with store.session() as s:
        return {
            name: int(s.exec(select(func.count()).select_from(SQLModel.metadata.tables[name])).one())
            for name in TABLE_NAMES
        }


def check_consistency(store: Store) -> list[str]:
    """Problems that would mean a broken store (empty when sound): every post has a current revision
    that belongs to it, revision numbers run 1..n, every event points at a stored post."""
    problems: list[str] = []
    with store.session() as s:
        posts = s.exec(select(PostRow)).all()
        revs: dict[int, list[RevisionRow]] = {}
        for r in s.exec(select(RevisionRow)):
            revs.setdefault(r.post_id, []).append(r)
        for p in posts:
            mine = revs.get(p.id or -1, [])
            if not mine:
                problems.append(f"post {p.pid}: no revision")
                continue
            if p.current_revision_id not in {r.id for r in mine}:
                problems.append(f"post {p.pid}: current revision {p.current_revision_id} is not its own")
            numbers = sorted(r.number for r in mine)
            if numbers != list(range(1, len(mine) + 1)) or p.revision_count != len(mine):
                problems.append(f"post {p.pid}: revision numbers {numbers}, count {p.revision_count}")
        post_ids = {p.id for p in posts}
        for e in s.exec(select(EventRow)):
            if e.post_id not in post_ids:
                problems.append(f"event {e.id}: unknown post {e.post_id}")
    return problems
