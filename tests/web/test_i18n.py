"""Chinese first: every string the web desk and the CLI show comes from the catalogs, in both languages.

A string passed to ``_()`` (or marked ``N_()``) in any of ``SOURCES`` but missing from a catalog fails
``test_every_string_is_translated``; tests/test_cli_i18n.py checks that the CLI passes its text through
``_()`` at all.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from forumbot.i18n import LANGUAGES, catalog_ids, choose_language, translations, used_msgids

ROOT = Path(__file__).resolve().parents[2]
# Every module of the package (the CLI, the desk, the store, the client, the runner, the demo ...) and
# every template: a msgid anywhere in them must be in both catalogs (issue 11).
SOURCES = sorted([*(ROOT / "templates" / "web").glob("*.html"), *(ROOT / "forumbot").rglob("*.py")])
PLACEHOLDER = re.compile(r"%\(\w+\)s|\{\w+\}")


def test_the_sources_use_strings_at_all() -> None:
    used = used_msgids(SOURCES)
    assert "Vote posts" in used and "counted" in used  # a template and an N_() label are both seen
    assert len(used) > 100


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_string_is_translated(lang: str) -> None:
    catalog = catalog_ids(lang)
    missing = {m: where for m, where in used_msgids(SOURCES).items() if not catalog.get(m)}
    assert not missing, f"not translated in {lang} (run tools/i18n_catalogs.py, then translate): {missing}"


def test_chinese_translations_keep_their_placeholders_and_are_chinese() -> None:
    for msgid, text in catalog_ids("zh_CN").items():
        assert sorted(PLACEHOLDER.findall(msgid)) == sorted(PLACEHOLDER.findall(text)), msgid
        if re.search(r"[A-Za-z]{3}", PLACEHOLDER.sub("", msgid)) and not msgid.startswith("%"):
            assert re.search(r"[\u4e00-\u9fff]", text), f"{msgid!r} is not translated into Chinese: {text!r}"


def test_chinese_unless_english_is_asked_for() -> None:
    assert choose_language(None, {}) == "zh_CN"
    assert choose_language(None, {"LANG": "C.UTF-8"}) == "zh_CN"
    assert choose_language(None, {"LANG": "zh_CN.UTF-8"}) == "zh_CN"
    assert choose_language(None, {"LANG": "en_US.UTF-8"}) == "en"
    assert choose_language(None, {"LANGUAGE": "en_GB:zh_CN", "LANG": "zh_CN.UTF-8"}) == "en"
    assert choose_language("en", {"LANG": "zh_CN.UTF-8"}) == "en"
    assert choose_language("zh_CN", {"LANG": "en_US.UTF-8"}) == "zh_CN"


def test_the_catalogs_load() -> None:
    assert translations("zh_CN").gettext("Vote posts") == "投票帖"
    assert translations("en").gettext("Vote posts") == "Vote posts"
    assert (
        translations("zh_CN").ngettext("%(num)s revision kept", "%(num)s revisions kept", 2)
        == "保存了 %(num)s 个版本"
    )


def test_the_cli_language_is_chosen_before_the_parser_is_built() -> None:
    from forumbot.i18n import current_language, set_language, setup_from_argv

    try:
        assert setup_from_argv(["serve", "--lang", "en"], {}) == "en" == current_language()
        assert setup_from_argv(["--lang=zh_CN", "serve"], {"LANG": "en_US"}) == "zh_CN"
        assert setup_from_argv(["serve"], {"LANG": "en_US.UTF-8"}) == "en"
        assert setup_from_argv([], {}) == "zh_CN"
    finally:
        set_language("zh_CN")


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("zh_CN", ["法官网页工作台", "监听地址", "端口"]),
        ("en", ["The judges' web desk", "address to listen on"]),
    ],
)
def test_serve_help_in_both_languages(
    lang: str, words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The pattern for every subcommand once the CLI is converted: set the language, build, --help."""
    from forumbot.cli import build_parser
    from forumbot.i18n import set_language

    set_language(lang)
    try:
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", "--help"])
    finally:
        set_language("zh_CN")
    out = capsys.readouterr().out
    for w in words:
        assert w in out
    if lang == "zh_CN":
        assert "listen on" not in out


def test_a_source_checkout_without_mo_files_compiles_the_po(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from forumbot import i18n

    folder = tmp_path / "zh_CN" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    shutil.copy(i18n.LOCALE_DIR / "zh_CN" / "LC_MESSAGES" / "forumbot.po", folder / "forumbot.po")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    monkeypatch.setattr(i18n, "_cache", {})
    assert i18n.translations("zh_CN").gettext("Vote posts") == "投票帖"  # no .mo: compiled in memory
    assert i18n.translations("en").gettext("Vote posts") == "Vote posts"  # no catalog at all: the msgid
