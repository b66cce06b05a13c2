"""Text-cleaning tables: body HTML → the text votes are read from (junk included)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from forumbot.parsers.htmltext import classify_notice, read_fragment, split_edit_marker, unescape_numeric
from forumbot.parsers.records import PostState

TZ = ZoneInfo("Asia/Shanghai")

QUOTE = (
    '<div class="quote"><blockquote><font size="2"><a href="http://b/forum.php?mod=redirect&amp;goto=findpost'
    '&amp;pid=50&amp;ptid=3" target="_blank"><font color="#999999">饺子 发表于 2026-11-29 21:29</font></a>'
    "</font><br />\n投票对象：烧卖</blockquote></div><br />\n"
)
REPLY_WRAP = (
    '<div class="reply_wrap"><a href="http://b/forum.php?mod=redirect&amp;amp;goto=findpost&amp;amp;pid=50'
    '&amp;amp;ptid=3"><font color="#999999">饺子 发表于 2026-11-29 21:29</font></a><br />\n'
    "投票对象：烧卖</div><br />\n"
)


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        ("投票对象：饺子", "投票对象：饺子"),
        ("投票对象：饺子<br />\n投票理由：诡异", "投票对象：饺子\n投票理由：诡异"),
        ("\n  投票 ： 饺子  \n", "投票 ： 饺子"),  # the source's whitespace collapses, lines are stripped
        ("a<br />\n<br />\n<br />\n<br />\nb", "a\n\nb"),  # at most one blank line
        ("<br /><br />a<br /><br />", "a"),
        ("a&nbsp; &nbsp; b", "a b"),
        ("<strong>投票对象：包子</strong>", "投票对象：包子"),
        ('<font color="Red">红</font><font size="5">大</font>', "红大"),
        ('投<font class="jammer">xYz9</font>票', "投票"),
        ('投<span style="display:none">k3</span>票', "投票"),
        ('投<span style="DISPLAY: none;">k3</span>票', "投票"),
        ('投<font style="font-size:0px;color:#FFF;display:none">7</font>票', "投票"),
        ('好人 <img src="static/image/smiley/default/cry.gif" smilieid="4" border="0" alt="" />', "好人"),
        ('<img id="aimg_1" class="zoom" src="data/a.jpg" /><br />图', "图"),
        ("x<script>document.write('y')</script>z", "xz"),
        ("&amp;#25105;投&#25105;", "我投我"),  # double-escaped on GBK boards
        ("&amp;#x6211;", "我"),
        ("&amp;#0;&amp;#55296;", "&#0;&#55296;"),  # not characters: left alone
        ("&lt;b&gt;不是标签&lt;/b&gt;", "<b>不是标签</b>"),
        ("<div>第一段</div><div>第二段</div>", "第一段\n第二段"),
        ("<p>甲</p>乙", "甲\n乙"),
        ("<ul><li>一</li><li>二</li></ul>", "一\n二"),
        (QUOTE + "改票对象：包子", "改票对象：包子"),
        (REPLY_WRAP + "改票对象：包子", "改票对象：包子"),
        (
            '<i class="pstatus"> 本帖最后由 月饼 于 2026-11-29 21:30 编辑 </i><br />\n<br />\n投票对象：粽子',
            "投票对象：粽子",
        ),
        (
            "本帖最后由 月饼 于 2026-11-29 21:30 编辑<br />\n<br />\n投票对象：粽子",
            "投票对象：粽子",
        ),  # plain text
        ('<div class="showhide"><h4>本帖隐藏的内容</h4>暗票：粽子</div>', "暗票：粽子"),
        ('前<div class="locked">游客，如果您要查看本帖隐藏内容请<a href="#">回复</a></div>后', "前\n后"),
        ('<a href="home.php?mod=space&amp;uid=3" target="_blank">@包子</a> 你好', "@包子 你好"),
        ('<div class="tip tip_4 aimg_tip" id="aimg_1_menu">a.jpg (12 KB, 下载次数: 0)</div>正文', "正文"),
        ("<table><tr><td>甲</td><td>乙</td></tr></table>", "甲 乙"),
        ("", ""),
    ],
)
def test_text(markup: str, text: str) -> None:
    assert read_fragment(markup, TZ).text == text


def test_quote_details() -> None:
    for markup in (QUOTE, REPLY_WRAP):
        body = read_fragment(markup + "改票", TZ)
        assert len(body.quotes) == 1
        quote = body.quotes[0]
        assert (quote.pid, quote.author, quote.text) == (50, "饺子", "投票对象：烧卖")


def test_quote_without_a_link_has_no_pid() -> None:
    body = read_fragment("<blockquote>引用:<br />别人说的</blockquote>我说的", TZ)
    assert body.text == "我说的"
    assert body.quotes[0].pid is None and body.quotes[0].text == "引用:\n别人说的"


def test_nested_quotes_are_cut_with_their_parent() -> None:
    inner = '<div class="quote"><blockquote>最早的话</blockquote></div>'
    outer = f'<div class="quote"><blockquote>{inner}中间的话</blockquote></div>最后的话'
    body = read_fragment(outer, TZ)
    assert body.text == "最后的话"
    assert [q.text for q in body.quotes] == ["中间的话"]


def test_ptid_is_not_taken_for_the_pid() -> None:
    markup = (
        '<div class="quote"><blockquote><a href="forum.php?mod=redirect&amp;goto=findpost'
        '&amp;ptid=3&amp;pid=7">a 发表于 b</a></blockquote></div>'
    )
    assert read_fragment(markup, TZ).quotes[0].pid == 7


def test_mentions_only_from_profile_links() -> None:
    markup = (
        '<a href="home.php?mod=space&amp;uid=3">@包子</a> '
        '<a href="home.php?mod=space&amp;username=%E9%A5%BA">@饺子</a> '
        '<a href="http://example.com">@不是人</a> @纯文本 <a href="home.php?mod=space&amp;uid=3">@包子</a>'
    )
    assert read_fragment(markup, TZ).mentions == ("包子", "饺子")


@pytest.mark.parametrize(
    ("markup", "state"),
    [
        ('<div class="locked">提示: <em>作者被禁止或删除 内容自动屏蔽</em></div>', PostState.BANNED),
        ('<div class="quote">提示: <em>该帖被管理员或版主屏蔽</em></div>', PostState.BLOCKED),
        ('<div class="grey quote">此帖仅作者可见</div>', PostState.AUTHOR_ONLY),
        ('<div class="locked">本帖为密码帖 ，请输入密码</div>', PostState.HIDDEN),
        ('可见<div class="locked">游客，如果您要查看本帖隐藏内容请回复</div>', PostState.HIDDEN),
        ('<span class="xg1">(待审核)</span>', PostState.PENDING),
        ('<div class="locked">本帖需要购买</div>', PostState.HIDDEN),  # some content withheld
        ("待审核的人请举手", PostState.NORMAL),  # words in a post are not a placeholder
    ],
)
def test_placeholder_states(markup: str, state: PostState) -> None:
    assert read_fragment(markup, TZ).state is state


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("提示: 作者被禁止或删除 内容自动屏蔽", PostState.BANNED),
        ("提示: 该帖被管理员或版主屏蔽", PostState.BLOCKED),
        ("此帖仅作者可见", PostState.AUTHOR_ONLY),
        ("此帖僅作者可見", PostState.AUTHOR_ONLY),
        ("本帖为密码帖", PostState.HIDDEN),
        ("(待审核)", PostState.PENDING),
        ("投票对象：包子", None),
        ("", None),
    ],
)
def test_classify_notice(text: str, state: PostState | None) -> None:
    assert classify_notice(text) is state


@pytest.mark.parametrize(
    ("text", "by", "at"),
    [
        ("本帖最后由 月饼 于 2026-11-29 21:30 编辑", "月饼", datetime(2026, 11, 29, 13, 30, tzinfo=UTC)),
        (" 本帖最后由 Ken_1 于 2026-6-3 9:05 编辑 ", "Ken_1", datetime(2026, 6, 3, 1, 5, tzinfo=UTC)),
        ("本帖最後由 月餅 於 2026-11-29 21:30 編輯", "月餅", datetime(2026, 11, 29, 13, 30, tzinfo=UTC)),
        ("This post was last edited by bob at 2026-6-3 09:05", "bob", datetime(2026, 6, 3, 1, 5, tzinfo=UTC)),
        ("本帖最后由 月饼 于 刚才 编辑", "月饼", None),
    ],
)
def test_edit_marker(text: str, by: str, at: datetime | None) -> None:
    marker = split_edit_marker(text, TZ)
    assert marker is not None
    assert (marker.by, marker.at) == (by, at)


@pytest.mark.parametrize("text", ["投票对象：月饼", "本帖最后由", "最后由 月饼 于 2026-1-1 编辑了"])
def test_not_an_edit_marker(text: str) -> None:
    assert split_edit_marker(text, TZ) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("&#25105;", "我"),
        ("&#x1F600;", "😀"),
        ("a&#b;", "a&#b;"),
        ("&#99999999;", "&#99999999;"),
        ("no entities", "no entities"),
    ],
)
def test_unescape_numeric(text: str, expected: str) -> None:
    assert unescape_numeric(text) == expected


def test_html_is_kept_as_served() -> None:
    markup = '投票<font class="jammer">x</font>：包子'
    assert read_fragment(markup, TZ).html == markup
    assert read_fragment(markup, TZ, keep_html=False).html == ""
