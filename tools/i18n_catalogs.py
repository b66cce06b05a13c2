"""Refresh the message catalogs: extract every msgid (babel.cfg), then merge into each language's .po.

    .venv/bin/python tools/i18n_catalogs.py          # extract + update (new msgids arrive untranslated)

A new string then shows up in tests/web/test_i18n.py as missing from zh_CN until translated in
forumbot/locale/zh_CN/LC_MESSAGES/forumbot.po. The en catalog is the identity (msgids are English).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POT = ROOT / "forumbot" / "locale" / "forumbot.pot"


def main() -> int:
    pybabel = [sys.executable, "-m", "babel.messages.frontend"]
    subprocess.run(
        [*pybabel, "extract", "-F", "babel.cfg", "-k", "N_", "--no-location", "--sort-output",
         "--project", "forumbot", "-o", str(POT), "."],
        cwd=ROOT, check=True,
    )  # fmt: skip
    for lang in ("zh_CN", "en"):
        po = ROOT / "forumbot" / "locale" / lang / "LC_MESSAGES" / "forumbot.po"
        if po.exists():
            cmd = [
                "update",
                "-i",
                str(POT),
                "-o",
                str(po),
                "-l",
                lang,
                "--no-fuzzy-matching",
                "--ignore-obsolete",
            ]
        else:
            cmd = ["init", "-i", str(POT), "-o", str(po), "-l", lang]
        subprocess.run([*pybabel, *cmd, "--no-wrap"], cwd=ROOT, check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
