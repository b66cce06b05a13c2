"""Setup: the roster's roles, drawn with a recorded seed or given by the judges, stored as the first
version of the secret state."""

from __future__ import annotations

from collections.abc import Mapping

from engine import (
    ROLE_TABLES,
    Composition,
    GameState,
    PresetTable,
    RoleId,
    RuleSet,
    Setup,
    SetupError,
    draw_roles,
    new_game,
    parse_presets,
)
from forumbot.desk.core import DeskCore
from forumbot.errors import UsageError
from forumbot.i18n import _
from forumbot.resources import read_data


def role_by_name(ruleset: RuleSet, name: str) -> RoleId:
    """A role by its Chinese name (杀手, 鬼匪, 毒药...), an alias (匪, 村民...) or its id (killer, ghost...):
    the rule set's own lookup, with an error a judge can act on."""
    try:
        return ruleset.role_id(name)
    except KeyError:
        known = "、".join(spec.name_zh for spec in ROLE_TABLES[ruleset.family].values())
        raise UsageError(
            _("unknown role {name!r} for this rule set (known: {known})").format(name=name, known=known)
        ) from None


class SetupSteps(DeskCore):
    def presets(self) -> PresetTable:
        """The rule set's preset table (which roles for how many players)."""
        return parse_presets(read_data("rulesets", self.ruleset.presets_file))

    def setup(
        self,
        *,
        seed: int | None = None,
        roles: Mapping[str, str] | None = None,
        variant: str | None = None,
        force: bool = False,
        composition: Composition | None = None,
    ) -> Setup | GameState:
        """Draw (or take the judges' own) roles for the roster and store them as the first state.
        ``composition``: the cards the seed deals (the judges' own), instead of the preset for the size.

        Returns the engine's Setup (with warnings and private notices) for a draw, the state for given
        roles. Raises UsageError when roles are stored already (without ``force``) or the roles do not
        name every player once.
        """
        if self.state() is not None and not force:
            raise UsageError(
                _("roles are already stored for this game; pass --force to draw again (kept in history)")
            )
        roster = list(self.game.roster)
        if roles is not None:
            missing = [n for n in roster if n not in roles]
            extra = [n for n in roles if n not in roster]
            if missing or extra:
                raise UsageError(
                    _(
                        "the roles file must name every player once (missing: {missing}, unknown: {unknown})"
                    ).format(missing=missing or "-", unknown=extra or "-")
                )
            st = new_game(
                self.ruleset,
                [(n, role_by_name(self.ruleset, roles[n])) for n in roster],
                flags=self.night_flags,
            )
            self.save_state("setup (roles given by the judges)", st)
            return st
        if seed is None:
            raise UsageError(_("give --seed N (recorded, so the draw can be checked) or --roles FILE"))
        drawn = draw_roles(
            self.ruleset,
            roster,
            seed=seed,
            preset_table=None if composition is not None else self.presets(),
            composition=composition,
            flags=self.night_flags,
            variant=variant,
        )
        self.save_state(f"setup (seed {seed})", drawn.state)
        return drawn

    def cards(self, cards: tuple[tuple[str, int], ...]) -> Composition:
        """The judges' own composition (role name → how many, as [signup] cards gives it) for the
        roster; refused when it does not add up to the number of players. A sniper's bullets and
        whether a spy counts follow the rule set's preset of the same size when it has one."""
        roles = tuple((role_by_name(self.ruleset, name), n) for name, n in cards)
        total = sum(n for _role, n in roles)
        if total != len(self.game.roster):
            raise UsageError(
                _("[signup] cards lists {cards} roles for {players} players: make them add up").format(
                    cards=total, players=len(self.game.roster)
                )
            )
        table = self.presets()
        try:
            preset = table.composition(total, flags=self.night_flags)
        except SetupError:
            preset = None
        return Composition(
            ruleset_id=self.ruleset.id,
            players=total,
            roles=roles,
            sniper_bullets=preset.sniper_bullets if preset is not None else 0,
            spy_counted=preset.spy_counted if preset is not None else True,
            built_from=_("the judges' own cards"),
        )
