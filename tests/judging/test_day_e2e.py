"""A whole game day from the board: poll a (mocked) board twice, judge the day, draft the vote count.

The example game (data/examples/meishi, R001): night 1 kills 锅贴; on day 1 烧卖 gets 3 votes, 饺子 2;
馄饨's vote is edited after 11:00 (void + one strike), 汤圆 voids her vote at 12:20 (effective), 粽子
misspells 烧卖, the dead 锅贴 and the spectator 吃瓜群众 "vote", 麻花 votes at 13:05 (late) and 煎饼
never votes.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from engine import (
    OutcomeKind,
    VoteStatus,
)
from forumbot.client import BoardClient
from forumbot.config import parse_local_time
from forumbot.desk import Desk, case_post_draft, read_submissions, vote_count_draft
from forumbot.errors import UsageError
from forumbot.poll import poll
from forumbot.store import Store, open_store
from tests.judging.conftest import EXAMPLE, MockBoard, example_game, example_roles

# These tests check each rule by its message's English wording (the msgid); the Chinese a judge
# reads is checked in tests/test_error_language.py.
pytestmark = pytest.mark.usefixtures("english_messages")


def play_night_one(judge: Desk) -> None:
    judge.setup(roles=example_roles())
    judge.night_entries(1, read_submissions(EXAMPLE / "night1.toml"))
    judge.night_resolve(1)


def poll_both_snapshots(judge: Desk, board: MockBoard) -> None:
    game = judge.game
    client = BoardClient(game.board, sleep=lambda _s: None)
    board.use("s1")
    assert poll(client, judge.store, game.board, game.watched_tids(), progress=False).ok
    board.use("s2")
    assert poll(client, judge.store, game.board, game.watched_tids(), full=True, progress=False).ok


@pytest.fixture
def judge(store: Store) -> Desk:
    return Desk(example_game(store.url), store, by="test-judge")


def statuses(judge: Desk) -> dict[int, str]:
    return {v.pid: v.status.value for v in judge.tally(1).result.verdicts if v.pid}


def test_the_day_is_judged_post_by_post_from_the_board(judge: Desk, mock_board: MockBoard) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    r = judge.tally(1).result
    assert [(t.target, t.count) for t in r.final_tally] == [("烧卖", 3), ("饺子", 2)]
    assert r.outcome.kind is OutcomeKind.EXECUTE and r.outcome.out == ("烧卖",)
    assert statuses(judge) == {
        6: "not_a_player",  # the judges' opening post
        10: "counted",
        12: "counted",
        14: "edited",  # seen as 投票：包子 at 11:00, as 投票：饺子 at 13:30
        16: "counted",
        18: "superseded",  # voided by her own 废票 at 12:20 (≤ 12:30)
        19: "abstain",
        21: "counted",
        23: "void_wrong_name",
        25: "counted",
        27: "dead",
        28: "not_a_player",
        33: "void_self",
        38: "not_a_player",
        39: "late",
    }
    typo = next(v for v in r.verdicts if v.pid == 23)
    assert typo.suggestion == "烧卖" and typo.needs_review
    assert dict(r.strikes_after) == {"馄饨": 1, "麻花": 1, "煎饼": 1}


def test_the_vote_count_draft_links_every_voter_and_reveals_the_identity(
    judge: Desk, mock_board: MockBoard
) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    draft = vote_count_draft(judge, judge.tally(1))
    link = "https://bbs.example.com/forum.php?mod=redirect&goto=findpost&ptid=3&pid="
    assert (
        f"[b]烧卖[/b]（3票）：饺子[url={link}10]#2[/url]、包子[url={link}12]#3[/url]、春卷[url={link}21]#8[/url]"
        in draft
    )
    assert f"粽子[url={link}23]#9[/url]：写错名字算废票" in draft
    assert "未投票：麻花、煎饼" in draft
    assert "[b]烧卖 被处决，身份：杀手[/b]" in draft
    assert "法官大人" not in draft  # the judges' own posts are not listed as invalid votes


def test_a_count_as_of_mid_day_sees_only_what_was_posted_by_then(judge: Desk, mock_board: MockBoard) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    at = parse_local_time("2026-06-04 11:00", judge.game.tz, "at")
    r = judge.tally(1, as_of=at).result
    assert r.provisional
    assert dict(r.counts) == {"烧卖": 4, "饺子": 2}  # 汤圆's void came at 12:20; 馄饨's edit is seen


def test_closing_the_day_executes_and_stores_a_new_state(judge: Desk, mock_board: MockBoard) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    res = judge.close_day(1)
    assert res.out == ("烧卖",)
    st = judge.require_state()
    assert not st.is_alive("烧卖") and st.phase.value == "night" and st.round == 2
    with pytest.raises(UsageError, match="not day 1"):
        judge.close_day(1)


def test_the_case_post_shows_the_dead_and_the_kill_text_but_no_identity(judge: Desk) -> None:
    judge.setup(roles=example_roles())
    judge.night_entries(1, read_submissions(EXAMPLE / "night1.toml"))
    res = judge.night_resolve(1)
    draft = case_post_draft(judge, 1, res.events)
    assert "死者：锅贴" in draft and "饺子皮" in draft
    for role in ("平民", "杀手", "警察", "毒药", "鬼匪"):
        assert role not in draft
    private = [e.text for e in res.events if not e.public]
    assert "烧卖：杀手" in private  # the police's check goes to the police group only


def test_an_override_changes_the_count_and_its_reason_stays_with_the_judges(
    judge: Desk, mock_board: MockBoard
) -> None:
    """Issue 8: an override's reason is the judges' note (their table and JSON), not the public post."""
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    judge.override(1, 23, "vote", "烧卖", "typo accepted by the judges: 烧麦 = 烧卖")
    r = judge.tally(1).result
    assert dict(r.counts)["烧卖"] == 4
    v = next(v for v in r.verdicts if v.pid == 23)
    assert v.override is not None and v.override.by == "test-judge"
    assert "typo accepted" in v.reason
    draft = vote_count_draft(judge, judge.tally(1))
    assert "typo accepted" not in draft and "法官更正" not in draft and "test-judge" not in draft


def test_an_override_of_a_pid_not_in_the_round_is_refused(judge: Desk, mock_board: MockBoard) -> None:
    poll_both_snapshots(judge, mock_board)
    with pytest.raises(UsageError, match="pid 7 is not a post of day 1's vote thread"):
        judge.override(1, 7, "void", None, "wrong thread")  # pid 7 is in the discussion thread
    with pytest.raises(UsageError, match="not in the roster"):
        judge.override(1, 23, "vote", "烧麦", "x")
    with pytest.raises(UsageError, match="needs --why"):
        judge.override(1, 23, "void", None, "  ")


def test_without_a_setup_the_tally_still_works_and_leaves_the_identity_to_the_judge(
    judge: Desk, mock_board: MockBoard
) -> None:
    poll_both_snapshots(judge, mock_board)
    judged = judge.tally(1)
    # no stored state: everyone in the roster is alive, so the dead 锅贴's vote counts for 饺子
    assert dict(judged.result.counts) == {"烧卖": 3, "饺子": 3}
    assert judged.result.outcome.kind is OutcomeKind.REVOTE
    assert "重新投票" in vote_count_draft(judge, judged)


def test_without_a_setup_the_game_file_can_name_the_nights_dead(store: Store, mock_board: MockBoard) -> None:
    game = example_game(store.url)
    game = replace(game, days=(replace(game.days[0], dead=("锅贴",)),))
    judge = Desk(game, store, by="test-judge")
    poll_both_snapshots(judge, mock_board)
    judged = judge.tally(1)
    assert dict(judged.result.counts) == {"烧卖": 3, "饺子": 2}
    assert "身份：＿＿" in vote_count_draft(judge, judged)  # the identity is left to the judge


def test_attendance_counts_valid_discussion_posts_only(judge: Desk, mock_board: MockBoard) -> None:
    poll_both_snapshots(judge, mock_board)
    att = judge.attendance(judge.game.day(1))
    assert att is not None
    assert att.counts["馄饨"] == 0  # 顶
    assert att.counts["煎饼"] == 1
    assert att.counts["饺子"] == 2


def test_edited_vote_evidence_comes_from_the_stored_revisions(judge: Desk, mock_board: MockBoard) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    v = next(v for v in judge.tally(1).result.verdicts if v.pid == 14)
    assert v.status is VoteStatus.EDITED
    assert "编辑" in v.reason
    assert datetime.now(UTC) > v.at


def test_day_two_carries_strikes_and_attendance_and_drowns_the_absent(
    store: Store, mock_board: MockBoard
) -> None:
    """R001 §四.2: fewer than 2 valid posts in two consecutive rounds, or two vote strikes, drown a player;
    his vote is void; the drowning is announced by name without identity; the ghost shows as 杀手."""
    judge = Desk(example_game(store.url, days=2), store, by="test-judge")
    play_night_one(judge)
    client = BoardClient(judge.game.board, sleep=lambda _s: None)
    for snap in ("s1", "s2"):
        mock_board.use(snap)
        assert poll(client, store, judge.game.board, [2, 3], full=True, progress=False).ok
    judge.close_day(1)
    judge.night_entries(2, read_submissions(EXAMPLE / "night2.toml"))
    night = judge.night_resolve(2)
    assert night.out == ("包子",)
    assert "饺子" not in case_post_draft(judge, 2, night.events)  # the possession stays secret
    mock_board.use("s3")
    # a final verdict needs every page read after the close: the read after day 2's close is full
    assert poll(client, store, judge.game.board, judge.game.watched_tids(), full=True, progress=False).ok

    # day 2 gives no `opens`: the case post (the discussion thread's opening post) opens the vote
    assert judge.day(2).opens == parse_local_time("2026-06-04 17:20:05", judge.game.tz, "opens")
    judged = judge.tally(2)
    r = judged.result
    assert dict(r.counts) == {"月饼": 4, "春卷": 3}
    assert {d.player: d.rule.value for d in r.drowned} == {"馄饨": "discussion", "煎饼": "vote_strikes"}
    v = {v.author: v.status.value for v in r.verdicts if v.pid and v.author == "馄饨"}
    assert v == {"馄饨": "drowned"}
    draft = vote_count_draft(judge, judged)
    assert "月饼 被处决，身份：杀手" in draft  # the ghost is revealed only as 杀手
    assert "馄饨" in draft and "煎饼" in draft and "淹死" in draft
    for secret in ("鬼匪", "被附体", "平民", "毒药"):
        assert secret not in draft
    closed = judge.close_day(2)
    assert set(closed.out) == {"月饼", "馄饨", "煎饼"}
    st = judge.require_state()
    assert st.outcome is None and st.round == 3


def test_the_draft_is_the_same_before_and_after_closing_the_day(judge: Desk, mock_board: MockBoard) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    before = vote_count_draft(judge, judge.tally(1))
    judge.close_day(1)
    judge.refresh()
    assert vote_count_draft(judge, judge.tally(1)) == before


def test_undo_steps_back_a_version_and_keeps_it_in_the_history(judge: Desk, mock_board: MockBoard) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    judge.close_day(1)
    assert judge.undo() == ("day 1", "night 1")
    st = judge.require_state()
    assert st.is_alive("烧卖") and st.phase.value == "day" and st.round == 1
    assert judge.undo() == ("night 1", "setup (roles given by the judges)")
    assert judge.state_labelled("night 1") is None  # an undone version no longer opens day 1
    history = judge.history()  # nothing deleted: each undo is a record naming the version it cancels
    assert [v.label for v in history] == ["setup (roles given by the judges)", "night 1", "day 1"]
    assert [v.live for v in history] == [True, False, False]
    assert all(v.undone_by == "test-judge" for v in history[1:])
    judge.night_resolve(1)  # redo: the night can be resolved again
    assert judge.state_labelled("night 1") is not None
    assert [v.label for v in judge.live_history()] == ["setup (roles given by the judges)", "night 1"]
    with open_store(":memory:") as empty, pytest.raises(UsageError, match="nothing to undo"):
        Desk(example_game(empty.url), empty).undo()


def test_a_sending_off_in_the_game_file_is_applied_at_the_close(store: Store, mock_board: MockBoard) -> None:
    """R001 §四.10 (AMB-33): using private messages as evidence ⇒ out at once, named without identity."""
    game = example_game(store.url)
    game = replace(game, days=(replace(game.days[0], sent_off=("粽子",)),))
    judge = Desk(game, store, by="test-judge")
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    draft = vote_count_draft(judge, judge.tally(1))
    assert "粽子" in draft.split("[b]烧卖 被处决，身份：杀手[/b]")[1]
    assert "平民" not in draft
    res = judge.close_day(1)
    assert set(res.out) == {"烧卖", "粽子"}


@pytest.mark.parametrize(("minutes", "late"), [(59, False), (61, True)])
def test_the_extra_check_after_checking_the_poison_has_a_sixty_minute_window(
    judge: Desk, minutes: int, late: bool
) -> None:
    """毒药被验：警察额外获得一次验人 (AMB-15: 60 minutes after the first result, else forfeited)."""
    from datetime import timedelta

    from forumbot.desk import action_from_fields

    judge.setup(roles=example_roles())
    at = parse_local_time("2026-06-03 16:30", judge.game.tz, "at")
    judge.night_submit(1, action_from_fields("kill", {"by": "烧卖", "target": "锅贴", "pledge": "烧卖"}), at)
    judge.night_submit(1, action_from_fields("check", {"by": "包子", "target": "油条"}), at)
    res = judge.night_resolve(1)
    assert "油条：毒药" in [e.text for e in res.events]
    result_at = parse_local_time("2026-06-03 17:05", judge.game.tz, "at")
    extra = judge.night_extra_check(1, "月饼", result_at + timedelta(minutes=minutes), result_at=result_at)
    texts = [e.text for e in extra.events]
    assert ("月饼：杀手" in texts) is not late
    with pytest.raises(UsageError, match="not resolved"):
        judge.night_extra_check(2, "月饼", result_at)
