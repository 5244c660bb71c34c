"""Untrusted JSON text: the one reader of match files, live request bodies and other input JSON.

:func:`read_json` parses text with the checks a hostile file needs before any model call is spent:

- nesting deeper than :data:`MAX_JSON_DEPTH` (a match is about six levels deep) is refused with the
  field path where the limit was crossed, instead of Python's ``RecursionError`` deep in the parser;
- a key that occurs twice in one object is refused with its path (``json.loads`` silently keeps the
  last, so a second ``labels.outcome`` could flip a gold label);
- a number with more than :data:`MAX_NUMBER_DIGITS` digits is refused with its path (``json.loads``
  raises a bare ``ValueError`` past Python's 4,300-digit integer limit, and no field needs such a number);
- ``NaN``, ``Infinity`` and ``-Infinity`` (which ``json.loads`` accepts though JSON has no such
  values) and a number too large for a float (``1e999``, read as infinity) are refused with their path:
  no field of any input takes a number that is not finite, and a NaN score drops silently out of a
  correlation;
- a lone surrogate escape (``"\\ud800"`` without its pair), which decodes to a string no UTF-8
  encoder can write (it failed deep in a store as a server error), is refused with its path;
- invalid JSON is reported with line and column.

The nesting and duplicate checks run in one linear pass (:func:`scan_structure`) over the tokens that
matter -- strings, brackets, commas and colons -- so a 6 MB utterance is one token. A well-formed
input skips that pass: the C parser's object hook catches duplicate keys and the depth is measured on
the parsed value; the scan runs only to name what is wrong (:func:`read_json`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from adjudicator.errors import InputError

#: Deepest nesting of objects and arrays an input may have. A match file is six levels deep
#: (match > stages > stage > utterances > utterance > field); 64 leaves room for ``info`` blocks.
MAX_JSON_DEPTH = 64

#: The most digits a number in an input may have in one run (integer part, or fraction, or exponent).
#: Python refuses to convert an integer of more than 4,300 digits (``sys.get_int_max_str_digits``);
#: no field of any input needs more than a few, so a longer number is refused with its field path.
MAX_NUMBER_DIGITS = 100

#: A JSON string (with its escapes), one structural character, a digit run longer than
#: :data:`MAX_NUMBER_DIGITS`, a number with an exponent (which may overflow a float), or one of the
#: non-finite constants Python's parser accepts (outside strings: a string is consumed whole as one token).
_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]|[0-9]{' + str(MAX_NUMBER_DIGITS + 1) + r",}|-?[0-9]+(?:\.[0-9]+)?[eE][+-]?[0-9]+|NaN|-?Infinity",
    re.DOTALL,
)


class JsonInputError(InputError):
    """Refused JSON input (exit code 2). ``path`` is the dotted field path where known, else None."""

    def __init__(self, message: str, hint: str | None = None, path: str | None = None) -> None:
        super().__init__(message, hint)
        self.path = path


@dataclass
class _Frame:
    """One open object (``keys`` holds the keys seen) or array (``index`` counts its items)."""

    is_object: bool
    key: str | None = None
    index: int = 0
    expect_key: bool = True
    keys: set[str] = field(default_factory=set)

    def step(self) -> str:
        return (self.key or "?") if self.is_object else str(self.index)


def _path(stack: list[_Frame]) -> str:
    """The dotted path of the innermost open value; a deep path shows its first 4 and last 2 steps."""
    steps = [f.step() for f in stack]
    if len(steps) > 8:
        steps = [*steps[:4], f"({len(steps) - 6} more)", *steps[-2:]]
    return ".".join(steps) or "(top level)"


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def scan_structure(text: str, source: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Check ``text`` for nesting deeper than ``max_depth``, for duplicate keys in one object and for
    a number with more than :data:`MAX_NUMBER_DIGITS` digits in a run, in one pass linear in
    ``len(text)``. Syntax errors are left to the parser (the scan is tolerant).

    Raises :class:`JsonInputError` naming ``source`` and the dotted path (``stages.3.utterances``),
    e.g. ``match.json: duplicate key labels.outcome (an object may name a field once)``.
    """
    stack: list[_Frame] = []
    for m in _TOKEN.finditer(text):
        tok = m.group()
        top = stack[-1] if stack else None
        if tok in "{[":
            if len(stack) >= max_depth:
                line, col = _line_col(text, m.start())
                raise JsonInputError(
                    f"{source}: nested deeper than {max_depth} levels at {_path(stack)} (line {line} column {col})",
                    "a match is about six levels deep; flatten the data",
                    path=_path(stack),
                )
            stack.append(_Frame(is_object=tok == "{"))
        elif tok in "}]":
            if stack:
                stack.pop()
        elif tok == ",":
            if top is not None:
                if top.is_object:
                    top.expect_key = True
                else:
                    top.index += 1
        elif tok == ":":
            if top is not None and top.is_object:
                top.expect_key = False
        elif tok[0] in "NI" or tok.startswith("-I") or tok[0].isdigit() or tok[0] == "-":
            _check_number(tok, text, m.start(), source, stack)
        elif top is not None and top.is_object and top.expect_key:
            try:
                key = json.loads(tok)
            except ValueError:
                key = tok[1:-1]
            if key in top.keys:
                top.key = key
                raise JsonInputError(
                    f"{source}: duplicate key {_path(stack)} (an object may name a field once)",
                    "remove one of the two; which is meant cannot be guessed",
                    path=_path(stack),
                )
            top.keys.add(key)
            top.key = key


def _check_number(tok: str, text: str, pos: int, source: str, stack: list[_Frame]) -> None:
    """Refuse a number token of the scan: a digit run longer than :data:`MAX_NUMBER_DIGITS`, a
    non-finite constant (``NaN``, ``Infinity``, ``-Infinity``) or a number beyond a float's range."""
    line, col = _line_col(text, pos)
    if tok[0] in "NI" or tok.startswith("-I"):
        finite, longest = False, 0
    else:
        longest = max(len(run) for run in re.findall("[0-9]+", tok))
        finite = longest > MAX_NUMBER_DIGITS or math.isfinite(float(tok))
    if longest > MAX_NUMBER_DIGITS:
        raise JsonInputError(
            f"{source}: field {_path(stack)}: a number of {longest:,} digits (line {line} column {col}); at most {MAX_NUMBER_DIGITS} are read",
            "write the number the field needs (see `adjudicate schema`)",
            path=_path(stack),
        )
    if not finite:
        raise JsonInputError(
            f"{source}: field {_path(stack)}: {tok} is not a finite number (line {line} column {col})",
            "write a finite number (JSON has no NaN or Infinity)",
            path=_path(stack),
        )


class _DuplicateKey(Exception):
    """Raised inside the parser by :func:`_unique_pairs` (the scan then names the path)."""


class _LongNumber(Exception):
    """Raised inside the parser by :func:`_short_int` / :func:`_short_float` (the scan then names the path)."""


_LONG_DIGITS = re.compile("[0-9]{" + str(MAX_NUMBER_DIGITS + 1) + ",}")


def _short_int(text: str) -> int:
    """``json.loads``' integer hook: the integer, or :class:`_LongNumber` past :data:`MAX_NUMBER_DIGITS`
    digits (Python cannot even read one of more than 4,300)."""
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _LongNumber
    return int(text)


def _short_float(text: str) -> float:
    """``json.loads``' number hook for a fraction or an exponent: the float, or :class:`_LongNumber`
    for a digit run longer than :data:`MAX_NUMBER_DIGITS` (as the scan counts them) or a number
    beyond a float's range (the scan then names the field)."""
    if len(text) > MAX_NUMBER_DIGITS and _LONG_DIGITS.search(text):
        raise _LongNumber
    value = float(text)
    if not math.isfinite(value):
        raise _LongNumber
    return value


def _no_constant(text: str) -> float:
    """``json.loads``' hook for ``NaN``, ``Infinity`` and ``-Infinity``: always :class:`_LongNumber`
    (the scan then names the field)."""
    raise _LongNumber


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' object hook: the object as a dict, or :class:`_DuplicateKey` when it names a key twice."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _DuplicateKey
    return obj


def nesting_depth(value: Any) -> int:
    """Nesting depth of objects and arrays in a parsed value (a scalar is 0, ``[]`` is 1)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, dict):
            items: Any = v.values()
        elif isinstance(v, list):
            items = v
        else:
            continue
        deepest = max(deepest, d)
        todo.extend((x, d + 1) for x in items if isinstance(x, (dict, list)))
    return deepest


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate_path(value: Any) -> str | None:
    """The dotted path of the first string (or key) in a parsed value that holds a lone surrogate, else None."""
    todo: list[tuple[Any, str]] = [(value, "")]
    while todo:
        v, path = todo.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):
                return path or "(top level)"
        elif isinstance(v, dict):
            for k, x in v.items():
                p = f"{path}.{k}" if path else str(k)
                if _SURROGATE.search(k):
                    return p
                todo.append((x, p))
        elif isinstance(v, list):
            todo.extend((x, f"{path}.{i}" if path else str(i)) for i, x in enumerate(v))
    return None


def _no_lone_surrogate(value: Any, text: str, source: str) -> Any:
    """``value``, unless ``text`` escapes a surrogate that did not pair up (then :class:`JsonInputError`)."""
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        path = lone_surrogate_path(value)
        if path is not None:
            raise JsonInputError(f"{source}: field {path}: a lone surrogate escape (\\ud800-\\udfff without its pair) is not text", "send the text as UTF-8; an emoji escape needs both halves", path=path)
    return value


def read_json(text: str, source: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse untrusted JSON ``text`` (a leading byte-order mark is dropped).

    Raises :class:`JsonInputError` (exit code 2; one line naming ``source``) for invalid JSON (line
    and column), nesting deeper than ``max_depth``, a duplicate key, a number of more than
    :data:`MAX_NUMBER_DIGITS` digits or one that is not finite, or a lone surrogate escape (each
    with the field path).

    The common case costs one C parse: duplicate keys are caught by the parser's object hook, a long
    number by its number hooks, and the nesting is measured on the parsed value; only when one of
    them (or the syntax) is wrong does the token scan (:func:`scan_structure`) run, so the error is
    the one the scan meets first in the text, with its path, exactly as when the scan ran first.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        value = json.loads(text, object_pairs_hook=_unique_pairs, parse_int=_short_int, parse_float=_short_float, parse_constant=_no_constant)
    except (_DuplicateKey, _LongNumber, RecursionError, ValueError):  # ValueError: json.JSONDecodeError and any other refusal
        pass
    else:
        if nesting_depth(value) <= max_depth:
            return _no_lone_surrogate(value, text, source)
    scan_structure(text, source, max_depth)
    try:
        return _no_lone_surrogate(json.loads(text, parse_float=_short_float, parse_constant=_no_constant), text, source)
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", "fix the JSON syntax") from None
    except RecursionError:  # unreachable after the scan; kept so no input can surface a traceback
        raise JsonInputError(f"{source}: nested too deeply to read", "flatten the data") from None
    except (_LongNumber, ValueError) as exc:  # e.g. Python's integer-size limit; unreachable after the scan, kept for safety
        raise JsonInputError(f"{source}: a value cannot be read ({' '.join(str(exc).split())[:120] or 'a number that is not finite'})", "fix the value") from None
