"""Normalisation: the answers whose meaning is unambiguous, rewritten before validation (issue 38).

The protocol reads an output in three stages and its second is *format normalisation* (seed 001,
section 02): what the model plainly meant, written in another form, is read as that form. The JSON
repairs of :mod:`adjudicator.model.near_json` normalise the syntax; this module normalises values.
Each rule is named (:data:`~adjudicator.records.NormalisationRule`), applies only where exactly one
reading is possible, and leaves a :class:`~adjudicator.records.Normalised` note (rule, field, the
value as written and as read). The notes travel on the parse result into the call record
(:attr:`~adjudicator.records.CallRecord.normalised`) and onto the ballot
(:attr:`~adjudicator.verdict.ballots.Ballot.normalised`), and the review names them
(``normalised_fields``), so a person sees every value that was read other than as written.

The rules:

- ``stage_id_case``: a stage id in another case (``S01`` for ``s01``).
- ``stage_id_with_title``: a stage id with the stage's own name before or after it (``s01 Round 1``,
  ``s01: Opening``, ``Round 1 (s01)``); the name must be that stage's, else nothing is read.
- ``stage_by_name``: a stage written as its name (``Round 1, affirmative (Pro) speech``; in Chinese
  ``正方一辩陈词``), case and spacing aside, when exactly one stage of the match has that name (its
  name in the match, or the format's English or Chinese name of its slot). ``Round 1`` where two
  stages share the round is not a name, so it is not read.
- ``p_on_1_10`` / ``p_on_0_100``: a winner tendency asked for in [0, 1] and written on another
  scale: a p above 1 and at most 10 is read as a 1-10 scale and divided by 10 (8.5 -> 0.85); above 10
  and at most 100 as a percentage and divided by 100 (85 -> 0.85). The result is then validated like
  any p: it must not be 0.5 and must agree with the stated winner, so a rescaled p that contradicts the
  winner is still refused. A p of 1 or less is never rescaled; above 100 nothing is read.
- ``stage_id_with_side``: in a feedback point, a stage id with a side after it, as the stage-score
  keys are written (``s01|negative``; also ``s01 negative``, ``s01 (negative)``, ``s01, negative``;
  the side in any form :func:`~adjudicator.model.validators.as_side` reads, 正方/反方 too). The id is
  read (as written or in another case) only when the side is the side of the debater the point is
  for; a point for the affirmative naming ``s01|negative`` is left as written, so the validator
  refuses it and, after its repair turn, it is dropped. The 1.5B model wrote these (issue 38).
- ``stage_by_name_and_side``: in a feedback point, a stage written as the name several stages share
  (``Round 2``, the first words of ``Round 2, affirmative (Pro) speech`` and ``Round 2, negative (Con)
  speech``), read as the one of them in which the side of the debater the point is for speaks. Only
  when exactly one of the stages so named is that side's; a point whose debater's side is unknown, or
  a name no stage starts with, is left as written. The 0.5B model wrote every dropped point of
  debateart_0750 so (issue 38).
- ``votes_by_name``: best-debater votes given by the debater's name instead of the position label,
  when exactly one debater of the match has that name.
- ``title_from_ledger_line`` (the tracker's answer, :func:`normalise_stage_answer`): a clash update's
  title that carries the rest of the ledger's line for that clash (``Heath Ledger's Joker is
  spectacular | momentum +0.00 | s02:neg opened (...)``, ``... | AFF: affirmati | NEG: positive |
  momentum ...``; the line's form is ``prompts/_ledger.*.j2``), read as the title before the first
  ``| AFF:``, ``| NEG:`` or ``| momentum`` part, without a leading ``[c1]``. Both small models copied
  the line so on most debates (issue 38: 91 titles in the session-5 runs), and each stage's copy then
  carried the last one's, so the map of clashes showed ledger lines as titles. A title that is only
  the copied parts is left as written.

What is not here on purpose: a clash id that is not in the ledger, a stage id that names no stage
(``c1`` as a stage), a p below 0: no single reading exists, so the validator refuses them as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.model.validators import OutputInvalid, as_side, canonical_label
from adjudicator.records import NormalisationRule, Normalised

#: The scales a p written above 1 is read on: (largest value, divisor, rule).
P_SCALES: tuple[tuple[float, float, NormalisationRule], ...] = ((10.0, 10.0, "p_on_1_10"), (100.0, 100.0, "p_on_0_100"))


def _key(text: str) -> str:
    """``text`` compared loosely: case-folded, whitespace runs as one space, stripped."""
    return " ".join(str(text).split()).casefold()


def _bare(text: str) -> str:
    """:func:`_key` of ``text`` without the punctuation and brackets around and between its words."""
    return " ".join(re.sub(r"[\s\W_]+", " ", str(text), flags=re.UNICODE).split()).casefold()


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def note(rule: NormalisationRule, field: str, before: Any, after: Any) -> Normalised:
    """The :class:`Normalised` note of ``field`` rewritten by ``rule`` from ``before`` to ``after``."""
    return Normalised(rule=rule, field=field, before=_json(before), after=_json(after))


def stage_id_of(value: Any, stages: Mapping[str, Sequence[str]]) -> tuple[str, NormalisationRule | None] | None:
    """The stage id ``value`` denotes among ``stages`` (stage id -> the stage's names), and the rule
    that read it (None when ``value`` is the id as it is); None when it denotes no single stage.
    Rules (module docstring): ``stage_id_case``, ``stage_id_with_title``, ``stage_by_name``."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text in stages:
        return text, None
    by_case = [sid for sid in stages if sid.casefold() == text.casefold()]
    if len(by_case) == 1:
        return by_case[0], "stage_id_case"
    for sid, names in stages.items():
        m = re.fullmatch(rf"(?i)\W*{re.escape(sid)}\b(.*)|(.*?)\b{re.escape(sid)}\W*", text)
        if m:
            rest = _bare(m.group(1) if m.group(1) is not None else m.group(2))
            if rest and any(rest == _bare(n) for n in names):
                return sid, "stage_id_with_title"
    named = [sid for sid, names in stages.items() if any(_key(text) == _key(n) for n in names)]
    if len(named) == 1:
        return named[0], "stage_by_name"
    return None


#: A stage id and a side after it: ``s01|negative``, ``s01 negative``, ``s01 (negative)``, ``s01, negative``.
_WITH_SIDE = re.compile(r"\s*(\S+?)\s*(?:\|\s*|,\s*|\s+)\(?\s*(\w+)\s*\)?\s*", re.UNICODE)


def stage_id_with_side_of(value: Any, stages: Mapping[str, Sequence[str]], side: str | None) -> str | None:
    """The stage id of ``value`` written as a stage id (as it is, or in another case) and a side
    (``s01|negative``; rule ``stage_id_with_side``, module docstring) when that side is ``side``, the
    side of the debater whose point it is; None otherwise (no side known, another side, no such stage)."""
    if side is None or not isinstance(value, str):
        return None
    m = _WITH_SIDE.fullmatch(value)
    if m is None:
        return None
    try:
        written_side = as_side(m.group(2))
    except OutputInvalid:
        return None
    by_id = [sid for sid in stages if sid.casefold() == m.group(1).casefold()]
    return by_id[0] if len(by_id) == 1 and written_side == side else None


def stage_by_name_and_side_of(value: Any, stages: Mapping[str, Sequence[str]], stage_sides: Mapping[str, Sequence[str]], side: str | None) -> str | None:
    """The stage id of ``value`` written as the first words of the names of several stages (``stages``:
    stage id -> names), read as the one of them whose speaking sides (``stage_sides``: stage id -> the
    sides that speak in it) hold ``side``, the side of the debater whose point it is (rule
    ``stage_by_name_and_side``, module docstring); None when no side is known or not exactly one stage fits."""
    if side is None or not isinstance(value, str) or not _bare(value):
        return None
    head = _bare(value) + " "
    named = [sid for sid, names in stages.items() if any(_bare(n).startswith(head) for n in names)]
    fits = [sid for sid in named if side in stage_sides.get(sid, ())]
    return fits[0] if len(fits) == 1 else None


def p_of(value: Any) -> tuple[float, NormalisationRule] | None:
    """``value`` as a p in [0, 1] read on another scale (``p_on_1_10``, ``p_on_0_100``; module
    docstring), rounded to two decimals; None when ``value`` is not a number above 1 and at most 100."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    for largest, divisor, rule in P_SCALES:
        if 1.0 < number <= largest:
            return round(number / divisor, 2), rule
    return None


def label_of_name(value: Any, names: Mapping[str, str]) -> str | None:
    """The position label of the one debater whose name (``names``: name -> label) ``value`` is, case
    and spacing aside; None when it is no name or several debaters share it."""
    if not isinstance(value, str):
        return None
    found = {label for name, label in names.items() if _key(name) == _key(value)}
    return found.pop() if len(found) == 1 else None


def _votes(raw: Any, labels: Sequence[str], names: Mapping[str, str]) -> tuple[Any, bool]:
    """``raw`` votes with every key (a mapping's key, a list's label, an entry's ``debater``) that is
    not a label but one debater's name replaced by that debater's label; and whether any was."""
    known = {_key(label) for label in labels}

    def fix(name: Any) -> Any:
        if isinstance(name, str) and _key(name) not in known:
            return label_of_name(name, names) or name
        return name

    if isinstance(raw, Mapping):
        out: Any = {}
        for k, v in raw.items():
            key = fix(k)
            out[key] = out[key] + v if key in out and isinstance(v, int) and isinstance(out[key], int) else v
    elif isinstance(raw, list):
        out = [fix(i) if isinstance(i, str) else ({**i, "debater": fix(i.get("debater"))} if isinstance(i, Mapping) and "debater" in i else i) for i in raw]
    else:
        return raw, False
    return out, out != raw


def normalise_ballot(obj: Mapping[str, Any], stages: Mapping[str, Sequence[str]], labels: Sequence[str], names: Mapping[str, str],
                     sides: Mapping[str, str] | None = None, stage_sides: Mapping[str, Sequence[str]] | None = None) -> tuple[dict[str, Any], list[Normalised]]:
    """``obj``, a decoded judge answer, with the module's rules applied, and a note per field rewritten.

    ``stages`` maps each stage id of the match to its names; ``labels`` are the debaters' position
    labels and ``names`` maps a debater's name to its label; ``sides`` maps a label to its debater's
    side (for ``stage_id_with_side``; without it that rule reads nothing), ``stage_sides`` each stage
    id to the sides that speak in it (for ``stage_by_name_and_side``, likewise). Rewritten: ``p`` (:func:`p_of`), the stage
    ids in ``stage_scores`` (the ``"<stage_id>|<side>"`` keys, or each entry's ``stage_id``) and in every
    feedback point (:func:`stage_id_of`), and ``best_debater_votes`` (``votes_by_name``). A value no
    rule reads is left as written for the validator to judge. Never raises."""
    out = dict(obj)
    notes: list[Normalised] = []
    read_p = p_of(out.get("p"))
    if read_p is not None:
        notes.append(note(read_p[1], "p", out["p"], read_p[0]))
        out["p"] = read_p[0]
    out["stage_scores"] = _stage_scores(out.get("stage_scores"), stages, notes)
    if out.get("stage_scores") is None:
        del out["stage_scores"]
    votes, changed = _votes(out.get("best_debater_votes"), labels, names)
    if changed:
        notes.append(note("votes_by_name", "best_debater_votes", out["best_debater_votes"], votes))
        out["best_debater_votes"] = votes
    if isinstance(out.get("feedback"), Mapping):
        side_of = dict(sides or {})
        out["feedback"] = {
            label: _feedback_entry(entry, f"feedback.{label}", stages, side_of.get(canonical_label(label, list(side_of)) or ""), notes, stage_sides or {})
            for label, entry in out["feedback"].items()
        }
    return out, notes


def _stage_scores(raw: Any, stages: Mapping[str, Sequence[str]], notes: list[Normalised]) -> Any:
    """``stage_scores`` with each stage id a rule reads replaced (notes appended to ``notes``)."""
    if isinstance(raw, Mapping):
        out: dict[str, Any] = {}
        for key, score in raw.items():
            sid, bar, side = str(key).rpartition("|") if "|" in str(key) else (str(key), "", "")
            read = stage_id_of(sid, stages)
            new = f"{read[0]}{bar}{side}" if read is not None else key
            if read is not None and read[1] is not None and new not in raw and new not in out:  # never over a unit given as written
                notes.append(note(read[1], f"stage_scores.{key}", key, new))
                key = new
            out[key] = score
        return out
    if isinstance(raw, list):
        fixed = []
        for i, item in enumerate(raw):
            read = stage_id_of(item.get("stage_id"), stages) if isinstance(item, Mapping) else None
            if read is not None and read[1] is not None:
                notes.append(note(read[1], f"stage_scores.{i}.stage_id", item["stage_id"], read[0]))
                item = {**item, "stage_id": read[0]}
            fixed.append(item)
        return fixed
    return raw


def _feedback_entry(entry: Any, field: str, stages: Mapping[str, Sequence[str]], side: str | None, notes: list[Normalised],
                    stage_sides: Mapping[str, Sequence[str]]) -> Any:  # fmt: skip
    """One debater's feedback (the debater on ``side``, None when unknown) with each point's stage id
    a rule reads replaced."""
    if not isinstance(entry, Mapping):
        return entry
    out = dict(entry)
    for kind, point in entry.items():
        if isinstance(point, Mapping):
            read = stage_id_of(point.get("stage_id"), stages)
            if read is None and (with_side := stage_id_with_side_of(point.get("stage_id"), stages, side)) is not None:
                read = with_side, "stage_id_with_side"
            if read is None and (by_side := stage_by_name_and_side_of(point.get("stage_id"), stages, stage_sides, side)) is not None:
                read = by_side, "stage_by_name_and_side"
            if read is not None and read[1] is not None:
                notes.append(note(read[1], f"{field}.{kind}.stage_id", point["stage_id"], read[0]))
                out[kind] = {**point, "stage_id": read[0]}
    return out


#: Where the rest of a ledger line begins in a clash title copied from it: a position or the momentum
#: (``prompts/_ledger.en.j2`` and ``.zh.j2`` write the same field markers).
_LEDGER_PARTS = re.compile(r"\s*\|\s*(?:AFF:|NEG:|momentum\b)")
#: A ledger line's bullet and clash id before the title (``- [c1] ``).
_LEDGER_ID = re.compile(r"^\s*-?\s*\[[\w-]+\]\s*")


def ledger_title(title: Any) -> str | None:
    """The clash title ``title`` without the rest of the ledger line copied after it (rule
    ``title_from_ledger_line``), or None when there is nothing to cut or nothing would be left."""
    if not isinstance(title, str):
        return None
    cut = _LEDGER_PARTS.search(title)
    if cut is None:
        return None
    kept = _LEDGER_ID.sub("", title[: cut.start()]).strip()
    return kept or None


def normalise_stage_answer(obj: Mapping[str, Any]) -> tuple[dict[str, Any], list[Normalised]]:
    """``obj``, a decoded tracker answer (one stage, or a window's ``{"stages": {id: answer}}``), with
    every clash update's title read by :func:`ledger_title` where it applies, and a note per title
    rewritten (field ``clash_updates.<k>.title``, in a window ``stages.<id>.clash_updates.<k>.title``).
    Never raises; anything else is left for the validator."""
    notes: list[Normalised] = []

    def one(answer: Any, prefix: str) -> Any:
        updates = answer.get("clash_updates") if isinstance(answer, Mapping) else None
        if not isinstance(updates, list):
            return answer
        fixed = []
        for k, item in enumerate(updates):
            title = ledger_title(item.get("title")) if isinstance(item, Mapping) else None
            if title is None:
                fixed.append(item)
                continue
            notes.append(note("title_from_ledger_line", f"{prefix}clash_updates.{k}.title", item["title"], title))
            fixed.append({**item, "title": title})
        return {**answer, "clash_updates": fixed}

    stages = obj.get("stages")
    if isinstance(stages, Mapping):
        return {**obj, "stages": {sid: one(answer, f"stages.{sid}.") for sid, answer in stages.items()}}, notes
    return one(obj, ""), notes
