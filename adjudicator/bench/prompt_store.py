"""The messages a run's model calls sent, each distinct text stored once: ``prompts/<sha256>.txt``.

A call record keeps its messages as :class:`~adjudicator.records.PromptRef` (role and the SHA-256 of
the content); the texts live here, in the run folder, one UTF-8 file per distinct text, named by its
hash. A tracker's or judge's system prompt is sent with every stage of every sample, so a run of 100
debates of 17 stages stores it once instead of 1,700 times; the per-stage user messages are each
stored once too (an attempt resent with the same messages, a cached rerun, a superseded result and
its replacement all point at the same files).

Written before the result file that points at them (:func:`store_prompts`, from the sample loop), so
a result file that exists never names a missing text, and atomically (a half-written text never has
its final name). Files are never rewritten: a name is its content's hash. Read back by the viewer,
``compare`` and the Inspect export through :class:`PromptReader`, which says ``None`` for a text that
is not there (a record from before messages were kept, or a file deleted by hand).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from adjudicator.bench.layout import PROMPTS
from adjudicator.files import atomic_write_text
from adjudicator.records import CallRecord, PromptRef, text_sha256

_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


def prompt_path(run_dir: Path, sha256: str) -> Path:
    """``run_dir/prompts/<sha256>.txt``. Raises ValueError for a name that is not 64 hex digits (so a
    hand-edited record cannot point outside the folder)."""
    if not _SHA_RE.match(sha256):
        raise ValueError(f"not a SHA-256 prompt name: {sha256!r}")
    return run_dir / PROMPTS / f"{sha256}.txt"


def texts_of(calls: Iterable[CallRecord]) -> dict[str, str]:
    """Every message text the records carry in memory, by SHA-256."""
    out: dict[str, str] = {}
    for c in calls:
        out.update(c.prompt_texts())
    return out


def store_prompts(run_dir: Path, texts: Mapping[str, str]) -> int:
    """Write each text of ``texts`` (SHA-256 -> text) not yet in ``run_dir/prompts/``; returns how many
    were written. A text whose hash is not its name's is refused (ValueError: a bug upstream).
    Raises OSError when the folder cannot be written."""
    written = 0
    for sha, text in texts.items():
        if text_sha256(text) != sha:
            raise ValueError(f"prompt text does not match its hash {sha[:12]}")
        path = prompt_path(run_dir, sha)
        if not path.exists():
            atomic_write_text(path, text)
            written += 1
    return written


class PromptReader:
    """The texts of one run's ``prompts/`` folder, read once each (the viewer asks for a system prompt
    many times)."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self._seen: dict[str, str | None] = {}

    def text(self, ref: PromptRef | str) -> str | None:
        """The text of ``ref`` (a :class:`PromptRef` or a hash): the one the record carries in memory,
        else the stored file's; None when neither exists or the name is not a hash."""
        if isinstance(ref, PromptRef) and ref.text is not None:
            return ref.text
        sha = ref.sha256 if isinstance(ref, PromptRef) else ref
        if sha not in self._seen:
            try:
                self._seen[sha] = prompt_path(self.run_dir, sha).read_text(encoding="utf-8")
            except (OSError, ValueError, UnicodeDecodeError):
                self._seen[sha] = None
        return self._seen[sha]

    def with_texts(self, calls: Iterable[CallRecord]) -> list[CallRecord]:
        """``calls`` whose message references carry their stored texts (where found), so that another
        run (a re-judge run reusing these records) can store them in its own folder."""
        out = []
        for c in calls:
            if not c.messages or all(m.text is not None for m in c.messages):
                out.append(c)
                continue
            refs = [m if m.text is not None else m.model_copy(update={"text": self.text(m)}) for m in c.messages]
            out.append(c.model_copy(update={"messages": refs}))
        return out
