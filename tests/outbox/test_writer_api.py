"""The writer through the mobile API and the AJAX fast reply, answered as INDEX.md documents."""

from __future__ import annotations

import json

import requests
import responses

from forumbot.client import BoardClient
from forumbot.posting import BoardWriter, Outcome, WriterSettings
from tests.boards import ROOT
from tests.conftest import make_board

API = ROOT + "api/mobile/index.php"


def _json(payload: dict[str, object], cookie: str | None = None) -> dict[str, object]:
    headers = {"Set-Cookie": cookie} if cookie else {}
    return {"body": json.dumps(payload), "content_type": "application/json", "headers": headers}


def _check(rsps: responses.RequestsMock, charset: str = "utf-8") -> None:  # 29: the API's charset
    rsps.get(API + "?check", **_json({"discuzversion": "X3.5", "charset": charset, "version": "4"}))


def test_api_login_v2_then_sendreply_and_sendpm_give_pid_and_pmid() -> None:  # 29, 33, 34, 35, 72
    with responses.RequestsMock() as rsps:
        _check(rsps)
        rsps.post(
            API + "?version=2&module=login&loginsubmit=yes&loginfield=username",
            **_json(
                {"Variables": {"member_uid": "14", "auth": "x"}, "Message": {"messageval": "login_succeed"}},
                "test_2132_auth=ok; path=/",
            ),
        )
        var = {"Charset": "UTF-8", "Variables": {"formhash": "f0f0f0f0", "member_uid": "14"}}
        rsps.get(API + "?version=4&module=viewthread&tid=5", **_json(var))
        rsps.post(
            API + "?version=4&module=sendreply&replysubmit=yes&fid=3&tid=5",
            **_json(
                {"Variables": {"tid": "5", "pid": "47"}, "Message": {"messageval": "post_reply_succeed"}}
            ),
        )
        rsps.get(API + "?version=4&module=viewthread&tid=0", **_json(var))
        rsps.post(
            API + "?version=4&module=sendpm&pmsubmit=yes&touid=2",
            **_json({"Variables": {"pmid": "10"}, "Message": {"messageval": "do_success"}}),
        )
        client = BoardClient(
            make_board(username="法官大人", password="pw", min_interval=0), session=requests.Session()
        )
        w = BoardWriter(client, WriterSettings(via="api"))
        r = w.reply(5, "【票数统计】", fid=3)
        assert r.sent and r.pid == 47
        [reply] = [c for c in rsps.calls if "module=sendreply" in str(c.request.url)]
        assert "formhash=f0f0f0f0" in str(reply.request.body)
        pm = w.send_pm(2, "你的身份是【平民】")
        assert pm.sent and pm.pmid == 10


def test_api_login_v4_answers_503_yet_the_cookie_says_logged_in() -> None:  # 29, 31
    with responses.RequestsMock() as rsps:
        _check(rsps)
        rsps.post(
            API + "?version=4&module=login&loginsubmit=yes&loginfield=username",
            status=503,
            body="<h1>Discuz! System Error</h1>"
            "<div class=\"info\">Failed opening required 'wsq.class.php'</div>",
            headers={"Set-Cookie": "test_2132_auth=ok; path=/"},
        )
        client = BoardClient(
            make_board(username="法官大人", password="pw", min_interval=0), session=requests.Session()
        )
        result = BoardWriter(client).login_api(version=4)
        assert result.sent and client.logged_in


def test_fast_reply_posts_the_fastpostform_with_inajax() -> None:  # 09, 10
    page = (
        '<html><head><meta charset="utf-8" /></head><body><form method="post" id="fastpostform" '
        'action="forum.php?mod=post&amp;action=reply&amp;fid=3&amp;tid=5&amp;extra=&amp;replysubmit=yes'
        '&amp;infloat=yes&amp;handlekey=fastpost"><textarea name="message"></textarea>'
        '<input type="hidden" name="posttime" value="1796130998" />'
        '<input type="hidden" name="formhash" value="488ae38c" />'
        '<input type="hidden" name="usesig" value="1" />'
        '<input type="hidden" name="subject" value="  " /></form></body></html>'
    )
    ok = (
        '<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[<script>succeedhandle_fastpost('
        "'forum.php?mod=viewthread&tid=5&pid=44&page=1&extra=#pid44', '非常感谢，回复发布成功', "
        "{'fid':'3','tid':'5','pid':'44','from':'','sechash':''});</script>]]></root>"
    )
    with responses.RequestsMock() as rsps:
        rsps.get(ROOT + "forum.php?mod=viewthread&tid=5&extra=", body=page, content_type="text/html")
        rsps.post(
            ROOT + "forum.php?mod=post&action=reply&fid=3&tid=5&extra=&replysubmit=yes&infloat=yes"
            "&handlekey=fastpost&inajax=1",
            body=ok,
            content_type="text/xml",
        )
        client = BoardClient(make_board(min_interval=0), session=requests.Session())
        client.session.cookies.set("test_2132_auth", "ok")
        r = BoardWriter(client, WriterSettings(fast_reply=True)).reply(5, "顶一下，法官来了")
        assert r.outcome is Outcome.SENT and r.pid == 44
        assert "formhash=488ae38c" in str(rsps.calls[1].request.body)
