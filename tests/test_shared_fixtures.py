"""Missing captures skip the conformance suite on a developer's clone and fail it under CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared_fixtures import require_shared


def test_missing_captures_fail_under_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true requires the conformance suite"):
        require_shared(tmp_path / "nowhere" / "truth.json")


def test_missing_captures_skip_outside_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="captured pages not found"):
        require_shared(tmp_path / "nowhere" / "truth.json")


def test_present_captures_neither_skip_nor_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    (tmp_path / "truth.json").write_text("{}", "utf-8")
    require_shared(tmp_path / "truth.json")
