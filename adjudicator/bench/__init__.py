"""The benchmark harness: run a labelled dataset through the arms and score them as CCDB does.

Modules, in data-flow order:

- :mod:`.dataset`      a folder of labelled match files, or upstream PanelBench converted on the fly
- :mod:`.splits`       the recommended folds grouped by motion (``adjudicate splits``); one fold as a run's selection (``--fold``)
- :mod:`.rejudge`      a new panel on a frozen run's tracker outputs (``--rejudge``)
- :mod:`.layout`       the run folder: names of its files and folders
- :mod:`.arms`         each arm's models, prompt hashes and LLM flag, as the manifest records them
- :mod:`.manifest`     ``manifest.json``: what defines a run, and the resumed run's adopted settings
- :mod:`.session`      open a session: a new run, or resume one (seeds, limits, bootstrap count)
- :mod:`.loop`         plan the pending (sample, arm) pairs and run them concurrently, keeping the ledger
- :mod:`.execute`      one arm on one sample, isolated
- :mod:`.results`      one result file per (sample, arm)
- :mod:`.ledger`       costs, tokens and the budget check
- :mod:`.stops`        early stops (budget, errors, unreachable server), the end state and exit error
- :mod:`.status`       ``status.json``, ``sessions.jsonl``, the summary on stderr
- :mod:`.runner`       :func:`~adjudicator.bench.runner.run_bench`: session, loop, end state, reports
- :mod:`.gold`         the gold labels aligned per task
- :mod:`.predictions`  an arm's predictions aligned with them, each instance's parse mode
- :mod:`.scoring`      one module per task (winner, stage_scores, best_debater), then ``run.score_run``
- :mod:`.report`       build the report of a run folder; :mod:`.report_json`, :mod:`.report_md`,
  :mod:`.report_html` and :mod:`.plots` write it (:mod:`.report_cells`: how both write a value)
- :mod:`.compare`      two runs on the matches finished in both (``adjudicate compare``)

The statistics themselves (metrics, baselines, uncertainty, label reliability) are in
:mod:`adjudicator.evaluation`; the ``adjudicate bench`` commands in :mod:`adjudicator.cli.bench`.
"""
