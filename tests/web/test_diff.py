"""A post's revisions side by side: the judge sees exactly which characters an edit changed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from forumbot.web.diff import DiffRow, side_by_side


def side(rows: list[DiffRow], which: str) -> list[str]:
    out = []
    for r in rows:
        segs = r.left if which == "left" else r.right
        if segs is not None:
            out.append("".join(s.text for s in segs))
    return out


def test_a_swapped_name_is_marked_by_its_characters() -> None:
    rows = side_by_side("投票：烧卖\n理由：太香了", "投票：烧麦\n理由：太香了")
    first = rows[0]
    assert first.changed
    assert [(s.kind, s.text) for s in first.left or ()] == [("same", "投票：烧"), ("del", "卖")]
    assert [(s.kind, s.text) for s in first.right or ()] == [("same", "投票：烧"), ("ins", "麦")]
    assert not rows[1].changed


def test_added_and_removed_lines_stand_alone() -> None:
    rows = side_by_side("投 饺子", "投 饺子\n补充：改主意了")
    assert rows[-1].left is None and rows[-1].right is not None and rows[-1].changed
    rows = side_by_side("一\n二", "二")
    assert rows[0].right is None and rows[0].left is not None


def test_unchanged_text_has_no_changed_row() -> None:
    assert not any(r.changed for r in side_by_side("投 烧卖", "投 烧卖"))


@given(st.text(alphabet="投票烧卖麦\n弃权 ab"), st.text(alphabet="投票烧卖麦\n弃权 ab"))
def test_each_side_rebuilds_its_revision(old: str, new: str) -> None:
    rows = side_by_side(old, new)
    assert side(rows, "left") == (old.splitlines() or [""])
    assert side(rows, "right") == (new.splitlines() or [""])
    assert all(s.kind != "ins" for r in rows for s in (r.left or ()))
    assert all(s.kind != "del" for r in rows for s in (r.right or ()))
