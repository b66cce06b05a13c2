"""Every refusal of a night submission speaks Chinese (issue 20): a judge reads it on the desk and a player
may be told it, so no English sentence, no field name, no action code — the rule id stays, in parentheses
at the end, for the judges. Each refusal of the worked cases is raised, and the paths they do not show."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from engine import (
    Check,
    GameState,
    Heal,
    IllegalActionError,
    Kidnap,
    Kill,
    KillHostages,
    Night,
    Snipe,
    check_action,
    new_night,
    resolve_night,
    submit,
)
from tests.engine.helpers import case_state, load_cases, make_state, run_step

_RULE_AT_END = re.compile(r"（[^（）]*）$")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[A-Za-z_]{2,}")  # a ruleset id (R004, R000-G2) has one letter: it may stay


def assert_chinese(exc: IllegalActionError, state: GameState) -> None:
    msg = str(exc)
    if exc.rule:
        assert msg.endswith(f"（{exc.rule}）"), msg
        msg = msg[: -len(f"（{exc.rule}）")]
    else:
        msg = _RULE_AT_END.sub("", msg)
    for name in sorted((p.name for p in state.players), key=len, reverse=True):
        msg = msg.replace(name, "")
    assert _CJK.search(msg), str(exc)
    assert not _WORD.search(msg), f"English in a refusal: {exc}"
    assert "=" not in msg and "'" not in msg, str(exc)


def _case_refusals() -> Iterator[tuple[str, GameState, IllegalActionError]]:
    for case in load_cases():
        state = case_state(case)
        for i, step in enumerate(case["steps"], 1):
            res = run_step(state, step)
            if step["op"] == "refuse" and isinstance(res.error, IllegalActionError):
                yield f"{case['id']} step {i}", state, res.error
            state = res.state  # each step from the state the case's steps before it left
            state = res.state


CASE_REFUSALS = list(_case_refusals())


def test_the_worked_cases_hold_refusals_to_check() -> None:
    assert len(CASE_REFUSALS) >= 20


@pytest.mark.parametrize(("where", "state", "exc"), CASE_REFUSALS, ids=[c[0] for c in CASE_REFUSALS])
def test_every_refusal_of_the_worked_cases_is_chinese(
    where: str, state: GameState, exc: IllegalActionError
) -> None:
    assert_chinese(exc, state)


def _refusal(state: GameState, action: object, night: Night | None = None) -> IllegalActionError:
    with pytest.raises(IllegalActionError) as err:
        check_action(state, action, night=night)  # type: ignore[arg-type]
    return err.value


def test_the_paths_the_cases_do_not_show_are_chinese_too() -> None:
    r001 = make_state("R001", "S12", dead=["Pam", "Ken", "Cole"])
    for action in (
        Check("Cid", by="Pam"),
        Check("Cid", by="Cid"),
        Kill("Cid", by="Ken"),
        Kill("Cole"),
        Kill("无名氏"),
        Snipe("Cid"),
    ):
        assert_chinese(_refusal(r001, action), r001)
    no_police = make_state("R001", "S12", dead=["Pam", "Pat"])
    assert_chinese(_refusal(no_police, Check("Cid")), no_police)
    r004 = make_state("R004", "B22", dead=["Sn", "Dr"])
    for action in (Snipe("c1"), Heal("c1"), Kill("c1", by="Sp"), Kill("c1", pledge="K1")):
        assert_chinese(_refusal(r004, action), r004)
    roles = {"K1": "killer", "K2": "killer", "Kd": "kidnapper", "P": "police"} | {
        f"c{i}": "civilian" for i in range(6)
    }
    st = make_state("R004", roles, state={"kidnapped": ["c1"]})
    assert_chinese(_refusal(st, Kidnap("c2"), submit(st, new_night(st), KillHostages())), st)
    assert_chinese(_refusal(st, KillHostages(), submit(st, new_night(st), Kidnap("c2"))), st)
    assert_chinese(_refusal(st, KillHostages(("c1", "c2"))), st)


def test_the_timetable_refusals_are_chinese() -> None:
    st = make_state("R001", "S12")
    after = resolve_night(st, submit(st, new_night(st), Kill("Cole", pledge="Ken"))).state
    assert_chinese(_refusal(after, Kill("Cid", pledge="Ken")), after)
    for night in (Night(1), Night(5)):
        with pytest.raises(IllegalActionError) as err:
            resolve_night(after if night.round == 1 else st, night)
        assert_chinese(err.value, st)
