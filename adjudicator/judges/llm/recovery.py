"""Reading the LLM tracker's answers: validators (decoded object -> value) and stage-3 recoveries
(a judge's ballot is read by :mod:`adjudicator.judges.llm.ballot_recovery`).

The validators turn a decoded JSON object into the node's value or raise
:class:`~adjudicator.model.validators.OutputInvalid`: :func:`read_stage_analysis` gives the tracker's
:class:`~adjudicator.verdict.battlefield.StageAnalysis` of one stage, :func:`read_window_analyses`
those of a window of stages. They are more lenient than the response schemas of
:mod:`adjudicator.judges.llm.outputs` (written-out level names, a mapping instead of a list), because a
model without structured output writes what it likes.

The recoveries are stage 3 of the protocol's three-stage parser
(:func:`~adjudicator.model.parsing.parse_output`): they build a candidate object from field-level
regular expressions when no JSON object could be decoded; the validator then checks it as usual.

A recovery keeps what it read only where what it could not read stays visible: the tracker's
recovery decodes each clash update on its own and keeps an update it cannot decode as its raw text,
which the validator refuses, naming ``clash_updates``. The answer then fails, and the attempts runner
asks for the clash updates again in a repair turn (or the stage fails); a stage is never accepted
with fewer updates than its answer held.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

from adjudicator.input.formats import Side
from adjudicator.input.rubric import (
    ADVANCEMENT_LEVELS,
    BATTLEFIELD_LEVELS,
    LEVEL_TEXT,
    TASK_LEVELS,
    Advancement,
    BattlefieldJudgement,
    TaskPerformance,
    suggested_score,
)
from adjudicator.judges.base import StageRequest
from adjudicator.judges.llm.dimensions import read_side_dimensions
from adjudicator.judges.llm.variables import side_debaters, sole_debaters
from adjudicator.model.near_json import repair_json
from adjudicator.model.parsing import find_number, find_string, find_word, key_pattern
from adjudicator.model.validators import FieldChecks, OutputInvalid, as_choice, as_number, as_score, as_side, canonical_label, one_line, required_text
from adjudicator.records import Dropped
from adjudicator.verdict.battlefield import CLASH_KINDS, ClashEventKind, ClashUpdate, SideAnalysis, StageAnalysis
from adjudicator.verdict.review import is_real_speech

#: What the validator asks of a tracker answer without clash updates (its repair turn's message).
MOVE_WANTED = "list what this stage did to at least one clash: a clash id of the ledger it moved, or a new clash it opened"

#: Written-out level names (English and Chinese, from rubric.LEVEL_TEXT) -> level key.
LEVEL_ALIASES: dict[str, str] = {text.lower(): key for key, pair in LEVEL_TEXT.items() for text in pair}

_ID_RE = re.compile(r"[^\w\-]+", re.U)


def _contributions(value: Any, allowed: list[str]) -> dict[str, float]:
    pairs: list[tuple[Any, Any]] = []
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = [(i.get("debater"), i.get("share")) for i in value if isinstance(i, Mapping)]
    shares: dict[str, float] = {}
    for name, share in pairs:
        label = canonical_label(name, allowed)
        if label is None:
            continue
        try:
            x = as_number(share, "share")
        except OutputInvalid:
            continue
        if x > 0:
            shares[label] = shares.get(label, 0.0) + x
    total = sum(shares.values())
    if total <= 0:
        return {label: round(1.0 / len(allowed), 3) for label in allowed} if allowed else {}
    return {k: round(v / total, 3) for k, v in shares.items()}


def _clash_update(item: Any, k: int, labels: list[str], no_note: list[int] | None = None, sole: Mapping[str, str] | None = None) -> ClashUpdate:
    """Update ``k`` of ``clash_updates``: a clash id (word characters and hyphens; others become
    hyphens), a side, a kind of :data:`CLASH_KINDS`, a title and a note that are not empty (issue 25);
    text fields cut to one line. Raises
    :class:`OutputInvalid` for anything else, including an update kept as raw text by the recovery
    (:func:`recover_clash_updates`). With ``no_note`` (a list), an empty note does not raise: the
    update is read with note ``""`` and ``k`` appended, for :func:`read_stage_analysis` to judge.
    ``debater`` is the label written (one of ``labels``, :func:`canonical_label`), else, with ``sole``
    (each side's only debater, :func:`~adjudicator.judges.llm.variables.sole_debaters`, whose schema
    asks no ``debater``), the debater of the update's side, else None."""
    if isinstance(item, str):
        raise OutputInvalid(f"clash_updates.{k}: this update could not be read as a JSON object ({one_line(item, 80)})")
    if not isinstance(item, Mapping):
        raise OutputInvalid(f"clash_updates.{k}: expected an object, got {type(item).__name__}")
    cid = _ID_RE.sub("-", one_line(item.get("clash_id"), 40)).strip("-")
    if not cid:
        raise OutputInvalid(f"clash_updates.{k}.clash_id: missing; every update names the clash it moves")
    side = as_side(item.get("side"), f"clash_updates.{k}.side")
    kind = cast(ClashEventKind, as_choice(item.get("kind"), CLASH_KINDS, f"clash_updates.{k}.kind"))
    return ClashUpdate(
        clash_id=cid,
        title=_field_text(item.get("title"), 160, f"clash_updates.{k}.title"),
        side=side,
        kind=kind,
        note=_note(item.get("note"), k, no_note),
        debater=canonical_label(item.get("debater"), labels) or (sole or {}).get(side),
        affirmative_position=one_line(item.get("affirmative_position"), 200),
        negative_position=one_line(item.get("negative_position"), 200),
    )


def _note(value: Any, k: int, no_note: list[int] | None) -> str:
    """Update ``k``'s note (:func:`_field_text`), or "" recorded in ``no_note`` when it is empty and a list is given."""
    if no_note is not None and not one_line(value, 240):
        no_note.append(k)
        return ""
    return _field_text(value, 240, f"clash_updates.{k}.note")


def _field_text(value: Any, limit: int, field: str) -> str:
    """:func:`required_text` whose error names no field of its own (its list's field is named)."""
    text = one_line(value, limit)
    if not text:
        raise OutputInvalid(f"{field}: empty; write it in your own words")
    return text


def _clash_updates(value: Any, labels: list[str], no_note: list[int] | None = None, sole: Mapping[str, str] | None = None) -> list[ClashUpdate]:
    """Every update of ``clash_updates`` (:func:`_clash_update`). One that cannot be read fails the
    whole field (``("clash_updates",)``), so a repair turn asks for the updates again: an update is
    never dropped while the rest of the stage is kept. The list must be there: an absent list is the
    model's claim left unmade, not "no clash touched" (an empty list is judged by
    :func:`read_stage_analysis`)."""
    if value is None:
        raise OutputInvalid(f"clash_updates: missing; {MOVE_WANTED}", [("clash_updates",)])
    if not isinstance(value, list):
        raise OutputInvalid(f"clash_updates: expected a list, got {type(value).__name__}", [("clash_updates",)])
    checks = FieldChecks()
    out = [checks.run(("clash_updates",), _clash_update, item, k, labels, no_note, sole) for k, item in enumerate(value)]
    checks.raise_if_failed()
    return [u for u in out if u is not None]


def _side_items(obj: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The tracker's per-side entries by side (the first entry of a side wins); ``sides`` may be a
    list of ``{"side": ...}`` objects or a mapping ``{"affirmative": {...}, "negative": {...}}``."""
    sides_raw = obj.get("sides")
    if isinstance(sides_raw, Mapping):
        sides_raw = [{"side": k, **v} for k, v in sides_raw.items() if isinstance(v, Mapping)]
    if not isinstance(sides_raw, list):
        raise OutputInvalid("sides: expected an object with one entry per evaluated side", [("sides",)])
    found: dict[str, Mapping[str, Any]] = {}
    for item in sides_raw:
        if not isinstance(item, Mapping):
            raise OutputInvalid("sides: every entry must be an object", [("sides",)])
        try:
            found.setdefault(as_side(item.get("side"), "sides.side"), item)
        except OutputInvalid:
            continue  # an entry for no known side is left out; a side it should have been is then missing
    return found


def _rated_analysis(obj: Mapping[str, Any], request: StageRequest, checks: FieldChecks) -> list[SideAnalysis]:
    """The one evaluated side's analysis of an answer in the match's one-schema form (``"rating"``,
    :func:`~adjudicator.judges.llm.variables.rates_one_side`), failures recorded in ``checks`` under
    ``("rating",)``; a reply that rates the side in the ``"sides"`` form instead is read the same."""
    (side,) = request.stage.evaluated_sides()
    item = obj.get("rating")
    if not isinstance(item, Mapping) and isinstance(obj.get("sides"), (Mapping, list)):
        try:
            item = _side_items(obj).get(side)
        except OutputInvalid:
            item = None
    if not isinstance(item, Mapping):
        checks.errors.append(OutputInvalid(f"rating: expected an object rating the {side} in this stage", [("rating",)]))
        return []
    analysis = checks.run(("rating",), _side_analysis, item, side, request, "rating")
    return [analysis] if analysis is not None else []


def read_stage_analysis(obj: Mapping[str, Any], request: StageRequest, one_rating: bool = False) -> StageAnalysis:
    """Validate a decoded tracker answer into a :class:`StageAnalysis`.

    ``one_rating``: the request asked for the match's one schema, the stage's one evaluated side
    rated under ``"rating"`` (:func:`_rated_analysis`; its failures named ``rating``), else one entry
    per evaluated side under ``"sides"``.

    Requires one entry per evaluated side (paper 2.2.2) with the three rubric levels (level keys
    or their written-out English/Chinese names); ``score`` null/absent means the rubric table's
    suggested score (:func:`~adjudicator.input.rubric.suggested_score`), an integer 1-10 overrides it.
    Contributions are normalised to shares summing to 1 over the side's debaters (unknown labels
    dropped; none given = equal shares). A clash update that cannot be read fails the answer
    (field ``clash_updates``, :func:`_clash_updates`), never silently dropped. Each side's rationale
    and the summary must not be empty (:func:`required_text`; issue 25), in a first
    answer and in a repair alike. Raises :class:`OutputInvalid` naming every failed field.

    An empty ``clash_updates`` on a stage of real speech (:func:`~adjudicator.verdict.review.is_real_speech`;
    issue 38: the 1.5B tracker recorded no move on any stage) is refused too, naming ``clash_updates``,
    so a repair turn asks for at least one update (a clash id of the ledger, or a new clash); the
    error's ``fallback`` is the stage without updates and its ``dropped`` names ``clash_updates``, so
    an answer still empty after that repair is accepted as it stands (a ``dropped_field`` failure, not
    a failed stage). No move is ever made up. A stage that is no real speech (a forfeit) may be empty.
    Where every side has one debater the schema asks no update's ``debater``: the side's debater is
    filled in (:func:`_clash_update`), as if written.
    Likewise an update whose note is empty (Qwen2.5-Coder 1.5B, session 5: one such note voided whole
    stages) is refused, and after its repair kept as a move (clash id, side, kind, debater) with the
    note dropped and listed (``clash_updates.<k>.note``); the rest of the stage stands.
    """
    st = request.stage
    checks = FieldChecks()
    rated = one_rating and len(st.evaluated_sides()) == 1
    found = None if rated else checks.run(("sides",), _side_items, obj)
    analyses = _rated_analysis(obj, request, checks) if rated else []
    for side in st.evaluated_sides() if found is not None else []:
        item = (found or {}).get(side)
        if item is None:
            checks.errors.append(OutputInvalid(f"sides: no analysis for the {side}", [("sides", side)]))
            continue
        analysis = checks.run(("sides", side), _side_analysis, item, side, request)
        if analysis is not None:
            analyses.append(analysis)
    no_note: list[int] = []
    sole = sole_debaters(request.match)
    updates = checks.run(("clash_updates",), _clash_updates, obj.get("clash_updates"), request.match.speaker_labels(), no_note, sole)
    summary = checks.run(("summary",), required_text, obj.get("summary"), 600, "summary")
    stage = StageAnalysis(stage_id=st.stage_id, stage_index=request.index, sides=analyses, clash_updates=updates or [], summary=summary or "")
    if no_note and updates is not None:  # a move without its note: the move stands on its own after the repair
        dropped = [Dropped(field=f"clash_updates.{k}.note", reason=f"clash_updates.{k}.note: empty; write it in your own words") for k in no_note]
        invalid = OutputInvalid("; ".join(d.reason for d in dropped), [("clash_updates",)])
        if not checks.errors:
            raise OutputInvalid(str(invalid), invalid.fields, fallback=stage, dropped=dropped)
        checks.errors.append(invalid)
    checks.raise_if_failed()
    if updates == [] and is_real_speech(st, request.match.language):
        reason = f"clash_updates: empty, but this stage is a real speech; {MOVE_WANTED}"
        raise OutputInvalid(reason, [("clash_updates",)], fallback=stage, dropped=[Dropped(field="clash_updates", reason=reason)])
    return stage


def _window_parts(obj: Mapping[str, Any], ids: Sequence[str]) -> Mapping[str, Any]:
    """The per-stage answers of a window answer by stage id: ``stages`` as an object keyed by stage id
    (the response schema's shape) or a list of objects carrying ``stage_id``; an answer without
    ``stages`` whose top-level keys are the stage ids themselves is read the same way."""
    parts = obj.get("stages")
    if parts is None and any(sid in obj for sid in ids):
        parts = obj
    if isinstance(parts, list):
        parts = {str(p.get("stage_id")): p for p in parts if isinstance(p, Mapping) and p.get("stage_id") is not None}
    if not isinstance(parts, Mapping):
        raise OutputInvalid("stages: expected an object with one entry per stage asked, keyed by stage id", [("stages",)])
    return parts


def read_window_analyses(obj: Mapping[str, Any], requests: Sequence[StageRequest]) -> list[StageAnalysis]:
    """Validate a decoded answer for a window of consecutive stages (``requests``, one per stage in
    stage order) into one :class:`StageAnalysis` per stage, in order: each stage's part
    (``stages.<stage_id>``) goes through :func:`read_stage_analysis` with that stage's request. Every
    stage is checked; the :class:`OutputInvalid` raised names each failed field under its stage
    (``("stages", "s04", "sides", "negative")``, or ``("stages", "s04")`` for a missing stage), so a
    repair turn asks again only for what failed. When every failed stage has a fallback (a real speech
    without clash updates, :func:`read_stage_analysis`), so has the window: every stage's analysis,
    with ``dropped`` named under its stage (``stages.s04.clash_updates``). Clash ids need no check against the ledger: a later
    stage may reuse an id an earlier stage of the window opened (the graph folds them in stage order)."""
    parts = _window_parts(obj, [r.stage.stage_id for r in requests])
    checks = FieldChecks()
    out: list[StageAnalysis] = []
    dropped: list[Dropped] = []
    whole = True  # every failed stage has a fallback (a stage without its clash updates)
    for r in requests:
        sid = r.stage.stage_id
        part = parts.get(sid)
        if not isinstance(part, Mapping):
            checks.errors.append(OutputInvalid(f"stages: no answer for stage {sid}", [("stages", sid)]))
            whole = False
            continue
        try:
            out.append(read_stage_analysis(part, r))
        except OutputInvalid as exc:
            fields = [("stages", sid, *f) for f in exc.fields] or [("stages", sid)]
            checks.errors.append(OutputInvalid(f"stages.{sid}: {exc}", fields, {("stages", sid, *f): r for f, r in exc.ranges.items()}))
            if exc.fallback is None:
                whole = False
            else:
                out.append(exc.fallback)
                dropped += [Dropped(field=f"stages.{sid}.{d.field}", reason=d.reason) for d in exc.dropped]
    try:
        checks.raise_if_failed()
    except OutputInvalid as exc:
        raise OutputInvalid(str(exc), exc.fields, exc.ranges, fallback=out if whole else None, dropped=dropped if whole else ()) from None
    return out


def _side_analysis(item: Mapping[str, Any], side: Side, request: StageRequest, at: str | None = None) -> SideAnalysis:
    """One evaluated side's rating (see :func:`read_stage_analysis`), its fields named under ``at``
    (default ``sides.<side>``). Raises OutputInvalid."""
    st = request.stage
    at = at or f"sides.{side}"
    task = cast(TaskPerformance, as_choice(item.get("task_performance"), TASK_LEVELS, f"{at}.task_performance", LEVEL_ALIASES))
    bf = cast(BattlefieldJudgement, as_choice(item.get("battlefield_judgement"), BATTLEFIELD_LEVELS, f"{at}.battlefield_judgement", LEVEL_ALIASES))
    adv = cast(Advancement, as_choice(item.get("advancement"), ADVANCEMENT_LEVELS, f"{at}.advancement", LEVEL_ALIASES))
    raw_score = item.get("score")
    score = suggested_score(task, bf, adv) if raw_score in (None, "", "null") else as_score(raw_score, f"{at}.score")
    return SideAnalysis(
        stage_id=st.stage_id,
        side=side,
        role=st.role_of(side),
        task_performance=task,
        battlefield_judgement=bf,
        advancement=adv,
        suggested_score=score,
        rationale=required_text(item.get("rationale"), 1000, f"{at}.rationale"),
        contributions=_contributions(item.get("contributions"), side_debaters(request.match, st, side)),
        dimensions=read_side_dimensions(item, request, side),
    )


_SIDE_ANCHOR = re.compile(
    r"(?<![A-Za-z_])(?:[\"']?side[\"']?\s*[:：]\s*[\"'“]?(affirmative|negative)|[\"'“](affirmative|negative)[\"'”]\s*[:：]\s*[{｛])", re.I
)

#: Where the one rating of an answer in the match's one-schema form starts (``"rating": {``).
_RATING_ANCHOR = re.compile(r"[\"']?rating[\"']?\s*[:：]\s*[{｛]")


def recover_stage_analysis(text: str, one_rating: bool = False) -> dict[str, Any] | None:
    """Stage-3 recovery for the tracker: split the text at each ``"side": "..."`` (or each
    ``"<side>": {``, the response schema's shape; with ``one_rating``, at ``"rating": {``, the match's
    one schema, whose side the stage implies) and read the three levels (and an optional score and
    rationale) from each piece that has them, and the summary where it can be read;
    the clash updates are those of :func:`recover_clash_updates` (an unreadable one kept as its text,
    which the validator refuses), left out when the text holds no list and no update, so the validator
    asks for them. An empty summary fails validation the same way (a repair turn)."""
    anchors = list((_RATING_ANCHOR if one_rating else _SIDE_ANCHOR).finditer(text))
    sides = []
    for i, m in enumerate(anchors):
        seg = text[m.start() : anchors[i + 1].start() if i + 1 < len(anchors) else len(text)]
        task = find_word(seg, ["task_performance"], list(TASK_LEVELS) + [k for k in LEVEL_ALIASES if LEVEL_ALIASES[k] in TASK_LEVELS])
        bf = find_word(seg, ["battlefield_judgement"], list(BATTLEFIELD_LEVELS))
        adv = find_word(seg, ["advancement"], list(ADVANCEMENT_LEVELS))
        if not (task and bf and adv):
            continue
        score = find_number(seg, ["score"])
        sides.append(
            {
                "side": next((g for g in m.groups() if g), "").lower(),
                "task_performance": task,
                "battlefield_judgement": bf,
                "advancement": adv,
                "score": int(score) if score is not None and float(score).is_integer() else None,
                "rationale": find_string(seg, ["rationale"]) or "",
            }
        )
    if not sides:
        return None
    found: dict[str, Any] = {"rating": sides[0]} if one_rating else {"sides": sides}
    found["summary"] = find_string(text, ["summary"]) or ""
    if _UPDATES_RE.search(text) or _CLASH_ID_RE.search(text):  # an absent list stays absent: the validator asks for it
        found["clash_updates"] = recover_clash_updates(text)
    return found


#: Where a tracker answer's clash updates start (``"clash_updates": [``), the top-level keys that may
#: follow the list, and the key every update begins its own part with.
_UPDATES_RE = re.compile(key_pattern(["clash_updates"]) + r"[\[［]")
_AFTER_UPDATES_RE = re.compile(key_pattern(["summary", "sides", "rating", "reasoning"]))
_CLASH_ID_RE = re.compile(key_pattern(["clash_id"]))


def _decoded(piece: str) -> dict[str, Any] | None:
    """``piece`` as a JSON object, as written or after the normalising repairs; None if neither reads."""
    for candidate in (piece, repair_json(piece)):
        try:
            obj = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            return obj
    return None


def recover_clash_updates(text: str) -> list[Any]:
    """The clash updates of a tracker answer that could not be decoded whole (an unescaped quote in a
    note, a brace dropped): the text of the ``clash_updates`` list (to the next top-level key, or the
    end) is cut before each update's ``clash_id`` key (at the update's opening brace), and each part is
    decoded on its own (strict JSON, then :func:`~adjudicator.model.near_json.repair_json`). A part that
    does not decode is kept as its text, so the validator names the update that was lost instead of
    the stage losing it. [] when the answer holds no update (no ``clash_updates`` list, or an empty
    one, and no ``clash_id`` anywhere)."""
    head = _UPDATES_RE.search(text)
    if head is not None:
        tail = _AFTER_UPDATES_RE.search(text, head.end())
        region = text[head.end() : tail.start() if tail else len(text)]
        region = region[: region.rfind("]")] if "]" in region else region
    else:  # no list: any update written elsewhere is still an update the answer held
        first = _CLASH_ID_RE.search(text)
        if first is None:
            return []
        region = text[max(text.rfind("{", 0, first.start()), 0) :]
    cuts, after = [], 0
    for anchor in _CLASH_ID_RE.finditer(region):
        brace = region.rfind("{", after, anchor.start())
        cuts.append(brace if brace >= 0 else anchor.start())
        after = anchor.end()
    bounds = [0, *cuts, len(region)]
    out: list[Any] = []
    for start, end in zip(bounds, bounds[1:]):
        piece = region[start:end].strip().strip(",，").strip()
        if piece:
            decoded = _decoded(piece)
            out.append(decoded if decoded is not None else piece)
    return out
