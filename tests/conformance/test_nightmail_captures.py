"""Night actions as a real Discuz! X3.5 board serves them (../shared/fixtures/discuz-x35-posting, read in
place): the judge's PM list and conversation (73–76), the login wall (78), and the per-user private
forum fid 6 匪帮讨论组 seen as the judge (90–92) and as an outsider (93–95); then the captured night
actions judged end to end.

Skipped on a clone without ../shared; under CI (CI=true) a missing capture fails instead."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

import pytest

from engine import GroupId, Kill, new_game
from forumbot.errors import LoginRequired, NoPermission
from forumbot.nightmail import NightCode, judge_night, pm_messages, thread_messages
from forumbot.parsers import parse_forum_page, parse_pm_page, parse_thread_page
from forumbot.parsers.pm import PmConversationPage, PmListPage
from forumbot.parsers.records import Source
from tests.shared_fixtures import SHARED_FIXTURES

POSTING = SHARED_FIXTURES / "discuz-x35-posting"

if not (POSTING / "INDEX.md").is_file():
    if os.environ.get("CI") == "true":
        pytest.fail(f"captured posting exchanges missing at {POSTING} (CI must run them)", pytrace=False)
    pytest.skip(f"captured posting exchanges not found at {POSTING}", allow_module_level=True)


def capture(stem: str) -> tuple[bytes, str, str | None, str | None]:
    """(body, URL asked for, Date, Content-Type) of exchange ``stem`` (e.g. ``74_pm_view_touid``)."""
    body = next(p for p in POSTING.glob(f"{stem}.response.*") if not p.name.endswith(".headers"))
    lines = (POSTING / f"{stem}.response.headers").read_text(encoding="utf-8").splitlines()
    url = lines[0].split(" ", 1)[1].strip()
    headers = {
        k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ":" in ln)
    }
    return body.read_bytes(), url, headers.get("date"), headers.get("content-type")


def parse_pm(stem: str) -> PmListPage | PmConversationPage:
    body, url, date, ctype = capture(stem)
    return parse_pm_page(body, url, date_header=date, content_type=ctype)


IDS = json.loads((POSTING / "ids.json").read_text(encoding="utf-8"))
UIDS: dict[str, int] = IDS["uids"]


# --- the PM pages ---------------------------------------------------------------------------------------


def test_73_the_unread_list_has_the_three_conversations_in_order() -> None:
    page = parse_pm("73_pm_list_newpm")
    assert isinstance(page, PmListPage) and page.source is Source.PC and page.filter == "newpm"
    assert [c.plid for c in page.conversations] == IDS["pm"]["unread_in_73"]
    assert all(c.unread for c in page.conversations)
    names = {c.plid: c.other_name for c in page.conversations}
    assert names == {2: "包子", 1: "饺子", 6: "馄饨"}
    for c in page.conversations:
        assert c.other_uid == UIDS[c.other_name] and c.last_from_name == c.other_name
        assert (
            c.last_at == c.last_until
        )  # "N 秒前" with the Date header: the second, inside the title's minute
    assert page.conversations[1].summary == "验：包子"
    assert page.viewer_uid == UIDS["法官大人"] and page.problems == ()


def test_74_and_76_the_conversation_pc_and_api_agree() -> None:
    pc, api = parse_pm("74_pm_view_touid"), parse_pm("76_api_mypm_view")
    assert isinstance(pc, PmConversationPage) and isinstance(api, PmConversationPage)
    expected = IDS["pm"]["conversation_viewed_in_74_76"]["pmids"]
    assert [m.pmid for m in pc.messages] == [m.pmid for m in api.messages] == expected
    assert [m.text for m in pc.messages] == [m.text for m in api.messages]
    assert [(m.sent_at, m.sent_until) for m in pc.messages] == [
        (m.sent_at, m.sent_until) for m in api.messages
    ]
    assert [m.mine for m in pc.messages] == [True, False, False]
    kill, confirm = pc.messages[1:]
    assert kill.text == "杀：烧卖" and confirm.text == "确认：杀：烧卖\n同伴油条也同意。"
    assert kill.from_uid == UIDS["包子"] and kill.to_uid == UIDS["法官大人"]
    assert pc.total == api.total == 3 and pc.problems == api.problems == ()
    assert api.plid == 2


def test_75_the_api_list_holds_every_conversation_and_its_plid() -> None:
    page = parse_pm("75_api_mypm_list")
    assert isinstance(page, PmListPage) and page.count == 6
    assert sorted(c.plid for c in page.conversations) == sorted(IDS["pm"]["plids"].values())
    by_name = {c.other_name: c for c in page.conversations}
    assert by_name["饺子"].unread and not by_name["包子"].unread  # 74 opened it
    assert by_name["馄饨"].summary == "救：烧卖\n毒：今晚不用"


def test_78_a_guest_gets_the_login_wall() -> None:
    body, _url, date, ctype = capture("78_pm_error_not_logged_in")
    with pytest.raises(LoginRequired):
        parse_pm_page(
            body, "http://127.0.0.1:8080/home.php?mod=space&do=pm", date_header=date, content_type=ctype
        )


# --- the per-user private forum -------------------------------------------------------------------------


def test_90_to_92_the_judge_reads_the_team_forum_like_any_forum() -> None:
    body, url, date, ctype = capture("90_access_forumdisplay_judge")
    forum = parse_forum_page(body, url, date_header=date, content_type=ctype)
    assert forum.fid == 6 and 8 in [t.tid for t in forum.threads]
    pc_body, pc_url, pc_date, _ = capture("91_access_viewthread_judge")
    pc = parse_thread_page(pc_body, pc_url, date_header=pc_date)
    api_body, api_url, api_date, _ = capture("92_access_api_viewthread_judge")
    api = parse_thread_page(api_body, api_url, date_header=api_date)
    assert [p.pid for p in pc.posts] == [p.pid for p in api.posts] == [53, 54]
    assert [p.text for p in pc.posts] == [p.text for p in api.posts]
    assert pc.posts[0].text == "今晚杀：烧卖\n生死状：如果我们错杀毒药，月饼与毒药同死"
    assert pc.posts[1].author == "油条" and pc.posts[1].text == "同意。今晚杀：烧卖"


@pytest.mark.parametrize(
    "stem",
    ["93_access_forumdisplay_outsider", "94_access_viewthread_outsider", "95_access_api_viewthread_outsider"],
)
def test_93_to_95_an_outsider_gets_no_permission_not_the_thread(stem: str) -> None:
    body, url, date, ctype = capture(stem)
    parse = parse_forum_page if "forumdisplay" in stem else parse_thread_page
    with pytest.raises(NoPermission):
        parse(body, url, date_header=date, content_type=ctype)


# --- end to end: the captured night actions judged ------------------------------------------------------


def test_the_captured_submissions_are_judged_by_the_rules() -> None:
    state = new_game(
        "R001",
        [
            ("包子", "鬼匪"),
            ("油条", "匪"),
            ("饺子", "警察"),
            ("馄饨", "警察"),
            ("月饼", "毒药"),
            ("烧卖", "平民"),
            ("汤圆", "平民"),
            ("锅贴", "平民"),
        ],
    )
    body, url, date, _ = capture("91_access_viewthread_judge")
    thread = parse_thread_page(body, url, date_header=date)
    posts = thread_messages(thread.posts, GroupId.BANDITS)
    view = parse_pm("74_pm_view_touid")
    assert isinstance(view, PmConversationPage)
    pms = pm_messages(view.messages)
    assert [m.id for m in pms] == ["pm:9", "pm:10"]  # the judge's own role message is left out
    deadline = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)  # 22:00 Beijing, after every capture
    mail = judge_night(state, [*posts, *pms], deadline=deadline)
    got = {v.message_id: v.code for v in mail.verdicts}
    # 包子's thread post names 月饼 for the 生死状, but 月饼 is not in the bandit group: the engine's rule
    assert got["pid:53"] is NightCode.ILLEGAL
    assert "生死状" in mail.verdict("pid:53").reason
    # 包子's PMs (21:41:53, 21:42:10) came first; 油条's post (21:42:28) names the same victim and, being
    # the last, holds the slot: no conflict, the earlier ones are superseded
    assert got["pm:9"] is NightCode.SUPERSEDED and got["pm:10"] is NightCode.SUPERSEDED
    assert got["pid:54"] is NightCode.ACCEPTED
    assert mail.night.on_time(Kill.kind) == Kill("烧卖", by="油条")
    assert any("生死状" in item for item in mail.open)  # a poison game: the missing pledge is flagged
