"""The single-call arm's per-dimension task (issue 13): one request over the whole transcript that
rates both sides on every dimension of a dimensional rubric, so both arms are compared per dimension.

The model answers (``prompts/task_dimensions.<lang>.j2``): a basis, per rating dimension each side's
score over the whole debate and the winner or "tie"; under ``logical_validity`` each side's count of
arguments and of valid ones; under ``fact_authenticity`` with an evidence source, each side's atomic
factual claims, which code checks against the source (:func:`adjudicator.input.evidence.support`). Read
into one :class:`~adjudicator.verdict.dimensions.DimensionVote` per dimension, the arm's single "judge".
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from adjudicator.input.evidence import source_for_match, support
from adjudicator.input.formats import Side
from adjudicator.input.match import MatchView
from adjudicator.input.rubric import Rubric
from adjudicator.judges.llm.dimensions import answer_spec, dimension_variables, number
from adjudicator.model.chat import ChatRequest
from adjudicator.model.parsing import ParseResult, parse_output
from adjudicator.model.prompts import PromptStore, prompt_language
from adjudicator.model.schema import list_of, one_of, output_model, response_schema
from adjudicator.model.validators import OutputInvalid
from adjudicator.verdict.dimensions import NO_EVIDENCE, SIDES, DimensionVote, decide

DIMENSIONS_NODE = "dimensions"
TEMPLATE = "task_dimensions"
MATCH_KEY = "match"
MAX_CLAIMS = 30


def dimensions_schema(rubric: Rubric, evidence: Any) -> dict[str, Any]:
    """The response schema of the task for ``rubric`` (and whether claims are asked for)."""
    keys, validity, claims = answer_spec(rubric, evidence) or ((), False, False)
    fields: dict[str, Any] = {"basis": str}
    if keys:
        fields["dimensions"] = list_of(output_model("TaskDimensionAnswer", dimension=one_of(keys), affirmative=float, negative=float, winner=one_of(("affirmative", "negative", "tie"))))
    if validity:
        count = output_model("ArgumentCount", arguments=int, valid=int)
        fields["logical_validity"] = output_model("ValidityAnswer", affirmative=count, negative=count)
    if claims:
        fields["claims"] = output_model("ClaimsAnswer", affirmative=list_of(str), negative=list_of(str))
    return response_schema(output_model("DimensionsTaskAnswer", **fields))


def dimensions_request(view: MatchView, store: PromptStore, rubric: Rubric, evidence: Any, match_variables: dict[str, Any], stages: list[dict[str, Any]]) -> ChatRequest:
    """The task's request: the match header and the whole transcript (as Task 1) with the rubric's dimensions."""
    lang = prompt_language(view.format)
    rendered = store.render(f"{TEMPLATE}.{lang}.j2", {**match_variables, "stages": stages, **dimension_variables(rubric, lang, evidence)})
    return ChatRequest(messages=rendered.messages(), node=DIMENSIONS_NODE, key=MATCH_KEY, template_hash=rendered.template_hash, schema=dimensions_schema(rubric, evidence), schema_name="dimensions")



def read_dimensions(obj: Mapping[str, Any], rubric: Rubric, view: MatchView, evidence: Any) -> list[DimensionVote]:
    """The task's answer as one vote per dimension. Raises OutputInvalid when no rating dimension
    has both sides' scores (nothing usable was answered)."""
    given = {str(it.get("dimension")): it for it in (obj.get("dimensions") or []) if isinstance(it, Mapping)} if isinstance(obj.get("dimensions"), list) else {}
    out: list[DimensionVote] = []
    rated = 0
    for dim in rubric.dimensions:
        if dim.check == "rating":
            it = given.get(dim.key)
            nums = {s: number(it.get(s)) for s in SIDES} if it else {}
            if not it or any(v is None for v in nums.values()):
                out.append(DimensionVote(dimension=dim.key, note="not assessed: the model gave no scores"))
                continue
            scores: dict[Side, float] = {s: round(min(dim.scale_max, max(dim.scale_min, v)), 2) for s, v in nums.items() if v is not None}
            w = str(it.get("winner") or "").lower()
            out.append(DimensionVote(dimension=dim.key, scores=scores, winner=w if w in ("affirmative", "negative", "tie") else decide(dim, scores, rubric.tie_margin)))  # type: ignore[arg-type]
            rated += 1
        elif dim.check == "logical_validity":
            raw_lv = obj.get("logical_validity")
            lv: Mapping[str, Any] = raw_lv if isinstance(raw_lv, Mapping) else {}
            scores = {}
            for s in SIDES:
                raw_c = lv.get(s)
                c: Mapping[str, Any] = raw_c if isinstance(raw_c, Mapping) else {}
                n, k = number(c.get("arguments")), number(c.get("valid"))
                if n and k is not None and n > 0:
                    scores[s] = round(min(1.0, max(0.0, k / n)), 4)
            out.append(DimensionVote(dimension=dim.key, scores=scores, winner=decide(dim, scores, rubric.tie_margin), note="" if len(scores) == 2 else "not assessed: no argument counts for both sides"))
        elif dim.check == "fact_authenticity":
            source = source_for_match(evidence, [(st.stage_id, "\n".join(u.text for u in st.utterances)) for st in view.stages])
            if source is None:
                out.append(DimensionVote(dimension=dim.key, note=NO_EVIDENCE))
                continue
            raw_cl = obj.get("claims")
            cl: Mapping[str, Any] = raw_cl if isinstance(raw_cl, Mapping) else {}
            scores = {}
            for s in SIDES:
                claims = [str(c) for c in (cl.get(s) or []) if str(c).strip()][:MAX_CLAIMS] if isinstance(cl.get(s), list) else []
                if claims:
                    scores[s] = round(sum(support(c, source.retrieve(c))[0] for c in claims) / len(claims), 4)
            out.append(DimensionVote(dimension=dim.key, scores=scores, winner=decide(dim, scores, rubric.tie_margin), note="" if len(scores) == 2 else "not assessed: no claims for both sides"))
    if not rated and any(d.check == "rating" for d in rubric.dimensions):
        raise OutputInvalid("dimensions: no dimension has scores for both sides")
    return out


def dimensions_reader(rubric: Rubric, view: MatchView, evidence: Any):
    """The task's reader: the three-stage parser with :func:`read_dimensions` as validator."""

    def read(text: str) -> ParseResult[list[DimensionVote]]:
        return parse_output(text, validate=partial(read_dimensions, rubric=rubric, view=view, evidence=evidence))

    return read
