"""Reviewed and safe: only approved items go, edits are kept as revisions, secrets reach only their player."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.errors import ConfigError, UsageError
from forumbot.outbox import (
    APPROVED,
    CANCELLED,
    DRAFT,
    SECRET_KINDS,
    Edit,
    ItemKind,
    NewThread,
    Outbox,
    OutboxRefused,
    PrivateMessage,
    Reply,
)
from forumbot.store import outbox as repo
from forumbot.store.db import Store, open_store
from tests.outbox.conftest import UIDS, make_game


@pytest.fixture
def ob(store: Store) -> Outbox:
    return Outbox(store, make_game(auto_approve=["running_count"]), by="法官大人")


PUBLIC_PLACES = [Reply(4), NewThread(3, "主题"), Edit(5, 999)]


@pytest.mark.parametrize("kind", list(ItemKind))
def test_every_kind_keeps_its_secrets(ob: Outbox, kind: ItemKind) -> None:
    """A secret kind only ever goes to its own player's uid; every kind refuses strangers."""
    if kind in SECRET_KINDS:
        for place in PUBLIC_PLACES:
            with pytest.raises(OutboxRefused, match="秘密"):
                ob.add(kind, place, "你的身份是【杀手】", player="饺子")
        with pytest.raises(OutboxRefused, match="只能私信给 饺子 本人"):
            ob.add(kind, PrivateMessage(UIDS["包子"]), "你的身份是【杀手】", player="饺子")
        with pytest.raises(OutboxRefused, match="只能私信给"):
            ob.add(kind, PrivateMessage([UIDS["饺子"], UIDS["包子"]]), "你的身份是【杀手】", player="饺子")
        with pytest.raises(OutboxRefused, match="必须指明"):
            ob.add(kind, PrivateMessage(UIDS["饺子"]), "你的身份是【杀手】")
        item = ob.add(kind, PrivateMessage(UIDS["饺子"]), "你的身份是【杀手】", player="饺子")
        assert ob.get(item).uids == (UIDS["饺子"],)
    else:
        for place in PUBLIC_PLACES:
            assert ob.add(kind, place, "公开内容")
    with pytest.raises(
        OutboxRefused, match="不是本局的玩家或法官" if kind not in SECRET_KINDS else "只能私信给"
    ):
        ob.add(kind, PrivateMessage(99999), "内容", player="饺子")


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(list(ItemKind)),
    uids=st.lists(st.integers(1, 40), min_size=1, max_size=4),
    player=st.sampled_from(["", "饺子", "包子", "路人"]),
)
def test_no_pm_ever_reaches_a_uid_outside_the_game(kind: ItemKind, uids: list[int], player: str) -> None:
    with open_store(":memory:") as store:
        ob = Outbox(store, make_game())
        allowed = set(UIDS.values())
        try:
            item = ob.add(kind, PrivateMessage(uids), "内容", player=player)
        except OutboxRefused:
            return
        got = ob.get(item)
        assert set(got.uids) <= allowed and len(set(got.uids)) == len(got.uids)
        if kind in SECRET_KINDS:
            assert got.uids == (UIDS[player],)


def test_approve_with_an_edit_keeps_both_revisions_and_logs_who(ob: Outbox) -> None:
    item = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】草稿", day=1)
    assert ob.get(item).status == DRAFT
    ob.approve(item, by="执法团甲", body="【票数统计】改过的")
    got = ob.get(item)
    assert got.status == APPROVED and got.approved_by == "执法团甲" and got.body == "【票数统计】改过的"
    revs = repo.revisions(ob.store, item)
    assert [r.body for r in revs] == ["【票数统计】草稿", "【票数统计】改过的"] and revs[1].by == "执法团甲"
    log = repo.log(ob.store, item)
    assert [(e.old_status, e.new_status) for e in log] == [("", DRAFT), (DRAFT, DRAFT), (DRAFT, APPROVED)]


def test_auto_approved_kinds_skip_review_and_others_do_not(ob: Outbox) -> None:
    auto = ob.add(ItemKind.RUNNING_COUNT, Edit(5, 6), "【实时票数】", day=1)
    manual = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】", day=1)
    assert ob.get(auto).status == APPROVED and ob.get(manual).status == DRAFT
    assert "auto-approved" in repo.log(ob.store, auto)[0].note


def test_cancel_keeps_the_row_and_only_unsent_items_can_be_cancelled(ob: Outbox) -> None:
    item = ob.add(ItemKind.VOTE_COUNT, Reply(5), "【票数统计】", day=1)
    ob.cancel(item, by="法官大人", why="写错了")
    assert ob.get(item).status == CANCELLED and repo.log(ob.store, item)[-1].note == "写错了"
    with pytest.raises(UsageError):
        ob.approve(item, by="法官大人")
    with pytest.raises(UsageError):
        ob.cancel(item, by="法官大人")


@pytest.mark.usefixtures("english_messages")  # checked by the English wording (the msgid)
def test_bad_input_gets_a_clear_error(ob: Outbox) -> None:
    with pytest.raises(UsageError, match="empty"):
        ob.add(ItemKind.VOTE_COUNT, Reply(5), "   ")
    with pytest.raises(UsageError, match="unknown outbox kind"):
        ob.add("nonsense", Reply(5), "x")
    with pytest.raises(UsageError, match="no outbox item 4242"):
        ob.get(4242)
    with pytest.raises(ConfigError, match=r"outbox\.auto_approve"):
        Outbox(ob.store, make_game(auto_approve=["votes"]))
    with pytest.raises(ConfigError, match=r"outbox\.uids"):
        Outbox(ob.store, make_game(uids={"路人": 3}))
