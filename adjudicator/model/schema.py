"""Response schemas from pydantic output models: the shape of an answer we ask a model for.

A node declares its answer as an :class:`OutputModel` (every field required, no extra keys) and
sends :func:`response_schema` of it as the structured-output schema
(:attr:`~adjudicator.model.llm.ChatRequest.schema`). The schema is pydantic's ``model_json_schema()``
reduced to the plain subset OpenAI's strict structured output and llama.cpp's grammar accept:

- nested models inlined (no ``$defs`` / ``$ref``), no ``title`` or ``description`` (class names and
  docstrings are for readers of the code, not words sent to the model);
- an enum (a ``Literal``, :func:`one_of`) as ``{"type": "string", "enum": [...]}``, a single value too;
- an optional value (``int | None``) as ``{"type": ["integer", "null"]}``;
- keys in a fixed order (``type``, ``enum``, ``items``, ``properties``, ``required``,
  ``additionalProperties``), so the request bytes -- and so cache keys -- do not depend on pydantic's
  own key order.

Per-request shapes (enums of the stage's sides, of the unit stage ids, of the debater labels; one
property per debater label) are built with :func:`output_model`, :func:`one_of` and :func:`votes_model`.
The parser (:mod:`adjudicator.model.parsing`) does not depend on these models: they describe what we
ask for; validation of what comes back is the node's validator.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model

#: The keys a response schema may carry, in the order they are written.
SCHEMA_KEYS: tuple[str, ...] = ("type", "enum", "items", "properties", "required", "additionalProperties")
#: pydantic's annotations from class and field names and docstrings, left out of a response schema.
_DROPPED = frozenset({"title", "description"})


class OutputModel(BaseModel):
    """Base of a model's answer: no keys beyond the declared ones (``additionalProperties: false``)."""

    model_config = ConfigDict(extra="forbid")


def one_of(values: Sequence[str]) -> Any:
    """The type "one of ``values``" (a ``Literal``; JSON Schema ``enum`` in this order). No values gives
    the unsatisfiable ``{"type": "string", "enum": []}`` (pydantic has no empty Literal)."""
    if not values:
        return Annotated[str, WithJsonSchema({"type": "string", "enum": []})]
    return Literal[tuple(values)]


def list_of(item: Any) -> Any:
    """The type "a list of ``item``" for a model built at run time (JSON Schema ``array``)."""
    return list[item]


def output_model(name: str, **fields: Any) -> type[OutputModel]:
    """An :class:`OutputModel` named ``name`` with the given field types, every field required, in
    the order given (the order of the schema's ``properties`` and ``required``)."""
    required: dict[str, Any] = {key: (kind, ...) for key, kind in fields.items()}
    return create_model(name, __base__=OutputModel, **required)


def votes_model(labels: Sequence[str], name: str = "Votes") -> type[OutputModel]:
    """An object with one required integer per debater position label (``"Affirmative Speaker 1"``
    ...), in the order given. Labels are not Python names, so each is a field's alias."""
    fields: dict[str, Any] = {f"vote_{i}": (int, Field(alias=label)) for i, label in enumerate(labels)}
    return create_model(name, __base__=OutputModel, **fields)


def response_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The plain JSON Schema of ``model`` (module docstring). Raises ValueError for a construct
    outside the plain subset (a default, a union of objects, a constraint ...), so a changed model
    cannot silently send a different kind of schema. Computed once per model class; each call
    returns a fresh copy."""
    return copy.deepcopy(_schema_of(model))


@lru_cache(maxsize=1024)
def _schema_of(model: type[BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    return _plain(raw, defs)


def _plain(node: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    if "$ref" in node:
        return _plain(defs[str(node["$ref"]).rsplit("/", 1)[-1]], defs)
    if "anyOf" in node:  # an optional value: every branch a bare type
        branches = [_plain(b, defs) for b in node["anyOf"]]
        if any(set(b) != {"type"} or not isinstance(b["type"], str) for b in branches):
            raise ValueError(f"response schema: only unions of bare types are supported, not {node['anyOf']}")
        return {"type": [b["type"] for b in branches]}
    out = {k: v for k, v in node.items() if k not in _DROPPED}
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if "items" in out:
        out["items"] = _plain(out["items"], defs)
    if "properties" in out:
        out["properties"] = {key: _plain(value, defs) for key, value in out["properties"].items()}
    unknown = set(out) - set(SCHEMA_KEYS)
    if unknown:
        raise ValueError(f"response schema: unsupported keyword(s) {sorted(unknown)}")
    return {key: out[key] for key in SCHEMA_KEYS if key in out}
