"""Issue 8 at the desk: judge only what was read, living-only attendance, the judges' notes kept out of
public drafts, overrides that say what they waive, a revote's verdicts listed (example game, R001)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomli_w

from forumbot.cli import main
from forumbot.commands.day import verdict_rows
from forumbot.desk import DayJudgement, Desk, elevator_draft, vote_count_draft
from forumbot.drafts import public_reason
from forumbot.errors import UsageError
from forumbot.store import Store, records
from tests.engine.test_day_revote import PLAYERS, at, plan_revote, post, resolve_revote, tied_day, vote
from tests.judging.conftest import EXAMPLE, MockBoard, example_data, example_game
from tests.judging.test_day_e2e import play_night_one, poll_both_snapshots


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    data = example_data(days=1)
    data["game"]["store"] = "game.db"
    p = tmp_path / "forumbot.toml"
    p.write_text(tomli_w.dumps(data), "utf-8")
    return p


def run(game_file: Path, *args: str) -> int:
    return main(["--game", str(game_file), *args])


@pytest.fixture
def judge(store: Store) -> Desk:
    return Desk(example_game(store.url), store, by="test-judge")


# ----------------------------------------------------------------------------- 1. judge only what was read


def test_a_tally_of_a_day_never_read_says_so_and_exits_non_zero(game_file: Path, capsys) -> None:
    assert run(game_file, "tally", "--day", "1", "--json") == 5
    out = json.loads(capsys.readouterr().out)
    assert out["provisional"] is True and out["read_complete"] is False
    assert any("主题 3 从未被读取" in why for why in out["provisional_reasons"])
    assert any("主题 2 从未被读取" in why for why in out["provisional_reasons"])
    assert run(game_file, "tally", "--day", "1") == 5
    text = capsys.readouterr().out
    assert text.index("非最终结果") < text.index("计票草稿")  # the warning comes above the draft


def test_close_refuses_a_day_read_only_before_the_close_and_force_is_recorded(
    game_file: Path, mock_board: MockBoard, capsys
) -> None:
    assert run(game_file, "setup", "--roles", str(EXAMPLE / "roles.toml")) == 0
    assert run(game_file, "night", "submit", "--night", "1", "--file", str(EXAMPLE / "night1.toml")) == 0
    assert run(game_file, "night", "resolve", "--night", "1") == 0
    mock_board.use("s2")
    assert run(game_file, "poll") == 0  # complete, but not from page 1 after the close... of a first read
    capsys.readouterr()
    assert run(game_file, "close", "--day", "1") == 1
    err = capsys.readouterr().err
    assert "不能结算" in err and "forumbot poll --full" in err
    assert run(game_file, "close", "--day", "1", "--force") == 1  # --force needs --why
    assert run(game_file, "close", "--day", "1", "--force", "--why", "论坛已关闭，执法团手工核对") == 0
    from forumbot.config import load_game
    from forumbot.store import open_store

    game = load_game(game_file)
    with open_store(game.store_url) as st, st.session() as s:
        gid = records.game_id(s, game.name)
        assert gid is not None
        (d,) = records.decisions_for(s, gid, "close_forced", 1)
        assert d.why == "论坛已关闭，执法团手工核对" and d.by and d.detail["read_reasons"]


def test_a_running_count_is_worded_as_a_running_count(judge: Desk, mock_board: MockBoard) -> None:
    from forumbot.config import parse_local_time

    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    judged = judge.tally(1, as_of=parse_local_time("2026-06-04 11:00", judge.game.tz, "--at"))
    draft = vote_count_draft(judge, judged)
    assert "被处决" not in draft and "实时统计" in draft and "统计至 6月4日 11:00" in draft


# ----------------------------------------------------------------------------- 2. attendance: the living


def test_attendance_counts_the_living_and_lists_the_others_apart(store: Store, mock_board: MockBoard) -> None:
    from dataclasses import replace

    game = example_game(store.url)
    game = replace(game, days=(replace(game.days[0], dead=("饺子",)),))  # no roles stored: the file says
    judge = Desk(game, store, by="test-judge")
    poll_both_snapshots(judge, mock_board)
    day = judge.day(1)
    att = judge.attendance(day)
    assert att is not None
    assert "饺子" not in att.counts and "饺子" not in att.deficient()
    assert {p.reason for p in att.posts if p.author == "饺子"} == {"已出局，不计"}
    apart = judge.attendance_apart(day, att)
    assert apart == {"dead": ["饺子"], "judges": [], "spectators": []}
    from datetime import UTC, datetime

    draft = elevator_draft(judge, 1, datetime(2026, 6, 4, 5, 0, tzinfo=UTC))
    assert "[b]饺子[/b]" not in draft
    assert "已出局：饺子" in draft


# ----------------------------------------------------------------------------- 3. the judges' notes


def test_public_reason_drops_doubts_hints_and_corrections() -> None:
    typo = "写错名字算废票：烧麦 不是存活玩家"
    assert public_reason(f"{typo}（是否为 烧卖？）") == typo
    assert public_reason("无法识别的投票（非标准格式（表达清楚即可），请法官确认）") == "无法识别的投票"
    assert public_reason("法官更正（root：按废票处理）→ 投废票") == "投废票"
    assert public_reason("投票截止（13:00）后发帖，无效") == "投票截止（13:00）后发帖，无效"
    assert public_reason("投 B；发帖时间不精确，可能跨越投票截止 13:00，请核对") == "投 B"


def test_no_draft_carries_a_note_for_the_judges(judge: Desk, mock_board: MockBoard) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    judge.override(1, 27, "void", None, "死者投票，执法团确认")
    judged = judge.tally(1)
    draft = vote_count_draft(judge, judged)
    for note in ("请法官确认", "是否为", "法官更正", "执法团确认", "test-judge"):
        assert note not in draft
    rows = verdict_rows(judged, judge.game)
    assert any("是否为 烧卖" in r["reason"] for r in rows)  # the hint stays in the judge's table
    judges_rows = [r for r in rows if r["author"] in judge.game.judges]
    assert judges_rows and not any(r["needs_review"] for r in judges_rows)  # no ⚑ on the judges' posts


# ----------------------------------------------------------------------------- 6. overrides


def test_an_override_waives_an_edit_by_an_explicit_flag_in_any_language(
    judge: Desk, mock_board: MockBoard
) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    judge.override(1, 14, "vote", "饺子", "只改了错别字，执法团认可")  # Chinese, no waiver asked
    assert judge.tally(1).result.verdict(14).status.value == "edited"
    judge.override(1, 14, "vote", "饺子", "只改了错别字，执法团认可", waive_edit=True)
    assert judge.tally(1).result.verdict(14).status.value == "counted"
    judge.override(1, 14, "vote", "饺子", "the edit is fine")  # the English word alone waives nothing
    judge2 = Desk(example_game(judge.store.url), judge.store, by="x")
    assert judge2.tally(1).result.verdict(14).status.value == "counted"  # the recorded waiver stands


def test_an_override_after_the_close_is_refused(judge: Desk, mock_board: MockBoard) -> None:
    play_night_one(judge)
    poll_both_snapshots(judge, mock_board)
    judge.close_day(1)
    with pytest.raises(UsageError, match=r"已结算.*forumbot undo"):
        judge.override(1, 23, "vote", "烧卖", "烧麦 = 烧卖")
    judge.undo()
    judge.override(1, 23, "vote", "烧卖", "烧麦 = 烧卖")  # after the undo it is accepted


# ----------------------------------------------------------------------------- 7. a revote's verdicts


def test_a_revotes_verdicts_are_listed_with_the_first_votes(judge: Desk) -> None:
    r = tied_day()
    plan = plan_revote(r, at(13, 5))
    posts = (*r.input.posts, post(20, "E", at(13, 30), vote("A")), post(21, "G", at(13, 40), vote("B")))
    r2 = resolve_revote(r, plan, posts)
    assert set(PLAYERS) >= {"E", "G"}
    judged = DayJudgement(judge.game.day(1), r2, None, None)
    rows = verdict_rows(judged, judge.game)
    staged = {row["pid"]: row["stage"] for row in rows if row["stage"]}
    assert staged == {20: 1, 21: 1}


def test_on_an_api_board_a_verdict_needs_the_vote_thread_read_from_pc_pages(store: Store) -> None:
    """API v4 strips the edit marker: a full read through the API alone leaves the day provisional."""
    from dataclasses import replace
    from datetime import timedelta

    from forumbot.board import SourceKind
    from forumbot.store.reads import ThreadRead, record_thread_read

    game = example_game(store.url)
    game = replace(game, board=replace(game.board, source=SourceKind.API))
    judge = Desk(game, store, by="test-judge")
    after = game.day(1).closes + timedelta(minutes=5)

    def read(tid: int, source: str) -> None:
        record_thread_read(
            store,
            game.board,
            ThreadRead(tid, after, after, True, True, source, "full", 1, 1, 1, 1, 10, "", "", None, None, ""),
        )

    read(2, "api")
    read(3, "api")
    reasons = judge.tally(1).read_reasons
    assert len(reasons) == 1 and "投票帖 3" in reasons[0] and "电脑版" in reasons[0]
    read(3, "pc")
    judge.refresh()
    assert judge.tally(1).read_reasons == ()
