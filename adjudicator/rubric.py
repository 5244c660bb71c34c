"""The CCDB stage-level rubric (paper Table 5, Appendix A.4; protocol seed 001 section 04).

Judges rate a side in a stage along three dimensions -- task performance, battlefield judgement and
degree of advancement -- and read a *suggested score* off the table. The table is a fact reproduced
here as data; :func:`suggested_score` reads it, with a documented rule for combinations the table
does not list. Score bands (paper 2.5): not completed 1-3, approximately completed 4-5, well
completed 6-8, perfectly completed 9-10.
"""

from __future__ import annotations

from typing import Literal, get_args

TaskPerformance = Literal["perfect", "well", "approximate", "not_completed"]
BattlefieldJudgement = Literal["correct_important", "correct_secondary", "largely_irrelevant", "incorrect"]
Advancement = Literal["decisive", "major", "substantial", "effective", "attempt", "none", "counterproductive"]

TASK_LEVELS: tuple[str, ...] = get_args(TaskPerformance)
BATTLEFIELD_LEVELS: tuple[str, ...] = get_args(BattlefieldJudgement)
ADVANCEMENT_LEVELS: tuple[str, ...] = get_args(Advancement)

#: Paper Table 5, row by row: (task performance, battlefield judgement, advancement) -> score.
RUBRIC_TABLE: tuple[tuple[str, str, str, int], ...] = (
    ("perfect", "correct_important", "decisive", 10),
    ("perfect", "correct_important", "major", 9),
    ("well", "correct_important", "substantial", 8),
    ("well", "correct_important", "effective", 7),
    ("well", "correct_important", "attempt", 6),
    ("well", "correct_secondary", "effective", 6),
    ("approximate", "correct_secondary", "attempt", 5),
    ("approximate", "largely_irrelevant", "attempt", 4),
    ("not_completed", "incorrect", "attempt", 3),
    ("not_completed", "incorrect", "none", 2),
    ("not_completed", "incorrect", "counterproductive", 1),
)

#: English and Chinese wording of each level, for prompts and reports.
LEVEL_TEXT: dict[str, tuple[str, str]] = {
    "perfect": ("perfectly completed", "完美完成"),
    "well": ("well completed", "较好完成"),
    "approximate": ("approximately completed", "基本完成"),
    "not_completed": ("not completed", "未完成"),
    "correct_important": ("correct and important battlefield", "正确且重要的战场"),
    "correct_secondary": ("correct but secondary battlefield", "正确但次要的战场"),
    "largely_irrelevant": ("largely irrelevant battlefield", "基本无关的战场"),
    "incorrect": ("incorrect battlefield", "错误的战场"),
    "decisive": ("decisive advancement", "决定性推进"),
    "major": ("major advancement", "重大推进"),
    "substantial": ("substantial advancement", "实质推进"),
    "effective": ("effective advancement", "有效推进"),
    "attempt": ("an attempt to advance", "尝试推进"),
    "none": ("no advancement", "没有推进"),
    "counterproductive": ("counterproductive effect", "起反作用"),
}

Band = Literal["not_completed", "approximate", "well", "perfect"]
#: Paper 2.5: bands 1-3, 4-5, 6-8, 9-10.
BANDS: tuple[tuple[str, int, int], ...] = (
    ("not_completed", 1, 3),
    ("approximate", 4, 5),
    ("well", 6, 8),
    ("perfect", 9, 10),
)


def band(score: int) -> str:
    """The rubric band of an integer score 1-10 (paper 2.5). Raises ValueError outside 1-10."""
    for name, lo, hi in BANDS:
        if lo <= score <= hi:
            return name
    raise ValueError(f"score must be an integer 1-10, got {score!r}")


# Ordinal positions used to place unlisted combinations (0 = best level).
_RANK = {
    **{k: i for i, k in enumerate(TASK_LEVELS)},
    **{k: i for i, k in enumerate(BATTLEFIELD_LEVELS)},
    **{k: i for i, k in enumerate(ADVANCEMENT_LEVELS)},
}


def suggested_score(task: str, battlefield: str, advancement: str) -> int:
    """The suggested integer score 1-10 for a rating on the three rubric dimensions.

    An exact row of Table 5 gives its score. For a combination the table does not list (the judges'
    sheet leaves those to judgement), we take the listed row closest in the three ordinal ranks
    (sum of absolute rank differences, advancement weighted 1, the other two 1.5; ties go to the
    lower score, the conservative reading). Raises ValueError for an unknown level name.
    """
    for level, levels in ((task, TASK_LEVELS), (battlefield, BATTLEFIELD_LEVELS), (advancement, ADVANCEMENT_LEVELS)):
        if level not in levels:
            raise ValueError(f"unknown rubric level {level!r}; expected one of {', '.join(levels)}")
    best: tuple[float, int] | None = None
    for t, b, a, score in RUBRIC_TABLE:
        if (t, b, a) == (task, battlefield, advancement):
            return score
        dist = 1.5 * abs(_RANK[t] - _RANK[task]) + 1.5 * abs(_RANK[b] - _RANK[battlefield]) + abs(_RANK[a] - _RANK[advancement])
        key = (dist, score)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[1]


def rubric_rows(language: str) -> list[tuple[str, str, str, int]]:
    """Table 5 with its levels written out in ``language`` ("en" or "zh"), for prompts and reports."""
    idx = 1 if language == "zh" else 0
    return [(LEVEL_TEXT[t][idx], LEVEL_TEXT[b][idx], LEVEL_TEXT[a][idx], s) for t, b, a, s in RUBRIC_TABLE]
