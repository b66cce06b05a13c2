"""A corpus of night messages as players write them, with the verdict a careful judge gives (issue 19).

Each entry is ``(text, expected)``. ``expected`` is either:

- the formal submissions the message makes, ``"kind:target"`` joined by ``"; "`` (``kind:-`` for an
  explicit nothing: 空刀, 不附体, 放弃守护, 放弃行动), in any order: the reader must take exactly these,
  firm, and nothing it doubts;
- ``"chatter"``: talk, jokes, analysis, reports: the reader must take no submission from it;
- ``"doubt"``: a question or a proposal (要不要杀X？): the judge must be asked, nothing taken.

The wording comes from the seeds (杀人名单、生死状、附体、线文、验人、守护; R004's 狙击、烟花、绑架、撕票、
救治、拥抱、暗杀、丘比特之箭、威权、放弃行动) and the habits of forum group threads: agreement (同意/行/好),
corrections (改：/改刀/更正), context before the decision (我看了下…今晚杀X), several actions in one line,
particles, full-width punctuation, @names, emoji-free typing mistakes. Names are the example games'
rosters. The templated part at the end multiplies the hand-written forms over names, so the corpus is
large enough to measure shares; the hand-written part holds the hard cases.
"""

from __future__ import annotations

R001_ROSTER = ("饺子", "包子", "馄饨", "烧卖", "汤圆", "油条", "春卷", "粽子", "月饼", "麻花", "煎饼", "锅贴")
R004_ROSTER = (
    "豆浆", "油饼", "烧饼", "米线", "凉皮", "肉夹馍", "煎包", "酸奶", "炒面",
    "卤蛋", "豆花", "麻团", "锅盔", "烤串", "鸡翅", "汤包", "春饼", "酥饼",
)  # fmt: skip

R001_HAND: list[tuple[str, str]] = [
    # --- kills, the usual forms
    ("杀人名单：烧卖", "kill:烧卖"),
    ("杀：烧卖", "kill:烧卖"),
    ("今晚杀烧卖", "kill:烧卖"),
    ("今晚刀烧卖。", "kill:烧卖"),
    ("刀 烧卖", "kill:烧卖"),
    ("今晚的杀人对象：馄饨", "kill:馄饨"),
    ("杀人：@春卷", "kill:春卷"),
    ("确认杀锅贴", "kill:锅贴"),
    ("最终决定：杀月饼", "kill:月饼"),
    ("那就杀包子吧", "kill:包子"),
    ("就刀油条了", "kill:油条"),
    ("今晚空刀", "kill:-"),
    ("今晚平安夜", "kill:-"),
    ("空刀吧", "kill:-"),
    ("我们今晚不杀人", "kill:-"),
    # --- kill with pledge, possession, kill text
    ("杀：烧卖\n生死状：月饼", "kill:烧卖; pledge:月饼"),
    ("杀人名单：馄饨\n生死状：粽子\n附体：汤圆", "kill:馄饨; pledge:粽子; possess:汤圆"),
    ("今晚杀饺子，我附体汤圆。", "kill:饺子; possess:汤圆"),
    ("今晚杀饺子，附体汤圆，生死状月饼", "kill:饺子; possess:汤圆; pledge:月饼"),
    ("杀春卷，如果我们错杀毒药，麻花与毒药同死", "kill:春卷; pledge:麻花"),
    ("杀人：锅贴\n线文：月黑风高，锅贴被人发现倒在厨房。", "kill:锅贴; kill_text:-"),
    ("附体：油条", "possess:油条"),
    ("今晚不附体", "possess:-"),
    ("今晚附身煎饼", "possess:煎饼"),
    ("生死状：包子", "pledge:包子"),
    ("生死状 包子", "pledge:包子"),
    ("杀烧卖，生死状月饼，不附体", "kill:烧卖; pledge:月饼; possess:-"),
    # --- agreement, corrections and context (issue 19)
    ("行，改：今晚杀烧卖。刚才那个不算", "kill:烧卖"),
    ("行，改：今晚杀烧卖。", "kill:烧卖"),
    ("好，那就杀春卷", "kill:春卷"),
    ("同意，杀春卷", "kill:春卷"),
    ("同意春卷，今晚杀春卷", "kill:春卷"),
    ("可以，就刀月饼", "kill:月饼"),
    ("嗯，今晚杀锅贴吧", "kill:锅贴"),
    ("OK 杀麻花", "kill:麻花"),
    ("改刀馄饨", "kill:馄饨"),
    ("改刀：馄饨", "kill:馄饨"),
    ("更正：杀人名单 煎饼", "kill:煎饼"),
    ("修改一下，今晚杀煎饼", "kill:煎饼"),
    ("改杀馄饨！生死状不变。", "kill:馄饨"),
    ("改杀馄饨，生死状不变，附体不变", "kill:馄饨"),
    ("改刀锅贴，生死状还是月饼", "kill:锅贴; pledge:月饼"),
    ("我看了一下白天的发言，烧卖像警察。今晚杀烧卖。", "kill:烧卖"),
    ("烧卖太跳了，今晚杀烧卖", "kill:烧卖"),
    ("[quote]粽子 发表于 16:10\n杀包子吧[/quote]\n同意，杀包子", "kill:包子"),
    ("[quote]要不要杀油条？[/quote]\n不，今晚杀汤圆", "kill:汤圆"),
    # --- the police
    ("验：烧卖", "check:烧卖"),
    ("验人：锅贴", "check:锅贴"),
    ("今晚验锅贴", "check:锅贴"),
    ("同意春卷，今晚验锅贴。", "check:锅贴"),
    ("查验 月饼", "check:月饼"),
    ("我们验麻花", "check:麻花"),
    ("好的，那就验馄饨", "check:馄饨"),
    ("改验：油条", "check:油条"),
    ("行，验包子", "check:包子"),
    ("今晚查煎饼", "check:煎饼"),
    # --- the guardians
    ("守护：饺子", "protect:饺子"),
    ("今晚守护包子", "protect:包子"),
    ("保护 月饼", "protect:月饼"),
    ("今晚放弃守护", "protect:-"),
    ("守：锅贴", "protect:锅贴"),
    # --- questions and proposals: the judge is asked
    ("要不要杀烧卖？", "doubt"),
    ("要不要改杀锅贴？", "doubt"),
    ("今晚杀烧卖吗？", "doubt"),
    ("杀烧卖还是杀包子？", "doubt"),
    ("验月饼怎么样？", "doubt"),
    ("附体汤圆好不好", "doubt"),
    ("我觉得可以杀烧卖", "doubt"),
    ("或许可以验一下春卷", "doubt"),
    ("大家觉得杀麻花如何", "doubt"),
    ("守护饺子是不是比较稳？", "doubt"),
    # --- chatter
    ("大家好，今晚怎么说", "chatter"),
    ("我是杀手，这局稳了", "chatter"),
    ("别杀烧卖，他是平民", "chatter"),
    ("不要验月饼，浪费", "chatter"),
    ("昨天锅贴被杀了，好可惜", "chatter"),
    ("烧卖被刀了吗", "chatter"),
    ("我投了包子一票", "chatter"),
    ("验证码又错了，气死", "chatter"),
    ("哈哈哈哈", "chatter"),
    ("明天白天我会多发言", "chatter"),
    ("法官辛苦了", "chatter"),
    ("收到", "chatter"),
    ("谁杀的锅贴？", "chatter"),
    ("错杀了毒药就麻烦了", "chatter"),
    ("这局杀手好强", "chatter"),
    ("警察今晚会验谁呢", "chatter"),
    ("抱歉，刚才掉线了", "chatter"),
    ("我先睡了，你们定", "chatter"),
    ("杀手别乱来啊", "chatter"),
    ("[quote]杀：烧卖[/quote]\n这个我没意见", "chatter"),
    ("自杀是不允许的吧", "chatter"),
    ("今晚能不能守护自己", "doubt"),
    ("被验出来就完了", "chatter"),
    ("明天记得投票", "chatter"),
    ("别刀我啊", "chatter"),
    ("刀客这个名字挺酷", "chatter"),
]

R004_HAND: list[tuple[str, str]] = [
    ("杀：豆浆", "kill:豆浆"),
    ("今晚杀油饼", "kill:油饼"),
    ("杀人对象：烧饼", "kill:烧饼"),
    ("同意，杀米线", "kill:米线"),
    ("行，改：今晚杀凉皮。", "kill:凉皮"),
    ("今晚空刀", "kill:-"),
    ("验：肉夹馍", "check:肉夹馍"),
    ("今晚验煎包", "check:煎包"),
    ("同意酸奶，今晚验炒面。", "check:炒面"),
    ("狙击：卤蛋", "snipe:卤蛋"),
    ("今晚狙豆花", "snipe:豆花"),
    ("烟花：麻团", "fireworks:麻团"),
    ("放烟花 锅盔", "fireworks:锅盔"),
    ("潜伏：烤串", "spy:烤串"),
    ("绑架：鸡翅", "kidnap:鸡翅"),
    ("今晚绑汤包", "kidnap:汤包"),
    ("撕票", "kill_hostages:*"),
    ("撕票：鸡翅 汤包", "kill_hostages:鸡翅,汤包"),
    ("救治：春饼", "heal:春饼"),
    ("今晚救酥饼", "heal:酥饼"),
    ("拥抱：豆浆", "hug:豆浆"),
    ("今晚抱油饼", "hug:油饼"),
    ("暗杀：烧饼", "assassinate:烧饼"),
    ("丘比特之箭：米线 凉皮", "arrow:米线,凉皮"),
    ("情侣：肉夹馍、煎包", "arrow:肉夹馍,煎包"),
    ("威权给：酸奶", "authority:酸奶"),
    ("威权交给：酸奶", "authority:酸奶"),
    ("移交威权 炒面", "authority:炒面"),
    ("放弃行动", "skip:-"),
    ("今晚放弃技能", "skip:-"),
    ("空过", "skip:-"),
    ("改刀豆花", "kill:豆花"),
    ("更正：救治 麻团", "heal:麻团"),
    ("好的，今晚救锅盔", "heal:锅盔"),
    ("嗯，狙烤串吧", "snipe:烤串"),
    ("我看了一下，鸡翅像警察，今晚杀鸡翅", "kill:鸡翅"),
    ("[quote]杀豆浆？[/quote]\n可以，杀豆浆", "kill:豆浆"),
    ("杀卤蛋，警戒不用管", "kill:卤蛋"),
    # doubts
    ("要不要狙豆浆？", "doubt"),
    ("今晚杀油饼吗？", "doubt"),
    ("救烧饼还是救米线？", "doubt"),
    ("我觉得可以抱凉皮", "doubt"),
    ("放烟花给肉夹馍怎么样", "doubt"),
    ("绑煎包好不好", "doubt"),
    ("威权给谁比较好？", "chatter"),
    ("撕票要不要先等等", "doubt"),
    # chatter
    ("导演好", "chatter"),
    ("我是医生，放心", "chatter"),
    ("别杀酸奶", "chatter"),
    ("不要狙炒面", "chatter"),
    ("昨晚卤蛋被狙了", "chatter"),
    ("抱歉回复晚了", "chatter"),
    ("这个烟花效果太好了", "chatter"),
    ("救命啊，又要加班", "chatter"),
    ("被绑了怎么办", "chatter"),
    ("验证码真难认", "chatter"),
    ("谁杀的豆花？", "chatter"),
    ("明天投票见", "chatter"),
    ("拥抱一下大家", "chatter"),
    ("情侣好甜", "chatter"),
    ("杀手阵营加油", "chatter"),
    ("查一下规则再说", "chatter"),
    ("收到", "chatter"),
    ("哈哈", "chatter"),
    ("[quote]狙击：卤蛋[/quote]\n看到了", "chatter"),
    ("暗杀者是谁呢", "chatter"),
]


def _expand(
    hand: list[tuple[str, str]], forms: list[tuple[str, str]], names: tuple[str, ...], size: int
) -> list[tuple[str, str]]:
    """The hand-written messages, then each ``{x}``/``{y}`` form with the roster's names in turn
    (x ≠ y), up to ``size`` messages, no text twice."""
    out = list(hand)
    seen = {t for t, _e in hand}
    i = 0
    while len(out) < size:
        if i > 100 * size:
            raise ValueError("too few forms and names for a corpus of this size")
        text, expected = forms[i % len(forms)]
        k = i + i // len(forms)  # each round over the forms starts one name further
        x, y = names[k % len(names)], names[(k + 3) % len(names)]
        i += 1
        if text.format(x=x, y=y) not in seen:
            seen.add(text.format(x=x, y=y))
            out.append((text.format(x=x, y=y), expected.format(x=x, y=y)))
    return out


_R001_FORMS = [
    ("今晚杀{x}", "kill:{x}"),
    ("杀人名单：{x}\n生死状：{y}", "kill:{x}; pledge:{y}"),
    ("同意，今晚刀{x}", "kill:{x}"),
    ("行，改：杀{x}", "kill:{x}"),
    ("验人：{x}", "check:{x}"),
    ("同意{y}，今晚验{x}", "check:{x}"),
    ("今晚杀{x}，我附体{y}", "kill:{x}; possess:{y}"),
    ("要不要杀{x}？", "doubt"),
    ("别杀{x}", "chatter"),
    ("{x}今天发言很好", "chatter"),
    ("守护：{x}", "protect:{x}"),
    ("{x}被刀了吗", "chatter"),
    ("好，那就刀{x}吧", "kill:{x}"),
    ("改刀{x}，生死状不变", "kill:{x}"),
    ("附体：{x}", "possess:{x}"),
    ("验{x}还是验{y}？", "doubt"),
    ("{x}昨天发言有点怪", "chatter"),
    ("确认：今晚验{x}", "check:{x}"),
]

_R004_FORMS = [
    ("今晚杀{x}", "kill:{x}"),
    ("验：{x}", "check:{x}"),
    ("狙击：{x}", "snipe:{x}"),
    ("救治：{x}", "heal:{x}"),
    ("同意，今晚抱{x}", "hug:{x}"),
    ("丘比特之箭：{x} {y}", "arrow:{x},{y}"),
    ("要不要狙{x}？", "doubt"),
    ("别救{x}", "chatter"),
    ("{x}是好人吧", "chatter"),
    ("威权给：{x}", "authority:{x}"),
    ("绑架：{x}", "kidnap:{x}"),
    ("{x}被狙了", "chatter"),
]

R001 = _expand(R001_HAND, _R001_FORMS, R001_ROSTER, 240)
R004 = _expand(R004_HAND, _R004_FORMS, R004_ROSTER, 220)
