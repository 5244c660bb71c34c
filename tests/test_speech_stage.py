"""Speech to stage without a model: attribution (speaking order, turn marks, unattributed), the turns
file, the match format's machine-transcript fields, what a verdict says about them (marks and
review reasons, worked by hand), and the one-line refusals that need neither the extra nor a model.

The recogniser's output is written here by hand (:class:`Recognition`), so these tests run
everywhere; tests/test_speech.py runs the real model."""

from __future__ import annotations

import json

import pytest
from graph_fakes import tiny_match

from adjudicator.cli import main
from adjudicator.errors import InputError
from adjudicator.input.match import Match, Stage
from adjudicator.input.speech.audio import Audio
from adjudicator.input.speech.recognizer import Recognition, Segment, Word, resolve_model
from adjudicator.input.speech.stage import build_stage, slot_of, stage_template
from adjudicator.input.speech.turns import Turns, read_turns
from adjudicator.verdict.review import review_of, sentence
from adjudicator.verdict.transcripts import transcript_findings, transcript_mark

SIDE_OF = {"Affirmative Speaker 1": "affirmative", "Negative Speaker 1": "negative", "Affirmative Speaker 2": "affirmative", "Negative Speaker 2": "negative"}
AUDIO = Audio(name="rec.wav", sha256="a" * 64, samples=None, duration_s=30.0)


def words(start: float, *texts: str) -> tuple[Word, ...]:
    """One word a second from ``start``."""
    return tuple(Word(start + k, start + k + 0.8, " " + t, 0.9) for k, t in enumerate(texts))


def recognition(*segments: Segment) -> Recognition:
    return Recognition(segments=segments, language="en", language_probability=None, engine="faster-whisper 1.2.1", model="whisper-base",
                       model_sha256="b" * 64, settings={"language": "en", "beam_size": 5})


SEG1 = Segment(0.0, 4.8, "Is it true that uniforms cost money?", 0.8, 0.01, words(0.0, "Is", "it", "true", "that", "uniforms"))
SEG2 = Segment(6.0, 9.8, "No they save money.", 0.3, 0.02, words(6.0, "No", "they", "save", "money."))


def test_a_speech_is_its_declared_speakers():
    tpl = stage_template("s3", slot_of("s3", tiny_match(2)), {})
    stage = build_stage(tpl, recognition(SEG1, SEG2), AUDIO, None, SIDE_OF)
    assert tpl["sides"] == ["affirmative"] and tpl["type"] == "supplementary"  # online-1v1: the third speech
    assert [(u["speaker"], u["side"], u["start_s"], u["end_s"], u["confidence"]) for u in stage["utterances"]] == [
        ("Affirmative Speaker 1", "affirmative", 0.0, 4.8, 0.8), ("Affirmative Speaker 1", "affirmative", 6.0, 9.8, 0.3)]
    assert stage["transcript"]["attribution"] == "speaking_order"
    Stage.model_validate(stage)


def test_an_interactive_stage_without_marks_is_unattributed_and_with_marks_split_word_by_word():
    tpl = stage_template("x1", None, {"type": "free_debate", "side": "affirmative"})
    bare = build_stage(tpl, recognition(SEG1, SEG2), AUDIO, None, SIDE_OF)
    assert [(u["speaker"], u["side"]) for u in bare["utterances"]] == [(None, None), (None, None)]
    assert bare["transcript"]["attribution"] == "unattributed"
    # the floor passes to the negative at 2.5 s: "Is it true" (words at 0, 1, 2 s; midpoints 0.4-2.4)
    # stay the affirmative's, "that uniforms" (3 and 4 s) and all of SEG2 are the negative's
    turns = Turns.model_validate({"turns": [{"at_s": 0.0, "speaker": "Affirmative Speaker 2"}, {"at_s": 2.5, "side": "negative"}]})
    marked = build_stage(tpl, recognition(SEG1, SEG2), AUDIO, turns, SIDE_OF)
    assert [(u["speaker"], u["side"], u["text"], u["start_s"], u["end_s"], u["confidence"]) for u in marked["utterances"]] == [
        ("Affirmative Speaker 2", "affirmative", "Is it true", 0.0, 2.8, 0.8),
        (None, "negative", "that uniforms", 3.0, 4.8, 0.8),  # a free debate declares no speaker, so only the side is known
        (None, "negative", "No they save money.", 6.0, 9.8, 0.3),
    ]
    assert marked["transcript"]["attribution"] == "turns" and marked["speakers"] == ["Affirmative Speaker 2"]
    Stage.model_validate(marked)


def test_a_side_mark_names_the_stages_one_declared_speaker_of_that_side():
    tpl = {"stage_id": "q1", "name": "Negative questioning", "type": "questioning", "sides": ["negative", "affirmative"],
           "roles": {"negative": "questioner", "affirmative": "respondent"}, "speakers": ["Negative Speaker 2", "Affirmative Speaker 1"]}
    turns = Turns.model_validate({"turns": [{"at_s": 0.0, "side": "negative"}, {"at_s": 5.5, "side": "affirmative"}]})
    stage = build_stage(tpl, recognition(SEG1, SEG2), AUDIO, turns, SIDE_OF)
    assert [u["speaker"] for u in stage["utterances"]] == ["Negative Speaker 2", "Affirmative Speaker 1"]


def test_a_turn_naming_a_stranger_or_a_wrong_side_is_refused():
    tpl = stage_template("x1", None, {"type": "free_debate", "side": "affirmative"})
    for turn, msg in [({"at_s": 0.0, "speaker": "Affirmative Speaker 7"}, "turns.0.speaker: 'Affirmative Speaker 7' is not a debater"),
                      ({"at_s": 0.0, "speaker": "Negative Speaker 1", "side": "affirmative"}, "turns.0.side: Negative Speaker 1 speaks for the negative")]:
        with pytest.raises(InputError, match=msg):
            build_stage(tpl, recognition(SEG1), AUDIO, Turns.model_validate({"turns": [turn]}), SIDE_OF)


def test_nothing_recognised_is_refused():
    tpl = stage_template("s2", slot_of("s2", tiny_match(1)), {})
    with pytest.raises(InputError, match="no speech was recognised"):
        build_stage(tpl, recognition(Segment(0.0, 1.0, "", 0.5, 0.9)), AUDIO, None, SIDE_OF)


def test_turns_files_are_checked_field_by_field(tmp_path):
    cases = {
        '{"turns": [{"at_s": 3.0, "side": "negative"}, {"at_s": 1.0, "side": "affirmative"}]}': "turns.1.at_s: 1 s comes before the previous mark (3 s)",
        '{"turns": [{"at_s": 1.0}]}': "give the speaker (a position label) or the side",
        '{"turns": [{"at_s": -1, "side": "negative"}]}': "turns.0.at_s",
        '{"turns": []}': "turns is empty",
        '{"turns": [{"at_s": 0, "side": "neutral"}]}': "turns.0.side",
    }
    for k, (text, msg) in enumerate(cases.items()):
        f = tmp_path / f"t{k}.json"
        f.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            read_turns(f)
    f = tmp_path / "bare.json"
    f.write_text('[{"at_s": 0, "side": "negative"}, {"at_s": 2.5, "speaker": "Affirmative Speaker 1"}]', encoding="utf-8")
    turns = read_turns(f)
    assert [turns.index_at(t) for t in (0.0, 2.4, 2.5, 99.0)] == [0, 0, 1, 1]
    with pytest.raises(InputError, match="no such file"):
        read_turns(tmp_path / "missing.json")


def machine_stage(**changes) -> dict:
    stage = {"stage_id": "s1", "name": "Free debate", "type": "free_debate", "sides": ["affirmative", "negative"],
             "utterances": [{"speaker": None, "side": None, "text": "We say yes.", "start_s": 0.0, "end_s": 2.0, "confidence": 0.9}],
             "transcript": {"engine": "faster-whisper 1.2.1", "model": "whisper-base", "language": "en", "audio": "a.wav",
                            "audio_sha256": "c" * 64, "duration_s": 2.5, "attribution": "unattributed"}}
    stage.update(changes)
    return stage


def test_the_match_format_takes_machine_transcripts_and_keeps_typed_files_unchanged(bundled_matches_dir):
    Stage.model_validate(machine_stage())
    typed = machine_stage()
    del typed["transcript"]
    with pytest.raises(ValueError, match="utterances.0.speaker: is null, which only a machine transcript of an interactive stage may leave"):
        Stage.model_validate(typed)
    speech = machine_stage(type="closing", sides=["affirmative"], name="Closing")
    with pytest.raises(ValueError, match="a closing stage \\(a speech has its declared speaker\\)"):
        Stage.model_validate(speech)
    with pytest.raises(ValueError, match="end_s: 1 s is before start_s 2 s"):
        Stage.model_validate(machine_stage(utterances=[{"speaker": None, "side": None, "text": "x", "start_s": 2.0, "end_s": 1.0}]))
    with pytest.raises(ValueError, match="confidence"):
        Stage.model_validate(machine_stage(utterances=[{"speaker": None, "side": None, "text": "x", "confidence": 1.5}]))
    with pytest.raises(ValueError, match="side: Affirmative Speaker 1 is named"):
        Stage.model_validate(machine_stage(utterances=[{"speaker": "Affirmative Speaker 1", "side": None, "text": "x"}]))
    # a typed match file dumps exactly as it was read (no new keys), and still needs speaker and side
    for path in sorted(bundled_matches_dir.glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        dumped = Match.model_validate(data).model_dump(mode="json")
        assert all("transcript" not in s and all("start_s" not in u for u in s["utterances"]) for s in dumped["stages"])
    missing = machine_stage()
    del missing["utterances"][0]["speaker"]
    with pytest.raises(ValueError, match="speaker"):
        Stage.model_validate(missing)


def test_a_verdicts_marks_and_review_reasons_are_worked_from_the_utterances():
    stage = Stage.model_validate(machine_stage(
        utterances=[
            {"speaker": None, "side": None, "text": "one two three four five six seven eight nine", "start_s": 1.0, "end_s": 4.0, "confidence": 0.9},
            {"speaker": None, "side": "negative", "text": "ten", "start_s": 16.0, "end_s": 17.0, "confidence": 0.2},
        ],
        transcript={**machine_stage()["transcript"], "duration_s": 20.0, "attribution": "turns"},
    ))
    mark = transcript_mark(stage)
    assert mark is not None
    # 10 words: 9 at 0.9, 1 at 0.2 -> mean (9 x 0.9 + 0.2) / 10 = 0.83; 1/10 of the words under 0.37
    assert mark.words == 10 and mark.mean_confidence == pytest.approx(0.83, abs=1e-9) and mark.min_confidence == 0.2
    assert mark.low_confidence_share == pytest.approx(0.1, abs=1e-9)
    # silences: 1.0 before the first, 16.0 - 4.0 = 12.0 between, 20.0 - 17.0 = 3.0 after -> 12.0
    assert mark.longest_silence_s == pytest.approx(12.0, abs=1e-9)
    assert mark.unattributed == 2
    found = transcript_findings([stage])
    assert [r for r, _ in found] == ["low_transcript_confidence", "long_silence", "unattributed_speech"]
    assert found[1][1] == {"stages": ["s1"], "seconds": 10.0, "longest": 12.0} and found[2][1] == {"stages": ["s1"], "n": 2}
    assert sentence(*found[1]) == "the recording of stage(s) s1 has 10 s or more without recognised speech (the longest 12 s): a dropped microphone or a cut-off speech?"
    assert sentence(*found[0]).startswith("the speech recogniser was unsure (confidence under 0.37) of 10% or more of the words of stage(s) s1")
    assert sentence(*found[2], language="zh").startswith("环节 s1 中有 2 段发言未标明发言人")
    match = tiny_match(1).model_dump(mode="json")
    match["stages"].append({**stage.model_dump(mode="json"), "stage_id": "s2", "type": "closing", "sides": ["negative"], "name": "Closing",
                            "utterances": [dict(u, speaker="Negative Speaker 1", side="negative") for u in stage.model_dump(mode="json")["utterances"]]})
    review = review_of(0.9, "3:0", [], match=Match.model_validate(match))
    assert review.escalate and review.reasons[-2:] == ["low_transcript_confidence", "long_silence"]  # the closing speech is its speaker's: no unattributed line
    assert review.facts[-1] == {"stages": ["s2"], "seconds": 10.0, "longest": 12.0}
    typed = tiny_match(2).stages[0]
    assert transcript_mark(typed) is None


def test_a_model_name_is_never_fetched_unless_allowed(tmp_path):
    with pytest.raises(InputError, match="a model name is downloaded only when you allow it"):
        resolve_model("base", allow_download=False)
    assert resolve_model("base", allow_download=True) == "base"
    with pytest.raises(InputError, match="no speech-to-text model is set"):
        resolve_model("", allow_download=False)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="is not a faster-whisper model folder \\(no model.bin, config.json\\)"):
        resolve_model(str(tmp_path / "empty"), allow_download=False)
    with pytest.raises(InputError, match="no such folder"):
        resolve_model(str(tmp_path / "nope" / "model"), allow_download=True)


def test_bad_recordings_and_usage_are_one_line_errors_with_exit_2(tmp_path, capsys):
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    match = tmp_path / "m.json"
    match.write_text(tiny_match(1).model_dump_json(), encoding="utf-8")
    model = tmp_path / "model"
    model.mkdir()
    for name in ("model.bin", "config.json"):
        (model / name).write_text("x", encoding="utf-8")
    try:
        import faster_whisper  # noqa: F401
        no_download = "a model name is downloaded only when you allow it"
    except ImportError:  # an install without the audio extra (not from the lock): the missing extra is said first
        no_download = "speech-to-text needs the speech-to-text extra (faster-whisper), which is not installed"
    cases = [
        (["transcribe", str(tmp_path / "missing.wav"), "--stage-id", "s2", "--match", str(match), "--asr-model", "base"], no_download),
        (["transcribe", str(empty), "--stage-id", "s2"], "without --match the stage's --type and --side are needed"),
        (["transcribe", str(empty), "--stage-id", "s2", "--match", str(tmp_path / "nomatch.json")], "nomatch.json: no such file"),
        (["transcribe", str(empty), "--stage-id", "s2", "--match", str(match), "--out", str(tmp_path / "no" / "dir" / "s2.json")], "--out: "),
    ]
    for args, msg in cases:
        assert main(args) == 2
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_the_model_variable_is_spelled_alike_in_the_settings_and_the_commands():
    from adjudicator import environment
    from adjudicator.cli import transcribe

    assert transcribe.ASR_MODEL_ENV == environment.ASR_MODEL_ENV == "ADJUDICATOR_ASR_MODEL"
