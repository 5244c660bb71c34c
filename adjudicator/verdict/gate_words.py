"""The words of the quality gate (:mod:`adjudicator.verdict.review`) and of the coach's feedback
(:mod:`adjudicator.verdict.feedback`), in English and Chinese: merged into the label tables of
:mod:`adjudicator.verdict.labels` (keys ``review.*`` and ``read.feedback.*``; the offline judge's own feedback sentences are in :mod:`adjudicator.judges.offline.words`), so the reports, the live
board and the command line say them in the match's language.

A review sentence's placeholders are filled from its finding's facts (ids and numbers, which read
the same in both languages; lists are joined the language's way). The English sentences are also the
``detail`` the verdict JSON records. Nothing here is read by a model.
"""

from __future__ import annotations

GATE_EN: dict[str, str] = {
    "review.title": "Review",
    "review.escalate": "A person should check this verdict before it is used ({n} reason(s)):",
    "review.clear": "No reason to escalate: every check of the quality gate passed.",
    "review.close_call": "p = {p} is within {band} of 0.5",
    "review.split_panel": "the panel split {split} on the {what}",
    "review.what.winner": "winner", "review.what.first_place": "first place",
    "review.failed_judge": "judge(s) {judges} failed: the verdict counts no ballot of theirs",
    "review.failed_task": "task(s) {tasks} failed",
    "review.failed_stage": "the tracker failed on stage(s) {stages}: the judges saw no analysis of them",
    "review.empty_battlefield": "the battlefield map is empty: no clash was recorded over {n} stages",
    "review.thin_battlefield": "the battlefield map records {moves} clash move(s) over {n} stages of real speech (at least one per stage expected)",
    "review.empty_reasoning": "the reasoning of {judges} is empty",
    "review.short_reasoning": "the reasoning of {items} is shorter than {minimum} characters",
    "review.short_reasoning.item": "{judge} ({n})",
    "review.unanchored_reasoning": "the reasoning of {judges} names no clash, stage or debater",
    "review.identical_ballots": "identical ballots (the same {what}): {groups}; the judges may not have judged independently",
    "review.identical.decision": "winner, p and best-debater votes", "review.identical.ranking": "ranking and speaker scores",
    "review.identical.all": "all {n} ballots",
    "review.equal_stage_scores": "every stage score is the same on the ballot of {items}",
    "review.equal_stage_scores.item": "{judge} (all {score})",
    "review.tracker_scores": "the ballot of {items} gives every unit the tracker's suggested score, which the judges were told to check, not copy",
    "review.tracker_scores.item": "{judge} ({n} units)",
    "review.echoed_summary": "the tracker's summary of stage(s) {stages} repeats text its prompt held (the motion, a speech or an earlier summary) instead of saying how the battlefield changed",
    "review.p_against_scores": "p favours the side its own stage scores put more than {margin} point(s) behind: {items}",
    "review.p_against_scores.item": "{judge} (p = {p} for the {side}, mean stage score {mine} against {theirs})",
    "review.repaired_fields": "repair turns asked again for more than half of the fields of {items}",
    "review.repaired_fields.item": "{node} {key} ({share})",
    "review.example_choice": "answers whose closed choices equal the prompt example's: {items}",
    "review.example_choice.item": "{node} {key}: {fields}",
    "review.probe_flip": "the winner moved under probe(s) {probes}",
    "review.low_transcript_confidence": "the speech recogniser was unsure (confidence under {floor:.2f}) of {share:.0%} or more of the words of stage(s) {stages}: check the transcript against the recording",
    "review.long_silence": "the recording of stage(s) {stages} has {seconds:g} s or more without recognised speech (the longest {longest:.0f} s): a dropped microphone or a cut-off speech?",
    "review.unattributed_speech": "{n} utterance(s) of stage(s) {stages} have no marked speaker (nobody marked the turns): the tracker was told, nothing was guessed",
    # the coach's feedback in the reports and on the board (adjudicator/verdict/feedback.py)
    "read.feedback": "Feedback for each debater",
    "read.feedback.from": "From the ballot of {judge} (of the majority, its p nearest the panel's).",
    "read.feedback.worked": "What worked", "read.feedback.missed": "The response missed", "read.feedback.work_on": "One thing to work on",
    "read.feedback.clash": "clash “{title}”",
    "read.dissent.identical": "Not counted as agreement: the review found identical ballots among the {n} (the same decision), which independent judges almost never give.",
}

GATE_ZH: dict[str, str] = {
    "review.title": "复核",
    "review.escalate": "这份裁决在使用前应由人复核（{n} 个原因）：",
    "review.clear": "无需复核：质量检查的各项都已通过。",
    "review.close_call": "胜负倾向 p = {p}，与 0.5 相差不超过 {band}",
    "review.split_panel": "评委在{what}上意见不一（{split}）",
    "review.what.winner": "胜方", "review.what.first_place": "第一名",
    "review.failed_judge": "评委 {judges} 失败：裁决不计入其选票",
    "review.failed_task": "任务 {tasks} 失败",
    "review.failed_stage": "战场追踪在环节 {stages} 失败：评委没有看到这些环节的分析",
    "review.empty_battlefield": "战场地图为空：{n} 个环节中没有记录任何争议点",
    "review.thin_battlefield": "战场地图在 {n} 个有实际发言的环节中只记录了 {moves} 次争议点变化（每个环节至少应有一次）",
    "review.empty_reasoning": "{judges} 的裁决理由为空",
    "review.short_reasoning": "{items} 的裁决理由不足 {minimum} 个字",
    "review.short_reasoning.item": "{judge}（{n} 字）",
    "review.unanchored_reasoning": "{judges} 的裁决理由没有提到任何争议点、环节或辩手",
    "review.identical_ballots": "选票完全相同（{what}都一样）：{groups}；评委可能没有独立裁决",
    "review.identical.decision": "胜方、p 和最佳辩手票", "review.identical.ranking": "排名和辩手得分",
    "review.identical.all": "全部 {n} 张选票",
    "review.equal_stage_scores": "{items} 的选票给每个环节打了同样的分数",
    "review.equal_stage_scores.item": "{judge}（均为 {score} 分）",
    "review.tracker_scores": "{items} 的选票每个单元都照搬了战场追踪给出的建议分，而建议分是让评委核查的，不是让其照抄的",
    "review.tracker_scores.item": "{judge}（{n} 个单元）",
    "review.echoed_summary": "战场追踪对环节 {stages} 的小结照搬了提示中已有的文字（辩题、发言或此前的小结），没有说明战场如何变化",
    "review.p_against_scores": "p 倾向的一方在该评委自己的环节评分中落后超过 {margin} 分：{items}",
    "review.p_against_scores.item": "{judge}（p = {p}，倾向{side}；环节平均分 {mine} 对 {theirs}）",
    "review.repaired_fields": "{items} 一半以上的字段要经修复追问才得到",
    "review.repaired_fields.item": "{node} {key}（{share}）",
    "review.example_choice": "回答中的封闭选项与提示词示例的取值相同：{items}",
    "review.example_choice.item": "{node} {key}：{fields}",
    "review.probe_flip": "在偏差探测 {probes} 下胜方发生了变化",
    "review.low_transcript_confidence": "环节 {stages} 中至少 {share:.0%} 的字词语音识别把握不足（置信度低于 {floor:.2f}）：请对照录音核对文字",
    "review.long_silence": "环节 {stages} 的录音中有 {seconds:g} 秒以上没有识别出发言（最长 {longest:.0f} 秒）：可能是麦克风掉线或发言被截断",
    "review.unattributed_speech": "环节 {stages} 中有 {n} 段发言未标明发言人（无人标记发言轮次）：已告知战场追踪，未作任何猜测",
    "read.feedback": "给每位辩手的反馈",
    "read.feedback.from": "出自 {judge} 的选票（多数方评委中 p 与评审团最接近的一位）。",
    "read.feedback.worked": "做得好的", "read.feedback.missed": "漏掉的回应", "read.feedback.work_on": "需要改进的一点",
    "read.feedback.clash": "争议点“{title}”",
    "read.dissent.identical": "不算作一致意见：复核发现这 {n} 张选票中有完全相同的（同一个裁决），独立裁决的评委几乎不会这样。",
}
