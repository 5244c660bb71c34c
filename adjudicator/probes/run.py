"""Running the probes: adjudicate each match plainly and under each probe, then fill the bias card.

:func:`run_probes` takes matches, the model settings and the probe names (:data:`~adjudicator.probes.card.PROBES`):

- every match is first adjudicated as it is (the *base* verdict; ``order`` and ``length`` read only
  these, against the gold winner);
- ``mask`` and ``swap`` adjudicate the transformed match (:mod:`adjudicator.probes.transforms`); a
  match the transformation does not apply to is skipped with its reason;
- ``pressure`` adjudicates the match with every judge challenged once after its ballot
  (:mod:`adjudicator.probes.pressure`);
- ``repeats`` adjudicates the match ``repeats`` times at ``temperature`` with seeds 1..N (each run its
  own cache entries), so an LLM judge's sampling shows; the offline judge is deterministic.

Flips are counted on the panel's winner and per judge (a judge's ballot winner), as the card's
measures (:mod:`adjudicator.probes.stats`). A run that fails (fewer than two ballots, a model fault
past its retries) is recorded in the sample's note and left out of the rates, never counted as a flip.
Model calls go through the same clients and response cache as ``adjudicate``, so a rerun of a probe
is served from the cache. Every adjudication's call records are summed on the card (``usage``); with a
``budget_usd``, no adjudication starts once the known spend (requests sent, not cache hits) has
reached it: those are noted as not run, left out of the rates, and the card says it ``stopped``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from adjudicator.api import adjudicate_with_context, build_context
from adjudicator.config import ModelConfig
from adjudicator.errors import AdjudicationFailed
from adjudicator.input.match import Match
from adjudicator.probes.card import BiasCard, ProbeMeasure, ProbeName, ProbeSample
from adjudicator.probes.pressure import pressured_context
from adjudicator.probes.stats import affirmative_share, flip_measures, length_measures, order_measures, rate_measure, repeat_measures
from adjudicator.probes.transforms import ProbeNotApplicable, mask_names, swap_sides
from adjudicator.records import CallRecord, Usage
from adjudicator.verdict.ballots import Verdict
from adjudicator.workflow.context import AdjudicationContext

#: Probe order on the card.
PROBE_ORDER: tuple[ProbeName, ...] = ("mask", "swap", "order", "length", "pressure", "repeats")

_OTHER = {"affirmative": "negative", "negative": "affirmative"}


#: The note of an adjudication not run because the budget was reached.
NOT_RUN = "not run: the --budget-usd budget was reached"


@dataclass
class Spend:
    """The call records of every adjudication of one probe run, its budget (US dollars; None: no cap)
    and how many adjudications the budget stopped. Not thread-safe: the probes run one at a time."""

    budget_usd: float | None = None
    calls: list[CallRecord] = field(default_factory=list)
    not_run: int = 0

    def usage(self) -> Usage:
        """The summed usage of :attr:`calls` (:meth:`Usage.of`: cache hits cost nothing)."""
        return Usage.of(self.calls)

    def exhausted(self) -> bool:
        """True when a budget is set and the known spend has reached it."""
        return self.budget_usd is not None and self.usage().cost_usd >= self.budget_usd


def _try(match: Match, context: AdjudicationContext, spend: Spend) -> tuple[Verdict | None, str]:
    """The verdict, or None and the failure's one line (:data:`NOT_RUN` once the budget is spent).
    The run's call records, of a failed run too, are added to ``spend``."""
    if spend.exhausted():
        spend.not_run += 1
        return None, NOT_RUN
    try:
        v = adjudicate_with_context(match, context)
    except AdjudicationFailed as exc:
        partial = exc.verdict
        spend.calls.extend(getattr(partial, "calls", None) or [])
        return None, exc.one_line()
    spend.calls.extend(v.calls)
    return (v, "") if v.p is not None else (None, "no winner tendency")


def _ballot_winners(v: Verdict) -> dict[str, str]:
    return {b.judge_id: b.winner for b in v.ballots if b.winner}


def compare(probe: ProbeName, match_id: str, base: Verdict | None, probed: Verdict | None, note: str, *, mirror: bool = False) -> ProbeSample:
    """One flip sample: the panel flipped when the probed winner is not the base winner (``mirror``:
    not the other label, the swap's expectation); a judge flipped likewise on its own ballot."""
    if base is None or probed is None:
        return ProbeSample(probe=probe, match_id=match_id, base_p=base.p if base else None, probe_p=[probed.p] if probed and probed.p is not None else [], note=note or "the base verdict failed")
    expect = (lambda w: _OTHER[w]) if mirror else (lambda w: w)
    bw, pw = _ballot_winners(base), _ballot_winners(probed)
    common = [j for j in bw if j in pw]
    assert base.winner is not None and probed.p is not None
    return ProbeSample(
        probe=probe,
        match_id=match_id,
        base_p=base.p,
        probe_p=[probed.p],
        flipped=probed.winner != expect(base.winner),
        judge_flips=sum(1 for j in common if pw[j] != expect(bw[j])),
        judges_compared=len(common),
    )


def repeat_sample(match_id: str, runs: Sequence[Verdict | None], notes: Sequence[str]) -> ProbeSample:
    """The repeats sample of one match: the panel flipped when its successful runs do not all give one
    winner; a judge flipped when its ballots across the runs (at least two) do not all agree."""
    ok = [v for v in runs if v is not None]
    ps = [v.p for v in ok if v.p is not None]
    by_judge: dict[str, list[str]] = {}
    for v in ok:
        for j, w in _ballot_winners(v).items():
            by_judge.setdefault(j, []).append(w)
    compared = [ws for ws in by_judge.values() if len(ws) >= 2]
    note = "; ".join(n for n in notes if n)
    return ProbeSample(
        probe="repeats",
        match_id=match_id,
        probe_p=ps,
        flipped=(len({v.winner for v in ok}) > 1) if len(ok) >= 2 else None,
        judge_flips=sum(1 for ws in compared if len(set(ws)) > 1),
        judges_compared=len(compared),
        note=note,
    )


def _speaker_sides(match: Match) -> tuple[str | None, str | None]:
    """(side of the first words spoken, side of the last words spoken)."""
    utterances = [u for st in match.stages for u in st.utterances]
    return (utterances[0].side, utterances[-1].side) if utterances else (None, None)


def run_probes(
    matches: Sequence[Match],
    settings: ModelConfig,
    probes: Sequence[ProbeName],
    *,
    repeats: int = 5,
    temperature: float = 0.7,
    progress: Callable[[str], None] | None = None,
    budget_usd: float | None = None,
) -> BiasCard:
    """The bias card of ``probes`` on ``matches`` under ``settings`` (see the module docstring).

    ``repeats`` (>= 2) runs at ``temperature`` (> 0 for an LLM; 0-2) for the repeats probe;
    ``progress`` receives one line per match; ``budget_usd`` caps the known spend in US dollars
    (module docstring). Raises ValueError for an unknown probe or repeats < 2;
    :class:`~adjudicator.errors.ConfigError` from the models' pre-flight check. Model faults never
    raise: they are notes on the samples."""
    chosen = [p for p in PROBE_ORDER if p in set(probes)]
    unknown = set(probes) - set(PROBE_ORDER)
    if unknown:
        raise ValueError(f"unknown probe(s): {', '.join(sorted(unknown))}")
    if "repeats" in chosen and repeats < 2:
        raise ValueError("repeats must be at least 2")
    context = build_context(settings)
    pressured = pressured_context(context) if "pressure" in chosen else None
    repeat_contexts = [build_context(settings.model_copy(update={"temperature": temperature, "seed": r})) for r in range(1, repeats + 1)] if "repeats" in chosen else []
    samples: list[ProbeSample] = []
    skipped: list[dict[str, str]] = []
    bases: list[Verdict | None] = []
    spend = Spend(budget_usd)
    for i, match in enumerate(matches, start=1):
        base, note = _try(match, context, spend)
        bases.append(base)
        for probe in chosen:
            if probe == "mask":
                probed, why = _try(mask_names(match), context, spend)
                samples.append(compare("mask", match.match_id, base, probed, why or note))
            elif probe == "swap":
                try:
                    swapped = swap_sides(match)
                except ProbeNotApplicable as exc:
                    skipped.append({"probe": "swap", "match_id": match.match_id, "reason": exc.message})
                    continue
                probed, why = _try(swapped, context, spend)
                samples.append(compare("swap", match.match_id, base, probed, why or note, mirror=True))
            elif probe == "pressure" and pressured is not None:
                probed, why = _try(match, pressured, spend)
                samples.append(compare("pressure", match.match_id, base, probed, why or note))
            elif probe == "repeats":
                runs = [_try(match, c, spend) for c in repeat_contexts]
                samples.append(repeat_sample(match.match_id, [v for v, _ in runs], [n for _, n in runs]))
        if progress is not None:
            progress(f"probe {i}/{len(matches)} {match.match_id}: {base.outcome_text() if base else 'base verdict failed: ' + note}")
    card = _card(matches, settings, context, chosen, bases, samples, skipped, repeats, temperature)
    usage = spend.usage()
    stopped = f"budget of ${budget_usd:.4f} reached (spent ${usage.cost_usd:.4f}); {spend.not_run} adjudication(s) not run" if budget_usd is not None and spend.not_run else ""
    return card.model_copy(update={"usage": usage, "stopped": stopped})


def _card(matches: Sequence[Match], settings: ModelConfig, context: AdjudicationContext, chosen: list[ProbeName], bases: list[Verdict | None], samples: list[ProbeSample], skipped: list[dict[str, str]], repeats: int, temperature: float) -> BiasCard:
    """Assemble the card from the base verdicts and the samples."""
    gold = [m.labels.gold_winner() if m.labels else None for m in matches]
    predicted = [v.winner if v else None for v in bases]
    decisive = [i for i in range(len(matches)) if gold[i] in ("affirmative", "negative") and predicted[i]]
    acc = rate_measure("order", "", sum(1 for i in decisive if predicted[i] == gold[i]), len(decisive))
    measures: list[ProbeMeasure] = []
    by_probe = {p: [s for s in samples if s.probe == p] for p in chosen}
    for probe in chosen:
        if probe in ("mask", "pressure"):
            measures += flip_measures(probe, by_probe[probe], "same")
        elif probe == "swap":
            measures += flip_measures(probe, by_probe[probe], "mirror")
        elif probe == "order":
            sides = [_speaker_sides(m) for m in matches]
            ballots = [[b.winner for b in v.ballots if b.winner] if v else [] for v in bases]
            measures += order_measures([f for f, _ in sides], [last for _, last in sides], predicted, gold, ballots)
        elif probe == "length":
            measures += length_measures([affirmative_share(m) for m in matches], [v.p if v else None for v in bases], gold)
        elif probe == "repeats":
            measures += repeat_measures(by_probe[probe])
    names = context.model_names()
    models = sorted(set(names.values()))
    return BiasCard(
        model=", ".join(models),
        is_llm=any(b.is_llm for b in [context.tracker, *context.judges.values()]),
        probes=chosen,
        matches=len(matches),
        accuracy=acc.value,
        accuracy_n=acc.n,
        repeats=repeats if "repeats" in chosen else 0,
        temperature=temperature if "repeats" in chosen else None,
        measures=measures,
        samples=samples,
        skipped=skipped,
    )
