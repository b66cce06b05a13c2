"""Day-side configuration: every reading of the rules that the sources leave open (rules.md §h, §i).

Each field's default is the PROPOSAL of the ambiguity register; its metadata names the ``AMB-nn`` id and
says what the alternative does. :func:`flag_table` lists them for ``forumbot flags`` and the docs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Literal

__all__ = ["DayFlags", "EditedVotePolicy", "FlagInfo", "flag_table"]


class EditedVotePolicy(StrEnum):
    """R004: what an edited vote or change post is worth (AMB-76)."""

    INVALID_NO_PENALTY = "invalid_no_penalty"  # invalid, must be corrected, no card (the proposal)
    INVALID_YELLOW = "invalid_yellow"  # invalid; if never corrected, a yellow card
    VALID = "valid"  # edits are ignored: the post counts as it reads now


def _flag(default: Any, amb: str, doc: str) -> Any:
    return field(default=default, metadata={"amb": amb, "doc": doc})


@dataclass(frozen=True, slots=True)
class DayFlags:
    """Switches for the day engine. Defaults are the register's proposals (rules.md §h)."""

    # --- R001 / R000 (the R001 cycle) ----------------------------------------------------------------
    r001_void_cutoff_inclusive: bool = _flag(
        True,
        "AMB-24",
        "A void at exactly the cutoff (12:30) is effective; forum times are to the minute, so any second "
        "of 12:30 is inside. False: only t < 12:30.",
    )
    void_frees_revote: bool = _flag(
        False,
        "AMB-23",
        "After an effective active void the player may vote again in the same round. Default: one vote per "
        "round, later votes ignored.",
    )
    r001_attendance_on_peaceful_round: bool = _flag(
        True,
        "AMB-21",
        "Discussion and vote attendance are checked in every round with a vote phase, peaceful nights "
        "included. False: a round without a new victim imposes no attendance (no strikes, no discussion "
        "drowning; the discussion streak carries over unchanged).",
    )
    r001_wrong_name_strike: bool = _flag(
        False,
        "AMB-22",
        "A wrong-name (or ambiguous) vote also earns a vote strike. Default: only no vote, an edited vote "
        "and a failed revote strike; a wrong name, a void or an abstention is attendance.",
    )
    r001_revote_cumulative: bool = _flag(
        True,
        "AMB-27",
        "Revote counts are added to the original counts. False: only revote votes count. The two readings "
        "always rank the candidates alike.",
    )
    r001_revote_deadline_minutes: int = _flag(
        60,
        "AMB-28",
        "Minutes from the revote call to its deadline (the call is posted right after the close).",
    )
    r001_revote_drowned_excluded: bool = _flag(
        True,
        "AMB-30",
        "A strike takes effect at the close of the vote or revote where it arises: a player drowned by a "
        "revote strike is left out of the next revote. False: revote drownings wait for the end of the day.",
    )
    r001_proxy_limit_per_game: int = _flag(
        2, "AMB-32", "Proxy votes (代投) each player may use in the whole game (“每位玩家只能申请两次代投”)."
    )
    r001_min_discussion_posts: int = _flag(
        2,
        "AMB-20",
        "Valid discussion posts a round needs (source: “少于2次”); what is *valid* is AttendanceRules.",
    )
    attendance_min_meaningful_chars: int = _flag(
        2,
        "AMB-20",
        "A discussion post needs at least this many meaningful characters (quotes, smileys, whitespace and "
        "punctuation removed).",
    )
    attendance_count_bumps: bool = _flag(
        False, "AMB-20", "Count bump posts (顶, +1, 1, dd ...) as valid discussion posts."
    )
    guardian_double_kill_rule: Literal["top_tie_exactly_guardian_and_protege", "off"] = _flag(
        "top_tie_exactly_guardian_and_protege",
        "AMB-40",
        "Guardian variants: when the original count's top tie is exactly the guardian and his protégé, both "
        "die, no revote. 'off': the ordinary tie procedure applies.",
    )
    # --- both ------------------------------------------------------------------------------------------
    name_fold_width_case: bool = _flag(
        False,
        "AMB-25",
        "Accept a target equal to a living name after case/width folding (Ｋｅｎ = ken = Ken). Default: "
        "exact match after trimming; only punctuation width is folded; typos void (and are suggested).",
    )
    self_vote_allowed: bool = _flag(
        True, "AMB-89", "A player may vote for himself (not forbidden by R001/R004)."
    )
    # --- R004 ------------------------------------------------------------------------------------------
    r004_mayor_target_must_be_tied: bool = _flag(
        False,
        "AMB-60",
        "In a tie the 威权 holder's target goes out only if it is one of the tied roles. Default (literal): "
        "his target goes out whoever it is.",
    )
    r004_yellow_to_red: int | None = _flag(
        None,
        "AMB-71",
        "Yellow cards that make a red card (sent off after the vote). None: no conversion (suggested: 2). "
        "Not from the source.",
    )
    r004_min_posts_per_day: int | None = _flag(
        None,
        "AMB-71",
        "Minimum valid discussion posts per day; fewer earns a yellow card (not while accelerated). None: "
        "no minimum. Not from the source.",
    )
    r004_yellow_for_invalid_uncorrected: bool = _flag(
        False,
        "AMB-72",
        "A role whose invalid vote was never corrected gets a yellow card. Default: no card (he did reply).",
    )
    r004_invalid_change_consumes: bool = _flag(
        False,
        "AMB-73",
        "An invalid change (bad format, not a reply to the current vote's floor, bad target, last hour, "
        "accelerated, edited) uses up the one change. Default: it does not.",
    )
    r004_first_vote_in_last_hour: bool = _flag(
        True,
        "AMB-74",
        "A role with no valid vote may post its first valid vote (or correct an invalid one by a new post) "
        "until closing. False: no vote at all in the last hour.",
    )
    r004_require_reason_label: bool = _flag(
        True,
        "AMB-75",
        "The 投票理由/改票理由 label must be present (its content may be empty). Read by the vote parser: "
        "pass it to forumbot.parsers.votes.read_ballot(require_reason_label=...).",
    )
    r004_allow_text_before_format: bool = _flag(
        True,
        "AMB-75",
        "Text before 投票对象/改票对象 (after quotes are stripped), e.g. an analysis followed by the vote. "
        "Default: the vote is read and flagged for the judges' review (the fixtures' README lists where the "
        "captured scene departs from our rules, and a long post ending in the format is not among them). "
        "False: the strict ^投票对象… of the parsing spec — a format error that must be corrected.",
    )
    r004_edited_vote: EditedVotePolicy = field(
        default=EditedVotePolicy.INVALID_NO_PENALTY,
        metadata={
            "amb": "AMB-76",
            "doc": "An edited vote or change post: invalid (must be corrected) with no penalty; "
            "'invalid_yellow': a yellow card if never corrected; 'valid': edits ignored.",
        },
    )
    r004_void_post_is_vote_attempt: bool = _flag(
        False,
        "AMB-72",
        "R004 has no void vote (废票). Default: a post saying 废票 is not a vote at all (like chat), so "
        "it is no floor a later change can correct. True: it is read as an invalid vote attempt "
        "(格式错误), which a later change replying to that floor may correct.",
    )
    r004_application_withdrawal: str = _flag(
        "explicit",
        "AMB-82 (new reading: withdrawing a 延时/加速 application)",
        "'explicit': a post such as 取消延时 / 撤回加速申请 before the application succeeded takes the "
        "applicant off the count. 'none': an application cannot be withdrawn (such posts count nothing).",
    )
    r004_acceleration_shortens_days: int = _flag(
        1,
        "AMB-82",
        "What acceleration shortens: the discussion day ends this many calendar days earlier (same clock "
        "time); acceleration applications close 3 h before that earlier end.",
    )
    r004_delay_extends_days: int = _flag(
        1,
        "AMB-82 (new reading: what a delay lengthens)",
        "A granted delay moves the day's current end (accelerated or not) this many calendar days later.",
    )
    r004_red_card_consumes_lastword_slot: bool = _flag(
        True,
        "AMB-77",
        "For the integrator: a red-carded role uses up a last-words slot (and gets no words). Not used by "
        "the day engine itself.",
    )

    def __post_init__(self) -> None:
        if self.r001_revote_deadline_minutes <= 0:
            raise ValueError(
                f"r001_revote_deadline_minutes must be positive, got {self.r001_revote_deadline_minutes}"
            )
        if self.r001_proxy_limit_per_game < 0:
            raise ValueError(f"r001_proxy_limit_per_game must be ≥ 0, got {self.r001_proxy_limit_per_game}")
        if self.r004_yellow_to_red is not None and self.r004_yellow_to_red < 1:
            raise ValueError(f"r004_yellow_to_red must be ≥ 1 or None, got {self.r004_yellow_to_red}")
        if self.r004_min_posts_per_day is not None and self.r004_min_posts_per_day < 0:
            raise ValueError(f"r004_min_posts_per_day must be ≥ 0 or None, got {self.r004_min_posts_per_day}")
        if self.r004_application_withdrawal not in ("explicit", "none"):
            got = self.r004_application_withdrawal
            raise ValueError(f"r004_application_withdrawal must be 'explicit' or 'none', got {got!r}")
        if self.r004_acceleration_shortens_days < 1 or self.r004_delay_extends_days < 1:
            raise ValueError("r004_acceleration_shortens_days and r004_delay_extends_days must be ≥ 1")
        if not isinstance(self.r004_edited_vote, EditedVotePolicy):
            object.__setattr__(self, "r004_edited_vote", EditedVotePolicy(self.r004_edited_vote))


@dataclass(frozen=True, slots=True)
class FlagInfo:
    name: str
    default: Any
    amb: str
    doc: str


def flag_table() -> tuple[FlagInfo, ...]:
    """Every day flag with its default, AMB id and documentation, in declaration order."""
    out = []
    for f in fields(DayFlags):
        out.append(FlagInfo(f.name, f.default, f.metadata.get("amb", ""), f.metadata.get("doc", "")))
    return tuple(out)
