"""Speech-to-text round trip: three bundled DebateArt speeches spoken by espeak-ng, transcribed back.

    .venv/bin/python benchmarks/asr_wer.py --asr-model FOLDER [--beam-size 5] [--quick] [--json FILE]

Needs the audio extra (``pip install -e '.[audio]'``: faster-whisper, and jiwer for the word error
rate), Debian's ``espeak-ng``, and a faster-whisper model folder (``--asr-model``, else
``$ADJUDICATOR_ASR_MODEL``; docs/speech.md says how to get one). Each speech's text is spoken by
espeak-ng's English voice at 150 words a minute into a WAV file, read by
:func:`adjudicator.input.speech.audio.read_audio` and recognised by
:func:`adjudicator.input.speech.recognizer.recognise` with the settings a user gets by default,
exactly as ``adjudicate transcribe`` does.

The table gives, per speech and over all three: the audio's length, the reference's words, the word
error rate (jiwer: substitutions + deletions + insertions over reference words, after lower-casing
and removing punctuation on both sides; the total pools every word, it is not a mean of rates) and
the CPU time of recognition (this process's CPU time, which counts CTranslate2's threads) per minute
of audio. The model's load time is reported apart. espeak-ng is a formant synthesiser: its speech
is harder than a person's in some ways (flat prosody, odd vowels) and easier in others (no noise, no
overlap, no accent), so the rate is a check that the path works, not a prediction for a real room.

``--quick`` (CI, so the script cannot rot): the first speech's first :data:`QUICK_WORDS` words, beam 1;
a missing prerequisite (the audio extra, espeak-ng, the model folder) is then one line starting
``skipped:`` and exit code 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PANELBENCH = REPO / "adjudicator/data/matches/panelbench"
#: (match, stage): three speeches of 100-140 words by three debaters on two motions.
SPEECHES = (("debateart_4395", "s01"), ("debateart_4395", "s02"), ("debateart_4739", "s03"))
WORDS_PER_MINUTE = 150
#: ``--quick``: words of the first speech spoken (about 8 s of audio at 150 words a minute)
QUICK_WORDS = 20


def reference(match: str, stage: str) -> str:
    """The speech's text as the match file has it."""
    data = json.loads((PANELBENCH / f"{match}.json").read_text(encoding="utf-8"))
    st = next(s for s in data["stages"] if s["stage_id"] == stage)
    return " ".join(u["text"] for u in st["utterances"])


def speak(text: str, out: Path) -> None:
    """``text`` spoken by espeak-ng (English voice) into the WAV file ``out``."""
    subprocess.run(["espeak-ng", "-v", "en", "-s", str(WORDS_PER_MINUTE), "-w", str(out), text], check=True, capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--asr-model", default=os.environ.get("ADJUDICATOR_ASR_MODEL"), help="faster-whisper model folder")
    ap.add_argument("--beam-size", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help=f"CI: the first {QUICK_WORDS} words of one speech, beam 1; a missing prerequisite is skipped")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = ap.parse_args()
    speeches = SPEECHES[:1] if args.quick else SPEECHES

    def missing(why: str) -> int:
        if args.quick:
            print(f"skipped: {why}")
            return 0
        sys.exit(why)

    try:
        import jiwer
    except ImportError:
        return missing("asr_wer.py needs jiwer and faster-whisper: pip install -e '.[audio]'")
    if not shutil.which("espeak-ng"):
        return missing("asr_wer.py needs espeak-ng (apt-get install espeak-ng)")
    from adjudicator.errors import InputError
    from adjudicator.input.speech.audio import read_audio
    from adjudicator.input.speech.recognizer import RecognizerSettings, load_model, recognise

    settings = RecognizerSettings(model=args.asr_model or "", language="en", beam_size=1 if args.quick else args.beam_size)
    try:
        t0 = time.process_time()
        load_model(settings)
        load_cpu_s = time.process_time() - t0
    except (InputError, ImportError) as exc:
        return missing(f"asr_wer.py: {exc.one_line() if isinstance(exc, InputError) else exc}")
    norm = jiwer.Compose([jiwer.ToLowerCase(), jiwer.RemovePunctuation(), jiwer.RemoveMultipleSpaces(), jiwer.Strip(), jiwer.ReduceToListOfListOfWords()])
    rows, refs, hyps = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for match, stage in speeches:
            ref = reference(match, stage)
            if args.quick:
                ref = " ".join(ref.split()[:QUICK_WORDS])
            wav = Path(tmp) / f"{match}_{stage}.wav"
            speak(ref, wav)
            audio = read_audio(wav)
            t0 = time.process_time()
            rec = recognise(audio, settings)
            cpu_s = time.process_time() - t0
            hyp = " ".join(s.text for s in rec.segments)
            refs.append(ref)
            hyps.append(hyp)
            out = jiwer.process_words(ref, hyp, reference_transform=norm, hypothesis_transform=norm)
            rows.append({"speech": f"{match}/{stage}", "audio_s": round(audio.duration_s, 1), "words": len(norm(ref)[0]), "wer": round(out.wer, 3),
                         "cpu_s": round(cpu_s, 2), "cpu_s_per_audio_min": round(cpu_s / audio.duration_s * 60, 2), "hypothesis": hyp})
    total = jiwer.process_words(refs, hyps, reference_transform=norm, hypothesis_transform=norm)
    audio_s = sum(r["audio_s"] for r in rows)
    cpu_s = sum(r["cpu_s"] for r in rows)
    rows.append({"speech": f"all {len(speeches)}", "audio_s": round(audio_s, 1), "words": sum(r["words"] for r in rows), "wer": round(total.wer, 3),
                 "cpu_s": round(cpu_s, 2), "cpu_s_per_audio_min": round(cpu_s / audio_s * 60, 2)})
    print(f"model {rec.model} ({rec.engine}), beam {settings.beam_size}, {settings.compute_type}, {settings.cpu_threads} threads; model load {load_cpu_s:.1f} s CPU")
    print(f"{'speech':<22} {'audio s':>8} {'words':>6} {'WER':>6} {'CPU s':>7} {'CPU s / audio min':>18}")
    for r in rows:
        print(f"{r['speech']:<22} {r['audio_s']:>8} {r['words']:>6} {r['wer']:>6.3f} {r['cpu_s']:>7} {r['cpu_s_per_audio_min']:>18}")
    if args.json:
        args.json.write_text(json.dumps({"load_cpu_s": round(load_cpu_s, 2), "rows": rows}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
