"""The one base of every pydantic model that crosses a boundary (the design card, Conventions).

:class:`FrozenModel` instances are immutable (``frozen``) and reject unknown fields (``extra="forbid"``),
so a typo in a match file, a model's answer or a result file is an error, never a silently dropped
value. Input models that must not coerce types (a JSON ``"7"`` is not the integer 7) derive from
:class:`StrictModel` (``strict=True`` on top: the match file, :mod:`adjudicator.input.match`).

Their JSON Schemas (``adjudicate schema``, the input and output schemas LangGraph Studio shows) are
read by people in editors and forms that show text as it is, so a docstring's reStructuredText
markup, which is for readers of the code, becomes plain text there (:func:`plain_text`). A model's
answer schema carries no descriptions at all (:mod:`adjudicator.model.schema`).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict

_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`<]*?)\s*(?:<[^`>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``")


def plain_text(doc: str) -> str:
    """reStructuredText of a docstring as plain text: a role (``:class:`~a.b.C```, ``:meth:`x.y```)
    becomes its target's name (the last part after ``~``), an inline literal its text, and the lines
    of a paragraph one line (paragraphs stay apart by a blank line)."""
    text = _ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2), doc)
    text = _LITERAL.sub(r"\1", text)
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def plain_descriptions(schema: dict[str, Any], _cls: type) -> None:
    """``json_schema_extra`` of every FrozenModel (and of TypedDicts shown to people, as their
    ``__pydantic_config__``): its own and its fields' descriptions as plain text."""
    if isinstance(schema.get("description"), str):
        schema["description"] = plain_text(schema["description"])
    for prop in (schema.get("properties") or {}).values():
        if isinstance(prop, dict) and isinstance(prop.get("description"), str):
            prop["description"] = plain_text(prop["description"])


class FrozenModel(BaseModel):
    """Immutable, unknown fields forbidden. Subclasses may add settings to ``model_config``; pydantic
    merges them with these."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra=plain_descriptions)


class StrictModel(FrozenModel):
    """A FrozenModel that does not coerce types: a JSON string ``"7"`` or a boolean is not silently
    taken as the integer 7 or 1 (the match file's models); and refuses a number that is not finite
    (NaN, infinity: from a converter's CSV, say), naming its field."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False)
