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

from engine import Kill
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


# ------------------------------------------------------------------ night corrections, overrides, sends

KILL_AT = datetime(2026, 6, 3, 8, 30, tzinfo=UTC)  # 16:30 on night 1, before its deadline


@pytest.fixture
def at_night_1(store: Store) -> tuple[Store, int]:
    """Roles stored, night 1 open with one stored kill (甲 the killer on 丙): (store, its row id)."""
    daygame.fill(store)
    desk = desk_of(store, "一号法官")
    desk.setup(roles=ROLES)
    desk.night_record(1, [(Kill(victim="丙", by="甲"), KILL_AT)], reason="杀手私信")
    st = desk.require_state()
    return store, desk.stored_submissions(1, st)[0].row_id


def test_two_corrections_of_the_same_night_submission_give_one(at_night_1: tuple[Store, int]) -> None:
    store, row = at_night_1
    mine, theirs = desk_of(store, "一号法官"), desk_of(store, "二号法官")
    theirs.night_correct(1, row, Kill(victim="丁", by="甲"), "杀手改刀")
    with pytest.raises(StaleChange) as refused:
        mine.night_correct(1, row, Kill(victim="戊", by="甲"), "我看到的是刀丙")
    assert "二号法官 已于" in str(refused.value) and "请刷新" in str(refused.value)
    st = mine.require_state()
    assert [s.action for s in mine.stored_submissions(1, st)] == [Kill(victim="丁", by="甲")]
    assert mine.night_preview(1).out == ("丁",)  # the corrected night, as `night resolve` stores it


def test_a_correction_after_the_resolution_is_refused_until_undone(at_night_1: tuple[Store, int]) -> None:
    store, row = at_night_1
    desk = desk_of(store, "一号法官")
    desk.night_resolve(1)
    with pytest.raises(UsageError, match="先撤销"):
        desk_of(store, "二号法官").night_correct(1, row, None, "录错")
    desk.undo()
    desk_of(store, "二号法官").night_correct(1, row, None, "录错")
    assert desk.night_preview(1).out == ()


def test_an_override_of_a_post_another_judge_overrode_is_refused(at_day_1: Store) -> None:
    mine, theirs = desk_of(at_day_1, "一号法官"), desk_of(at_day_1, "二号法官")
    pid = daygame.vote_pid(1, 0)
    theirs.override(1, pid, "ignore", None, "灌水", seen=0)
    with pytest.raises(StaleChange) as refused:
        mine.override(1, pid, "void", None, "废票", seen=0)
    assert "二号法官 已于" in str(refused.value)
    assert [(o.pid, o.kind.value) for o in mine.overrides(1)] == [(pid, theirs.overrides(1)[0].kind.value)]
    mine.override(1, pid, "void", None, "看过二号法官的改判后仍算废票", seen=1)  # from a fresh page
    assert mine.overrides(1)[0].why == "看过二号法官的改判后仍算废票"


def test_a_send_of_an_old_revision_is_refused(store: Store) -> None:
    ob, item_id = _draft(store)
    ob.approve(item_id, by="一号法官")
    read = ob.get(item_id).revision
    ob.approve(item_id, by="二号法官", body="第1日计票（二号法官改）", expected_revision=read)
    with pytest.raises(StaleChange, match="二号法官"):
        ob.check_revision(item_id, read, by="一号法官")
    assert ob.check_revision(item_id, read + 1, by="一号法官").body == "第1日计票（二号法官改）"


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


def _race_in_another_process(url: str, schema: str, what: str, arg: int, start: Any, out: Any) -> None:
    """A second judge's desk in its own process: read, wait for the other at the barrier, act."""
    store = open_store(url, connect_args={"options": f"-csearch_path={schema}"})
    try:
        desk = desk_of(store, f"法官{multiprocessing.current_process().name}")
        start.wait(timeout=60)
        try:
            if what == "override":
                desk.override(1, arg, "ignore", None, "灌水", seen=0)
            else:
                desk.night_correct(1, arg, None, "录错")
            out.put("done")
        except StaleChange as exc:
            out.put(f"refused: {exc}")
        except UsageError as exc:
            out.put(f"other: {exc}")
    finally:
        store.close()


def _race(store: Store, what: str, arg: int) -> list[str]:
    with store.engine.connect() as conn:
        schema = conn.exec_driver_sql("select current_schema()").scalar_one()
    url = store.engine.url.render_as_string(hide_password=False)
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(target=_race_in_another_process, args=(url, schema, what, arg, start, out), name=str(i))
        for i in (1, 2)
    ]
    for p in procs:
        p.start()
    results = sorted(out.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(timeout=60)
    return results


@pytest.mark.postgres
def test_two_processes_overriding_the_same_post_give_one_override_and_one_refusal(
    pg_schema_store: Callable[[], Store],
) -> None:
    store = pg_schema_store()
    daygame.fill(store)
    desk = desk_of(store, "一号法官")
    desk.setup(roles=ROLES)
    desk.night_resolve(1)
    pid = daygame.vote_pid(1, 0)
    results = _race(store, "override", pid)
    assert results[0] == "done" and results[1].startswith("refused: "), results
    assert len(desk.overrides(1)) == 1


@pytest.mark.postgres
def test_two_processes_withdrawing_the_same_submission_give_one(pg_schema_store: Callable[[], Store]) -> None:
    store = pg_schema_store()
    daygame.fill(store)
    desk = desk_of(store, "一号法官")
    desk.setup(roles=ROLES)
    desk.night_record(1, [(Kill(victim="丙", by="甲"), KILL_AT)])
    row = desk.stored_submissions(1, desk.require_state())[0].row_id
    results = _race(store, "correct", row)
    assert results[0] == "done" and results[1].startswith("refused: "), results
    with store.session() as s:
        from forumbot.store import records

        rows = records.night_submission_records(s, desk.gid, 1)
    assert [r.withdrawn for r in rows] == [True]
