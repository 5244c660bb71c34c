"""The offline judge: a deterministic, non-LLM implementation of the :class:`~adjudicator.judges.base.Backend`
protocol, the project's default model when no LLM is configured (the design card, Models).

How it works, in two nodes; the modules in data-flow order:

``analyse_stage`` (the clash tracker), for one stage:

- :mod:`~adjudicator.judges.offline.text`: string-level primitives (content terms, stems, sentences,
  question / rebuttal / concession / evidence / weighing markers, coverage, novelty);
- :mod:`~adjudicator.judges.offline.zh_phrases`: recurring Chinese phrases (a stand-in for word segmentation);
- :mod:`~adjudicator.judges.offline.reading`: what has been read of the debate so far, as running counts
  (vocabulary, sentences naming each unit, terms per side, what the other side said), so a stage
  costs time in proportion to that stage and not to the debate before it;
- :mod:`~adjudicator.judges.offline.transcript`: who said what (a side's text in a stage, the
  opponent's recent stages and comparable speech, questions put and answered);
- :mod:`~adjudicator.judges.offline.ledger`: reading the clash map (the units a clash is about, the
  ledger as it stood before a stage);
- :mod:`~adjudicator.judges.offline.features`: what one side did in the stage, as numbers in [0, 1]
  (substance, engagement, topicality, novelty, synthesis, weighing, questions, answers, markers);
- :mod:`~adjudicator.judges.offline.rating`: the features mixed per stage type and role into the three
  rubric dimensions of paper Table 5, shifted by the structural prior and cut into rubric levels;
- :mod:`~adjudicator.judges.offline.clashes`: the stage's clash updates (opened, advanced, contested,
  conceded) and each side's position on a clash;
- :mod:`~adjudicator.judges.offline.titles`: a clash's title as the question in dispute;
- :mod:`~adjudicator.judges.offline.tracker`: the stage's analysis from those (levels, contributions,
  clash updates, summary, a rationale per side).

``judge``, for one judge:

- :mod:`~adjudicator.judges.offline.ballot`: the ballot of one perspective from the analyses and the
  clash map (unit scores, ``p``, best-debater votes), its reasons in sentences
  (:mod:`~adjudicator.judges.offline.reasons`) and the feedback per debater
  (:mod:`~adjudicator.judges.offline.feedback`).

Every word it writes (notes, summaries, rationales, reasons) comes from the phrase tables of
:mod:`~adjudicator.judges.offline.words`, in the match's language; what it is and what accuracy to
expect from it is said once, in :mod:`adjudicator.verdict.offline_note`.

:mod:`~adjudicator.judges.offline.backend` holds :class:`OfflineBackend`, the protocol over the two.

All constants are coarse, documented choices. The feature ranges come from the spread of values over
the DebateArt speeches (no labels); the one change made after a first accuracy run was a softer
penalty for speeches shorter than the opponent's, because a short first speech is normal. The
second revision (stage-aware synthesis, shrinkage toward the "well completed" band, multi-term
clashes, concentrated votes) follows the rubric's and the paper's logic; the synthetic CCDB labels
were looked at only as a sanity check. Nothing was fitted or grid-searched against labels.
"""

from adjudicator.judges.offline.backend import OfflineBackend, OfflineJudge

__all__ = ["OfflineBackend", "OfflineJudge"]
