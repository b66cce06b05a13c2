"""forumbot.i18n.SortedCatalog finds every message of our catalogs as the standard reader does.

Why: it bisects the ``.mo`` file's sorted msgids instead of reading them all at start (issue 21); a
catalog not sorted as it expects, or a plural form read wrong, would show English or the wrong form.
Each catalog is compiled as the build compiles it (Babel's ``write_mo``, hatch_build.py) and every
message, every plural form and a few misses are asked of both readers.
"""

from __future__ import annotations

import gettext
import io

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from forumbot.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, SortedCatalog


def _compiled(lang: str) -> bytes:
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as f:
        catalog = read_po(f)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    return buf.getvalue()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_reads_as_the_standard_reader_reads_it(lang: str) -> None:
    mo = _compiled(lang)
    standard = gettext.GNUTranslations(io.BytesIO(mo))
    ours = SortedCatalog(io.BytesIO(mo))
    keys = list(standard._catalog)  # type: ignore[attr-defined]
    assert len(keys) > 1000
    singles = [k for k in keys if isinstance(k, str)]
    plurals = {k[0] for k in keys if isinstance(k, tuple)}
    assert plurals, "the catalog has plural messages"
    for msgid in singles:
        assert ours.gettext(msgid) == standard.gettext(msgid), msgid
    for msgid in plurals:
        assert ours.gettext(msgid) == standard.gettext(msgid), msgid
        for n in (0, 1, 2, 7):
            assert ours.ngettext(msgid, msgid + "s", n) == standard.ngettext(msgid, msgid + "s", n), msgid
    assert ours.info() == standard.info()
    assert ours.charset() == standard.charset()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_what_the_catalog_lacks_is_shown_as_written(lang: str) -> None:
    mo = _compiled(lang)
    standard = gettext.GNUTranslations(io.BytesIO(mo))
    ours = SortedCatalog(io.BytesIO(mo))
    catalog = standard._catalog  # type: ignore[attr-defined]
    plural = next(k[0] for k in catalog if isinstance(k, tuple))
    single = next(k for k in catalog if isinstance(k, str) and k)
    for msgid in ("", " ", "zzz not a message", "\U0001f600", single + " ", single[:-1], plural + "\0x"):
        assert ours.gettext(msgid) == standard.gettext(msgid), msgid
        for n in (1, 2):
            assert ours.ngettext(msgid, "many", n) == standard.ngettext(msgid, "many", n), msgid
    # A plural message asked as a plain one, and a plain one asked for a plural form.
    assert ours.ngettext(single, "many", 2) == standard.ngettext(single, "many", 2)
    assert ours.gettext(plural) == standard.gettext(plural)


def test_a_catalog_without_messages_or_broken() -> None:
    empty = io.BytesIO()
    write_mo(empty, read_po(io.BytesIO(b"")))
    assert SortedCatalog(io.BytesIO(empty.getvalue())).gettext("anything") == "anything"
    with pytest.raises(OSError):
        SortedCatalog(io.BytesIO(b"\x00" * 40))
