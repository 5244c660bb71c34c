"""A recognised recording -> one stage in the match format, attributed and marked as machine-made.

Which stage: :func:`stage_template` takes the stage's name, type, sides, roles and declared speakers
from the match (the stage with that id, else the next one in the format's speaking order, as the live
board's push form suggests it), then applies the user's overrides.

Who said what (:func:`utterances_of`), never guessed:

- a monologue (constructive, supplementary, summary, closing speeches) is its declared speaker's:
  every utterance gets that label (``attribution: "speaking_order"``);
- an interactive stage (questioning, cross-examination, head-to-head, free debate) with the chair's
  turn marks (:mod:`.turns`) is split at the marks, word by word (``"turns"``);
- an interactive stage without marks keeps its utterances unattributed: ``speaker`` and ``side`` are
  null (``"unattributed"``); the tracker is told so and the verdict's review names the stage.

Each utterance is one recognised segment (or, split at turn marks, the part of one segment within
one turn) with ``start_s``/``end_s`` (seconds from the start of the recording) and the segment's
``confidence`` (:mod:`.recognizer`). The stage's ``transcript`` records that a machine made it:
engine, model (name and weights hash), settings, language, the recording's name, hash and length,
and the attribution.
"""

from __future__ import annotations

from typing import Any

from adjudicator.errors import InputError
from adjudicator.input.formats import INTERACTION, position_label
from adjudicator.input.speech.audio import Audio
from adjudicator.input.speech.recognizer import Recognition, Segment
from adjudicator.input.speech.turns import Turns

#: Stage fields a template carries (everything but its text).
TEMPLATE_FIELDS = ("stage_id", "name", "type", "sides", "roles", "speakers", "surprise")


def slot_of(stage_id: str, match: Any) -> dict[str, Any]:
    """The stage fields of ``stage_id`` in ``match`` (a :class:`~adjudicator.input.match.Match`,
    possibly partial): that stage's when the match has it, else the format's next stage. Raises
    InputError when a fixed-order match already has every stage."""
    known = [s for s in match.stages if s.stage_id == stage_id]
    if known:
        return known[0].model_dump(mode="json", include=set(TEMPLATE_FIELDS), exclude_none=True)
    from adjudicator.live.rooms.board import next_slot

    slot = next_slot(match.view(), list(match.stages))
    if slot is None:
        raise InputError(f"--match: {match.match_id} already has every stage of {match.format}", "give the id of one of its stages to transcribe it again")
    return dict(slot["stage"])


def stage_template(stage_id: str, slot: dict[str, Any] | None, overrides: dict[str, Any]) -> dict[str, Any]:
    """The stage's fields before its text: ``slot`` (the format's stage, :func:`slot_of` or the live
    server's next stage) with ``stage_id`` and the user's ``overrides`` (keys ``type``, ``name``,
    ``side``, ``speaker``; None = not given); without a slot, ``type`` and ``side`` (or a speaker
    label that names the side) are needed. Raises InputError when the stage cannot be determined."""
    if slot is None and (not overrides.get("type") or not (overrides.get("side") or overrides.get("speaker"))):
        raise InputError("without --match the stage's --type and --side are needed", "pass --match MATCH.json to take them from the format's speaking order")
    tpl = {k: v for k, v in (slot or {}).items() if k in TEMPLATE_FIELDS}
    tpl["stage_id"] = stage_id
    return _override(tpl, overrides)


def _override(tpl: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    """``tpl`` with the given overrides: a new type drops roles that no longer fit, a side or speaker
    makes a monologue that side's."""
    if o.get("type"):
        tpl["type"] = o["type"]
        if INTERACTION.get(o["type"]) != "asymmetric":
            tpl.pop("roles", None)
    side = o.get("side") or (o["speaker"].split(" ")[0].lower() if o.get("speaker") and o["speaker"].split(" ")[0].lower() in ("affirmative", "negative") else None)
    if side and INTERACTION.get(tpl["type"]) == "monologue":
        tpl["sides"] = [side]
        tpl["speakers"] = [o.get("speaker") or position_label(side, 1)]
    elif o.get("speaker"):
        tpl["speakers"] = [o["speaker"]]
    if INTERACTION.get(tpl["type"]) != "monologue":
        tpl.setdefault("sides", ["affirmative", "negative"])
    if o.get("name"):
        tpl["name"] = o["name"]
    tpl.setdefault("name", f"{tpl['sides'][0].capitalize()} {tpl['type'].replace('_', ' ')}" if tpl.get("sides") else tpl["type"])
    return tpl


def utterances_of(tpl: dict[str, Any], rec: Recognition, turns: Turns | None, side_of: dict[str, str]) -> tuple[list[dict[str, Any]], str]:
    """(utterances, attribution) for stage template ``tpl`` (module docstring). ``side_of`` maps each
    position label of the match to its side. Raises InputError when nothing was recognised, or a
    turn names a speaker the match does not have."""
    segs = [s for s in rec.segments if s.text]
    if not segs:
        raise InputError("no speech was recognised in the recording", "check the recording (is it the stage's?), or give --language if the speech is not in the language detected")
    interaction = INTERACTION[tpl["type"]]
    if interaction == "monologue":
        speaker = (tpl.get("speakers") or [position_label(tpl["sides"][0], 1)])[0]
        side = side_of.get(speaker, tpl["sides"][0])
        return [_utterance(s, speaker, side, s.text, s.start_s, s.end_s) for s in segs], "speaking_order"
    if turns is None:
        return [_utterance(s, None, None, s.text, s.start_s, s.end_s) for s in segs], "unattributed"
    who = [_turn_speaker(k, t.speaker, t.side, tpl, side_of) for k, t in enumerate(turns.turns)]
    out: list[dict[str, Any]] = []
    for s in segs:
        for k, words in _split(s, turns):
            text = "".join(w.text for w in words).strip()
            if text:
                out.append(_utterance(s, who[k][0], who[k][1], text, words[0].start_s, words[-1].end_s))
    return out, "turns"


def _split(seg: Segment, turns: Turns) -> list[tuple[int, list[Any]]]:
    """The segment's words grouped by the turn holding the floor at each word's midpoint, in order.
    A segment without word times is one group, in the turn of its midpoint."""
    if not seg.words:
        from adjudicator.input.speech.recognizer import Word

        return [(turns.index_at((seg.start_s + seg.end_s) / 2), [Word(seg.start_s, seg.end_s, seg.text, seg.confidence)])]
    groups: list[tuple[int, list[Any]]] = []
    for w in seg.words:
        k = turns.index_at((w.start_s + w.end_s) / 2)
        if groups and groups[-1][0] == k:
            groups[-1][1].append(w)
        else:
            groups.append((k, [w]))
    return groups


def _turn_speaker(k: int, speaker: str | None, side: str | None, tpl: dict[str, Any], side_of: dict[str, str]) -> tuple[str | None, str | None]:
    """(speaker label or None, side) of turn ``k``. Raises InputError for a label the match lacks or
    a side that contradicts the label."""
    if speaker is not None:
        if speaker not in side_of:
            raise InputError(f"turns.{k}.speaker: {speaker!r} is not a debater of this match", f"use one of {', '.join(side_of)}, or give only the side")
        if side is not None and side_of[speaker] != side:
            raise InputError(f"turns.{k}.side: {speaker} speaks for the {side_of[speaker]}, not the {side}")
        return speaker, side_of[speaker]
    declared = [sp for sp in tpl.get("speakers") or [] if side_of.get(sp) == side]
    return (declared[0] if len(declared) == 1 else None), side


def _utterance(seg: Segment, speaker: str | None, side: str | None, text: str, start_s: float, end_s: float) -> dict[str, Any]:
    return {"speaker": speaker, "side": side, "text": text, "start_s": start_s, "end_s": end_s, "confidence": seg.confidence}


def transcript_record(rec: Recognition, audio: Audio, attribution: str) -> dict[str, Any]:
    """The stage's ``transcript`` field (:class:`~adjudicator.input.stages.Transcript`)."""
    return {
        "made_by": "speech_to_text",
        "engine": rec.engine,
        "model": rec.model,
        "model_sha256": rec.model_sha256,
        "settings": rec.settings,
        "language": rec.language,
        "language_probability": rec.language_probability,
        "audio": audio.name,
        "audio_sha256": audio.sha256,
        "duration_s": audio.duration_s,
        "attribution": attribution,
    }


def build_stage(tpl: dict[str, Any], rec: Recognition, audio: Audio, turns: Turns | None, side_of: dict[str, str]) -> dict[str, Any]:
    """The stage JSON: ``tpl`` with the recognised utterances, the speakers heard (declared ones
    kept) and its ``transcript`` record."""
    utterances, attribution = utterances_of(tpl, rec, turns, side_of)
    heard = [u["speaker"] for u in utterances if u["speaker"]]
    speakers = list(dict.fromkeys([*(tpl.get("speakers") or []), *heard]))
    return {**tpl, "speakers": speakers, "utterances": utterances, "transcript": transcript_record(rec, audio, attribution)}
