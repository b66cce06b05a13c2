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
}


def build(root: str, name: Url, **params: object) -> str:
    """The absolute URL of template ``name`` on the board at ``root``.

    Raises KeyError when a placeholder of the template is not given (a bug on our side).
    """
    return urljoin(root if root.endswith("/") else root + "/", TEMPLATES[name].format(**params))


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
