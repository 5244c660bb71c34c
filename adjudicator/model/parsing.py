"""Reading a model's output: three-stage extraction and the field validators every node shares.

Before anything is read, reasoning blocks are set aside (:func:`split_reasoning`): a reasoning
model's draft -- ``<think>…</think>`` and the other tags of :data:`REASONING_TAGS`, ``[THINK]…[/THINK]``,
gpt-oss's analysis channel, a draft closed by an orphan ``</think>`` or one left open by a cut-off
reply -- may hold a decoy answer, so no stage below ever reads it. The blocks travel on in
:attr:`ParseResult.reasoning` (the attempts runner keeps them in the call record).

The protocol (seed 001, section 02; paper section 3) then reads an output in three stages, stopping at
the first that yields a value the node's validator accepts:

1. ``strict``: the whole output (surrounding whitespace aside) is one JSON object.
2. ``normalised``: format repairs, then JSON -- code fences removed, the JSON object cut out of
   surrounding prose (balanced-brace scan), full-width punctuation outside strings mapped to ASCII
   (``｛｝［］：，`` and full-width quotes, digits, point and minus), single-quoted strings, unquoted keys, Python's
   ``True/False/None``, trailing commas, raw newlines inside strings.
3. ``regex``: a node-specific recovery function pulls individual fields out of the text with
   regular expressions (helpers: :func:`find_number`, :func:`find_word`, :func:`find_votes`,
   :func:`small_objects`) and the result is validated the same way.

Validation is the node's job: a ``validate(obj) -> value`` callable that raises
:class:`OutputInvalid` (a ValueError) with a short reason. The generic field validators here
(:func:`as_score`, :func:`as_probability`, :func:`as_votes`, :func:`as_side`, :func:`as_choice`)
implement the protocol's ranges: a score is an integer 1-10; p is in [0, 1] in steps of 0.01;
votes are non-negative integers over known position labels summing to the required total. Lax type
coercion (``"7"`` -> 7, ``7.0`` -> 7) is part of validation and does not change the stage label.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from adjudicator.input.formats import position_label_zh
from adjudicator.records import ParseStage

T = TypeVar("T")


class OutputInvalid(ValueError):
    """A model output (or a field of it) that does not meet the node's requirements.

    ``fields`` names the offending fields as key paths into the answer object (``("p",)``,
    ``("stage_scores", "s03|affirmative")``), when the validator knows them; a repair turn then asks
    for those fields only (:mod:`adjudicator.model.repair`). Empty when the whole answer is at fault."""

    def __init__(self, message: str, fields: Iterable[Sequence[str]] = ()) -> None:
        super().__init__(message)
        self.fields: tuple[tuple[str, ...], ...] = tuple(tuple(f) for f in fields)


# ---------------------------------------------------------------------------------------------
# Reasoning blocks: a model's draft, never read for an answer

#: Tag names whose ``<tag>…</tag>`` blocks are a model's reasoning (case-insensitive; attributes allowed):
#: DeepSeek-R1 and Qwen3 (``think``), Claude-style and others (``thinking``, ``reasoning``, ``thought``,
#: ``reflection``, ``scratchpad``, ``analysis``).
REASONING_TAGS: tuple[str, ...] = ("think", "thinking", "thought", "thoughts", "reasoning", "reflection", "scratchpad", "analysis", "inner_monologue")
_TAGS = "|".join(REASONING_TAGS)
_NS = r"(?:[\w-]+:)?"  # a namespace prefix, as in Anthropic's <budget:thinking>
_BLOCK_RE = re.compile(rf"<\s*{_NS}({_TAGS})\b[^>]*>(.*?)<\s*/\s*{_NS}\1\s*>", re.I | re.S)
_BRACKET_RE = re.compile(r"\[THINK\](.*?)\[/THINK\]", re.I | re.S)
_OPEN_RE = re.compile(rf"<\s*{_NS}({_TAGS})\b[^>]*>|\[THINK\]", re.I)
_CLOSE_RE = re.compile(rf"<\s*/\s*{_NS}({_TAGS})\s*>|\[/THINK\]", re.I)
#: gpt-oss (harmony format) writes ``<|channel|>analysis<|message|>…<|end|>`` before the final channel.
_HARMONY_RE = re.compile(r"<\|channel\|>\s*(analysis|commentary)\s*(?:<\|constrain\|>\S*)?<\|message\|>(.*?)(?:<\|end\|>|(?=<\|start\|>)|(?=<\|channel\|>)|$)", re.S)
_HARMONY_FINAL_RE = re.compile(r"<\|channel\|>\s*final\s*(?:<\|constrain\|>\S*)?<\|message\|>(.*?)(?:<\|return\|>|<\|end\|>|$)", re.S)


def split_reasoning(text: str) -> tuple[str, tuple[str, ...]]:
    """``(answer, blocks)``: ``text`` with every reasoning block removed, and the blocks' contents in
    order (stripped). Recognised wherever they stand: ``<tag>…</tag>`` for the tags of
    :data:`REASONING_TAGS`, ``[THINK]…[/THINK]``, gpt-oss's analysis channel (the answer is then the
    final channel's message), a closing tag with no opening one (everything before it is the draft:
    chat templates that open the block in the prompt), and an opening tag never closed (everything
    after it is the draft: a reply cut off while thinking). Never raises; a text without reasoning
    comes back unchanged with no blocks."""
    if not text:
        return text or "", ()
    blocks: list[str] = []
    if "<|channel|>" in text:
        final = _HARMONY_FINAL_RE.search(text)
        blocks += [m.group(2).strip() for m in _HARMONY_RE.finditer(text)]
        if final is not None:
            return final.group(1).strip(), tuple(b for b in blocks if b)
        text = _HARMONY_RE.sub("", text)

    def keep(m: re.Match[str]) -> str:
        blocks.append(m.group(m.lastindex or 0).strip())
        return "\n"

    text = _BLOCK_RE.sub(keep, text)
    text = _BRACKET_RE.sub(keep, text)
    closes = list(_CLOSE_RE.finditer(text))
    if closes:  # an orphan closing tag: the draft began before the reply did
        close = closes[-1]
        blocks.insert(0, text[: close.start()].strip())
        text = text[close.end() :]
    opened = _OPEN_RE.search(text)
    if opened is not None:  # an opening tag never closed: the reply stopped while thinking
        blocks.append(text[opened.end() :].strip())
        text = text[: opened.start()]
    return text, tuple(b for b in blocks if b)


@dataclass(frozen=True)
class ParseResult(Generic[T]):
    """The outcome of reading one output: the value (None when nothing valid was found), the stage
    that produced it (``strict``/``normalised``/``regex``/``failed``), on failure why, the reasoning
    blocks set aside before reading (:func:`split_reasoning`), the object decoded (on success the one
    the value was read from; on a failure the one whose error is reported, or None), and on failure
    the fields the validator named (for a repair turn, :mod:`adjudicator.model.repair`)."""

    value: T | None
    stage: ParseStage
    error: str | None = None
    reasoning: tuple[str, ...] = ()
    decoded: dict[str, Any] | None = None
    invalid_fields: tuple[tuple[str, ...], ...] = ()

    @property
    def ok(self) -> bool:
        """True when a valid value was extracted."""
        return self.stage != "failed"


# ---------------------------------------------------------------------------------------------
# Stage 1 and 2: JSON, then normalised JSON

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
    i, n = 0, len(s)
    closer: str | None = None  # the opening quote of the string we are in, if any
    while i < n:
        ch = s[i]
        if closer is not None:
            if ch == "\\" and i + 1 < n:
                nxt = s[i + 1]
                if closer != '"' and nxt in "'’":
                    out.append(nxt)
                else:
                    out.append(ch + nxt)
                i += 2
                continue
            if ch in _CLOSERS[_OPEN_QUOTES[closer]]:
                # a non-JSON quote closes only before structure, so apostrophes survive
                if closer == '"' or _next_significant(s, i + 1) in (",", "}", "]", ":", "，", "｝", "］", "：", ""):
                    out.append('"')
                    closer = None
                    i += 1
                    continue
            if ch == '"':
                out.append('\\"')
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\r":
                out.append("\\r")
            elif ch == "\t":
                out.append("\\t")
            else:
                out.append(ch)
            i += 1
            continue
        if ch in _OPEN_QUOTES:
            closer = ch
            out.append('"')
            i += 1
            continue
        if ch in (",", "，"):
            if _next_significant(s, i + 1) in ("}", "]", "｝", "］"):
                i += 1  # trailing comma
                continue
            out.append(",")
            i += 1
            continue
        if ch in _FULLWIDTH_STRUCT:
            out.append(_FULLWIDTH_STRUCT[ch])
            i += 1
            continue
        if ch.isalpha() or ch == "_":
            j = i
            while j < n and (s[j].isalnum() or s[j] in "_-"):
                j += 1
            word = s[i:j]
            if _next_significant(s, j) in (":", "："):
                out.append(json.dumps(word))
            else:
                out.append(_BARE.get(word, word))
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


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


def parse_output(
    text: str,
    validate: Callable[[dict[str, Any]], T],
    recover: Callable[[str], dict[str, Any] | None] | None = None,
) -> ParseResult[T]:
    """Read ``text`` in the protocol's three stages (module docstring), after setting its reasoning
    blocks aside (:func:`split_reasoning`; they are returned in ``reasoning``, never read).

    ``validate`` turns a decoded object into the node's value or raises :class:`OutputInvalid`;
    ``recover`` builds a candidate object from field-level regular expressions (stage 3), or None
    when it finds nothing. Returns the first stage's valid value; on failure ``error`` holds the
    most informative reason (the validation error of the most literal object found, else
    "no JSON object found"), ``decoded`` that object and ``invalid_fields`` the fields its error
    named. Never raises for bad text.
    """
    first_error: str | None = None
    first_obj: dict[str, Any] | None = None
    first_fields: tuple[tuple[str, ...], ...] = ()

    def attempt(obj: dict[str, Any]) -> T | None:
        nonlocal first_error, first_obj, first_fields
        try:
            return validate(obj)
        except (OutputInvalid, ValueError, TypeError, KeyError) as exc:
            if first_error is None:
                first_error = _short(str(exc) or type(exc).__name__)
                first_obj = obj
                first_fields = exc.fields if isinstance(exc, OutputInvalid) else ()
            return None

    answer, reasoning = split_reasoning(text or "")
    if not answer.strip():
        return ParseResult(None, "failed", "no answer after the reasoning" if reasoning else "empty output", reasoning)
    obj = strict_object(answer)
    if obj is not None:
        value = attempt(obj)
        if value is not None:
            return ParseResult(value, "strict", reasoning=reasoning, decoded=obj)
    for obj in normalised_candidates(answer):
        value = attempt(obj)
        if value is not None:
            return ParseResult(value, "normalised", reasoning=reasoning, decoded=obj)
    if recover is not None:
        try:
            obj = recover(answer)
        except (ValueError, TypeError, re.error):
            obj = None
        if obj:
            value = attempt(obj)
            if value is not None:
                return ParseResult(value, "regex", reasoning=reasoning, decoded=obj)
    return ParseResult(None, "failed", first_error or "no JSON object found", reasoning, first_obj, first_fields)


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


def find_string(text: str, names: Sequence[str]) -> str | None:
    """The last double-quoted string value after ``name:`` for any of ``names``, or None."""
    found = re.findall(key_pattern(names) + r"\"((?:[^\"\\]|\\.)*)\"", text, flags=re.S)
    if not found:
        return None
    try:
        return json.loads(f'"{found[-1]}"')
    except ValueError:
        return found[-1]


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


# ---------------------------------------------------------------------------------------------
# Field validators


class FieldChecks:
    """A validator's field checks run to the end: each :meth:`run` returns the check's value, or None
    after recording its :class:`OutputInvalid` (named with the check's field path when the error
    names none); :meth:`raise_if_failed` then raises one OutputInvalid holding every message and
    every failed field, so a repair turn can ask for all of them at once."""

    def __init__(self) -> None:
        self.errors: list[OutputInvalid] = []

    def run(self, path: Sequence[str], check: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """``check(*args, **kwargs)``, or None when it raised OutputInvalid (recorded under ``path``)."""
        try:
            return check(*args, **kwargs)
        except OutputInvalid as exc:
            self.errors.append(exc if exc.fields else OutputInvalid(str(exc), [tuple(path)]))
            return None

    def raise_if_failed(self) -> None:
        """Raise the combined OutputInvalid when any check failed (messages joined by ``"; "``)."""
        if self.errors:
            fields = [f for e in self.errors for f in e.fields]
            raise OutputInvalid("; ".join(str(e) for e in self.errors), list(dict.fromkeys(fields)))


def as_int(value: Any, field: str) -> int:
    """An integer from an int, an integral float (7.0) or a numeric string ("7"). Rejects bools,
    fractions and anything else with :class:`OutputInvalid` naming ``field``."""
    if isinstance(value, bool):
        raise OutputInvalid(f"{field}: expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+(?:\.0+)?\s*", value):
        return int(float(value))
    raise OutputInvalid(f"{field}: expected an integer, got {value!r}")


def as_number(value: Any, field: str) -> float:
    """A finite float from a number or numeric string; :class:`OutputInvalid` otherwise."""
    if isinstance(value, bool):
        raise OutputInvalid(f"{field}: expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        out = float(value)
    elif isinstance(value, str) and re.fullmatch(r"\s*-?\d+(?:\.\d+)?\s*", value):
        out = float(value)
    else:
        raise OutputInvalid(f"{field}: expected a number, got {value!r}")
    if not math.isfinite(out):
        raise OutputInvalid(f"{field}: expected a finite number, got {value!r}")
    return out


def as_score(value: Any, field: str = "score", lo: int = 1, hi: int = 10) -> int:
    """An integer score in ``lo``-``hi`` (default 1-10, paper 2.5). Raises :class:`OutputInvalid`."""
    score = as_int(value, field)
    if not lo <= score <= hi:
        raise OutputInvalid(f"{field}: {score} is outside {lo}-{hi}")
    return score


def as_probability(value: Any, field: str = "p") -> float:
    """A winner tendency in [0, 1], rounded to steps of 0.01 (protocol Task 1). 0.5 is accepted here
    (the single-call protocol scores it as incorrect; the judge ballot rejects it separately).
    Raises :class:`OutputInvalid` outside [0, 1]."""
    p = as_number(value, field)
    if not 0.0 <= p <= 1.0:
        raise OutputInvalid(f"{field}: {p} is outside [0, 1]")
    return round(p, 2)


_SIDE_ALIASES = {
    "affirmative": "affirmative",
    "aff": "affirmative",
    "pro": "affirmative",
    "正方": "affirmative",
    "negative": "negative",
    "neg": "negative",
    "con": "negative",
    "opposition": "negative",
    "反方": "negative",
}


def as_side(value: Any, field: str = "side") -> str:
    """``"affirmative"`` or ``"negative"`` from those words or common aliases (aff/pro/正方,
    neg/con/反方). Raises :class:`OutputInvalid`."""
    if isinstance(value, str):
        side = _SIDE_ALIASES.get(value.strip().lower())
        if side:
            return side
    raise OutputInvalid(f"{field}: expected affirmative or negative, got {value!r}")


def as_choice(value: Any, choices: Sequence[str], field: str, aliases: Mapping[str, str] | None = None) -> str:
    """One of ``choices`` (exact, case- and separator-insensitive, or via ``aliases``, e.g. the
    rubric's written-out level names). Raises :class:`OutputInvalid` listing the choices."""
    if isinstance(value, str):
        key = re.sub(r"[\s\-]+", "_", value.strip().lower())
        for c in choices:
            if key == c.lower():
                return c
        if aliases:
            hit = aliases.get(value.strip().lower()) or aliases.get(value.strip())
            if hit:
                return hit
    raise OutputInvalid(f"{field}: expected one of {', '.join(choices)}, got {value!r}")


def canonical_label(name: Any, labels: Sequence[str]) -> str | None:
    """The position label in ``labels`` that ``name`` denotes: exact, case/space-insensitive, or the
    Chinese form (正方三辩 -> Affirmative Speaker 3). None when it names no known debater."""
    if not isinstance(name, str):
        return None
    key = " ".join(name.split()).lower()
    for label in labels:
        if key == label.lower() or name.strip() == position_label_zh(label):
            return label
    return None


def as_votes(value: Any, labels: Sequence[str], total: int, field: str = "best_debater_votes") -> dict[str, int]:
    """Best-debater votes: a mapping label -> count, a list of ``{"debater": label, "votes": n}``, or a
    list of labels, one per vote (the response schema's shape, :func:`~adjudicator.model.schema.ballots_of`).

    Keys must be known position labels (:func:`canonical_label`), counts non-negative integers, and
    the counts must sum to exactly ``total`` (3 for one judge, 9 for the panel, protocol Task 3).
    Zero counts are dropped. Raises :class:`OutputInvalid` naming the problem.
    """
    pairs: list[tuple[Any, Any]]
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        pairs = [(item, 1) for item in value]
    elif isinstance(value, list):
        pairs = []
        for item in value:
            if not isinstance(item, Mapping):
                raise OutputInvalid(f"{field}: expected objects with debater and votes, got {item!r}")
            pairs.append((item.get("debater", item.get("label")), item.get("votes", item.get("count"))))
    else:
        raise OutputInvalid(f"{field}: expected an object mapping position labels to counts, got {type(value).__name__}")
    votes: dict[str, int] = {}
    for name, count in pairs:
        label = canonical_label(name, labels)
        if label is None:
            raise OutputInvalid(f"{field}: {name!r} is not a debater of this match; use one of {', '.join(labels)}")
        n = as_int(count, f"{field}.{label}")
        if n < 0:
            raise OutputInvalid(f"{field}.{label}: a vote count cannot be negative")
        votes[label] = votes.get(label, 0) + n
    if sum(votes.values()) != total:
        raise OutputInvalid(f"{field}: the counts sum to {sum(votes.values())}, not {total}")
    return {k: v for k, v in votes.items() if v > 0}
