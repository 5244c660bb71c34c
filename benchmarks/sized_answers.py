"""Answers of the length a language model writes, for counting completion tokens without a model.

A stated estimate, not a measurement: :func:`sized_answer` takes the loopback server's valid answer to
a request (``tests/llm_helpers.schema_responder``, read off the request's response schema) and gives
each free-text field the length in :data:`ANSWER_CHARS` (neutral prose in the request's language), so
the completion tokens of both arms are counted from answers of the same, stated size. The lengths are
our assumption, from what each prompt asks for (a few sentences of reasoning, one or two of summary, a
short clash name, the single-call "basis" of at most 300 characters) and the tracker outputs'
lengths benchmarks/tokens.py already assumes for the ledger (:data:`tokens.LLM_TEXT_CHARS`). A tracker
answer also carries :data:`CLASH_UPDATES` clash updates (the loopback answer has one). The answer is
then written in the shape the request's response schema states (:func:`schema_shaped`), as a model
under strict structured output writes it.

Used by ``benchmarks/tokens.py`` (its completion estimate) and ``benchmarks/tokens_bench.py`` (what its
loopback server answers).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from llm_helpers import request_schema, schema_responder  # noqa: E402

#: Characters of each free-text field, by answer kind and field name (our assumption; see the module
#: docstring). "tracker" = the clash tracker's stage answer, "judge" = a judge's ballot, "single" = a
#: single-call task's answer.
ANSWER_CHARS: dict[str, dict[str, int]] = {
    "tracker": {"rationale": 150, "summary": 100, "title": 10, "note": 40, "affirmative_position": 40, "negative_position": 40},
    "judge": {"reasoning": 500, "text": 120},
    "single": {"basis": 250},
}
#: Clash updates in a tracker answer for one stage.
CLASH_UPDATES = 2

_FILLER = {
    "zh": "该方围绕核心争点展开论证并回应了对方的主要攻击，推进了己方在标准问题上的优势，但对对方提出的例证回应不够充分，整体推进有限。",
    "en": "The side pressed its main line on the central clash and answered the strongest attack, gaining ground on the standard, though one example went unanswered. ",
}
_CJK = re.compile(r"[\u4e00-\u9fff]")


def filler(chars: int, lang: str) -> str:
    """Neutral prose of exactly ``chars`` characters in ``lang`` ("zh" or "en")."""
    base = _FILLER["zh" if lang == "zh" else "en"]
    return (base * (chars // len(base) + 1))[:chars]


def request_language(body: dict[str, Any]) -> str:
    """"zh" when the request's messages hold Chinese characters, else "en"."""
    return "zh" if _CJK.search(json.dumps(body.get("messages", []), ensure_ascii=False)) else "en"


def _kind(answer: dict[str, Any]) -> str:
    if "stages" in answer or "sides" in answer or "rating" in answer:
        return "tracker"
    if "stage_scores" in answer:
        return "judge"
    return "single"


def _pad(value: Any, chars: dict[str, int], lang: str) -> Any:
    """``value`` with every string under a key of ``chars`` replaced by filler of that length (a
    position left empty stays empty: the tracker fills positions only when a clash opens)."""
    if isinstance(value, list):
        return [_pad(v, chars, lang) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for k, v in value.items():
        if k in chars and isinstance(v, str) and (v or not k.endswith("_position")):
            out[k] = filler(chars[k], lang)
        else:
            out[k] = _pad(v, chars, lang)
    return out


def _more_updates(stage: dict[str, Any]) -> dict[str, Any]:
    updates = stage.get("clash_updates") or []
    if updates and isinstance(updates, list):
        first = updates[0]
        extra = [{**first, "clash_id": f"{first['clash_id']}-{k}", "kind": "contested"} for k in range(1, CLASH_UPDATES)]
        stage = {**stage, "clash_updates": [*updates, *extra][:CLASH_UPDATES]}
    return stage


def sized_answer(body: dict[str, Any]) -> str:
    """The loopback server's valid answer to the request ``body`` (an OpenAI chat-completions request
    body with its ``response_format``) with its free-text fields at the lengths of
    :data:`ANSWER_CHARS` in the request's language; a tracker answer (one stage, or each stage of a
    window) with :data:`CLASH_UPDATES` clash updates. A repair turn's answer is padded the same way."""
    text = schema_responder(body)
    try:
        answer = json.loads(text)
    except ValueError:
        return text
    if not isinstance(answer, dict):
        return text
    kind = _kind(answer)
    if kind == "tracker":
        if "stages" in answer:
            answer = {"stages": {sid: _more_updates(st) for sid, st in answer["stages"].items()}}
        else:
            answer = _more_updates(answer)
    schema = response_schema_of(body)
    padded = _pad(answer, ANSWER_CHARS[kind], request_language(body))
    return json.dumps(schema_shaped(padded, schema) if schema else padded, ensure_ascii=False)


def response_schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON Schema a request sent as its ``response_format`` (``json_schema`` or the loopback
    clients' ``{"type": "json_object", "schema": ...}``), references inlined, None without one."""
    return request_schema(body)


def schema_shaped(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` (a loopback answer) in the shape ``schema`` states, as a provider's strict structured
    output writes it: an object's keys those of the schema, in its order (a key the schema lacks is
    left out); a list of per-side entries (``{"side": ..., ...}``) where the schema has an object keyed
    by side, that object; a list of stage scores (``{"stage_id", "side", "score"}``) where it has one
    keyed by unit (``"<stage_id>|<side>"``), that object; a vote mapping (label -> count) where it has
    a list of labels, each label as many times as its count. The loopback answers use the lenient
    shapes the readers also accept (tests/llm_helpers.py), which differ in length from the schema's
    (a stage score as an object of three keys is about 17 tokens, as a keyed integer about 7; nine
    votes as a list about 45, as a mapping about 14), so completion tokens are counted on the shape a
    schema-following model writes."""
    kind = schema.get("type")
    if isinstance(kind, list) and value is not None:  # a nullable value given: shaped as its type (the chair's feedback)
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" and "properties" in schema:
        props: dict[str, Any] = schema["properties"]
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            if all("side" in v for v in value) and all(v["side"] in props for v in value):
                value = {v["side"]: {k: x for k, x in v.items() if k != "side"} for v in value}
            elif all({"stage_id", "side", "score"} <= set(v) for v in value):
                value = {f"{v['stage_id']}|{v['side']}": v["score"] for v in value}
        if not isinstance(value, dict):
            return value
        return {k: schema_shaped(value[k], props[k]) for k in props if k in value}
    if kind == "array" and isinstance(schema.get("items"), dict):
        if isinstance(value, dict) and all(isinstance(n, int) for n in value.values()):
            value = [label for label, n in value.items() for _ in range(n)]
        if isinstance(value, list):
            return [schema_shaped(v, schema["items"]) for v in value]
    return value
