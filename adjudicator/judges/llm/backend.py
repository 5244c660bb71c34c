"""The LLM judge: the :class:`~adjudicator.judges.base.Backend` node interfaces on a real language model.

:class:`LLMBackend` renders the node's prompt template (``prompts/track_stage.<lang>.j2`` or
``prompts/judge.<lang>.j2``), sends it through :class:`~adjudicator.model.llm.LLMClient` with the
protocol's up-to-three attempts (:func:`~adjudicator.model.attempts.run_attempts`), and reads the answer
with the three-stage parser into a :class:`~adjudicator.battlefield.StageAnalysis` or a
:class:`~adjudicator.verdict.Ballot`.

What each node sees (the design card, Data flow):

- the clash tracker: format, motion, both positions, the stage (name, type, roles, speakers,
  utterances), the text of the immediately preceding stage only (for engagement) and the compact
  ledger from :func:`~adjudicator.battlefield.ledger_text` -- never the whole preceding transcript,
  so tokens grow linearly with the number of stages;
- a judge: the match header, the ledger, every analysed stage's suggested scores and rationales,
  its perspective, the units it must score and the debater labels. Units of a stage the tracker
  failed on are not offered: a judge scores only what it has evidence about.

Both inputs are built from the label-free :class:`~adjudicator.match.MatchView` and tracker outputs,
so gold labels cannot reach a prompt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import partial
from typing import Any

from adjudicator.battlefield import ClashEventKind, ClashUpdate, SideAnalysis, StageAnalysis, ledger_text
from adjudicator.formats import get_format
from adjudicator.judges.base import JudgeRequest, NodeResult, StageRequest
from adjudicator.match import MatchView, Stage
from adjudicator.model.attempts import MAX_ATTEMPTS, run_attempts
from adjudicator.model.llm import ChatRequest, LLMClient
from adjudicator.model.parsing import (
    OutputInvalid,
    as_choice,
    as_number,
    as_probability,
    as_score,
    as_side,
    as_votes,
    canonical_label,
    find_number,
    find_string,
    find_votes,
    find_word,
    parse_output,
    small_objects,
)
from adjudicator.model.prompts import PromptStore, prompt_language, utterance_lines
from adjudicator.records import FailureKind, NodeFailure
from adjudicator.rubric import ADVANCEMENT_LEVELS, BATTLEFIELD_LEVELS, LEVEL_TEXT, TASK_LEVELS, rubric_rows, suggested_score
from adjudicator.verdict import BALLOT_VOTES, Ballot, BallotScore

CLASH_KINDS: tuple[str, ...] = ClashEventKind.__args__  # type: ignore[attr-defined]

#: Written-out level names (English and Chinese, from rubric.LEVEL_TEXT) -> level key.
LEVEL_ALIASES: dict[str, str] = {text.lower(): key for key, pair in LEVEL_TEXT.items() for text in pair}

TRACK_NODE = "track_stage"
JUDGE_NODE = "judge"


def template_name(node: str, language: str) -> str:
    """The template file of a node in a language, e.g. ``track_stage.zh.j2``."""
    return f"{node}.{language}.j2"


# ---------------------------------------------------------------------------------------------
# Prompt variables


def _header(match: MatchView) -> dict[str, Any]:
    spec = get_format(match.format)
    return {
        "format": match.format,
        "format_description": spec.description,
        "motion": match.motion,
        "affirmative_position": match.affirmative_position,
        "negative_position": match.negative_position,
        "info": match.info or "",
        "debaters": match.debater_labels(),
    }


def _side_debaters(match: MatchView, stage: Stage, side: str) -> list[str]:
    """The debaters of ``side`` who speak in ``stage`` (in order of first utterance), else the
    stage's declared speakers of that side, else every debater of that side."""
    spoke = list(dict.fromkeys(u.speaker for u in stage.utterances if u.side == side))
    if spoke:
        return spoke
    declared = [s for s in stage.speakers if s.lower().startswith(side)]
    if declared:
        return declared
    return [label for label in match.debater_labels() if label.lower().startswith(side)]


#: The tracker reads the previous stage (for engagement) only as a bounded excerpt, and a bounded
#: ledger (the most recently active clashes, the latest stage lines): its prompt size then does not
#: grow with the number of stages before it, so tracker tokens grow linearly with the stage count
#: (the design card, Data flow). Characters: Chinese text runs at about one token per 1-1.5 characters,
#: English at about four characters per token, so both caps are roughly 400-500 tokens.
PREVIOUS_STAGE_CHARS: dict[str, int] = {"zh": 500, "en": 1600}
TRACKER_LEDGER_CLASHES = 6
TRACKER_LEDGER_STAGES = 3
TRACKER_LEDGER_EVENTS = 1


def excerpt(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its first and last ``limit // 2``
    characters joined by an elision line (the opening states the case, the end its latest replies)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half].rstrip()}\n[...]\n{text[-half:].lstrip()}"


def stage_variables(request: StageRequest) -> dict[str, Any]:
    """Template variables of the clash tracker for one stage (see the module docstring)."""
    match, st = request.match, request.stage
    lang = prompt_language(match.format)
    prev = request.previous[-1] if request.previous else None
    return {
        **_header(match),
        "stage": {
            "id": st.stage_id,
            "name": st.name,
            "type": st.type,
            "interaction": st.interaction,
            "sides": list(st.sides),
            "speakers": list(st.speakers),
            "number": request.index + 1,
            "surprise": st.surprise,
        },
        "evaluated": [
            {"side": side, "role": st.role_of(side), "debaters": _side_debaters(match, st, side)} for side in st.evaluated_sides()
        ],
        "stage_text": utterance_lines(st.utterances),
        "previous": None if prev is None else {"id": prev.stage_id, "name": prev.name, "type": prev.type, "text": excerpt(utterance_lines(prev.utterances), PREVIOUS_STAGE_CHARS[lang])},
        "ledger": ledger_text(request.clashes, request.analyses, lang, max_events=TRACKER_LEDGER_EVENTS, max_clashes=TRACKER_LEDGER_CLASHES, max_stages=TRACKER_LEDGER_STAGES, compact=True),
        "clash_ids": list(request.clashes),
        "rubric": rubric_rows(lang),
        "levels": {
            "task": [(k, LEVEL_TEXT[k][1 if lang == "zh" else 0]) for k in TASK_LEVELS],
            "battlefield": [(k, LEVEL_TEXT[k][1 if lang == "zh" else 0]) for k in BATTLEFIELD_LEVELS],
            "advancement": [(k, LEVEL_TEXT[k][1 if lang == "zh" else 0]) for k in ADVANCEMENT_LEVELS],
        },
        "clash_kinds": list(CLASH_KINDS),
    }


def judge_units(request: JudgeRequest) -> list[tuple[str, str]]:
    """The (stage_id, side) units a judge must score: the match's scored units of every stage that
    has a tracker analysis, in stage order."""
    analysed = {a.stage_id for a in request.analyses}
    return [(sid, side) for sid, side in request.match.scored_units() if sid in analysed]


def judge_variables(request: JudgeRequest) -> dict[str, Any]:
    """Template variables of one judge (see the module docstring)."""
    match = request.match
    lang = prompt_language(match.format)
    by_unit: dict[tuple[str, str], SideAnalysis] = {(s.stage_id, s.side): s for a in request.analyses for s in a.sides}
    summaries = {a.stage_id: a.summary for a in request.analyses}
    units = []
    for sid, side in judge_units(request):
        st = match.stage(sid)
        sa = by_unit.get((sid, side))
        units.append(
            {
                "stage_id": sid,
                "stage_name": st.name,
                "stage_type": st.type,
                "side": side,
                "role": st.role_of(side),
                "suggested_score": sa.suggested_score if sa else None,
                "task": sa.task_performance if sa else None,
                "battlefield": sa.battlefield_judgement if sa else None,
                "advancement": sa.advancement if sa else None,
                "rationale": (sa.rationale if sa else "")[:400],
                "contributions": dict(sa.contributions) if sa else {},
                "summary": summaries.get(sid, "")[:300],
            }
        )
    return {
        **_header(match),
        "judge_id": request.judge_id,
        "perspective": request.perspective,
        "ledger": ledger_text(request.clashes, request.analyses, lang),
        "units": units,
        "votes_total": BALLOT_VOTES,
        "rubric": rubric_rows(lang),
    }


# ---------------------------------------------------------------------------------------------
# Output schemas (for structured output; the parser does not depend on them)


def _obj(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def stage_schema(request: StageRequest) -> dict[str, Any]:
    """JSON Schema of the tracker's answer for this stage (reasoning fields before the levels)."""
    sides = request.stage.evaluated_sides()
    labels = request.match.debater_labels()
    side_item = _obj(
        {
            "side": {"type": "string", "enum": sides},
            "rationale": {"type": "string"},
            "task_performance": {"type": "string", "enum": list(TASK_LEVELS)},
            "battlefield_judgement": {"type": "string", "enum": list(BATTLEFIELD_LEVELS)},
            "advancement": {"type": "string", "enum": list(ADVANCEMENT_LEVELS)},
            "score": {"type": ["integer", "null"]},
            "contributions": {
                "type": "array",
                "items": _obj({"debater": {"type": "string", "enum": labels}, "share": {"type": "number"}}),
            },
        }
    )
    update_item = _obj(
        {
            "clash_id": {"type": "string"},
            "title": {"type": "string"},
            "side": {"type": "string", "enum": ["affirmative", "negative"]},
            "kind": {"type": "string", "enum": list(CLASH_KINDS)},
            "note": {"type": "string"},
            "debater": {"type": ["string", "null"]},
            "affirmative_position": {"type": "string"},
            "negative_position": {"type": "string"},
        }
    )
    return _obj(
        {
            "reasoning": {"type": "string"},
            "sides": {"type": "array", "items": side_item},
            "clash_updates": {"type": "array", "items": update_item},
            "summary": {"type": "string"},
        }
    )


def judge_schema(request: JudgeRequest) -> dict[str, Any]:
    """JSON Schema of a judge's ballot: reasoning, a score per unit, winner, p, and the votes as an
    object with one integer per debater label."""
    units = judge_units(request)
    labels = request.match.debater_labels()
    return _obj(
        {
            "reasoning": {"type": "string"},
            "stage_scores": {
                "type": "array",
                "items": _obj(
                    {
                        "stage_id": {"type": "string", "enum": list(dict.fromkeys(sid for sid, _ in units))},
                        "side": {"type": "string", "enum": ["affirmative", "negative"]},
                        "score": {"type": "integer"},
                    }
                ),
            },
            "winner": {"type": "string", "enum": ["affirmative", "negative"]},
            "p": {"type": "number"},
            "best_debater_votes": _obj({label: {"type": "integer"} for label in labels}),
        }
    )


# ---------------------------------------------------------------------------------------------
# Validators (decoded object -> value) and stage-3 recoveries (text -> candidate object)

_ID_RE = re.compile(r"[^\w\-]+", re.U)


def _text(value: Any, limit: int) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    text = " ".join(text.split())
    return text[:limit]


def _contributions(value: Any, allowed: list[str]) -> dict[str, float]:
    pairs: list[tuple[Any, Any]] = []
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = [(i.get("debater"), i.get("share")) for i in value if isinstance(i, Mapping)]
    shares: dict[str, float] = {}
    for name, share in pairs:
        label = canonical_label(name, allowed)
        if label is None:
            continue
        try:
            x = as_number(share, "share")
        except OutputInvalid:
            continue
        if x > 0:
            shares[label] = shares.get(label, 0.0) + x
    total = sum(shares.values())
    if total <= 0:
        return {label: round(1.0 / len(allowed), 3) for label in allowed} if allowed else {}
    return {k: round(v / total, 3) for k, v in shares.items()}


def _clash_updates(value: Any, labels: list[str]) -> list[ClashUpdate]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise OutputInvalid(f"clash_updates: expected a list, got {type(value).__name__}")
    out: list[ClashUpdate] = []
    for item in value:
        if not isinstance(item, Mapping):
            continue
        cid = _ID_RE.sub("-", _text(item.get("clash_id"), 40)).strip("-")
        if not cid:
            continue
        try:
            side = as_side(item.get("side"), "clash_updates.side")
            kind = as_choice(item.get("kind"), CLASH_KINDS, "clash_updates.kind")
        except OutputInvalid:
            continue  # one malformed update does not cost the stage's rubric analysis
        out.append(
            ClashUpdate(
                clash_id=cid,
                title=_text(item.get("title"), 160),
                side=side,  # type: ignore[arg-type]
                kind=kind,  # type: ignore[arg-type]
                note=_text(item.get("note"), 240),
                debater=canonical_label(item.get("debater"), labels),
                affirmative_position=_text(item.get("affirmative_position"), 200),
                negative_position=_text(item.get("negative_position"), 200),
            )
        )
    return out


def read_stage_analysis(obj: Mapping[str, Any], request: StageRequest) -> StageAnalysis:
    """Validate a decoded tracker answer into a :class:`StageAnalysis`.

    Requires one entry per evaluated side (paper 2.2.2) with the three rubric levels (level keys
    or their written-out English/Chinese names); ``score`` null/absent means the rubric table's
    suggested score (:func:`~adjudicator.rubric.suggested_score`), an integer 1-10 overrides it.
    Contributions are normalised to shares summing to 1 over the side's debaters (unknown labels
    dropped; none given = equal shares). Malformed clash updates are dropped, not fatal.
    Raises :class:`OutputInvalid`.
    """
    st = request.stage
    sides_raw = obj.get("sides")
    if isinstance(sides_raw, Mapping):  # {"affirmative": {...}, "negative": {...}}
        sides_raw = [{"side": k, **v} for k, v in sides_raw.items() if isinstance(v, Mapping)]
    if not isinstance(sides_raw, list):
        raise OutputInvalid("sides: expected a list with one entry per evaluated side")
    found: dict[str, Mapping[str, Any]] = {}
    for item in sides_raw:
        if not isinstance(item, Mapping):
            raise OutputInvalid("sides: every entry must be an object")
        side = as_side(item.get("side"), "sides.side")
        found.setdefault(side, item)
    analyses = []
    for side in st.evaluated_sides():
        item = found.get(side)
        if item is None:
            raise OutputInvalid(f"sides: no analysis for the {side}")
        task = as_choice(item.get("task_performance"), TASK_LEVELS, f"sides.{side}.task_performance", LEVEL_ALIASES)
        bf = as_choice(item.get("battlefield_judgement"), BATTLEFIELD_LEVELS, f"sides.{side}.battlefield_judgement", LEVEL_ALIASES)
        adv = as_choice(item.get("advancement"), ADVANCEMENT_LEVELS, f"sides.{side}.advancement", LEVEL_ALIASES)
        raw_score = item.get("score")
        score = suggested_score(task, bf, adv) if raw_score in (None, "", "null") else as_score(raw_score, f"sides.{side}.score")
        analyses.append(
            SideAnalysis(
                stage_id=st.stage_id,
                side=side,  # type: ignore[arg-type]
                role=st.role_of(side),  # type: ignore[arg-type]
                task_performance=task,  # type: ignore[arg-type]
                battlefield_judgement=bf,  # type: ignore[arg-type]
                advancement=adv,  # type: ignore[arg-type]
                suggested_score=score,
                rationale=_text(item.get("rationale"), 1000),
                contributions=_contributions(item.get("contributions"), _side_debaters(request.match, st, side)),
            )
        )
    return StageAnalysis(
        stage_id=st.stage_id,
        stage_index=request.index,
        sides=analyses,
        clash_updates=_clash_updates(obj.get("clash_updates"), request.match.debater_labels()),
        summary=_text(obj.get("summary"), 600),
    )


_SIDE_ANCHOR = re.compile(r"(?<![A-Za-z_])[\"']?side[\"']?\s*[:：]\s*[\"'“]?(affirmative|negative)", re.I)


def recover_stage_analysis(text: str) -> dict[str, Any] | None:
    """Stage-3 recovery for the tracker: split the text at each ``"side": "..."`` and read the
    three levels (and an optional score and rationale) from each piece that has them. Clash
    updates are not recovered."""
    anchors = list(_SIDE_ANCHOR.finditer(text))
    sides = []
    for i, m in enumerate(anchors):
        seg = text[m.start() : anchors[i + 1].start() if i + 1 < len(anchors) else len(text)]
        task = find_word(seg, ["task_performance"], list(TASK_LEVELS) + [k for k in LEVEL_ALIASES if LEVEL_ALIASES[k] in TASK_LEVELS])
        bf = find_word(seg, ["battlefield_judgement"], list(BATTLEFIELD_LEVELS))
        adv = find_word(seg, ["advancement"], list(ADVANCEMENT_LEVELS))
        if not (task and bf and adv):
            continue
        score = find_number(seg, ["score"])
        sides.append(
            {
                "side": m.group(1).lower(),
                "task_performance": task,
                "battlefield_judgement": bf,
                "advancement": adv,
                "score": int(score) if score is not None and float(score).is_integer() else None,
                "rationale": find_string(seg, ["rationale"]) or "",
            }
        )
    if not sides:
        return None
    return {"sides": sides, "clash_updates": [], "summary": ""}


def read_ballot(obj: Mapping[str, Any], request: JudgeRequest, model: str) -> Ballot:
    """Validate a decoded judge answer into a :class:`Ballot`.

    Requires an integer score 1-10 for every unit of :func:`judge_units` (a list of
    ``{"stage_id", "side", "score"}`` or a mapping ``"<stage_id>|<side>" -> score``; units not asked
    for are ignored, a unit given twice with different scores is invalid); p in [0, 1] and not 0.5
    (judges may not tie, paper 2.3); a winner agreeing with p (derived from p when absent); and
    best-debater votes over known position labels summing to exactly 3. Raises
    :class:`OutputInvalid` (or pydantic's ValidationError, also a ValueError).
    """
    units = judge_units(request)
    wanted = set(units)
    raw = obj.get("stage_scores")
    items: list[tuple[Any, Any, Any]] = []
    if isinstance(raw, Mapping):
        for k, v in raw.items():
            sid, _, side = str(k).partition("|")
            items.append((sid, side, v))
    elif isinstance(raw, list):
        for it in raw:
            if not isinstance(it, Mapping):
                raise OutputInvalid("stage_scores: every entry must be an object with stage_id, side and score")
            items.append((it.get("stage_id"), it.get("side"), it.get("score")))
    else:
        raise OutputInvalid("stage_scores: expected a list of {stage_id, side, score}")
    scores: dict[tuple[str, str], int] = {}
    for sid, side, value in items:
        try:
            side_n = as_side(side, "stage_scores.side")
        except OutputInvalid:
            continue
        unit = (str(sid).strip(), side_n)
        if unit not in wanted:
            continue
        score = as_score(value, f"stage_scores.{unit[0]}|{unit[1]}")
        if unit in scores and scores[unit] != score:
            raise OutputInvalid(f"stage_scores: {unit[0]}|{unit[1]} scored twice ({scores[unit]} and {score})")
        scores[unit] = score
    missing = [f"{sid}|{side}" for sid, side in units if (sid, side) not in scores]
    if missing:
        raise OutputInvalid(f"stage_scores: missing {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}")
    p = as_probability(obj.get("p"), "p")
    if p == 0.5:
        raise OutputInvalid("p: a judge may not tie; p must not be 0.5")
    implied = "affirmative" if p > 0.5 else "negative"
    winner = as_side(obj["winner"], "winner") if obj.get("winner") not in (None, "") else implied
    if winner != implied:
        raise OutputInvalid(f"winner: {winner} contradicts p={p}")
    votes = as_votes(obj.get("best_debater_votes"), request.match.debater_labels(), BALLOT_VOTES)
    return Ballot(
        judge_id=request.judge_id,
        perspective=request.perspective,
        model=model,
        winner=winner,  # type: ignore[arg-type]
        p=p,
        stage_scores=[BallotScore(stage_id=sid, side=side, score=scores[(sid, side)]) for sid, side in units],  # type: ignore[arg-type]
        best_debater_votes=votes,
        reasoning=_text(obj.get("reasoning"), 2000),
    )


def recover_ballot(text: str, labels: list[str]) -> dict[str, Any] | None:
    """Stage-3 recovery for a judge: unit scores from every small ``{...}`` holding a stage_id,
    a side and a score; p, winner and the votes from field-level patterns."""
    scores = []
    for span in small_objects(text):
        sid = find_string(span, ["stage_id"])
        side = find_word(span, ["side"], ["affirmative", "negative"])
        score = find_number(span, ["score"])
        if sid and side and score is not None:
            scores.append({"stage_id": sid, "side": side, "score": score})
    p = find_number(text, ["p"])
    if not scores or p is None:
        return None
    return {
        "stage_scores": scores,
        "p": p,
        "winner": find_word(text, ["winner"], ["affirmative", "negative"]),
        "best_debater_votes": find_votes(text, labels),
        "reasoning": find_string(text, ["reasoning"]) or "",
    }


# ---------------------------------------------------------------------------------------------
# The backend


class LLMBackend:
    """The node interfaces on one model (see the module docstring).

    ``client`` is the model client (shared with other backends on the same model if you like);
    ``prompts`` the template store; ``max_attempts`` the protocol's attempts (1-3, default 3).
    Safe to call from several threads at once.
    """

    is_llm = True

    def __init__(self, client: LLMClient, prompts: PromptStore | None = None, *, max_attempts: int = MAX_ATTEMPTS) -> None:
        self.client = client
        self.prompts = prompts or PromptStore()
        self.max_attempts = max_attempts
        self.name = client.model

    def __repr__(self) -> str:
        return f"LLMBackend({self.client!r})"

    def prompt_hashes(self) -> dict[str, str]:
        """Content hashes of the templates this backend renders (tracker and judge, zh and en)."""
        names = [template_name(n, lang) for n in (TRACK_NODE, JUDGE_NODE) for lang in ("zh", "en")]
        return self.prompts.hashes(names)

    def stage_prompt(self, request: StageRequest) -> ChatRequest:
        """The chat request of the tracker for one stage (exposed for tests and token counting)."""
        name = template_name(TRACK_NODE, prompt_language(request.match.format))
        rendered = self.prompts.render(name, stage_variables(request))
        return ChatRequest(
            messages=rendered.messages(),
            node=TRACK_NODE,
            key=request.stage.stage_id,
            template_hash=rendered.template_hash,
            schema=stage_schema(request),
            schema_name="stage_analysis",
        )

    def judge_prompt(self, request: JudgeRequest) -> ChatRequest:
        """The chat request of one judge (exposed for tests and token counting)."""
        name = template_name(JUDGE_NODE, prompt_language(request.match.format))
        rendered = self.prompts.render(name, judge_variables(request))
        return ChatRequest(
            messages=rendered.messages(),
            node=JUDGE_NODE,
            key=request.judge_id,
            template_hash=rendered.template_hash,
            schema=judge_schema(request),
            schema_name="ballot",
        )

    def analyse_stage(self, request: StageRequest) -> NodeResult[StageAnalysis]:
        """Track one stage: up to three attempts; a :class:`NodeFailure` with every raw output when
        none could be read. Never raises for model faults."""
        chat = self.stage_prompt(request)
        read = partial(parse_output, validate=partial(_validate_stage, request=request), recover=recover_stage_analysis)
        return run_attempts(self.client, chat, read, max_attempts=self.max_attempts)

    def judge(self, request: JudgeRequest) -> NodeResult[Ballot]:
        """One judge's ballot: up to three attempts; a :class:`NodeFailure` with every raw output
        when none could be read, or at once (no request) when no stage was analysed. Never raises
        for model faults."""
        if not judge_units(request):  # every stage analysis failed: no evidence to judge from
            reason = "no stage analysis succeeded, so there is nothing to judge from"
            return NodeResult(value=None, calls=[], failure=NodeFailure(node=JUDGE_NODE, key=request.judge_id, kind=FailureKind.NO_EVIDENCE, reason=reason))
        chat = self.judge_prompt(request)
        labels = request.match.debater_labels()
        read = partial(
            parse_output,
            validate=partial(_validate_ballot, request=request, model=self.client.model),
            recover=partial(recover_ballot, labels=labels),
        )
        return run_attempts(self.client, chat, read, max_attempts=self.max_attempts)


def _validate_stage(obj: dict[str, Any], request: StageRequest) -> StageAnalysis:
    return read_stage_analysis(obj, request)


def _validate_ballot(obj: dict[str, Any], request: JudgeRequest, model: str) -> Ballot:
    return read_ballot(obj, request, model)
