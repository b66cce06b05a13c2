"""Whose name a record carries: one rule for every record a judge makes.

Every decision forumbot stores names who made it: an override, a night message's verdict, an undo, the
roles of ``setup``, an outbox item's approval, cancellation and send. A judge reading the log later must
find the *judge*, and the same judge under the same name whichever face made the record. The OS login
(``root`` on a server, ``ubuntu`` in a container) says nothing about who decided, and the board account
alone says nothing about which judge of a team sat at the desk, so the rule is, first that applies:

1. the name the face was given: the web desk's logged-in judge; on the command line ``--judge NAME``
   (any command; ``--by`` of the outbox commands is the same option);
2. ``$FORUMBOT_JUDGE`` (set once in a judge's shell profile);
3. the game file's judge account, ``[board] username``: the account the judges write with, which the
   outbox's own records already named;
4. the only name of ``[game] judges`` when there is exactly one;
5. ``judge``: nobody said, and a record says so rather than guess.

The runner's own moments are logged as ``forumbot-runner`` (forumbot/runner/steps.py): those are not a
judge's decisions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from forumbot.config import Game

#: The environment variable naming the judge at this shell.
ENV = "FORUMBOT_JUDGE"
#: The name when nothing names the judge.
NOBODY = "judge"


def judge_name(game: Game | None, given: str | None = None, *, env: Mapping[str, str] | None = None) -> str:
    """The judge's name for a record, by the module's rule. ``given``: the web login or ``--judge``."""
    environ = os.environ if env is None else env
    for name in (given, environ.get(ENV)):
        if name and name.strip():
            return name.strip()
    if game is not None:
        if game.board.username and game.board.username.strip():
            return game.board.username.strip()
        if len(game.judges) == 1:
            return game.judges[0]
    return NOBODY
