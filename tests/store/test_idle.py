"""forumbot/store/idle.py writes the ORM's rows without the ORM: the same columns, the same formats.

(That an idle poll recorded through it equals one recorded through the ORM, row for row, is checked in
tests/poll/test_idle_poll.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlmodel import SQLModel

from forumbot.store import models
from forumbot.store.idle import WRITTEN, _in, _out, sqlite_path


@pytest.mark.parametrize("table", sorted(WRITTEN))
def test_every_column_of_a_written_table_is_written(table: str) -> None:
    assert models.TABLE_NAMES  # the models are loaded
    model = [c.name for c in SQLModel.metadata.tables[table].columns if c.name != "id"]
    assert sorted(WRITTEN[table]) == sorted(model), "a new column: write it in forumbot/store/idle.py too"


def test_times_are_stored_as_the_orm_stores_them() -> None:
    shanghai = timezone(timedelta(hours=8))
    at = datetime(2026, 6, 4, 9, 5, 7, 120, tzinfo=shanghai)
    assert _out(at) == "2026-06-04 01:05:07.000120"
    assert _out(datetime(2026, 6, 4, 1, 0, tzinfo=UTC)) == "2026-06-04 01:00:00.000000"
    assert _in("2026-06-04 01:05:07.000120") == at
    assert _in(None) is None and _out(None) is None
    with pytest.raises(ValueError, match="aware"):
        _out(datetime(2026, 6, 4, 1, 0))


@pytest.mark.parametrize(
    ("given", "path"),
    [
        ("game.db", Path("game.db")),
        ("/srv/judge/game.db", Path("/srv/judge/game.db")),
        ("sqlite:////srv/judge/game.db", Path("/srv/judge/game.db")),
        (":memory:", None),
        ("sqlite://", None),
        ("postgresql://judge@db/forumbot", None),
        ("sqlite:///game.db?mode=ro", None),
    ],
)
def test_only_sqlite_files_are_for_the_idle_check(given: str, path: Path | None) -> None:
    assert sqlite_path(given) == path
