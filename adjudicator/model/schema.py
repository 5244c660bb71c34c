"""Response schemas from pydantic output models: the shape of an answer we ask a model for.

A node declares its answer as an :class:`OutputModel` (every field required, no extra keys) and
sends :func:`response_schema` of it as the structured-output schema
(:attr:`~adjudicator.model.llm.ChatRequest.schema`). The schema is pydantic's ``model_json_schema()``
reduced to the plain subset OpenAI's strict structured output and llama.cpp's grammar accept:

- nested models inlined (no ``$defs`` / ``$ref``: what our own readers of a schema see; a request
  sends a repeated part once under ``$defs``, :func:`wire_schema`), no ``title`` or ``description``
  (class names and docstrings are for readers of the code, not words sent to the model);
- an enum (a ``Literal``, :func:`one_of`) as ``{"type": "string", "enum": [...]}``, a single value too;
- an optional value (``int | None``) as ``{"type": ["integer", "null"]}`` (with the value's range, if any);
  an optional object (``Model | None``) likewise as the object's own node with ``"type": ["object", "null"]``
  (OpenAI strict mode's "union with null"; llama.cpp's grammar reads a type list as a union), so the
  readers of a schema (:func:`sub_schema`, the repair turn's shape) still see its properties;
- ranges as ``minimum``/``maximum`` (integers and numbers) and exact lengths as ``minItems``/``maxItems``;
- keys in a fixed order (:data:`SCHEMA_KEYS`), so the request bytes -- and so cache keys -- do not
  depend on pydantic's own key order.

An answer's schema is *exact*: what a complete answer is, so that a server that constrains decoding
(llama.cpp's grammar, vLLM, Ollama, OpenAI strict structured outputs) can only produce a complete one.
Every unit of the request is a required key of an object (:func:`keyed_model`: one key per scored unit
or per evaluated side, never an open-ended array), scores and p carry their ranges (:func:`score`,
:func:`probability`), and vote totals are stated by the shape itself (:func:`ballots_of`: a list of
exactly N position labels, one per vote). Ranges are not enforced by every grammar (llama.cpp leaves
number ranges open), so validation and the repair turn still check them.

Per-request shapes (enums of the stage's sides and of the debater labels; one key per unit) are built
from the request's units with :func:`output_model`, :func:`one_of`, :func:`keyed_model` and
:func:`ballots_of`, never from hard-coded sides. The parser (:mod:`adjudicator.model.parsing`) does not
depend on these models: they describe what we ask for; validation of what comes back is the node's
validator. :func:`sub_schema` cuts a schema down to named fields (the repair turn asks for those only)
and :func:`field_share` says what share of an answer's fields a set of them is.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model

#: The keys a response schema may carry, in the order they are written.
SCHEMA_KEYS: tuple[str, ...] = ("type", "enum", "minimum", "maximum", "items", "minItems", "maxItems", "properties", "required", "additionalProperties")
#: pydantic's names of the range and length keywords -> the JSON Schema keywords kept.
_RANGE_KEYS = ("minimum", "maximum", "minItems", "maxItems")
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


def score(lo: int = 1, hi: int = 10) -> Any:
    """The type "an integer from ``lo`` to ``hi``" (default 1-10, paper 2.5): ``minimum``/``maximum``."""
    return Annotated[int, Field(ge=lo, le=hi)]


def probability() -> Any:
    """The type "a number from 0 to 1" (a winner tendency p, protocol Task 1)."""
    return Annotated[float, Field(ge=0.0, le=1.0)]


def ballots_of(labels: Sequence[str], total: int) -> Any:
    """The type "exactly ``total`` votes, each one of ``labels``": an array of position labels with
    ``minItems == maxItems == total``, so the vote total is part of the shape (a label listed twice
    has two votes)."""
    return Annotated[list[one_of(labels)], Field(min_length=total, max_length=total)]  # type: ignore[misc]


def keyed_model(name: str, keys: Sequence[str], value: Any) -> type[OutputModel]:
    """An object with one required key per entry of ``keys`` (in order), each holding ``value``
    (a type, e.g. :func:`score` or an :class:`OutputModel`): the exact form of "one entry per unit".
    Keys need not be Python names (``"s03|affirmative"``), so each is a field's alias."""
    fields: dict[str, Any] = {f"key_{i}": (value, Field(alias=key)) for i, key in enumerate(keys)}
    return create_model(name, __base__=OutputModel, **fields)


def response_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The plain JSON Schema of ``model`` (module docstring). Raises ValueError for a construct
    outside the plain subset (a default, a union of objects other than one object or null, a constraint other than a range or a
    length ...), so a changed model
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
    if "anyOf" in node:  # an optional value: bare types, one of them may carry a range; or an optional object
        branches = [_plain(b, defs) for b in node["anyOf"]]
        objects = [b for b in branches if b.get("type") == "object"]
        if len(branches) == 2 and len(objects) == 1 and {"type": "null"} in branches:
            return {**objects[0], "type": ["object", "null"]}
        if any(not isinstance(b.get("type"), str) or set(b) - {"type", *_RANGE_KEYS} for b in branches):
            raise ValueError(f"response schema: only unions of bare types are supported, not {node['anyOf']}")
        ranged = [b for b in branches if set(b) != {"type"}]
        if len(ranged) > 1:
            raise ValueError(f"response schema: only one branch of a union may carry a range, not {node['anyOf']}")
        merged = {**(ranged[0] if ranged else {}), "type": [b["type"] for b in branches]}
        return {key: merged[key] for key in SCHEMA_KEYS if key in merged}
    out = {k: v for k, v in node.items() if k not in _DROPPED}
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if "items" in out:
        out["items"] = _plain(out["items"], defs)
    if "properties" in out:
        out["properties"] = {key: _plain(value, defs) for key, value in out["properties"].items()}
        out.setdefault("required", [])  # an object without keys still says so (strict mode wants the key)
    unknown = set(out) - set(SCHEMA_KEYS)
    if unknown:
        raise ValueError(f"response schema: unsupported keyword(s) {sorted(unknown)}")
    return {key: out[key] for key in SCHEMA_KEYS if key in out}


# ---------------------------------------------------------------------------------------------
# The schema as sent: a repeated part once, under $defs

#: A sub-schema repeated in a response schema is sent once under ``$defs`` when its JSON is at least
#: this many characters: a ``{"$ref": "#/$defs/d1"}`` is 22, so a shorter repeat would not pay.
MIN_SHARED_CHARS = 60


def _canonical(node: Mapping[str, Any]) -> str:
    return json.dumps(node, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _children(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A schema node's sub-schemas: its properties' values and its items."""
    kids = [v for v in (node.get("properties") or {}).values() if isinstance(v, Mapping)]
    items = node.get("items")
    return [*kids, items] if isinstance(items, Mapping) else kids


def wire_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` (a plain response schema, :func:`response_schema`) as a request sends it: every
    object sub-schema that occurs at least twice, byte for byte, with JSON of at least
    :data:`MIN_SHARED_CHARS` characters, written once under the root's ``$defs`` (named ``d1``,
    ``d2``, ... in order of first occurrence, depth first) and referred to as
    ``{"$ref": "#/$defs/dN"}`` (JSON Schema's reuse; OpenAI's strict structured output and
    llama.cpp's grammar read local ``$defs`` references). Why: a provider bills the response schema
    as prompt tokens, and an inlined schema repeats each nested part in full -- the tracker's window
    schema repeats the stage answer once per stage, a ballot's feedback repeats its point three times
    per debater (debateart_4395: 1,814 and 826 tokens). The accepted answers do not change, and our
    own readers keep the inlined schema (:func:`inline_refs` undoes this). A schema without repeats
    is returned as a copy, unchanged."""
    text = json.dumps(schema, ensure_ascii=False)
    return copy.deepcopy(_wire(text))


@lru_cache(maxsize=1024)
def _wire(text: str) -> dict[str, Any]:
    """:func:`wire_schema` of the schema written as ``text`` (computed once per schema: it runs for
    every request). Two passes: the first finds the repeated parts and how often each is referred to
    once written out; a part referred to only once (repeated only inside another repeated part) would
    cost more as a reference, so the second pass writes it inline and names the others in order."""
    schema = json.loads(text)
    counts: Counter[str] = Counter()
    stack: list[Mapping[str, Any]] = list(_children(schema))
    while stack:
        node = stack.pop()
        if node.get("properties"):
            counts[_canonical(node)] += 1
        stack.extend(_children(node))
    shared = {c for c, n in counts.items() if n >= 2 and len(c) >= MIN_SHARED_CHARS}
    root, defs, uses = _emit(schema, shared)
    shared -= {key for key, n in uses.items() if n < 2}
    if not shared:
        return schema
    root, defs, _ = _emit(schema, shared)
    return {**root, "$defs": defs}


def _emit(schema: Mapping[str, Any], shared: set[str]) -> tuple[dict[str, Any], dict[str, dict[str, Any]], Counter[str]]:
    """``schema`` with each part in ``shared`` (canonical JSON texts) written once under a name
    (``d1``, ``d2``, ... in order of first occurrence, depth first) and referred to elsewhere: the
    root, the definitions, and how often each shared part is referred to."""
    names: dict[str, str] = {}
    defs: dict[str, dict[str, Any]] = {}
    uses: Counter[str] = Counter()

    def emit(node: Mapping[str, Any], top: bool = False) -> dict[str, Any]:
        key = _canonical(node) if node.get("properties") else ""
        if top or key not in shared:
            out = dict(node)
            if isinstance(node.get("properties"), Mapping):
                out["properties"] = {k: emit(v) if isinstance(v, Mapping) else v for k, v in node["properties"].items()}
            if isinstance(node.get("items"), Mapping):
                out["items"] = emit(node["items"])
            return out
        uses[key] += 1
        if key not in names:
            names[key] = name = f"d{len(names) + 1}"
            defs[name] = {}  # reserved first, so the names follow first occurrence
            defs[name] = emit(node, top=True)
        return {"$ref": f"#/$defs/{names[key]}"}

    return emit(schema, top=True), defs, uses


def inline_refs(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The plain schema of a :func:`wire_schema` (or any schema with local ``#/$defs/...``
    references): every reference replaced by its definition, ``$defs`` left out. Raises KeyError
    for a reference to a definition the schema does not carry."""
    defs = schema.get("$defs") or {}

    def walk(node: Any) -> Any:
        if isinstance(node, Mapping):
            if "$ref" in node:
                return walk(defs[str(node["$ref"]).rsplit("/", 1)[-1]])
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    out: dict[str, Any] = walk(schema)
    return out


# ---------------------------------------------------------------------------------------------
# Parts of a schema: the fields a repair turn asks for, and a placeholder answer

FieldPath = tuple[str, ...]


def sub_schema(schema: Mapping[str, Any], fields: Sequence[FieldPath]) -> dict[str, Any]:
    """``schema`` (an object schema) cut down to the given fields, each a key path (``("p",)``,
    ``("stage_scores", "s03|affirmative")``): every object on a path keeps only the keys asked for,
    all required, in the schema's order. A path that leaves the schema (a key it does not declare) stops
    at its last known key, which is then asked for whole. No fields gives the schema unchanged."""
    if not fields:
        return copy.deepcopy(dict(schema))
    tree: dict[str, Any] = {}
    for path in fields:
        node, level = schema, tree
        for i, key in enumerate(path):
            props = node.get("properties") or {}
            if key not in props:
                break
            last = i == len(path) - 1 or not (props[key].get("properties"))
            if last:
                level[key] = None  # the whole value
                break
            child = level.get(key, {})
            if child is None:  # already asked for whole
                break
            level[key] = child
            node, level = props[key], child
    return _cut(schema, tree)


def _cut(schema: Mapping[str, Any], tree: Mapping[str, Any]) -> dict[str, Any]:
    props = schema.get("properties") or {}
    keep = [k for k in props if k in tree]
    out = {k: copy.deepcopy(v) for k, v in schema.items() if k not in ("properties", "required")}
    out["properties"] = {k: (copy.deepcopy(props[k]) if tree[k] is None else _cut(props[k], tree[k])) for k in keep}
    out["required"] = keep
    return {key: out[key] for key in SCHEMA_KEYS if key in out}


def _leaves(schema: Mapping[str, Any], path: FieldPath = ()) -> list[FieldPath]:
    """Every leaf field of ``schema`` as a key path: an object's declared keys recursively; a list, a
    string, a number or a choice is one leaf."""
    props = schema.get("properties")
    if isinstance(props, Mapping) and props:
        return [leaf for key, child in props.items() for leaf in _leaves(child, (*path, key))]
    return [path]


def field_share(schema: Mapping[str, Any] | None, fields: Sequence[FieldPath]) -> float:
    """The share (0-1) of ``schema``'s leaf fields that lie under any of ``fields`` (key paths, as a
    repair turn asks for them; no fields = the whole answer, 1.0). ``("sides",)`` covers every leaf of
    every side; a path the schema does not declare covers nothing. 1.0 for a schema without leaves."""
    if schema is None or not fields:
        return 1.0
    leaves = _leaves(schema)
    if not leaves:
        return 1.0
    covered = [leaf for leaf in leaves if any(leaf[: len(f)] == tuple(f) for f in fields)]
    return len(covered) / len(leaves)
