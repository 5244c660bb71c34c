"""Words people read, in English and Chinese: the live board, the live HTML verdict report, and the
verdict report of ``adjudicate MATCH --report md|html`` (:mod:`adjudicator.verdict.reading`, keys ``read.*``).

A match's board and reports speak the match's language (``zh`` for the ccdb formats, ``en`` for
online debates). Stage types, rubric measures, clash moves and verdict states have plain names here
instead of the field names of the JSON; "momentum" and the "like-for-like score gap" come with a
sentence that explains them wherever they are shown. The board fetches this table once
(``GET /api/labels``); the report renders from it directly.

Nothing here is read by a model (prompts live in ``prompts/``).
"""

from __future__ import annotations

from adjudicator.input.formats import FORMATS, position_label_zh
from adjudicator.input.rubric import LEVEL_TEXT
from adjudicator.verdict.gate_words import GATE_EN, GATE_ZH
from adjudicator.verdict.offline_note import NOTE_EN, NOTE_ZH

LANGUAGES = ("en", "zh")

_EN: dict[str, str] = {
    # sides, roles, statuses
    "side.affirmative": "affirmative", "side.negative": "negative",
    "side_title.affirmative": "Affirmative", "side_title.negative": "Negative",
    "side_short.affirmative": "AFF", "side_short.negative": "NEG",
    "role.questioner": "asking", "role.respondent": "answering",
    "status.open": "in progress", "status.closing": "judges deliberating", "status.closed": "finished",
    # stage types, in plain words
    "stage_type.constructive": "opening case", "stage_type.supplementary": "supplementary speech",
    "stage_type.questioning": "questioning", "stage_type.cross_examination": "cross-examination",
    "stage_type.summary": "summary", "stage_type.head_to_head": "head-to-head exchange",
    "stage_type.free_debate": "free debate", "stage_type.closing": "closing speech",
    # rubric measures and bands
    "measure.task_performance": "doing the stage's job", "measure.battlefield_judgement": "picking the right clash",
    "measure.advancement": "moving the clash forward",
    "band.perfect": "did the job perfectly (9-10)", "band.well": "did the job well (6-8)",
    "band.approximate": "roughly did the job (4-5)", "band.not_completed": "did not do the job (1-3)",
    # clash moves
    "kind.opened": "raised", "kind.advanced": "pushed forward", "kind.defended": "held",
    "kind.conceded": "gave ground", "kind.contested": "disputed",
    # verdict states
    "state.none": "in progress", "state.draft": "automated draft, not yet confirmed", "state.confirmed": "confirmed, not yet released",
    "state.released": "released", "state.awaiting": "awaiting the result", "state.void": "void",
    # the page
    "page.title": "Live board", "page.footer": "This board is read-only; changes need the organiser's or the room chair's token.",
    "page.all_matches": "All matches", "page.model": "model",
    "page.round": "Round", "page.room": "Room", "page.chair": "Chair", "page.teams": "Teams",
    "conn.connecting": "connecting…", "conn.live": "live", "conn.reconnecting": "reconnecting…", "conn.busy": "server full, retrying soon…", "conn.no_match": "no such match",
    "progress.analysed": "{n} analysed · {received} received", "progress.stage": "stage", "progress.stages": "stages", "progress.of": "of",
    "progress.pending": "analysing {ids}…",
    "verdict.title": "Result: the panel's verdict", "verdict.winner": "Winner: {side}", "verdict.no_winner": "No winner determined",
    "verdict.p": "winner tendency p = {p}", "verdict.split": "panel split {split}",
    "verdict.best": "Best debater: {names} (votes: {votes})", "verdict.none": "none",
    "verdict.report": "Full report", "verdict.json": "verdict JSON",
    "verdict.awaiting": "The judges have finished. The result will appear here once the organiser releases it.",
    "verdict.void": "Void: the organiser voided this room's result, so it counts for nothing until it is reopened.",
    "verdict.draft_banner": "Automated draft: not confirmed by a person yet, so not final.",
    "verdict.confirmed_by": "Confirmed by {name} at {at}.", "verdict.released_at": "Released at {at}.",
    "verdict.overridden": "Changed when confirmed: the automated result had {winner} winning.",
    "verdict.overridden_scores": "Changed when confirmed: some stage scores or best-debater votes differ from the automated result.",
    "verdict.note": "Note: {note}",
    "panel.error": "Panel: {error}",
    "tendency.title": "Provisional tendency", "tendency.superseded_title": "Pre-verdict estimate (not the result)",
    "tendency.note": "An early estimate from the analysis of each stage so far, combining the like-for-like score gap and the clash momentum (both explained below). It is not the result: the judges decide when the match ends.",
    "tendency.superseded_note": "The trackers' provisional estimate as it stood before the panel met. It is not the result: the panel's verdict above is.",
    "tendency.nothing": "Nothing analysed yet.", "tendency.withheld": "Held back until this room's result is released: the analysis would tell which way it went.", "tendency.not_comparable": "Not enough to compare yet: both sides must be scored in a comparable stage.",
    "tendency.leaning": "Leaning", "tendency.leaned": "Trackers leaned",
    "tendency.text": "{label}: {leaning}. Like-for-like score gap {gap} ({groups}), clash momentum {momentum} ({events}).",
    "tendency.group": "comparable stage group", "tendency.groups": "comparable stage groups", "tendency.event": "event", "tendency.events": "events",
    "leaning.affirmative": "affirmative", "leaning.negative": "negative", "leaning.even": "even", "leaning.none yet": "none yet", "leaning.withheld": "held back",
    "explain.gap": "Like-for-like score gap: the trackers' suggested scores (1-10) are compared only between matching stages (opening case with opening case, questioner with questioner), because some kinds of stage score higher by nature. +1.00 means the affirmative scored one point higher on average.",
    "explain.momentum": "Clash momentum: every clash move so far counts for one side (pushing a point forward or holding it counts for that side, giving ground counts for the other). It is the affirmative's share minus the negative's, from -1 (every move went the negative's way) to +1 (every move went the affirmative's way).",
    "latest.title": "Latest stage", "latest.none": "No stage analysed yet.", "latest.no_move": "No clash moved in this stage.",
    "latest.now": "{label} now {p}.", "latest.move": "{label} {before} → {after}.", "latest.label": "Provisional tendency", "latest.label_done": "Pre-verdict estimate",
    "map.title": "Battlefield map",
    "map.help": "Each row is a clash (a point the two sides fought over), with each side's position on it; the columns are the stages, showing who did what to the clash. ✦ raised · ▲ pushed forward · ■ held · ▼ gave ground · ⇄ disputed. The bar under a clash is its momentum.",
    "map.clash": "Clash and positions", "map.none": "No clash recorded yet.",
    "scores.title": "Provisional stage scores", "scores.superseded_title": "Trackers' stage scores (pre-verdict)",
    "scores.help": "The trackers' suggested score (1-10) for each side in each stage, read off the CCDB rubric; hover a score for what it rests on.",
    "scores.stage": "Stage", "scores.type": "Type", "scores.failed": "analysis failed; see the failures",
    "transcript.summary": "Machine transcript ({model}; speakers: {attribution}): {lines} lines, {minutes} of audio",
    "transcript.attribution.speaking_order": "from the speaking order", "transcript.attribution.turns": "from the chair's turn marks",
    "transcript.attribution.unattributed": "not identified", "transcript.unattributed": "speaker not identified",
    "transcript.confidence": "recogniser's confidence {value}",
    "timeline.title": "Turning points",
    "timeline.help": "The stages after which the provisional tendency crossed the halfway mark (0.5), and what moved it.",
    "timeline.none": "No turning point yet: the tendency has not crossed 0.5.",
    "timeline.toward": "swung to the {side}: {before} → {after}", "timeline.by_clash": "moved by the clash “{title}” ({events})",
    "timeline.by_scores": "moved by the stage's scores (like-for-like gap {before} → {after})",
    "push.turns": "Turn marker: a key per turn while an interactive stage is recorded, for `live push --audio --turns`",
    "push.title": "Push the next stage", "push.next": "Next: #{position}{of} {name} ({type}). Fill in the utterances and push.",
    "push.all_in": "All stages of the format are in; close the match to run the panel.", "push.button": "Push stage",
    "push.close": "Close the match and run the panel", "push.confirm_close": "Close the match and run the panel? No more stages can be pushed.",
    "push.close_anyway": "Close it anyway and run the panel on the speeches received?",
    "push.pushing": "pushing…", "push.deliberating": "the panel is deliberating…", "push.closed": "closed: winner {side}",
    "push.already": "already received",
    "confirm.title": "Confirm the verdict",
    "confirm.help": "The panel's result is an automated draft until a person confirms it. Change the winner, a stage score or the best-debater votes if needed; the automated original is kept beside your change, with your name and the time.",
    "confirm.winner": "Winner", "confirm.keep": "as the panel decided ({side})", "confirm.by": "Your name", "confirm.note": "Reason for a change (optional)",
    "confirm.scores": "Stage scores (the panel's mean; edit to override)", "confirm.votes": "Best-debater votes ({total} in all)",
    "confirm.button": "Confirm", "confirm.release": "Release this room's result", "confirm.done": "confirmed (version {version})",
    "confirm.released": "released", "confirm.automated": "Automated original: {side} wins, p = {p}, split {split}.",
    "round.title": "Round overview", "round.help": "Every room of the round at a glance; each room's own board has the detail.",
    "round.room": "Room", "round.teams": "Teams", "round.stages": "Stages analysed", "round.tendency": "Provisional tendency",
    "round.verdict": "Verdict", "round.none": "No room yet.", "round.release": "Release the round's results",
    # the report
    "report.title": "Verdict report", "report.motion": "Motion", "report.format": "Format", "report.positions": "Positions",
    "report.result": "Result", "report.state": "Status", "report.stage_scores": "Scores by stage", "report.stage": "Stage",
    "report.side": "Side", "report.judges": "Judges", "report.mean": "Panel mean", "report.confirmed_score": "Counted score",
    "report.ballots": "The judges' ballots", "report.reasoning": "Reasoning", "report.votes": "Best-debater votes",
    "report.clashes": "Clash map", "report.position_aff": "Affirmative position", "report.position_neg": "Negative position",
    "report.momentum": "Momentum", "report.moves": "Moves", "report.provenance": "How this verdict was made",
    "report.model": "Model", "report.calls": "Model calls", "report.tokens": "Tokens", "report.cost": "Cost", "report.failures": "Failures",
    "report.automated": "Automated result", "report.confirmed": "Counted result", "report.changed": "changed",
    "report.generated": "Generated by adjudicator {version}.",
    # the verdict report (adjudicate MATCH --report md|html): adjudicator/verdict/reading.py
    "read.title": "Verdict", "read.motion": "Motion", "read.format": "Format", "read.method": "Method",
    "read.method.agentic": "a three-judge panel reading a clash-by-clash analysis of every stage",
    "read.method.single-call": "the CCDB single-call protocol (one model request per task)",
    "read.positions": "Positions", "read.debaters": "Debaters", "read.team": "team {team}",
    "read.result": "Result", "read.winner": "Winner: the {side}.", "read.no_winner": "No winner could be determined.",
    "read.tendency": "Winner tendency p = {p}: above 0.5 favours the affirmative, below it the negative; the further from 0.5, the clearer the win.",
    "read.best": "Best debater: {names} ({votes} of {total} votes).", "read.votes": "All best-debater votes: {votes}.",
    "read.reason": "Reason for decision",
    "read.reason.opening": "The panel gave the win to the {side} ({split}).",
    "read.reason.opening_single": "The model gave the win to the {side}.",
    "read.reason.opening_none": "The panel reached no decision.",
    "read.reason.judge": "{judge} ({perspective}) voted for the {side}, p = {p}",
    "read.reason.said": "{who}: “{reasoning}”", "read.reason.silent": "{who}; no reasoning was given.",
    "read.reason.best_clash": "The clash that went most clearly the {side}'s way: “{title}” (momentum {momentum} over {n} counted moves).",
    "read.reason.scores": "Panel mean stage score: {scores} (1-10, over the stages each was scored in).",
    "read.reason.score_item": "the {side} {mean} ({n} stages)",
    "read.reason.no_ballots": "The single-call protocol gives no reasons; each task's answer is in the verdict file.",
    "read.reason.no_valid_ballot": "No judge gave a valid ballot; each judge's raw answers are under failures in the verdict file.",
    "read.dissent": "Dissent",
    "read.dissent.unanimous": "Unanimous: all {n} judges voted for the {side}.",
    "read.dissent.split": "Split decision {split}: {judges} voted for the {side}, against the majority.",
    "read.dissent.scores_close": "The judges' scores for any one stage differed by at most {points}.",
    "read.dissent.scores_wide": "The judges' scores differed by 3 points or more on {n} stage score(s); the widest was {unit} ({scores}).",
    "read.dissent.none": "Only one ballot: nothing to disagree with.",
    "read.momentum": "Momentum, in one sentence: of a clash's counted moves (pushing a point forward or holding it counts for the side that made the move, giving ground counts for the other side), the share that went the affirmative's way minus the share that went the negative's, from −1 to +1 (+0.50: three moves in four went the affirmative's way).",
    "read.clashes": "Battlefield map", "read.clash.positions": "Positions", "read.clash.opened": "Raised in {stage}.",
    "read.clash.momentum": "Momentum {momentum}", "read.clash.toward": "toward the {side}", "read.clash.even": "even",
    "read.history.stage": "Stage", "read.history.side": "Side", "read.history.debater": "Debater", "read.history.move": "Move", "read.history.note": "Note",
    "read.scores": "Scores by stage", "read.scores.stage": "Stage", "read.scores.type": "Type", "read.scores.side": "Side",
    "read.scores.judges": "Judges", "read.scores.mean": "Mean", "read.scores.counted": "Counted", "read.scores.band": "Rubric band",
    "read.ballots": "Ballots", "read.ballot.votes": "Best-debater votes", "read.ballot.reasoning": "Reasoning", "read.ballot.model": "model {model}",
    "read.failures": "Failures", "read.failure": "{node} {key}: {reason} ({n} raw outputs kept in the verdict file)",
    "read.provenance": "How this verdict was made",
    "read.provenance.model": "Model: {model}.",
    "read.provenance.calls": "{calls} calls ({attempts} attempts), {prompt} prompt and {completion} completion tokens, cost {cost}.",
    "read.provenance.parsing": "Answers read as strict JSON: {strict}; recovered: {recovered}; unreadable: {failed}.",
    "read.cost_unknown": "unknown (no price for this model)",
    "perspective.task": "stage tasks first", "perspective.battlefield": "battlefield judgement first", "perspective.advancement": "advancement first",
    "read.none": "none",
    "read.ranked": "Ranking: {ranking}.",
    "read.reason.opening_ranked": "The panel ranked the houses {ranking} (first place {split}).",
    "read.reason.judge_ranked": "{judge} ({perspective}) ranked {ranking}",
    "read.reason.points": "Mean team points: {points}.",
    "read.dissent.unanimous_first": "Every judge ({n}) put the {side} first.",
    "read.dissent.split_first": "First place {split}: {judges} put the {side} first.",
    "read.dissent.rank_error": "How far each judge's ranking is from the panel's (sum of rank differences, 0 = the same): {errors}.",
    "read.dissent.low_point": "Low-point wins in the panel's ranking: {pairs}.",
    "read.ranking": "Ranking", "read.ranking.rank": "Rank", "read.ranking.house": "House", "read.ranking.judge_ranks": "Judges' ranks",
    "read.ranking.mean_rank": "Mean rank", "read.ranking.judge_points": "Team points (judges)", "read.ranking.points": "Mean points",
    "read.speeches": "Speaker scores", "read.speeches.speech": "Speech", "read.speeches.house": "House", "read.speeches.scores": "Judges' scores",
    "read.speeches.mean": "Mean", "read.speeches.ranks": "Judges' ranks", "read.speeches.rank": "Rank",
    "read.ballot.speaker_scores": "Speaker scores",
    "side.OG": "Opening Government", "side.OO": "Opening Opposition", "side.CG": "Closing Government", "side.CO": "Closing Opposition",
}

_ZH: dict[str, str] = {
    "side.affirmative": "正方", "side.negative": "反方",
    "side_title.affirmative": "正方", "side_title.negative": "反方",
    "side_short.affirmative": "正", "side_short.negative": "反",
    "role.questioner": "质询方", "role.respondent": "答辩方",
    "status.open": "进行中", "status.closing": "评审合议中", "status.closed": "已结束",
    "stage_type.constructive": "立论", "stage_type.supplementary": "申论",
    "stage_type.questioning": "质询", "stage_type.cross_examination": "盘问",
    "stage_type.summary": "小结", "stage_type.head_to_head": "对辩",
    "stage_type.free_debate": "自由辩论", "stage_type.closing": "总结陈词",
    "measure.task_performance": "环节任务完成度", "measure.battlefield_judgement": "战场选择", "measure.advancement": "推进程度",
    "band.perfect": "完美完成（9-10 分）", "band.well": "较好完成（6-8 分）", "band.approximate": "基本完成（4-5 分）", "band.not_completed": "未完成（1-3 分）",
    "kind.opened": "开辟", "kind.advanced": "推进", "kind.defended": "守住", "kind.conceded": "让步", "kind.contested": "争夺",
    "state.none": "进行中", "state.draft": "自动草稿，尚未确认", "state.confirmed": "已确认，尚未公布", "state.released": "已公布", "state.awaiting": "等待结果", "state.void": "已作废",
    "page.title": "实时看板", "page.footer": "本看板只读；修改需要组委会或本场主席的令牌。",
    "page.all_matches": "全部比赛", "page.model": "模型",
    "page.round": "轮次", "page.room": "场次", "page.chair": "主席", "page.teams": "队伍",
    "conn.connecting": "连接中…", "conn.live": "实时", "conn.reconnecting": "重新连接中…", "conn.busy": "服务器已满，稍后重试…", "conn.no_match": "没有这场比赛",
    "progress.analysed": "已分析 {n} · 已收到 {received}", "progress.stage": "个环节", "progress.stages": "个环节", "progress.of": "/",
    "progress.pending": "正在分析 {ids}…",
    "verdict.title": "结果：评审团裁决", "verdict.winner": "获胜方：{side}", "verdict.no_winner": "未能判定获胜方",
    "verdict.p": "胜负倾向 p = {p}", "verdict.split": "评审票型 {split}",
    "verdict.best": "最佳辩手：{names}（票数：{votes}）", "verdict.none": "无",
    "verdict.report": "完整报告", "verdict.json": "裁决 JSON",
    "verdict.awaiting": "评审已完成合议。组委会公布后，结果将显示在这里。",
    "verdict.void": "已作废：组委会作废了本场结果，重新开放之前不计入任何成绩。",
    "verdict.draft_banner": "自动草稿：尚未经人工确认，不是最终结果。",
    "verdict.confirmed_by": "由 {name} 于 {at} 确认。", "verdict.released_at": "于 {at} 公布。",
    "verdict.overridden": "确认时有改动：自动结果原为{winner}获胜。",
    "verdict.overridden_scores": "确认时有改动：部分环节得分或最佳辩手票数与自动结果不同。",
    "verdict.note": "说明：{note}",
    "panel.error": "评审团：{error}",
    "tendency.title": "暂时倾向", "tendency.superseded_title": "裁决前估计（并非结果）",
    "tendency.note": "根据目前各环节的分析得出的早期估计，综合了同类分差和战场势头（下方有解释）。这不是比赛结果：比赛结束后由评审团裁决。",
    "tendency.superseded_note": "这是评审团合议之前的暂时估计，不是结果；结果以上方的评审团裁决为准。",
    "tendency.nothing": "尚未分析任何环节。", "tendency.withheld": "本场结果公布前不显示：分析会透露结果。", "tendency.not_comparable": "暂时无法比较：双方须在同类环节中都得到评分。",
    "tendency.leaning": "倾向", "tendency.leaned": "合议前倾向",
    "tendency.text": "{label}：{leaning}。同类分差 {gap}（{groups}），战场势头 {momentum}（{events}）。",
    "tendency.group": "组可比环节", "tendency.groups": "组可比环节", "tendency.event": "次战场动作", "tendency.events": "次战场动作",
    "leaning.affirmative": "正方", "leaning.negative": "反方", "leaning.even": "势均力敌", "leaning.none yet": "暂无", "leaning.withheld": "暂不显示",
    "explain.gap": "同类分差：只在同类环节之间比较建议分（1-10 分），例如立论对立论、质询方对质询方，因为有些环节天然得分较高。+1.00 表示正方平均高出一分。",
    "explain.momentum": "战场势头：目前为止的每个战场动作都记给一方（推进或守住论点记给该方，让步记给对方）。势头等于正方所占比例减去反方所占比例，从 -1（全部有利于反方）到 +1（全部有利于正方）。",
    "latest.title": "最新环节", "latest.none": "尚未分析任何环节。", "latest.no_move": "本环节没有战场变化。",
    "latest.now": "{label}：现为 {p}。", "latest.move": "{label}：{before} → {after}。", "latest.label": "暂时倾向", "latest.label_done": "裁决前估计",
    "map.title": "战场地图",
    "map.help": "每一行是一个战场（双方争夺的论点）及双方在其上的立场；每一列是一个环节，标出谁在该环节对这个战场做了什么。✦ 开辟 · ▲ 推进 · ■ 守住 · ▼ 让步 · ⇄ 争夺。战场下方的条是它的势头。",
    "map.clash": "战场与立场", "map.none": "尚未记录任何战场。",
    "scores.title": "各环节暂定分", "scores.superseded_title": "各环节分析分（裁决前）",
    "scores.help": "每个环节中双方的建议分（1-10 分），依据 CCDB 评分表得出；将鼠标移到分数上可查看依据。",
    "scores.stage": "环节", "scores.type": "类型", "scores.failed": "分析失败；请查看失败记录",
    "transcript.summary": "机器转写（{model}；发言人：{attribution}）：{lines} 行，录音 {minutes}",
    "transcript.attribution.speaking_order": "按发言顺序", "transcript.attribution.turns": "按主席标记的发言轮次",
    "transcript.attribution.unattributed": "未标明", "transcript.unattributed": "发言人未标明",
    "transcript.confidence": "识别置信度 {value}",
    "timeline.title": "转折点",
    "timeline.help": "暂时倾向越过中线（0.5）的环节，以及推动这一变化的原因。",
    "timeline.none": "暂无转折点：倾向尚未越过 0.5。",
    "timeline.toward": "转向{side}：{before} → {after}", "timeline.by_clash": "由战场“{title}”推动（{events}）",
    "timeline.by_scores": "由本环节得分推动（同类分差 {before} → {after}）",
    "push.turns": "发言轮次标记：录制互动环节时每换一次发言按一次键，供 `live push --audio --turns` 使用",
    "push.title": "提交下一环节", "push.next": "下一环节：第 {position}{of} 个，{name}（{type}）。填写发言后提交。",
    "push.all_in": "本赛制的所有环节均已提交；结束比赛即可由评审团合议。", "push.button": "提交环节",
    "push.close": "结束比赛并由评审团合议", "push.confirm_close": "结束比赛并由评审团合议？之后不能再提交环节。",
    "push.close_anyway": "仍要结束比赛，并按已收到的发言合议吗？",
    "push.pushing": "提交中…", "push.deliberating": "评审团合议中…", "push.closed": "已结束：{side}获胜",
    "push.already": "已收到",
    "confirm.title": "确认裁决",
    "confirm.help": "评审团的结果在有人确认之前只是自动草稿。如有需要，可修改获胜方、环节得分或最佳辩手票数；自动原结果会与您的修改并列保存，并记录您的姓名和时间。",
    "confirm.winner": "获胜方", "confirm.keep": "维持评审团结果（{side}）", "confirm.by": "您的姓名", "confirm.note": "修改理由（可选）",
    "confirm.scores": "环节得分（评审团平均分；修改即为更正）", "confirm.votes": "最佳辩手票数（共 {total} 票）",
    "confirm.button": "确认", "confirm.release": "公布本场结果", "confirm.done": "已确认（第 {version} 版）",
    "confirm.released": "已公布", "confirm.automated": "自动原结果：{side}获胜，p = {p}，票型 {split}。",
    "round.title": "轮次总览", "round.help": "本轮各场次一览；每场的看板有详细内容。",
    "round.room": "场次", "round.teams": "队伍", "round.stages": "已分析环节", "round.tendency": "暂时倾向",
    "round.verdict": "裁决", "round.none": "尚无场次。", "round.release": "公布本轮结果",
    "report.title": "裁决报告", "report.motion": "辩题", "report.format": "赛制", "report.positions": "持方",
    "report.result": "结果", "report.state": "状态", "report.stage_scores": "各环节得分", "report.stage": "环节",
    "report.side": "持方", "report.judges": "各评委", "report.mean": "评审团平均", "report.confirmed_score": "计入得分",
    "report.ballots": "评委裁决单", "report.reasoning": "理由", "report.votes": "最佳辩手票数",
    "report.clashes": "战场地图", "report.position_aff": "正方立场", "report.position_neg": "反方立场",
    "report.momentum": "势头", "report.moves": "战场动作", "report.provenance": "裁决如何得出",
    "report.model": "模型", "report.calls": "模型调用", "report.tokens": "词元", "report.cost": "费用", "report.failures": "失败记录",
    "report.automated": "自动结果", "report.confirmed": "计入结果", "report.changed": "有改动",
    "report.generated": "由 adjudicator {version} 生成。",
    "read.title": "裁决报告", "read.motion": "辩题", "read.format": "赛制", "read.method": "裁决方式",
    "read.method.agentic": "三位评委组成的评审团，依据逐环节的战场分析裁决",
    "read.method.single-call": "CCDB 单次调用协议（每项任务一次模型请求）",
    "read.positions": "持方", "read.debaters": "辩手", "read.team": "队伍：{team}",
    "read.result": "结果", "read.winner": "获胜方：{side}。", "read.no_winner": "未能判定获胜方。",
    "read.tendency": "胜负倾向 p = {p}：大于 0.5 有利于正方，小于 0.5 有利于反方；离 0.5 越远，胜负越分明。",
    "read.best": "最佳辩手：{names}（{total} 票中得 {votes} 票）。", "read.votes": "全部最佳辩手票数：{votes}。",
    "read.reason": "裁决理由",
    "read.reason.opening": "评审团判{side}获胜（票型 {split}）。",
    "read.reason.opening_single": "模型判{side}获胜。",
    "read.reason.opening_none": "评审团未能作出裁决。",
    "read.reason.judge": "{judge}（{perspective}）投{side}，p = {p}",
    "read.reason.said": "{who}：“{reasoning}”", "read.reason.silent": "{who}；未给出理由。",
    "read.reason.best_clash": "最明显有利于{side}的战场：“{title}”（势头 {momentum}，共 {n} 次计入的战场动作）。",
    "read.reason.scores": "评审团各环节平均分：{scores}（1-10 分，按各方得分的环节计）。",
    "read.reason.score_item": "{side} {mean}（{n} 个环节）",
    "read.reason.no_ballots": "单次调用协议不给出理由；各项任务的回答见裁决文件。",
    "read.reason.no_valid_ballot": "没有评委给出有效选票；各评委的原始回答见裁决文件的 failures。",
    "read.dissent": "分歧",
    "read.dissent.unanimous": "一致裁决：{n} 位评委都投{side}。",
    "read.dissent.split": "分裂裁决 {split}：{judges} 投{side}，与多数意见不同。",
    "read.dissent.scores_close": "各评委对同一环节的评分相差不超过 {points}。",
    "read.dissent.scores_wide": "有 {n} 项环节评分的评委分差达到 3 分或以上；分差最大的是{unit}（{scores}）。",
    "read.dissent.none": "只有一张裁决单，无所谓分歧。",
    "read.momentum": "势头，一句话说明：在一个战场计入的战场动作中（推进或守住论点记给做出动作的一方，让步记给对方），有利于正方的比例减去有利于反方的比例，从 -1 到 +1（+0.50 表示每四个动作中有三个有利于正方）。",
    "read.clashes": "战场地图", "read.clash.positions": "双方立场", "read.clash.opened": "开辟于{stage}。",
    "read.clash.momentum": "势头 {momentum}", "read.clash.toward": "有利于{side}", "read.clash.even": "持平",
    "read.history.stage": "环节", "read.history.side": "持方", "read.history.debater": "辩手", "read.history.move": "动作", "read.history.note": "说明",
    "read.scores": "各环节得分", "read.scores.stage": "环节", "read.scores.type": "类型", "read.scores.side": "持方",
    "read.scores.judges": "各评委", "read.scores.mean": "平均", "read.scores.counted": "计入得分", "read.scores.band": "评分档次",
    "read.ballots": "评委裁决单", "read.ballot.votes": "最佳辩手票", "read.ballot.reasoning": "理由", "read.ballot.model": "模型 {model}",
    "read.failures": "失败记录", "read.failure": "{node} {key}：{reason}（{n} 份原始输出保存在裁决文件中）",
    "read.provenance": "裁决如何得出",
    "read.provenance.model": "模型：{model}。",
    "read.provenance.calls": "{calls} 次调用（{attempts} 次尝试），提示词元 {prompt}，生成词元 {completion}，费用 {cost}。",
    "read.provenance.parsing": "严格 JSON 读出：{strict}；修复后读出：{recovered}；无法读出：{failed}。",
    "read.cost_unknown": "未知（该模型无价格）",
    "perspective.task": "侧重环节任务", "perspective.battlefield": "侧重战场选择", "perspective.advancement": "侧重推进程度",
    "read.none": "无",
    "read.ranked": "排名：{ranking}。",
    "read.reason.opening_ranked": "评审团的排名为 {ranking}（第一名票型 {split}）。",
    "read.reason.judge_ranked": "{judge}（{perspective}）排名 {ranking}",
    "read.reason.points": "平均队伍得分：{points}。",
    "read.dissent.unanimous_first": "{n} 位评委都把{side}排在第一。",
    "read.dissent.split_first": "第一名票型 {split}：{judges} 把{side}排在第一。",
    "read.dissent.rank_error": "各评委排名与评审团排名的距离（名次差之和，0 表示相同）：{errors}。",
    "read.dissent.low_point": "评审团排名中的低分高名次：{pairs}。",
    "read.ranking": "排名", "read.ranking.rank": "名次", "read.ranking.house": "队伍", "read.ranking.judge_ranks": "各评委名次",
    "read.ranking.mean_rank": "平均名次", "read.ranking.judge_points": "队伍得分（各评委）", "read.ranking.points": "平均得分",
    "read.speeches": "辩手得分", "read.speeches.speech": "发言", "read.speeches.house": "队伍", "read.speeches.scores": "各评委得分",
    "read.speeches.mean": "平均", "read.speeches.ranks": "各评委名次", "read.speeches.rank": "名次",
    "read.ballot.speaker_scores": "辩手得分",
    "side.OG": "开场政府", "side.OO": "开场反对", "side.CG": "闭场政府", "side.CO": "闭场反对",
}

# rubric levels (the tooltips of a score), from the rubric's own wording
for _key, (_en, _zh) in LEVEL_TEXT.items():
    _EN[f"level.{_key}"] = _en
    _ZH[f"level.{_key}"] = _zh

_EN.update(GATE_EN)  # the quality gate's and the coach's feedback's words
_ZH.update(GATE_ZH)
_EN.update(NOTE_EN)  # what the offline judge is (offline.short, offline.note, page.offline)
_ZH.update(NOTE_ZH)

TABLES: dict[str, dict[str, str]] = {"en": _EN, "zh": _ZH}


def labels(language: str) -> dict[str, str]:
    """The label table of ``language`` ("en" or "zh"; anything else reads as English)."""
    return TABLES.get(language, _EN)


def stage_names_zh() -> dict[str, str]:
    """English stage name -> Chinese, from the ccdb formats' declared orders."""
    return {slot.name: slot.name_zh for f in FORMATS.values() for slot in f.order if slot.name_zh}


def stage_name(name: str, language: str) -> str:
    """A stage's name in ``language``: the format's Chinese name of a declared ccdb stage, else as given."""
    if language == "zh":
        return stage_names_zh().get(name, name)
    return name


def debater_name(label: str, language: str, names: dict[str, str | None] | None = None) -> str:
    """A debater as people say it: ``正方三辩`` / ``Affirmative Speaker 3``, with the debater's name
    after it when known (``正方三辩 张三``)."""
    base = (position_label_zh(label) or label) if language == "zh" else label
    name = (names or {}).get(label)
    return f"{base} {name}" if name else base
