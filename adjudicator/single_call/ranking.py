"""The single-call protocol on a ranking format (BP): DebateBench's three tasks, one request each
over the whole transcript (seed 002 sections 3.2 and 4.1, Appendix A), and the verdict they make.

- ``bp_house_order``: rank the four houses; the answer is DebateBench's four lines ``First: OG`` ...
  ``Fourth: CO``.
- ``bp_speaker_scores``: a speaker score 50-100 per speech, one line ``PM: 81`` per speech.
- ``bp_speaker_ranks``: rank the eight speeches 1-8, one line ``PM: 3`` per speech.

As DebateBench prescribes, every request carries a judging manual (``prompts/_bp_manual.en.j2``, our
own condensed WUDC-style manual) and all eight speeches as one text, asks for the bare answer with no
explanation, and runs at temperature 0 (the client's default). An answer in exactly the requested
lines is read as ``strict``; anything else goes through the protocol's three-stage parser (JSON,
normalisation, field-level recovery of the same lines) and counts as recovered; an answer that
names a house twice, misses a speech or leaves the scale is a failure after its attempts, never a
value. The verdict has no panel: ``judge_ranks``/``judge_scores`` hold the single answer.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from adjudicator.input.match import MatchView
from adjudicator.model.chat import ChatRequest
from adjudicator.model.parsing import ParseResult, parse_output
from adjudicator.model.prompts import PromptStore, match_fence_code, utterance_lines
from adjudicator.model.validators import OutputInvalid, as_int

HOUSE_ORDER = "bp_house_order"
SPEAKER_SCORES = "bp_speaker_scores"
SPEAKER_RANKS = "bp_speaker_ranks"
#: Template stem of each task (``prompts/<stem>.<lang>.j2``).
RANKING_TEMPLATES: dict[str, str] = {
    HOUSE_ORDER: "single_call_bp_house_order",
    SPEAKER_SCORES: "single_call_bp_speaker_scores",
    SPEAKER_RANKS: "single_call_bp_speaker_ranks",
}
MATCH_KEY = "match"
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def ranking_template_hashes(store: PromptStore, language: str) -> dict[str, str]:
    """Template name -> content hash of the three BP templates in ``language``."""
    return store.hashes([f"{stem}.{language}.j2" for stem in RANKING_TEMPLATES.values()])


def speech_blocks(view: MatchView) -> list[dict[str, Any]]:
    """The speeches as the manual partial lays them out: number, abbr, name, house, house name,
    role and the text (utterance lines)."""
    spec = view.spec()
    out = []
    for k, (sid, unit, abbr) in enumerate(view.speeches(), start=1):
        slot = view.slot_of(sid)
        st = view.stage(sid)
        out.append(
            {"number": k, "abbr": abbr, "name": st.name, "house": unit, "house_name": spec.unit(unit).name, "role": slot.speech_role if slot else "", "text": utterance_lines(st.utterances)}
        )
    return out


def ranking_request(view: MatchView, task: str, store: PromptStore) -> ChatRequest:
    """The request of one BP task (module docstring): manual, motion, info slide and all speeches."""
    variables = {"motion": view.motion, "info": view.info or "", "houses": view.units(), "speeches": speech_blocks(view), "fence_code": match_fence_code(view)}
    rendered = store.render(f"{RANKING_TEMPLATES[task]}.{view.spec().language}.j2", variables)
    return ChatRequest(messages=rendered.messages(), node=task, key=MATCH_KEY, template_hash=rendered.template_hash, schema=None, schema_name=task)


# ---------------------------------------------------------------------------------------------
# readers: decoded object -> value, the lines -> object, and the strict line reader


def read_house_order(obj: dict[str, Any], units: list[str]) -> dict[str, int]:
    """``{"First": "OG", ...}`` (or ``{"ranking": {"OG": 1, ...}}``) -> unit -> rank, every unit
    once. Raises OutputInvalid."""
    if isinstance(obj.get("ranking"), dict):
        ranks = {str(k).upper(): as_int(v, f"ranking.{k}") for k, v in obj["ranking"].items()}
    else:
        ranks = {}
        for k, word in enumerate(ORDINALS[: len(units)], start=1):
            value = next((v for key, v in obj.items() if str(key).strip().lower() == word), None)
            if value is None:
                raise OutputInvalid(f"{word.capitalize()}: missing")
            unit = str(value).strip().upper()
            if unit in ranks:
                raise OutputInvalid(f"{unit} is ranked twice")
            ranks[unit] = k
    if sorted(ranks) != sorted(units) or sorted(ranks.values()) != list(range(1, len(units) + 1)):
        raise OutputInvalid(f"ranking: rank each of {', '.join(units)} once, 1-{len(units)}")
    return ranks


def read_per_speech(obj: dict[str, Any], abbrs: list[str], lo: int, hi: int, distinct: bool, what: str) -> dict[str, int]:
    """``{"PM": 81, ...}`` -> speech abbreviation -> integer in ``lo``-``hi`` for every speech;
    ``distinct`` requires each value once (ranks). Raises OutputInvalid."""
    found = {str(k).strip().upper(): v for k, v in obj.items()}
    out = {}
    for a in abbrs:
        if a not in found:
            raise OutputInvalid(f"{what}: {a} is missing")
        n = as_int(found[a], f"{what}.{a}")
        if not lo <= n <= hi:
            raise OutputInvalid(f"{what}.{a}: {n} is outside {lo}-{hi}")
        out[a] = n
    if distinct and len(set(out.values())) != len(out):
        raise OutputInvalid(f"{what}: each rank 1-{len(abbrs)} must be used once")
    return out


def lines_object(text: str, keys: list[str]) -> dict[str, Any] | None:
    """``Key: value`` lines for the given keys (case-insensitive; markdown bold and list marks
    ignored) -> ``{key: value}``; None when no key is found. Recovery (stage 3) and strict reading."""
    out: dict[str, Any] = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(?:[-*]\s*)?\**\s*([A-Za-z]+)\s*\**\s*[:=]\s*\**\s*([A-Za-z]+|\d+)\b", line)
        if m and m.group(1).lower() in {k.lower() for k in keys}:
            key = next(k for k in keys if k.lower() == m.group(1).lower())
            out.setdefault(key, m.group(2))
    return out or None


def _line_reader(text: str, keys: list[str], validate: Any) -> ParseResult[Any]:
    """Exactly the requested lines (and nothing else) -> ``strict``; else the three-stage parser
    with :func:`lines_object` as its recovery."""
    lines = [ln.strip() for ln in (text or "").strip().splitlines() if ln.strip()]
    if len(lines) == len(keys) and all(re.fullmatch(rf"{re.escape(k)}:\s*\w+", ln, re.I) for k, ln in zip(keys, lines)):
        obj = lines_object(text, keys) or {}
        try:
            return ParseResult(validate(obj), "strict")
        except (OutputInvalid, ValueError):
            pass
    return parse_output(text, validate=validate, recover=partial(lines_object, keys=keys))


def ranking_readers(view: MatchView) -> dict[str, Any]:
    """Task -> reader ``text -> ParseResult`` of the three BP tasks for this match."""
    units = view.units()
    abbrs = [a for _, _, a in view.speeches()]
    lo, hi = view.spec().speaker_scale or (50, 100)
    ordinals = [w.capitalize() for w in ORDINALS[: len(units)]]
    return {
        HOUSE_ORDER: partial(_line_reader, keys=ordinals, validate=partial(read_house_order, units=units)),
        SPEAKER_SCORES: partial(_line_reader, keys=abbrs, validate=partial(read_per_speech, abbrs=abbrs, lo=lo, hi=hi, distinct=False, what="speaker scores")),
        SPEAKER_RANKS: partial(_line_reader, keys=abbrs, validate=partial(read_per_speech, abbrs=abbrs, lo=1, hi=len(abbrs), distinct=True, what="speaker ranks")),
    }
