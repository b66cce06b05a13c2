"""Charset detection and decoding: GBK boards, gb18030-only characters, XML declarations, bad bytes."""

from __future__ import annotations

import pytest

from forumbot.parsers import decode_page, parse_thread_page
from forumbot.parsers.encoding import (
    charset_from_content_type,
    detect_charset,
    normalise_charset,
    parse_html,
    sniff_charset,
    text_of,
)


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("utf-8", "utf-8"),
        ("UTF8", "utf-8"),
        ("gbk", "gb18030"),
        ("GB2312", "gb18030"),
        ("x-gbk", "gb18030"),
        ("gb18030", "gb18030"),
        ("big5", "big5hkscs"),
        ("latin-1", "iso8859-1"),
        ("no-such-charset", None),
        ("", None),
        (None, None),
    ],
)
def test_normalise_charset(label: str | None, codec: str | None) -> None:
    assert normalise_charset(label) == codec


@pytest.mark.parametrize(
    ("content_type", "codec"),
    [
        ("text/html; charset=gbk", "gb18030"),
        ("text/html;charset=UTF-8", "utf-8"),
        ('text/html; charset="gb2312"', "gb18030"),
        ("application/json", None),
        (None, None),
    ],
)
def test_charset_from_content_type(content_type: str | None, codec: str | None) -> None:
    assert charset_from_content_type(content_type) == codec


@pytest.mark.parametrize(
    ("head", "codec"),
    [
        (b'<html><head><meta charset="gbk" />', "gb18030"),
        (b'<meta http-equiv="Content-Type" content="text/html; charset=gb2312" />', "gb18030"),
        (b"<script>var STYLEID = '1', charset = 'gbk', discuz_uid = '0';</script>", "gb18030"),
        (b'<?xml version="1.0" encoding="utf-8"?><root>', "utf-8"),
        (b"<html><body>nothing</body></html>", None),
    ],
)
def test_sniff_charset(head: bytes, codec: str | None) -> None:
    assert sniff_charset(head) == codec


def test_header_beats_meta() -> None:
    body = '<meta charset="utf-8"><p>测试</p>'.encode("gbk")
    assert detect_charset(body, "text/html; charset=gbk") == "gb18030"
    assert "测试" in decode_page(body, "text/html; charset=gbk")
    assert detect_charset(body, None) == "utf-8"


def test_gb18030_only_characters_survive() -> None:
    text = '<meta charset="gbk"><p>𠮷野家 €</p>'
    body = text.encode("gb18030")
    with pytest.raises(UnicodeDecodeError):
        body.decode("gbk")
    assert decode_page(body) == text
    root, charset = parse_html(body)
    assert charset == "gb18030"
    assert text_of(root.find(".//p")) == "𠮷野家 €"


def test_bad_gbk_bytes_do_not_lose_the_rest_of_the_page() -> None:
    head = '<html><head><meta charset="gbk"></head><body><p id="a">前</p>'.encode("gbk")
    tail = '<p id="b">后面的帖子</p></body></html>'.encode("gbk")
    root, _ = parse_html(head + b"\xff\xfe\x81" + tail)
    assert text_of(root.xpath("id('b')")[0]) == "后面的帖子"


def test_bad_utf8_bytes_are_replaced() -> None:
    root, _ = parse_html('<p id="a">好</p>'.encode() + b"\xff\xc3(" + '<p id="b">也好</p>'.encode())
    assert text_of(root.xpath("id('b')")[0]) == "也好"


def test_xml_declaration_and_bom() -> None:
    body = b'\xef\xbb\xbf<?xml version="1.0" encoding="utf-8"?><html><body><p>\xe5\xa5\xbd</p></body></html>'
    root, charset = parse_html(body)
    assert charset == "utf-8" and text_of(root.find(".//p")) == "好"
    assert decode_page(body).startswith("<?xml")


def test_decode_page_never_raises() -> None:
    assert decode_page(b"\xff\xfe\xfd", "text/html; charset=utf-8") == "\ufffd\ufffd\ufffd"
    assert decode_page(b"", None) == ""


def test_touch_page_on_a_gbk_board_is_utf8() -> None:
    """The GBK board serves touch pages in UTF-8: the header says so and wins over any guess."""
    page = (
        '<html><head><meta charset="utf-8"></head><body><div class="viewthread">'
        '<div class="view_tit">标题</div><div class="plc cl" id="pid5"><div class="display pi pione">'
        '<ul class="authi"><li class="mtit"><span class="y">楼主</span><span class="z">'
        '<a href="home.php?mod=space&amp;uid=2&amp;mobile=2">饺子</a></span></li>'
        '<li class="mtime">2026-6-3 12:00</li></ul><div class="message">内容</div></div></div>'
        "</div></body></html>"
    ).encode()
    result = parse_thread_page(
        page, "http://b/forum.php?mod=viewthread&tid=1&mobile=2", content_type="text/html; charset=utf-8"
    )
    assert (
        result.posts[0].text == "内容" and result.thread.title == "标题" and result.thread.charset == "utf-8"
    )
