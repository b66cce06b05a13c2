"""Preset tables (player-count → role composition), parsed from TOML text the caller passes in.

The engine never reads files: the CLI (or a test fixture) reads ``data/rulesets/<id>.toml`` and hands the
text to :func:`parse_presets`. The schema::

    ruleset = "R004"
    min_players = 18
    max_players = 35
    [growth]                       # optional (R004: 24–35 from the 20–23 presets, AMB-79)
    base = [20, 21, 22, 23]
    step = 4
    add = { killer = 1, police = 1, civilian = 2 }
    [presets.<N>]
    text = "the source line"
    roles = { <role id> = count, ... }   # "doctor_or_butterfly" = 医生/花蝴蝶, one role (AMB-70)
    sniper_bullets = 2             # X (R004)
    spy_counted = true             # 间谍（不算轮次）→ false (R004)
    ghost_from_bandits = 1         # R001: the ghost is drawn among the bandits afterwards (C-111)
    [presets.<N>.missing]          # a line that lists fewer roles than N (R004 21, AMB-78)
    count = 1
    default = "mayor"
    alternative = "civilian"
    warning = "..."
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.errors import PresetError, SetupError, UnknownRuleSetError
from engine.flags_night import NightFlags
from engine.roles import ROLE_TABLES, RoleId, WinSide
from engine.ruleset import get_ruleset

DOCTOR_OR_BUTTERFLY = "doctor_or_butterfly"


@dataclass(frozen=True, slots=True)
class MissingRole:
    count: int
    default: str
    alternative: str
    warning: str
    amb: str = ""


@dataclass(frozen=True, slots=True)
class PresetSpec:
    """One preset line as written in the source (before the director's choices)."""

    players: int
    roles: Mapping[str, int]
    text: str = ""
    sniper_bullets: int | None = None
    spy_counted: bool = True
    ghost_from_bandits: int = 0
    missing: MissingRole | None = None


@dataclass(frozen=True, slots=True)
class Growth:
    base: tuple[int, ...]
    step: int
    add: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Composition:
    """The roles of one game size, the director's choices made. ``roles`` keeps the preset's order."""

    ruleset_id: str
    players: int
    roles: tuple[tuple[RoleId, int], ...]
    sniper_bullets: int = 0
    spy_counted: bool = True
    ghost_from_bandits: int = 0
    built_from: str = ""
    warnings: tuple[str, ...] = ()

    def count(self, role: RoleId) -> int:
        return sum(c for r, c in self.roles if r is role)

    @property
    def total(self) -> int:
        return sum(c for _, c in self.roles)

    def sides(self, family: str = "r004") -> dict[WinSide, int]:
        table = ROLE_TABLES[family]
        out: dict[WinSide, int] = {}
        for r, c in self.roles:
            side = table[r].side
            if r is RoleId.SPY and not self.spy_counted:
                side = WinSide.KILLER_UNCOUNTED
            out[side] = out.get(side, 0) + c
        return out

    @property
    def counted_killers(self) -> int:
        """KC: counted killer-camp roles = the number of last-words slots L (R004)."""
        return self.sides().get(WinSide.KILLER_COUNTED, 0)

    @property
    def gods(self) -> int:
        return self.sides().get(WinSide.GOD, 0)

    @property
    def killer_camp(self) -> int:
        s = self.sides()
        return s.get(WinSide.KILLER_COUNTED, 0) + s.get(WinSide.KILLER_UNCOUNTED, 0)


@dataclass(frozen=True, slots=True)
class PresetTable:
    ruleset_id: str
    min_players: int
    max_players: int
    presets: Mapping[int, PresetSpec]
    growth: Growth | None = None
    family: str = "r001"
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def sizes(self) -> tuple[int, ...]:
        return tuple(
            n for n in range(self.min_players, self.max_players + 1) if self._source_of(n) is not None
        )

    def _source_of(self, n: int) -> tuple[PresetSpec, int] | None:
        if n in self.presets:
            return self.presets[n], 0
        g = self.growth
        if g is None or n < min(g.base):
            return None
        base = g.base[0] + (n - g.base[0]) % g.step
        m = (n - g.base[0]) // g.step
        if base not in self.presets:
            return None
        return self.presets[base], m

    def composition(
        self,
        n: int,
        *,
        flags: NightFlags | None = None,
        doctor_or_butterfly: str | None = None,
        missing_role: str | None = None,
    ) -> Composition:
        """The composition for ``n`` players.

        ``doctor_or_butterfly`` ("doctor"/"butterfly", AMB-70) and ``missing_role`` (AMB-78) default to
        the flags (``r004_doctor_or_butterfly``, ``r004_preset21_missing_role``). Raises SetupError for a
        size the rules do not define (AMB-79).
        """
        flags = flags or NightFlags()
        if not self.min_players <= n <= self.max_players:
            raise SetupError(
                f"{self.ruleset_id} 的预设只有 {self.min_players}–{self.max_players} 人局，没有 {n} 人局",
            )
        found = self._source_of(n)
        if found is None:
            raise SetupError(f"{self.ruleset_id} 没有 {n} 人局的预设")
        spec, m = found
        counts: dict[str, int] = dict(spec.roles)
        warnings: list[str] = []
        if spec.missing is not None:
            role = missing_role or (
                flags.r004_preset21_missing_role if spec.missing.amb == "AMB-78" else spec.missing.default
            )
            if role not in (spec.missing.default, spec.missing.alternative):
                raise SetupError(
                    f"{spec.players} 人局预设所缺的角色只能补「{spec.missing.default}」或"
                    f"「{spec.missing.alternative}」，不能补「{role}」"
                )
            counts[role] = counts.get(role, 0) + spec.missing.count
            warnings.append(spec.missing.warning + f"（本局补入：{role}）")
        if m and self.growth is not None:
            for role, c in self.growth.add.items():
                counts[role] = counts.get(role, 0) + m * c
        choice = doctor_or_butterfly or flags.r004_doctor_or_butterfly
        if DOCTOR_OR_BUTTERFLY in counts:
            if choice not in ("doctor", "butterfly"):
                raise SetupError(
                    f'医生/花蝴蝶只能选 "doctor"（医生）或 "butterfly"（花蝴蝶），不能选「{choice}」'
                )
            c = counts.pop(DOCTOR_OR_BUTTERFLY)
            counts[choice] = counts.get(choice, 0) + c
        roles: list[tuple[RoleId, int]] = []
        table = ROLE_TABLES[self.family]
        for key, c in counts.items():
            if c <= 0:
                continue
            rid = RoleId(key)
            if rid not in table:
                raise PresetError(f"role {key!r} is not a {self.family} role")
            roles.append((rid, c))
        total = sum(c for _, c in roles)
        if total != n:
            raise PresetError(f"the {n}-player composition adds up to {total}")
        built = (
            f"{spec.players}+{m}×({', '.join(f'{k}×{v}' for k, v in self.growth.add.items())})"
            if m and self.growth
            else str(spec.players)
        )
        return Composition(
            ruleset_id=self.ruleset_id,
            players=n,
            roles=tuple(roles),
            sniper_bullets=spec.sniper_bullets or 0,
            spy_counted=spec.spy_counted,
            ghost_from_bandits=spec.ghost_from_bandits,
            built_from=built,
            warnings=tuple(warnings),
        )


def _need(data: Mapping[str, Any], key: str, typ: type, where: str) -> Any:
    if key not in data:
        raise PresetError(f"{where}: missing {key!r}")
    value = data[key]
    if not isinstance(value, typ) or isinstance(value, bool) is not (typ is bool):
        raise PresetError(f"{where}: {key!r} must be {typ.__name__}, got {value!r}")
    return value


def parse_presets(toml_text: str) -> PresetTable:
    """Parse preset TOML text (see the module docstring). Raises PresetError on bad data."""
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"preset TOML does not parse: {exc}") from None
    rid = _need(data, "ruleset", str, "presets")
    try:
        family = get_ruleset(rid).family
    except UnknownRuleSetError as exc:
        raise PresetError(f"presets for an unknown rule set: {exc}") from None
    table = ROLE_TABLES[family]
    lo = _need(data, "min_players", int, rid)
    hi = _need(data, "max_players", int, rid)
    raw = _need(data, "presets", dict, rid)
    presets: dict[int, PresetSpec] = {}
    for key, body in raw.items():
        where = f"{rid} presets.{key}"
        try:
            n = int(key)
        except ValueError:
            raise PresetError(f"{where}: the key must be a player count") from None
        if not isinstance(body, dict):
            raise PresetError(f"{where}: must be a table")
        roles = _need(body, "roles", dict, where)
        for role, count in roles.items():
            if role != DOCTOR_OR_BUTTERFLY and role not in {r.value for r in table}:
                raise PresetError(f"{where}: unknown role {role!r}")
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise PresetError(f"{where}: count of {role!r} must be a non-negative integer")
        missing = None
        if "missing" in body:
            mb = body["missing"]
            missing = MissingRole(
                count=_need(mb, "count", int, where + ".missing"),
                default=_need(mb, "default", str, where + ".missing"),
                alternative=_need(mb, "alternative", str, where + ".missing"),
                warning=str(mb.get("warning", "")),
                amb=str(mb.get("amb", "")),
            )
        written = sum(roles.values())
        expected = n - (missing.count if missing else 0)
        if written != expected:
            raise PresetError(f"{where}: roles add up to {written}, expected {expected}")
        presets[n] = PresetSpec(
            players=n,
            roles=MappingProxyType(dict(roles)),
            text=str(body.get("text", "")),
            sniper_bullets=body.get("sniper_bullets"),
            spy_counted=bool(body.get("spy_counted", True)),
            ghost_from_bandits=int(body.get("ghost_from_bandits", 0)),
            missing=missing,
        )
    growth = None
    if "growth" in data:
        gb = data["growth"]
        growth = Growth(
            base=tuple(_need(gb, "base", list, rid + " growth")),
            step=_need(gb, "step", int, rid + " growth"),
            add=MappingProxyType(dict(_need(gb, "add", dict, rid + " growth"))),
        )
        for b in growth.base:
            if b not in presets:
                raise PresetError(f"{rid} growth: base size {b} has no preset")
    return PresetTable(
        ruleset_id=rid,
        min_players=lo,
        max_players=hi,
        presets=MappingProxyType(presets),
        growth=growth,
        family=family,
    )
