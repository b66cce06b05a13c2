"""An installed forumbot reads its compiled catalogs and never compiles a ``.po`` at run time (issue 21).

Why: pip unpacked ``forumbot.po`` a few ms after ``forumbot.mo``, the ``.mo`` looked stale, and every
start of an installed forumbot imported Babel and compiled the Chinese catalog (a third of ``--help``).
So the wheel ships only the ``.mo`` files, and an installed layout trusts its ``.mo`` whatever the file
times, while a source checkout still sees an edit to its ``.po`` without a build.

Each run-time check is a fresh interpreter that looks at ``sys.modules`` (what was imported, never how
long it took: the figures are benchmarks/startup.py's ``--wheel``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

REPO = Path(__file__).resolve().parents[1]
PO = REPO / "forumbot" / "locale" / "zh_CN" / "LC_MESSAGES" / "forumbot.po"
# What a build reads: copied aside so that the build hook's .mo files never land in this checkout
# while other tests read its catalogs.
BUILD_INPUTS = ("forumbot", "engine", "templates", "data", "pyproject.toml", "hatch_build.py", "README.md")


def compile_mo(po: Path, mo: Path) -> None:
    with po.open("rb") as f:
        catalog = read_po(f)
    with mo.open("wb") as f:
        write_mo(f, catalog)


def a_layout(root: Path, *, checkout: bool) -> Path:
    """forumbot's i18n module and its zh_CN catalog under ``root`` (a site-packages, or a source
    checkout when ``checkout``), with the ``.po`` one minute newer than its ``.mo``, as pip can leave it."""
    package = root / "forumbot"
    folder = package / "locale" / "zh_CN" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    for name in ("__init__.py", "i18n.py"):
        shutil.copy(REPO / "forumbot" / name, package / name)
    shutil.copy(PO, folder / "forumbot.po")
    compile_mo(PO, folder / "forumbot.mo")
    later = (folder / "forumbot.mo").stat().st_mtime + 60
    os.utime(folder / "forumbot.po", (later, later))
    if checkout:
        (root / "pyproject.toml").write_text('[project]\nname = "forumbot"\n', encoding="utf-8")
    return folder


def translate_in_child(path: Path, msgid: str) -> tuple[str, bool]:
    """``msgid`` in Chinese as a fresh interpreter with ``path`` first on its path translates it, and
    whether that imported Babel."""
    script = (
        "import json, sys\n"
        "from forumbot.i18n import translations\n"
        f"text = translations('zh_CN').gettext({msgid!r})\n"
        "print(json.dumps([text, 'babel' in sys.modules]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(path)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    text, babel = json.loads(done.stdout.strip().splitlines()[-1])
    return str(text), bool(babel)


def test_an_installed_forumbot_trusts_its_mo_though_the_po_is_newer(tmp_path: Path) -> None:
    a_layout(tmp_path, checkout=False)
    text, babel = translate_in_child(tmp_path, "Vote posts")
    assert text == "投票帖"
    assert not babel, "an installed forumbot compiled its .po at run time"


def test_a_source_checkout_sees_an_edit_to_its_po_without_a_build(tmp_path: Path) -> None:
    folder = a_layout(tmp_path, checkout=True)
    po = folder / "forumbot.po"
    edited = po.read_text(encoding="utf-8").replace('msgstr "投票帖"', 'msgstr "投票帖（改）"', 1)
    assert edited != po.read_text(encoding="utf-8")
    stamp = po.stat().st_mtime
    po.write_text(edited, encoding="utf-8")
    os.utime(po, (stamp, stamp))
    text, babel = translate_in_child(tmp_path, "Vote posts")
    assert text == "投票帖（改）"
    assert babel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """forumbot's wheel, built as a release builds it (hatchling, this tree's hook), from a copy."""
    if importlib.util.find_spec("hatchling") is None:
        pytest.skip("hatchling is not installed: the wheel cannot be built without the network")
    src = tmp_path_factory.mktemp("src")
    for name in BUILD_INPUTS:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
        else:
            shutil.copy(source, src / name)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            "./",
        ],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("forumbot-*.whl")
    return built


def test_the_wheel_ships_the_compiled_catalogs_and_not_their_sources(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for lang in ("zh_CN", "en"):
        assert f"forumbot/locale/{lang}/LC_MESSAGES/forumbot.mo" in names
    assert not [n for n in names if n.endswith((".po", ".pot"))]
    assert "forumbot/i18n.py" in names and "forumbot/templates/web/base.html" in names


def test_the_installed_wheel_speaks_chinese_without_babel(wheel: Path, tmp_path: Path) -> None:
    zipfile.ZipFile(wheel).extractall(tmp_path)  # what pip puts in site-packages for a pure wheel
    text, babel = translate_in_child(tmp_path, "Vote posts")
    assert text == "投票帖"
    assert not babel
