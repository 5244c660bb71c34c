"""Synthetic CCDB-format matches for the token-cost benchmark (not real debates, never used as data).

:func:`synthetic_ccdb_view` repeats the 4v4 stage order (``formats.CCDB_4V4.order``, 14 stages)
``repeats`` times, so the stage count grows 14, 28, 42, ... while every stage keeps a realistic
length. Per-stage lengths in Chinese characters follow the CCDB corpus scale (paper 2.2: about three
million characters over 148 matches, i.e. roughly 20,000 a match, ~1,450 a stage):

- monologue stages (constructive speeches, summaries, closing speeches): ~1,500 characters;
- questioning ~1,200 and cross-examination ~1,300, as short question / answer turns;
- head-to-head exchange ~1,400 in alternating turns; free debate ~3,000 in alternating turns
  spread over all eight debaters.

One repeat is ~21,400 characters. The text is stitched deterministically (seeded) from a small pool
of sentences written for this benchmark on one motion, so token counts are those of ordinary
Chinese prose, not of random characters. The result is a :class:`~adjudicator.input.match.MatchView`
(the label-free view every prompt is built from); a repeated order is not a valid ``ccdb-4v4``
*match file* (which must follow the order exactly once), which is why no :class:`Match` is built.
"""

from __future__ import annotations

import random

from adjudicator.input.formats import CCDB_4V4, INTERACTION, position_label
from adjudicator.input.match import MatchView

MOTION = "大学生在校期间做兼职利大于弊"
AFFIRMATIVE_POSITION = "大学生在校期间做兼职利大于弊"
NEGATIVE_POSITION = "大学生在校期间做兼职弊大于利"

#: Target characters per stage type (see module docstring).
STAGE_CHARS: dict[str, int] = {
    "constructive": 1500,
    "supplementary": 1500,
    "summary": 1500,
    "closing": 1500,
    "questioning": 1200,
    "cross_examination": 1300,
    "head_to_head": 1400,
    "free_debate": 3000,
}

_STATEMENTS = [
    "我方认为，判断兼职利弊的标准，在于它是否帮助大学生更好地完成从校园走向社会的过渡。",
    "兼职让同学们提前接触真实的工作环境，学会守时、沟通和承担责任，这些是课堂上很难获得的能力。",
    "对方辩友一直强调兼职会挤占学习时间，但大学的课余时间本来就很多，关键在于如何安排。",
    "根据一项针对在校生的调查，超过六成做过兼职的同学表示，兼职让他们对未来的职业方向更加清晰。",
    "经济独立带来的不仅是收入，更是一种自信，一种对自己的生活负责的态度。",
    "我们并不否认有些兼职质量不高，但不能因为存在问题就否定兼职本身的价值。",
    "对方把个别极端案例当成普遍现象，这种论证方式是以偏概全。",
    "大学的首要任务是学习，这一点双方都不会否认，分歧在于兼职是否真的妨碍了学习。",
    "我方的第二个论点是，兼职能够帮助家庭困难的同学减轻经济压力，让他们安心完成学业。",
    "请大家注意，今天的辩题讨论的是利弊的比较，而不是兼职有没有任何坏处。",
    "很多兼职岗位重复性强、技术含量低，学生在其中得到的成长非常有限。",
    "时间是大学生最宝贵的资源，把时间花在发传单、做服务员上，机会成本太高了。",
    "对方所说的社会经验，完全可以通过实习、社团和志愿活动获得，而且这些途径更加系统。",
    "我方的标准很清楚：什么更有利于大学生长远的发展，什么就是利大于弊。",
    "兼职市场鱼龙混杂，学生缺乏维权意识，很容易遭遇克扣工资甚至诈骗。",
    "过早地把注意力放在赚钱上，会让一些同学忽视了专业能力的积累。",
    "对方辩友今天始终没有回应我方的问题：如果兼职影响了学业，谁来为这个后果负责？",
    "我们看到，在这场比赛中，双方真正的交锋点在于兼职带来的成长是否能够替代学习带来的成长。",
    "对方的论证建立在一个假设之上，那就是每个学生都能平衡好兼职和学习，可现实并非如此。",
    "我方已经论证，兼职带来的能力和视野，会在毕业后的求职中转化为实实在在的竞争力。",
    "所谓利大于弊，不是说没有弊，而是说在合理的范围内，它的好处超过了它的代价。",
    "如果按照对方的逻辑，那么一切会占用时间的课外活动都应该被否定，这显然是荒谬的。",
    "我们要比较的，是兼职在一般情况下对一般大学生的影响，而不是只看最好或最坏的情况。",
    "对方今天提出的数据只能说明兼职的同学成绩略低，却不能说明是兼职导致了成绩下降。",
    "因果关系可能恰恰相反，本来就对学习不太投入的同学，更有可能把时间用在兼职上。",
    "综上所述，兼职在培养能力、减轻负担和明确方向三个方面的价值，远远超过了它的代价。",
    "在自由辩论中，对方始终回避了机会成本的问题，这正是本场比赛的关键。",
    "最后，我想请各位评委思考，一个从未接触过社会的毕业生，真的准备好面对就业了吗？",
    "我方从第一个环节开始就提出，兼职应当在不影响学业的前提下进行，这个前提对方始终没有推翻。",
    "对方辩友混淆了两个概念，一个是兼职本身，一个是过度兼职，我们今天讨论的是前者。",
]
_QUESTIONS = [
    "请问对方辩友，您方认为判断利弊的标准是什么？",
    "如果一个同学因为兼职挂科了，这算利还是算弊？",
    "您方说兼职能积累经验，那发传单积累的是什么经验？",
    "请问实习和兼职的区别在哪里？",
    "您方是否承认，时间花在兼职上，就不能花在学习上？",
    "您方的数据来自哪里？样本有多大？",
    "如果兼职的收入只够买一部手机，这还算减轻家庭负担吗？",
    "请问您方如何保证学生在兼职中不被欺骗？",
    "您方是不是认为，所有的课外活动都会影响学习？",
    "那您方承不承认，有些同学确实需要靠兼职来完成学业？",
    "按照您方的标准，参加社团是不是也弊大于利？",
    "请问您方说的成长，能不能具体举一个例子？",
]
_ANSWERS = [
    "我方的标准是是否有利于大学生的长远发展。",
    "这是个别情况，不能代表一般。",
    "积累的是和人打交道的能力，以及对工作的基本认识。",
    "实习和兼职在很多情况下是重叠的，很多实习本身就是兼职。",
    "时间当然有限，但关键在于合理安排，而不是一刀切。",
    "数据来自公开发表的调查，我方稍后可以提供。",
    "收入的多少不是唯一的衡量，经济独立的意识同样重要。",
    "学校和社会都有相应的保障机制，这不是兼职本身的问题。",
    "不是，我方说的是机会成本过高的活动。",
    "我方承认这种情况存在，但这恰恰说明问题出在经济保障，而不是兼职本身。",
    "社团和兼职的性质不同，社团是以成长为目的的。",
    "比如沟通能力、时间管理能力，这些都是在真实工作中锻炼出来的。",
]


def _fill(rng: random.Random, pool: list[str], chars: int) -> str:
    out = ""
    while len(out) < chars:
        out += rng.choice(pool)
    return out


def _stage(rng: random.Random, slot, stage_id: str, name: str) -> dict:
    kind = slot.type
    target = STAGE_CHARS[kind]
    inter = INTERACTION[kind]
    utterances: list[dict] = []
    if inter == "monologue":
        side = slot.sides[0]
        speaker = slot.speakers[0]
        per = 300
        while sum(len(u["text"]) for u in utterances) < target:
            utterances.append({"speaker": speaker, "side": side, "text": _fill(rng, _STATEMENTS, per)})
        roles = None
    elif inter == "asymmetric":
        questioner = slot.questioner
        respondent = "negative" if questioner == "affirmative" else "affirmative"
        q_speaker = slot.speakers[0]
        # cross-examination may address any opposing debater; questioning addresses the named one
        r_speakers = [slot.speakers[1]] if len(slot.speakers) > 1 else [position_label(respondent, i) for i in (1, 2, 4)]
        k = 0
        while sum(len(u["text"]) for u in utterances) < target:
            utterances.append({"speaker": q_speaker, "side": questioner, "text": _fill(rng, _QUESTIONS, 30)})
            utterances.append({"speaker": r_speakers[k % len(r_speakers)], "side": respondent, "text": _fill(rng, _ANSWERS, 35)})
            k += 1
        roles = {questioner: "questioner", respondent: "respondent"}
    else:
        if slot.speakers:
            speakers = [(s, s.split()[0].lower()) for s in slot.speakers]
        else:
            speakers = [(position_label(side, i), side) for i in range(1, 5) for side in ("affirmative", "negative")]
            speakers = [x for pair in zip(speakers[0::2], speakers[1::2]) for x in pair]
        k = 0
        per = 120 if kind == "head_to_head" else 90
        while sum(len(u["text"]) for u in utterances) < target:
            aff = [s for s in speakers if s[1] == "affirmative"]
            neg = [s for s in speakers if s[1] == "negative"]
            for group in (aff, neg):
                sp, side = group[k % len(group)]
                pool = _STATEMENTS + _QUESTIONS
                utterances.append({"speaker": sp, "side": side, "text": _fill(rng, pool, per)})
            k += 1
        roles = None
    stage = {"stage_id": stage_id, "name": name, "type": kind, "sides": list(slot.sides), "speakers": list(slot.speakers), "utterances": utterances}
    if roles:
        stage["roles"] = roles
    return stage


def synthetic_ccdb_view(repeats: int = 1, seed: int = 0) -> MatchView:
    """A ``ccdb-4v4`` MatchView whose stage order is the 4v4 order repeated ``repeats`` times
    (14 x ``repeats`` stages, ~21,400 x ``repeats`` Chinese characters). Deterministic in ``seed``.
    Raises ValueError for ``repeats`` < 1."""
    return MatchView.model_validate(synthetic_ccdb_data(repeats, seed))


def synthetic_ccdb_data(repeats: int = 1, seed: int = 0) -> dict:
    """The match data (a match file's fields, no labels) of :func:`synthetic_ccdb_view`."""
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    rng = random.Random(seed)
    stages = []
    for r in range(repeats):
        for i, slot in enumerate(CCDB_4V4.order):
            suffix = "" if repeats == 1 else f"（第{r + 1}轮）"
            stages.append(_stage(rng, slot, f"r{r + 1}s{i + 1:02d}", slot.name_zh + suffix))
    debaters = [{"side": side, "position": i} for side in ("affirmative", "negative") for i in range(1, 5)]
    return {
            "match_id": f"synthetic-ccdb-4v4-x{repeats}",
            "format": "ccdb-4v4",
            "language": "zh",
            "motion": MOTION,
            "affirmative_position": AFFIRMATIVE_POSITION,
            "negative_position": NEGATIVE_POSITION,
            "debaters": debaters,
            "stages": stages,
    }
