"""The speech-to-text boundary: faster-whisper (CTranslate2) with a Whisper model folder, and the one
place its model is loaded and called.

The model is a setting (:class:`RecognizerSettings`): a folder in faster-whisper's format
(``model.bin``, ``config.json``, ``tokenizer.json``, ``vocabulary.txt``). A model *name*
(``base``, ``small.en``) makes faster-whisper download that model from its hub into its cache;
that is allowed only with ``allow_download`` (``--allow-download``), which the user gives on their own
machine, and never by default: without it a name is refused and nothing is fetched
(``local_files_only``). docs/speech.md says how to get a model folder.

Recognition runs on the CPU with int8 weights, beam search of 5 (faster-whisper's default), the
bundled Silero voice-activity filter (an ONNX file inside the faster-whisper wheel) so that silence
is not decoded into invented words, and word timestamps when the caller needs to split segments at
turn marks. Measured on this project's 2-core machine with Whisper base: about 6-9 s of CPU per
minute of audio after a 2-3 s model load (benchmarks/asr_wer.py).

A segment's ``confidence`` is ``exp(avg_logprob)``: the geometric mean of the probabilities the model
gave its own tokens, in (0, 1] (faster-whisper's ``avg_logprob``, the mean token log-probability of
the segment; Whisper itself re-decodes a segment below avg log-prob -1.0, i.e. confidence 0.37).
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.errors import InputError
from adjudicator.input.speech.audio import Audio, needs_audio_extra

#: The files a faster-whisper model folder must hold.
MODEL_FILES = ("model.bin", "config.json")

#: Where a user reads how to get a model.
MODEL_HINT = "see docs/speech.md, 'Getting a model'"


@dataclass(frozen=True)
class RecognizerSettings:
    """How speech is recognised. ``model``: a model folder, or (only with ``allow_download``) a model
    name faster-whisper may download; ``language``: an ISO code (``en``, ``zh``) or None to detect;
    ``beam_size`` >= 1; ``compute_type`` a CTranslate2 type (``int8``, ``float32``); ``cpu_threads``
    >= 1; ``vad``: drop silence before decoding (Silero); ``word_timestamps``: times per word (needed
    to split at turn marks; a little slower)."""

    model: str
    allow_download: bool = False
    language: str | None = None
    beam_size: int = 5
    compute_type: str = "int8"
    cpu_threads: int = field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)))
    vad: bool = True
    word_timestamps: bool = False

    def recorded(self) -> dict[str, Any]:
        """The settings a transcript records (the model is recorded apart, by name and hash)."""
        out = asdict(self)
        for k in ("model", "allow_download"):
            out.pop(k)
        return out


@dataclass(frozen=True)
class Word:
    """One recognised word: ``start_s``/``end_s`` seconds from the start of the audio, its text (with
    its leading space, as Whisper writes it) and the model's ``probability`` (0-1)."""

    start_s: float
    end_s: float
    text: str
    probability: float


@dataclass(frozen=True)
class Segment:
    """One recognised segment (about a sentence): times in seconds, its text, its ``confidence``
    (module docstring), faster-whisper's ``no_speech_prob`` (0-1) and its words (empty without word
    timestamps)."""

    start_s: float
    end_s: float
    text: str
    confidence: float
    no_speech_prob: float
    words: tuple[Word, ...] = ()


@dataclass(frozen=True)
class Recognition:
    """What the recogniser heard in one recording: its segments in time order, the language (given or
    detected) and the detector's probability for it (None when given), the engine (``faster-whisper
    1.2.1``), the model's name and the SHA-256 of its weights (None for a downloaded name), and the
    settings used."""

    segments: tuple[Segment, ...]
    language: str
    language_probability: float | None
    engine: str
    model: str
    model_sha256: str | None
    settings: dict[str, Any]


def resolve_model(value: str | None, allow_download: bool) -> str:
    """The model to load: a folder holding :data:`MODEL_FILES`, or a name when ``allow_download``.
    Raises InputError for no model, a folder without a model, or a name without permission."""
    if not value:
        raise InputError("no speech-to-text model is set", f"pass --asr-model FOLDER or set ADJUDICATOR_ASR_MODEL ({MODEL_HINT})")
    p = Path(value).expanduser()
    if p.is_dir():
        missing = [f for f in MODEL_FILES if not (p / f).is_file()]
        if missing:
            raise InputError(f"--asr-model: {p} is not a faster-whisper model folder (no {', '.join(missing)})", MODEL_HINT)
        return str(p)
    if p.exists():
        raise InputError(f"--asr-model: {p} is a file; give the model's folder", MODEL_HINT)
    if os.sep in value or value.startswith("."):
        raise InputError(f"--asr-model: {p}: no such folder", MODEL_HINT)
    if not allow_download:
        raise InputError(
            f"--asr-model: {value!r} is not a folder here, and a model name is downloaded only when you allow it",
            f"give a model folder, or add --allow-download to let faster-whisper fetch {value!r} to this machine ({MODEL_HINT})",
        )
    return value


_MODELS: dict[tuple[str, str, int], Any] = {}
_MODELS_LOCK = threading.Lock()


def load_model(settings: RecognizerSettings) -> tuple[Any, str]:
    """The loaded WhisperModel for ``settings`` (kept per process: loading takes seconds) and the
    engine's name with version. Raises InputError when the extra is missing or the model cannot load."""
    try:
        import faster_whisper
    except ImportError:
        raise needs_audio_extra("speech-to-text") from None
    name = resolve_model(settings.model, settings.allow_download)
    key = (name, settings.compute_type, settings.cpu_threads)
    with _MODELS_LOCK:
        if key not in _MODELS:
            try:
                _MODELS[key] = faster_whisper.WhisperModel(
                    name, device="cpu", compute_type=settings.compute_type, cpu_threads=settings.cpu_threads, local_files_only=not settings.allow_download
                )
            except (RuntimeError, ValueError, OSError) as exc:
                raise InputError(f"--asr-model: {name} cannot be loaded ({' '.join(str(exc).split())[:160]})", MODEL_HINT) from None
        return _MODELS[key], f"faster-whisper {faster_whisper.__version__}"


def model_identity(name: str) -> tuple[str, str | None]:
    """(the model's name as recorded, SHA-256 of its ``model.bin`` or None for a downloaded name).
    A folder is named by its last part (``whisper-base``), never by the full path."""
    p = Path(name)
    if not p.is_dir():
        return name, None
    h = hashlib.sha256()
    with open(p / "model.bin", "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return p.resolve().name, h.hexdigest()


def recognise(audio: Audio, settings: RecognizerSettings, on_segment: Callable[[Segment], None] | None = None) -> Recognition:
    """Recognise ``audio`` with ``settings``; ``on_segment`` is called with each segment as it is
    decoded (faster-whisper yields them window by window). Raises InputError (no extra, no model)."""
    model, engine = load_model(settings)
    segments, info = model.transcribe(
        audio.samples,
        language=settings.language,
        beam_size=settings.beam_size,
        vad_filter=settings.vad,
        word_timestamps=settings.word_timestamps,
    )
    out = []
    for s in segments:
        seg = Segment(
            start_s=round(float(s.start), 2),
            end_s=round(float(s.end), 2),
            text=s.text.strip(),
            confidence=round(math.exp(float(s.avg_logprob)), 3),
            no_speech_prob=round(float(s.no_speech_prob), 3),
            words=tuple(Word(round(float(w.start), 2), round(float(w.end), 2), w.word, round(float(w.probability), 3)) for w in (s.words or ())),
        )
        out.append(seg)
        if on_segment is not None:
            on_segment(seg)
    resolved = resolve_model(settings.model, settings.allow_download)
    model_name, model_sha = model_identity(resolved)
    return Recognition(
        segments=tuple(out),
        language=info.language,
        language_probability=None if settings.language else round(float(info.language_probability), 3),
        engine=engine,
        model=model_name,
        model_sha256=model_sha,
        settings=settings.recorded(),
    )
