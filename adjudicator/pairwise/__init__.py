"""The pairwise Bradley-Terry panel (``--panel pairwise``; seed 004), in data-flow order:

- :mod:`~adjudicator.pairwise.comparisons` -- which pairs a judge compares (both orders), one answer
  (:class:`PairChoice`), and a pair's result once both orders are in (order-inconsistent -> tie);
- :mod:`~adjudicator.pairwise.bradley_terry` -- strengths from the results (choix, ties as half
  comparisons, a weak Gaussian prior);
- :mod:`~adjudicator.pairwise.agreement` -- percent agreement and Cohen's kappa between judges, the
  share of order-inconsistent pairs;
- :mod:`~adjudicator.pairwise.record` -- what the verdict keeps of it all (``Verdict.pairwise``);
- :mod:`~adjudicator.pairwise.panel` -- the verdict read off the strengths (p, house ranking,
  speaker ranks, nine best-debater votes).

The judges' side is ``Backend.compare`` (:mod:`adjudicator.judges.offline.compare`,
:mod:`adjudicator.judges.llm.compare`); the graph node is ``judge`` in
:mod:`adjudicator.workflow.nodes`, which asks for comparisons instead of a ballot when the context's
panel mode is ``"pairwise"``.
"""
