"""Where the captured real boards live (../shared/fixtures, outside the repository), and the rule for
when they are missing: skip on a developer's clone without them, fail under CI (CI=true).

``FORUMBOT_FIXTURES=DIR`` names another place (the same variable benchmarks/pages.py reads): a git
worktree such as /work/wt/NAME has no shared/ beside it, yet must run the conformance suite too.

Why fail under CI: a green CI run must mean the conformance suite ran against the real captures, just
as it must mean the PostgreSQL runs happened (FORUMBOT_REQUIRE_POSTGRES, see tests/conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_FIXTURES = Path(
    os.environ.get("FORUMBOT_FIXTURES") or Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"
)


def conformance_required() -> bool:
    """True under CI: missing captures are an error, not a reason to skip."""
    return os.environ.get("CI") == "true"


def require_shared(path: Path) -> None:
    """Skip the calling test module when ``path`` (inside the captures) is absent; fail under CI."""
    if path.exists():
        return
    msg = f"captured pages not found at {path}"
    if conformance_required():
        pytest.fail(f"{msg}: CI=true requires the conformance suite to run (put ../shared/fixtures in place)")
    pytest.skip(msg, allow_module_level=True)
