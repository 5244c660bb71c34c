"""The fine-tuning protocol's commands (the ``finetune`` group, added to ``adjudicate`` by
:mod:`adjudicator.cli`; protocol 001 s.03):

- ``adjudicate finetune export DATASET --out DIR``: per fold and task, train / validation / test
  chat files for fine-tuning, the folds and a manifest with every check
  (:mod:`adjudicator.finetune.export`); stdout gets the manifest's path.
- ``adjudicate finetune report RUNS...``: the ``bench --fold K`` runs of every fold pooled
  (:mod:`adjudicator.finetune.pooled`); stdout gets the Markdown, or JSON with ``--json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from adjudicator.cli.options import echo_err


@click.group("finetune")
def finetune_group() -> None:
    """The CCDB fine-tuning protocol: training files per fold, and the folds' runs pooled.

    \b
    adjudicate finetune export DATASET --out DIR
    adjudicate bench DATASET --fold K --splits DIR/splits.json --arm single-call --model M --api-base URL
    adjudicate finetune report RUN_FOLD0 RUN_FOLD1 RUN_FOLD2 --export DIR
    """


@finetune_group.command("export")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="a new (or empty) folder for the files and manifest.json")
@click.option("--splits", "splits_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="the folds file of `adjudicate splits DATASET --out FILE` (default: computed as `adjudicate splits` does)")
@click.option("--folds", type=int, default=3, show_default=True, help="number of folds when no --splits is given")
@click.option("--seed", type=int, default=0, show_default=True, help="breaks ties between motions of equal size (folds and validation parts)")
@click.option("--validation-share", type=float, default=0.2, show_default=True, help="share of each fold's training portion held out as its validation part, by motion (0: none)")
@click.option("--rationales", type=click.Choice(["filter", "verbatim", "omit"]), default="filter", show_default=True,
              help="what a match's labels.rationales become: filter removes every gold number and writes the rest; verbatim refuses any rationale with a gold number; omit writes an empty basis")
@click.option("--label-convention", type=click.Choice(["content", "documented"]), help="upstream PanelBench only: how its labels map to winners (see `adjudicate convert panelbench --help`)")
def export_cmd(dataset: Path, out: Path, splits_file: Path | None, folds: int, seed: int, validation_share: float, rationales: str, label_convention: str | None) -> None:
    """Write DATASET's fine-tuning files into OUT: for every fold and task (task1, task2,
    task2_difference, task3, joint) train/validation/test JSONL in the OpenAI chat fine-tuning
    format, built from the single-call arm's own prompts, with the gold answers as targets; and
    OUT/splits.json for `bench --fold K --splits`. Every check (folds, fold boundaries, label-free
    inputs, gold-free rationales) runs before anything is written; a failed one writes nothing."""
    import tempfile

    from adjudicator.bench.dataset import is_upstream_panelbench, load_dataset
    from adjudicator.finetune.export import build_export, write_export

    with tempfile.TemporaryDirectory(prefix="adjudicate-finetune-") as tmp:
        upstream = dataset.is_dir() and is_upstream_panelbench(dataset)
        ds = load_dataset(dataset, convert_into=Path(tmp) if upstream else None, label_convention=label_convention)
        built = build_export(ds, splits_file=splits_file, n_folds=folds, seed=seed, validation_share=validation_share, rationales=rationales)  # type: ignore[arg-type]
    from adjudicator.cli.bench import command_line

    built["manifest"]["command"] = command_line(click.get_current_context())
    path = write_export(built, out)
    m = built["manifest"]
    counts = ", ".join(f"{k} {v}" for k, v in m["examples"].items())
    echo_err(f"{len(m['files'])} files over {len(m['folds'])} folds ({counts} examples); checks: " + ", ".join(f"{c['check']} {'ok' if c['passed'] else 'WARNING'}" for c in m["checks"]))
    for s, why in m["not_applicable"].items():
        echo_err(f"{s}: no files ({why})")
    if m["left_out"]["n"]:
        by = ", ".join(f"{n} {f}" for f, n in m["left_out"]["by_format"].items())
        echo_err(f"left out of the files: {m['left_out']['n']} matches ({by}): {m['left_out']['why']}")
    echo_err(f"folds: every one of the dataset's {sum(len(f['test']) for f in m['folds'])} matches has one; assignment sha256 {m['splits']['assignment_sha256'][:12]} (OUT/splits.json)")
    click.echo(str(path))


@finetune_group.command("report")
@click.argument("runs", nargs=-1, required=True)
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"), show_default=True, help="where run names are looked up")
@click.option("--json", "as_json", is_flag=True, help="print JSON instead of Markdown")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the bootstrap intervals and the random baselines")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(min=0), default=2000, show_default=True, help="bootstrap resamples per interval, 0 for none")
@click.option("--export", "export_dir", type=click.Path(file_okay=False, path_type=Path),
              help="the finetune export the runs' models were trained on: refuse a run whose fold assignment (assignment_sha256) is not the export's")
def report_cmd(runs: tuple[str, ...], runs_dir: Path, as_json: bool, seed: int, n_bootstrap: int, export_dir: Path | None) -> None:
    """Pool the `bench --fold K` runs RUNS (folders or run names), one per fold, into the
    cross-validated result: every task table, the parse statistics, raw and calibrated p and the
    baselines fitted on each fold's training portion."""
    from adjudicator.bench.compare import resolve_run
    from adjudicator.bench.scoring.leaves import ScoreSettings
    from adjudicator.finetune.pooled import pool_runs
    from adjudicator.finetune.render import pooled_markdown

    run_dirs = [resolve_run(r, runs_dir) for r in runs]
    if export_dir is not None:
        from adjudicator.finetune.folds import check_runs_against_export

        digest = check_runs_against_export(export_dir, run_dirs)
        echo_err(f"every run is a fold of the export's assignment (sha256 {digest[:12]})")
    pooled = pool_runs(run_dirs, ScoreSettings(n_bootstrap=n_bootstrap, seed=seed))
    if as_json:
        click.echo(json.dumps(pooled, ensure_ascii=False, indent=2, default=str))
    else:
        click.echo(pooled_markdown(pooled), nl=False)
