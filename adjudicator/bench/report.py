"""Build a run's report from its folder and write report.json, report.md and report.html.

:func:`build_report` reads the manifest, the dataset and every result file of the selected samples,
scores them (:func:`adjudicator.bench.scoring.run.score_run`), adds the ledger, the label-reliability
section and the per-sample rows (:mod:`adjudicator.bench.samples`), and returns the report dict (see
:mod:`adjudicator.bench.report_json` for its layout; the ``_``-prefixed keys stay out of report.json).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from adjudicator.bench.dataset import SYNTHETIC_WARNING, Sample, load_folder, provenance
from adjudicator.bench.human import human_summary, read_human
from adjudicator.bench.layout import DATASET, PROBES_JSON, REPORT_HTML, REPORT_MD, SAMPLES_CSV, SAMPLES_JSONL
from adjudicator.bench.ledger import Ledger
from adjudicator.bench.manifest import Manifest, read_manifest
from adjudicator.bench.report_json import REPORT_SCHEMA, write_report_json
from adjudicator.bench.results import SampleResult, read_result, result_path, superseded_dir
from adjudicator.bench.samples import csv_text, jsonl_text, sample_rows
from adjudicator.bench.scoring.leaves import ScoreSettings
from adjudicator.bench.scoring.run import score_run
from adjudicator.evaluation.reliability_report import reliability_from_matches
from adjudicator.files import atomic_write_text, read_json
from adjudicator.verdict.feedback import run_feedback_stats


def arm_label(arm: str, models: dict[str, str], panel: str = "scoring") -> str:
    """Display name of an arm: ``"agentic · offline"`` when every role uses one model, else every
    role's model as :func:`~adjudicator.bench.report_cells.models_text` writes it, e.g.
    ``"agentic · tracker openai/t; judges openai/a x3"``; the agentic arm of a pairwise panel is
    ``"agentic (pairwise) · ..."``."""
    from adjudicator.bench.report_cells import models_text

    if arm == "agentic" and panel == "pairwise":
        arm = "agentic (pairwise)"
    distinct = list(dict.fromkeys(m for m in models.values() if m))
    if len(distinct) == 1:
        return f"{arm} · {distinct[0]}"
    return f"{arm} · {models_text(models)}"


def uses_offline_judge(models: dict[str, str] | None) -> bool:
    """True when some role of an arm (role -> model, as in the manifest) is the offline judge."""
    from adjudicator.config import is_offline

    return any(is_offline(m) for m in (models or {}).values())


#: The PanelBench debates the offline judge's features were designed on (their texts, never their labels).
DEVELOPMENT_FILE = Path(__file__).resolve().parents[1] / "data" / "panelbench_development.txt"


def development_ids() -> frozenset[str]:
    """The match ids of :data:`DEVELOPMENT_FILE` (one per line; ``#`` starts a comment)."""
    lines = DEVELOPMENT_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(x.strip() for x in lines if x.strip() and not x.startswith("#"))


def _offline_caveat(offline: list[str], match_ids: Sequence[str] | None) -> str:
    """The offline judge's held-out sentence: decided by whether the run's matches are among the
    debates it was developed on (:func:`development_ids`); without the ids, as if they all were."""
    who = f"Arm {', '.join(offline)} uses the offline judge"
    dev = development_ids()
    total = 0 if match_ids is None else len(match_ids)
    seen = total if match_ids is None else sum(1 for m in match_ids if m in dev)
    if seen == total:
        return f"{who}, whose features were designed while reading these PanelBench debates' texts (not their labels), so its accuracy here is not a held-out estimate"
    if seen == 0:
        return f"{who}; none of these {total} matches is among the PanelBench debates its features were designed on, so its accuracy here is a held-out estimate"
    rest = total - seen
    return (
        f"{who}; {seen} of these {total} matches {'is' if seen == 1 else 'are'} among the PanelBench debates its features were designed on (their texts, not their labels), "
        f"so its accuracy here is not a held-out estimate; the other {rest} {'is' if rest == 1 else 'are'} held out"
    )


def research_caveats(arms: Sequence[str], models: dict[str, dict[str, str]], prov: dict[str, Any], match_ids: Sequence[str] | None = None) -> list[str]:
    """Validity caveats of a run's numbers, one sentence each, for report.json/md/html.

    On a PanelBench dataset (``prov["panelbench"]``, from :func:`adjudicator.bench.dataset.provenance`):
    (1) for every arm with an offline-judge role: whether its accuracy is a held-out estimate, decided
    by whether ``match_ids`` are among the debates its features were designed on
    (:data:`DEVELOPMENT_FILE`; all of them are assumed when ``match_ids`` is None); (2) the result
    rests on the label convention: under the other reading of the upstream labels every decisive gold
    winner swaps sides, so every winner accuracy becomes 1 - accuracy on the decisive matches (ties
    stay ties; see :data:`adjudicator.input.convert.debateart.LABEL_CONVENTIONS`). Empty for other datasets."""
    if not prov.get("panelbench"):
        return []
    from adjudicator.input.convert.debateart import LABEL_CONVENTIONS

    out = []
    offline = [a for a in arms if uses_offline_judge(models.get(a))]
    if offline:
        out.append(_offline_caveat(offline, match_ids))
    if not prov.get("label_conventions"):  # PanelBench BP only: no winner labels to read
        return out
    used = [c for c in (prov.get("label_conventions") or {}) if c in LABEL_CONVENTIONS]
    others = [c for c in LABEL_CONVENTIONS if c not in used]
    if len(used) == 1 and others:
        which = f"under the other convention ('{others[0]}') "
        now = f" (here '{used[0]}')"
    else:
        which, now = "under the other convention ", ""
    out.append(
        f"Every Task 1 number depends on the PanelBench label convention{now}: {which}every decisive gold winner swaps sides, "
        "so every winner accuracy becomes 1 − accuracy on the decisive matches (and the constant-side baselines swap)"
    )
    return out


def data_warning(prov: dict[str, Any]) -> str:
    """The banner for a dataset with synthetic labels (``prov`` from :func:`adjudicator.bench.dataset.provenance`):
    :data:`~adjudicator.bench.dataset.SYNTHETIC_WARNING`, with the count when only some matches are synthetic."""
    if prov["n_synthetic"] == prov["n_matches"]:
        return SYNTHETIC_WARNING
    return f"{SYNTHETIC_WARNING} ({prov['n_synthetic']} of {prov['n_matches']} matches are synthetic)"


def run_samples(run_dir: Path, limit: int | None = None) -> list[Sample]:
    """The samples of a run's dataset (its ``dataset/`` copy for converted PanelBench, else the folder
    recorded in the manifest), those of its fold only when it has one (``--fold``), the first
    ``limit`` of them only when given."""
    from adjudicator.bench.splits import selected_samples

    manifest = read_manifest(run_dir)
    folder = run_dir / DATASET if (run_dir / DATASET).is_dir() else Path(manifest.dataset["folder"])
    ds = load_folder(folder, kind=manifest.dataset.get("kind", "match-folder"))
    return selected_samples(ds.samples, manifest.fold, limit)


def load_results(run_dir: Path, arms: Sequence[str], samples: Sequence[Sample]) -> dict[str, dict[str, SampleResult]]:
    """arm -> match id -> result for every sample that has a result file."""
    out: dict[str, dict[str, SampleResult]] = {}
    for arm in arms:
        got: dict[str, SampleResult] = {}
        for s in samples:
            r = read_result(result_path(run_dir, arm, s.stem))
            if r is not None:
                got[s.sample_id] = r
        out[arm] = got
    return out


def report_ledger(run_dir: Path, arms: Sequence[str], results: dict[str, dict[str, SampleResult]], sample_ids: set[str] | None = None) -> Ledger:
    """The ledger of the selected samples: their results, the superseded results of those samples
    (their spend stays counted), and the logged requests of selected samples that wrote no result
    in the session that sent them (killed in flight; :mod:`adjudicator.bench.requests`).
    ``sample_ids`` is the selection (None: the samples with results)."""
    from adjudicator.bench.requests import unfinished_spend

    ledger = Ledger()
    finished: set[tuple[str, str, int]] = set()
    selected: set[str] = set(sample_ids or ())
    for arm in arms:
        if sample_ids is None:
            selected |= set(results[arm])
        for r in results[arm].values():
            ledger.add(r)
            finished.add((r.arm, r.sample_id, r.session))
        sdir = superseded_dir(run_dir, arm)
        for f in sorted(sdir.glob("*.json")) if sdir.is_dir() else []:
            old = read_result(f)
            if old is not None:
                finished.add((old.arm, old.sample_id, old.session))
                if old.sample_id in results[arm]:
                    ledger.add(old, superseded=True)
    ledger.add_unfinished(unfinished_spend(run_dir, finished, selected))
    return ledger


def _selection(manifest: Any) -> dict[str, Any]:
    """The run section's ``fold`` (``--fold``: fold, folds, seed, splits file, test/train counts and
    the line the reports print) and ``parent`` (``--rejudge``: the re-judged run and its tracker)
    keys, each only when the run has one (so an ordinary run's report.json is unchanged)."""
    from adjudicator.bench.splits import fold_text

    out: dict[str, Any] = {}
    if manifest.fold:
        f = manifest.fold
        out["fold"] = {
            "fold": f["fold"], "folds": f["folds"], "seed": f.get("seed"), "splits_file": f.get("splits_file"),
            "n_test": len(f["test"]), "n_train": len(f["train"]), "text": fold_text(f),
        }
    if manifest.parent:
        p = manifest.parent
        out["parent"] = {
            **p,
            "text": f"Re-judged from run {p['run_id']}: its tracker outputs ({p['tracker']}) are reused for every sample, no tracker request was sent; "
            "only the panel ran, under this run's judges",
        }
    return out


def _verdict_of(results: dict[str, SampleResult], sample_id: str) -> dict[str, Any] | None:
    """A sample's verdict JSON in one arm's results, None when it has none."""
    res = results.get(sample_id)
    return res.verdict if res is not None else None


def _status_counts(results: dict[str, SampleResult], n_samples: int) -> dict[str, int]:
    """``{"ok", "partial", "failed", "not_run"}`` of one arm over ``n_samples`` selected samples."""
    st = [r.status for r in results.values()]
    return {"ok": st.count("ok"), "partial": st.count("partial"), "failed": st.count("failed"), "not_run": n_samples - len(st)}


def read_bias_card(run_dir: Path, *, samples: bool = False) -> dict[str, Any] | None:
    """The bias card of ``bench --probe`` (``probes.json``, an :class:`~adjudicator.probes.card.BiasCard`
    as JSON), without its per-match samples unless ``samples``; None when the run ran no probe."""
    path = run_dir / PROBES_JSON
    if not path.is_file():
        return None
    card = dict(read_json(path))
    if not samples:
        card.pop("samples", None)
    return card


def _fold_fit(run_dir: Path, manifest: Any, matches: Sequence[Any], scores: dict[str, Any], settings: ScoreSettings) -> dict[str, Any]:
    """``{"fold_fit": ..., "_fold_fit_md": [lines], "_fold_fit_html": str}`` for a ``--fold`` run
    (:mod:`adjudicator.finetune.fold_fit`: the calibration of p and the baselines fitted on the other
    folds, applied to this fold; its words from :mod:`adjudicator.finetune.render`), else {}."""
    if not manifest.fold:
        return {}
    from adjudicator.finetune.fold_fit import fold_fit_section, fold_samples
    from adjudicator.finetune.render import fold_fit_html, fold_fit_markdown

    calib = fold_samples(run_dir, manifest)[1]
    results = load_results(run_dir, list(manifest.arms), calib)
    ledger = report_ledger(run_dir, list(manifest.arms), results, {s.sample_id for s in calib}).as_dict()
    two_sided = [m for m in matches if m.spec().verdict != "ranking"]
    section = fold_fit_section(run_dir, manifest, two_sided, scores["_predictions"], scores["_gold"], settings, results, ledger)
    return {"fold_fit": section, "_fold_fit_md": fold_fit_markdown(section), "_fold_fit_html": fold_fit_html(section)}


def build_report(run_dir: Path, *, samples: Sequence[Sample] | None = None, n_bootstrap: int | None = None, seed: int | None = None, status: dict[str, Any] | None = None) -> dict[str, Any]:
    """Score the run in ``run_dir`` over ``samples`` (default: the first samples of its dataset up
    to the manifest's limit). ``seed`` and ``n_bootstrap`` default to the manifest's. Returns the
    report dict."""
    manifest = read_manifest(run_dir)
    if samples is None:
        samples = run_samples(run_dir, manifest.limit)
    seed = manifest.seeds.get("baselines", 0) if seed is None else seed
    n_bootstrap = int(manifest.options.get("n_bootstrap", 2000)) if n_bootstrap is None else n_bootstrap
    arms = list(manifest.arms)
    results = load_results(run_dir, arms, samples)
    labels = {a: arm_label(a, manifest.models.get(a, {}), str(manifest.config.get("panel") or "scoring")) for a in arms}
    matches = [s.match for s in samples]
    prov = provenance(matches)
    warnings = [data_warning(prov)] if prov["synthetic"] else []
    caveats = research_caveats(arms, manifest.models, prov, [m.match_id for m in matches])
    reliability = reliability_from_matches(matches)
    card = read_bias_card(run_dir, samples=True)
    flips = {s["match_id"] for s in (card or {}).get("samples") or [] if s.get("flipped")} if card else None
    settings = ScoreSettings(n_bootstrap=n_bootstrap, seed=seed)
    scores = score_run(matches, results, labels, settings, reliability, synthetic_labels=prov["synthetic"], probe_flips=flips)

    ledger = report_ledger(run_dir, arms, results, {s.sample_id for s in samples})
    stems = {s.sample_id: s.stem for s in samples}
    files = {arm: {sid: result_path(run_dir, arm, stem).relative_to(run_dir).as_posix() for sid, stem in stems.items()} for arm in arms}
    for f in scores["failures"]:
        f["result_file"] = files[f["arm"]][f["sample_id"]]
    per_arm = {arm: _status_counts(results[arm], len(samples)) for arm in arms}
    rows = sample_rows(matches, scores["_gold"], scores["_predictions"], results, files)
    human = read_human(run_dir)  # a person's calls on the verdicts (human.json), when given
    return {
        "schema_version": REPORT_SCHEMA,
        "warnings": warnings,
        "caveats": caveats,
        "run": _run_section(manifest, status, prov, labels, seed, n_bootstrap),
        "samples": {"selected": len(samples), "per_arm": per_arm},
        "ledger": ledger.as_dict(),
        "parsing": scores["parsing"],
        "failures": scores["failures"],
        "tasks": scores["tasks"],
        "calibration": scores["calibration"],
        "paired": scores["paired"],
        "arm_vs_baseline": scores["arm_vs_baseline"],
        "alt_test": scores["alt_test"],
        "reliability": reliability,
        "selective": scores["selective"],
        **_fold_fit(run_dir, manifest, matches, scores, settings),
        "feedback": {arm: {"label": labels[arm], **run_feedback_stats([(s.match, _verdict_of(results[arm], s.sample_id)) for s in samples])} for arm in arms},
        **({"bias_card": {k: v for k, v in card.items() if k != "samples"}} if card else {}),
        **({"human": human_summary(human, rows)} if human else {}),
        "_predictions": scores["_predictions"],
        "_gold": scores["_gold"],
        "_samples": rows,
        "_human": human,
        "_run_dir": run_dir,
        "_matches": matches,
        "_results": results,
    }



def _run_section(manifest: Manifest, status: dict[str, Any] | None, prov: dict[str, Any], labels: dict[str, str], seed: int, n_bootstrap: int) -> dict[str, Any]:
    """The ``run`` section of report.json: the manifest's identity, dataset (with its provenance
    ``prov``), arms with their ``labels``, models, seeds, packages and sample selection, and the run's
    state from ``status`` (status.json; None leaves state, reason and message null)."""
    arms = list(manifest.arms)
    return {
        "run_id": manifest.run_id,
        "name": manifest.name,
        "created_at": manifest.created_at,
        "state": (status or {}).get("state"),
        "reason": (status or {}).get("reason"),
        "message": (status or {}).get("message"),
        "dataset": {**{k: v for k, v in manifest.dataset.items() if k != "files"}, "provenance": prov},
        "arms": arms,
        "labels": labels,
        "models": manifest.models,
        "is_llm": manifest.is_llm,
        "seeds": {"baselines": seed, "bootstrap": seed},
        "n_bootstrap": n_bootstrap,
        "git": manifest.git,
        "packages": manifest.packages,
        **_selection(manifest),
    }


def write_reports(run_dir: Path, *, samples: Sequence[Sample] | None = None, n_bootstrap: int | None = None, seed: int | None = None, status: dict[str, Any] | None = None) -> dict[str, Path]:
    """Build the report and write report.json, samples.jsonl, samples.csv, report.md and report.html;
    returns their paths (keys ``json``, ``samples_jsonl``, ``samples_csv``, ``md``, ``html``)."""
    from adjudicator.bench.plots import PlotCache
    from adjudicator.bench.report_html import render_html
    from adjudicator.bench.report_md import render_markdown
    from adjudicator.environment import default_plot_cache_dir

    report = build_report(run_dir, samples=samples, n_bootstrap=n_bootstrap, seed=seed, status=status)
    paths = {"json": write_report_json(run_dir, report)}
    for key, name, text in (("samples_jsonl", SAMPLES_JSONL, jsonl_text), ("samples_csv", SAMPLES_CSV, csv_text)):
        paths[key] = run_dir / name
        atomic_write_text(paths[key], text(report["_samples"]))
    md = run_dir / REPORT_MD
    atomic_write_text(md, render_markdown(report))
    paths["md"] = md
    html = run_dir / REPORT_HTML
    atomic_write_text(html, render_html(report, plot_cache=PlotCache(default_plot_cache_dir())))
    paths["html"] = html
    return paths
