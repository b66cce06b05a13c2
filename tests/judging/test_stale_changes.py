"""Several judges at once (issue 20): every change to the secret state names the version it was decided
on, every outbox edit the revision it was made from; a change decided on an older one is refused in the
judge's words (who changed what, when) and nothing is stored — on SQLite and PostgreSQL alike.

Two Desk objects on one store are two judges (each step opens its own session); a desk "pinned" to a
version (``expected_version``) is a judge acting on a page that showed that version.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from forumbot.desk import Desk
from forumbot.errors import StaleChange, UsageError
from forumbot.outbox import ItemKind, Outbox, Reply
from forumbot.store import Store, open_store
from forumbot.store import outbox as outbox_repo
from tests.judging import daygame

ROLES = {"甲": "杀手", "乙": "警察", "丙": "平民", "丁": "平民", "戊": "平民", "己": "平民"}


WHY = "主题已由法官手工核对"  # the threads are stored, not read from a board: close as judges who counted


def desk_of(store: Store, by: str) -> Desk:
    return Desk(daygame.game(store.url), store, by=by)


@pytest.fixture
def at_day_1(store: Store) -> Store:
    """A game with roles drawn and night 1 resolved: day 1 waits to be closed."""
    daygame.fill(store)
    desk = desk_of(store, "一号法官")
    desk.setup(roles=ROLES)
    desk.night_resolve(1)
    return store


def labels(store: Store) -> list[str]:
    return [v.label for v in desk_of(store, "旁观").live_history()]


def test_a_close_from_an_old_page_is_refused_naming_the_newer_close(at_day_1: Store) -> None:
    mine, theirs = desk_of(at_day_1, "一号法官"), desk_of(at_day_1, "二号法官")
    page_showed = mine.current_version()
    theirs.close_day(1, force_why=WHY)
    before = labels(at_day_1)
    mine.expected_version = page_showed
    with pytest.raises(StaleChange) as refused:
        mine.close_day(1, force_why=WHY)
    message = str(refused.value)
    assert "二号法官" in message and "第1日结算" in message and "请刷新" in message
    assert labels(at_day_1) == before == ["setup (roles given by the judges)", "night 1", "day 1"]


def test_the_refusal_gives_the_time_on_the_boards_clock(at_day_1: Store) -> None:
    mine, theirs = desk_of(at_day_1, "一号法官"), desk_of(at_day_1, "二号法官")
    mine.expected_version = mine.current_version()
    theirs.close_day(1, force_why=WHY)
    closed = theirs.history()[-1].at.astimezone(daygame.game(at_day_1.url).tz)
    with pytest.raises(StaleChange) as refused:
        mine.close_day(1, force_why=WHY)
    assert refused.value.at == closed.strftime("%m-%d %H:%M")


def test_an_undo_after_another_judges_step_is_refused(at_day_1: Store) -> None:
    mine, theirs = desk_of(at_day_1, "一号法官"), desk_of(at_day_1, "二号法官")
    mine.state()  # what my undo would cancel: night 1, as I read it
    theirs.close_day(1, force_why=WHY)
    with pytest.raises(StaleChange, match="二号法官"):
        mine.undo()  # would have cancelled 二号法官's close, not the night I saw
    assert labels(at_day_1) == ["setup (roles given by the judges)", "night 1", "day 1"]


def test_two_undos_of_the_same_step_give_one(at_day_1: Store) -> None:
    mine, theirs = desk_of(at_day_1, "一号法官"), desk_of(at_day_1, "二号法官")
    mine.state()
    theirs.state()
    theirs.undo()
    with pytest.raises(StaleChange, match="二号法官"):
        mine.undo()
    assert labels(at_day_1) == ["setup (roles given by the judges)"]


def test_a_resolve_decided_before_an_undo_and_resolve_again_is_refused(at_day_1: Store) -> None:
    mine, theirs = desk_of(at_day_1, "一号法官"), desk_of(at_day_1, "二号法官")
    mine.expected_version = mine.current_version()
    theirs.undo()  # night 1 undone: the game is back at the setup, a version later
    with pytest.raises(StaleChange, match="二号法官"):
        mine.night_resolve(1)
    assert labels(at_day_1) == ["setup (roles given by the judges)"]


def test_a_second_night_resolve_is_refused_in_chinese(at_day_1: Store) -> None:
    with pytest.raises(UsageError) as refused:
        desk_of(at_day_1, "二号法官").night_resolve(1)
    assert "第1夜已经结算" in str(refused.value) and "一号法官" in str(refused.value)
    assert labels(at_day_1) == ["setup (roles given by the judges)", "night 1"]


def test_a_judge_who_read_the_current_version_is_not_refused(at_day_1: Store) -> None:
    mine = desk_of(at_day_1, "一号法官")
    mine.expected_version = mine.current_version()
    mine.close_day(1, force_why=WHY)
    mine.undo()  # its own close: the version it now holds
    assert labels(at_day_1) == ["setup (roles given by the judges)", "night 1"]


# --------------------------------------------------------------------------- outbox edits


def _draft(store: Store) -> tuple[Outbox, int]:
    game = daygame.game(store.url)
    ob = Outbox(store, game, now=lambda: datetime(2026, 6, 4, 5, 0, tzinfo=UTC))
    item_id = ob.add(
        ItemKind.JUDGE_POST, Reply(daygame.vote_tid(1)), "第1日计票（草稿）", day=1, by="一号法官"
    )
    return ob, item_id


def test_an_edit_from_an_old_revision_does_not_replace_the_newer_edit(store: Store) -> None:
    ob, item_id = _draft(store)
    read = ob.get(item_id).revision
    ob.approve(item_id, by="二号法官", body="第1日计票（二号法官改）", expected_revision=read)
    with pytest.raises(StaleChange) as refused:
        ob.approve(item_id, by="一号法官", body="第1日计票（一号法官改）", expected_revision=read)
    assert "二号法官" in str(refused.value) and "请刷新" in str(refused.value)
    item = ob.get(item_id)
    assert item.body == "第1日计票（二号法官改）" and item.approved_by == "二号法官"
    assert [r.by for r in outbox_repo.revisions(store, item_id)][-1] == "二号法官"


def test_an_approval_or_cancel_of_an_old_revision_is_refused(store: Store) -> None:
    ob, item_id = _draft(store)
    read = ob.get(item_id).revision
    outbox_repo.revise(store, item_id, body="改过的正文", subject=None, by="二号法官", expect={"draft"})
    for act in (
        lambda: ob.approve(item_id, by="一号法官", expected_revision=read),
        lambda: ob.cancel(item_id, by="一号法官", expected_revision=read),
    ):
        with pytest.raises(StaleChange, match="二号法官"):
            act()
    assert ob.get(item_id).status == "draft"


# --------------------------------------------------------------------------- two processes


def _close_in_another_process(url: str, schema: str, start: Any, out: Any) -> None:
    """`forumbot day close --day 1` as a second process runs it: read, wait for the other, close."""
    store = open_store(url, connect_args={"options": f"-csearch_path={schema}"})
    try:
        desk = desk_of(store, f"法官{multiprocessing.current_process().name}")
        desk.expected_version = desk.current_version()  # both read the same version
        start.wait(timeout=60)
        try:
            desk.close_day(1, force_why=WHY)
            out.put("closed")
        except StaleChange as exc:
            out.put(f"refused: {exc}")
        except UsageError as exc:
            out.put(f"other: {exc}")
    finally:
        store.close()


@pytest.mark.postgres
def test_two_processes_closing_the_same_day_give_one_close_and_one_refusal(
    pg_schema_store: Callable[[], Store],
) -> None:
    store = pg_schema_store()
    daygame.fill(store)
    desk = desk_of(store, "一号法官")
    desk.setup(roles=ROLES)
    desk.night_resolve(1)
    with store.engine.connect() as conn:
        schema = conn.exec_driver_sql("select current_schema()").scalar_one()
    url = store.engine.url.render_as_string(hide_password=False)
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(target=_close_in_another_process, args=(url, schema, start, out), name=str(i))
        for i in (1, 2)
    ]
    for p in procs:
        p.start()
    results = sorted(out.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(timeout=60)
    assert results[0] == "closed" and results[1].startswith("refused: "), results
    assert "第1日结算" in results[1]
    assert labels(store) == ["setup (roles given by the judges)", "night 1", "day 1"]
