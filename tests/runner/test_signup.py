"""The sign-up thread's close played by the runner on the living example board: the thread read, the
list confirmed (auto_confirm), the role accounts and the roles drawn by seed, each player's identity
notice sent by PM to his own account (本尊ID), the private forums the judge must open listed; and a
sign-up a judge must look at stops the moment instead of guessing."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from forumbot.client import BoardClient
from forumbot.config import Game, game_from_dict
from forumbot.desk import Desk
from forumbot.exampleboard.model import Scenario, scenario_from_dict
from forumbot.resources import data_dir
from forumbot.runner.fastplay import FastClock, example_roles, play
from forumbot.runner.ledger import MomentStatus, records
from forumbot.runner.steps import BoardSteps
from forumbot.runner.tick import Runner
from forumbot.store.db import open_store
from forumbot.store.records import decisions_for as records_of
from tests.runner.yexiao import ALL_KINDS, GAME_DIR, board

START = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)  # 6/1 20:00 Beijing: the sign-up is open
CLOSES = "2026-06-02 20:00"
AFTER_CLOSE = datetime(2026, 6, 2, 13, 0, tzinfo=UTC)  # 6/2 21:00 Beijing
OWNERS = ["老王", "小李", "阿强", "小美", "大刘", "阿花", "小陈", "老赵", "小周", "阿飞", "小吴", "老郑"]
LATE_ONE = "迟到哥"
SUB = "替补君"


def signup_scenario(extra: list[dict[str, Any]] | None = None) -> Scenario:
    """【夜宵杀】's board with the sign-up thread (tid 20): 13 sign-ups for 12 places (the 13th a
    substitute), one withdrawal (the substitute moves up), one asking to be a substitute, a judge's post,
    chatter and a late sign-up."""
    raw = tomllib.loads((GAME_DIR / "scenario.toml").read_text("utf-8"))
    for i, name in enumerate([*OWNERS, LATE_ONE, SUB, "犹豫君"]):
        raw["users"][name] = 30 + i
    raw["threads"].append({"tid": 20, "fid": 3, "subject": "【夜宵杀】报名帖", "author": "法官大人"})
    posts = [
        ("法官大人", "2026-06-01 18:00:00", "【夜宵杀】报名帖：12人局，6月2日20:00截止。回复「报名」即可。")
    ]
    for i, name in enumerate(OWNERS[:11]):
        posts.append((name, f"2026-06-01 19:{10 + i}:00", "报名" if i % 2 else "报名+1"))
    posts += [
        ("吃瓜群众", "2026-06-01 20:30:00", "顶，期待"),
        ("犹豫君", "2026-06-01 21:00:00", "我要参加"),  # the 12th place
        ("老王", "2026-06-01 21:10:00", "报名！"),  # counted once
        (SUB, "2026-06-01 21:30:00", "报名替补"),
        ("犹豫君", "2026-06-02 09:00:00", "临时有事，退出"),  # 替补君 moves up... into the 12th place
        ("法官大人", "2026-06-02 10:00:00", "还差一位"),
        (OWNERS[11], "2026-06-02 12:00:00", "新人，求带，报名"),  # the cap is reached: a substitute
        (LATE_ONE, "2026-06-02 20:00:00", "报名"),  # shown at the closing minute: late
        *(extra or []),
    ]
    raw["posts"] += [
        {"pid": 900 + i, "tid": 20, "author": a, "at": at, "text": text}
        for i, (a, at, text) in enumerate(posts)
    ]
    return scenario_from_dict(raw, "yexiao with a sign-up")


def signup_game(url: str, db: Path, **signup: Any) -> Game:
    data: dict[str, Any] = tomllib.loads(
        (data_dir() / "examples" / "yexiao" / "game.toml").read_text("utf-8")
    )
    data["board"].update(url=url, min_interval=0.0, retries=0)
    data["game"]["store"] = f"sqlite:///{db}"
    data["outbox"] = {"auto_approve": ALL_KINDS, "pm_interval": 0}
    data["signup"] = {"tid": 20, "closes_at": CLOSES, **signup}
    game = game_from_dict(data)
    return replace(game, board=replace(game.board, password="demo"))


def run_until(scenario: Scenario, tmp: Path, until: datetime, **signup: Any) -> Iterator[Any]:
    clock = FastClock(START)
    with board(clock, scenario) as b:
        game = signup_game(b.url, tmp / "game.db", **signup)
        store = open_store(game.store_url)
        steps = BoardSteps(game, store, client=BoardClient(game.board, now=clock), clock=clock)
        steps.outbox.sleep = lambda _s: None
        runner = Runner(store, steps, clock=clock, log=lambda _line: None)
        play(runner, clock, until=until, board_moments=scenario.moments())
        yield steps, b
        store.close()


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    tmp = Path(tmp_path_factory.mktemp("signup"))
    yield from run_until(signup_scenario(), tmp, AFTER_CLOSE, auto_confirm=True, draw=True, seed=7)


def test_the_close_reads_the_list_with_its_substitute_and_confirms_it(closed: Any) -> None:
    steps, _b = closed
    with steps.store.session() as s:
        rec = records(s, steps.game_id)["signup/close"]
    assert rec.status is MomentStatus.DONE, rec.note
    assert rec.result["players"] == [*OWNERS[:11], SUB]
    assert rec.result["substitutes"] == [OWNERS[11]]
    assert rec.result["confirmed_by"] == "forumbot-runner"
    codes = {v["author"]: v["code"] for v in rec.result["verdicts"] if v["author"] in (LATE_ONE, "犹豫君")}
    assert codes == {LATE_ONE: "late", "犹豫君": "withdrawn"}
    assert "匪帮" in rec.note and "fid 6" in rec.note and "警署" in rec.note


def test_each_player_gets_his_identity_notice_at_his_own_account(closed: Any) -> None:
    steps, b = closed
    st = steps.desk.require_state()
    owners = steps.desk.owners()
    assert sorted(owners) == sorted(steps.game.roster) and sorted(owners.values()) == sorted(
        [*OWNERS[:11], SUB]
    )
    sent = {pm.to_uid: pm.text for pm in b.writer.pms}
    uids = {name: 30 + i for i, name in enumerate([*OWNERS, LATE_ONE, SUB, "犹豫君"])}
    assert len(sent) == 12
    for p in st.players:
        text = sent[uids[owners[p.name]]]
        assert f"你的角色ID：{p.name}" in text
        assert steps.desk.ruleset.role(p.role).name_zh in text or "杀手" in text
    bandits = [p.name for p in st.players if p.role.value in ("bandit", "ghost")]
    for name in bandits:
        assert f"匪帮讨论组成员：{'、'.join(bandits)}" in sent[uids[owners[name]]]


def test_the_same_seed_draws_the_same_roles_and_accounts(closed: Any, tmp_path: Path) -> None:
    steps, _b = closed
    again = next(run_until(signup_scenario(), tmp_path, AFTER_CLOSE, auto_confirm=True, draw=True, seed=7))
    assert again[0].desk.owners() == steps.desk.owners()
    assert again[0].desk.require_state().players == steps.desk.require_state().players


def test_a_sign_up_a_judge_must_read_stops_the_close_until_he_confirms(tmp_path: Path) -> None:
    doubtful = signup_scenario([("吃瓜群众", "2026-06-02 15:00:00", "帮我朋友报名")])
    steps, _b = next(run_until(doubtful, tmp_path, AFTER_CLOSE, auto_confirm=True, draw=True, seed=7))
    with steps.store.session() as s:
        rec = records(s, steps.game_id)["signup/close"]
    assert rec.status is MomentStatus.WAITING and "forumbot signup --confirm" in rec.note
    assert steps.desk.state() is None and steps.outbox.items() == []
    desk = Desk(steps.game, steps.store, by="法官大人")
    result = desk.signup_read()
    with pytest.raises(Exception, match="--why"):
        desk.signup_confirm(result)
    conf = desk.signup_confirm(result, why="替朋友报名不算，须本人报名")
    assert conf.by == "法官大人" and conf.players == (*OWNERS[:11], SUB)
    # The judges' own draw (made elsewhere): the same notices, groups and forum list as a seeded one.
    roles = example_roles("yexiao")
    desk.signup_roles(roles=roles)
    st = desk.require_state()
    assert {p.name: steps.desk.ruleset.role(p.role).name_zh for p in st.players} == roles
    owners = desk.owners()
    assert sorted(owners.values()) == sorted(conf.players)
    notices = {n.player: n for n in desk.identity_notices()}
    assert set(notices) == set(roles) and all(n.uid is not None for n in notices.values())
    assert "匪帮讨论组成员：粽子、麻花" in notices["麻花"].body and notices["麻花"].owner == owners["麻花"]
    assert "你的角色ID：麻花" in notices["麻花"].body
    forums = {a.group: (a.fid, a.members) for a in desk.private_forum_access()}
    assert forums == {"匪帮讨论组": (6, ("粽子", "麻花")), "警署讨论组": (7, ("馄饨", "汤圆"))}
    with steps.store.session() as s:
        drawn = records_of(s, steps.game_id, "signup_draw")[-1]
    assert drawn.by == "法官大人" and isinstance(drawn.detail["seed"], int)  # the accounts' draw is recorded
    # what the demo counts as judge commands: the confirmation, the draw's record and the roles stored
    assert desk.records_not_by("forumbot-runner") == 3


def test_forumbot_signup_reads_confirms_and_draws_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge's own way (no auto_confirm, no draw): `forumbot signup --read`, `--confirm`, `--seed`."""
    from forumbot.cli import main
    from forumbot.exampleboard.server import LiveBoard

    src = data_dir() / "examples" / "yexiao"
    with LiveBoard.example("yexiao", now="2026-06-03 09:30") as b:
        text = (src / "game.toml").read_text("utf-8").replace("http://127.0.0.1:8080/", b.url)
        text = text.replace("min_interval = 0.0", "min_interval = 0.0\nretries = 0")
        text += '\n[signup]\ntid = 1\ncloses_at = "2026-06-03 09:00"\n'  # [players]: role accounts
        (tmp_path / "game.toml").write_text(text, "utf-8")
        monkeypatch.setenv("FORUMBOT_PASSWORD", "demo")
        game = ["--game", str(tmp_path / "game.toml"), "--store", f"sqlite:///{tmp_path / 'g.db'}"]
        assert main([*game, "signup", "--read"]) == 0
        shown = capsys.readouterr().out
        assert "路人甲" in shown and "迟到君" in shown and "尚未确认" in shown
        assert main([*game, "--judge", "法官大人", "signup", "--confirm"]) == 0
        assert "由 法官大人 确认" in capsys.readouterr().out
        assert main([*game, "--judge", "法官大人", "signup", "--seed", "5"]) == 0
        out = capsys.readouterr().out
        assert "请为以下玩家开放匪帮讨论组（fid 6）" in out and "角色ID：" in out
