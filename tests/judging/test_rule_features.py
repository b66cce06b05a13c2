"""The desk's last words (遗言) and R004 delay/acceleration applications, from posts in the store.

R001 §四.5.3: “执法团需确认被票死的警察已经发布完毕遗言之后，方可给出当日的验人结果，以及发布新案情。”
R004: “未出局角色可于白天在进程帖中申请加速或延时。申请加速或延时的人数大于等于存活人数的一半，即判定加速或
延时成功。”
"""

from __future__ import annotations

import tomllib
from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from engine import Check, Kill
from forumbot.client import BoardClient
from forumbot.config import game_from_dict
from forumbot.desk import Desk, read_submissions
from forumbot.poll import poll
from forumbot.store import Store
from forumbot.store.posts import record_thread_page
from tests.judging.conftest import BOARD_URL, EXAMPLE_R004, MockBoard, example_game, example_roles
from tests.store.helpers import page, post

SH = ZoneInfo("Asia/Shanghai")


def sh(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=SH)


# ---- R001: the executed police officer's last words -------------------------------------------------


def r001_police_executed(store: Store, board: MockBoard) -> Desk:
    """The example game with 烧卖 dealt the police card: day 1's vote executes him."""
    judge = Desk(example_game(store.url), store, by="test-judge")
    roles = example_roles() | {"烧卖": "警察", "包子": "杀手"}
    judge.setup(roles=roles)
    judge.night_submit(1, Kill("锅贴", pledge="包子", text="月黑风高"), sh("2026-06-03 16:40"))
    judge.night_submit(1, Check("包子"), sh("2026-06-03 16:55"))
    judge.night_resolve(1)
    client = BoardClient(judge.game.board, sleep=lambda _s: None)
    for snap in ("s1", "s2"):
        board.use(snap)
        assert poll(client, store, judge.game.board, judge.game.watched_tids(), full=True, progress=False).ok
    assert judge.close_day(1).out == ("烧卖",)
    return judge


def words(store: Store, judge: Desk, when: str, pid: int = 900) -> None:
    """烧卖 posts his last words in [讨论] (tid 2)."""
    p = post(pid, "我是警察，包子是我验的杀手。", tid=2, author="烧卖", floor=pid, at=sh(when))
    record_thread_page(store, judge.game.board, page([p], tid=2), seen_at=sh(when))


def test_the_check_result_and_the_case_post_wait_for_the_officers_words(
    store: Store, mock_board: MockBoard
) -> None:
    judge = r001_police_executed(store, mock_board)
    report = judge.last_words(1, sh("2026-06-04 14:00"))
    assert [w.player for w in report.windows] == ["烧卖"]
    assert report.windows[0].due == sh("2026-06-04 17:00")
    assert report.held.released_at is None and report.held.holds == ("check_result", "case_post")


def test_words_posted_at_15_00_release_them_at_15_00(store: Store, mock_board: MockBoard) -> None:
    judge = r001_police_executed(store, mock_board)
    words(store, judge, "2026-06-04 15:00")
    report = judge.last_words(1, sh("2026-06-04 15:10"))
    assert report.held.released_at == sh("2026-06-04 15:00") and report.pids == {"烧卖": 900}
    assert report.held.forfeited == ()


def test_never_posted_they_go_out_at_17_00_and_the_words_are_forfeited(
    store: Store, mock_board: MockBoard
) -> None:
    judge = r001_police_executed(store, mock_board)
    report = judge.last_words(1, sh("2026-06-04 17:01"))
    assert report.held.released_at == sh("2026-06-04 17:00") and report.held.forfeited == ("烧卖",)


def test_a_second_post_after_the_words_is_noted_for_the_judges(store: Store, mock_board: MockBoard) -> None:
    judge = r001_police_executed(store, mock_board)
    words(store, judge, "2026-06-04 15:00")
    words(store, judge, "2026-06-04 15:30", pid=901)
    report = judge.last_words(1, sh("2026-06-04 16:00"))
    assert report.pids == {"烧卖": 900} and any("只有一次发言机会" in n for n in report.notes)


# ---- R004: applications in the process thread ------------------------------------------------------

LIVING_AFTER_NIGHT1 = ["豆浆", "油饼", "烧饼", "米线", "凉皮", "肉夹馍", "煎包", "酸奶", "炒面"]  # 9 of 17


def r004_judge(store: Store, **day1: object) -> Desk:
    data = tomllib.loads((EXAMPLE_R004 / "game.toml").read_text("utf-8"))
    data["board"]["url"] = BOARD_URL
    data["game"]["store"] = store.url
    data["days"] = [data["days"][0] | {"process": 9} | day1]
    judge = Desk(game_from_dict(data), store, by="test-director")
    judge.setup(roles=tomllib.loads((EXAMPLE_R004 / "roles.toml").read_text("utf-8"))["roles"])
    judge.night_entries(1, read_submissions(EXAMPLE_R004 / "night1.toml"))
    judge.night_resolve(1)  # 豆花 is out: 17 living roles, so 9 applicants succeed
    return judge


def apply(store: Store, judge: Desk, text: str, names: list[str], first: str) -> None:
    start = sh(first)
    opening = post(1, "进程帖：申请延时/加速请回复", tid=9, author="导演", floor=1, at=sh("2026-06-09 09:00"))
    posts = [opening] + [
        post(10 + i, text, tid=9, author=name, floor=2 + i, at=start.replace(minute=i))
        for i, name in enumerate(names)
    ]
    record_thread_page(store, judge.game.board, page(posts, tid=9), seen_at=sh("2026-06-10 20:59"))


def test_a_granted_delay_moves_the_close_and_the_change_cutoff(store: Store) -> None:
    judge = r004_judge(store)
    assert judge.day(1).closes == sh("2026-06-10 21:00")
    apply(store, judge, "申请延时", LIVING_AFTER_NIGHT1, "2026-06-10 10:00")
    day = judge.day(1)
    assert day.closes == sh("2026-06-11 21:00") and day.change_cutoff == sh("2026-06-11 20:00")
    result = judge.applications(day)
    assert result is not None and result.delay_granted_at == sh("2026-06-10 10:08")


def test_eight_of_seventeen_are_not_enough(store: Store) -> None:
    judge = r004_judge(store)
    apply(store, judge, "延时", LIVING_AFTER_NIGHT1[:8], "2026-06-10 10:00")
    assert judge.day(1).closes == sh("2026-06-10 21:00")


def test_a_granted_acceleration_sets_the_accelerated_state(store: Store) -> None:
    judge = r004_judge(store)
    apply(store, judge, "加速", LIVING_AFTER_NIGHT1, "2026-06-09 10:00")
    day = judge.day(1)
    assert day.accelerated_at == sh("2026-06-09 10:08") and day.closes == sh("2026-06-09 21:00")


def test_what_the_game_file_says_still_wins(store: Store) -> None:
    judge = r004_judge(store, close="2026-06-10 22:00", accelerated=False)
    apply(store, judge, "加速", LIVING_AFTER_NIGHT1, "2026-06-09 10:00")
    day = judge.day(1)
    assert day.closes == sh("2026-06-10 22:00") and day.accelerated_at is None and not day.accelerated


def test_the_process_thread_is_watched(store: Store) -> None:
    judge = r004_judge(store)
    assert 9 in judge.game.watched_tids()
    judge2 = Desk(replace(judge.game, days=(replace(judge.game.days[0], process_tid=None),)), store)
    assert judge2.applications(judge2.game.day(1)) is None


# ---- the command line ------------------------------------------------------------------------------


def test_the_applications_and_last_words_commands(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    import tomli_w

    from forumbot.cli import main
    from forumbot.store import open_store

    data = tomllib.loads((EXAMPLE_R004 / "game.toml").read_text("utf-8"))
    data["board"]["url"] = BOARD_URL
    data["game"]["store"] = "game.db"
    day2 = {"day": 2, "discussion": 12, "vote": 13, "opens": "2026-06-11 09:00"}
    data["days"] = [data["days"][0] | {"process": 9}, day2]
    game_file = tmp_path / "forumbot.toml"
    game_file.write_text(tomli_w.dumps(data), "utf-8")
    with open_store(str(tmp_path / "game.db")) as store:
        judge = Desk(game_from_dict(data | {"game": data["game"] | {"store": store.url}}), store, by="t")
        judge.setup(roles=tomllib.loads((EXAMPLE_R004 / "roles.toml").read_text("utf-8"))["roles"])
        judge.night_entries(1, read_submissions(EXAMPLE_R004 / "night1.toml"))
        judge.night_resolve(1)
        apply(store, judge, "延时", LIVING_AFTER_NIGHT1, "2026-06-10 10:00")
    assert main(["--game", str(game_file), "applications", "--day", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["close"] == "2026-06-11T21:00:00+08:00" and out["needed"] == 9
    assert [p["counted"] for p in out["posts"]] == [True] * 9 and "延时成功" in out["posts"][-1]["reason"]
    # day 1 is not closed: nothing to say yet about its last words
    assert main(["--game", str(game_file), "lastwords", "--day", "1", "--json"]) == 1
    assert "close --day 1" in capsys.readouterr().err
    # 豆花, out on night 1 (the first role out: a slot), owes words due when day 1 opens (09:00)
    args = ["--game", str(game_file), "lastwords", "--day", "0", "--at", "2026-06-09 08:00", "--json"]
    assert main([*args, "--received", "豆花=2026-06-09 07:30"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(w["player"], w["where"], w["due"]) for w in out["windows"]] == [
        ("豆花", "director", "2026-06-09T09:00:00+08:00")
    ]
    assert out["held"]["holds"] == ["day_start"] and out["held"]["released_at"] == "2026-06-09T07:30:00+08:00"
    assert main(args) == 0 and json.loads(capsys.readouterr().out)["held"]["pending"] == ["豆花"]
