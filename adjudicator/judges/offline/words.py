"""Every word the offline judge writes, in English and Chinese: the notes of its clash moves, its stage
summaries and rationales, its ballots' reasons (:mod:`adjudicator.judges.offline.reasons`), its
ranking and pairwise reasons. A match is written about in its own language (``zh`` for the ccdb
formats); names of sides, stage types and rubric levels come from the shared label table
(:mod:`adjudicator.verdict.labels`), stage names from the match. The offline judge is not a model:
none of this is read by one (prompts live in ``prompts/``). The feedback per debater
(:mod:`adjudicator.judges.offline.feedback`) says its sentences from here too (``feedback.*``); the
headings a report puts over any judge's feedback are the report's (``read.feedback.*`` in
:mod:`adjudicator.verdict.gate_words`).

Clash titles inside a ballot's reasons are in single quotes (‘…’): reports quote a reasoning whole in
double ones. A count is written with its noun (``n.<noun>``: English ``singular|plural``, Chinese one form), so a
sentence never says "1 questions" or "(s)".
"""

from __future__ import annotations

from adjudicator.input.rubric import LEVEL_TEXT
from adjudicator.verdict.labels import labels, stage_name

EN: dict[str, str] = {
    # counted nouns
    "n.statement": "{n} statement|{n} statements", "n.question": "{n} question|{n} questions",
    "n.question_turn": "{n} turn of questions|{n} turns of questions",
    "n.rebuttal": "{n} rebuttal|{n} rebuttals", "n.evidence": "{n} piece of evidence|{n} pieces of evidence",
    "n.concession": "{n} sentence granting the point|{n} sentences granting the point",
    "n.stage": "{n} stage|{n} stages", "n.move": "{n} counted move|{n} counted moves",
    "n.term": "{n} content term|{n} content terms",
    # the history note of a clash move (what the move did)
    "note.opened": "raised here for the first time",
    "note.work": "{work} on it",
    "note.with": "{work}, with {extra}",
    "note.advanced_only": "{work}: the only side that argued it with statements of its own here",
    "note.advanced_more": "{work}: clearly more than the {other} ({theirs})",
    "note.advanced_alone": "{work}: the {other} did not take it up here",
    "note.advanced_solo": "argued it: {work}",
    "note.contested_solo": "touched on it only: {work}",
    "note.contested": "{work}; neither side pulled clearly ahead",
    "note.contested_behind": "{work}; the {other} carried it here",
    "note.asked_only": "only asked about it ({questions}), without arguing it",
    "note.conceded": "gave ground: {concessions}, against {rebuttals}",
    "none.rebuttal": "no rebuttal",
    # the stage summary
    "summary.scores": "{stage}: the tracker suggests {scores}",
    "summary.score": "{side} {score}",
    "summary.opened": "opened {clashes}",
    "summary.clash": "{id} “{title}”",
    "summary.advanced": "the {side} advanced {ids}",
    "summary.conceded": "the {side} gave ground on {ids}",
    # a side's rationale in a stage
    "why.forfeit": "No real speech (a forfeit or a few words)",
    "why.length": "A speech of {terms}: it {what}.",
    "why.engage.high": "takes up most of the other side's recent points", "why.engage.mid": "takes up some of the other side's recent points",
    "why.engage.low": "hardly takes up the other side's recent points",
    "why.topic.high": "stays on the motion", "why.topic.mid": "touches the motion's terms", "why.topic.low": "rarely uses the motion's terms",
    "why.novel.high": "brings mostly new material", "why.novel.low": "mostly repeats its earlier material",
    "why.synth.high": "returns to most open clashes", "why.synth.mid": "returns to some open clashes", "why.synth.low": "returns to few open clashes",
    "why.weigh": "weighs the clashes against each other", "why.no_weigh": "does not weigh the clashes",
    "why.asks": "asks {questions}", "why.answers": "answers {answered} of the {asked} put to it",
    "why.rebut.high": "rebuts often", "why.rebut.mid": "rebuts at times", "why.rebut.low": "does not rebut",
    "why.evidence": "cites evidence", "why.no_evidence": "cites no evidence",
    "why.concedes": "concedes {concessions}",
    "why.prior": "The structural prior of its role ({role}) adds {prior:+.2f} to each rubric measure (on a 0-1 scale).",
    # a ballot's reasons
    "focus.task": "how well each stage did its job", "focus.battlefield": "which clashes each side chose and won",
    "focus.advancement": "how far each side moved its clashes, later stages counting more",
    "margin.hair": "by a hair", "margin.narrow": "narrowly", "margin.clear": "clearly", "margin.wide": "decisively",
    "reason.call": "Weighing {focus}, this ballot gives the debate to the {winner} {margin} (p = {p}): its stages come out at {mine} against {theirs}",
    "reason.call_by_clashes": "Weighing {focus}, this ballot gives the debate to the {winner} {margin} (p = {p}): its stages come out lower, {mine} against {theirs}, but the clash moves go its way",
    "reason.lean_with": ", and the clash moves lean its way too.",
    "reason.lean_against": ", though the clash moves lean to the {loser}.",
    "reason.lean_none": ".",
    "reason.best": "Its strongest stage was {stage} ({score}).",
    "reason.best_clash": "Its strongest stage was {stage} ({score}), where it {move} ‘{title}’.",
    "reason.worst": "The {loser}'s weakest was {stage} ({score}).",
    "reason.answers": "In {stage} the {side} answered {answered} of the {other}'s {asked}.",
    "reason.won_clash": "‘{title}’ went the {side}'s way ({k} of {moves}).",
    "reason.dropped": "The {side} never came back to ‘{title}’ after {stage}, while the {other} pressed it in {later}.",
    "reason.untouched": "The {side} never took up ‘{title}’, which the {other} raised in {stage}.",
    "reason.late": "In {stage}, late in the debate, the {side} {move} ‘{title}’.",
    "move.opened": "raised", "move.advanced": "pushed forward", "move.defended": "held",
    "move.conceded": "gave ground on", "move.contested": "disputed",
    # the feedback per debater (adjudicator/judges/offline/feedback.py)
    "feedback.worked_clash": "{stage} was your strongest stage: there you {move} the clash “{title}”.",
    "feedback.worked": "{stage} was your strongest stage (the tracker's rating of its task: {level}).",
    "feedback.missed_clash": "after the {other} {move} the clash “{title}” in {at}, your side never came back to it, starting with {stage}.",
    "feedback.missed": "in {stage} your answers did not move the clashes your opponent pressed (the tracker's rating of your advancement: {level}).",
    "feedback.work_on_task_performance": "work on doing the whole job of the {type} (the tracker's rating in {stage}: {level}).",
    "feedback.work_on_battlefield_judgement": "work on fighting on the clashes that decide the motion (the tracker's rating in {stage}: {level}).",
    "feedback.work_on_advancement": "work on moving your clashes forward, not only restating them (the tracker's rating in {stage}: {level}).",
    "feedback.level_rank": "{level}, level {n} of {of} from the top",
    "feedback.work_on_keep": "keep the standard of {stage} in every stage: the tracker rated each of its measures at the top of its scale.",
    # ranking and pairwise ballots
    "reason.ranking": "On team points ({points}) this ballot ranks {order}.",
    "reason.ranking.place": "{house} {ordinal}",
    "ordinal.1": "first", "ordinal.2": "second", "ordinal.3": "third", "ordinal.4": "fourth",
    "reason.ranking.best": "The best speech was {speech} ({score}).",
    "reason.compare": "{a} comes out ahead of {b} on this judge's weighting ({va} against {vb}).",
    "reason.compare_tie": "{a} and {b} come out level on this judge's weighting ({va} against {vb}).",
}

ZH: dict[str, str] = {
    "n.statement": "{n} 句论述", "n.question": "{n} 个提问", "n.question_turn": "{n} 轮提问", "n.rebuttal": "{n} 处反驳", "n.evidence": "{n} 处证据",
    "n.concession": "{n} 句承认对方观点", "n.stage": "{n} 个环节", "n.move": "{n} 次计入的动作", "n.term": "{n} 个内容词",
    "note.opened": "在本环节首次提出",
    "note.work": "{work}",
    "note.with": "{work}，其中 {extra}",
    "note.advanced_only": "{work}：本环节只有己方就此正面论述",
    "note.advanced_more": "{work}：明显多于{other}（{theirs}）",
    "note.advanced_alone": "{work}：{other}在本环节没有接这一点",
    "note.advanced_solo": "正面论述了这一点：{work}",
    "note.contested_solo": "只是略有涉及：{work}",
    "note.contested": "{work}；双方都没有明显占优",
    "note.contested_behind": "{work}；本环节由{other}占上风",
    "note.asked_only": "只就此提问（{questions}），没有正面论述",
    "note.conceded": "让步：{concessions}，{rebuttals}",
    "none.rebuttal": "没有反驳",
    "summary.scores": "{stage}：战场追踪建议{scores}",
    "summary.score": "{side} {score} 分",
    "summary.opened": "开辟争议点 {clashes}",
    "summary.clash": "{id}“{title}”",
    "summary.advanced": "{side}推进了 {ids}",
    "summary.conceded": "{side}在 {ids} 上让步",
    "why.forfeit": "没有实际发言（弃权或只有几个字）",
    "why.length": "发言含 {terms}：{what}。",
    "why.engage.high": "回应了对方近来的大部分要点", "why.engage.mid": "回应了对方近来的部分要点", "why.engage.low": "几乎没有回应对方近来的要点",
    "why.topic.high": "紧扣辩题", "why.topic.mid": "涉及辩题的关键词", "why.topic.low": "很少使用辩题的关键词",
    "why.novel.high": "以新内容为主", "why.novel.low": "多为重复此前的内容",
    "why.synth.high": "回到了大部分未决的争议点", "why.synth.mid": "回到了部分未决的争议点", "why.synth.low": "很少回到未决的争议点",
    "why.weigh": "对争议点作了比较权衡", "why.no_weigh": "没有比较权衡争议点",
    "why.asks": "提出 {questions}", "why.answers": "对方的 {asked} 个提问中回答了 {answered} 个",
    "why.rebut.high": "反驳频繁", "why.rebut.mid": "有一些反驳", "why.rebut.low": "没有反驳",
    "why.evidence": "引用了证据", "why.no_evidence": "没有引用证据",
    "why.concedes": "{concessions}",
    "why.prior": "其角色（{role}）的结构先验使各项评定调整 {prior:+.2f}（0-1 量表）。",
    "focus.task": "各环节任务的完成情况", "focus.battlefield": "双方选择并赢下了哪些争议点", "focus.advancement": "双方把争议点推进了多远（越靠后的环节越重要）",
    "margin.hair": "以毫厘之差", "margin.narrow": "以微弱优势", "margin.clear": "明显", "margin.wide": "决定性地",
    "reason.call": "本票侧重{focus}，判{winner}{margin}胜出（p = {p}）：按本评委的加权，{winner}各环节 {mine} 分，{loser} {theirs} 分",
    "reason.call_by_clashes": "本票侧重{focus}，判{winner}{margin}胜出（p = {p}）：按本评委的加权，{winner}各环节得分较低（{mine} 分对 {theirs} 分），但争议点上的动作有利于{winner}",
    "reason.lean_with": "，争议点上的动作也有利于{winner}。",
    "reason.lean_against": "，尽管争议点上的动作偏向{loser}。",
    "reason.lean_none": "。",
    "reason.best": "{winner}表现最好的环节是{stage}（{score} 分）。",
    "reason.best_clash": "{winner}表现最好的环节是{stage}（{score} 分），在那里{move}了争议点‘{title}’。",
    "reason.worst": "{loser}最弱的环节是{stage}（{score} 分）。",
    "reason.answers": "在{stage}中，{side}回答了{other}的 {asked}中的 {answered} 轮。",
    "reason.won_clash": "争议点‘{title}’向{side}倾斜（{moves}中有 {k} 次有利于{side}）。",
    "reason.dropped": "{side}在{stage}之后再也没有回到争议点‘{title}’，而{other}在{later}继续推进。",
    "reason.untouched": "{side}始终没有接{other}在{stage}提出的争议点‘{title}’。",
    "reason.late": "在靠后的{stage}，{side}{move}了争议点‘{title}’。",
    "move.opened": "提出", "move.advanced": "推进", "move.defended": "守住",
    "move.conceded": "失守", "move.contested": "争夺",
    "feedback.worked_clash": "{stage}是你表现最好的环节：你在那里{move}了争议点“{title}”。",
    "feedback.worked": "{stage}是你表现最好的环节（战场追踪对该环节任务的评定：{level}）。",
    "feedback.missed_clash": "{other}在{at}{move}了争议点“{title}”之后，你方再也没有回应，从{stage}起都没有。",
    "feedback.missed": "在{stage}，你的回应没有推进对方施压的争议点（战场追踪对推进程度的评定：{level}）。",
    "feedback.work_on_task_performance": "需要改进：完整完成{type}的任务（战场追踪对{stage}的评定：{level}）。",
    "feedback.work_on_battlefield_judgement": "需要改进：在真正决定辩题胜负的争议点上作战（战场追踪对{stage}的评定：{level}）。",
    "feedback.work_on_advancement": "需要改进：把争议点向己方推进，而不只是重复立场（战场追踪对{stage}的评定：{level}）。",
    "feedback.level_rank": "{level}，{of}级中自上而下第{n}级",
    "feedback.work_on_keep": "在每个环节保持{stage}的水准：战场追踪对该环节各项的评定都是最高一级。",
    "reason.ranking": "按队伍总分（{points}），本票的排名是{order}。",
    "reason.ranking.place": "{house}第{ordinal}",
    "ordinal.1": "一", "ordinal.2": "二", "ordinal.3": "三", "ordinal.4": "四",
    "reason.ranking.best": "最好的发言是{speech}（{score} 分）。",
    "reason.compare": "按本评委的加权，{a}胜过{b}（{va} 对 {vb}）。",
    "reason.compare_tie": "按本评委的加权，{a}与{b}不相上下（{va} 对 {vb}）。",
}

TABLES = {"en": EN, "zh": ZH}


class Words:
    """The offline judge's words in one language (``"en"`` or ``"zh"``; anything else reads as
    English), with the shared names of sides, stage types and rubric levels."""

    def __init__(self, language: str) -> None:
        self.lang = language if language in TABLES else "en"
        self.table = TABLES[self.lang]
        self.labels = labels(self.lang)

    def t(self, key: str, /, **kw: object) -> str:
        """The sentence or phrase ``key`` with its placeholders filled (KeyError for an unknown key)."""
        return self.table[key].format(**kw)

    def n(self, noun: str, n: int) -> str:
        """``n`` with its noun (``n.<noun>``): ``1 question``, ``3 questions``, ``3 个提问``."""
        forms = self.table[f"n.{noun}"].split("|")
        return (forms[0] if n == 1 or len(forms) == 1 else forms[1]).format(n=n)

    def side(self, side: str | None) -> str:
        return self.labels.get(f"side.{side}", side or "")

    def role(self, role: str) -> str:
        return self.labels.get(f"role.{role}", role)

    def stage(self, name: str) -> str:
        """A stage's name as the match's language says it (the format's Chinese name of a ccdb stage)."""
        return stage_name(name, self.lang)

    def level(self, value: str) -> str:
        return LEVEL_TEXT[value][1 if self.lang == "zh" else 0]

    def join(self, items: list[str]) -> str:
        """``a, b and c`` / ``a、b、c`` (empty items left out)."""
        items = [x for x in items if x]
        if len(items) <= 1 or self.lang == "zh":
            return "、".join(items)
        return ", ".join(items[:-1]) + " and " + items[-1]

    def sentence(self, text: str) -> str:
        """``text`` with its first letter capitalised (English; Chinese as it is)."""
        return text[:1].upper() + text[1:] if self.lang == "en" else text
