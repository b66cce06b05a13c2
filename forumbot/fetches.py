"""One HTTP exchange with a board, as the client made it and the store's fetch log keeps it.

Why a module of its own: the client writes these records and the store reads them, and neither
should import the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class FetchRecord:
    """One HTTP exchange, for the store's fetch log. ``status`` is None when nothing came back."""

    method: str
    url: str
    status: int | None
    at: datetime  # UTC, when the request was sent
    ok: bool
    error: str = ""
    elapsed: float = 0.0  # seconds
    size: int = 0  # body bytes
