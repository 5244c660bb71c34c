"""The CCDB stage-level rubric (paper Table 5, Appendix A.4; protocol seed 001 section 04).

Judges rate a side in a stage along three dimensions -- task performance, battlefield judgement and
degree of advancement -- and read a *suggested score* off the table. The table is a fact reproduced
here as data; :func:`suggested_score` reads it, with a documented rule for combinations the table
does not list. Score bands (paper 2.5): not completed 1-3, approximately completed 4-5, well
completed 6-8, perfectly completed 9-10.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from pydantic import ConfigDict, Field, ValidationError, model_validator

from adjudicator.frozen import FrozenModel

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


# ---------------------------------------------------------------------------------------------
# Rubric presets: named dimensions as data (issue 13)
#
# A preset is a YAML file ``prompts/rubrics/<name>.yaml`` (its definitions are words a model reads,
# so they live beside the prompts); a rubric file a user gives with ``--rubric FILE`` has the same
# schema (:class:`Rubric`). Three presets ship:
#
# - ``ccdb``: the three Table 5 dimensions above, rated as levels and combined through the table
#   (today's judging; the default for every format);
# - ``debateart``: arguments, sources, language (debateart.com's voting categories), each a 1-10
#   rating; the match decision gives each dimension's winner the points debateart.com's ballot gives
#   the category (arguments 3, sources 2, legibility 1; conduct, its fourth category, is not in the
#   PanelBench labels and is left out), and the side with more points wins (equal points: a tie);
# - ``inspire``: InspireScore (seed 003 sections 2.1-2.2): four subjective 1-10 dimensions rated in
#   every round and averaged over the side's rounds, and the two objective ratios (logical validity:
#   valid arguments / arguments; fact authenticity: supported facts / checked facts, which needs an
#   evidence source and is otherwise not assessed).

DimensionCheck = Literal["ccdb_level", "rating", "logical_validity", "fact_authenticity"]
DimensionKind = Literal["subjective", "objective"]
StageCombine = Literal["ccdb_table", "weighted_mean"]
DecisionRule = Literal["panel", "weighted_points", "weighted_mean"]
RUBRIC_DIR_NAME = "rubrics"
_KEY_RE = r"^[a-z][a-z0-9_]{0,39}$"


class Dimension(FrozenModel):
    """One rubric dimension.

    - ``key``: identifier (lower-case letters, digits, ``_``; up to 40 characters), the name in
      ballots, verdicts and bench tables; ``name``: display name; ``definition``: what the model is
      told the dimension measures (English; ``definition_zh`` for Chinese prompts, else the English).
    - ``kind``: ``subjective`` (a judgement of quality) or ``objective`` (a checkable property).
    - ``check``: how it is assessed: ``rating`` (a number on the scale), ``logical_validity`` (per
      argument, whether the conclusion follows from the stated premises; score = valid / arguments),
      ``fact_authenticity`` (atomic factual claims checked against an evidence source; score =
      supported / checked; not assessed without a source), ``ccdb_level`` (a Table 5 level; the
      ``ccdb`` preset only).
    - ``scale_min`` < ``scale_max``: the score range (ratings 1-10; the objective ratios 0-1).
    - ``weight`` >= 0: its share in the match decision (see :class:`Rubric`).
    - ``gold``: the name of the per-dimension gold label this dimension is measured against
      (``labels.dimensions`` of a match; DebateArt: argument, source, language), or None.
    """

    model_config = ConfigDict(allow_inf_nan=False)  # a weight or scale bound is a finite number

    key: str = Field(pattern=_KEY_RE)
    name: str = Field(min_length=1)
    definition: str = Field(min_length=1)
    definition_zh: str | None = None
    kind: DimensionKind = "subjective"
    check: DimensionCheck = "rating"
    scale_min: float = 1.0
    scale_max: float = 10.0
    weight: float = Field(default=1.0, ge=0.0)
    gold: str | None = None

    @model_validator(mode="after")
    def _scale(self) -> "Dimension":
        if not self.scale_min < self.scale_max:
            raise ValueError(f"scale_min {self.scale_min:g} must be below scale_max {self.scale_max:g}")
        if self.check in ("logical_validity", "fact_authenticity") and (self.scale_min, self.scale_max) != (0.0, 1.0):
            raise ValueError(f"check {self.check} scores a ratio; give scale_min 0 and scale_max 1")
        return self

    def unit(self, score: float) -> float:
        """``score`` on this dimension's scale mapped onto [0, 1] (scale_min -> 0, scale_max -> 1)."""
        return (score - self.scale_min) / (self.scale_max - self.scale_min)

    def definition_in(self, language: str) -> str:
        """The definition for a prompt in ``language`` ("zh" uses ``definition_zh`` when given)."""
        return self.definition_zh if language == "zh" and self.definition_zh else self.definition


class Rubric(FrozenModel):
    """A rubric preset or file: named dimensions and how they combine.

    - ``stage_score``: how a stage's 1-10 score is formed: ``ccdb_table`` (the three Table 5 levels
      through :func:`suggested_score`; only the ``ccdb`` dimensions), or ``weighted_mean`` (the 1-10
      stage score keeps coming from the CCDB table; the dimensions are reported beside it).
    - ``decision``: how per-dimension results combine into a match decision beside the panel's
      direct winner: ``panel`` (none: the ccdb rubric), ``weighted_points`` (each dimension's winner
      receives its weight in points, the side with more points wins, equal points tie; debateart.com's
      categorical ballot), or ``weighted_mean`` (per side the weight-averaged score of the assessed
      dimensions on [0, 1]; the higher mean wins, equal means tie; InspireScore's multi-dimensional
      weighting, seed 003 section 4.4).
    - ``tie_margin`` >= 0: a judge calls a dimension a tie when the two sides' scores differ by at
      most this, in units of [0, 1] (0.05 on a 1-10 scale is 0.45 points).
    - ``source``: where the dimensions and weights come from (paper, section).

    Raises ValueError (pydantic) for duplicate keys, ``ccdb_level`` dimensions outside the ccdb
    preset's shape, or no dimension with a positive weight under a weighted decision.
    """

    model_config = ConfigDict(allow_inf_nan=False)  # a weight or scale bound is a finite number

    name: str = Field(pattern=_KEY_RE)
    description: str = ""
    source: str = ""
    dimensions: list[Dimension] = Field(min_length=1, max_length=12)
    stage_score: StageCombine = "weighted_mean"
    decision: DecisionRule = "weighted_points"
    tie_margin: float = Field(default=0.0, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _consistent(self) -> "Rubric":
        keys = [d.key for d in self.dimensions]
        dup = next((k for k in keys if keys.count(k) > 1), None)
        if dup is not None:
            raise ValueError(f"dimensions: key {dup!r} is used twice")
        levels = [d.key for d in self.dimensions if d.check == "ccdb_level"]
        if self.stage_score == "ccdb_table" or levels:
            if sorted(levels) != sorted(CCDB_DIMENSION_KEYS) or len(levels) != len(keys) or self.stage_score != "ccdb_table":
                raise ValueError("ccdb_level dimensions and stage_score ccdb_table go together, with exactly the dimensions " + ", ".join(CCDB_DIMENSION_KEYS))
        if self.decision != "panel" and not any(d.weight > 0 for d in self.dimensions):
            raise ValueError(f"decision {self.decision} needs at least one dimension with a positive weight")
        return self

    @property
    def dimensional(self) -> bool:
        """True when the rubric has dimensions judged beside the CCDB table (every rubric but ccdb)."""
        return self.stage_score != "ccdb_table"

    def dimension(self, key: str) -> Dimension:
        """The dimension named ``key``. Raises KeyError."""
        for d in self.dimensions:
            if d.key == key:
                return d
        raise KeyError(key)


#: The CCDB rubric's dimension keys (the fields of a tracker's side analysis).
CCDB_DIMENSION_KEYS: tuple[str, ...] = ("task_performance", "battlefield_judgement", "advancement")
#: The presets shipped in ``prompts/rubrics/``.
PRESETS: tuple[str, ...] = ("ccdb", "debateart", "inspire")
DEFAULT_RUBRIC = "ccdb"


def rubrics_dir() -> Path:
    """The folder of the shipped presets: ``<prompts dir>/rubrics``."""
    from adjudicator.model.prompts import prompts_dir

    return prompts_dir() / RUBRIC_DIR_NAME


def _read_rubric_text(path: Path, flag: str) -> dict:
    """The mapping in a YAML, JSON or TOML rubric file, read by the strict readers every input file goes
    through (:func:`~adjudicator.input.tomltext.read_document_file`: size, nesting, aliases, keys given
    twice, numbers that are not finite). Raises InputError naming ``flag`` and the file."""
    from adjudicator.errors import InputError
    from adjudicator.input.tomltext import read_document_file

    if not path.is_file():
        raise InputError(f"{flag} {path}: no such file", f"give a rubric file or one of the presets {', '.join(PRESETS)}")
    try:
        data = read_document_file(path)
    except InputError as exc:
        reason = exc.message.removeprefix(f"{path}: ")
        raise InputError(f"{flag} {path}: malformed file ({reason})", "fix the syntax; see prompts/rubrics/debateart.yaml for the schema") from None
    if not isinstance(data, dict):
        raise InputError(f"{flag} {path}: expected a mapping with name, dimensions, decision", "see prompts/rubrics/debateart.yaml for the schema")
    return data


def _validation_line(exc: ValidationError) -> str:
    """The first error of a validation as ``field.path: message``."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ()))
    msg = err.get("msg", "invalid").removeprefix("Value error, ")
    return f"{loc}: {msg}" if loc else msg


def load_rubric(spec: str | None, flag: str = "--rubric") -> Rubric:
    """The rubric ``spec`` names: None or ``"ccdb"`` -> the ccdb preset, another preset name
    (:data:`PRESETS`), or the path of a YAML / JSON / TOML rubric file (:class:`Rubric` schema).

    Raises :class:`~adjudicator.errors.InputError` (exit code 2, one line naming ``flag``, the file
    and the field) for an unknown name, a missing or malformed file, or a file that breaks the schema.
    """
    from adjudicator.errors import InputError

    name = (spec or DEFAULT_RUBRIC).strip()
    if name in PRESETS:
        path, shown = rubrics_dir() / f"{name}.yaml", name
    else:
        path, shown = Path(name).expanduser(), name
        if not path.exists() and path.suffix == "" and "/" not in name:
            raise InputError(f"{flag}: unknown rubric {name!r}", f"use one of {', '.join(PRESETS)} or the path of a rubric file")
    data = _read_rubric_text(path, flag)
    try:
        return Rubric.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{flag} {shown}: {_validation_line(exc)}", "see prompts/rubrics/debateart.yaml for the schema") from None


def check_rubric_format(rubric: Rubric, format_name: str, flag: str = "--rubric") -> None:
    """Raise InputError when a dimensional ``rubric`` is used on a format whose verdict is a ranking
    (BP): per-dimension winners are defined for two sides."""
    from adjudicator.errors import InputError
    from adjudicator.input.formats import get_format

    if rubric.dimensional and get_format(format_name).verdict != "winner":
        raise InputError(f"{flag} {rubric.name}: per-dimension winners are defined for two-sided formats, not {format_name}", "use --rubric ccdb for this format")
