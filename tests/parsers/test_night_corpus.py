"""The night-message corpus (tests/parsers/night_corpus.py) read as a careful judge reads it (issue 19).

Two shares are printed and held to their targets: formal submissions the reader sends to the judge
instead of taking (≤ 5 %), and chatter or questions it takes as a submission (0). Every entry is also a
test of its own, so a regression names the message.
"""

from __future__ import annotations

import pytest

from forumbot.parsers.nightmsg import NightReading, read_night_message
from tests.parsers.night_corpus import R001, R001_ROSTER, R004, R004_ROSTER

Grammar = str  # a rule set's name: the reader reads its night vocabulary

CORPORA: dict[Grammar, tuple[list[tuple[str, str]], tuple[str, ...]]] = {
    "r001": (R001, R001_ROSTER),
    "r004": (R004, R004_ROSTER),
}


def taken(reading: NightReading) -> set[str]:
    """What the reader takes as formal submissions, in the corpus' notation."""
    out = set()
    for s in reading.statements:
        if not s.firm or s.problem is not None or s.kind == "alert":
            continue  # 警戒 is forced: nothing to submit
        if s.kind == "kill_text":
            out.add("kill_text:-")
        elif s.none:
            out.add(f"{s.kind}:-")
        elif s.kind == "kill_hostages" and not s.targets:
            out.add("kill_hostages:*")
        else:
            out.add(f"{s.kind}:{','.join(s.targets)}")
    return out


def doubted(reading: NightReading) -> bool:
    """The reader asks the judge: a statement it cannot take as written (tentative or unreadable)."""
    return any(not s.firm or s.problem is not None for s in reading.statements)


def judge(text: str, grammar: Grammar, roster: tuple[str, ...], author: str) -> tuple[str, set[str]]:
    """(outcome, taken): outcome is 'taken', 'doubt' or 'nothing'."""
    r = read_night_message(text, grammar, roster, author=author)
    got = taken(r)
    if doubted(r):
        return "doubt", got
    return ("taken" if got else "nothing"), got


def _cases() -> list[tuple[Grammar, str, str]]:
    return [(g, text, exp) for g, (corpus, _roster) in CORPORA.items() for text, exp in corpus]


@pytest.mark.parametrize(("grammar", "text", "expected"), _cases())
def test_each_message_as_a_careful_judge_reads_it(grammar: Grammar, text: str, expected: str) -> None:
    roster = CORPORA[grammar][1]
    outcome, got = judge(text, grammar, roster, author=roster[-1])
    if expected == "chatter":
        assert not got, f"chatter taken as a submission: {got}"
    elif expected == "doubt":  # a question or a proposal: the judge may be asked, nothing is taken
        assert not got, (outcome, got)
    else:
        want = {part.strip() for part in expected.split(";")}
        assert outcome == "taken" and got == want, (outcome, got, want)


def test_the_corpus_is_large_enough() -> None:
    for grammar, (corpus, _roster) in CORPORA.items():
        assert len(corpus) >= 200, grammar
        assert len({t for t, _e in corpus}) == len(corpus), f"{grammar}: a message twice"


@pytest.mark.parametrize("grammar", sorted(CORPORA))
def test_the_shares_meet_their_targets(grammar: Grammar, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, roster = CORPORA[grammar]
    formal = [(t, e) for t, e in corpus if e not in ("chatter", "doubt")]
    talk = [(t, e) for t, e in corpus if e in ("chatter", "doubt")]
    to_judge = 0
    for text, exp in formal:
        outcome, got = judge(text, grammar, roster, roster[-1])
        if outcome != "taken" or got != {p.strip() for p in exp.split(";")}:
            to_judge += 1
    misread = sum(1 for text, _e in talk if judge(text, grammar, roster, roster[-1])[1])
    share = to_judge / len(formal)
    with capsys.disabled():
        print(
            f"\n[{grammar}] {len(corpus)} messages: {len(formal)} formal, {len(talk)} chatter/questions; "
            f"formal sent to the judge {to_judge} ({share:.1%}, target ≤ 5%); "
            f"chatter taken as a submission {misread} (target 0)"
        )
    assert share <= 0.05
    assert misread == 0
