"""What a researcher does with a finished run beyond its report:

- ``adjudicate annotate RUN SAMPLE --agree|--disagree [--comment TEXT]``: record a person's call on
  one verdict in ``RUN/human.json`` (:mod:`adjudicator.bench.human`); ``--import FILE`` merges the
  file the viewer's *Export human.json* button saved. The reports are rebuilt, so report.html's Human
  column and report.json's counts read it back.
- ``adjudicate index [RUNS_DIR]``: ``RUNS_DIR/index.html``, one page over every run there (:mod:`adjudicator.bench.run_index`).
- ``adjudicate export inspect RUN``: the run as an Inspect AI eval log (:mod:`adjudicator.bench.inspect_log`).
"""

from __future__ import annotations

from pathlib import Path

import click

from adjudicator.cli.options import echo_err


@click.command("annotate")
@click.argument("run")
@click.argument("sample", required=False)
@click.option("--agree", "call", flag_value="agree", help="you agree with the verdict of SAMPLE")
@click.option("--disagree", "call", flag_value="disagree", help="you disagree with the verdict of SAMPLE")
@click.option("--comment", default="", help="why (most useful on a disagreement); up to 4,000 characters")
@click.option("--arm", help="the arm whose verdict you judge (default: the run's first)")
@click.option("--annotator", default="", help="who you are, kept with the entry")
@click.option("--import", "import_file", type=click.Path(dir_okay=False, path_type=Path), help="merge a human.json exported from the viewer instead")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"), show_default=True, help="where run names are looked up")
def annotate_cmd(run: str, sample: str | None, call: str | None, comment: str, arm: str | None, annotator: str, import_file: Path | None, runs_dir: Path) -> None:
    """Record your own call (agree or disagree, and a comment) on a verdict of RUN (a folder or a run
    name) in RUN/human.json, then rebuild the run's reports, which show it beside the verdict."""
    from adjudicator.bench.compare import resolve_run
    from adjudicator.bench.human import Annotation, known_keys, merge, read_human, read_human_file, write_human
    from adjudicator.bench.layout import utc_now
    from adjudicator.bench.manifest import read_manifest
    from adjudicator.bench.report import run_samples
    from adjudicator.errors import InputError

    run_dir = resolve_run(run, runs_dir)
    known = known_keys(run_dir, [s.sample_id for s in run_samples(run_dir)])
    if import_file is not None:
        if sample is not None or call is not None:
            raise InputError("--import: give either a file to import or SAMPLE with --agree/--disagree, not both")
        new = read_human_file(import_file).annotations
        source = str(import_file)
    else:
        if sample is None or call is None:
            raise InputError("annotate: give SAMPLE and --agree or --disagree (or --import FILE)", "e.g. adjudicate annotate RUN m01 --disagree --comment '...'")
        at = utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")
        arm = arm or read_manifest(run_dir).arms[0]
        try:
            new = [Annotation(sample_id=sample, arm=arm, call=call, comment=comment, annotator=annotator, at=at)]  # type: ignore[arg-type]
        except ValueError:
            raise InputError("--comment: at most 4,000 characters") from None
        source = "annotate"
    path = write_human(run_dir, merge(read_human(run_dir), new, known, source))
    echo_err(f"{len(new)} annotation(s) written to {path}")
    from adjudicator.cli.bench import rebuild_run_reports

    rebuild_run_reports(run_dir, None, None)
    click.echo(str(path))


@click.command("index")
@click.argument("runs_dir", type=click.Path(file_okay=False, exists=True, path_type=Path), default=Path("runs"), required=False)
def index_cmd(runs_dir: Path) -> None:
    """Write RUNS_DIR/index.html (default runs/): every run folder there, newest first, with its arms,
    finished samples, winner accuracy and annotations, each linking its report.html."""
    from adjudicator.bench.run_index import run_folders, write_index

    path = write_index(runs_dir)
    echo_err(f"{len(run_folders(runs_dir))} runs listed")
    click.echo(str(path))


@click.group("export")
def export_group() -> None:
    """Write a run in another tool's format."""


@export_group.command("inspect")
@click.argument("run")
@click.option("--format", "fmt", type=click.Choice(["eval", "json"]), default="eval", show_default=True, help="Inspect's log format: eval (zip) or json")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), help="folder for the logs (default: RUN/inspect)")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"), show_default=True, help="where run names are looked up")
def export_inspect_cmd(run: str, fmt: str, out_dir: Path | None, runs_dir: Path) -> None:
    """Write RUN (a folder or a run name) as Inspect AI eval logs, one per arm, that `inspect view`
    opens: samples, every call's messages and output, model usage, scores, metadata. Needs the
    optional extra: pip install 'adjudicator[inspect]'."""
    from adjudicator.bench.compare import resolve_run
    from adjudicator.bench.inspect_log import export_inspect, require_inspect

    require_inspect()  # before reading the run: a missing extra is the first thing to say
    run_dir = resolve_run(run, runs_dir)
    for path in export_inspect(run_dir, fmt=fmt, out_dir=out_dir):
        click.echo(str(path))
