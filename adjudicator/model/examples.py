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
and the descriptions of a key list (``- "title" (text): the clash in a few words``, the shape the
tracker's prompt gives instead of an example answer), normalised (:func:`normalise`) and kept when they are prose -- at least two words, or at least three
letters outside ASCII (a Chinese phrase) -- and do not occur in the request's other messages. That last
rule keeps what the user message legitimately supplies: a debater's label, a clash id from the ledger,
and any sentence of the transcript that a note may quote.

An answer's field is a copy (:func:`copied_fields`) when it is free text in the response schema (a
string without an ``enum``) and its normalised value equals one of those placeholder texts, or when it
is itself a placeholder: a whole value written as ``<...>``, the way the bundled prompts and the repair
turn describe each field in place of a value (issue 25), so a description handed back is never
accepted as text.

Closed choices (an enum such as a rubric level or the winner, a number such as p or a score, a list
of labels such as the votes) cannot be refused that way: a real answer may equal any value. The bundled
prompts therefore show none (their examples describe each field in words). Where a prompt still shows
one (a prompt folder of one's own, ``ADJUDICATOR_PROMPTS_DIR``), :func:`example_choices` reads the
example's closed values and :func:`copied_choices` names the answer's closed fields equal to them; the
attempts runner records those on the accepted call and the review escalates the verdict
(``example_choice``, :mod:`adjudicator.verdict.review`) rather than refusing the answer.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.model.schema import FieldPath

#: ``"key": "value"`` in a prompt's example answer (ASCII or full-width colon; escapes inside the value).
_PAIR_RE = re.compile(r'"[^"\n]{1,80}"\s*[:：]\s*"((?:[^"\\\n]|\\.)*)"')
#: ``- "key" (kind): description`` in a prompt's key list (the tracker's answer shape, issue 38): a line
#: naming one key, its kind in brackets (ASCII or full-width) and what to write there.
_LIST_RE = re.compile(r'^\s*-\s*"[^"\n]{1,80}"\s*[(（][^)）\n]*[)）]\s*[:：]\s*(.+?)\s*$', re.M)


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
        for match in [*_PAIR_RE.finditer(content), *_LIST_RE.finditer(content)]:
            value = normalise(match.group(1))
            if not value or not _prose(value) or f" {value} " in others:
                continue
            if not value.isascii() and value.replace(" ", "") in compact:  # Chinese has no word boundaries
                continue
            found.add(value)
    return frozenset(found)


#: A value that is only a description in angle brackets: ``"<your reasons for the decision>"``.
_PLACEHOLDER_RE = re.compile(r"\s*<[^<>]*>\s*")

#: A link in angle brackets (CommonMark's autolink, ``<https://...>``, ``<mailto:...>``), as debaters
#: cite their sources and a model quotes them: a value, never one of the prompts' descriptions.
_AUTOLINK_RE = re.compile(r"\s*<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*>\s*")


def is_placeholder(text: str) -> bool:
    """True when ``text`` is a whole ``<...>`` description (the prompts' way of saying what goes in a
    field), not a value. A link in angle brackets (``<https://en.wikipedia.org/...>``, which the 0.5B
    model quoted from a speech of debateart_4739 as a clash note) is a value, not a placeholder."""
    return _PLACEHOLDER_RE.fullmatch(text) is not None and _AUTOLINK_RE.fullmatch(text) is None


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
    request's response schema; None: every string) are compared, each also against the ``<...>``
    placeholder form (:func:`is_placeholder`). In the answer's order, each path once."""
    out: list[FieldPath] = []

    def walk(value: Any, node: Mapping[str, Any] | None, path: FieldPath, listed: FieldPath | None) -> None:
        if isinstance(value, str):
            owner = listed if listed is not None else path
            if _free_text(node) and (normalise(value) in examples or is_placeholder(value)) and owner not in out:
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


def example_choices(messages: Sequence[Mapping[str, Any]]) -> dict[FieldPath, Any]:
    """The closed values an example answer in the request's ``system`` messages shows: every JSON
    object written there (decoded where it parses), flattened to key path -> value for its numbers,
    booleans, strings and lists of strings (``("p",)`` -> 0.64, ``("sides", "affirmative",
    "task_performance")`` -> ``"well"``, ``("best_debater_votes",)`` -> the list). A ``<...>``
    description and null are not values. Empty when no example parses (the bundled prompts). Never
    raises."""
    decoder = json.JSONDecoder()
    found: dict[FieldPath, Any] = {}
    for m in messages:
        if m.get("role") != "system":
            continue
        text = str(m.get("content") or "")
        i = text.find("{")
        while i != -1:
            try:
                obj, end = decoder.raw_decode(text, i)
            except ValueError:
                i = text.find("{", i + 1)
                continue
            if isinstance(obj, Mapping):
                _flatten(obj, (), found)
            i = text.find("{", end)
    return found


def _flatten(value: Any, path: FieldPath, out: dict[FieldPath, Any]) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            _flatten(item, (*path, str(key)), out)
    elif isinstance(value, list):
        if value and all(isinstance(v, str) and not is_placeholder(v) for v in value):
            out[path] = list(value)
    elif isinstance(value, bool | int | float) or (isinstance(value, str) and value and not is_placeholder(value)):
        out[path] = value


def _closed(schema: Mapping[str, Any] | None) -> bool:
    """True for a closed field: an enum, a number or integer, a boolean, or a list of enum values."""
    if schema is None:
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "enum" in schema or any(k in kinds for k in ("number", "integer", "boolean")):
        return True
    items = schema.get("items")
    return "array" in kinds and isinstance(items, Mapping) and "enum" in items


def _same(a: Any, b: Any) -> bool:
    """Equal values, a boolean only to a boolean (``True == 1`` in Python)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def copied_choices(answer: Any, schema: Mapping[str, Any] | None, shown: Mapping[FieldPath, Any]) -> list[str]:
    """The closed fields of a decoded ``answer`` (dotted key paths, sorted) whose value equals the one
    the example showed at the same path (``shown``, :func:`example_choices`); only fields the response
    ``schema`` declares closed (:func:`_closed`) are compared, numbers by value. Empty without an
    example or a schema."""
    if not shown or schema is None or not isinstance(answer, Mapping):
        return []
    out = []
    for path, value in shown.items():
        node: Any = schema
        got: Any = answer
        for key in path:
            node = (node.get("properties") or {}).get(key) if isinstance(node, Mapping) else None
            got = got.get(key) if isinstance(got, Mapping) else None
        if node is None or got is None or not _closed(node):
            continue
        if _same(got, value):
            out.append(".".join(path))
    return sorted(out)
