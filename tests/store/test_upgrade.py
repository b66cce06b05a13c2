"""A store made by an older forumbot opens in a newer one: the columns added since are added, with
their defaults on the old rows, and nothing that was there is changed or lost."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Integer, MetaData, String, Table, text

from forumbot.store import Store
from forumbot.store.db import add_missing_columns


def _old_and_new() -> tuple[Table, Table]:
    old = Table("upgrade_probe", MetaData(), Column("id", Integer, primary_key=True), Column("body", String))
    new = Table(
        "upgrade_probe",
        MetaData(),
        Column("id", Integer, primary_key=True),
        Column("body", String),
        Column("moment_key", String(120), default="", nullable=False),
        Column("tries", Integer, default=0, nullable=False),
        Column("sent", Boolean, default=False, nullable=False),
        Column("note", String, nullable=True),
    )
    return old, new


def test_an_old_table_gets_the_new_columns_with_their_defaults(store: Store) -> None:
    old, new = _old_and_new()
    old.create(store.engine)
    with store.engine.begin() as conn:
        conn.execute(old.insert().values(id=1, body="旧的草稿"))

    added = add_missing_columns(store.engine, [new])

    assert added == [
        "upgrade_probe.moment_key",
        "upgrade_probe.tries",
        "upgrade_probe.sent",
        "upgrade_probe.note",
    ]
    with store.engine.begin() as conn:
        row = conn.execute(text("SELECT id, body, moment_key, tries, sent, note FROM upgrade_probe")).one()
    assert tuple(row) == (1, "旧的草稿", "", 0, False, None)


def test_a_store_that_is_up_to_date_is_left_alone(store: Store) -> None:
    _, new = _old_and_new()
    new.create(store.engine)
    assert add_missing_columns(store.engine, [new]) == []


def test_a_missing_table_is_not_added_column_by_column(store: Store) -> None:
    _, new = _old_and_new()
    assert add_missing_columns(store.engine, [new]) == []  # create_all makes whole tables
