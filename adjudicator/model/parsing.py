"""Reading a model's output: the protocol's three stages, and the field-level expressions of stage 3.

Before anything is read, reasoning blocks are set aside (:func:`~adjudicator.model.reasoning.split_reasoning`:
a draft may hold a decoy answer, so no stage below ever reads it). The blocks travel on in
:attr:`ParseResult.reasoning` (the attempts runner keeps them in the call record).

The protocol (seed 001, section 02; paper section 3) then reads an output in three stages, stopping at
the first that yields a value the node's validator accepts (:func:`parse_output`):

1. ``strict``: the whole output (surrounding whitespace aside) is one JSON object.
2. ``normalised``: format repairs, then JSON (:mod:`adjudicator.model.near_json`: code fences, the
   object cut out of prose, full-width punctuation, single quotes, unquoted keys, trailing commas...).
3. ``regex``: a node-specific recovery function pulls individual fields out of the text with
   regular expressions (helpers here: :func:`find_number`, :func:`find_word`, :func:`find_string`,
   :func:`find_votes`, :func:`find_labels`, :func:`small_objects`) and the result is validated the same way.

Validation is the node's job: a ``validate(obj) -> value`` callable that raises
:class:`~adjudicator.model.validators.OutputInvalid` with a short reason; the shared field validators
(scores 1-10, p in [0, 1], votes summing to their total) are in :mod:`adjudicator.model.validators`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from adjudicator.input.formats import position_label_zh
from adjudicator.model.near_json import normalised_candidates, strict_object
from adjudicator.model.reasoning import split_reasoning
from adjudicator.model.validators import OutputInvalid, Ranges, canonical_label
from adjudicator.records import Dropped, Normalised, ParseStage

T = TypeVar("T")


@dataclass(frozen=True)
class ParseResult(Generic[T]):
    """The outcome of reading one output: the value (None when nothing valid was found), the stage
    that produced it (``strict``/``normalised``/``regex``/``failed``), on failure why, the reasoning
    blocks set aside before reading (:func:`split_reasoning`), the object decoded (on success the one
    the value was read from; on a failure the one whose error is reported, or None), and on failure
    the fields the validator named (for a repair turn, :mod:`adjudicator.model.repair`) and the
    number ranges its rule accepts for some of them (:attr:`OutputInvalid.ranges`). ``normalised``:
    the fields the node's normalisation rewrote in the object read (:mod:`adjudicator.model.normalise`).
    On a failure, ``fallback`` is the value the answer gives without its faulty fields
    (:attr:`OutputInvalid.fallback`), read at stage ``fallback_stage``, ``dropped`` the fields it leaves
    out; the attempts runner takes it after a repair turn (:func:`~adjudicator.model.attempts.run_attempts`)."""

    value: T | None
    stage: ParseStage
    error: str | None = None
    reasoning: tuple[str, ...] = ()
    decoded: dict[str, Any] | None = None
    invalid_fields: tuple[tuple[str, ...], ...] = ()
    invalid_ranges: Mapping[tuple[str, ...], Ranges] = field(default_factory=dict)
    normalised: tuple[Normalised, ...] = ()
    fallback: T | None = None
    fallback_stage: ParseStage = "failed"
    dropped: tuple[Dropped, ...] = ()

    @property
    def ok(self) -> bool:
        """True when a valid value was extracted."""
        return self.stage != "failed"


def parse_output(
    text: str,
    validate: Callable[[dict[str, Any]], T],
    recover: Callable[[str], dict[str, Any] | None] | None = None,
    normalise: Callable[[dict[str, Any]], tuple[dict[str, Any], list[Normalised]]] | None = None,
) -> ParseResult[T]:
    """Read ``text`` in the protocol's three stages (module docstring), after setting its reasoning
    blocks aside (:func:`split_reasoning`; they are returned in ``reasoning``, never read).

    ``validate`` turns a decoded object into the node's value or raises :class:`OutputInvalid`;
    ``recover`` builds a candidate object from field-level regular expressions (stage 3), or None
    when it finds nothing. Returns the first stage's valid value; on failure ``error`` holds the
    most informative reason (the validation error of the most literal object found, else
    "no JSON object found"), ``decoded`` that object and ``invalid_fields`` the fields its error
    named. ``normalise`` (a node's normalisation rules, :mod:`adjudicator.model.normalise`) rewrites
    each decoded object before ``validate`` reads it and returns its notes (``normalised``); ``decoded``
    stays the object as the model wrote it. Never raises for bad text.
    """
    first: dict[str, Any] = {"error": None, "obj": None, "fields": (), "ranges": {}, "fallback": None, "stage": "failed", "dropped": (), "notes": ()}
    notes: list[Normalised] = []

    def attempt(obj: dict[str, Any], stage: ParseStage) -> T | None:
        nonlocal notes
        read, notes = normalise(obj) if normalise is not None else (obj, [])
        try:
            return validate(read)
        except (OutputInvalid, ValueError, TypeError, KeyError) as exc:
            if first["error"] is None:
                invalid = exc if isinstance(exc, OutputInvalid) else None
                first.update(error=_short(str(exc) or type(exc).__name__), obj=obj, fields=invalid.fields if invalid else (), ranges=invalid.ranges if invalid else {})
                if invalid is not None and invalid.fallback is not None:
                    first.update(fallback=invalid.fallback, stage=stage, dropped=invalid.dropped, notes=tuple(notes))
            return None

    answer, reasoning = split_reasoning(text or "")
    if not answer.strip():
        return ParseResult(None, "failed", "no answer after the reasoning" if reasoning else "empty output", reasoning)
    obj = strict_object(answer)
    if obj is not None:
        value = attempt(obj, "strict")
        if value is not None:
            return ParseResult(value, "strict", reasoning=reasoning, decoded=obj, normalised=tuple(notes))
    for obj in normalised_candidates(answer):
        value = attempt(obj, "normalised")
        if value is not None:
            return ParseResult(value, "normalised", reasoning=reasoning, decoded=obj, normalised=tuple(notes))
    if recover is not None:
        try:
            obj = recover(answer)
        except (ValueError, TypeError, re.error):
            obj = None
        if obj:
            value = attempt(obj, "regex")
            if value is not None:
                return ParseResult(value, "regex", reasoning=reasoning, decoded=obj, normalised=tuple(notes))
    return ParseResult(
        None, "failed", first["error"] or "no JSON object found", reasoning, first["obj"], first["fields"], first["ranges"],
        normalised=first["notes"], fallback=first["fallback"], fallback_stage=first["stage"], dropped=first["dropped"],
    )  # fmt: skip


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------------------------------------
# Stage 3 helpers: field-level regular expressions

_NUM = r"(-?\d+(?:\.\d+)?)"


def key_pattern(names: Sequence[str]) -> str:
    """A regular expression matching ``name:`` for any of ``names`` before a value: the key quoted or
    not (ASCII or curly quotes), then ``:``, a full-width colon or ``=``, and the spaces after it."""
    alts = "|".join(re.escape(n) for n in names)
    return rf"(?<![A-Za-z0-9_])[\"'“”]?(?:{alts})[\"'“”]?\s*[:：=]\s*"


def find_number(text: str, names: Sequence[str]) -> float | None:
    """The number written after the last ``name: <number>`` (or ``=``, full-width colon, quoted
    key, quoted number) for any of ``names``, or None."""
    found = re.findall(key_pattern(names) + r"[\"'“]?" + _NUM, text)
    return float(found[-1]) if found else None


def find_word(text: str, names: Sequence[str], choices: Iterable[str]) -> str | None:
    """The last ``name: "<choice>"`` for any of ``names`` whose value is one of ``choices``
    (case-insensitive; full-width quotes allowed), returned as written in ``choices``; else None."""
    opts = {c.lower(): c for c in choices}
    alts = "|".join(re.escape(c) for c in sorted(opts, key=len, reverse=True))
    found = re.findall(key_pattern(names) + r"[\"'“]?(" + alts + r")\b", text, flags=re.I)
    return opts[found[-1].lower()] if found else None


#: What may follow a whole string value in JSON: a comma, a closing brace or bracket (ASCII or
#: full-width), or the end of the text.
_AFTER_VALUE = re.compile(r"\s*(?:[,}\]，｝］]|$)")


def find_string(text: str, names: Sequence[str]) -> str | None:
    """The last double-quoted string value after ``name:`` for any of ``names``, or None. A value
    whose closing quote is not followed by what ends a JSON value (``,``, ``}``, ``]`` or the end) was
    broken by an unescaped quote inside it: it is not returned cut at that quote (None, so the field
    counts as unread and its validator asks for it again)."""
    found = list(re.finditer(key_pattern(names) + r"\"((?:[^\"\\]|\\.)*)\"", text, flags=re.S))
    if not found:
        return None
    last = found[-1]
    if _AFTER_VALUE.match(text, last.end()) is None:
        return None
    try:
        return json.loads(f'"{last.group(1)}"')
    except ValueError:
        return last.group(1)


def find_votes(text: str, labels: Sequence[str]) -> dict[str, int]:
    """``label: <integer>`` pairs for known position ``labels`` (English labels, or the Chinese
    forms understood by :func:`canonical_label`), the last count per label. Empty when none."""
    votes: dict[str, int] = {}
    names = list(labels) + [z for z in (position_label_zh(label) for label in labels) if z]
    alts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    for m in re.finditer(r"[\"'“”]?(" + alts + r")[\"'“”]?\s*[:：=]\s*[\"']?(\d+)", text, flags=re.I):
        label = canonical_label(m.group(1), labels)
        if label is not None:
            votes[label] = int(m.group(2))
    return votes


def find_labels(text: str, names: Sequence[str], labels: Sequence[str]) -> list[str]:
    """The known position ``labels`` listed in the last ``name: [...]`` array for any of ``names``
    (each quoted item that :func:`canonical_label` knows, in order; a label may repeat, one vote per
    item), or [] when there is no such array. A cut-off array gives the complete items before the cut."""
    found = re.findall(key_pattern(names) + r"[\[［]([^\]］]*)", text)
    if not found:
        return []
    items = re.findall(r"[\"'“]([^\"'“”]+)[\"'”]", found[-1])
    return [label for label in (canonical_label(i, labels) for i in items) if label is not None]


def small_objects(text: str) -> list[str]:
    """Every innermost ``{...}`` span (no nested braces) of ``text``, in order; with a truncated
    output, the complete ones before the cut."""
    return re.findall(r"[{｛][^{}｛｝]*[}｝]", text)


