"""Fill translations into the catalogs after tools/i18n_catalogs.py: the en catalog as the identity of
every untranslated msgid, the zh_CN catalog from a Python file holding ``ZH = {msgid: translation}``.

    .venv/bin/python tools/fill_translations.py new.py      # then pip install -e . to compile the .mo

A plural msgid is keyed by its singular; Chinese has one form. A msgid that ``ZH`` lacks stays untranslated
(tests/web/test_i18n.py names it). Written back with Babel unwrapped, as tools/i18n_catalogs.py writes them (--no-wrap).
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent


def _po(lang: str) -> Path:
    return ROOT / "forumbot" / "locale" / lang / "LC_MESSAGES" / "forumbot.po"


def fill(zh: dict[str, str]) -> tuple[int, int]:
    counts = []
    for lang in ("zh_CN", "en"):
        with _po(lang).open("rb") as f:
            catalog = read_po(f)
        n = 0
        for m in catalog:
            if not m.id:
                continue
            plural = isinstance(m.id, tuple | list)
            key = m.id[0] if plural else m.id
            done = all(m.string) if plural else bool(m.string)
            if done:
                continue
            if lang == "en":
                m.string = tuple(m.id) if plural else m.id
            elif key in zh:
                m.string = (zh[key],) if plural else zh[key]
            else:
                continue
            m.flags.discard("fuzzy")
            n += 1
        with _po(lang).open("wb") as f:
            write_po(f, catalog, width=0, omit_header=False, ignore_obsolete=True)
        counts.append(n)
    return counts[0], counts[1]


def main(argv: list[str]) -> int:
    zh: dict[str, str] = runpy.run_path(argv[0])["ZH"] if argv else {}
    filled_zh, filled_en = fill(zh)
    print(f"zh_CN: {filled_zh} filled, en: {filled_en} filled")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
