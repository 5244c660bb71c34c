"""The CCDB fine-tuning protocol (seed 001 section 03; issue 31): grouped folds turned into training
files, everything data-dependent fitted on a fold's training portion only, fine-tuned models
evaluated per fold and pooled.

Rules it implements: the complete match is the smallest unit (a match's stages never split across
folds); three folds grouped by motion, balanced by format, team overlap reported
(:mod:`adjudicator.bench.splits`); each task alone or jointly; gold scores and votes are targets,
never inputs; chains of thought in training data carry no gold number; Task 2 also as the
affirmative-minus-negative difference on paired stages; the zero-shot task definitions, prompts and
parsing apply.

Modules, in data-flow order:

- :mod:`.folds`        each fold's test, validation and train parts, and the export's ``splits.json``
- :mod:`.targets`      each task's gold answer in the zero-shot output schema
- :mod:`.rationales`   the gold numbers of a match; the filter and the refusal for rationales
- :mod:`.difference`   the paired-difference variant's request (its own template)
- :mod:`.examples`     one training chat per instance: the single-call arm's request plus the target
- :mod:`.checks`       the checks that fail loudly (folds, fold boundaries, label-free inputs)
- :mod:`.export`       ``adjudicate finetune export``: build, check, then write the files and manifest
- :mod:`.calibration`  Platt scaling of p, fitted on training matches only
- :mod:`.baselines`    the data-dependent baselines fitted on training matches only
- :mod:`.fold_fit`     ``bench --fold K``: the fits, ``fit.json`` and the report's ``fold_fit`` section
- :mod:`.pooled`       ``adjudicate finetune report``: the folds' runs pooled
- :mod:`.render`       the Markdown and HTML of the last two
"""
