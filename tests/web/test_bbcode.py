"""The outbox preview: BBCode as the board shows it, and nothing a draft says can become markup."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from forumbot.web.bbcode import to_html

ALLOWED = {
    *("strong", "em", "u", "s", "sub", "sup", "span", "div", "blockquote", "pre"),
    *("ul", "ol", "li", "a", "br", "hr", "table", "tr", "td"),
}


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    p = Tags()
    p.feed(html)
    return p.tags


def test_the_common_tags_render_as_the_board_shows_them() -> None:
    html = to_html("[b]烧卖[/b] [i]3票[/i] [u]u[/u] [color=red]红[/color] [size=5]大[/size]")
    assert "<strong>烧卖</strong>" in html
    assert "<em>3票</em>" in html
    assert "<u>u</u>" in html
    assert '<span style="color:red">红</span>' in html
    assert '<span style="font-size:24px">大</span>' in html


def test_links_quotes_lists_and_rules() -> None:
    html = to_html(
        "[url=http://bbs.example.com/forum.php?mod=redirect&pid=7]#2[/url]\n[quote]原文[/quote][hr]"
        "[list][*]一[*]二[/list][url]https://example.com/x[/url]"
    )
    assert '<a href="http://bbs.example.com/forum.php?mod=redirect&amp;pid=7"' in html
    assert '<blockquote class="bb-quote">原文</blockquote>' in html
    assert "<hr>" in html
    assert "<ul><li>一</li><li>二</li></ul>" in html
    assert '<a href="https://example.com/x"' in html


def test_html_in_a_draft_is_shown_as_text() -> None:
    html = to_html('<script>alert(1)</script> & "x"')
    assert "<script" not in html
    assert "&lt;script&gt;" in html and "&amp;" in html and "&quot;x&quot;" in html


def test_a_javascript_url_is_never_a_link() -> None:
    for draft in ("[url=javascript:alert(1)]x[/url]", "[url]javascript:alert(1)[/url]"):
        html = to_html(draft)
        assert "href" not in html, html
        assert "javascript" in html  # still visible: the judge sees what his draft says


def test_an_argument_cannot_break_out_of_its_attribute() -> None:
    html = to_html('[color=red" onmouseover="alert(1)]x[/color][size=3;background:url(x)]y[/size]')
    assert "onmouseover" not in "".join(f"{k}" for _, a in tags(html) for k in a)
    assert all(tag != "span" for tag, _ in tags(html))  # both arguments refused: shown as text


def test_broken_nesting_is_shown_as_the_board_would() -> None:
    assert to_html("[b]bold to the end") == "<strong>bold to the end</strong>"
    assert to_html("stray [/i] tag") == "stray [/i] tag"
    assert to_html("[b][i]x[/b]y") == "<strong><em>x</em></strong>y"
    assert to_html("[unknown]x[/unknown]") == "[unknown]x[/unknown]"


def test_newlines_become_line_breaks() -> None:
    assert to_html("一\n二") == "一<br>\n二"


@given(st.text(alphabet=st.sampled_from(list("[]/=*burlsizecolorquotehttp:javascript<>\"'& 票\n"))))
def test_any_draft_gives_only_allowed_tags_and_safe_links(draft: str) -> None:
    for tag, attrs in tags(to_html(draft)):
        assert tag in ALLOWED, (draft, tag)
        assert set(attrs) <= {"href", "style", "class", "rel", "target", "type", "title"}, (draft, attrs)
        href = attrs.get("href")
        assert href is None or href.startswith(("http://", "https://", "forum.php?")), (draft, href)
