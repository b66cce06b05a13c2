"""Issue 22: names and texts from the board are published as their characters, look-alike names are
flagged ⚑, an author holding ``<…>`` is never lost, and a provisional count says so in its own block.

The chain under test is the real one: a board page → the parser → the vote reader → the R001 day
engine → the vote-count draft → the web desk's preview (forumbot/web/bbcode.py), with a model of how
Discuz! X3.5 shows a body (forumbot/boardtext.py's docstring gives the evidence).
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import DayFlags, DayInput, DayTimes, judge_day
from forumbot.boardtext import literal
from forumbot.drafts import render_vote_count, vote_count_view
from forumbot.exampleboard.server import LiveBoard
from forumbot.lookalike import look_alikes, skeleton
from forumbot.parsers.dispatch import parse_thread_page
from forumbot.parsers.votes import vote_posts
from forumbot.posting import bodies_match
from forumbot.web.bbcode import to_html
from tests.boards import ROOT, small_board

SH = ZoneInfo("Asia/Shanghai")
ROSTER = ("饺子", "包子", "馄饨", "烧卖")
JUDGES = frozenset({"法官大人"})
OPEN = datetime(2026, 6, 4, 17, 20, tzinfo=SH).astimezone(UTC)
CLOSE = datetime(2026, 6, 5, 13, 0, tzinfo=SH).astimezone(UTC)
HOSTILE = (
    "吃瓜[url=http://evil.example/]领奖[/url]",  # BBCode: a live link
    "[i]饺子[/i]",  # BBCode: reads as the real 饺子
    "<b>馄饨</b>",  # HTML in a name
    "饺\u200b子",  # zero-width space
    "包\u2f26",  # Kangxi radical ⼦ for 子
    "法官大\u2f08",  # the judge's name with the Kangxi radical ⼈
    "烧卖:)",  # a smiley code
)

# ----------------------------------------------------------------------------- how the board shows a body

_SMILIES = (":)", ":(", ":D", ":'(", ":@", ":o", ":P", ":$", ";P", ":L", ":Q", ":lol", "{:2_25:}")


def board_shows(bbcode: str) -> str:
    """The text a reader sees of a reply as Discuz! X3.5 renders it (html off, BBCode on): HTML
    escaped, smilies, @mentions and URLs recognised, then the tags (a model of discuzcode(), enough to
    tell literal text from live markup). Markup is returned as ⟨…⟩ so a test can see it."""
    text = html.escape(bbcode, quote=False)
    for code in _SMILIES:
        text = text.replace(html.escape(code, quote=False), "⟨smiley⟩")
    text = re.sub(r"(?<![\]=/\w])(https?://|www\.)[\w./-]+", "⟨autolink⟩", text)
    text = re.sub(r"\[url(=[^\]]*)?\](.*?)\[/url\]", r"⟨link⟩\2⟨/link⟩", text, flags=re.S | re.I)
    text = re.sub(r"\[(/?)(b|i|u|s|i=s)\]", "", text, flags=re.I)  # shown as (empty) tags, no text
    return html.unescape(text)


def preview_shows(bbcode: str) -> str:
    """The text of the web desk's preview, and ⟨link⟩ for any link it renders."""
    out = re.sub(r"<a [^>]*>", "⟨link⟩", to_html(bbcode))
    out = re.sub(r"<[^>]+>", "", out.replace("<br>", ""))
    return html.unescape(out)


@pytest.mark.parametrize("name", [*HOSTILE, "饺子", "22:00", "a@b.cn", "www.x.cn", "&#91;i]", "{:2_25:}"])
def test_a_neutralised_name_shows_as_its_characters_on_the_board_and_in_the_preview(name: str) -> None:
    assert board_shows(literal(name)) == name
    assert preview_shows(literal(name)) == name


def test_without_neutralising_the_board_would_show_markup() -> None:
    """The model is not blind: the raw names do turn into links, smilies and formatting."""
    assert "⟨link⟩" in board_shows(HOSTILE[0])
    assert board_shows("[i]饺子[/i]") == "饺子"
    assert "⟨smiley⟩" in board_shows("烧卖:)")


@given(st.text(alphabet=st.sampled_from("[]/=:;@&#wW.)(bi饺子url http"), max_size=30))
def test_any_text_shows_literally_after_literal(text: str) -> None:
    shown = board_shows(literal(text))
    assert shown == text
    assert "⟨" not in preview_shows(literal(text))


def test_a_posted_draft_is_recognised_on_the_board_after_neutralising() -> None:
    """The outbox finds its own post again: what the board shows of a neutralised name matches."""
    link = "[url=forum.php?mod=redirect&goto=findpost&pid=1]#1[/url]"
    sent = f"[b]票型[/b]\n{literal('[i]饺子[/i]')}{link}：非本局玩家"
    seen = "票型\n[i]饺子[/i]#1：非本局玩家"
    assert bodies_match(sent, seen)


# ----------------------------------------------------------------------------- look-alike names


def test_look_alikes_are_names_equal_after_nfkc_and_without_invisible_code_points() -> None:
    finder = look_alikes({*ROSTER, *JUDGES})
    zw = finder.find("饺\u200b子")
    assert zw is not None and zw.like == "饺子" and "U+200B ZERO WIDTH SPACE" in zw.note
    kangxi = finder.find("包\u2f26")
    assert kangxi is not None and kangxi.like == "包子" and "U+2F26" in kangxi.code_points
    judge = finder.find("法官大\u2f08")
    assert judge is not None and judge.like == "法官大人"
    assert finder.find("饺子") is None  # the real name
    assert finder.find("吃瓜群众") is None  # simply another name
    assert skeleton("\ufeffＫｅｎ\u2060") == "Ken"


# ----------------------------------------------------------------------------- the whole chain


def _board() -> tuple[LiveBoard, dict[str, int]]:
    board = small_board()
    board.add_thread(3, 0, subject="【美食杀】第1日投票帖")
    board.now = OPEN + timedelta(hours=1)
    pids = {name: board.reply(3, name, "投票对象：饺子\n投票理由：可疑") for name in ("包子", "馄饨")}
    for name in HOSTILE:
        pids[name] = board.reply(3, name, "投票对象：包子\n投票理由：领奖")
    return board, pids


def _judged_draft(*, provisional: tuple[str, ...] = ()) -> tuple[str, dict[str, object], dict[str, int]]:
    board, pids = _board()
    page = parse_thread_page(board.thread_html(3, 1).encode("utf-8"), ROOT + "forum.php?mod=viewthread&tid=3")
    posts = vote_posts(page.posts, "r001", ROSTER, others=JUDGES)
    result = judge_day(
        DayInput(
            family="r001",
            day=1,
            roster=ROSTER,
            alive=frozenset(ROSTER),
            posts=posts,
            times=DayTimes(OPEN, CLOSE),
            flags=DayFlags(),
            strikes={},
            display_tz=SH,
            judges=JUDGES,
        )
    )
    view = vote_count_view(
        game_name="美食杀",
        board_url=ROOT,
        vote_tid=3,
        tz=SH,
        result=result,
        judges=JUDGES,
        provisional=provisional,
    )
    verdicts = {v.author: v for v in result.verdicts}
    return render_vote_count(view), verdicts, pids


def test_hostile_names_are_published_literally_and_look_alikes_flagged() -> None:
    draft, verdicts, pids = _judged_draft()
    shown, preview = board_shows(draft), preview_shows(draft)
    for name in HOSTILE:
        assert name in verdicts, f"{name!r} lost its author"
        # as written, right before the link to its floor
        assert f"{name}⟨link⟩#" in shown and f"{name}⟨link⟩#" in preview
        assert verdicts[name].status.value == "not_a_player"
    # nothing from a name became markup: the only links are our own findpost links, one per listed post
    assert shown.count("⟨link⟩") == len(pids) == preview.count("⟨link⟩")
    assert "⟨smiley⟩" not in shown and "⟨autolink⟩" not in shown
    for impostor, real in (("饺\u200b子", "饺子"), ("包\u2f26", "包子"), ("法官大\u2f08", "法官大人")):
        v = verdicts[impostor]
        assert v.needs_review and real in v.reason and "U+" in v.reason  # ⚑ with the code points
        line = next(line for line in shown.splitlines() if line.startswith(f"{impostor}⟨link⟩#"))
        assert "不是同一账号" in line and "U+" in line  # readers are told it is not the real account
    assert not verdicts["[i]饺子[/i]"].needs_review  # plainly another name: void, no flag needed


def test_a_provisional_count_says_so_on_the_first_line_of_its_block() -> None:
    draft, _verdicts, _pids = _judged_draft(provisional=("投票帖（主题 3）截止后未完整读取",))
    first = draft.splitlines()[0]
    assert first == "【非最终结果：投票帖（主题 3）截止后未完整读取】"
    final, _v, _p = _judged_draft()
    assert "非最终结果" not in final


def test_a_running_count_is_marked_in_its_block_too() -> None:
    board, _pids = _board()
    page = parse_thread_page(board.thread_html(3, 1).encode("utf-8"), ROOT + "forum.php?mod=viewthread&tid=3")
    posts = vote_posts(page.posts, "r001", ROSTER, others=JUDGES)
    result = judge_day(
        DayInput(
            family="r001",
            day=1,
            roster=ROSTER,
            alive=frozenset(ROSTER),
            posts=posts,
            times=DayTimes(OPEN, CLOSE),
            flags=DayFlags(),
            strikes={},
            display_tz=SH,
            judges=JUDGES,
        ),
        as_of=OPEN + timedelta(hours=2),
    )
    view = vote_count_view(game_name="美食杀", board_url=ROOT, vote_tid=3, tz=SH, result=result)
    assert render_vote_count(view).splitlines()[0] == "【非最终结果：截至 6月4日 19:20 的实时统计】"


# ----------------------------------------------------------------------------- <…> in a name


def _raw_names_page(names: tuple[str, ...]) -> bytes:
    """A PC page from a board that prints names without escaping them (the example board escapes them):
    the markup of a name is served as markup inside the author's link."""
    board = small_board()
    board.add_thread(3, 0)
    for name in names:
        board.reply(3, name, "投票对象：包子")
    raw = board.thread_html(3, 1)
    for name in names:
        raw = raw.replace(f'class="xw1">{html.escape(name)}</a>', f'class="xw1">{name}</a>')
    return raw.encode("utf-8")


RAW = ("<img src=x>", "<b>饺子</b>", "<饺子>", "a<i>b</i>")


def test_a_name_holding_markup_keeps_its_author_through_the_store(store: object) -> None:
    from forumbot.store import Store, readpath
    from forumbot.store.posts import record_thread_page

    assert isinstance(store, Store)
    body = _raw_names_page(RAW)
    assert b'class="xw1"><img src=x></a>' in body  # the page really serves the markup
    page = parse_thread_page(body, "http://bbs.example.com/forum.php?mod=viewthread&tid=3")
    authors = [p.author for p in page.posts]
    assert authors == ['<img src="x">', "<b>饺子</b>", "<饺子>", "a<i>b</i>"]  # none empty, none 饺子
    record_thread_page(store, "http://bbs.example.com/", page, seen_at=datetime.now(UTC))
    with store.engine.connect() as conn:
        key = readpath.board_key("http://bbs.example.com/")
        stored = [p.author for batch in readpath.current_posts(conn, key, 3) for p in batch]
    assert stored == authors
    counted = vote_posts([p for p in page.posts if p.author], "r001", ROSTER)
    assert [p.author for p in counted] == authors  # every one reaches the count (as a non-player)


# ----------------------------------------------------------------------------- the terminal


def test_the_terminal_prints_names_and_reasons_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    """Rich reads ``[i]…[/i]`` as markup: the judge saw «饺子» where the board has «[i]饺子[/i]»."""
    from dataclasses import replace as dc_replace
    from types import SimpleNamespace

    from forumbot.commands.day import print_tally
    from forumbot.config import DayConfig
    from forumbot.desk import DayJudgement

    board, _pids = _board()
    page = parse_thread_page(board.thread_html(3, 1).encode("utf-8"), ROOT + "forum.php?mod=viewthread&tid=3")
    posts = vote_posts(page.posts, "r001", ROSTER, others=JUDGES)
    result = judge_day(
        DayInput(
            family="r001",
            day=1,
            roster=ROSTER,
            alive=frozenset(ROSTER),
            posts=posts,
            times=DayTimes(OPEN, CLOSE),
            flags=DayFlags(),
            strikes={},
            display_tz=SH,
            judges=JUDGES,
        )
    )
    result = dc_replace(result, problems=("pid 9: [b]吃瓜[/b] 写了 [color=red]红字[/color]",))
    day = DayConfig(1, 3, 2, OPEN, CLOSE, CLOSE, CLOSE, CLOSE, OPEN)
    game = SimpleNamespace(name="[u]美食杀[/u]", judges=tuple(JUDGES), tz=SH)
    print_tally(DayJudgement(day, result, None, None), game, "")  # type: ignore[arg-type]
    out = capsys.readouterr().out
    for text in ("[i]饺子[/i]", "吃瓜[url=http://evil.example/]领奖[/url]", "<b>馄饨</b>", "[u]美食杀[/u]"):
        assert text in out
    assert "[b]吃瓜[/b] 写了 [color=red]红字[/color]" in out
    assert "U+200B" in out and "⚑" in out  # the look-alike's flag and code point reach the table


# ----------------------------------------------------------------------------- every template, every field

EVIL = "吃瓜[url=http://evil.example/]领奖[/url][color=red]:)[/color]@饺子 www.evil.example &#91;"


def test_every_field_of_every_draft_template_is_published_literally() -> None:
    """Default-deny: a text from the board in *any* field of a view shows as its characters; the only
    links are forumbot's own (marked ``|bbcode`` in the template)."""
    from forumbot.drafts import (
        CasePostView,
        ElevatorPost,
        ElevatorRow,
        ElevatorView,
        InvalidVote,
        RevoteCall,
        TallyRow,
        VoteCountView,
        VoterLink,
        render_case_post,
        render_elevator,
    )

    url = "http://bbs.example.com/forum.php?mod=redirect&goto=findpost&ptid=3&pid=9"
    voter = VoterLink(EVIL, url, "9")
    count = VoteCountView(
        game=EVIL,
        day=1,
        closes=EVIL,
        tally=(TallyRow(EVIL, 2, (voter, voter)),),
        result=EVIL,
        abstain=(voter,),
        invalid=(InvalidVote(EVIL, url, "10", EVIL),),
        not_voted=(EVIL, EVIL),
        revote=RevoteCall((EVIL,), (EVIL,), EVIL),
        drowning=(EVIL,),
        cards=(EVIL,),
        as_of=EVIL,
        provisional=EVIL,
    )
    elevator = ElevatorView(
        EVIL, 1, EVIL, (ElevatorRow(EVIL, 1, 2, (ElevatorPost(url, "3", True),)),), EVIL, (EVIL,)
    )
    case = CasePostView(EVIL, EVIL, EVIL, EVIL, EVIL)
    for draft, links in (
        (render_vote_count(count), 4),
        (render_elevator(elevator), 1),
        (render_case_post(case), 0),
    ):
        shown = board_shows(draft)
        assert shown.count("⟨link⟩") == links == preview_shows(draft).count("⟨link⟩")
        assert "⟨smiley⟩" not in shown and "⟨autolink⟩" not in shown
        assert EVIL in shown and EVIL in preview_shows(draft)
        assert "[color=red]" not in draft  # the tag itself never reaches the board whole


def test_a_look_alikes_note_stays_public_beside_a_note_for_the_judges() -> None:
    from forumbot.drafts import public_reason
    from forumbot.parsers.records import Post, PostState, TimeSource

    t = OPEN + timedelta(hours=1)
    post = Post(
        pid=5,
        tid=3,
        author="包\u2f26",
        uid=9,
        floor=5,
        posted_at=t,
        posted_until=t,
        time_source=TimeSource.API,
        text="投票：饺子",
        state=PostState.DELETED,  # flagged for the judges on its own: «…，请法官确认»
    )
    (vp,) = vote_posts([post], "r001", ROSTER, others=JUDGES)
    assert vp.ballot.needs_review and "U+2F26" in vp.ballot.note and "请法官确认" in vp.ballot.note
    result = judge_day(
        DayInput(
            family="r001",
            day=1,
            roster=ROSTER,
            alive=frozenset(ROSTER),
            posts=(vp,),
            times=DayTimes(OPEN, CLOSE),
            flags=DayFlags(),
            strikes={},
            display_tz=SH,
        )
    )
    (v,) = result.verdicts
    assert "U+2F26" in v.reason and v.needs_review
    assert "不是同一账号" in public_reason(v.reason) and "请法官确认" not in public_reason(v.reason)
