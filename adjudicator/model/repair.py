"""The repair turn: re-ask a model only for the fields its answer got wrong.

When a reply decodes to an object but the node's validator rejects it -- a unit's score missing, p out
of range, the votes not summing to three -- resending the whole request spends the whole prompt and
the whole answer again, and a weak model tends to make the same slip. A repair turn instead continues
the conversation: the original messages, the model's answer as the assistant's turn, then a short user
turn (``prompts/repair.<lang>.j2``) that quotes the validator's message and asks for the failed fields
only, with the response schema cut down to them (:func:`~adjudicator.model.schema.sub_schema`), so a
server that constrains decoding can only return those fields. The reply (the *patch*) is merged into
the answer (:func:`merge`) and the merged answer goes through the node's reader again.

The fields come from the validator (:attr:`~adjudicator.model.validators.OutputInvalid.fields`, carried
in :attr:`~adjudicator.model.parsing.ParseResult.invalid_fields`); a validator that names none gets the
whole answer asked for again, still with its message. A reply with no decodable object cannot be
repaired: the attempts runner then resends the original request, as the protocol does.

What the turn states about a field is the validator's rule where it is narrower than the schema (the
ranges of :attr:`~adjudicator.model.validators.OutputInvalid.ranges`: a judge's p is "0.0 to 0.49 or
0.51 to 1.0", not "0.0 to 1.0") and the values of it already refused (:attr:`RepairTurn.refused`), so a
second repair turn is never the first one again. A reply that leaves the answer as it was
(:meth:`RepairTurn.changed_nothing`) ends the node at once: at temperature 0 the next turn would
be the same request again and get the same patch (issue 25: 6 of 13 requests of one match).

A repair is one step of :func:`~adjudicator.model.attempts.run_attempts`, kept apart from the other
ways of choosing the next attempt (resending, or a larger budget after a truncated reply); it counts
as one of the protocol's three attempts. Its request is deterministic (the messages hold the answer
shown, so the cache key covers it): a cached rerun replays the same repair from the cache.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from adjudicator.model.chat import ChatRequest
from adjudicator.model.parsing import ParseResult, parse_output
from adjudicator.model.prompts import PromptStore
from adjudicator.model.reasoning import split_reasoning
from adjudicator.model.schema import FieldPath, sub_schema
from adjudicator.model.validators import Ranges

T = TypeVar("T")

#: The longest refused text a repair turn quotes back (characters); a longer or non-scalar value
#: (an object, a list, a paragraph) is not quoted: the shape and the error say what is wrong with it.
QUOTED_VALUE_CHARS = 60

#: Template stem of the repair turn (``prompts/repair.<lang>.j2``).
REPAIR_TEMPLATE = "repair"


def template_name(language: str) -> str:
    """The repair template of a language, e.g. ``repair.zh.j2``."""
    return f"{REPAIR_TEMPLATE}.{language}.j2"


def _lookup(obj: Any, path: Sequence[str]) -> tuple[bool, Any]:
    for key in path:
        if not isinstance(obj, Mapping) or key not in obj:
            return False, None
        obj = obj[key]
    return True, obj


def merge(base: Mapping[str, Any], patch: Mapping[str, Any], fields: Sequence[FieldPath]) -> dict[str, Any]:
    """``base`` with each field of ``fields`` (key paths) replaced by the patch's value for it.

    The patch is read at the full path (``{"stage_scores": {"s03|affirmative": 7}}``) or, for a
    nested field, at its last key alone (``{"s03|affirmative": 7}``: a model that dropped the
    wrapper). A field the patch does not hold keeps the base's value. With no ``fields`` (the whole
    answer was asked for) every top-level key of the patch replaces the base's. Pure: ``base`` is not
    changed."""
    out = copy.deepcopy(dict(base))
    if not fields:
        out.update(copy.deepcopy(dict(patch)))
        return out
    for path in fields:
        found, value = _lookup(patch, path)
        if not found and len(path) > 1:
            found, value = _lookup(patch, path[-1:])
        if not found:
            continue
        node = out
        for key in path[:-1]:
            child = node.get(key)
            if not isinstance(child, dict):
                child = {}
                node[key] = child
            node = child
        node[path[-1]] = copy.deepcopy(value)
    return out


def _object(obj: dict[str, Any]) -> dict[str, Any]:
    return obj


def describe(schema: Mapping[str, Any], ranges: Ranges | None = None) -> dict[str, Any]:
    """What a repair prompt says about one field's schema: ``kind`` (integer, number, choice, labels,
    object, text, boolean), ``minimum``/``maximum``, ``ranges`` (the validator's narrower rule, a list
    of ``[low, high]``, or None: then ``minimum``/``maximum`` say it), ``choices`` (an enum, or a list's
    items), ``count`` (a list's exact length) and ``members`` (an object's keys)."""
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    out: dict[str, Any] = {
        "nullable": "null" in kinds, "minimum": schema.get("minimum"), "maximum": schema.get("maximum"),
        "ranges": [list(r) for r in ranges] if ranges else None, "choices": None, "count": None, "members": None,
    }  # fmt: skip
    if "enum" in schema:
        out.update(kind="choice", choices=list(schema["enum"]))
    elif "array" in kinds:
        items = schema.get("items") or {}
        exact = schema.get("minItems") if schema.get("minItems") == schema.get("maxItems") else None
        out.update(kind="list", choices=list(items.get("enum") or []) or None, count=exact)
    elif "object" in kinds:
        out.update(kind="object", members=list((schema.get("properties") or {}).keys()))
    elif "integer" in kinds:
        out.update(kind="integer")
    elif "number" in kinds:
        out.update(kind="number")
    elif "boolean" in kinds:
        out.update(kind="boolean")
    else:
        out.update(kind="text")
    return out


def shape_of(schema: Mapping[str, Any], ranges: Mapping[FieldPath, Ranges] | None = None, path: FieldPath = ()) -> dict[str, Any]:
    """The reply's shape as a tree the repair template writes out (``prompts/repair.<lang>.j2``,
    macro ``shape``) with a description in every value's place, never a value: an object is
    ``{"kind": "object", "keys": [[json key, node], ...]}``, a list of objects ``{"kind": "items",
    "count": n or None, "item": node}``, anything else a leaf of :func:`describe`. A model that
    copies the shape back returns descriptions, which fail validation (issue 25: the skeleton of
    first enum values, minimums and empty strings it replaced validated as an answer). A leaf at a
    ``path`` of ``ranges`` describes those ranges (:func:`describe`)."""
    ranges = ranges or {}
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "object" in kinds and schema.get("properties"):
        return {"kind": "object", "keys": [[json.dumps(k, ensure_ascii=False), shape_of(v, ranges, (*path, k))] for k, v in schema["properties"].items()]}
    items = schema.get("items") or {}
    if "array" in kinds and items.get("properties"):
        exact = schema.get("minItems") if schema.get("minItems") == schema.get("maxItems") else None
        return {"kind": "items", "count": exact, "item": shape_of(items, ranges, path)}
    return describe(schema, ranges.get(path))


def _field_schema(schema: Mapping[str, Any] | None, path: FieldPath) -> Mapping[str, Any]:
    node: Mapping[str, Any] = schema or {}
    for key in path:
        node = (node.get("properties") or {}).get(key) or {}
    return node


def _quoted(value: Any) -> str | None:
    """``value`` as the repair turn quotes it back (JSON, e.g. ``0.5``, ``"draw"``), or None when it
    is not a scalar or is text longer than :data:`QUOTED_VALUE_CHARS`."""
    if isinstance(value, str) and len(value) > QUOTED_VALUE_CHARS:
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return json.dumps(value, ensure_ascii=False)
    return None


def refused_values(answer: Mapping[str, Any], fields: Sequence[FieldPath], earlier: Mapping[FieldPath, tuple[str, ...]]) -> dict[FieldPath, tuple[str, ...]]:
    """For each of ``fields``, the values of it refused so far, quoted (:func:`_quoted`), oldest first:
    those of ``earlier`` turns, then the failed ``answer``'s own (a value given twice is listed once;
    a value that cannot be quoted is left out)."""
    out: dict[FieldPath, tuple[str, ...]] = {}
    for path in fields:
        found, value = _lookup(answer, path)
        seen = list(earlier.get(path, ()))
        quoted = _quoted(value) if found else None
        if quoted is not None and quoted not in seen:
            seen.append(quoted)
        if seen:
            out[path] = tuple(seen)
    return out


@dataclass(frozen=True)
class RepairTurn:
    """One repair turn: the request to send, the answer being repaired (decoded), the fields asked
    for, and each field's values refused so far (quoted JSON, oldest first; :func:`refused_values`)."""

    request: ChatRequest
    base: dict[str, Any]
    fields: tuple[FieldPath, ...]
    refused: Mapping[FieldPath, tuple[str, ...]] = field(default_factory=dict)

    def read(self, text: str, read: Callable[[str], ParseResult[T]]) -> ParseResult[T]:
        """Read the reply to this turn: decode the patch (strict JSON or the normalising stage),
        merge it into :attr:`base` and run the node's ``read`` on the merged answer. The result's
        stage is the patch's and ``decoded`` the merged answer (so a failed one can be repaired again),
        or None when the patch held no object. Never raises."""
        patch = parse_output(text, validate=_object)
        if not patch.ok or patch.value is None:
            return ParseResult(None, "failed", f"repair: {patch.error}", patch.reasoning)
        merged = merge(self.base, patch.value, self.fields)
        result = read(json.dumps(merged, ensure_ascii=False))
        if result.ok:
            return ParseResult(result.value, patch.stage, reasoning=patch.reasoning, decoded=merged, normalised=result.normalised)
        return ParseResult(
            None, "failed", result.error, patch.reasoning, result.decoded or merged, result.invalid_fields, result.invalid_ranges,
            normalised=result.normalised, fallback=result.fallback, fallback_stage=patch.stage if result.fallback is not None else "failed", dropped=result.dropped,
        )  # fmt: skip

    def changed_nothing(self, result: ParseResult[Any]) -> bool:
        """True when ``result``, this turn's failed reading, holds the answer the turn was asked to
        correct, unchanged: the patch repeated the refused values (or left the fields out). At
        temperature 0 another turn would be this request again, so the node fails at once."""
        return not result.ok and result.decoded is not None and result.decoded == self.base


class Repairer:
    """Builds repair turns in one language from ``store``'s ``repair.<language>.j2``."""

    def __init__(self, store: PromptStore, language: str) -> None:
        self.store = store
        self.language = language
        self.template = template_name(language)

    def template_hash(self) -> str:
        """The content hash of the repair template (recorded in the provenance's prompt hashes)."""
        return self.store.template_hash(self.template)

    def turn(self, request: ChatRequest, answer: str, result: ParseResult[Any], earlier: RepairTurn | None = None) -> RepairTurn | None:
        """The repair turn for an answer that failed validation, or None when the answer held no
        decodable object (then only a fresh request can help).

        ``request`` is the node's original request; ``answer`` the text to show as the model's turn
        (its reply with reasoning blocks removed, or the merged answer of an earlier repair); ``result``
        the failed reading, whose ``decoded`` object, ``invalid_fields`` and ``invalid_ranges`` say what
        to keep, what to ask for and which values the rule accepts; ``earlier`` the repair turn that
        answer came from, whose refused values the new turn quotes too. The turn's request keeps the
        node, unit key, template hash and budget of ``request``."""
        if result.decoded is None:
            return None
        fields = tuple(result.invalid_fields)
        schema = sub_schema(request.schema, fields) if request.schema else None
        refused = refused_values(result.decoded, fields, earlier.refused if earlier else {})
        shown, _ = split_reasoning(answer)
        rendered = self.store.render(
            self.template,
            {
                "error": result.error or "",
                "whole": not fields,
                "fields": [
                    {"path": ".".join(path), **describe(_field_schema(request.schema, path), result.invalid_ranges.get(path)), "refused": list(refused.get(path, ()))}
                    for path in fields
                ],
                "shape_tree": shape_of(schema, result.invalid_ranges) if schema else None,
            },
        )
        messages = (*request.messages, {"role": "assistant", "content": shown.strip()}, {"role": "user", "content": rendered.user})
        repair_request = ChatRequest(
            messages=messages,
            node=request.node,
            key=request.key,
            template_hash=request.template_hash,
            schema=schema,
            schema_name=f"{request.schema_name}_repair",
            max_tokens=request.max_tokens,
            timeout_scale=request.timeout_scale,
        )
        return RepairTurn(request=repair_request, base=dict(result.decoded), fields=fields, refused=refused)
