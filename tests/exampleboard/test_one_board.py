"""The example board is the only simulated board: one request handler, two transports, and the boards
the unit tests need set by scenario options.

Why: the client, poll and outbox tests, the demo and the runner must all read the same board; if the
``responses`` transport answered other bytes than the socket, or an option (GBK, offset paging, the
mobile API's modes, a named moment) were read wrongly, a test would pass against a board no one runs.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import requests
import responses

from forumbot.exampleboard.model import ScenarioError, scenario_from_dict
from forumbot.exampleboard.server import LiveBoard
from tests.boards import ROOT, T0, small_board


def _board() -> LiveBoard:
    board = small_board(users={"包子": 3, "饺子": 2})
    board.add_thread(7, 12)
    board.reply(7, "包子", "投票：饺子")
    return board


def test_the_socket_and_the_mock_answer_the_same_bytes() -> None:
    board = _board()
    paths = [
        "forum.php?mod=viewthread&tid=7&page=2",
        "forum.php?mod=forumdisplay&fid=3",
        "forum.php?mod=forumdisplay&fid=3&mobile=2",
        "api/mobile/index.php?version=4&module=viewthread&tid=7&page=1&ppp=50",
        "forum.php?mod=viewthread&tid=404",
    ]
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        board.mock(rsps)
        mocked = [requests.get(ROOT + p, timeout=5) for p in paths]
    with board:
        served = [requests.get(board.url + p, timeout=5) for p in paths]
    for m, s in zip(mocked, served, strict=True):
        assert (m.status_code, m.content) == (s.status_code, s.content)
        assert m.headers["Date"] == s.headers["Date"] == "Thu, 04 Jun 2026 03:13:00 GMT"
    assert [r.status_code for r in served] == [200, 200, 200, 200, 404]
    assert json.loads(served[3].content)["Variables"]["postlist"][-1]["message"] == "投票：饺子"
    assert len(board.requests) == 2 * len(paths)


def test_offset_paging_moves_later_posts_to_earlier_pages_and_floor_paging_does_not() -> None:
    for paging, first_on_page_2 in (("offset", 12), ("floor", 11)):
        board = small_board(paging=paging)
        board.add_thread(7, 12)
        board.delete(3)
        page2 = board.thread_html(7, 2)
        first = page2.index('id="post_')
        assert page2[first:].startswith(f'id="post_{first_on_page_2}"'), paging


def test_a_gbk_board_says_gbk_and_reads_the_fields_as_gbk() -> None:
    board = small_board(users={"包子": 3}, charset="gbk")
    board.add_thread(7, 1)
    status, body, _ = board.answer_get("forum.php?mod=viewthread&tid=7", "")
    assert status == 200 and b'<meta charset="gbk" />' in body and "第1楼".encode("gbk") in body
    login = b"username=%B7%A8%B9%D9%B4%F3%C8%CB&password=hunter2"  # 法官大人 in GBK
    status, body, extra = board.answer_post("member.php?mod=logging&action=login&loginsubmit=yes", login, "")
    assert "欢迎您回来".encode("gbk") in body and extra["Set-Cookie"].startswith("demo_2132_auth=ok")


@pytest.mark.parametrize(
    ("mode", "status"), [("json", 200), ("closed", 200), ("error503", 503), ("redirect", 302)]
)
def test_the_mobile_api_answers_as_its_mode_says(mode: str, status: int) -> None:
    board = small_board(mobile_api=mode)
    board.add_thread(7, 2)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        board.mock(rsps)
        url = ROOT + "api/mobile/index.php?version=4&module=viewthread&tid=7"
        answer = board.handle("GET", url, {}, b"")
    assert answer[0] == status
    if mode == "closed":
        assert json.loads(answer[2]) == {"error": "mobile_is_closed"}


def test_a_silent_edit_and_the_api_without_the_marker() -> None:
    board = small_board(api_strips_edit_marker=True)
    board.add_thread(7, 3)
    board.edit(2, "改过", marker=False)
    board.edit(3, "也改过")
    page = board.thread_html(7)
    assert page.count("本帖最后由") == 1 and "改过" in page
    api = json.loads(board.answer_get("api/mobile/index.php?module=viewthread&tid=7", "")[1])
    assert "本帖最后由" not in json.dumps(api, ensure_ascii=False)


def test_named_moments_and_the_down_switch() -> None:
    raw = {
        "users": {"法官大人": 14, "包子": 3},
        "threads": [{"tid": 2, "subject": "讨论", "author": "包子"}],
        "snapshots": [
            {"name": "s1", "at": "2026-06-04 11:00:00"},
            {"name": "s2", "at": "2026-06-04 13:30:00"},
        ],
        "posts": [
            {"pid": 1, "tid": 2, "author": "包子", "at": "2026-06-04 10:00:00", "text": "一"},
            {"pid": 2, "tid": 2, "author": "包子", "at": "2026-06-04 10:30:00", "text": "二"},
            {"pid": 3, "tid": 2, "author": "包子", "at": "2026-06-04 10:40:00", "text": "三"},
        ],
    }
    raw["posts"][1]["deleted_from_snapshot"] = "s2"
    board = LiveBoard(scenario_from_dict(raw), now="s1")
    assert board.now == T0 and 'id="post_2"' in board.thread_html(2)
    board.use("s2")
    assert board.now == T0 + timedelta(hours=2, minutes=30) and 'id="post_2"' not in board.thread_html(2)
    board.down = True
    assert board.handle("GET", ROOT + "forum.php?mod=viewthread&tid=2", {}, b"")[0] == 503
    with pytest.raises(ScenarioError, match="no snapshot 's9'"):
        board.use("s9")
    raw["posts"][1]["deleted_from_snapshot"] = "s9"
    with pytest.raises(ScenarioError, match="no snapshot 's9'"):
        scenario_from_dict(raw)


@pytest.mark.parametrize(
    ("option", "words"),
    [({"paging": "page"}, "neither 'floor' nor 'offset'"), ({"mobile_api": "off"}, "not a mode of the API")],
)
def test_a_wrong_option_names_itself(option: dict[str, str], words: str) -> None:
    with pytest.raises(ScenarioError, match=words):
        scenario_from_dict({"board": option, "users": {"法官大人": 14}})


def test_sticky_replies_show_again_at_the_top_of_page_one() -> None:
    board = small_board()
    board.add_thread(7, 15)
    board.scenario.stick(7, 13)
    page1 = board.thread_html(7, 1)
    assert page1.index('id="post_13"') < page1.index('id="post_1"')
    assert 'id="post_13"' in board.thread_html(7, 2)
