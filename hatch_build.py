"""Build hook: compile the gettext catalogs (forumbot/locale/*/LC_MESSAGES/*.po → .mo) into the wheel.

The .mo files are build products (ignored by git, shipped through ``artifacts`` in pyproject.toml);
forumbot/i18n.py compiles a .po in memory when its .mo is missing or older, so a source checkout
works without a build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface  # type: ignore[import-not-found,unused-ignore]


class CompileCatalogs(BuildHookInterface):  # type: ignore[misc,type-arg,unused-ignore]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in sorted(Path(self.root, "forumbot", "locale").glob("*/LC_MESSAGES/*.po")):
            with po.open("rb") as f:
                catalog = read_po(f)
            with po.with_suffix(".mo").open("wb") as f:
                write_mo(f, catalog)
