"""Speech to stage with the real recogniser: the recorded fixtures (tests/fixtures/speech/, espeak-ng
sentences) come back as their expected text in every container a room's recorder may write, bad
recordings are one-line errors, and a live match is pushed, tracked and closed from audio.

Skipped, with the reason, where the audio extra or a model folder is absent (conftest.py's
``asr_model``: $ADJUDICATOR_TEST_ASR_MODEL, else the folder ../shared/tools/local-asr.sh assembles).
Each recognition of a 6-second clip costs about 1 s of CPU after a 2-3 s model load."""

from __future__ import annotations

import json
import wave
from pathlib import Path

import httpx
import pytest
from live_fakes import start_server, token_file

from adjudicator.cli import main
from adjudicator.judges.offline import OfflineBackend
from adjudicator.workflow.context import AdjudicationContext

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "speech"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
#: The word error rate a fixture may come back with: espeak-ng's clear synthetic voice and Whisper
#: base gave 0.0 on both sentences here (one comma in place of a full stop is not a word error).
MAX_WER = 0.15


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate after lower-casing and dropping punctuation (jiwer, part of the audio extra)."""
    import jiwer

    norm = jiwer.Compose([jiwer.ToLowerCase(), jiwer.RemovePunctuation(), jiwer.RemoveMultipleSpaces(), jiwer.Strip(), jiwer.ReduceToListOfListOfWords()])
    return jiwer.wer(reference, hypothesis, reference_transform=norm, hypothesis_transform=norm)


def encode(samples, path: Path, codec: str) -> Path:
    """``samples`` (16 kHz mono float32) written with PyAV's encoder ``codec`` to ``path``."""
    import av
    import numpy as np

    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=16000)
        stream.layout = "mono"
        frame = av.AudioFrame.from_ndarray((samples * 32767).astype(np.int16)[None, :], format="s16", layout="mono")
        frame.sample_rate = 16000
        for packet in stream.encode(frame):
            out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return path


def write_wav(samples, path: Path) -> Path:
    """``samples`` (16 kHz mono float32) as a 16-bit WAV file (the standard library's writer)."""
    import numpy as np

    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((samples * 32767).astype(np.int16).tobytes())
    return path


def transcribe(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(["transcribe", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def match_file(tmp_path) -> Path:
    """An online-1v1 header about homework (no stages yet)."""
    p = tmp_path / "homework.json"
    p.write_text(json.dumps({
        "match_id": "homework", "format": "online-1v1", "language": "en", "motion": "Homework should be banned in primary schools",
        "affirmative_position": "Ban it", "negative_position": "Keep it",
        "debaters": [{"side": "affirmative", "position": 1}, {"side": "negative", "position": 1}], "stages": []}), encoding="utf-8")
    return p


def test_a_recorded_speech_comes_back_as_its_text_in_every_container(asr_model, match_file, tmp_path, capsys):
    from adjudicator.input.speech.audio import read_audio

    code, out, err = transcribe(["tests/fixtures/speech/homework_aff.ogg", "--stage-id", "s01", "--match", str(match_file), "--asr-model", str(asr_model)], capsys)
    assert code == 0, err
    stage = json.loads(out)
    assert stage["type"] == "constructive" and stage["sides"] == ["affirmative"]
    assert {u["speaker"] for u in stage["utterances"]} == {"Affirmative Speaker 1"}
    text = " ".join(u["text"] for u in stage["utterances"])
    assert wer(EXPECTED["homework_aff.ogg"], text) <= MAX_WER, text
    t = stage["transcript"]
    assert (t["made_by"], t["model"], t["language"], t["attribution"]) == ("speech_to_text", asr_model.name, "en", "speaking_order")
    assert t["duration_s"] == pytest.approx(5.78, abs=0.05)  # soxi: 5.783688 s
    assert all(0 <= u["start_s"] <= u["end_s"] <= t["duration_s"] + 0.05 and 0 < u["confidence"] <= 1 for u in stage["utterances"])
    assert "s01: " in err and "attribution speaking_order" in err
    # the same speech as WAV, MP3 and M4A (re-encoded here from the decoded samples)
    samples = read_audio(FIXTURES / "homework_neg.ogg").samples
    for path in (write_wav(samples, tmp_path / "neg.wav"), encode(samples, tmp_path / "neg.mp3", "libmp3lame"), encode(samples, tmp_path / "neg.m4a", "aac")):
        code, out, err = transcribe([str(path), "--stage-id", "s02", "--type", "constructive", "--side", "negative", "--language", "en", "--asr-model", str(asr_model)], capsys)
        assert code == 0, err
        got = " ".join(u["text"] for u in json.loads(out)["utterances"])
        assert wer(EXPECTED["homework_neg.ogg"], got) <= MAX_WER, (path.suffix, got)


def test_an_interactive_stage_is_split_at_the_chairs_marks(asr_model, tmp_path, capsys):
    """The two fixtures one after the other as a free debate: the negative takes the floor at the
    join (5.78 s); every word before it is the affirmative's, every word after it the negative's."""
    import numpy as np

    from adjudicator.input.speech.audio import read_audio

    a, n = (read_audio(FIXTURES / f).samples for f in ("homework_aff.ogg", "homework_neg.ogg"))
    both = write_wav(np.concatenate([a, n]), tmp_path / "free.wav")
    turns = tmp_path / "turns.json"
    turns.write_text(json.dumps({"turns": [{"at_s": 0.0, "speaker": "Affirmative Speaker 1"}, {"at_s": round(len(a) / 16000, 2), "side": "negative"}]}), encoding="utf-8")
    code, out, err = transcribe([str(both), "--stage-id", "f1", "--type", "free_debate", "--side", "affirmative", "--language", "en", "--turns", str(turns), "--asr-model", str(asr_model)], capsys)
    assert code == 0, err
    stage = json.loads(out)
    by_side = {s: " ".join(u["text"] for u in stage["utterances"] if u["side"] == s) for s in ("affirmative", "negative")}
    assert wer(EXPECTED["homework_aff.ogg"], by_side["affirmative"]) <= MAX_WER, by_side
    assert wer(EXPECTED["homework_neg.ogg"], by_side["negative"]) <= MAX_WER, by_side
    assert stage["transcript"]["attribution"] == "turns"
    code, out, err = transcribe([str(both), "--stage-id", "f1", "--type", "free_debate", "--side", "affirmative", "--language", "en", "--asr-model", str(asr_model)], capsys)
    assert code == 0 and {(u["speaker"], u["side"]) for u in json.loads(out)["utterances"]} == {(None, None)}
    assert "attribution unattributed" in err


def test_bad_recordings_are_refused_in_one_line(asr_model, tmp_path, capsys):
    import numpy as np

    junk = tmp_path / "junk.m4a"
    junk.write_bytes(b"this is not audio at all" * 40)
    silent = write_wav(np.zeros(16000 * 2, dtype=np.float32), tmp_path / "silent.wav")
    for path, msg in [(junk, "not an audio file the decoder can read"), (silent, "the recording is silent"), (tmp_path, "is a folder")]:
        code, out, err = transcribe([str(path), "--stage-id", "s1", "--type", "closing", "--side", "negative", "--asr-model", str(asr_model)], capsys)
        assert code == 2 and out == "" and msg in err and err.count("\n") == 1, err


def test_a_live_match_is_pushed_tracked_and_closed_from_audio(asr_model, match_file, tmp_path, capsys):
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    client = ["--url", server.url, "--token-file", token_file()]
    try:
        assert main(["live", "create", str(match_file), *client]) == 0
        capsys.readouterr()
        silent = write_wav(__import__("numpy").zeros(16000, dtype="float32"), tmp_path / "silent.wav")
        assert main(["live", "push", "homework", "--audio", str(silent), "--asr-model", str(asr_model), *client]) == 2
        assert "the recording is silent" in capsys.readouterr().err
        for clip, extra in (("homework_aff.ogg", []), ("homework_neg.ogg", ["--type", "closing"])):
            assert main(["live", "push", "homework", "--audio", str(FIXTURES / clip), "--asr-model", str(asr_model), *extra, *client]) == 0
            reply = json.loads(capsys.readouterr().out)
            assert reply["status"] == "analysed", reply
        snap = httpx.get(f"{server.url}/api/matches/homework", timeout=30, trust_env=False).json()
        assert [s["stage_id"] for s in snap["stages"]] == ["s01", "s02"] and snap["received"] == 2  # the silent file pushed nothing
        shown = snap["stages"][1]["transcript"]
        assert shown["model"] == asr_model.name and shown["utterances"][0]["start_s"] == 0.0
        assert wer(EXPECTED["homework_neg.ogg"], " ".join(u["text"] for u in shown["utterances"])) <= MAX_WER
        assert main(["live", "close", "homework", *client]) == 0
        verdict = json.loads(capsys.readouterr().out)
        assert [m["stage_id"] for m in verdict["transcripts"]] == ["s01", "s02"]
        assert all(m["model"] == asr_model.name and m["attribution"] == "speaking_order" for m in verdict["transcripts"])
        assert verdict["winner"] in ("affirmative", "negative")
    finally:
        server.stop()
