"""Near-JSON made JSON: stages 1 and 2 of reading a model's output (:mod:`adjudicator.model.parsing`).

- :func:`strict_object`: the whole text is one JSON object (stage 1, ``strict``);
- :func:`normalised_candidates`: the objects recoverable by format repairs (stage 2, ``normalised``):
  code fences removed, objects cut out of surrounding prose (:func:`balanced_objects`, a brace scan),
  and :func:`repair_json`'s rewrites -- full-width punctuation outside strings mapped to ASCII
  (``｛｝［］：，`` and full-width quotes, digits, point and minus), single-quoted and curly-quoted strings,
  unquoted keys, Python's ``True/False/None``, trailing commas, raw newlines inside strings.

Hand-written rather than a JSON-repair library: the repairs are the protocol's stage 2 (seed 001,
section 02), each one tested, and a library's wider guessing would move outputs from ``regex`` or
``failed`` into ``normalised``, changing the parse statistics the benchmark reports.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\r?\n?(.*?)```", re.S)
_FULLWIDTH_STRUCT = {
    "｛": "{", "｝": "}", "［": "[", "］": "]", "：": ":", "，": ",", "【": "[", "】": "]",
    "．": ".", "－": "-", "＋": "+", "\u3000": " ", **{chr(0xFF10 + d): str(d) for d in range(10)},
}  # fmt: skip
_OPEN_QUOTES = {'"': '"', "'": "'", "“": "”", "＂": "＂", "「": "」", "‘": "’"}
_CLOSERS = {'"': {'"'}, "'": {"'"}, "”": {"”", "“", "＂"}, "＂": {"＂", "”"}, "」": {"」"}, "’": {"’", "'"}}
_BARE = {"True": "true", "False": "false", "None": "null", "true": "true", "false": "false", "null": "null"}


def strict_object(text: str) -> dict[str, Any] | None:
    """``json.loads`` of the stripped text when that is a JSON object, else None."""
    try:
        obj = json.loads(text.strip())
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _next_significant(s: str, i: int) -> str:
    while i < len(s) and s[i].isspace():
        i += 1
    return s[i] if i < len(s) else ""


def repair_json(s: str) -> str:
    """Rewrite near-JSON into JSON (stage 2 repairs; see the module docstring). Pure string scan:
    text inside ASCII double-quoted strings is kept as is, except raw control characters, which
    are escaped."""
    out: list[str] = []
    i = 0
    closer: str | None = None  # the opening quote of the string we are in, if any
    while i < len(s):
        if closer is not None:
            i, closer = _in_string(s, i, closer, out)
        else:
            i, closer = _outside_string(s, i, out)
    return "".join(out)


#: Raw control characters inside a string, written as JSON escapes.
_CONTROL_ESCAPES = {'"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _in_string(s: str, i: int, closer: str, out: list[str]) -> tuple[int, str | None]:
    """Copy ``s[i]`` (and an escaped next character) of a string opened by ``closer`` into ``out``;
    the next index and the string's opening quote, None once the string is closed."""
    ch = s[i]
    if ch == "\\" and i + 1 < len(s):
        nxt = s[i + 1]
        out.append(nxt if closer != '"' and nxt in "'’" else ch + nxt)
        return i + 2, closer
    if ch in _CLOSERS[_OPEN_QUOTES[closer]]:
        # a non-JSON quote closes only before structure, so apostrophes survive
        if closer == '"' or _next_significant(s, i + 1) in (",", "}", "]", ":", "，", "｝", "］", "：", ""):
            out.append('"')
            return i + 1, None
    out.append(_CONTROL_ESCAPES.get(ch, ch))
    return i + 1, closer


def _outside_string(s: str, i: int, out: list[str]) -> tuple[int, str | None]:
    """Rewrite the structure at ``s[i]`` into ``out``: an opening quote, a comma (a trailing one is
    dropped), full-width punctuation, a bare word (a key gets quoted; Python's constants become
    JSON's); the next index and the opening quote when a string starts there, else None."""
    ch = s[i]
    if ch in _OPEN_QUOTES:
        out.append('"')
        return i + 1, ch
    if ch in (",", "，"):
        if _next_significant(s, i + 1) not in ("}", "]", "｝", "］"):  # else a trailing comma: dropped
            out.append(",")
        return i + 1, None
    if ch in _FULLWIDTH_STRUCT:
        out.append(_FULLWIDTH_STRUCT[ch])
        return i + 1, None
    if ch.isalpha() or ch == "_":
        j = i
        while j < len(s) and (s[j].isalnum() or s[j] in "_-"):
            j += 1
        word = s[i:j]
        out.append(json.dumps(word) if _next_significant(s, j) in (":", "：") else _BARE.get(word, word))
        return j, None
    out.append(ch)
    return i + 1, None


def balanced_objects(text: str) -> list[str]:
    """Every top-level ``{...}`` span of ``text`` (full-width braces count), in order, found by a
    brace scan that skips braces inside double-quoted strings. An unclosed object is not returned."""
    spans: list[str] = []
    depth = 0
    start = -1
    in_str = False
    esc = False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth > 0:
            in_str = True
        elif ch in "{｛":
            if depth == 0:
                start = i
            depth += 1
        elif ch in "}｝" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def normalised_candidates(text: str) -> Iterator[dict[str, Any]]:
    """JSON objects recoverable from ``text`` by the stage-2 repairs, most literal first, no repeats."""
    seen: set[str] = set()
    sources: list[str] = [m.group(1) for m in _FENCE_RE.finditer(text)]
    sources.append(text)
    spans: list[str] = []
    for src in sources:
        spans.extend(balanced_objects(src))
        stripped = src.strip()
        if stripped.startswith(("{", "｛")):
            spans.append(stripped)
    for span in spans:
        for candidate in (span, repair_json(span)):
            if candidate in seen:
                continue
            seen.add(candidate)
            try:
                obj = json.loads(candidate)
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict):
                yield obj
