"""Stored day results: what a judged day carries into the next, with the fingerprint of its inputs.

Why: ``tally --day k`` needs the counters day k-1 left (strikes, proxy votes used, yellow cards, who was
short of posts, who went out); judging days 1…k-1 again for each command made a game O(D²). The desk
(forumbot/desk/carry.py) stores each day's carry-over here with a fingerprint of everything the day was
judged from, and uses it only while the fingerprint it computes now is the same. One row per game and
day, replaced by the latest judgement: it is a cache of what can always be computed again.
"""

from __future__ import annotations

from sqlalchemy import Table, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import SQLModel

from forumbot.errors import StoreError, StoreReadOnly
from forumbot.i18n import _
from forumbot.store.db import Store, upsert_insert
from forumbot.store.dberrors import short_reason

_RESULTS: Table = SQLModel.metadata.tables["day_results"]


def load_day_results(store: Store, gid: int) -> dict[int, tuple[str, str]]:
    """Every stored day of game ``gid``: day → (fingerprint, carry-over JSON)."""
    r = _RESULTS.c
    try:
        with store.engine.connect() as conn:
            rows = conn.execute(select(r.day, r.fingerprint, r.carry_json).where(r.game_id == gid))
            return {day: (fp, carry) for day, fp, carry in rows}
    except SQLAlchemyError as exc:
        raise StoreError(
            _("cannot read the stored day results from {store}: {error}").format(
                store=store.safe_url, error=short_reason(exc)
            )
        ) from exc


def save_day_result(store: Store, gid: int, day: int, fingerprint: str, carry_json: str) -> None:
    """Store (or replace) day ``day``'s carry-over under ``fingerprint``.

    Two processes storing the same day at once both stored a valid result; the loser of the race on a
    backend without upserts leaves the winner's row. Raises StoreError when the database refuses. On a
    read-only store nothing is stored (a shortcut only: the day is judged again next time)."""
    if store.read_only:
        return  # kept to judge faster next time: a read-only store judges again instead
    r = _RESULTS.c
    values = {"game_id": gid, "day": day, "fingerprint": fingerprint, "carry_json": carry_json}
    try:
        with store.engine.begin() as conn:
            name = conn.dialect.name
            if name in ("sqlite", "postgresql"):
                dialect_insert = upsert_insert(name)
                stmt = dialect_insert(_RESULTS).values(values)
                conn.execute(
                    stmt.on_conflict_do_update(
                        index_elements=[r.game_id, r.day],
                        set_={"fingerprint": fingerprint, "carry_json": carry_json},
                    )
                )
                return
            done = conn.execute(
                update(_RESULTS)
                .where(r.game_id == gid, r.day == day)
                .values(fingerprint=fingerprint, carry_json=carry_json)
            )
            if not done.rowcount:
                conn.execute(_RESULTS.insert(), values)
    except IntegrityError:
        return  # another process stored this day in between (see above)
    except StoreReadOnly:
        return  # found read-only only now (a role that may not write this table): judged again next time
    except SQLAlchemyError as exc:
        raise StoreError(
            _("cannot store day {day}'s result in {store}: {error}").format(
                day=day, store=store.safe_url, error=short_reason(exc)
            )
        ) from exc
