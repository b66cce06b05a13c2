"""Subcommands of the ``forumbot`` command. Each module has ``register(subparsers)``.

Why the modules import so little at their top: ``forumbot.cli`` builds the whole parser (every
subcommand's options and help) for every run, ``forumbot --help`` and ``forumbot poll`` included, so
whatever a module imports at its top is paid by every command. A module's top imports the standard
library, :mod:`forumbot.i18n`, :mod:`forumbot.errors` and other light modules only; the store, the desk,
the engine, rich... are imported inside the handler that uses them (``TYPE_CHECKING`` imports for the
annotations). tests/test_startup.py checks that building the parser imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import overload


class LazyChoices(Sequence[str]):
    """An argument's choices read from a heavy module only when first needed: when a value is checked
    or that subcommand's help lists them, not when the parser is built.

    Give the argument a ``metavar`` too: without one, argparse lists the choices as soon as the
    argument is added (to check its usage line), which would load them for every command. The help
    can list them with ``%(choices)s``.
    """

    def __init__(self, load: Callable[[], Iterable[str]]) -> None:
        self._load = load
        self._values: tuple[str, ...] | None = None

    def _all(self) -> tuple[str, ...]:
        if self._values is None:
            self._values = tuple(self._load())
        return self._values

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __contains__(self, value: object) -> bool:
        return value in self._all()
