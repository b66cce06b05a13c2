"""Night-side (and role-side) configuration flags: every proposal of rules.md §h the engine applies.

Each field's default is the digest's PROPOSAL; its metadata carries the ambiguity id (``amb``), what it
decides (``doc``) and the accepted values (``choices``) for string flags. Names follow rules.md §i where
§i names a flag (``r004.empty_heal_counter`` → ``r004_empty_heal_counter``).

A rule set may supply a different default (R000 variants switch ``r001_condition2_enabled`` off, AMB-02):
use :attr:`engine.ruleset.RuleSet.flags` to get the flags a game starts with, and
``dataclasses.replace(flags, field=value)`` to change one. Day-side flags (vote formats, attendance,
cards, revote timing) live in engine/flags_day.py (``DayFlags``), owned by the day engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from engine.errors import StateError


def _flag(default: Any, amb: str, doc: str, choices: tuple[str, ...] = ()) -> Any:
    meta: dict[str, Any] = {"amb": amb, "doc": doc}
    if choices:
        meta["choices"] = choices
    return field(default=default, metadata=meta)


@dataclass(frozen=True, slots=True)
class NightFlags:
    """The night-side flags. See the module docstring; ``describe()`` lists them for a judge."""

    # ---- win checks, R001 / R000 (§e.1, §e.2) -----------------------------------------------------
    r001_condition2_enabled: bool = _flag(
        True,
        "AMB-02",
        "R001 §三.2 condition 2 (killers ≥ police + civilians − 1 ⇒ killers win). On for R001; "
        "the R000 variants' rule sets switch it off.",
    )
    r001_condition2_counts_poison: bool = _flag(
        True, "AMB-03", "Condition 2 counts the living poison on the non-bandit side (Zn)."
    )
    r001_condition2_requires_bandit: bool = _flag(
        True, "AMB-04", "Condition 2 needs at least one living bandit (else 0 ≥ 0 would be a bandit win)."
    )
    r001_simultaneous_a_and_b: str = _flag(
        "draw",
        "AMB-05",
        "A batch where the bandits are wiped out (A) and the police or civilians too (B): draw, or a win "
        "for one side.",
        ("draw", "police", "bandits"),
    )
    r001_win_check: str = _flag(
        "per_batch",
        "AMB-06",
        "When R001/R000 wins are checked: once per batch (all night deaths; the whole day resolution) "
        "or after each death in order.",
        ("per_batch", "sequential"),
    )
    win_poison_prevents_police_wipeout: bool = _flag(
        False,
        "AMB-01",
        "Whether a living poison keeps the police from being 'wiped out' (R000 clause C and the poison "
        "paragraph say it does not).",
    )
    gp_possessed_counts_as_civilian: bool = _flag(
        False,
        "AMB-07",
        "Whether a possessed civilian still counts as a civilian (Cn) besides counting as a bandit.",
    )
    # ---- ghost and poison (§d.1, AMB-08..18) ------------------------------------------------------
    gp_kill_and_possess_same_target: str = _flag(
        "void_and_consumed",
        "AMB-08",
        "A kill and a possession on the same target, processed anyway (check() refuses it): the "
        "possession is void and used up, or void and still available.",
        ("void_and_consumed", "void_not_consumed"),
    )
    gp_invalid_possession: str = _flag(
        "no_effect_consumed",
        "AMB-10",
        "Possessing a bandit, oneself or a dead player, processed anyway (check() refuses it): no "
        "effect and used up, or no effect and still available.",
        ("no_effect_consumed", "no_effect_not_consumed"),
    )
    gp_possessed_joins_bandit_group: bool = _flag(
        True,
        "AMB-11",
        "A possessed player joins the bandit group, takes part in later kills and may be the pledge.",
    )
    gp_missing_pledge: str = _flag(
        "random_living_bandit",
        "AMB-12",
        "The poison is hit and the pledge is missing or no longer a living bandit: a random living "
        "bandit (seeded) dies with it, or the whole kill is invalid (平安夜).",
        ("random_living_bandit", "kill_invalid"),
    )
    gp_notify_bandits: bool = _flag(
        True,
        "AMB-13",
        "Tell the bandit group 附体成功 / 附体未生效 and 目标为毒药，X 依生死状同死.",
    )
    gp_check_label_police: str = _flag(
        "警察",
        "AMB-14",
        "What a police check on a police officer answers (the base text only knows 杀手/平民).",
        ("警察", "平民"),
    )
    gp_extra_check_window_minutes: int = _flag(
        60,
        "AMB-15",
        "Minutes the police have, after the first result, to submit the extra check granted by "
        "checking the poison. The caller compares times and passes late=True.",
    )
    gp_executed_poison_label: str = _flag(
        "毒药", "AMB-16", "Identity announced when the poison is executed.", ("毒药", "警察")
    )
    gp_possessed_poison_checked_extra: bool = _flag(
        True,
        "AMB-17",
        "The poison possessed (so dead) and checked the same night is still notified and still "
        "grants the extra check.",
    )
    gp_late_kill_loses_possession: bool = _flag(
        True, "AMB-18", "A late bandit submission (今晚平安夜) also loses that night's possession."
    )
    # ---- R001 day side that belongs to roles ------------------------------------------------------
    r001_sent_off_reveals_identity: bool = _flag(
        False,
        "AMB-33",
        "A player sent off (§四.10, 判作立即出局) is announced by name only, like a drowning.",
    )
    # ---- guardians (§d.2, AMB-40..50) -------------------------------------------------------------
    guardian_double_kill_rule: str = _flag(
        "top_tie_exactly_guardian_and_protege",
        "AMB-40",
        "双杀票数: an original count whose top tie is exactly the guardian and his protégé kills both "
        "(no revote, no substitution); 'off': the rule never applies under R001's tie procedure.",
        ("top_tie_exactly_guardian_and_protege", "off"),
    )
    guardian_forced_skip_counts_as_voluntary: bool = _flag(
        False,
        "AMB-41",
        "A forced skip (nobody left to protect) also counts toward the 2 voluntary skips.",
    )
    guardian_once_per_target_scope: str = _flag(
        "per_guardian",
        "AMB-42",
        "每位玩家只有一次被守护的机会: per guardian, or once per game across both guardians.",
        ("per_guardian", "global"),
    )
    guardian_same_protege: str = _flag(
        "protege_survives",
        "AMB-43",
        "Both guardians effectively protect the same civilian who would die: the civilian survives and "
        "both guardians die, or (literal) the civilian dies and both guardians die with him.",
        ("protege_survives", "protege_dies_too"),
    )
    guardian_counted_in_win_checks: bool = _flag(
        False,
        "AMB-44",
        "Guardians count for a side in the win check (警神 as police, 匪神 as bandit, a single guardian "
        "and a converted 警神 as civilians) instead of for none.",
    )
    guardian_announce_dereliction_cause: bool = _flag(
        False,
        "AMB-45",
        "A dereliction death is listed in the case post with no cause (default) or as 'X 渎职死亡'.",
    )
    guardian_converted_keeps_duty: bool = _flag(
        False,
        "AMB-46",
        "A converted police-guardian must still submit protections (and can die of dereliction).",
    )
    guardian_kill_text_editable: bool = _flag(
        True,
        "AMB-47",
        "When a guardian dies in a kill victim's place the judge is reminded he may edit the kill text.",
    )
    guardian_with_ghost_poison: bool = _flag(
        False,
        "AMB-48",
        "Allow guardians in a game with the ghost/poison (a guarded poison then kills the guardian, not "
        "the pledge; possession cannot be blocked).",
    )
    r000_base_day_procedure: str = _flag(
        "r001",
        "AMB-49",
        "The base game of the R000 variants ('2.0标准版', not given): R001's cycle, voting and ties.",
        ("r001",),
    )
    guardian_execution_wording: str = _flag(
        "{x} 得票最高，但受守护，守护神 {g} 代其出局，身份：守护神",
        "AMB-50",
        "Public wording when guardian(s) {g} die in place of the executed player {x}.",
    )
    # ---- R004 (§d.3, AMB-52..88) ------------------------------------------------------------------
    r004_alert_blocks_forced_skills: bool = _flag(
        True,
        "AMB-52",
        "On a 警戒 night the forced killer-camp skills (悍匪; 归队) are blocked too.",
    )
    r004_alert_causes: tuple[str, ...] = _flag(
        ("killers", "snipe", "fireworks", "hostage"),
        "AMB-52",
        "Recorded causes that count as 'out through a killer-camp skill' and trigger 警戒 (Cause values).",
    )
    r004_mayor_target_must_be_tied: bool = _flag(
        False,
        "AMB-60",
        "In a tie, the 威权 holder's target is out only if it is one of the tied roles.",
    )
    r004_authority_to_out_tonight: bool = _flag(
        False,
        "AMB-61",
        "威权 may be passed to a role that went out the same night or day (default: not out only).",
    )
    r004_empty_heal_counter: str = _flag(
        "per_target",
        "AMB-63",
        "Empty heals are counted per healed role (that role goes out at 2), or per doctor.",
        ("per_target", "per_doctor"),
    )
    r004_doctor_may_heal_self: bool = _flag(True, "AMB-63", "The doctor may heal himself ('一名角色').")
    r004_reveal_identity_on_elimination: bool = _flag(
        False,
        "AMB-64",
        "Announce identities of eliminated roles (default: never, except the mayor under 警戒).",
    )
    r004_lover_substitute_position: str = _flag(
        "append",
        "AMB-65",
        "Where the lover who goes out instead lands on the out-list: appended, or in the place of the "
        "lover he replaces.",
        ("append", "in_place"),
    )
    r004_arrow_works_same_night: bool = _flag(
        True, "AMB-65", "Cupid's arrow already works on the night it is cast (step 3(6) precedes feedback)."
    )
    r004_cupid_may_choose_self: bool = _flag(
        True, "AMB-65", "The cupid may name himself as one of the lovers ('两名角色')."
    )
    r004_rerun_hug_after_lover_swap: bool = _flag(
        False,
        "AMB-66",
        "Re-run step 4 (hug) after the lover swap (step 6) instead of keeping the literal order.",
    )
    r004_lover_swap_spares_terrorist: bool = _flag(
        True,
        "AMB-67",
        "A terrorist lover who fired is replaced by his partner like anyone else (literal); if off, his "
        "own fireworks elimination is not swapped.",
    )
    r004_rejoin_when_sniper_listed: bool = _flag(
        True,
        "AMB-68",
        "The killers target a sniper already on the out-list (e.g. fireworks): 归队 still triggers.",
    )
    r004_blocked_shot_uses_bullet: bool = _flag(
        True,
        "AMB-68",
        "A shot that is fired uses a bullet even when a hug, a heal or 归队 stops it.",
    )
    r004_kidnap_feedback: bool = _flag(
        True,
        "AMB-69",
        "After feedback step 5 the kidnapped role is told and grouped with every earlier kidnapped role.",
    )
    r004_default_hostage_order: str = _flag(
        "order_kidnapped",
        "AMB-69",
        "The 撕票 order when the kidnapper names none: the order kidnapped, or the reverse.",
        ("order_kidnapped", "reverse"),
    )
    r004_red_card_consumes_lastword_slot: bool = _flag(
        True,
        "AMB-77",
        "A red-carded role uses up one of the L last-words slots (but gets no words).",
    )
    r004_last_words_with_code: str = _flag(
        "refused",
        "AMB-77 (new reading: 遗言中禁止使用Discuz!代码)",
        "Last words containing Discuz! code: refused as they are (the role is told and may resubmit "
        "before the deadline, else they are forfeited), or published with the code stripped.",
        ("refused", "stripped"),
    )
    r004_preset21_missing_role: str = _flag(
        "mayor",
        "AMB-78",
        "The 21-player preset lists 20 roles: add the mayor (with a warning) or an 11th civilian.",
        ("mayor", "civilian"),
    )
    r004_cond1_numerator: str = _flag(
        "all_killer_camp",
        "AMB-80",
        "Killer win 1 counts every living killer-camp role (terrorist, uncounted spy included) or only "
        "the counted ones.",
        ("all_killer_camp", "counted_only"),
    )
    r004_stop_when_won: bool = _flag(
        True,
        "AMB-81",
        "Stop eliminating down the out-list once a side has won (the rest stay in).",
    )
    r004_surrender_requires: str = _flag(
        "killer_group",
        "AMB-83",
        "Who must agree to a surrender: the killers' group (killers + a rejoined sniper, out ones "
        "included), or every killer-camp role.",
        ("killer_group", "all_killer_camp"),
    )
    r004_fireworks_may_target_self: bool = _flag(
        False, "AMB-84", "The terrorist may name himself as the fireworks target."
    )
    r004_daystart_includes_day_eliminations: bool = _flag(
        True,
        "AMB-88",
        "The day-start list holds the previous day's vote and red-card eliminations, then the night's.",
    )
    r004_spy_counted: bool | None = _flag(
        None,
        "§i r004.spy_counted",
        "Whether the spy counts in 轮次 (KC). None: the preset decides (false in the 19 and 23 presets).",
    )
    r004_doctor_or_butterfly: str = _flag(
        "doctor",
        "AMB-70",
        "'医生/花蝴蝶' is one role chosen by the director: the doctor or the butterfly.",
        ("doctor", "butterfly"),
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            choices = f.metadata.get("choices")
            value = getattr(self, f.name)
            if choices and value not in choices:
                raise StateError(f"flag {f.name} = {value!r} is not one of {', '.join(choices)}")

    @staticmethod
    def describe() -> list[tuple[str, Any, str, str]]:
        """(name, default, amb, doc) for every flag, in declaration order."""
        out: list[tuple[str, Any, str, str]] = []
        for f in fields(NightFlags):
            default = f.default if f.default is not MISSING else None
            out.append((f.name, default, f.metadata["amb"], f.metadata["doc"]))
        return out


def flags_to_dict(flags: NightFlags) -> dict[str, Any]:
    """A JSON-able dict of every flag (tuples become lists)."""
    out: dict[str, Any] = {}
    for f in fields(flags):
        value = getattr(flags, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def flags_from_dict(data: Mapping[str, Any], base: NightFlags | None = None) -> NightFlags:
    """Flags from a dict such as :func:`flags_to_dict` wrote; missing keys keep ``base``'s values.

    Raises StateError on an unknown flag name (a typo must not be silently ignored).
    """
    base = base or NightFlags()
    names = {f.name for f in fields(NightFlags)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise StateError(f"unknown night flag(s): {', '.join(unknown)}")
    kwargs: dict[str, Any] = {}
    for f in fields(NightFlags):
        value = data.get(f.name, getattr(base, f.name))
        kwargs[f.name] = tuple(value) if isinstance(value, list) else value
    return NightFlags(**kwargs)
