"""Copied example answers: free text that is the prompt's placeholder text is not an answer.

Every node's prompt shows the answer's shape with placeholder values (``"title": "short name of the
clash"``). A weak model may hand the example back, with real enums and numbers but the example's
sentences as its reasoning, rationales, clash titles and notes; every field then validates, and the
verdict would count the copy as a strict-JSON success. This module finds such copies so the attempts
runner (:func:`~adjudicator.model.attempts.run_attempts`) can treat them as a validation failure of
those fields (a repair turn asks for them again; an answer that keeps copying fails with kind
``copied_example``).

The placeholder texts are never written here: they are read from the rendered request
(:func:`example_texts`), so a changed prompt changes them. They are the string values that follow a
JSON key (``"key": "value"``) in the request's system messages, where every prompt shows its example,
normalised (:func:`normalise`) and kept when they are prose -- at least two words, or at least three
letters outside ASCII (a Chinese phrase) -- and do not occur in the request's other messages. That last
rule keeps what the user message legitimately supplies: a debater's label, a clash id from the ledger,
and any sentence of the transcript that a note may quote.

An answer's field is a copy (:func:`copied_fields`) when it is free text in the response schema (a
string without an ``enum``) and its normalised value equals one of those placeholder texts.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.model.schema import FieldPath

#: ``"key": "value"`` in a prompt's example answer (ASCII or full-width colon; escapes inside the value).
_PAIR_RE = re.compile(r'"[^"\n]{1,80}"\s*[:：]\s*"((?:[^"\\\n]|\\.)*)"')


def normalise(text: str) -> str:
    """``text`` compared as words: NFKC, case-folded, every run of characters that are neither letters,
    digits nor ``_`` (punctuation, symbols, whitespace; full-width ones too) as one space, stripped
    (``correct_important``, an identifier, stays one word).
    ``"Short name of the clash."`` and ``"short  name of the CLASH"`` both give ``"short name of the clash"``."""
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = "".join(ch if ch == "_" or unicodedata.category(ch)[0] in "LN" else " " for ch in text)
    return " ".join(kept.split())


def _prose(text: str) -> bool:
    """True for a normalised text of at least two words, or of at least three non-ASCII letters."""
    return " " in text or sum(1 for ch in text if ord(ch) > 127) >= 3


def example_texts(messages: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The normalised placeholder texts of a request's example answer (module docstring): the prose
    string values after a JSON key in the ``system`` messages that occur in no other message. Empty
    when the request shows no example. Never raises."""
    system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    others = " " + " ".join(normalise(str(m.get("content") or "")) for m in messages if m.get("role") != "system") + " "
    compact = others.replace(" ", "")
    found: set[str] = set()
    for content in system:
        for match in _PAIR_RE.finditer(content):
            value = normalise(match.group(1))
            if not value or not _prose(value) or f" {value} " in others:
                continue
            if not value.isascii() and value.replace(" ", "") in compact:  # Chinese has no word boundaries
                continue
            found.add(value)
    return frozenset(found)


def _free_text(schema: Mapping[str, Any] | None) -> bool:
    if schema is None:
        return True
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return ("string" in kinds or kind is None) and "enum" not in schema


def _child(schema: Mapping[str, Any] | None, key: str) -> Mapping[str, Any] | None:
    if schema is None:
        return None
    props = schema.get("properties")
    if isinstance(props, Mapping):
        return props.get(key)
    return None


def _items(schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The schema of a list's entries: ``items``, or for a list given where the schema has an object
    keyed by unit (``sides`` as ``[{"side": ...}, ...]``) the one schema all its keys share."""
    if schema is None:
        return None
    items = schema.get("items")
    if isinstance(items, Mapping):
        return items
    values = list((schema.get("properties") or {}).values())
    if values and all(v == values[0] for v in values):
        return values[0]
    return None


def copied_fields(answer: Any, schema: Mapping[str, Any] | None, examples: frozenset[str]) -> list[FieldPath]:
    """The fields of a decoded ``answer`` that copy a placeholder text of ``examples``, as key paths
    (``("reasoning",)``, ``("sides", "affirmative", "rationale")``); a copy inside a list names the
    list (``("clash_updates",)``: it is asked for again whole). Only free-text fields of ``schema`` (the
    request's response schema; None: every string) are compared. In the answer's order, each path once."""
    out: list[FieldPath] = []
    if not examples:
        return out

    def walk(value: Any, node: Mapping[str, Any] | None, path: FieldPath, listed: FieldPath | None) -> None:
        if isinstance(value, str):
            owner = listed if listed is not None else path
            if _free_text(node) and normalise(value) in examples and owner not in out:
                out.append(owner)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                walk(item, _child(node, str(key)), (*path, str(key)), listed)
        elif isinstance(value, list):
            items = _items(node)
            for item in value:
                walk(item, items if isinstance(items, Mapping) else None, path, listed if listed is not None else path)

    if isinstance(answer, Mapping):
        walk(answer, schema, (), None)
    return out
