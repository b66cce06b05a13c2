"""Where the packaged templates/ and data/ are: inside the wheel (forumbot/templates, forumbot/data),
or at the repository root in a source checkout or editable install."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    for candidate in (_PKG / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"forumbot's {name}/ folder is missing from this installation (looked in {_PKG})")


def data_dir() -> Path:
    return _find("data")


def templates_dir() -> Path:
    return _find("templates")


def read_data(*parts: str) -> str:
    return data_dir().joinpath(*parts).read_text("utf-8")
