"""The commands that read one input: ``run`` (adjudicate a match file; the default command),
``schema`` (the JSON Schemas of the formats) and ``convert`` (upstream datasets into match files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from adjudicator.cli.options import echo_err, model_config_from_options, model_options, models_text, usage_summary
from adjudicator.errors import InputError
from adjudicator.files import check_writable, write_output

if TYPE_CHECKING:
    from adjudicator.verdict.ballots import Verdict


@click.command("run")
@click.argument("match_file", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write the verdict JSON here instead of stdout")
@click.option("--report", type=click.Choice(["md", "html"]), help="also write the readable verdict report, in the match's language: Markdown or one self-contained HTML page")
@click.option("--report-out", type=click.Path(dir_okay=False, path_type=Path),
              help="report path (implies --report: html for a .html/.htm path, else md; default: beside --out, else ./<match_id>.report.<md|html>)")
@click.option("--arm", type=click.Choice(["agentic", "single-call"]), default="agentic", show_default=True, help="agentic panel or the CCDB single-call protocol")
@click.option("--quiet", "-q", is_flag=True, help="print nothing on stderr but errors: no progress lines or bar, no summary")
@click.option("--concurrency", type=click.IntRange(min=1), help="model requests in flight at once (default: no cap; 1 for a local server that answers one at a time)")
@model_options
def run_cmd(match_file: Path, out: Path | None, report: str | None, report_out: Path | None, arm: str, quiet: bool, **opts) -> None:
    """Adjudicate MATCH_FILE and print the verdict JSON.

    While it runs, stderr gets a line per analysed stage and per judge's ballot (a live bar under
    them on a terminal); stdout gets the verdict only. When the adjudication fails (exit code 1), the
    partial verdict -- no winner, every failure with its raw model outputs, whatever ballots and clash
    map did succeed -- is still written.
    """
    from adjudicator.api import adjudicate
    from adjudicator.errors import AdjudicationFailed
    from adjudicator.input.match_file import load_match

    if report_out is not None and report is None:
        report = "html" if report_out.suffix.lower() in (".html", ".htm") else "md"
    suffix = f".{report}"
    if out is not None and report is not None and _same_path(out, report_out or out.with_suffix(suffix)):
        if report_out is not None:
            raise InputError(f"--report-out: {report_out} is also the --out verdict path", "give the report its own path")
        kind = "Markdown" if report == "md" else "HTML"
        raise InputError(f"--out: {out} would be overwritten by the {kind} report", "give the verdict a .json path or the report its own --report-out")
    match = load_match(match_file)
    report_path = (report_out or (out.with_suffix(suffix) if out else Path(f"{match.match_id}.report{suffix}"))) if report else None
    config = model_config_from_options(opts)
    if out is not None:  # before any model call: a verdict that cannot be saved is not paid for
        check_writable(out, "--out")
    if report_path is not None:
        check_writable(report_path, "--report-out" if report_out is not None else "--report")
    try:
        if quiet:
            verdict = adjudicate(match, config, arm=arm)
        else:
            from adjudicator.cli.progress import StderrProgress

            with StderrProgress(f"{match.match_id} ({arm})") as progress:
                verdict = adjudicate(match, config, arm=arm, progress=progress)
    except AdjudicationFailed as exc:
        if exc.verdict is not None:
            _emit_verdict(exc.verdict, out, report_path, quiet, match)
        raise
    _emit_verdict(verdict, out, report_path, quiet, match)
    if not verdict.decided():
        raise AdjudicationFailed(
            "no winner tendency or ranking could be extracted (the task failed after its attempts)",
            "the verdict lists each failure with its raw outputs; retry or use another model",
        )


def _same_path(a: Path, b: Path) -> bool:
    return a.expanduser().resolve() == b.expanduser().resolve()


def _emit_verdict(verdict, out: Path | None, report_path: Path | None, quiet: bool = False, match=None) -> None:
    """Write the verdict JSON (stdout or ``out``), the report (HTML for a ``.html``/``.htm``
    ``report_path``, else Markdown; in the language of ``match``), and (unless ``quiet``) the
    stderr summary."""
    say = (lambda _msg: None) if quiet else echo_err
    text = json.dumps(json.loads(verdict.model_dump_json()), ensure_ascii=False, indent=2) + "\n"
    if out:
        write_output(out, text)
        say(f"verdict written to {out}")
    else:
        click.echo(text, nl=False)
    if report_path is not None:
        from adjudicator.verdict.report import verdict_html, verdict_markdown

        render = verdict_html if report_path.suffix.lower() in (".html", ".htm") else verdict_markdown
        write_output(report_path, render(verdict, match.view() if match is not None else None))
        say(f"report written to {report_path}")
    if quiet:
        return
    echo_err(f"{models_text(verdict.provenance)}: {verdict.outcome_text()}; {usage_summary(verdict.calls)}")
    if not verdict.provenance.is_llm:  # what the offline judge is, on every run it judged (adjudicator.verdict.offline_note)
        from adjudicator.verdict.offline_note import offline_note

        echo_err(offline_note("en"))
    if verdict.review is not None:  # the quality gate, one line (adjudicator.verdict.review)
        echo_err(verdict.review.line())
    missing = verdict.provenance.p_logprob_missing
    if missing:
        echo_err(
            f"warning: --p-source logprob: {missing} of {len(verdict.ballots)} ballots carry no log-prob p (the server sent no "
            "log-probabilities, or tokens that do not spell the reply); p_logprob uses the others"
            + ("" if missing < len(verdict.ballots) else " and is left out")
        )
    if verdict.dimensions:  # the report module (jinja2) only when there is a line to print
        from adjudicator.verdict.report import dimensions_line

        echo_err(dimensions_line(verdict))
    report_failures(verdict)


def report_failures(verdict: Verdict) -> None:
    """Say the verdict's failures on stderr: the failed nodes with their reasons, and apart from them
    (on one short line) the answers taken without fields still invalid after their repair
    (``dropped_field``, :attr:`~adjudicator.records.NodeFailure.partial`): no failed node, the value stands."""
    failed = [f for f in verdict.failures if not f.partial]
    if failed:
        echo_err(f"{len(failed)} node(s) failed: " + "; ".join(f"{f.node} {f.key}: {f.reason}" for f in failed))
    partial = [f for f in verdict.failures if f.partial]
    if partial:
        echo_err(f"{len(partial)} answer(s) taken without fields still invalid after their repair (dropped_field; see failures): "
                 + ", ".join(f"{f.node} {f.key}" for f in partial))  # fmt: skip


#: The JSON Schema dialect of ``adjudicate schema`` (pydantic writes draft 2020-12).
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_document(which: str) -> dict:
    """One JSON Schema document: the match format (``which="match"``, what ``adjudicate`` reads), the
    verdict format (``"verdict"``, what it writes), or, for ``"all"``, both under ``$defs`` (as
    ``Match`` and ``Verdict``, sharing their nested definitions) with a top-level ``anyOf`` of the
    two, so the document itself validates either kind of file."""
    from pydantic.json_schema import models_json_schema

    from adjudicator.input.match import Match
    from adjudicator.verdict.ballots import Verdict

    if which == "match":
        return {"$schema": JSON_SCHEMA_DIALECT, **Match.model_json_schema()}
    if which == "verdict":
        return {"$schema": JSON_SCHEMA_DIALECT, **Verdict.model_json_schema(mode="serialization")}
    refs, doc = models_json_schema([(Match, "validation"), (Verdict, "serialization")], ref_template="#/$defs/{model}")
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": "adjudicator match and verdict formats",
        "description": "A match file (input, $defs/Match) or a verdict (output, $defs/Verdict).",
        "anyOf": list(refs.values()),
        "$defs": doc["$defs"],
    }


@click.command("schema")
@click.option("--which", type=click.Choice(["all", "match", "verdict"]), default="all", show_default=True,
              help="the match format (input), the verdict format (output), or both in one document under $defs")
def schema_cmd(which: str) -> None:
    """Print one JSON Schema (draft 2020-12): of the match format, the verdict format, or both."""
    click.echo(json.dumps(schema_document(which), ensure_ascii=False, indent=2))


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
    from adjudicator.input.convert.debateart import convert_panelbench

    paths = convert_panelbench(src, out_dir, label_convention=label_convention)
    echo_err(f"{len(paths)} match files written to {out_dir}")
