"""urls.build joins a template's head once per board and appends the values (issue 12): every URL is
the one urljoin makes of the whole template."""

from __future__ import annotations

from urllib.parse import urljoin

from hypothesis import given
from hypothesis import strategies as st

from forumbot import urls
from forumbot.urls import TEMPLATES, Url

ROOTS = st.sampled_from(
    [
        "http://bbs.example.com/",
        "http://bbs.example.com",
        "https://x.org/bbs/",
        "https://x.org/bbs",
        "http://h:8080/a/b/",
    ]
)


@given(ROOTS, st.integers(0, 10**9), st.integers(0, 10**9))
def test_findpost_and_thread_links_are_urljoin(root: str, tid: int, pid: int) -> None:
    base = root if root.endswith("/") else root + "/"
    assert urls.build(root, Url.FINDPOST, tid=tid, pid=pid) == urljoin(
        base, TEMPLATES[Url.FINDPOST].format(tid=tid, pid=pid)
    )
    assert urls.build(root, Url.THREAD_LINK, tid=tid) == urljoin(
        base, TEMPLATES[Url.THREAD_LINK].format(tid=tid)
    )


def test_every_template_is_urljoin_of_its_values() -> None:
    import string

    for name, template in TEMPLATES.items():
        fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
        params = {f: 7 for f in fields}
        for root in ("http://bbs.example.com/", "https://x.org/bbs"):
            base = root if root.endswith("/") else root + "/"
            assert urls.build(root, name, **params) == urljoin(base, template.format(**params)), name
