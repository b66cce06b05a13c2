"""Text from the board made safe to put into a draft: :func:`literal` is the one neutralising function
every draft applies to what it did not write itself (names, quoted texts, titles, last words).

Why: a player or spectator chooses his account name and his words. A name such as
``吃瓜[url=http://evil.example/]领奖[/url]`` pasted as is into the vote count would be a live link in the
judge's post, and ``[i]饺子[/i]`` would read on the board as the real 饺子. The board must show every
such text **as its characters**, and so must the web desk's preview of the draft.

How a Discuz! X3.5 board stores and shows a reply (html off, BBCode on), and the evidence:

* The body is stored as sent. ``shared/fixtures/discuz-x35-utf8/truth.json`` holds the stored
  messages: pid 3 keeps ``[url=forum.php?mod=redirect&goto=…]`` with a bare ``&``, pid 64 keeps ``:'(``.
* At display, HTML is escaped first (``<``, ``>``, ``&``, ``"``): the PC page of pid 3 serves that
  ``&`` as ``&amp;``, and ``'`` is left alone (pid 64's ``:'(`` is served with its quote). Then the
  smilies are replaced (pid 64's ``:'(`` is served as ``<img … cry.gif>``), then the BBCode tags:
  ``[b]…[/b]`` → ``<strong>…</strong>`` (posting exchange 06 → the thread page 09) and
  ``[i=s]`` → ``<i class="pstatus">`` (pid 52), tag by tag as plain substitutions, an empty pair as
  well as a full one.
* Numeric character references are *not* a safe escape: no capture holds one, and the Discuz! sources
  differ — X3.4's ``dhtmlspecialchars`` turns ``&amp;#NNN;`` (3 to 5 digits) back into a live
  reference, the newest one escapes it, so ``&#091;`` shows either ``[`` or ``&#091;``. ``[code]``
  shows a code box; a zero-width character changes the text a reader copies.

So the neutraliser breaks each markup sequence with an **empty BBCode pair** ``[b][/b]``: the board
replaces it by ``<strong></strong>``, which shows nothing and copies as nothing, and the sequence it
splits is no longer a tag, a smiley, an autolinked URL or an @mention. What is split:

* every ``[`` (every BBCode tag starts with one): ``[i]`` → ``[[b][/b]i]``;
* ``:`` and ``;`` (every smiley code holds one, and so does ``http://``): ``:)`` → ``:[b][/b])``, but not
  a colon between two digits (``22:00``, which no smiley or URL scheme has);
* ``@`` (an @mention becomes a link to a profile), ``www.`` (autolinked), ``&#`` (a character reference
  on the boards that still pass them through).

``<``, ``>`` and ``&`` need nothing on the board (it escapes them); the web preview escapes every
character outside a known tag (forumbot/web/bbcode.py), so the same draft shows the same characters in
both. Apply :func:`literal` **once**, where the text enters the draft: applied twice, the inserted pair is
itself split and shows as ``[b]``.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: The empty BBCode pair that splits a sequence: rendered as an empty ``<strong></strong>``.
BREAK = "[b][/b]"

# Split after each of these: a BBCode opener, smiley/URL punctuation, a mention, a character reference.
# A colon between two digits (a time, 22:00) is left whole: no smiley code or URL scheme is written so.
_SPLIT = re.compile(r"(\[|(?<!\d):|:(?!\d)|;|@|&(?=#)|(?i:www)(?=\.))")


def literal(text: str) -> str:
    """``text`` (from the board) as draft BBCode that the board and the web preview show literally.

    >>> literal("[i]饺子[/i]")
    '[[b][/b]i]饺子[[b][/b]/i]'
    >>> literal("饺子")
    '饺子'
    """
    if not text or _SPLIT.search(text) is None:
        return text
    return _SPLIT.sub(lambda m: m.group(0) + BREAK, text)


class BBCode(str):
    """Draft text that is already BBCode written by forumbot (a findpost link, a floor label): a
    template's ``|bbcode`` filter marks it so that :func:`literal` leaves it alone."""

    __slots__ = ()


def finalize(value: object) -> object:
    """The templates' ``finalize``: every ``{{ value }}`` goes through :func:`literal` unless marked
    :class:`BBCode`. Default-deny: a field added later is neutralised without anyone remembering to."""
    if value is None or isinstance(value, _AS_IS):
        return value
    if type(value) is str:
        return _literal_once(value)
    return literal(str(value))


_AS_IS = (BBCode, bool, int, float)  # a tuple: isinstance with a union type was slower
# A draft repeats a few dozen names and reasons thousands of times (a 100,000-post vote count): each is
# neutralised once. Bounded: a long-lived desk renders many drafts.
_literal_once = lru_cache(maxsize=4096)(literal)


def trusted(value: object) -> BBCode:
    """The ``|bbcode`` filter: a value forumbot itself wrote, kept as is."""
    return BBCode(str(value))
