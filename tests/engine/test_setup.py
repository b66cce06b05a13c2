"""Drawing roles (C-111 and the R004 presets) and building games."""

from __future__ import annotations

import pytest

from engine import (
    GroupId,
    IllegalActionError,
    NightFlags,
    PresetTable,
    RoleId,
    SetupError,
    draw_roles,
    evaluate_outcome,
    get_ruleset,
    new_game,
    parse_presets,
    record_proxy_vote,
)

ROSTER12 = ["Kai", "Ken", "Pam", "Pat", "Zoe", "Cal", "Cid", "Cora", "Cy", "Cleo", "Cole", "Cruz"]


def test_c111_twelve_player_draw_groups_and_notices(r001_presets: PresetTable) -> None:
    """C-111: bandits join the bandit group, police the police group, the poison joins none."""
    setup = draw_roles("R001", ROSTER12, seed=20240603, preset_table=r001_presets)
    st = setup.state
    roles = [p.role for p in st.players]
    assert roles.count(RoleId.GHOST) == 1 and roles.count(RoleId.BANDIT) == 1
    assert (
        roles.count(RoleId.POLICE) == 2
        and roles.count(RoleId.POISON) == 1
        and roles.count(RoleId.CIVILIAN) == 7
    )
    bandits = set(st.with_role(RoleId.BANDIT, RoleId.GHOST))
    assert set(setup.groups["bandits"]) == bandits
    assert set(setup.groups["police"]) == set(st.with_role(RoleId.POLICE))
    poison = st.with_role(RoleId.POISON)[0]
    assert all(poison not in members for members in setup.groups.values())
    assert "毒药" in setup.notices[poison] and "不加入任何讨论组" in setup.notices[poison]
    ghost = st.with_role(RoleId.GHOST)[0]
    assert "鬼匪" in setup.notices[ghost] and "生死状" in setup.notices[ghost]
    for name in st.with_role(RoleId.POLICE):
        assert "警署讨论组成员" in setup.notices[name]
    assert all("两次代投" in text for text in setup.notices.values())
    assert setup.warmup_post("6月3日下午5时") == "玩家身份通知完毕，第一回合提交名单截止时间为6月3日下午5时"
    assert evaluate_outcome(st) is None, "Bn=2, Pn=2, Zn=1, Cn=7: nothing is met"
    assert st.round == 1 and st.phase.value == "night"


def test_draw_is_reproducible_from_the_recorded_seed(r001_presets: PresetTable) -> None:
    a = draw_roles("R001", ROSTER12, seed=7, preset_table=r001_presets)
    b = draw_roles("R001", ROSTER12, seed=7, preset_table=r001_presets)
    c = draw_roles("R001", ROSTER12, seed=8, preset_table=r001_presets)
    assert a.state == b.state and a.notices == b.notices
    assert {p.name: p.role for p in a.state.players} != {p.name: p.role for p in c.state.players}


def test_ghost_is_drawn_among_the_bandits_after_the_bandit_list_is_fixed(r001_presets: PresetTable) -> None:
    """§五: “鬼匪——匪徒中的一人，身份抽取在确定了全体匪帮名单后进行。” Over many seeds both bandits get it."""
    ghosts = set()
    for seed in range(40):
        st = draw_roles("R001", ROSTER12, seed=seed, preset_table=r001_presets).state
        bandits = st.group_members(GroupId.BANDITS)
        assert len(bandits) == 2
        ghost = st.with_role(RoleId.GHOST)
        assert len(ghost) == 1 and ghost[0] in bandits
        ghosts.add((bandits, ghost[0]))
    assert len({g for _, g in ghosts}) > 2


def test_every_player_may_use_proxy_votes_at_most_twice_per_game(r001_presets: PresetTable) -> None:
    st = draw_roles("R001", ROSTER12, seed=1, preset_table=r001_presets).state
    st = record_proxy_vote(record_proxy_vote(st, "Cal"), "Cal")
    assert st.proxy_votes_used_of("Cal") == 2
    with pytest.raises(IllegalActionError, match="代投次数已用完"):
        record_proxy_vote(st, "Cal")


@pytest.mark.parametrize("n", [18, 19, 21, 22, 23, 27, 35])
def test_r004_draw_from_preset(r004_presets: PresetTable, n: int) -> None:
    roster = [f"p{i:02d}" for i in range(n)]
    setup = draw_roles("R004", roster, seed=n, preset_table=r004_presets)
    st = setup.state
    comp = r004_presets.composition(n)
    assert sorted(p.role for p in st.players) == sorted(r for r, c in comp.roles for _ in range(c))
    assert st.lastword_slots == comp.counted_killers
    assert st.spy_counted is comp.spy_counted
    assert st.sniper_bullets == comp.sniper_bullets
    assert st.authority_holder == st.holder(RoleId.MAYOR)
    assert set(setup.groups["killers"]) == set(st.with_role(RoleId.KILLER))
    assert bool(setup.warnings) is (n in (21, 25, 29, 33))
    sniper = st.holder(RoleId.SNIPER)
    assert sniper is not None and f"X={comp.sniper_bullets}" in setup.notices[sniper]


def test_r004_butterfly_variant_and_explicit_composition(r004_presets: PresetTable) -> None:
    roster = [f"p{i:02d}" for i in range(22)]
    st = draw_roles("R004", roster, seed=3, preset_table=r004_presets, variant="butterfly").state
    assert st.holder(RoleId.BUTTERFLY) and not st.holder(RoleId.DOCTOR)
    comp = r004_presets.composition(22)
    st2 = draw_roles("R004", roster, seed=3, composition=comp).state
    assert st2.holder(RoleId.DOCTOR)


def test_draw_refusals(r004_presets: PresetTable, r001_presets: PresetTable) -> None:
    with pytest.raises(SetupError, match="出现了两次"):
        draw_roles("R001", [*ROSTER12[:11], "Kai"], seed=1, preset_table=r001_presets)
    with pytest.raises(SetupError, match="18–35 人局"):
        draw_roles("R004", [f"p{i}" for i in range(17)], seed=1, preset_table=r004_presets)
    with pytest.raises(SetupError, match="预设表属于 R004"):
        draw_roles("R001", ROSTER12, seed=1, preset_table=r004_presets)
    with pytest.raises(SetupError, match="需要预设表"):
        draw_roles("R001", ROSTER12, seed=1)


def test_r000_variants_draw_from_their_own_data(preset_text: dict[str, str]) -> None:
    g1 = parse_presets(preset_text["r000_g1"])
    st = draw_roles("守护神", [f"p{i}" for i in range(10)], seed=2, preset_table=g1).state
    assert st.ruleset_id == "R000-G1" and len(st.with_role(RoleId.GUARDIAN)) == 1
    g2 = parse_presets(preset_text["r000_g2"])
    st = draw_roles("双守护", [f"p{i}" for i in range(12)], seed=2, preset_table=g2).state
    assert st.with_role(RoleId.POLICE_GUARDIAN) and st.with_role(RoleId.BANDIT_GUARDIAN)
    gp = parse_presets(preset_text["r000_gp"])
    st = draw_roles("鬼匪毒药", ROSTER12, seed=2, preset_table=gp).state
    assert st.with_role(RoleId.GHOST) and not st.flags.r001_condition2_enabled


def test_new_game_accepts_chinese_role_names_and_refuses_foreign_roles() -> None:
    st = new_game("R001", [("A", "鬼匪"), ("B", "匪"), ("C", "警察"), ("D", "毒药"), ("E", "村民")])
    assert [p.role for p in st.players] == [
        RoleId.GHOST,
        RoleId.BANDIT,
        RoleId.POLICE,
        RoleId.POISON,
        RoleId.CIVILIAN,
    ]
    with pytest.raises(SetupError, match="不用角色"):
        new_game("R001", [("A", "bandit"), ("G", "guardian")])
    with pytest.raises(SetupError, match="没有角色"):
        new_game("R004", [("A", "鬼匪")])
    with pytest.raises(SetupError, match="出现了两次"):
        new_game("R004", [("A", "killer"), ("A", "police")])
    with pytest.raises(SetupError, match="前后也不能有空格"):
        new_game("R004", [(" A", "killer")])


def test_guardians_with_ghost_and_poison_need_the_flag() -> None:
    """AMB-48: do not combine them, unless the judges choose to (flag)."""
    roster = [
        ("Kai", "ghost"),
        ("Ken", "bandit"),
        ("Pam", "police"),
        ("Zoe", "poison"),
        ("Gus", "guardian"),
        ("Cal", "civilian"),
    ]
    with pytest.raises(SetupError, match="AMB-48"):
        new_game("R001", roster)
    flags = NightFlags(guardian_with_ghost_poison=True)
    st = new_game(get_ruleset("R001"), roster, flags=flags)
    assert st.is_guardian("Gus")
