"""The LLM judge's answers: the response schemas of the tracker's stage analysis and a judge's ballot.

Sent for structured output; the parser does not depend on them (:mod:`adjudicator.judges.llm.recovery`
validates what comes back). Reasoning fields come before the ratings.
"""

from __future__ import annotations

from typing import Any

from adjudicator.battlefield import CLASH_KINDS
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.variables import judge_units
from adjudicator.rubric import ADVANCEMENT_LEVELS, BATTLEFIELD_LEVELS, TASK_LEVELS


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
