"""The commands that read one input: ``run`` (adjudicate a match file; the default command),
``schema`` (the JSON Schemas of the formats) and ``convert`` (upstream datasets into match files)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from adjudicator.cli.options import echo_err, model_config_from_options, model_options, models_text, usage_summary
from adjudicator.errors import InputError
from adjudicator.files import write_output


@click.command("run")
@click.argument("match_file", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write the verdict JSON here instead of stdout")
@click.option("--report", type=click.Choice(["md"]), help="also write a readable report")
@click.option("--report-out", type=click.Path(dir_okay=False, path_type=Path), help="report path (implies --report md; default: beside --out, else ./<match_id>.report.md)")
@click.option("--arm", type=click.Choice(["agentic", "single-call"]), default="agentic", show_default=True, help="agentic panel or the CCDB single-call protocol")
@model_options
def run_cmd(match_file: Path, out: Path | None, report: str | None, report_out: Path | None, arm: str, **opts) -> None:
    """Adjudicate MATCH_FILE and print the verdict JSON.

    When the adjudication fails (exit code 1), the partial verdict -- no winner, every failure with its
    raw model outputs, whatever ballots and clash map did succeed -- is still written.
    """
    from adjudicator.api import adjudicate
    from adjudicator.errors import AdjudicationFailed
    from adjudicator.match import load_match

    if report_out is not None:
        report = "md"
    if out is not None and report == "md" and _same_path(out, report_out or out.with_suffix(".md")):
        if report_out is not None:
            raise InputError(f"--report-out: {report_out} is also the --out verdict path", "give the report its own path")
        raise InputError(f"--out: {out} would be overwritten by the Markdown report", "give the verdict a .json path or the report its own --report-out")
    match = load_match(match_file)
    report_path = (report_out or (out.with_suffix(".md") if out else Path(f"{match.match_id}.report.md"))) if report == "md" else None
    config = model_config_from_options(opts)
    try:
        verdict = adjudicate(match, config, arm=arm)
    except AdjudicationFailed as exc:
        if exc.verdict is not None:
            _emit_verdict(exc.verdict, out, None)
        raise
    _emit_verdict(verdict, out, report_path)
    if not verdict.decided():
        raise AdjudicationFailed(
            "no winner tendency or ranking could be extracted (the task failed after its attempts)",
            "the verdict lists each failure with its raw outputs; retry or use another model",
        )


def _same_path(a: Path, b: Path) -> bool:
    return a.expanduser().resolve() == b.expanduser().resolve()


def _emit_verdict(verdict, out: Path | None, report_path: Path | None) -> None:
    """Write the verdict JSON (stdout or ``out``), the Markdown report, and the stderr summary."""
    text = json.dumps(json.loads(verdict.model_dump_json()), ensure_ascii=False, indent=2) + "\n"
    if out:
        write_output(out, text)
        echo_err(f"verdict written to {out}")
    else:
        click.echo(text, nl=False)
    if report_path is not None:
        from adjudicator.report import verdict_markdown

        write_output(report_path, verdict_markdown(verdict))
        echo_err(f"report written to {report_path}")
    echo_err(f"{models_text(verdict.provenance)}: {verdict.outcome_text()}; {usage_summary(verdict.calls)}")
    if verdict.failures:
        echo_err(f"{len(verdict.failures)} node(s) failed: " + "; ".join(f"{f.node} {f.key}: {f.reason}" for f in verdict.failures))


@click.command("schema")
@click.option("--which", type=click.Choice(["all", "match", "verdict"]), default="all", show_default=True)
def schema_cmd(which: str) -> None:
    """Print the JSON Schema of the match (input) and verdict (output) formats."""
    from adjudicator.match import Match
    from adjudicator.verdict import Verdict

    schemas = {"match": Match.model_json_schema(), "verdict": Verdict.model_json_schema(mode="serialization")}
    doc = schemas if which == "all" else schemas[which]
    click.echo(json.dumps(doc, ensure_ascii=False, indent=2))


@click.group("convert")
def convert_group() -> None:
    """Convert upstream datasets into match files."""


@convert_group.command("panelbench")
@click.argument("src", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path), help="folder for the match files")
@click.option(
    "--label-convention",
    type=click.Choice(["content", "documented"]),
    default="content",
    show_default=True,
    help="how upstream labels map to winners: 'content' (1.0 = con won, what the debates show) or 'documented' (1.0 = pro won)",
)
def convert_panelbench_cmd(src: Path, out_dir: Path, label_convention: str) -> None:
    """Convert the PanelBench layout in SRC (DebateArt debates and BP-Competition rounds) into match files with labels."""
    from adjudicator.convert import convert_panelbench

    paths = convert_panelbench(src, out_dir, label_convention=label_convention)
    echo_err(f"{len(paths)} match files written to {out_dir}")
