"""PM list and conversation parsers on small pages written here after the captures' structure
(../shared/fixtures/discuz-x35-posting 73–76: dl#pmlist_N rows, span[title] times, API v4 mypm)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forumbot.errors import BoardError, LoginRequired, UnparseablePage
from forumbot.parsers import is_pm_url, parse_pm_page
from forumbot.parsers.pm import PmConversationPage, PmListPage, parse_pm_conversation, parse_pm_list
from forumbot.parsers.records import Source, TimeSource

DATE = "Tue, 01 Dec 2026 13:42:11 GMT"  # 21:42:11 in Beijing
LIST_URL = "http://bbs.example/home.php?mod=space&do=pm&filter=newpm"
VIEW_URL = "http://bbs.example/home.php?mod=space&do=pm&subop=view&touid=3"
API_LIST = "http://bbs.example/api/mobile/index.php?version=4&module=mypm"
API_VIEW = "http://bbs.example/api/mobile/index.php?version=4&module=mypm&subop=view&touid=3"

HEAD = """<html><head><meta charset="utf-8"><script type="text/javascript">var STYLEID = '1',
discuz_uid = '14', cookiepre = 'x_';</script></head><body><div id="um"><strong class="vwmy">
<a href="home.php?mod=space&amp;uid=14">法官大人</a></strong></div><div id="ct"><div class="mn">"""
TAIL = "</div></div></body></html>"


def list_row(
    plid: int,
    uid: int,
    name: str,
    summary: str,
    title: str,
    rel: str,
    *,
    mine: bool = False,
    unread: bool = True,
    count: int = 2,
) -> str:
    link = f'<a href="home.php?mod=space&amp;uid={uid}" class="xw1">{name}</a>'
    you = '<span class="xi2">您</span>'
    who = f"{you} 对 {link} 说 :" if mine else f"{link} 对 {you} 说 :"
    return f"""<dl id="pmlist_{plid}" class="bbda cur1 cl{" newpm" if unread else ""}">
<dd class="m avt"><a href="home.php?mod=space&amp;uid={uid}"><img src="a.png"></a></dd>
<dd class="ptm pm_c"><div class="o"><input type="checkbox" name="deletepm_deluid[]" value="{uid}" /></div>
{who}<br />
{summary} &nbsp;  <br />
<span class="xg1"><span title="{title}">{rel}</span></span> &nbsp;
<span class="pm_o y"><span class="xg1 z">共 {count} 条</span>
<a href="home.php?mod=space&amp;do=pm&amp;subop=view&amp;touid={uid}#last">回复</a></span></dd></dl>"""


def pm_list_page(*rows: str) -> bytes:
    body = (
        '<form id="deletepmform" action="home.php?mod=spacecp&amp;ac=pm&amp;op=delete"><div class="xld">'
        + "".join(rows)
        + '</div><input type="hidden" name="formhash" value="8b0ce216" /></form>'
    )
    return (HEAD + body + TAIL).encode("utf-8")


def view_msg(pmid: int, text: str, title: str, rel: str, *, uid: int | None = 3, name: str = "包子") -> str:
    who = (
        '<span class="xi2 xw1">您</span>'
        if uid is None
        else f'<a href="home.php?mod=space&amp;uid={uid}" class="xw1">{name}</a>'
    )
    return f"""<dl id="pmlist_{pmid}" class="bbda cl">
<dd class="y mtm pm_o"><a href="javascript:;">菜单</a></dd>
<dd class="m avt"><img src="a.png"></dd>
<dd class="ptm">{who} &nbsp; <br />
{text}<br />
<span class="xg1"><span title="{title}">{rel}</span></span></dd></dl>"""


def pm_view_page(total: int, *msgs: str) -> bytes:
    body = (
        f'<div class="xw1">共有 <span id="membernum" class="xi1">{total}</span> 条与 '
        '<a href="home.php?mod=space&amp;uid=3">包子</a> 的交谈记录</div>'
        '<div id="pm_ul" class="xld">' + "".join(msgs) + "</div>"
        '<form id="pmform" action="home.php?mod=spacecp&amp;ac=pm&amp;op=send&amp;pmid=2'
        '&amp;pmsubmit=yes"></form>'
    )
    return (HEAD + body + TAIL).encode("utf-8")


def at(h: int, m: int, s: int = 0) -> datetime:
    return datetime(2026, 12, 1, h, m, s, tzinfo=UTC)


# --- PC list --------------------------------------------------------------------------------------------


def test_the_pc_list_gives_each_conversation_with_its_last_message() -> None:
    page = pm_list_page(
        list_row(2, 3, "包子", "确认：杀：烧卖\n同伴油条也同意。", "2026-12-1 21:42", "1&nbsp;秒前", count=3),
        list_row(
            4, 6, "汤圆", "你的身份是【平民】。", "2026-12-1 21:40", "2&nbsp;分钟前", mine=True, unread=False
        ),
    )
    got = parse_pm_list(page, LIST_URL, date_header=DATE)
    assert isinstance(got, PmListPage) and got.source is Source.PC and got.filter == "newpm"
    assert got.viewer_uid == 14 and got.viewer_name == "法官大人" and got.formhash == "8b0ce216"
    a, b = got.conversations
    assert (a.plid, a.other_uid, a.other_name, a.last_from_name, a.last_from_uid) == (2, 3, "包子", "包子", 3)
    assert a.unread and a.count == 3 and a.summary == "确认：杀：烧卖 同伴油条也同意。"
    assert (a.last_at, a.last_until, a.time_source) == (at(13, 42, 10), at(13, 42, 10), TimeSource.RELATIVE)
    assert (b.plid, b.other_name, b.last_from_uid, b.last_from_name, b.unread) == (
        4,
        "汤圆",
        14,
        "法官大人",
        False,
    )
    assert b.last_at == at(13, 40, 0) and b.last_until == at(13, 40, 11)  # the minute ∩ "2 分钟前"
    assert got.problems == ()


def test_without_the_date_header_the_title_gives_the_minute() -> None:
    page = pm_list_page(list_row(1, 2, "饺子", "验：包子", "2026-12-1 21:41", "18&nbsp;秒前"))
    (c,) = parse_pm_list(page, LIST_URL).conversations
    assert (c.last_at, c.last_until, c.time_source) == (at(13, 41), at(13, 41, 59), TimeSource.TITLE)


def test_an_empty_list_is_a_list() -> None:
    got = parse_pm_list(pm_list_page(), LIST_URL, date_header=DATE)
    assert got.conversations == () and got.page == 1


# --- PC conversation ------------------------------------------------------------------------------------


def test_a_pc_conversation_gives_every_message_with_author_time_and_text() -> None:
    page = pm_view_page(
        3,
        view_msg(
            2,
            "你的身份是【杀手】。<br />\n每晚把「杀：名字」发给法官。",
            "2026-12-1 21:41",
            "51&nbsp;秒前",
            uid=None,
        ),
        view_msg(9, "杀：烧卖", "2026-12-1 21:41", "18&nbsp;秒前"),
        view_msg(10, "确认：杀：烧卖<br />\n同伴油条也同意。", "2026-12-1 21:42", "1&nbsp;秒前"),
    )
    got = parse_pm_conversation(page, VIEW_URL, date_header=DATE)
    assert isinstance(got, PmConversationPage)
    assert (got.other_uid, got.other_name, got.total, got.first_pmid, got.page, got.pages) == (
        3,
        "包子",
        3,
        2,
        1,
        1,
    )
    judge, kill, confirm = got.messages
    assert judge.mine and (judge.from_uid, judge.from_name, judge.to_uid, judge.to_name) == (
        14,
        "法官大人",
        3,
        "包子",
    )
    assert judge.text == "你的身份是【杀手】。\n每晚把「杀：名字」发给法官。"
    assert not kill.mine and (kill.pmid, kill.from_uid, kill.from_name, kill.to_uid) == (9, 3, "包子", 14)
    assert kill.text == "杀：烧卖" and kill.sent_at == kill.sent_until == at(13, 41, 53)
    assert confirm.text == "确认：杀：烧卖\n同伴油条也同意。"
    assert got.problems == ()


def test_a_quote_inside_a_pm_is_cut_out_of_its_text() -> None:
    quoted = (
        '<div class="quote"><blockquote><font size="2">法官大人 发表于 2026-12-1 21:41</font><br />'
        "请提交杀人名单</blockquote></div>杀：烧卖"
    )
    page = pm_view_page(1, view_msg(9, quoted, "2026-12-1 21:41", "18&nbsp;秒前"))
    (m,) = parse_pm_conversation(page, VIEW_URL, date_header=DATE).messages
    assert m.text == "杀：烧卖" and m.quotes and "请提交杀人名单" in m.quotes[0].text


def test_the_same_second_pitfall_is_reported() -> None:
    page = pm_view_page(3, view_msg(9, "杀：烧卖", "2026-12-1 21:41", "18&nbsp;秒前"))
    got = parse_pm_conversation(page, VIEW_URL, date_header=DATE)
    assert len(got.messages) == 1 and any("read the conversation again" in p for p in got.problems)


def test_a_plid_url_keeps_its_plid() -> None:
    page = pm_view_page(1, view_msg(9, "杀：烧卖", "2026-12-1 21:41", "18&nbsp;秒前"))
    got = parse_pm_conversation(page, "http://bbs.example/home.php?mod=space&do=pm&subop=view&plid=2")
    assert got.plid == 2 and got.messages[0].plid == 2


# --- API v4 ---------------------------------------------------------------------------------------------


def api(variables: dict[str, object], message: dict[str, str] | None = None) -> bytes:
    payload: dict[str, object] = {
        "Version": "4",
        "Charset": "UTF-8",
        "Variables": {"member_uid": "14", "member_username": "法官大人", "formhash": "1e187c73", **variables},
    }
    if message:
        payload["Message"] = message
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


def test_the_api_list() -> None:
    body = api(
        {
            "list": [
                {
                    "plid": "2",
                    "isnew": "0",
                    "subject": "身份",
                    "touid": "3",
                    "pmid": "2",
                    "msgfromid": "3",
                    "msgfrom": "包子",
                    "message": "确认：杀：烧卖\n同伴油条也同意。",
                    "tousername": "包子",
                    "vdateline": "1&nbsp;秒前",
                },
                {
                    "plid": "1",
                    "isnew": "1",
                    "subject": "身份",
                    "touid": "2",
                    "pmid": "1",
                    "msgfromid": "2",
                    "msgfrom": "饺子",
                    "message": "验：包子",
                    "tousername": "饺子",
                    "vdateline": "18&nbsp;秒前",
                },
            ],
            "count": "6",
            "perpage": "15",
            "page": "1",
        }
    )
    got = parse_pm_page(body, API_LIST, date_header=DATE)
    assert isinstance(got, PmListPage) and got.source is Source.API and got.count == 6 and got.pages == 1
    a, b = got.conversations
    assert (a.plid, a.other_uid, a.other_name, a.unread, a.summary) == (
        2,
        3,
        "包子",
        False,
        "确认：杀：烧卖\n同伴油条也同意。",
    )
    assert a.last_at == a.last_until == at(13, 42, 10)
    assert b.unread and b.last_at == at(13, 41, 53)


def test_the_api_view_and_the_exact_unix_time_of_older_versions() -> None:
    rows = [
        {
            "plid": "2",
            "pmid": "9",
            "message": "杀：烧卖",
            "touid": "14",
            "msgfromid": "3",
            "msgfrom": "包子",
            "vdateline": "18&nbsp;秒前",
        },
        {
            "plid": "2",
            "pmid": "10",
            "message": "确认：杀：烧卖<br />\n同伴油条也同意。",
            "touid": "14",
            "msgfromid": "3",
            "msgfrom": "包子",
            "vdateline": "1&nbsp;秒前",
            "dateline": "1796132530",
        },
    ]
    got = parse_pm_page(api({"list": rows, "count": "2", "perpage": "5", "page": "1", "pmid": "9"}), API_VIEW)
    assert isinstance(got, PmConversationPage) and got.plid == 2 and got.first_pmid == 9
    kill, confirm = got.messages
    assert (kill.from_name, kill.to_uid, kill.to_name, kill.mine) == ("包子", 14, "法官大人", False)
    assert kill.time_source is TimeSource.RELATIVE and kill.sent_at == datetime(
        1970, 1, 1, tzinfo=UTC
    )  # no Date
    assert confirm.text == "确认：杀：烧卖\n同伴油条也同意。"
    assert confirm.time_source is TimeSource.API and confirm.sent_at == datetime.fromtimestamp(
        1796132530, UTC
    )
    assert any("no time found" in p for p in got.problems)


def test_an_api_message_is_the_boards_error() -> None:
    body = api({}, {"messageval": "to_login", "messagestr": "mobile:to_login"})
    with pytest.raises(LoginRequired):
        parse_pm_page(body, API_LIST)


# --- errors and dispatch --------------------------------------------------------------------------------


def test_the_login_wall_is_login_required() -> None:
    page = (
        HEAD + '<div id="messagetext" class="alert_info"><p>您需要先登录才能继续本操作</p></div>' + TAIL
    ).encode()
    with pytest.raises(LoginRequired):
        parse_pm_page(page, LIST_URL)


def test_a_page_that_is_no_pm_page_is_unparseable() -> None:
    with pytest.raises(UnparseablePage):
        parse_pm_page((HEAD + "<p>hello</p>" + TAIL).encode(), LIST_URL)
    with pytest.raises(UnparseablePage):
        parse_pm_page((HEAD + "<p>hello</p>" + TAIL).encode(), VIEW_URL)


def test_pm_urls() -> None:
    assert is_pm_url(LIST_URL) and is_pm_url(VIEW_URL) and is_pm_url(API_VIEW)
    assert not is_pm_url("http://bbs.example/forum.php?mod=viewthread&tid=8")


@given(st.binary(max_size=400), st.sampled_from([LIST_URL, VIEW_URL, API_LIST, API_VIEW]))
def test_any_bytes_give_a_page_or_a_board_error(body: bytes, url: str) -> None:
    try:
        parse_pm_page(body, url, date_header=DATE)
    except BoardError as exc:
        assert "internal parser error" not in str(exc)
