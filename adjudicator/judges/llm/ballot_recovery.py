"""Reading an LLM judge's ballot: the validators (decoded object -> :class:`~adjudicator.verdict.ballots.Ballot`,
with the judge's per-debater feedback) and the stage-3 recovery of a ballot from field-level regular
expressions (:func:`~adjudicator.model.parsing.parse_output`).

Like the tracker's readers (:mod:`adjudicator.judges.llm.recovery`), :func:`read_ballot` is more
lenient than the response schema of :mod:`adjudicator.judges.llm.outputs` (a mapping instead of a
list), because a model without structured output writes what it likes; every stage score must be an
integer 1-10 for a unit the request scores, p in [0, 1] and on the winner's side, the votes summing
to :data:`~adjudicator.verdict.ballots.BALLOT_VOTES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.input.formats import Side
from adjudicator.judges.base import JudgeRequest
from adjudicator.judges.llm.dimensions import read_ballot_dimensions
from adjudicator.judges.llm.variables import judge_units, unit_key
from adjudicator.model.parsing import find_labels, find_number, find_string, find_votes, find_word, small_objects
from adjudicator.model.validators import FieldChecks, OutputInvalid, Ranges, as_probability, as_score, as_side, as_votes, canonical_label, one_line, required_text
from adjudicator.records import Dropped
from adjudicator.verdict.ballots import BALLOT_VOTES, Ballot, BallotScore
from adjudicator.verdict.feedback import FEEDBACK_KINDS, DebaterFeedback, FeedbackPoint, writes_feedback


def _unit_scores(raw: Any, units: list[tuple[str, Side]]) -> dict[tuple[str, Side], int]:
    """The judge's scores of the wanted ``units`` from ``stage_scores``: an object ``"<stage_id>|<side>"
    -> score`` (the response schema's shape) or a list of ``{"stage_id", "side", "score"}``. Units not
    asked for are ignored; a unit given twice with different scores, out of range or missing is
    invalid, and the error names it (``("stage_scores", "<stage_id>|<side>")``) when the answer has the
    object shape, else the whole field."""
    wanted = set(units)
    whole: list[tuple[str, ...]] = [("stage_scores",)]
    items: list[tuple[Any, Any, Any]] = []
    if isinstance(raw, Mapping):
        for k, v in raw.items():
            sid, _, side = str(k).partition("|")
            items.append((sid, side, v))
    elif isinstance(raw, list):
        for it in raw:
            if not isinstance(it, Mapping):
                raise OutputInvalid("stage_scores: every entry must be an object with stage_id, side and score", whole)
            items.append((it.get("stage_id"), it.get("side"), it.get("score")))
    else:
        raise OutputInvalid("stage_scores: expected an object with one score per unit", whole)

    def name(unit: tuple[str, str]) -> list[tuple[str, ...]]:
        return [("stage_scores", unit_key(*unit))] if isinstance(raw, Mapping) else whole

    checks = FieldChecks()
    scores: dict[tuple[str, Side], int] = {}
    for sid, side, value in items:
        try:
            side_n = as_side(side, "stage_scores.side")
        except OutputInvalid:
            continue
        unit = (str(sid).strip(), side_n)
        if unit not in wanted:
            continue
        score = checks.run(name(unit)[0], as_score, value, f"stage_scores.{unit_key(*unit)}")
        if score is None:
            continue
        if unit in scores and scores[unit] != score:
            checks.errors.append(OutputInvalid(f"stage_scores: {unit_key(*unit)} scored twice ({scores[unit]} and {score})", name(unit)))
            continue
        scores[unit] = score
    missing = [unit for unit in units if unit not in scores and not any(("stage_scores", unit_key(*unit)) in e.fields for e in checks.errors)]
    if missing:
        keys = [unit_key(*u) for u in missing]
        fields = [f for u in missing for f in name(u)]
        checks.errors.append(OutputInvalid(f"stage_scores: missing {', '.join(keys[:5])}{' ...' if len(keys) > 5 else ''}", fields))
    checks.raise_if_failed()
    return scores


#: The p a ballot may give (:data:`~adjudicator.model.validators.Ranges`): either side of 0.5, never a
#: tie (paper 2.3), in the protocol's steps of 0.01; :func:`_p_ranges` narrows it to the stated winner's.
P_RANGES: dict[str, Ranges] = {"affirmative": ((0.51, 1.0),), "negative": ((0.0, 0.49),)}


def _p_ranges(winner: Any) -> Ranges:
    """The p ranges a repair turn states: the side of 0.5 of ``winner`` when it names a side, else both."""
    try:
        return P_RANGES[as_side(winner, "winner")]
    except OutputInvalid:
        return P_RANGES["negative"] + P_RANGES["affirmative"]


def _ballot_p(obj: Mapping[str, Any]) -> tuple[float, Side]:
    """(p, winner) of a ballot: p in [0, 1] and not 0.5, the winner the side p favours (derived from
    p when absent). Raises OutputInvalid naming p, or p and the winner when they disagree; either
    error carries p's :data:`P_RANGES` (the stated winner's side when only p is asked for, else both
    sides), so a repair turn says which p is accepted, not "0.0 to 1.0"."""
    ranges: dict[tuple[str, ...], Ranges] = {("p",): _p_ranges(obj.get("winner"))}
    if obj.get("p") in (None, ""):
        raise OutputInvalid("p: missing", [("p",)], ranges)
    try:
        p = as_probability(obj.get("p"), "p")
    except OutputInvalid as exc:
        raise OutputInvalid(str(exc), [("p",)], ranges) from None
    if p == 0.5:
        raise OutputInvalid("p: a judge may not tie; p must not be 0.5", [("p",)], ranges)
    implied: Side = "affirmative" if p > 0.5 else "negative"
    winner = as_side(obj["winner"], "winner") if obj.get("winner") not in (None, "") else implied
    if winner != implied:
        raise OutputInvalid(f"winner: {winner} contradicts p={p}", [("winner",), ("p",)], {("p",): _p_ranges("")})
    return p, winner


def _point(raw: Any, field: str, stages: Mapping[str, str], clashes: Mapping[str, str]) -> FeedbackPoint:
    """One feedback point: a text that is not empty, a stage id of the match and a clash id of the
    ledger, or none (``""``, null). Ids are matched without case. Raises OutputInvalid naming ``field``."""
    if not isinstance(raw, Mapping):
        raise OutputInvalid(f"{field}: expected an object with text, stage_id and clash_id")
    text = one_line(raw.get("text"), 600)
    if not text:
        raise OutputInvalid(f"{field}.text: empty; write it in your own words")
    stage = stages.get(one_line(raw.get("stage_id"), 40).lower())
    if stage is None:
        raise OutputInvalid(f"{field}.stage_id: {raw.get('stage_id')!r} is not a stage of this match; use one of {', '.join(stages.values())}")
    cid = one_line(raw.get("clash_id"), 40)
    clash = "" if cid.lower() in ("", "none", "null") else clashes.get(cid.lower())
    if clash is None:
        raise OutputInvalid(f"{field}.clash_id: {cid!r} is not a clash of the ledger; use one of {', '.join(clashes.values()) or 'none'}, or \"\"")
    return FeedbackPoint(text=text, stage_id=stage, clash_id=clash)


def _debater_points(raw: Any, label: str, stages: Mapping[str, str], clashes: Mapping[str, str]) -> tuple[DebaterFeedback | None, list[Dropped]]:
    """One debater's feedback with the points that are valid (:func:`_point`), and each invalid point
    as a :class:`Dropped` (``feedback.<label>.<kind>``); None when no point is valid."""
    if not isinstance(raw, Mapping):
        return None, [Dropped(field=f"feedback.{label}", reason=f"feedback.{label}: expected an object with worked, missed and work_on")]
    points: dict[str, FeedbackPoint | None] = {}
    dropped: list[Dropped] = []
    for kind in FEEDBACK_KINDS:
        try:
            points[kind] = _point(raw.get(kind), f"feedback.{label}.{kind}", stages, clashes)
        except OutputInvalid as exc:
            points[kind] = None
            dropped.append(Dropped(field=f"feedback.{label}.{kind}", reason=str(exc)))
    entry = DebaterFeedback(debater=label, **points) if any(points.values()) else None
    return entry, dropped


def feedback_parts(raw: Any, request: JudgeRequest) -> tuple[list[DebaterFeedback], list[Dropped]]:
    """The coach's feedback of a ballot read point by point: every debater's valid points
    (:func:`_point`), and each point, entry or whole field that is invalid as a :class:`Dropped`
    (``feedback``, ``feedback.<label>``, ``feedback.<label>.<kind>``). The shape: an object keyed by
    position label (a label's Chinese form is understood) or a list of objects carrying ``debater``."""
    labels = request.match.debater_labels()
    if isinstance(raw, list):
        raw = {str(i.get("debater")): i for i in raw if isinstance(i, Mapping)}
    if not isinstance(raw, Mapping):
        return [], [Dropped(field="feedback", reason="feedback: expected an object with one entry per debater")]
    given = {canonical_label(k, labels): v for k, v in raw.items()}
    stages = {s.stage_id.lower(): s.stage_id for s in request.match.stages}
    clashes = {c.lower(): c for c in request.clashes}
    out: list[DebaterFeedback] = []
    dropped: list[Dropped] = []
    for label in labels:
        if label not in given:
            dropped.append(Dropped(field=f"feedback.{label}", reason=f"feedback: no entry for {label}"))
            continue
        entry, bad = _debater_points(given[label], label, stages, clashes)
        dropped += bad
        if entry is not None:
            out.append(entry)
    return out, dropped


def read_feedback(raw: Any, request: JudgeRequest) -> list[DebaterFeedback]:
    """The coach's feedback of a ballot (:mod:`adjudicator.verdict.feedback`; :func:`feedback_parts`):
    every debater of the match needs an entry with its three points (:func:`_point`). Every entry is
    checked; the OutputInvalid raised names each failed debater (``("feedback", "<label>")``), so a
    repair turn asks for those only. Raises OutputInvalid."""
    out, dropped = feedback_parts(raw, request)
    if dropped:
        raise _feedback_invalid(dropped)
    return out


def _feedback_invalid(dropped: list[Dropped]) -> OutputInvalid:
    """The OutputInvalid of feedback with these invalid parts: every message, and each debater's entry
    as the field (the whole feedback when it was not an object)."""
    fields = list(dict.fromkeys(tuple(d.field.split(".")[:2]) for d in dropped))
    return OutputInvalid("; ".join(d.reason for d in dropped), fields)


def _is_tie(obj: Mapping[str, Any]) -> bool:
    """True when the answer's p reads as exactly 0.5 (a tie, which no deciding judge may give)."""
    try:
        return as_probability(obj.get("p"), "p") == 0.5
    except OutputInvalid:
        return False


def _stated_winner(obj: Mapping[str, Any]) -> Side | None:
    """The side the answer's ``winner`` names, None when it names none (absent, or no side)."""
    try:
        return as_side(obj.get("winner"), "winner") if obj.get("winner") not in (None, "") else None
    except OutputInvalid:
        return None


def read_ballot(obj: Mapping[str, Any], request: JudgeRequest, model: str) -> Ballot:
    """Validate a decoded judge answer into a :class:`Ballot`.

    Requires an integer score 1-10 for every unit of :func:`judge_units` (an object
    ``"<stage_id>|<side>" -> score`` or a list of ``{"stage_id", "side", "score"}``; units not asked
    for are ignored, a unit given twice with different scores is invalid); p in [0, 1] and not 0.5
    (judges may not tie, paper 2.3); a winner agreeing with p (derived from p when absent); and
    best-debater votes over known position labels summing to exactly 3 (a list of labels, one per
    vote, or a label -> count mapping); a reasoning that is not empty; and, from the chair on a match
    with debaters (:func:`~adjudicator.verdict.feedback.writes_feedback`), the coach's feedback to every
    debater (:func:`read_feedback`; a wing's feedback, if it writes one, is not read). Every part is checked; the :class:`OutputInvalid` raised
    names every failed field (``stage_scores.<unit>``, ``p``, ``winner``, ``best_debater_votes``), so a
    repair turn can ask for those only.

    The decision fields (stage scores, p and winner, votes, reasoning) stand on their own (issue 38):
    when they are valid and only feedback points are not, the error carries a ``fallback`` ballot with
    the valid points and the invalid ones as ``dropped``; when their only fault is p = 0.5, the
    fallback keeps the stated winner as a winner vote with its p left out (``p_counted`` False), or,
    with no winner stated, is a ballot that does not decide (``deciding`` False). The attempts runner takes
    a fallback only after a repair turn asked for those fields again.
    """
    units = judge_units(request)
    checks = FieldChecks()
    scores = checks.run(("stage_scores",), _unit_scores, obj.get("stage_scores"), units)
    pw = checks.run(("p",), _ballot_p, obj)
    votes = checks.run(("best_debater_votes",), as_votes, obj.get("best_debater_votes"), request.match.debater_labels(), BALLOT_VOTES)
    reasoning = checks.run(("reasoning",), required_text, obj.get("reasoning"), 2000, "reasoning")
    feedback, dropped = feedback_parts(obj.get("feedback"), request) if writes_feedback(request) else ([], [])
    tie = pw is None and _is_tie(obj) and all(e.fields == (("p",),) for e in checks.errors if ("p",) in e.fields)
    decided = scores is not None and votes is not None and reasoning is not None and (pw is not None or tie)
    if dropped:
        checks.errors.append(_feedback_invalid(dropped))
    if checks.errors:
        fallback = None
        if decided:
            p, winner = pw if pw is not None else (0.5, _stated_winner(obj))
            fallback = _ballot(request, model, obj, units, scores or {}, p, winner, votes or {}, reasoning or "", feedback, deciding=winner is not None, p_counted=pw is not None)
        try:
            checks.raise_if_failed()
        except OutputInvalid as exc:
            raise OutputInvalid(str(exc), exc.fields, exc.ranges, fallback=fallback, dropped=dropped if fallback is not None else ()) from None
    assert scores is not None and pw is not None and votes is not None
    return _ballot(request, model, obj, units, scores, pw[0], pw[1], votes, reasoning or "", feedback)


def _ballot(
    request: JudgeRequest, model: str, obj: Mapping[str, Any], units: list[tuple[str, Side]], scores: Mapping[tuple[str, Side], int],
    p: float, winner: Side | None, votes: dict[str, int], reasoning: str, feedback: list[DebaterFeedback], deciding: bool = True, p_counted: bool = True,
) -> Ballot:  # fmt: skip
    """The :class:`Ballot` of a judge's validated parts."""
    return Ballot(
        judge_id=request.judge_id,
        perspective=request.perspective,
        model=model,
        winner=winner,
        p=p,
        stage_scores=[BallotScore(stage_id=sid, side=side, score=scores[(sid, side)]) for sid, side in units],
        best_debater_votes=votes,
        reasoning=reasoning,
        dimensions=read_ballot_dimensions(obj, request),
        feedback=feedback,
        deciding=deciding,
        p_counted=p_counted,
    )


def recover_ballot(text: str, labels: list[str], unit_keys: list[str] | None = None) -> dict[str, Any] | None:
    """Stage-3 recovery for a judge: unit scores from ``"<stage_id>|<side>": <score>`` pairs for the
    known ``unit_keys`` (the response schema's shape) and from every small ``{...}`` holding a
    stage_id, a side and a score; p, winner and the votes (a list of labels, else ``label: count``
    pairs) from field-level patterns."""
    scores: list[dict[str, Any]] = []
    for key in unit_keys or []:
        value = find_number(text, [key])
        if value is not None:
            unit_stage, _, unit_side = key.partition("|")
            scores.append({"stage_id": unit_stage, "side": unit_side, "score": value})
    for span in small_objects(text):
        sid = find_string(span, ["stage_id"])
        side = find_word(span, ["side"], ["affirmative", "negative"])
        score = find_number(span, ["score"])
        if sid and side and score is not None:
            scores.append({"stage_id": sid, "side": side, "score": score})
    p = find_number(text, ["p"])
    if not scores or p is None:
        return None
    return {
        "stage_scores": scores,
        "p": p,
        "winner": find_word(text, ["winner"], ["affirmative", "negative"]),
        "best_debater_votes": find_labels(text, ["best_debater_votes"], labels) or find_votes(text, labels),
        "reasoning": find_string(text, ["reasoning"]) or "",
    }
