"""``adjudicate transcribe AUDIO --stage-id ID [--match M.json]``: a stage's recording -> the stage as
match-format JSON, and what ``adjudicate live push ROOM --audio AUDIO`` shares with it.

Everything runs on this machine (:mod:`adjudicator.input.speech`): the live server never needs the
model. The stage goes to stdout (``--out FILE`` writes it instead); one line on stderr says what was
heard. A missing extra or model, a bad turns file, a bad or empty recording, or a stage the match
would refuse is a one-line error with exit code 2, before anything is written or pushed; the model
is loaded before the recording is decoded, the recording decoded before anything is recognised.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from adjudicator.cli.options import echo_err

#: :data:`adjudicator.environment.ASR_MODEL_ENV`, spelled out so that building the command tree does not
#: import the settings (tests/test_speech_stage.py checks they agree).
ASR_MODEL_ENV = "ADJUDICATOR_ASR_MODEL"

#: Stage types a user may name with --type (the match format's; a format accepts its own subset).
STAGE_TYPES = ("constructive", "supplementary", "questioning", "cross_examination", "summary", "head_to_head", "free_debate", "closing")


def speech_options(f):
    """The recognition and attribution options of ``transcribe`` and ``live push --audio``."""
    opts = [
        click.option("--asr-model", envvar=ASR_MODEL_ENV, help="faster-whisper model folder (default $ADJUDICATOR_ASR_MODEL); a model name only with --allow-download"),
        click.option("--allow-download", is_flag=True, help="let faster-whisper download a model NAME (e.g. base) to this machine's cache; off by default"),
        click.option("--language", help="the speech's language as an ISO code (en, zh); default: the match's language, else detected"),
        click.option("--beam-size", type=click.IntRange(1, 20), default=5, show_default=True, help="beam search width (1 is faster, a little less accurate)"),
        click.option("--turns", "turns_file", type=click.Path(path_type=Path), help="interactive stages: the chair's turn marks (JSON; the turn marker page saves one)"),
        click.option("--type", "stage_type", type=click.Choice(STAGE_TYPES), help="the stage's type when not the format's next one (online-1v1: closing for the last speech)"),
        click.option("--name", "stage_name", help="the stage's name (default: the format's)"),
        click.option("--side", type=click.Choice(["affirmative", "negative"]), help="the speaking side of a speech (default: the format's)"),
        click.option("--speaker", help="the speech's speaker as a position label (default: the format's)"),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def stage_from_audio(audio_path: Path, stage_id: str, slot: dict[str, Any] | None, language: str | None, side_of: dict[str, str], opts: dict[str, Any]) -> dict[str, Any]:
    """The stage JSON of the recording ``audio_path`` (:mod:`adjudicator.input.speech.stage`):
    ``slot`` the format's stage fields (None: from the options alone), ``language`` the match's (the
    ``--language`` option wins), ``side_of`` each position label's side, ``opts`` the
    :func:`speech_options` values. Raises InputError."""
    from adjudicator.input.formats import INTERACTION
    from adjudicator.input.speech.audio import read_audio
    from adjudicator.input.speech.recognizer import RecognizerSettings, load_model, recognise
    from adjudicator.input.speech.stage import build_stage, stage_template
    from adjudicator.input.speech.turns import read_turns

    tpl = stage_template(stage_id, slot, {"type": opts.get("stage_type"), "name": opts.get("stage_name"), "side": opts.get("side"), "speaker": opts.get("speaker")})
    turns = read_turns(opts["turns_file"]) if opts.get("turns_file") else None
    settings = RecognizerSettings(
        model=opts.get("asr_model") or "",
        allow_download=bool(opts.get("allow_download")),
        language=opts.get("language") or language,
        beam_size=opts.get("beam_size") or 5,
        word_timestamps=turns is not None,
    )
    load_model(settings)
    audio = read_audio(audio_path)
    rec = recognise(audio, settings)
    if not side_of:  # no match: the paper's position labels (a format with its own names needs --match)
        from adjudicator.input.formats import SIDES, position_label

        side_of = {position_label(side, k): side for side in SIDES for k in range(1, 5)}
        if tpl.get("speakers") and INTERACTION.get(tpl["type"]) == "monologue":
            side_of.setdefault(tpl["speakers"][0], tpl["sides"][0])
    stage = build_stage(tpl, rec, audio, turns, side_of)
    echo_err(heard_line(stage))
    return stage


def heard_line(stage: dict[str, Any]) -> str:
    """One stderr line: the stage, how much was heard, its language, attribution and lowest confidence."""
    t = stage["transcript"]
    us = stage["utterances"]
    words = sum(len(u["text"].split()) for u in us)
    return (f"{stage['stage_id']}: {len(us)} utterance(s), {words} words in {t['duration_s']:.0f} s of audio; language {t['language']}; "
            f"attribution {t['attribution']}; lowest confidence {min(u['confidence'] for u in us):.2f}")


@click.command("transcribe")
@click.argument("audio", type=click.Path(path_type=Path))
@click.option("--stage-id", required=True, help="the stage's id (e.g. s03); with --match, its slot in the format's order")
@click.option("--match", "match_file", type=click.Path(path_type=Path), help="the match (its header and the stages so far, or all of it): format, language, speaking order")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write the stage JSON here instead of stdout")
@speech_options
def transcribe_cmd(audio: Path, stage_id: str, match_file: Path | None, out: Path | None, **opts) -> None:
    """Transcribe AUDIO (WAV, MP3, M4A, OGG) into one stage in the match format, on this machine.

    \b
    adjudicate transcribe s03.m4a --stage-id s03 --match match.json > s03.json
    adjudicate transcribe s12.wav --stage-id s12 --match match.json --turns turns-s12.json

    Needs the audio extra (pip install 'adjudicator[audio]') and a model folder (--asr-model or
    ADJUDICATOR_ASR_MODEL; docs/speech.md says how to get one)."""
    from adjudicator.errors import InputError

    if out is not None and not out.parent.is_dir():
        raise InputError(f"--out: {out.parent} is not a folder", "give a file in an existing folder")
    match = load_partial_match(match_file) if match_file else None
    side_of: dict[str, str] = {}
    slot = None
    if match is not None:
        from adjudicator.input.speech.stage import slot_of

        slot = slot_of(stage_id, match)
        side_of = {label: str(found[0]) for label, found in match.spec().speaker_sides().items()}
    stage = stage_from_audio(audio, stage_id, slot, match.language if match is not None else None, side_of, opts)
    check_stage(match, stage)
    text = json.dumps(stage, ensure_ascii=False, indent=2) + "\n"
    if out is None:
        click.echo(text, nl=False)
        return
    from adjudicator.files import atomic_write_text

    atomic_write_text(out, text)
    echo_err(f"wrote {out}")


def load_partial_match(path: Path) -> Any:
    """The match file as a (possibly partial) Match: a header with the stages so far is enough.
    Raises InputError naming the field."""
    from pydantic import ValidationError

    from adjudicator.cli.options import read_json_file
    from adjudicator.errors import InputError
    from adjudicator.input.field_errors import describe_validation_error
    from adjudicator.input.match import Match

    data = read_json_file(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: the top level must be a JSON object describing one match", "see `adjudicate schema`")
    data.setdefault("stages", [])
    try:
        return Match.model_validate(data, context={"partial": True})
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, str(path))) from None


def check_stage(match: Any | None, stage: dict[str, Any]) -> None:
    """Validate ``stage``: alone, or as a stage of ``match`` (replacing the stage with its id, else
    after the last), as a push would be. Raises InputError naming the field."""
    from pydantic import ValidationError

    from adjudicator.errors import InputError
    from adjudicator.input.field_errors import describe_validation_error
    from adjudicator.input.match import Match, Stage

    try:
        if match is None:
            Stage.model_validate(stage)
            return
        data = match.model_dump(mode="json")
        ids = [s["stage_id"] for s in data["stages"]]
        if stage["stage_id"] in ids:
            data["stages"][ids.index(stage["stage_id"])] = stage
        else:
            data["stages"].append(stage)
        Match.model_validate(data, context={"partial": True})
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, "stage")) from None


def live_stage_from_audio(client: Any, match_id: str, audio: Path, stage_id: str | None, opts: dict[str, Any]) -> dict[str, Any]:
    """The stage to push to live match ``match_id`` from the recording ``audio``: its slot is the
    server's next stage (the board's push form), its speakers' sides the match's format's, its
    language the match's. The server is asked first (an unknown match or a closed one fails before
    the recording is read). Raises InputError; nothing is pushed here."""
    from adjudicator.errors import InputError
    from adjudicator.input.formats import get_format

    snap = client.snapshot(match_id)
    if snap.get("status") != "open":
        raise InputError(f"match {match_id!r} is {snap.get('status')}; it takes no more stages", "create a new match for another debate")
    header = snap["match"]
    slot = (snap.get("next_slot") or {}).get("stage")
    if slot is None and not opts.get("stage_type"):
        raise InputError(f"match {match_id!r} has every stage of {header['format']}", "close it with `adjudicate live close`")
    sid = stage_id or (slot or {}).get("stage_id") or f"s{len(snap.get('stages') or []) + 1:02d}"
    side_of: dict[str, str] = {label: found[0] for label, found in get_format(header["format"]).speaker_sides().items()}
    return stage_from_audio(audio, sid, slot, header.get("language"), side_of, opts)
