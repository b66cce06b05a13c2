"""Issue 8 at the night desk: a file of submissions is recorded all or nothing and once; what the rules
void is recorded and judged void with its rule; a second check or a late change is said so (R001,
the example game: 烧卖 杀手, 月饼 鬼匪, 包子/春卷 警察; night 1's deadline 2026-06-03 17:00)."""

from __future__ import annotations

import pytest

from engine import IllegalActionError
from forumbot.desk import Desk
from forumbot.store import Store, records
from tests.judging.conftest import example_game, example_roles

# These tests check each rule by its message's English wording (the msgid); the Chinese a judge
# reads is checked in tests/test_error_language.py.
pytestmark = pytest.mark.usefixtures("english_messages")

KILL = {"kind": "kill", "by": "烧卖", "target": "锅贴", "pledge": "烧卖", "at": "2026-06-03 16:40"}
CHECK = {"kind": "check", "by": "包子", "target": "烧卖", "at": "2026-06-03 16:55"}


@pytest.fixture
def judge(store: Store) -> Desk:
    desk = Desk(example_game(store.url), store, by="test-judge")
    desk.setup(roles=example_roles())
    return desk


def stored(judge: Desk, n: int = 1) -> list[dict]:
    with judge.store.session() as s:
        return [d for d, _at in records.night_submissions(s, judge.gid, n)]


def test_a_file_with_a_bad_entry_records_nothing_and_the_corrected_file_records_each_entry_once(
    judge: Desk,
) -> None:
    bad = {"kind": "check", "by": "饺子", "target": "烧卖", "at": "2026-06-03 16:55"}  # 饺子 is no police
    with pytest.raises(IllegalActionError, match=r"entry 2.*nothing was recorded"):
        judge.night_entries(1, [KILL, bad])
    assert stored(judge) == []
    first = judge.night_entries(1, [KILL, CHECK])
    again = judge.night_entries(1, [KILL, CHECK])
    assert [r.duplicate for r in first] == [False, False]
    assert [r.duplicate for r in again] == [True, True]
    assert len(stored(judge)) == 2


def test_a_kill_and_a_possession_of_the_same_player_is_recorded_and_judged_void(judge: Desk) -> None:
    """AMB-08: kills resolve first; the possession of the victim is void (and used up, by default)."""
    (rec,) = judge.night_entries(1, [KILL | {"possess": "锅贴"}])
    assert rec.void_rule == "AMB-08" and not rec.duplicate
    assert len(stored(judge)) == 1
    res = judge.night_resolve(1)
    assert res.out == ("锅贴",)
    assert any("AMB-08" in e.text for e in res.events if not e.public)
    assert res.state.possession_used  # void and consumed


def test_what_was_submitted_after_the_deadline_can_still_be_recorded(judge: Desk) -> None:
    (rec,) = judge.night_entries(1, [KILL | {"possess": "锅贴", "at": "2026-06-03 17:10"}])
    assert rec.late and rec.void_rule == "AMB-08"
    res = judge.night_resolve(1)
    assert res.out == ()  # a late kill: 平安夜


def test_a_second_police_check_is_said_to_replace_the_first(judge: Desk) -> None:
    judge.night_entries(1, [CHECK])
    (rec,) = judge.night_entries(1, [CHECK | {"by": "春卷", "target": "月饼", "at": "2026-06-03 16:58"}])
    assert "取代" in rec.replaces and "烧卖" in rec.replaces


def test_a_groups_late_change_of_its_kill_is_refused_and_the_group_is_told(judge: Desk) -> None:
    judge.night_entries(1, [KILL])
    (rec,) = judge.night_entries(1, [KILL | {"target": "饺子", "at": "2026-06-03 17:05"}])
    assert "超时的修改不生效" in rec.replaces
    res = judge.night_resolve(1)
    assert res.out == ("锅贴",)
    told = [e for e in res.events if str(e.audience) != "public" and "修改无效" in e.text]
    assert len(told) == 1 and told[0].audience.name == "bandits" and "锅贴" in told[0].text


def test_a_file_without_times_run_twice_records_each_entry_once(judge: Desk) -> None:
    untimed = [{k: v for k, v in e.items() if k != "at"} for e in (KILL, CHECK)]
    judge.night_entries(1, untimed)
    again = judge.night_entries(1, untimed)
    assert [r.duplicate for r in again] == [True, True] and len(stored(judge)) == 2
