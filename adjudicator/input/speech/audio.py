"""A stage's recording in: one audio file decoded to 16 kHz mono samples, or a one-line refusal.

Decoding is faster-whisper's own decoder (:func:`faster_whisper.audio.decode_audio`, PyAV over
FFmpeg's libraries, bundled in PyAV's wheel), so every container and codec those libraries read is
accepted: WAV, MP3, M4A (AAC), OGG (Vorbis, Opus), FLAC, WebM. Nothing here writes a file.

Refused, each as an :class:`~adjudicator.errors.InputError` (exit code 2) before any recognition:
a missing path, a folder, an empty file, a file larger than :data:`MAX_AUDIO_BYTES`, bytes the
decoder cannot read as audio, a recording without samples, one longer than :data:`MAX_AUDIO_S`, and
one whose loudest sample is below :data:`SILENT_PEAK` (nothing was recorded: a muted microphone).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adjudicator.errors import InputError

#: The sample rate Whisper models take (Hz); the decoder resamples to it.
SAMPLE_RATE = 16_000

#: Longest recording accepted (seconds). The longest speech in the formats we know is eight minutes
#: (a CCDB free debate, a BP speech is seven); 90 minutes is a whole round recorded by mistake, and
#: its samples take 90 x 60 x 16,000 x 4 bytes = 346 MB of memory.
MAX_AUDIO_S = 90 * 60

#: Largest audio file accepted (bytes): 90 minutes of 48 kHz 16-bit stereo WAV is about 1 GB.
MAX_AUDIO_BYTES = 1024 * 1024 * 1024

#: A recording whose loudest sample (full scale = 1.0) is below this holds no speech: -60 dBFS, far
#: under a quiet voice on a laptop microphone (about -30 dBFS at its peaks).
SILENT_PEAK = 1e-3

#: What the docs and the messages promise; the decoder takes more.
FORMATS_TEXT = "WAV, MP3, M4A, OGG"


@dataclass(frozen=True)
class Audio:
    """A decoded recording: ``samples`` (float32 numpy array, mono, :data:`SAMPLE_RATE` Hz, -1..1),
    ``duration_s`` (seconds), the file's ``name`` and the ``sha256`` of its bytes (hex)."""

    name: str
    sha256: str
    samples: Any
    duration_s: float


def needs_audio_extra(what: str) -> InputError:
    """The error for a command that needs speech-to-text where the optional extra is not installed."""
    return InputError(f"{what} needs the speech-to-text extra (faster-whisper), which is not installed", "install it with `pip install 'adjudicator[audio]'` (docs/speech.md)")


def read_audio(path: str | Path) -> Audio:
    """Decode ``path`` (module docstring: formats and refusals). Raises InputError naming the file."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file", f"give the path of the stage's recording ({FORMATS_TEXT})")
    if p.is_dir():
        raise InputError(f"{p}: is a folder", f"give the path of one recording ({FORMATS_TEXT})")
    try:
        size = p.stat().st_size
        data = p.read_bytes() if 0 < size <= MAX_AUDIO_BYTES else b""
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror})") from None
    if size == 0:
        raise InputError(f"{p}: the file is empty", "record the stage again, or check that the recorder saved it")
    if size > MAX_AUDIO_BYTES:
        raise InputError(f"{p}: {size / 2**30:.1f} GiB is more than the {MAX_AUDIO_BYTES // 2**30} GiB a recording may be", "give one stage's recording per file")
    samples = _decode(p)
    duration_s = len(samples) / SAMPLE_RATE
    if len(samples) == 0:
        raise InputError(f"{p}: the file holds no audio samples", "record the stage again, or check that the recorder saved it")
    if duration_s > MAX_AUDIO_S:
        raise InputError(f"{p}: {duration_s / 60:.0f} minutes of audio is more than the {MAX_AUDIO_S // 60} a stage's recording may have", "give one stage's recording per file")
    peak = float(abs(samples).max())
    if peak < SILENT_PEAK:
        raise InputError(f"{p}: the recording is silent (loudest sample {peak:.1e} of full scale)", "check that the microphone was on and not muted, then record the stage again")
    return Audio(name=p.name, sha256=hashlib.sha256(data).hexdigest(), samples=samples, duration_s=round(duration_s, 3))


def _decode(p: Path) -> Any:
    """The file's samples through faster-whisper's decoder. Raises InputError when the extra is
    missing or the decoder cannot read the file."""
    try:
        import av
        from faster_whisper.audio import decode_audio
    except ImportError:
        raise needs_audio_extra("reading audio") from None
    try:
        return decode_audio(str(p), sampling_rate=SAMPLE_RATE)
    except (av.error.FFmpegError, ValueError, OSError, IndexError, StopIteration) as exc:
        cause = " ".join(str(exc).split()).split(": '")[0][:120] or type(exc).__name__
        raise InputError(f"{p}: not an audio file the decoder can read ({cause})", f"give a recording as {FORMATS_TEXT}") from None
