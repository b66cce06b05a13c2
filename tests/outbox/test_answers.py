"""The writer reads every answer: small exchange copies written here from INDEX.md's documentation.

The core suite carries no captured file; each answer below is what INDEX.md says the board sends
(the exchange it documents is named in each test).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.posting import (
    Action,
    Outcome,
    bodies_match,
    classify_answer,
    classify_message,
    encode_fields,
    normalise_body,
)

XML = '<?xml version="1.0" encoding="{cs}"?>\n<root><![CDATA[{cdata}]]></root>'


def page(message: str, kind: str = "alert_error") -> bytes:
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8" /><title>提示信息</title></head><body>'
        f'<div id="messagetext" class="{kind}"><p>{message}</p></div></body></html>'
    ).encode()


def test_reply_301_gives_the_pid_from_query_and_fragment() -> None:  # 08_reply_post
    r = classify_answer(
        Action.REPLY,
        301,
        {"Location": "forum.php?mod=viewthread&tid=5&pid=43&page=1&extra=#pid43"},
        b"",
        base_url="http://b/",
    )
    assert r.sent and (r.tid, r.pid) == (5, 43) and r.url.startswith("http://b/forum.php")


def test_edit_301_gives_the_pid_only_in_the_fragment() -> None:  # 14_edit_post
    r = classify_answer(
        Action.EDIT, 301, {"location": "forum.php?mod=viewthread&tid=5&page=1&extra=#pid43"}, b""
    )
    assert r.sent and r.pid == 43


def test_new_thread_301_gives_only_the_tid() -> None:  # 06_newthread_post
    r = classify_answer(Action.NEWTHREAD, 301, {"Location": "forum.php?mod=viewthread&tid=9&extra="}, b"")
    assert r.sent and r.tid == 9 and r.pid is None


def test_a_reply_redirect_without_pid_is_unknown() -> None:  # 53_edit_post_delete_own: no pid
    r = classify_answer(Action.REPLY, 301, {"Location": "forum.php?mod=viewthread&tid=5&page=1&extra="}, b"")
    assert r.unclear


def test_fast_reply_succeedhandle_and_flood_errorhandle() -> None:  # 10, 18
    ok = XML.format(
        cs="gbk",
        cdata="<script>succeedhandle_fastpost('forum.php?mod=viewthread&tid=1&pid=35&page=1&extra=#pid35', "
        "'非常感谢，回复发布成功', {'fid':'2','tid':'1','pid':'35','from':'','sechash':''});</script>",
    ).encode("gbk")
    r = classify_answer(Action.FASTREPLY, 200, {"Content-Type": "text/xml; charset=gbk"}, ok)
    assert r.sent and r.pid == 35 and "回复发布成功" in r.board_message
    flood = XML.format(
        cs="utf-8",
        cdata="抱歉，您两次发表间隔少于 15 秒，请稍候再发表<script>errorhandle_fastpost("
        "'抱歉，您两次发表间隔少于 15 秒，请稍候再发表', {'floodctrl':'15'});</script>",
    ).encode()
    r = classify_answer(Action.FASTREPLY, 200, {}, flood)
    assert r.outcome is Outcome.FLOOD and r.wait_seconds == 15 and r.refused


def test_pm_popup_gives_the_pmid() -> None:  # 67_pm_send_touid_ajax
    body = XML.format(
        cs="utf-8",
        cdata="<script>succeedhandle_sendpm('home.php?mod=space&do=pm&subop=view&touid=7', "
        "'操作成功 ', {'pmid':'3'});</script>",
    ).encode()
    r = classify_answer(Action.PM, 200, {}, body)
    assert r.sent and r.pmid == 3


def test_wrong_formhash_503_is_a_refusal_and_other_503s_are_unknown() -> None:  # 25, 31
    tainted = (
        '<h1>Discuz! System Error</h1><div class="info">'
        "<li>您当前的访问请求当中含有非法字符，已经被系统拒绝</li></div>"
    ).encode()
    assert classify_answer(Action.REPLY, 503, {}, tainted).outcome is Outcome.TAINTED
    fatal = b"<h1>Discuz! System Error</h1><div class=\"info\">Failed opening required 'wsq.class.php'</div>"
    r = classify_answer(Action.REPLY, 503, {}, fatal)
    assert r.unclear and "wsq.class.php" in r.board_message


def test_api_answers_by_messageval() -> None:  # 35, 40, 41, 70, 72
    def api(val: str, **var: str) -> bytes:
        import json

        return json.dumps(
            {"Variables": var, "Message": {"messageval": val, "messagestr": f"mobile:{val}"}}
        ).encode()

    assert classify_answer(Action.API_REPLY, 200, {}, api("post_reply_succeed", pid="47", tid="5")).pid == 47
    assert (
        classify_answer(Action.API_REPLY, 200, {}, api("post_flood_ctrl", pid="0")).outcome is Outcome.FLOOD
    )
    r = classify_answer(Action.API_REPLY, 200, {}, api("replyperm_login_nopermission//1", pid="0"))
    assert r.outcome is Outcome.NOT_LOGGED_IN and "尚未登录" in r.board_message
    r = classify_answer(Action.API_PM, 200, {}, api("message_can_not_send_2", pmid="-2"))
    assert r.outcome is Outcome.PM_FLOOD and r.pmid is None
    assert classify_answer(Action.API_PM, 200, {}, api("do_success", pmid="10")).pmid == 10
    assert classify_answer(Action.API_PM, 200, {}, api("something_new")).unclear


def test_showmessage_pages_carry_the_boards_words() -> None:  # 17, 19, 21, 23, 26, 45, 60, 61, 69, 96-98
    cases = {
        "抱歉，您两次发表间隔少于 30 秒，请稍候再发表": Outcome.FLOOD,
        "抱歉，您的帖子小于 10 个字符的限制": Outcome.TOO_SHORT,
        "抱歉，您尚未输入标题或内容": Outcome.EMPTY,
        "抱歉，您的请求来路不正确或表单验证串不符，无法提交": Outcome.FORM_INVALID,
        "抱歉，本主题已关闭，不再接受新内容": Outcome.THREAD_CLOSED,
        "抱歉，您没有权限编辑他人发表的帖子": Outcome.EDIT_DENIED,
        "抱歉，指定的主题不存在或已被删除或正在被审核": Outcome.THREAD_MISSING,
        "两次发送短消息太快，请稍候再发送": Outcome.PM_FLOOD,
        "您超出了24小时内发短消息数量的上限": Outcome.PM_LIMIT,
        "收件人为空或对方屏蔽了您的短消息": Outcome.PM_BLOCKED,
    }
    for words, outcome in cases.items():
        r = classify_answer(Action.REPLY, 200, {}, page(words))
        assert r.outcome is outcome and r.board_message == words
    assert (
        classify_answer(
            Action.REPLY, 200, {}, page("抱歉，您两次发表间隔少于 30 秒，请稍候再发表")
        ).wait_seconds
        == 30
    )
    guest = classify_answer(
        Action.REPLY, 200, {}, page("抱歉，您尚未登录，没有权限在该版块回帖", "alert_info")
    )
    assert guest.outcome is Outcome.NOT_LOGGED_IN
    assert classify_answer(Action.REPLY, 200, {}, page("一条从没见过的提示")).unclear


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_words_classify_without_raising_and_unknown_words_stay_unknown(words: str) -> None:
    outcome, _ = classify_message(words)
    assert isinstance(outcome, Outcome)
    if not any(ch in words for ch in "抱歉登录权限间隔主题消息字符屏蔽验证来路非法不存在超出还不能需要收件"):
        assert outcome is Outcome.UNKNOWN
    r = classify_answer(Action.REPLY, 200, {}, words.encode("utf-8", "surrogatepass"))
    assert isinstance(r.outcome, Outcome)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_fields_encode_in_gbk_without_losing_anything(text: str) -> None:
    """Every character reaches a GBK board: as GBK bytes, or as &#NNNN; when GBK lacks it."""
    from urllib.parse import parse_qs

    body = encode_fields([("message", text)], "gb18030").decode("ascii")
    back = parse_qs("x=1&" + body, keep_blank_values=True, encoding="gbk")["message"][0]
    import html

    assert html.unescape(back) == html.unescape(back) and normalise_body(
        html.unescape(back), bbcode=False
    ) == normalise_body(
        html.unescape("".join(ch if _gbk(ch) else f"&#{ord(ch)};" for ch in text)), bbcode=False
    )


def _gbk(ch: str) -> bool:
    try:
        ch.encode("gbk")
        return True
    except UnicodeEncodeError:
        return False


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=120).filter(lambda t: normalise_body(t) != ""))
def test_a_body_matches_itself_rendered_and_not_another(body: str) -> None:
    rendered = body.replace("\n", " \n ")
    assert bodies_match(body, rendered)
    assert not bodies_match(body + "多一句不同的话", body) or len(normalise_body(body)) >= 30
