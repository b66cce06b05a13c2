"""The quicker ``__init__`` of the engine's per-post values (engine/quickinit.py, issue 21) builds the
same values as the dataclass's own ``__init__``, keeps them frozen, runs ``__post_init__`` and refuses
the classes it cannot build."""

from __future__ import annotations

import dataclasses
import inspect
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Ballot, BallotKind, Override, Verdict, VotePost, VoteStatus, quick_init

AT = datetime(2026, 6, 10, 4, 20, tzinfo=UTC)
BALLOTS = st.builds(
    Ballot,
    st.sampled_from(BallotKind),
    st.none() | st.text(max_size=4),
    st.booleans(),
    st.text(max_size=4),
    st.booleans(),
    st.text(max_size=4),
    st.booleans(),
    st.lists(st.text(max_size=3), max_size=2).map(tuple),
)


def both_ways(cls: type[Any], *args: Any, **kw: Any) -> tuple[Any, Any]:
    """``cls(*args, **kw)`` as built by quick_init's ``__init__`` and by the dataclass's own."""
    quick = cls(*args, **kw)
    plain = object.__new__(cls)
    cls.__init__.__wrapped__(plain, *args, **kw)
    return quick, plain


def same_fields(a: Any, b: Any) -> bool:
    return all(getattr(a, f.name) is getattr(b, f.name) for f in dataclasses.fields(a))


@given(BALLOTS)
def test_a_ballot_is_the_same_value_either_way(b: Ballot) -> None:
    args = [getattr(b, f.name) for f in dataclasses.fields(Ballot)]
    quick, plain = both_ways(Ballot, *args)
    assert quick == plain and same_fields(quick, plain) and hash(quick) == hash(plain)
    quick, plain = both_ways(Ballot, b.kind, note=b.note)  # defaults for the rest
    assert quick == plain and same_fields(quick, plain)


@given(BALLOTS, st.integers(), st.none() | st.integers(), st.booleans(), st.none() | st.just(AT))
def test_vote_posts_and_verdicts_are_the_same_values_either_way(
    b: Ballot, pid: int, floor: int | None, edited: bool, latest: datetime | None
) -> None:
    quick, plain = both_ways(VotePost, pid, floor, "玩家01", AT, b, (1, 2), edited, "编辑", latest)
    assert quick == plain and same_fields(quick, plain)
    quick, plain = both_ways(VotePost, pid=pid, floor=floor, author="x", at=AT, ballot=b)
    assert quick == plain and same_fields(quick, plain)
    ov = Override(pid, BallotKind.VOTE, "why", "法官")
    quick, plain = both_ways(
        Verdict,
        pid,
        floor,
        "玩家01",
        AT,
        VoteStatus.COUNTED,
        b.target,
        b.abstain,
        "r",
        edited,
        None,
        1,
        True,
        ov,
    )
    assert quick == plain and same_fields(quick, plain)
    quick, plain = both_ways(Verdict, pid=pid, floor=None, author="x", at=AT, status=VoteStatus.LATE)
    assert quick == plain and same_fields(quick, plain)


def test_the_values_stay_frozen_and_checked() -> None:
    b = Ballot(BallotKind.VOTE, "Ken")
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.target = "Cal"  # type: ignore[misc]
    post = VotePost(1, 2, "Ken", AT, b)
    with pytest.raises(dataclasses.FrozenInstanceError):
        post.pid = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="timezone-aware"):  # __post_init__ still runs
        VotePost(1, 2, "Ken", datetime(2026, 6, 10, 12, 0), b)
    with pytest.raises(ValueError, match="at_latest"):
        VotePost(1, 2, "Ken", AT, b, at_latest=datetime(2026, 6, 10, 12, 0))
    with pytest.raises(TypeError):
        Ballot()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Ballot(BallotKind.VOTE, nonsense=1)  # type: ignore[call-arg]
    assert dataclasses.replace(post, pid=9) == VotePost(9, 2, "Ken", AT, b)


def test_the_signature_shown_is_the_dataclass_own() -> None:
    assert list(inspect.signature(Verdict).parameters) == [f.name for f in dataclasses.fields(Verdict)]
    assert inspect.signature(Ballot.__init__) == inspect.signature(Ballot.__init__.__wrapped__)


def test_classes_it_cannot_build_are_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(slots=True)
    class NotFrozen:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        a: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class KeywordOnly:
        a: int = dataclasses.field(kw_only=True)

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithInitVar:
        a: int
        b: dataclasses.InitVar[int]

    for cls in (NoSlots, NotFrozen, Factory, KeywordOnly, WithInitVar):
        with pytest.raises(TypeError):
            quick_init(cls)
