"""Benchmark commands (added to the main ``adjudicate`` group by :mod:`adjudicator.cli`):

- ``adjudicate bench DATASET [--arm A ...] [model options] --name NAME``: run or resume a benchmark;
  stdout gets the run folder (one line), stderr the progress bar and a summary.
- ``adjudicate splits DATASET [--out FILE]``: the recommended three folds grouped by motion.
- ``adjudicate compare RUN_A RUN_B``: paired comparison of two runs on their common subset.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from adjudicator.cli.options import FiniteFloat, echo_err, model_config_from_options, model_options
from adjudicator.errors import InputError

#: The arms ``--arm`` offers: :data:`adjudicator.api.ARMS`, spelled out so that building the command
#: tree does not import the library (tests/test_startup.py checks the two agree).
ARMS = ("agentic", "single-call")


def _default_name(dataset: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]", "_", Path(dataset).resolve().name).strip("._-") or "bench"
    return name[:64]


def command_line(ctx: click.Context) -> list[str]:
    """The invocation as an argument list rebuilt from the parsed parameters (arguments first, then
    every option whose value differs from its default), e.g. ``["adjudicate", "bench", "data",
    "--name", "pb"]``. Used for the manifest; credentials are never options, so none can appear."""
    out = ctx.command_path.split()
    opts: list[str] = []
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if isinstance(param, click.Argument):
            if value is not None:
                out.append(str(value))
            continue
        is_flag = isinstance(param, click.Option) and param.is_flag
        if value is None or value == param.default or value == () or (is_flag and not value):
            continue
        flag = max(param.opts, key=len)
        if is_flag:
            opts.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                opts += [flag, str(v)]
        else:
            opts += [flag, str(value)]
    return out + opts


#: Model options that shape answers -> the configuration field they set.
_MODEL_OPTION_FIELDS = {
    "model": "model", "api_base": "api_base", "tracker_model": "tracker_model", "judge_models": "judge_models", "json_mode": "json_mode",
    "panel": "panel", "rubric": "rubric", "evidence": "evidence", "p_source": "p_source",
    "judge_evidence": "judge_evidence", "track_window_chars": "track_window_chars", "feedback": "feedback",
}  # fmt: skip


def explicit_model_fields(opts: dict) -> frozenset[str] | None:
    """The answer-shaping configuration fields given as command-line options (``--model``,
    ``--api-base``, ``--tracker-model``, ``--judge-model``, ``--json-mode``, ``--panel``, ``--rubric``,
    ``--evidence``, ``--p-source``, ``--judge-evidence``, ``--track-window-chars``, ``--feedback``); None when ``--config``
    was given, whose file then counts as a complete explicit configuration. A resumed run takes the
    other fields from its manifest (see :func:`adjudicator.bench.manifest.adopt_manifest_config`)."""
    if opts.get("config_file") is not None:
        return None
    return frozenset(f for opt, f in _MODEL_OPTION_FIELDS.items() if opts.get(opt) not in (None, (), []))


@click.command("bench")
@click.argument("dataset", type=click.Path(path_type=Path), required=False)
@click.option("--arm", "arms", multiple=True, type=click.Choice(list(ARMS)), help="arm to run, repeatable (default: agentic; a resumed run keeps its arms)")
@click.option("--name", help="run name; the folder is runs/<UTC timestamp>_<name> (default: the dataset folder's name)")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"), show_default=True, help="where run folders go")
@click.option("--concurrency", type=int, default=4, show_default=True, help="samples run at the same time (threads)")
@click.option("--limit", type=int, help="only the first N samples (by file name); a resumed run keeps its limit, and may only grow it (recorded in manifest.json)")
@click.option("--budget-usd", type=FiniteFloat(), help="stop starting samples once the run's known spend reaches this many US dollars")
@click.option("--max-errors", type=int, help="stop after this many failed or partial samples")
@click.option("--resume", is_flag=True, help="continue the latest run of --name with its manifest's model settings (a model option given with another value is refused); finished samples are never rerun or re-billed")
@click.option("--retry-errors", is_flag=True, help="continue the latest run of --name, rerunning only its failed and partial samples")
@click.option("--seed", type=int, help="seed of the random baselines and the bootstrap  [default: 0; a resumed run keeps its seed and refuses another]")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(min=0), help="bootstrap resamples per confidence interval, 0 for none  [default: 2000; a resumed run keeps its count unless given]")
@click.option("--no-progress", is_flag=True, help="no progress bar")
@click.option("--no-result-cache", is_flag=True,
              help="run every sample even when its stored result could be reused (its answers still come from the response cache; --no-cache bypasses both)")
@click.option("--report-only", is_flag=True, help="only rebuild the reports of the latest run of --name")
@click.option("--label-convention", type=click.Choice(["content", "documented"]), help="upstream PanelBench only: how its labels map to winners (see `adjudicate convert panelbench --help`)")
@click.option("--fold", type=int, metavar="K",
              help="run only fold K (0-based) of the folds `adjudicate splits DATASET` recommends (or of --splits); the manifest lists the fold's files (test) and the other folds' (train), the report names the fold")
@click.option("--splits", "splits_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="the folds file written by `adjudicate splits DATASET --out FILE` that --fold picks from (default: computed as `adjudicate splits` does, 3 folds, seed 0)")
@click.option("--calibrate-on", type=click.Choice(["train", "validation", "none"]),
              help="with --fold: which training matches are also run (never scored) to fit the calibration of p on the other folds only: train (every one; the default), "
                   "validation (the validation part of `adjudicate finetune export`'s splits.json, the default with one: a fine-tuned model never trained on it) or none")
@click.option("--rejudge", metavar="RUN",
              help="re-judge the frozen run RUN (a run folder, or a run name under --runs-dir): reuse its tracker outputs, sending no tracker request, and run only the panel "
                   "with this invocation's --model / --judge-model; DATASET, fold and limit are the run's own; the new manifest names RUN as its parent")
@click.option("--probe", "probes", multiple=True, type=click.Choice(["mask", "swap", "order", "length", "pressure", "repeats"]), help="bias probe to run after the samples, repeatable; its bias card goes into the reports (see `adjudicate probe --help`)")
@click.option("--probe-repeats", type=click.IntRange(min=2), default=5, show_default=True, help="runs per match for the repeats probe")
@click.option("--probe-temperature", type=FiniteFloat(min=0.0, max=2.0), default=0.7, show_default=True, help="sampling temperature of the repeats probe")
@model_options
def bench_cmd(dataset: Path, arms: tuple[str, ...], name: str | None, runs_dir: Path, concurrency: int, limit: int | None, budget_usd: float | None,
              max_errors: int | None, resume: bool, retry_errors: bool, seed: int | None, n_bootstrap: int | None, no_progress: bool, no_result_cache: bool, report_only: bool,
              label_convention: str | None, fold: int | None, splits_file: Path | None, calibrate_on: str | None, rejudge: str | None,
              probes: tuple[str, ...], probe_repeats: int, probe_temperature: float, **opts) -> None:
    """Run a labelled DATASET (a folder of match files, or the PanelBench folder) through the arms
    and write runs/{UTC timestamp}_{name}/ with the manifest, one result per sample and arm, and
    report.json, report.md and report.html. With no --arm: the agentic arm on the default model
    (the offline judge when none is configured) plus the baselines.

    Exit code 1 (the run stays resumable) when the run stops early (budget, --max-errors, or 3
    samples in a row that failed without the model answering: an unreachable server) or when an
    arm produced no verdict for any sample of this session.

    With --report-only --name RUN (no DATASET needed): rebuild the reports of the latest run named RUN.

    With --rejudge RUN (no DATASET needed): a new run over RUN's samples whose tracker outputs are
    read from RUN's result files and whose judges are this invocation's, e.g.
    `adjudicate bench --rejudge pb --judge-model openai/gpt-4o --name pb-gpt4o`."""
    if report_only and dataset is None and name is None:
        raise InputError("--name: missing with --report-only", "give --name RUN, the run whose reports to rebuild (DATASET is not needed)")
    if dataset is None and rejudge is None and not report_only:
        raise InputError("DATASET: missing", "give a folder of match files (or the PanelBench folder), or --rejudge RUN to re-judge a run")
    from adjudicator.bench.layout import check_run_name
    from adjudicator.bench.runner import run_bench
    from adjudicator.bench.session import BenchOptions

    run_name = check_run_name(name or (_default_name(dataset) if dataset is not None else f"{Path(rejudge or 'run').name}-rejudge"[-64:]))
    if report_only:
        click.echo(str(_rebuild_reports(runs_dir, run_name, seed, n_bootstrap)))
        return
    config = model_config_from_options(opts)
    options = BenchOptions(
        dataset=dataset, name=run_name, config=config, runs_dir=runs_dir, arms=list(arms) or None, concurrency=concurrency, limit=limit,
        budget_usd=budget_usd, max_errors=max_errors, resume=resume, retry_errors=retry_errors, seed=seed, n_bootstrap=n_bootstrap,
        progress=not no_progress, command=command_line(click.get_current_context()), label_convention=label_convention,
        explicit_model_fields=explicit_model_fields(opts), fold=fold, splits_file=splits_file, calibrate_on=calibrate_on, rejudge=rejudge,
        probes=probes, probe_repeats=probe_repeats, probe_temperature=probe_temperature, result_cache=not no_result_cache,
    )
    outcome = run_bench(options)  # prints the per-arm summary and the report paths on stderr
    click.echo(str(outcome.run_dir))


def _rebuild_reports(runs_dir: Path, run_name: str, seed: int | None, n_bootstrap: int | None) -> Path:
    """``--report-only``: rewrite the reports of the latest run named ``run_name`` (with the run's own
    seed; ``n_bootstrap`` defaults to the run's), list them on stderr, and return the run folder.
    Raises InputError when there is no such run or ``seed`` differs from the run's."""
    from adjudicator.bench.layout import latest_run_dir
    from adjudicator.errors import InputError

    run_dir = latest_run_dir(runs_dir, run_name)
    if run_dir is None:
        raise InputError(f"--report-only: no run named {run_name!r} under {runs_dir}")
    return rebuild_run_reports(run_dir, seed, n_bootstrap)


def rebuild_run_reports(run_dir: Path, seed: int | None, n_bootstrap: int | None) -> Path:
    """Rewrite the reports of ``run_dir`` under its lock (see :func:`_rebuild_reports`); returns it."""
    from adjudicator.bench.manifest import read_manifest
    from adjudicator.bench.report import write_reports
    from adjudicator.bench.session import DEFAULT_BOOTSTRAP, check_seed, lock_run
    from adjudicator.bench.status import read_status, record_dead_session, write_status

    with lock_run(run_dir):  # not while a session runs; a session that died is recorded first
        record_dead_session(run_dir)
        manifest = read_manifest(run_dir)
        seed = check_seed(manifest, seed, run_dir)  # the reports always use the run's own seed
        if n_bootstrap is None:
            n_bootstrap = int(manifest.options.get("n_bootstrap", DEFAULT_BOOTSTRAP))
        status = read_status(run_dir)
        paths = write_reports(run_dir, n_bootstrap=n_bootstrap, seed=seed, status=status)
        if status and status.get("reports") == "missing":  # the reports the status said were missing now exist
            write_status(run_dir, **{**{k: v for k, v in status.items() if k != "updated_at"}, "reports": "written"})
    echo_err("reports: " + ", ".join(str(p) for p in paths.values()))
    return run_dir


@click.command("splits")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write the folds JSON here instead of stdout")
@click.option("--folds", type=int, default=3, show_default=True, help="number of folds (each motion goes to one fold)")
@click.option("--seed", type=int, default=0, show_default=True, help="breaks ties between motions of equal size")
def splits_cmd(dataset: Path, out: Path | None, folds: int, seed: int) -> None:
    """Write the recommended folds of DATASET: grouped by motion, balanced by format, with a
    team-overlap check (CCDB Appendix A.5). Every match of DATASET gets a fold, whatever its
    format: the same folds `finetune export` and `bench --fold` make with the same --folds and
    --seed, recorded with the digest of the assignment (assignment_sha256)."""
    import tempfile

    from adjudicator.bench.dataset import is_upstream_panelbench, load_dataset
    from adjudicator.bench.splits import make_splits, with_dataset
    from adjudicator.files import atomic_write_text, dumps

    with tempfile.TemporaryDirectory(prefix="adjudicate-splits-") as tmp:
        ds = load_dataset(dataset, convert_into=Path(tmp) if dataset.is_dir() and is_upstream_panelbench(dataset) else None)
    result = with_dataset(make_splits([s.match for s in ds.samples], folds=folds, seed=seed), str(dataset), ds.sha256)
    text = dumps(result)
    if out:
        atomic_write_text(out, text)
        echo_err(f"folds written to {out}")
    else:
        click.echo(text, nl=False)
    sizes = ", ".join(f"fold {f['fold']}: {f['n_matches']} matches / {f['motions']} motions {f['formats']}" for f in result["folds"])
    ov = result["team_overlap"]
    echo_err(f"{sizes}; {ov['n_overlapping']} of {ov['n_teams']} teams appear in more than one fold; assignment sha256 {result['assignment_sha256'][:12]}")


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--arm-a", help="arm of RUN_A (default: its first)")
@click.option("--arm-b", help="arm of RUN_B (default: its first)")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"), show_default=True, help="where run names are looked up")
@click.option("--json", "as_json", is_flag=True, help="print JSON instead of a table")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the paired bootstrap's resampling")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(min=0), default=2000, show_default=True,
              help="bootstrap resamples per paired test, 0 for none (then only exact McNemar is reported)")
@click.option("--p-moved", type=click.FloatRange(0.0, 1.0), default=0.1, show_default=True,
              help="list a sample as differing when its winner tendency moved by more than this (absolute, on [0, 1])")
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path),
              help="where to write the side-by-side HTML diff (default: compare_<A>_vs_<B>.html in the folder holding RUN_A)")
def compare_cmd(run_a: str, run_b: str, arm_a: str | None, arm_b: str | None, runs_dir: Path, as_json: bool, seed: int, n_bootstrap: int,
                p_moved: float, html_out: Path | None) -> None:  # fmt: skip
    """Paired comparison of RUN_A and RUN_B (folders or run names) on the matches finished in both,
    within those on the instances both parsed: exact McNemar for winner accuracy, paired
    bootstrap for the other metrics. Names the settings that differ between the runs, lists the
    samples that differ (correct in one only, p moved, status) and writes them side by side, with
    their calls, as an HTML page. Warns when both name the same run."""
    from adjudicator.bench.compare import compare_runs, format_comparison, resolve_run
    from adjudicator.bench.compare_samples import diff_page
    from adjudicator.bench.scoring.leaves import ScoreSettings
    from adjudicator.files import atomic_write_text

    a = resolve_run(run_a, runs_dir)
    b = resolve_run(run_b, runs_dir)
    result = compare_runs(a, b, arm_a=arm_a, arm_b=arm_b, settings=ScoreSettings(n_bootstrap=n_bootstrap, seed=seed), p_moved=p_moved)
    html_out = html_out or a.parent / f"compare_{a.name}_vs_{b.name}.html"
    atomic_write_text(html_out, diff_page(result, result["_matches"], result["_results_a"], result["_results_b"], result["_rows_a"], result["_rows_b"]))
    result = {k: v for k, v in result.items() if not k.startswith("_")}
    result["diff_html"] = str(html_out)
    if as_json:
        for w in result["warnings"]:
            echo_err(f"warning: {w}")
        click.echo(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        click.echo(format_comparison(result), nl=False)
