"""A pydantic validation error as one line: the first invalid field's dotted path and what to do.

Every reader of untrusted input (match files, live request bodies, tournament files, a LangGraph
run's settings) reports a bad value with :func:`describe_validation_error`, so the one-line error
names the field the same way everywhere (exit code 2, no traceback).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError


def _loc(err: Mapping[str, Any]) -> str:
    # drop pydantic's union-member tags such as "literal['tie']" or "function-after[...]"
    parts = [str(p) for p in err.get("loc", ()) if p != "function-after" and not (isinstance(p, str) and p.endswith("]") and "[" in p)]
    return ".".join(parts) or "(top level)"


def describe_validation_error(exc: ValidationError, what: str = "match", prefix: tuple[str | int, ...] = ()) -> str:
    """One line naming the first invalid field path and what to do about it. ``prefix``: the path of
    the validated value inside the file it belongs to (``("stages", 5)`` for one pushed stage), so the
    line names the field as in the whole file."""
    err = exc.errors()[0]
    if prefix:
        err = {**err, "loc": (*prefix, *err.get("loc", ()))}
    loc = _loc(err)
    kind = err.get("type", "")
    msg = err.get("msg", "invalid")
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if kind == "missing":
        return f"{what}: field {loc} is missing; add it (see `adjudicate schema`)"
    if kind == "extra_forbidden":
        return f"{what}: field {loc} is not part of the format; remove it or check its spelling (see `adjudicate schema`)"
    if kind == "literal_error":
        # a union of literals reports one error per member; name every allowed value
        expected = [e["ctx"]["expected"] for e in exc.errors() if e.get("type") == "literal_error" and _loc(e) == loc and "ctx" in e]
        if len(expected) > 1:
            msg = "Input should be " + " or ".join(expected)
        return f"{what}: field {loc}: {msg}; use one of these values"
    if kind == "too_long":
        limit = (err.get("ctx") or {}).get("max_length")
        got = err.get("input")
        size = f"{len(got):,} items" if hasattr(got, "__len__") else "too many items"
        if loc == "stages":  # the early bound on a match file's stages (match.py), twice the largest format cap
            from adjudicator.input.formats import MAX_STAGES

            return f"{what}: field stages has {size}, far more than the {MAX_STAGES:,} any format allows; give one match per file (the limits are in docs/security.md)"
        return f"{what}: field {loc} has {size}, more than the {limit:,} allowed"
    if kind == "too_short":
        return f"{what}: field {loc} is empty; give at least one item (see `adjudicate schema`)"
    if kind == "string_too_short":
        return f"{what}: field {loc} is empty; give its text"
    if kind == "string_too_long":
        limit = (err.get("ctx") or {}).get("max_length")
        got = err.get("input")
        size = f"{len(got):,} characters" if isinstance(got, str) else "too long"
        return f"{what}: field {loc} has {size}, more than the {limit:,} allowed; shorten it (the limits are in README, \"The match format\")"
    if kind == "string_pattern_mismatch":
        return f"{what}: field {loc}: {err.get('input')!r} is not a usable id; use letters, digits, '_', '.' and '-' only"
    if kind.endswith("_type") or kind.endswith("_parsing"):
        return f"{what}: field {loc}: {msg} (got {type(err.get('input')).__name__} {err.get('input')!r:.40}); write it as a JSON value of that type"
    head, _, rest = msg.partition(" ")
    if loc == "(top level)":
        # model-level consistency checks already start with the field path ("stages.3.type: ...")
        return f"{what}: {msg}"
    if head.endswith(":") and rest:
        # a nested validator's message names a sub-field ("roles: ...") or key ("s01|negative: ...")
        return f"{what}: field {loc}.{head} {rest}"
    return f"{what}: field {loc}: {msg}"
