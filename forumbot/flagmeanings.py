"""The engine's flags explained in Chinese, for ``forumbot flags`` (issue 20: judges read Chinese).

The engine keeps its flag docs in English beside each flag (engine/flags_day.py, flags_night.py,
flags.py): they are the developers' documentation and the engine has no catalogs. A judge reads these
instead, keyed by the flag's name (or the row's name for the readings that are not switches);
``tests/test_flag_meanings.py`` fails when a flag has no Chinese meaning here, so a new flag cannot
reach the judges in English. Rule ids (AMB-nn) are shown in their own column, not in the meaning.
"""

from __future__ import annotations

MEANING_ZH: dict[str, str] = {
    # ---- day
    "r001_void_cutoff_inclusive": "恰在废票截止时刻（12:30）的废票有效；论坛时间只精确到分钟，12:30 内任一秒都算在内。"
    "否：只认 12:30 之前。",
    "void_frees_revote": "有效主动废票后，该玩家本轮可以再投一次。默认：每轮一票，之后的投票不计。",
    "r001_attendance_on_peaceful_round": "每一个有投票阶段的轮次都检查发言和投票出勤，平安夜也检查。"
    "否：没有新死者的轮次不检查出勤（不记违规、不因发言淹死，发言连续记录原样延续）。",
    "r001_wrong_name_strike": "投错名字（或名字有歧义）的票也记一次投票违规。默认：只有未投票、编辑过的票和重投失败记违规；"
    "错名、废票、弃权只算出勤。",
    "r001_revote_cumulative": "重投票数加在原票数上。否：只计重投的票。两种读法给候选人的排序总是一样。",
    "r001_revote_deadline_minutes": "从宣布重投到重投截止的分钟数（结算后立即发布重投通知）。",
    "r001_revote_drowned_excluded": "违规在产生它的投票或重投结算时生效：因重投违规淹死的玩家不参加下一次重投。"
    "否：重投中的淹死等到当天结束才生效。",
    "r001_proxy_limit_per_game": "每位玩家整局可用的代投次数（“每位玩家只能申请两次代投”）。",
    "r001_min_discussion_posts": "每轮需要的有效发言数（原文：“少于2次”）；何为有效见出勤规则。",
    "attendance_min_meaningful_chars": "一条发言至少要有多少个有效字符（去掉引用、表情、空白和标点之后）。",
    "attendance_count_bumps": "把顶帖（顶、+1、1、dd……）算作有效发言。",
    "guardian_double_kill_rule": "守护神变体：原始计票的最高票并列恰好是守护神和他守护的人时，两人都出局，不重投。"
    "off：按普通并列程序处理。",
    "name_fold_width_case": "投票对象经过大小写、全半角折叠后等于某个存活玩家的名字时也接受（Ｋｅｎ = ken = Ken）。"
    "默认：去掉首尾空白后必须完全一致，只折叠标点的全半角；错字作废（并给出建议）。",
    "self_vote_allowed": "玩家可以投自己（R001/R004 都未禁止）。",
    "r004_mayor_target_must_be_tied": "平票时，威权持有者所投的对象必须是并列者之一才出局。默认（按字面）：他投谁谁出局。",
    "r004_yellow_to_red": "几张黄牌合成一张红牌（投票后罚下）。空：不合成（建议 2）。原文没有此规定。",
    "r004_min_posts_per_day": "每天最少有效发言数；不足者得一张黄牌（加速时不计）。空：没有下限。原文没有此规定。",
    "r004_yellow_for_invalid_uncorrected": "无效票始终未更正的角色得一张黄牌。默认：不给牌（他回过帖了）。",
    "r004_invalid_change_consumes": "无效的改票（格式错误、没有回复当前投票楼层、对象错误、最后一小时、加速中、编辑过）"
    "也用掉唯一一次改票机会。默认：不用掉。",
    "r004_first_vote_in_last_hour": "还没有有效票的角色，可以在截止前（含最后一小时）发第一张有效票，或用新帖更正无效票。"
    "否：最后一小时内不能投任何票。",
    "r004_require_reason_label": "必须写出“投票理由/改票理由”这一栏（内容可以为空）。由投票解析读取。",
    "r004_allow_text_before_format": "允许在“投票对象/改票对象”之前写其他文字（去掉引用之后），例如先分析再投票。"
    "默认：照常读出这票，并标记给法官复核。否：严格要求以“投票对象…”开头，否则为格式错误，必须更正。",
    "r004_edited_vote": "编辑过的投票或改票帖：无效（须更正）但不处罚；invalid_yellow：始终未更正则得黄牌；valid：不理会编辑。",
    "r004_void_post_is_vote_attempt": "R004 没有废票。默认：写着“废票”的帖子根本不算投票（与闲聊一样），"
    "之后的改票不能回复它来更正。是：把它读作一次无效投票（格式错误），之后回复该楼的改票可以更正。",
    "r004_application_withdrawal": "explicit：申请成功之前，“取消延时”“撤回加速申请”之类的帖子把申请人从计数中去掉。"
    "none：申请不能撤回（这类帖子什么也不算）。",
    "r004_acceleration_shortens_days": "加速缩短多少：讨论日提前这么多个自然日结束（钟点不变）；加速申请在提前后的结束前 3 小时截止。",
    "r004_delay_extends_days": "延时获批后，把当天当前的结束时间（无论是否加速）推迟这么多个自然日。",
    "r004_red_card_consumes_lastword_slot": "被红牌罚下的角色占用一个遗言名额（且没有遗言）。日间引擎本身不使用。",
    # ---- night (and both)
    "r001_condition2_enabled": "R001 §三.2 的第 2 个条件（杀手数 ≥ 警察数 + 平民数 − 1 ⇒ 杀手胜）。"
    "R001 开启；R000 各变体的规则集关闭它。",
    "r001_condition2_counts_poison": "条件 2 把存活的毒药算在非匪一方（Zn）。",
    "r001_condition2_requires_bandit": "条件 2 要求至少有一名存活的匪（否则 0 ≥ 0 会判匪胜）。",
    "r001_simultaneous_a_and_b": "同一批结算中匪全灭（A）且警察或平民也全灭（B）：平局，或判某一方胜。",
    "r001_win_check": "R001/R000 何时检查胜负：每批检查一次（一夜全部死亡；或整个白天的结算），或每死一人按顺序检查。",
    "win_poison_prevents_police_wipeout": "存活的毒药是否使警察不算“全灭”（R000 的条款 C 和毒药一段都说不算）。",
    "gp_possessed_counts_as_civilian": "被附体的平民除算作匪之外，是否仍算作平民（Cn）。",
    "gp_kill_and_possess_same_target": "杀人和附体指向同一人（提交时会被拒绝，若仍被处理）：附体无效且用掉，或无效但仍可再用。",
    "gp_invalid_possession": "附体匪、自己或已死的玩家（提交时会被拒绝，若仍被处理）：无效且用掉，或无效但仍可再用。",
    "gp_possessed_joins_bandit_group": "被附体者加入匪帮，参与之后的杀人，并可以作生死状对象。",
    "gp_missing_pledge": "杀中毒药而生死状缺失或对象已不是存活的匪：随机一名存活的匪（按种子）随之死亡，或整次杀人无效（平安夜）。",
    "gp_notify_bandits": "告诉匪帮“附体成功/附体未生效”以及“目标为毒药，X 依生死状同死”。",
    "gp_check_label_police": "警察验到警察时的回答（原文只有杀手/平民两种）。",
    "gp_extra_check_window_minutes": "验中毒药获得额外一验时，警察在第一个结果发出后有多少分钟提交。",
    "gp_executed_poison_label": "毒药被票死时公布的身份。",
    "gp_possessed_poison_checked_extra": "毒药被附体（因而死亡）且同夜被验，仍然通知并仍给额外一验。",
    "gp_late_kill_loses_possession": "匪帮迟交（今晚平安夜）时，当夜的附体也作废。",
    "r001_sent_off_reveals_identity": "被判作立即出局（§四.10）的玩家只公布名字，与淹死一样。",
    "guardian_forced_skip_counts_as_voluntary": "被迫放弃守护（已无人可守）也计入 2 次主动放弃。",
    "guardian_once_per_target_scope": "“每位玩家只有一次被守护的机会”：按每位守护神分别计算，或全局两位守护神合计一次。",
    "guardian_same_protege": "两位守护神同时有效守护同一名将死的平民：平民存活、两位守护神死亡；"
    "或（按字面）平民死亡、两位守护神随之死亡。",
    "guardian_counted_in_win_checks": "胜负判定时守护神算入某一方（警神算警察，匪神算匪，单守护神和被转化的警神算平民），而不是不算。",
    "guardian_announce_dereliction_cause": "渎职死亡在案情帖里不写原因（默认），或写作“X 渎职死亡”。",
    "guardian_converted_keeps_duty": "被转化的警方守护神仍须提交守护（也会因渎职死亡）。",
    "guardian_kill_text_editable": "守护神代替被杀者死亡时，提醒法官可以修改杀人描述。",
    "guardian_with_ghost_poison": "允许在有鬼/毒药的局中加入守护神（被守护的毒药被杀时死的是守护神而不是生死状对象；附体不能被守护挡住）。",
    "r000_base_day_procedure": "R000 各变体的基础局（“2.0标准版”，原文未给出）：采用 R001 的流程、投票和平票处理。",
    "guardian_execution_wording": "守护神 {g} 代被处决者 {x} 出局时的公开措辞。",
    "r004_alert_blocks_forced_skills": "警戒之夜，杀手阵营的强制技能（悍匪；归队）也被阻止。",
    "r004_alert_causes": "哪些出局原因算作“因杀手阵营技能出局”并触发警戒。",
    "r004_authority_to_out_tonight": "威权可以传给当夜或当天刚出局的角色（默认：只能传给未出局的角色）。",
    "r004_empty_heal_counter": "空救按被救角色计数（该角色满 2 次出局），或按医生计数。",
    "r004_doctor_may_heal_self": "医生可以救自己（“一名角色”）。",
    "r004_reveal_identity_on_elimination": "公布出局角色的身份（默认：从不公布，警戒下的市长除外）。",
    "r004_lover_substitute_position": "代替出局的情侣在出局名单中的位置：排在最后，或排在被代替者的位置。",
    "r004_arrow_works_same_night": "丘比特的箭当夜即生效（第 3(6) 步在反馈之前）。",
    "r004_cupid_may_choose_self": "丘比特可以把自己选为情侣之一（“两名角色”）。",
    "r004_rerun_hug_after_lover_swap": "情侣替换（第 6 步）之后再执行一次第 4 步（拥抱），而不是照字面顺序。",
    "r004_lover_swap_spares_terrorist": "放过烟花的恐怖分子情侣也像其他人一样由伴侣替换（按字面）；关闭时，他自己因烟花出局不替换。",
    "r004_rejoin_when_sniper_listed": "杀手的目标是已在出局名单上的狙击手（例如被烟花）：归队仍然触发。",
    "r004_blocked_shot_uses_bullet": "开了枪就用掉子弹，即使被拥抱、救治或归队挡住。",
    "r004_kidnap_feedback": "反馈第 5 步之后告知被绑架的角色，并与之前所有被绑架的角色编为一组。",
    "r004_default_hostage_order": "绑匪没有指定撕票顺序时：按绑架先后，或相反的顺序。",
    "r004_last_words_with_code": "遗言中含有 Discuz! 代码：原样拒收（告知该角色，截止前可重新提交，否则视为放弃），或去掉代码后发布。",
    "r004_preset21_missing_role": "21 人预设只列了 20 个角色：补一名市长（并提示），或补第 11 名平民。",
    "r004_cond1_numerator": "杀手胜利条件 1 计算所有存活的杀手阵营角色（含恐怖分子和不计入的特工），或只计算计入的角色。",
    "r004_stop_when_won": "一方获胜后就不再往下执行出局名单（其余的人留在场上）。",
    "r004_surrender_requires": "投降需要谁同意：杀手组（杀手加归队的狙击手，含已出局者），或全部杀手阵营角色。",
    "r004_fireworks_may_target_self": "恐怖分子可以把自己选为烟花的目标。",
    "r004_daystart_includes_day_eliminations": "白天开始时的名单包括前一天投票和红牌出局的角色，然后是当夜的。",
    "r004_spy_counted": "特工是否计入轮次（KC）。空：由预设决定（19 人和 23 人预设中不计入）。",
    "r004_doctor_or_butterfly": "“医生/花蝴蝶”是导演选定的一个角色：医生或花蝴蝶。",
    # ---- readings that are not switches
    "(fixed) possession after the ghost dies": "先结算杀人；在杀人这一步死亡的鬼（被杀者或生死状对象）不再附体。",
    "(fixed) drowned voters": "本轮淹死玩家的票作废，不分散、不参加重投；他们仍可被投，也可以是并列候选人。",
    "(fixed) zero valid votes (R001)": "没有人被处决，也不重投；投票违规照常记。",
    "(game file) police last words": "查验结果和案情帖等待被处决警察的遗言，最晚等到下一夜的截止（[[days]] night_deadline）；"
    "法官工作台读取他在结算后于[讨论]帖的第一条发言。",
    "(game file) R004 sizes 24–35": "data/rulesets/r004.toml 的 [growth]；少于 18 人或多于 35 人不受理。",
    "(game file) acceleration": '[[days]] accelerated = true | "moment" 和 close = "..."（导演自己的加速和截止优先）；'
    "否则由申请帖（[[days]] process = 帖子号）中的申请决定。",
    "(game file) R004 closing time": "[timetable] vote_close（R004 为 21:00，R001 为 13:00），或某一天自己的截止。",
    "(fixed) zero valid votes (R004)": "一张有效票也没有：无人出局。",
    "(fixed) 威权 holder's tie vote": "威权持有者最后一张有效票决定平票；没有投票、投了无效票或弃权 ⇒ 无人出局。",
}


def meaning(name: str, english: str, lang: str) -> str:
    """The flag's meaning in the judge's language: Chinese from the table, English as the engine has it."""
    if lang == "en":
        return english
    return MEANING_ZH.get(name, english)


def value_text(value: object, lang: str) -> str:
    """A flag's value as a judge reads it: 是/否 for a switch, 空 for None, lists joined; the value as it
    is written in the game file in English."""
    if lang == "en":
        return repr(value)
    if value is True:
        return "是（true）"
    if value is False:
        return "否（false）"
    if value is None:
        return "空"
    if isinstance(value, list | tuple):
        return "、".join(str(v) for v in value)
    return str(value)
