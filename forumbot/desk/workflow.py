"""The desk itself: every step class of the judging workflow joined into one object.

Why not in the package's ``__init__``: the drafts (desk/drafts.py) take a desk, and the package
re-exports the drafts; with the class defined there, the package and its drafts imported each other.
"""

from __future__ import annotations

from forumbot.desk.authority import AuthoritySteps
from forumbot.desk.day import DaySteps
from forumbot.desk.lastwords import LastWordsSteps
from forumbot.desk.night import NightSteps
from forumbot.desk.nightmessages import NightMessageSteps
from forumbot.desk.signup import SignupSteps
from forumbot.desk.undo import UndoSteps


class Desk(SignupSteps, NightMessageSteps, NightSteps, DaySteps, LastWordsSteps, AuthoritySteps, UndoSteps):
    """One game's desk. Open with a loaded game file and an open store; every method is one unit of work
    (it reads the store, asks the engine, and stores what it decided)."""
