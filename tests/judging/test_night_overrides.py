"""A judge's override of one night message (issue 10): kept with who, when and why, applied by every later
judgement of the night, undone by a record of its own, refused once the night is resolved; and the
night-message flags (AMB-NM1..7) set in the game file's [flags] like the engine's.

R001, the example game: 烧卖 杀手 and 月饼 鬼匪 (the bandits), 包子/春卷 警察, 油条 毒药; night 1's
submissions are due 2026-06-03 17:00 Beijing.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import tomli_w

from engine import GroupId, Kill
from forumbot.cli import main
from forumbot.config import load_game
from forumbot.desk import Desk
from forumbot.errors import GameFileError, UsageError
from forumbot.nightmail import NightChannel, NightMessage
from forumbot.store import Store, open_store
from tests.judging.conftest import EXAMPLE, example_data, example_game, example_roles

pytestmark = pytest.mark.usefixtures("english_messages")  # refusals checked by their msgid's words

BJ = ZoneInfo("Asia/Shanghai")


def bj(hhmm: str) -> datetime:
    h, m = map(int, hhmm.split(":"))
    return datetime(2026, 6, 3, h, m, tzinfo=BJ).astimezone(UTC)


def bandits(mid: str, author: str, hhmm: str, text: str) -> NightMessage:
    return NightMessage(mid, NightChannel.GROUP_THREAD, author, bj(hhmm), text, group=GroupId.BANDITS)


def pm(mid: str, author: str, hhmm: str, text: str) -> NightMessage:
    return NightMessage(mid, NightChannel.PM, author, bj(hhmm), text)


KILL = bandits("pid:101", "烧卖", "16:20", "杀：锅贴\n生死状：烧卖")
TENTATIVE = bandits("pid:102", "月饼", "16:30", "要不要改杀煎饼？")  # a question: doubtful (AMB-NM5)
MISSPELT = pm("pm:7", "包子", "16:40", "验：烧麦")  # one edit from 烧卖: suggested, never taken
NIGHT1 = [KILL, TENTATIVE, MISSPELT]


@pytest.fixture
def judge(store: Store) -> Desk:
    desk = Desk(example_game(store.url), store, by="法官甲")
    desk.setup(roles=example_roles())
    desk.record_night_messages(1, NIGHT1)
    return desk


def codes(desk: Desk, n: int = 1) -> dict[str, str]:
    return {v.message_id: v.code.value for v in desk.night_mail(n).verdicts}


def test_without_overrides_the_doubtful_messages_wait_for_a_judge(judge: Desk) -> None:
    mail = judge.night_mail(1)
    assert codes(judge) == {"pid:101": "accepted", "pid:102": "ambiguous", "pm:7": "unknown_name"}
    assert not mail.complete
    assert [o.split("（")[0] for o in mail.open] == ["pid:102", "pm:7"]


def test_a_doubtful_kill_accepted_by_a_judge_is_the_groups_kill_with_its_earlier_pledge(judge: Desk) -> None:
    done = judge.night_override("pid:102", "accept", "匪帮在组里确认改刀煎饼", kind="kill", targets=["煎饼"])
    assert done.verdict.code.value == "accepted" and done.warning == ""
    mail = judge.night_mail(1)
    # the judge's reading settles the slot like a correction (改刀): not a disagreement within the group
    assert mail.night.on_time(Kill.kind) == Kill("煎饼", pledge="烧卖", by="月饼")
    assert codes(judge)["pid:101"] == "accepted"  # its 生死状 still stands
    assert [o.split("（")[0] for o in mail.open] == ["pm:7"]


def test_the_suggested_name_taken_by_a_judge_completes_the_night(judge: Desk) -> None:
    judge.night_override("pid:102", "ignore", "只是讨论")
    judge.night_override("pm:7", "accept", "烧麦 = 烧卖", kind="check", targets=["烧卖"])
    mail = judge.night_mail(1)
    assert codes(judge) == {"pid:101": "accepted", "pid:102": "overridden", "pm:7": "accepted"}
    assert mail.complete
    assert mail.night.on_time(Kill.kind) == Kill("锅贴", pledge="烧卖", by="烧卖")


def test_an_override_is_kept_with_who_when_and_why_and_shown_in_the_reason(judge: Desk) -> None:
    done = judge.night_override("pid:102", "ignore", "只是讨论")
    assert (done.record.by, done.record.why, done.record.night) == ("法官甲", "只是讨论", 1)
    assert done.record.at.tzinfo is not None
    assert "法官甲" in done.verdict.reason and "只是讨论" in done.verdict.reason
    line = next(x for x in judge.night_listing(1).lines if x.message.id == "pid:102")
    assert line.override is not None and line.override.why == "只是讨论"


def test_an_undo_is_a_record_of_its_own_and_the_earlier_override_counts_again(judge: Desk) -> None:
    judge.night_override("pid:102", "ignore", "只是讨论")
    judge.night_override("pid:102", "accept", "其实是改刀", kind="kill", targets=["煎饼"])
    assert codes(judge)["pid:102"] == "accepted"
    undone = judge.night_override_undo("pid:102", "看错了")
    assert undone.record.verdict == "undo" and undone.record.by == "法官甲"
    assert codes(judge)["pid:102"] == "overridden"  # back one step: the first override
    judge.night_override_undo("pid:102")
    assert codes(judge)["pid:102"] == "ambiguous"  # judged as read again
    history = judge.night_override_history(1)
    assert [r.verdict for r in history] == ["ignore", "accept", "undo", "undo"]
    assert [r.undoes for r in history[2:]] == [history[1].id, history[0].id]
    with pytest.raises(UsageError, match="no override to undo"):
        judge.night_override_undo("pid:102")


@pytest.mark.parametrize(
    ("message_id", "verdict", "why", "kw", "words"),
    [
        ("pid:102", "accept", "", {"kind": "kill", "targets": ["煎饼"]}, "needs --why"),
        ("pid:999", "ignore", "x", {}, "no night message pid:999 is stored"),
        ("pid:102", "accept", "x", {"kind": "kill", "targets": ["煎包"]}, "not in the roster"),
        ("pid:102", "accept", "x", {"kind": "kill"}, "takes 1 target"),
        # 丘比特之箭 is R004's: an R001 night has no such kind (the rule set's own night words)
        ("pid:102", "accept", "x", {"kind": "arrow", "targets": ["煎饼"]}, "unknown night action 'arrow'"),
        ("pid:102", "accept", "x", {"targets": ["煎饼"]}, "needs --kind"),
        ("pid:102", "accept", "x", {"kind": "alert"}, "unknown night action"),
        ("pid:102", "accept", "x", {"kind": "check", "targets": ["煎饼"], "pledge": "烧卖"}, "--kind kill"),
        ("pid:102", "maybe", "x", {}, "--as must be one of"),
        ("pid:102", "ignore", "x", {"kind": "kill"}, "takes no --kind"),
        ("pid:102", "ignore", "x", {"night": 2}, "belongs to night 1"),
    ],
)
def test_a_wrong_override_is_refused_and_records_nothing(
    judge: Desk, message_id: str, verdict: str, why: str, kw: dict, words: str
) -> None:
    with pytest.raises(UsageError, match=words):
        judge.night_override(message_id, verdict, why, **kw)
    assert judge.night_override_history() == []


def test_a_kill_without_a_pledge_waits_until_a_judge_accepts_it_as_it_stands(store: Store) -> None:
    desk = Desk(example_game(store.url), store, by="法官甲")
    desk.setup(roles=example_roles())
    desk.record_night_messages(1, [bandits("pid:201", "烧卖", "16:20", "杀：锅贴")])
    assert ["生死状" in o for o in desk.night_mail(1).open] == [True]  # AMB-NM7: 油条, the poison, lives
    desk.night_override("pid:201", "accept", "已提醒匪帮，不附生死状", kind="kill", targets=["锅贴"])
    mail = desk.night_mail(1)
    assert mail.complete and mail.night.on_time(Kill.kind) == Kill("锅贴", by="烧卖")  # AMB-12 decides


def test_an_empty_kill_is_said_with_none(judge: Desk) -> None:
    judge.night_override("pid:102", "accept", "匪帮决定空刀", kind="kill", none=True)
    assert judge.night_mail(1).night.on_time(Kill.kind) == Kill(None, pledge="烧卖", by="月饼")


def test_a_resolved_night_is_not_corrected_in_place(judge: Desk) -> None:
    judge.night_override("pid:102", "ignore", "只是讨论")
    judge.night_submit(1, judge.night_mail(1).night.on_time(Kill.kind), bj("16:20"))  # type: ignore[arg-type]
    judge.night_resolve(1)
    with pytest.raises(UsageError, match="night 1 is resolved"):
        judge.night_override("pm:7", "accept", "x", kind="check", targets=["烧卖"])
    with pytest.raises(UsageError, match="night 1 is resolved"):
        judge.night_override_undo("pid:102")
    # the listing of a resolved night is judged from the state the night began with
    assert codes(judge)["pid:102"] == "overridden"


def test_an_override_of_a_night_with_stored_submissions_says_they_are_what_counts(judge: Desk) -> None:
    judge.night_submit(1, Kill("锅贴", pledge="烧卖", by="烧卖"), bj("16:20"))
    done = judge.night_override("pid:102", "ignore", "只是讨论")
    assert "already has stored submissions" in done.warning


def test_messages_are_kept_once_and_a_changed_one_again(judge: Desk) -> None:
    assert judge.record_night_messages(1, NIGHT1) == 0
    edited = bandits("pid:102", "月饼", "16:30", "改杀：煎饼")
    assert judge.record_night_messages(1, [edited]) == 1
    assert [m.text for m in judge.stored_night_messages(1) if m.id == "pid:102"] == ["改杀：煎饼"]
    assert codes(judge)["pid:102"] == "accepted"


# --- the night-message flags in the game file ----------------------------------------------------------


def test_a_night_message_flag_in_the_game_file_is_applied(store: Store) -> None:
    desk = Desk(example_game(store.url, night_tentative="ignore", r001_void_cutoff_inclusive=False), store)
    desk.setup(roles=example_roles())
    desk.record_night_messages(1, NIGHT1)
    assert desk.mail_flags.night_tentative == "ignore"
    assert desk.day_flags.r001_void_cutoff_inclusive is False  # the engine's flags beside them
    assert codes(desk)["pid:102"] == "not_a_submission"


@pytest.mark.parametrize(
    ("flags", "field", "words"),
    [
        ({"night_group_conflict": "majority"}, "flags.night_group_conflict", "'majority' is not one of"),
        ({"night_deadline_inclusive": "yes"}, "flags.night_deadline_inclusive", "'yes' is not one of True"),
        ({"night_tentative": 1}, "flags.night_tentative", "1 is not one of 'ambiguous'"),
    ],
)
def test_a_bad_night_message_flag_value_is_refused_naming_the_flag(
    store: Store, flags: dict, field: str, words: str
) -> None:
    with pytest.raises(GameFileError, match=words) as err:
        Desk(example_game(store.url, **flags), store)
    assert err.value.field == field and "forumbot flags" in str(err.value)


def test_an_unknown_flag_is_still_refused(store: Store) -> None:
    with pytest.raises(GameFileError, match="unknown flag"):
        Desk(example_game(store.url, night_tentatve="ignore"), store)


def test_forumbot_flags_lists_the_night_message_flags_with_their_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["flags", "--json"]) == 0
    rows = {r["amb"]: r for r in json.loads(capsys.readouterr().out)}
    assert {f"AMB-NM{i}" for i in range(1, 8)} <= set(rows)
    nm1 = rows["AMB-NM1"]
    assert (nm1["name"], nm1["side"], nm1["default"]) == (
        "night_group_conflict",
        "night_messages",
        "ambiguous",
    )
    assert nm1["choices"] == ["ambiguous", "last", "first", "leader"]
    assert rows["AMB-NM4"]["choices"] == [True, False] and rows["AMB-NM4"]["default"] is False


def test_forumbot_flags_gives_their_meaning_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "zh_CN", "flags"]) == 0
    out = capsys.readouterr().out
    assert "AMB-NM5" in out and "夜间消息" in out  # the side, labelled in Chinese
    assert "组员讨论" in out  # the start of night_tentative's meaning, from the catalog


# --- the command line -------------------------------------------------------------------------------------


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    data = example_data(days=1)
    data["game"]["store"] = "game.db"
    p = tmp_path / "forumbot.toml"
    p.write_text(tomli_w.dumps(data), "utf-8")
    return p


def cli(game_file: Path, *args: str) -> int:
    return main(["--game", str(game_file), *args])


def test_night_messages_and_night_override_on_the_command_line(
    game_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(game_file, "setup", "--roles", str(EXAMPLE / "roles.toml")) == 0
    store = open_store(str(game_file.parent / "game.db"))
    with store:
        Desk(load_game(game_file), store).record_night_messages(1, NIGHT1)
    capsys.readouterr()

    assert cli(game_file, "night", "messages", "--night", "1", "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["complete"] is False and len(listed["open"]) == 2
    by_id = {m["id"]: m for m in listed["messages"]}
    assert by_id["pid:102"]["code"] == "ambiguous" and by_id["pid:102"]["needs_review"] is True
    assert by_id["pm:7"]["suggestion"] == "烧卖" and by_id["pm:7"]["channel"] == "pm"
    assert by_id["pid:101"]["actions"][0]["victim"] == "锅贴" and by_id["pid:101"]["override"] is None

    assert cli(game_file, "night", "override", "pm:7", "--as", "accept", "--kind", "check",
               "--target", "烧卖", "--why", "烧麦 = 烧卖") == 0  # fmt: skip
    assert "pm:7" in capsys.readouterr().out
    assert cli(game_file, "night", "override", "pid:102", "--as", "ignore", "--why", "只是讨论") == 0
    capsys.readouterr()
    assert cli(game_file, "--lang", "zh_CN", "night", "messages", "--night", "1") == 0
    table = capsys.readouterr().out
    assert "私信法官" in table and "法官判为无效" in table and "已接受" in table  # Chinese first
    assert "每条消息都有裁定" in table

    assert cli(game_file, "night", "messages", "--night", "1", "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["complete"] is True
    o = {m["id"]: m for m in listed["messages"]}["pm:7"]["override"]
    assert (o["verdict"], o["statements"][0]["targets"], o["why"]) == ("accept", ["烧卖"], "烧麦 = 烧卖")

    assert cli(game_file, "night", "override", "pid:102", "--undo", "--why", "再看看") == 0
    capsys.readouterr()
    assert cli(game_file, "night", "override", "pid:102", "--as", "accept", "--why", "x") == 1
    assert "--kind" in capsys.readouterr().err
