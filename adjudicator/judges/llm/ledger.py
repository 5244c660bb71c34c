"""The battlefield ledger a model reads: which clashes and stages, in which order, how many left out,
and their texts cut to length. The words and layout are in ``prompts/_ledger.<lang>.j2`` (macro
``ledger_text``), which the tracker and judge templates import.

One line per clash (title, both positions, momentum, the last ``max_events`` events) plus one line per
analysed stage (suggested scores and summary). ``max_clashes`` keeps only the clashes most recently
touched (ties by id) and ``max_stages`` only the latest stage lines; with both set (the clash
tracker's setting, :func:`~adjudicator.judges.llm.variables.tracker_ledger`) the ledger has a bounded
size, so a tracker's prompt does not grow with the number of stages before it and total tracker
tokens grow linearly with the stage count (the design card, Data flow). The judges read the full
ledger (both None) once each, its clash lines only (macro ``clash_lines``): their analyses already carry
each stage's scores and summary. A clash's events name their stage once for a run of events in the
same stage, and their side once for a run of the same side. ``compact`` shortens the free text (positions to 50 characters, event
notes to 30, stage summaries to 80; the tracker's setting; else 90, 60 and 120; titles always 60).
No gold label can appear: the ledger is built only from tracker outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.input.formats import Side
from adjudicator.model.prompts import PromptStore
from adjudicator.verdict.battlefield import Clash, ClashEventKind, StageAnalysis

TITLE_CHARS = 60


@dataclass(frozen=True)
class LedgerEvent:
    """One clash event as the ledger shows it (``note`` cut to length, "" when none)."""

    stage_id: str
    side: Side
    kind: ClashEventKind
    note: str


@dataclass(frozen=True)
class LedgerClash:
    """One clash line: id, title and positions cut to length, momentum in [-1, 1] and the latest events."""

    clash_id: str
    title: str
    affirmative_position: str
    negative_position: str
    momentum: float
    events: tuple[LedgerEvent, ...]


@dataclass(frozen=True)
class LedgerStage:
    """One analysed stage line: the suggested score of each evaluated side and the summary cut to length."""

    stage_id: str
    scores: tuple[tuple[Side, int], ...]
    summary: str


@dataclass(frozen=True)
class Ledger:
    """What the ledger shows: the clashes (in map order) and stage lines (in stage order) kept, and
    how many of each were left out. No clash at all when both ``clashes`` and ``omitted_clashes`` are
    empty."""

    clashes: tuple[LedgerClash, ...]
    omitted_clashes: int
    stages: tuple[LedgerStage, ...]
    omitted_stages: int


def _kept_clashes(clashes: dict[str, Clash], analyses: list[StageAnalysis], max_clashes: int | None) -> list[Clash]:
    """The clashes in map order, or only the ``max_clashes`` most recently touched (by the index of
    the latest analysed stage with an event on them; ties by id)."""
    shown = list(clashes.values())
    if max_clashes is None or len(shown) <= max_clashes:
        return shown
    order = {a.stage_id: i for i, a in enumerate(analyses)}
    recency = {c.clash_id: max((order.get(e.stage_id, -1) for e in c.events), default=-1) for c in shown}
    keep = {c.clash_id for c in sorted(shown, key=lambda c: (-recency[c.clash_id], c.clash_id))[:max_clashes]}
    return [c for c in shown if c.clash_id in keep]


def ledger_view(
    clashes: dict[str, Clash],
    analyses: list[StageAnalysis],
    max_events: int = 4,
    max_clashes: int | None = None,
    max_stages: int | None = None,
    compact: bool = False,
) -> Ledger:
    """The ledger of a battlefield (the module docstring): the clashes and stage lines to show, with
    their texts cut to length. Pure."""
    pos_n, note_n, sum_n = (50, 30, 80) if compact else (90, 60, 120)
    kept = _kept_clashes(clashes, analyses, max_clashes)
    lines = [
        LedgerClash(
            clash_id=c.clash_id,
            title=c.title[:TITLE_CHARS],
            affirmative_position=c.affirmative_position[:pos_n],
            negative_position=c.negative_position[:pos_n],
            momentum=c.momentum(),
            events=tuple(LedgerEvent(e.stage_id, e.side, e.kind, e.note[:note_n]) for e in c.events[-max_events:]),
        )
        for c in kept
    ]
    stage_lines = analyses if max_stages is None else analyses[-max_stages:] if max_stages > 0 else []
    stages = tuple(LedgerStage(a.stage_id, tuple((s.side, s.suggested_score) for s in a.sides), a.summary[:sum_n]) for a in stage_lines)
    return Ledger(clashes=tuple(lines), omitted_clashes=len(clashes) - len(kept), stages=stages, omitted_stages=len(analyses) - len(stage_lines))


def ledger_text(store: PromptStore, ledger: Ledger, language: str) -> str:
    """The ledger's text exactly as the prompts show it (inside the LEDGER fence): the
    ``ledger_text`` macro of ``_ledger.<language>.j2``. For measuring its share of a prompt."""
    return store.render_macro(f"_ledger.{language}.j2", "ledger_text", ledger)
