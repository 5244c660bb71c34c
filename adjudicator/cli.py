"""The ``adjudicate`` command line.

``adjudicate MATCH.json`` (the default command, ``run``) prints the verdict JSON on stdout. Other
commands: ``schema``, ``convert``, and those registered by the benchmark and live packages.

Exit codes: 0 ok, 1 adjudication failed, 2 bad usage or bad input, 130 interrupted. stdout carries
the result only; progress, summaries and errors go to stderr, errors as one line with no traceback.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from . import __version__
from .errors import AdjudicatorError, InputError

PROG = "adjudicate"


class DefaultGroup(click.Group):
    """A group that runs ``run`` when the first argument is not a command name, so that
    ``adjudicate match.json`` works alongside ``adjudicate schema``."""

    default_command = "run"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


def echo_err(message: str) -> None:
    """Write one line to stderr."""
    click.echo(message, err=True)


def write_text(path: Path, text: str) -> None:
    """Write UTF-8 text, creating parent folders. Raises InputError when the path is unusable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror})", "choose a writable path") from None


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=PROG)
def main_group() -> None:
    """Adjudicate competitive debates like a three-judge panel.

    \b
    adjudicate MATCH.json            verdict JSON on stdout (default model: the offline judge)
    adjudicate schema                JSON Schema of the match and verdict formats
    adjudicate convert panelbench DIR --out OUTDIR
    """


def model_options(f):
    """The model-selection options shared by every command that adjudicates."""
    options = [
        click.option("--model", help="litellm model string, e.g. deepseek/deepseek-chat; 'offline' (default) is the offline judge"),
        click.option("--api-base", help="base URL of an OpenAI-compatible server (llama.cpp, vLLM, Ollama)"),
        click.option("--tracker-model", help="model for the clash trackers (default: --model)"),
        click.option("--judge-model", "judge_models", multiple=True, help="model per judge, repeat up to 3 times for a mixed panel"),
        click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), help="YAML or TOML config file"),
        click.option("--no-cache", is_flag=True, default=None, help="do not read or write the response cache"),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), help="response cache folder"),
        click.option("--timeout-s", type=float, help="per-request timeout in seconds"),
        click.option("--json-mode", type=click.Choice(["auto", "schema", "object", "none"]), help="structured-output mode"),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def model_config_from_options(opts: dict):
    """Resolve a ModelConfig from CLI options (flag > ADJUDICATOR_* env > config file > defaults)."""
    from .config import resolve_config

    return resolve_config(
        model=opts.get("model"),
        api_base=opts.get("api_base"),
        tracker_model=opts.get("tracker_model"),
        judge_models=list(opts.get("judge_models") or []) or None,
        config_file=opts.get("config_file"),
        no_cache=opts.get("no_cache"),
        cache_dir=opts.get("cache_dir"),
        timeout_s=opts.get("timeout_s"),
        json_mode=opts.get("json_mode"),
    )


def models_text(provenance) -> str:
    """The model, or every role's model when the panel is mixed: "a (tracker), b (judge-1), ..."."""
    models = dict(provenance.models or {})
    if len(set(models.values())) <= 1:
        return provenance.model
    return ", ".join(f"{m} ({role})" for role, m in models.items())


def usage_summary(calls) -> str:
    """One stderr line: model requests, cache hits, tokens and cost of a run's call records."""
    from .records import Usage

    u = Usage.of(list(calls))
    if u.requests == 0:
        cost = "nothing spent"
    else:
        cost = f"${u.cost_usd:.4f} spent" if u.cost_known else "cost unknown (no price for this model)"
    return f"{u.calls} calls: {u.requests} model requests, {u.cache_hits} cache hits, {u.prompt_tokens}+{u.completion_tokens} tokens, {cost}"


@main_group.command("run")
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
    from .arms import adjudicate_with_arm
    from .errors import AdjudicationFailed
    from .match import load_match

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
        verdict = adjudicate_with_arm(match, arm, config)
    except AdjudicationFailed as exc:
        if exc.verdict is not None:
            _emit_verdict(exc.verdict, out, None)
        raise
    _emit_verdict(verdict, out, report_path)
    if verdict.p is None:
        raise AdjudicationFailed(
            "no winner tendency could be extracted (the winner task failed after its attempts)",
            "the verdict lists each failure with its raw outputs; retry or use another model",
        )


def _same_path(a: Path, b: Path) -> bool:
    return a.expanduser().resolve() == b.expanduser().resolve()


def _emit_verdict(verdict, out: Path | None, report_path: Path | None) -> None:
    """Write the verdict JSON (stdout or ``out``), the Markdown report, and the stderr summary."""
    text = json.dumps(json.loads(verdict.model_dump_json()), ensure_ascii=False, indent=2) + "\n"
    if out:
        write_text(out, text)
        echo_err(f"verdict written to {out}")
    else:
        click.echo(text, nl=False)
    if report_path is not None:
        from .report import verdict_markdown

        write_text(report_path, verdict_markdown(verdict))
        echo_err(f"report written to {report_path}")
    p = "n/a" if verdict.p is None else f"{verdict.p:.2f}"
    echo_err(f"{models_text(verdict.provenance)}: winner {verdict.winner} (p={p}); {usage_summary(verdict.calls)}")
    if verdict.failures:
        echo_err(f"{len(verdict.failures)} node(s) failed: " + "; ".join(f"{f.node} {f.key}: {f.reason}" for f in verdict.failures))


@main_group.command("schema")
@click.option("--which", type=click.Choice(["all", "match", "verdict"]), default="all", show_default=True)
def schema_cmd(which: str) -> None:
    """Print the JSON Schema of the match (input) and verdict (output) formats."""
    from .match import Match
    from .verdict import Verdict

    schemas = {"match": Match.model_json_schema(), "verdict": Verdict.model_json_schema(mode="serialization")}
    doc = schemas if which == "all" else schemas[which]
    click.echo(json.dumps(doc, ensure_ascii=False, indent=2))


@main_group.group("convert")
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
    """Convert the PanelBench DebateArt layout in SRC into match files with labels."""
    from .convert import convert_panelbench

    paths = convert_panelbench(src, out_dir, label_convention=label_convention)
    echo_err(f"{len(paths)} match files written to {out_dir}")


def _register_optional_commands() -> None:
    """Commands owned by the benchmark and live packages (each module exposes ``register(group)``)."""
    import importlib
    import importlib.util

    for name in ("adjudicator.bench.cli", "adjudicator.live.cli"):
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name).register(main_group)


_register_optional_commands()


def main(argv: list[str] | None = None) -> int:
    """Entry point. Returns (and exits with) the exit code; errors are one line on stderr."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        echo_err(f"{PROG}: error: give a match file or a command, e.g. `{PROG} match.json` (see `{PROG} --help`)")
        if argv is None:
            sys.exit(2)
        return 2
    try:
        main_group.main(args=args, prog_name=PROG, standalone_mode=False)
        code = 0
    except AdjudicatorError as exc:
        echo_err(f"{PROG}: error: {exc.one_line()}")
        code = exc.exit_code
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.Abort:
        echo_err(f"{PROG}: interrupted")
        code = 130
    except KeyboardInterrupt:
        echo_err(f"{PROG}: interrupted")
        code = 130
    except click.ClickException as exc:
        echo_err(f"{PROG}: error: {' '.join(exc.format_message().split())} (see `{PROG} --help`)")
        code = 2
    except Exception as exc:  # an internal error: still one line, traceback on request
        if os.environ.get("ADJUDICATOR_DEBUG"):
            raise
        echo_err(f"{PROG}: internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]} (set ADJUDICATOR_DEBUG=1 for the traceback)")
        code = 1
    if argv is None:
        sys.exit(code)
    return code


if __name__ == "__main__":
    main()
