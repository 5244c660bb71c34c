"""Evidence sources for the fact-authenticity dimension (InspireScore, seed 003 section 2.2): where a
side's atomic factual claims are checked.

InspireScore splits a side's speech into atomic facts, retrieves evidence for each and calls it true,
false or unknown; its score is true facts / all facts. This framework fixes the interface and ships
two sources, both local (no network access, by default or otherwise):

- :class:`LocalFolderSource`: the documents an organiser provides (an info pack: ``.txt``, ``.md``,
  ``.json`` text files in a folder, read recursively), cut into passages of about
  :data:`PASSAGE_WORDS` words and ranked for a claim with Okapi BM25 (the ``rank_bm25`` package);
- :class:`TranscriptQuotes`: the passages the debaters themselves quoted in the match (lines
  starting with ``>`` and quotations of at least :data:`MIN_QUOTE_WORDS` words in quotation
  marks), so a claim a side makes can be checked against what was quoted in the debate.

A claim is *supported* when the best-ranked passage contains at least :data:`SUPPORT_SHARE` of the
claim's content terms (the offline check, :func:`support`); anything else is *unverified* (it
counts as not true, like InspireScore's "unknown"). An LLM checker may replace :func:`support` by
reading the retrieved passages; the source interface stays the same.

With no source configured, fact authenticity is **not assessed** (never a score): see
:data:`adjudicator.verdict.dimensions.NO_EVIDENCE`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from adjudicator.errors import InputError

#: Words per passage of a document.
PASSAGE_WORDS = 80
#: Share of a claim's content terms that the best passage must contain for the claim to count as supported.
SUPPORT_SHARE = 0.6
#: Shortest quotation (in words) taken as a quoted source.
MIN_QUOTE_WORDS = 6
#: File types a local folder source reads.
TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".json", ".text")
#: The ``--evidence`` value that selects :class:`TranscriptQuotes`.
TRANSCRIPT = "transcript"

_WORD = re.compile(r"[A-Za-z0-9\u4e00-\u9fff][A-Za-z0-9\u4e00-\u9fff'%.-]*")
_QUOTED = re.compile(r"[\"\u201c]([^\"\u201d]{10,})[\"\u201d]")


@dataclass(frozen=True)
class Passage:
    """A retrieved passage: the document it comes from (file path relative to the folder, or
    ``transcript:<stage_id>``), its text, and its BM25 score (higher = more relevant)."""

    document: str
    text: str
    score: float


@runtime_checkable
class EvidenceSource(Protocol):
    """Where claims are checked. ``name`` is shown in verdicts (e.g. ``folder:infopack``);
    :meth:`retrieve` returns up to ``k`` passages for a claim, best first (may be empty)."""

    name: str

    def retrieve(self, claim: str, k: int = 3) -> list[Passage]: ...


def terms(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` minus a few English function words, trailing punctuation
    stripped (the retrieval and support vocabulary)."""
    out = []
    for w in _WORD.findall(text or ""):
        w = w.lower().strip(".-'")
        if w and w not in _STOP:
            out.append(w)
    return out


_STOP = frozenset("a an the of to in on at by for and or but is are was were be been it its this that these those as with from than then so not no".split())


class _BM25Index:
    """Passages ranked with Okapi BM25 (``rank_bm25.BM25Okapi``)."""

    def __init__(self, passages: Sequence[tuple[str, str]]) -> None:
        from rank_bm25 import BM25Okapi

        self.passages = [(doc, text) for doc, text in passages if terms(text)]
        self.bm25 = BM25Okapi([terms(t) for _, t in self.passages]) if self.passages else None

    def top(self, claim: str, k: int) -> list[Passage]:
        q = terms(claim)
        if self.bm25 is None or not q:
            return []
        scores = self.bm25.get_scores(q)
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
        return [Passage(self.passages[i][0], self.passages[i][1], float(scores[i])) for i in order]


def split_passages(text: str, words: int = PASSAGE_WORDS) -> list[str]:
    """``text`` cut into passages: paragraphs (blank-line separated), each longer one cut into
    windows of ``words`` words overlapping by half."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text or ""):
        toks = para.split()
        if not toks:
            continue
        if len(toks) <= words:
            out.append(" ".join(toks))
            continue
        step = max(1, words // 2)
        for i in range(0, len(toks) - step, step):
            out.append(" ".join(toks[i : i + words]))
    return out


@dataclass
class LocalFolderSource:
    """The documents in ``folder`` (recursively; files ending in :data:`TEXT_SUFFIXES`), indexed once.

    Raises :class:`~adjudicator.errors.InputError` (exit code 2) when the folder does not exist or
    holds no readable text document."""

    folder: Path
    name: str = ""
    _index: _BM25Index = field(init=False, repr=False)

    def __post_init__(self) -> None:
        folder = Path(self.folder).expanduser()
        if not folder.is_dir():
            raise InputError(f"--evidence {self.folder}: no such folder", f"give a folder of text documents ({', '.join(TEXT_SUFFIXES)}) or 'transcript'")
        passages: list[tuple[str, str]] = []
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            passages += [(str(path.relative_to(folder)), p) for p in split_passages(text)]
        if not passages:
            raise InputError(f"--evidence {self.folder}: no readable text document in the folder", f"put UTF-8 {', '.join(TEXT_SUFFIXES)} files there")
        self.folder = folder
        self.name = self.name or f"folder:{folder.name}"
        self._index = _BM25Index(passages)

    def retrieve(self, claim: str, k: int = 3) -> list[Passage]:
        """Up to ``k`` passages for ``claim``, best BM25 score first."""
        return self._index.top(claim, k)


def quoted_passages(text: str) -> list[str]:
    """The quotations in ``text``: lines starting with ``>`` (joined per block) and spans in
    quotation marks of at least :data:`MIN_QUOTE_WORDS` words."""
    out: list[str] = []
    block: list[str] = []
    for line in (text or "").splitlines():
        if line.lstrip().startswith(">"):
            block.append(line.lstrip().lstrip(">").strip())
            continue
        if block:
            out.append(" ".join(block).strip())
            block = []
    if block:
        out.append(" ".join(block).strip())
    out += [m.group(1).strip() for m in _QUOTED.finditer(text or "")]
    return [q for q in out if len(q.split()) >= MIN_QUOTE_WORDS]


class TranscriptQuotes:
    """The passages quoted in a match's transcript, as an evidence source (:func:`quoted_passages`
    of every utterance; document name ``transcript:<stage_id>``). Built per match by
    :func:`source_for_match`."""

    def __init__(self, stages: Sequence[tuple[str, str]]) -> None:
        self.name = TRANSCRIPT
        self._index = _BM25Index([(f"transcript:{sid}", q) for sid, text in stages for q in quoted_passages(text)])

    def retrieve(self, claim: str, k: int = 3) -> list[Passage]:
        """Up to ``k`` quoted passages for ``claim``, best BM25 score first."""
        return self._index.top(claim, k)


def open_source(spec: str | None) -> EvidenceSource | str | None:
    """The source ``--evidence`` names: None (no source), :data:`TRANSCRIPT` (returned as the string;
    the source is built per match by :func:`source_for_match`), or a folder -> :class:`LocalFolderSource`.
    Raises InputError for a missing or empty folder."""
    if spec is None or not spec.strip():
        return None
    if spec.strip() == TRANSCRIPT:
        return TRANSCRIPT
    return LocalFolderSource(Path(spec.strip()))


def source_for_match(source: EvidenceSource | str | None, stages: Sequence[tuple[str, str]]) -> EvidenceSource | None:
    """The evidence source for one match: ``source`` itself, or for :data:`TRANSCRIPT` a
    :class:`TranscriptQuotes` over ``stages`` ((stage id, stage text) pairs)."""
    if source == TRANSCRIPT:
        return TranscriptQuotes(stages)
    return source if isinstance(source, EvidenceSource) else None


def support(claim: str, passages: Sequence[Passage]) -> tuple[bool, Passage | None]:
    """Whether the best of ``passages`` supports ``claim`` (offline rule): it contains at least
    :data:`SUPPORT_SHARE` of the claim's distinct content terms. Returns (supported, that passage)."""
    q = set(terms(claim))
    if not q or not passages:
        return False, None
    best = max(passages, key=lambda p: (len(q & set(terms(p.text))), p.score))
    share = len(q & set(terms(best.text))) / len(q)
    return share >= SUPPORT_SHARE, best
