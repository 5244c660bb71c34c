"""Bias and stability probes (``adjudicate probe``, ``adjudicate bench --probe``), in data-flow order:

- :mod:`~adjudicator.probes.transforms` -- input transformations (name masking, side-label swap);
- :mod:`~adjudicator.probes.pressure` -- the conversation probe (a contentless challenge after each ballot);
- :mod:`~adjudicator.probes.run` -- adjudicate each match plainly and under each probe;
- :mod:`~adjudicator.probes.stats` -- the measures (flip rates, speaker-order and length preference,
  repeat spread) with their confidence intervals;
- :mod:`~adjudicator.probes.card` -- the bias card (rate, CI, n beside accuracy) and its Markdown.
"""
