"""Every Discuz! X URL forumbot asks for, in one table.

Why one table: boards differ only in their root URL, and the same few templates (PC, rewritten, touch,
mobile API v4, the login forms, findpost) are easy to get subtly wrong when spelled inline. Each
template is relative to the board root (``BoardConfig.url``, ending in a slash); :func:`build` fills it
in and joins it to the root. Keep the query-parameter order the board itself uses: the captures in
shared/fixtures were requested exactly this way, which keeps test mocks and logs comparable.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final
from urllib.parse import parse_qs, urljoin, urlsplit


class Url(StrEnum):
    """Names of the templates in :data:`TEMPLATES`."""

    VIEWTHREAD = "viewthread"  # PC thread page
    VIEWTHREAD_REWRITTEN = "viewthread_rewritten"  # thread-T-P-1.html (when rewrite rules are on)
    VIEWTHREAD_TOUCH = "viewthread_touch"  # touch page: needs a mobile User-Agent
    FORUMDISPLAY = "forumdisplay"  # PC thread list of one forum
    FORUMDISPLAY_TOUCH = "forumdisplay_touch"
    API_CHECK = "api_check"  # {discuzversion, charset, version}
    API_VIEWTHREAD = "api_viewthread"
    API_FORUMDISPLAY = "api_forumdisplay"
    API_LOGIN = "api_login"  # POST username, password
    FINDPOST = "findpost"  # 301 to the page holding a pid
    THREAD_LINK = "thread_link"  # a thread's first page, as a link in a draft
    LOGIN_PAGE = "login_page"  # GET: the form, with its formhash
    LOGIN_SUBMIT = "login_submit"  # POST formhash, username, password, questionid, answer, cookietime
    VIEWTHREAD_AUTHOR = "viewthread_author"  # one author's posts only (the judge's own, to verify a post)
    VIEWTHREAD_FASTPOST = "viewthread_fastpost"  # a thread page carrying the fast-reply form
    REPLY_FORM = "reply_form"  # GET: the full reply form (fid optional: the board finds it)
    REPLY_FORM_FID = "reply_form_fid"
    NEWTHREAD_FORM = "newthread_form"
    EDIT_FORM = "edit_form"
    EDIT_FORM_FID = "edit_form_fid"
    PM_FORM = "pm_form"  # GET: the 发消息 popup (the only web answer that carries the pmid)
    PM_SEND = "pm_send"  # POST: the popup's form
    PM_VIEW = "pm_view"  # the conversation with one user
    PM_VIEW_PAGE = "pm_view_page"  # one page of it (the runner reads every page at a night's deadline)
    PM_LIST = "pm_list"  # the judge's conversations (the runner's night read)
    PM_LIST_PAGE = "pm_list_page"  # a further page of them
    API_LOGIN_VERSION = "api_login_version"  # v1/v2: v4's login answers 503 on X3.5 (yet logs in)
    API_VIEWTHREAD_PLAIN = "api_viewthread_plain"  # for the formhash
    API_SENDREPLY = "api_sendreply"
    API_SENDPM = "api_sendpm"


API: Final = "api/mobile/index.php?version=4"

TEMPLATES: Final[dict[Url, str]] = {
    Url.VIEWTHREAD: "forum.php?mod=viewthread&tid={tid}&page={page}",
    Url.VIEWTHREAD_REWRITTEN: "thread-{tid}-{page}-1.html",
    Url.VIEWTHREAD_TOUCH: "forum.php?mod=viewthread&tid={tid}&page={page}&mobile=2",
    Url.FORUMDISPLAY: "forum.php?mod=forumdisplay&fid={fid}&page={page}",
    Url.FORUMDISPLAY_TOUCH: "forum.php?mod=forumdisplay&fid={fid}&page={page}&mobile=2",
    Url.API_CHECK: "api/mobile/index.php?check",
    Url.API_VIEWTHREAD: API + "&module=viewthread&tid={tid}&page={page}&ppp={ppp}",
    Url.API_FORUMDISPLAY: API + "&module=forumdisplay&fid={fid}&page={page}",
    Url.API_LOGIN: API + "&module=login&loginsubmit=yes&loginfield=username",
    Url.FINDPOST: "forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}",
    Url.THREAD_LINK: "forum.php?mod=viewthread&tid={tid}",
    Url.LOGIN_PAGE: "member.php?mod=logging&action=login",
    Url.LOGIN_SUBMIT: "member.php?mod=logging&action=login&loginsubmit=yes",
    Url.VIEWTHREAD_AUTHOR: "forum.php?mod=viewthread&tid={tid}&page={page}&authorid={uid}",
    Url.VIEWTHREAD_FASTPOST: "forum.php?mod=viewthread&tid={tid}&extra=",
    Url.REPLY_FORM: "forum.php?mod=post&action=reply&tid={tid}",
    Url.REPLY_FORM_FID: "forum.php?mod=post&action=reply&fid={fid}&tid={tid}",
    Url.NEWTHREAD_FORM: "forum.php?mod=post&action=newthread&fid={fid}",
    Url.EDIT_FORM: "forum.php?mod=post&action=edit&tid={tid}&pid={pid}",
    Url.EDIT_FORM_FID: "forum.php?mod=post&action=edit&fid={fid}&tid={tid}&pid={pid}",
    Url.PM_FORM: "home.php?mod=spacecp&ac=pm&op=showmsg&handlekey=showmsg_{uid}&touid={uid}&pmid=0"
    "&daterange=2&infloat=yes&handlekey=sendpm&inajax=1&ajaxtarget=fwin_content_sendpm",
    Url.PM_SEND: "home.php?mod=spacecp&ac=pm&op=send&touid={uid}&inajax=1",
    Url.PM_VIEW: "home.php?mod=space&do=pm&subop=view&touid={uid}",
    Url.PM_VIEW_PAGE: "home.php?mod=space&do=pm&subop=view&touid={uid}&page={page}",
    Url.PM_LIST: "home.php?mod=space&do=pm&filter=privatepm",
    Url.PM_LIST_PAGE: "home.php?mod=space&do=pm&filter=privatepm&page={page}",
    Url.API_LOGIN_VERSION: "api/mobile/index.php?version={version}"
    "&module=login&loginsubmit=yes&loginfield=username",
    Url.API_VIEWTHREAD_PLAIN: API + "&module=viewthread&tid={tid}",
    Url.API_SENDREPLY: API + "&module=sendreply&replysubmit=yes&fid={fid}&tid={tid}",
    Url.API_SENDPM: API + "&module=sendpm&pmsubmit=yes&touid={uid}",
}


def build(root: str, name: Url, **params: object) -> str:
    """The absolute URL of template ``name`` on the board at ``root``.

    Raises KeyError when a placeholder of the template is not given (a bug on our side).
    """
    base = root if root.endswith("/") else root + "/"
    template = TEMPLATES[name]
    found = _JOINED.get((base, name))
    if found is None:
        # The template's placeholders all sit in its query: urljoin leaves a query as given, so the
        # part before the first placeholder is joined once per board and the values appended (a vote
        # count links every post: urljoin per link was a tenth of a 100,000-post draft).
        head = template.split("{", 1)[0]
        if "?" in head and "#" not in template:
            found = _JOINED[(base, name)] = (urljoin(base, head), template[len(head) :])
        else:
            return urljoin(base, template.format(**params))
    joined, rest = found
    return joined + rest.format(**params)


_JOINED: dict[tuple[str, Url], tuple[str, str]] = {}


def is_api(url: str) -> bool:
    """True for the mobile API (any version): its answers are JSON, never HTML."""
    return urlsplit(url).path.endswith("api/mobile/index.php")


def is_login_page(url: str) -> bool:
    """True when a URL is the login form (where the board sends a guest it will not serve)."""
    parts = urlsplit(url)
    if not parts.path.endswith("member.php"):
        return False
    q = parse_qs(parts.query)
    return q.get("mod") == ["logging"] and q.get("action") == ["login"]


def query_param(url: str, name: str) -> str | None:
    """One query parameter of ``url`` (the first when repeated), or None."""
    values = parse_qs(urlsplit(url).query).get(name)
    return values[0] if values else None
