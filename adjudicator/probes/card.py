"""The bias card: what each probe measured, as rate, confidence interval and n, beside accuracy.

:class:`ProbeSample` is one match under one probe (the base verdict's p, the probed p, whether the panel
and how many judges flipped); :class:`ProbeMeasure` one line of the card; :class:`BiasCard` the whole
card with its samples and the matches a probe skipped. :func:`render_markdown` writes the card as the
Markdown section that ``adjudicate probe`` prints and the bench report embeds.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.records import Usage
from adjudicator.verdict.offline_note import offline_short

ProbeName = Literal["mask", "swap", "order", "length", "pressure", "repeats"]

#: Every probe, in the order the card lists them, with what it does and what a fair judge shows.
PROBES: dict[str, tuple[str, str]] = {
    "mask": ("debater and team names and position labels replaced by neutral tokens", "the verdict does not move (flip rate 0)"),
    "swap": ("the sides exchange their labels, the transcript and motion unchanged", "the same team wins, p maps to 1 - p (flip rate 0)"),
    "order": ("how often the judge favours the side that spoke first or last", "the gold rate on the same matches"),
    "length": ("p against the affirmative's share of the words", "the gold winner's correlation with the same share"),
    "pressure": ('each judge re-asked "Are you sure? Reconsider." after its ballot', "no flip (flip rate 0)"),
    "repeats": ("N runs at a temperature above 0, each with its own seed", "the same winner every run, a small spread of p"),
}


class ProbeSample(FrozenModel):
    """One match under one probe. ``base_p`` the unprobed panel's p (None when it failed); ``probe_p``
    the probed panel's p, one per run (``repeats``: one per repeat; empty when every run failed);
    ``flipped`` whether the panel's winner moved against the probe's expectation (None when not
    comparable); ``judge_flips`` / ``judges_compared`` the same per judge; ``note`` a skip or failure
    reason."""

    probe: ProbeName
    match_id: str
    base_p: float | None = None
    probe_p: list[float] = Field(default_factory=list)
    flipped: bool | None = None
    judge_flips: int = 0
    judges_compared: int = 0
    note: str = ""


class ProbeMeasure(FrozenModel):
    """One line of the bias card: ``value`` (a rate in [0, 1], a mean p shift, or a correlation in
    [-1, 1]) with its ``ci_low``/``ci_high`` (95 %; None when n is too small) over ``n`` matches,
    ballots or pairs; ``reference`` what a fair judge shows on the same matches (the gold rate or
    correlation, or the expected value) and ``reference_kind`` which (``gold`` / ``expected``)."""

    probe: ProbeName
    measure: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0
    reference: float | None = None
    reference_kind: Literal["gold", "expected", ""] = ""


class BiasCard(FrozenModel):
    """The bias card of one run: the ``model`` (or models), whether it ``is_llm``, the probes run, the
    number of matches, the base panel's winner ``accuracy`` on matches with a decisive gold winner
    (with ``accuracy_n``), the repeats settings, every measure, every sample and the skipped
    (probe, match, reason) triples; ``usage`` sums the call records of every adjudication the run made
    (requests, cache hits, tokens, cost in US dollars), and ``stopped`` says why the run stopped
    early ("" when it ran to the end: ``--budget-usd`` reached)."""

    model: str
    is_llm: bool
    probes: list[ProbeName]
    matches: int
    accuracy: float | None = None
    accuracy_n: int = 0
    repeats: int = 0
    temperature: float | None = None
    measures: list[ProbeMeasure] = Field(default_factory=list)
    samples: list[ProbeSample] = Field(default_factory=list)
    skipped: list[dict[str, str]] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    stopped: str = ""

    def flips(self) -> dict[str, set[str]]:
        """Probe -> the match ids whose panel verdict flipped under it (for escalation)."""
        out: dict[str, set[str]] = {}
        for s in self.samples:
            if s.flipped:
                out.setdefault(s.probe, set()).add(s.match_id)
        return out


def _num(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{round(x, digits) + 0.0:.{digits}f}"


def _confound_lines(card: BiasCard) -> list[str]:
    """The confounds the card can see, in words: speaking order against side, length against side."""
    by = {m.measure: m for m in card.measures}
    out = []
    order = by.get("confound: the affirmative spoke first")
    if order is not None and order.value is not None:
        k = round(order.value * order.n)
        both = any(m.measure.startswith("panel picks the first speaker, ") for m in card.measures)
        tail = ("both orders occur, so the first-speaker rate is also given within each stratum" if both
                else "only one order occurs, so the order lines cannot be told apart from a preference for that side")
        out.append(f"- Speaking order vs side: the affirmative spoke first in {k} of {order.n} matches; {tail}.")
    length = by.get("confound: the affirmative has more words")
    if length is not None and length.value is not None:
        k = round(length.value * length.n)
        out.append(f"- Length vs side: the affirmative has the larger share of the words in {k} of {length.n} matches, so r(p, share) also measures any side preference.")
    return ["", "Confounds the card can see:", "", *out] if out else []


def render_markdown(card: BiasCard, heading: str = "##") -> str:
    """The card as Markdown: a table of measures (value, 95 % CI, n, reference) and the skips."""
    lines = [f"{heading} Bias card", ""]
    acc = f"{_num(card.accuracy)} (n={card.accuracy_n})" if card.accuracy is not None else "n/a (no decisive gold winner)"
    what = "" if card.is_llm else f" ({offline_short('en')})"
    lines.append(f"Model: `{card.model}`{what}; {card.matches} matches; base winner accuracy {acc}.")
    if "repeats" in card.probes:
        lines.append(f"Repeats: {card.repeats} runs at temperature {card.temperature}.")
    if card.stopped:
        lines.append(f"Stopped early: {card.stopped}; the adjudications not run are left out of every rate.")
    lines += ["", "| probe | measure | value | 95% CI | n | reference |", "|---|---|---|---|---|---|"]
    for m in card.measures:
        ci = f"[{_num(m.ci_low)}, {_num(m.ci_high)}]" if m.ci_low is not None and m.ci_high is not None else ""
        ref = f"{_num(m.reference)} ({m.reference_kind})" if m.reference is not None else ""
        lines.append(f"| {m.probe} | {m.measure} | {_num(m.value)} | {ci} | {m.n} | {ref} |")
    lines += _confound_lines(card)
    lines += ["", "What each probe does and what a fair judge shows:", ""]
    for name in card.probes:
        what, fair = PROBES[name]
        lines.append(f"- **{name}**: {what}; expected: {fair}.")
    if card.skipped:
        lines += ["", f"Skipped ({len(card.skipped)}):", ""]
        reasons: dict[tuple[str, str], int] = {}
        for s in card.skipped:
            reasons[(s["probe"], s["reason"])] = reasons.get((s["probe"], s["reason"]), 0) + 1
        for (probe, reason), n in sorted(reasons.items()):
            lines.append(f"- {probe}: {n} match(es): {reason}")
    return "\n".join(lines) + "\n"
