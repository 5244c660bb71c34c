"""What the commands share: the model-selection options, their resolution into settings, and the
one-line stderr summaries of a run, and the strict reader of a JSON file given on the command line."""

from __future__ import annotations

import math
from pathlib import Path

import click


class FiniteFloat(click.FloatRange):
    """click's float (range) type that refuses ``inf`` and ``nan``, which ``float()`` reads and a range
    lets through (every comparison with NaN is false): a flag's number is always finite."""

    name = "number"

    def _describe_range(self) -> str:
        """The range ``--help`` shows: none for an unbounded number (click's own says ``x<=None``)."""
        return "" if self.min is None and self.max is None else super()._describe_range()

    def convert(self, value, param, ctx):
        number = click.FLOAT.convert(value, param, ctx)  # finiteness first: 'inf' is "not finite", not "out of range"
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


def echo_err(message: str) -> None:
    """Write one line to stderr."""
    click.echo(message, err=True)


def model_options(f):
    """The model-selection options shared by every command that adjudicates."""
    options = [
        click.option("--model", help="litellm model string, e.g. deepseek/deepseek-chat; 'offline' (default) is the offline judge"),
        click.option("--api-base", help="base URL of an OpenAI-compatible server (llama.cpp, vLLM, Ollama)"),
        click.option("--api-key-env", metavar="NAME", help="environment variable holding the key to send (default ADJUDICATOR_API_KEY; a provider's own key goes only to its own endpoint)"),
        click.option("--tracker-model", help="model for the clash trackers (default: --model)"),
        click.option("--judge-model", "judge_models", multiple=True, help="model per judge, repeat up to 3 times for a mixed panel"),
        click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), help="YAML or TOML config file"),
        click.option("--no-cache", is_flag=True, default=None, help="do not read or write the response cache"),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), help="response cache folder"),
        click.option("--timeout-s", type=FiniteFloat(min=0, min_open=True, max=86_400), help="per-request timeout in seconds (at most a day)"),
        click.option("--json-mode", type=click.Choice(["auto", "schema", "object", "none"]), help="structured-output mode"),
        click.option("--rubric", help="rubric preset (ccdb, debateart, inspire) or a rubric file (YAML/JSON/TOML); default ccdb"),
        click.option("--evidence", help="evidence source for the fact-authenticity dimension: a folder of documents (info pack), or 'transcript' (the passages the debaters quoted); default: not assessed"),
        click.option("--panel", type=click.Choice(["scoring", "pairwise"]), help="how the judges judge: scoring ballots (default) or pairwise comparisons with Bradley-Terry strengths"),
        click.option("--judge-evidence", type=click.Choice(["ledger", "quotes", "transcript"]), help="what the LLM judges read beyond the tracker's ledger and analyses: nothing more (ledger, default), the transcript lines behind the decisive clashes (quotes), or the whole transcript"),
        click.option("--track-window-chars", type=click.IntRange(min=0), metavar="N", help="LLM tracker: analyse consecutive stages whose transcripts add up to at most N characters in one request (up to 6 stages; fewer requests and tokens on short stages); 0 (default) = one stage per request"),
        click.option("--send-order", type=click.Choice(["lead-first", "at-once"]), help="lead-first (default): one judge and one single-call task first, the others once it was answered, so the provider's prompt cache serves what they share; at-once: all together (about one request's time sooner per match)"),
        click.option("--feedback/--no-feedback", default=None, help="whether the panel's chair (judge-1, a language model's or the offline baseline's) writes the coach's feedback to each debater (default: it does); --no-feedback: no ballot asks for it, and the verdict has none"),
        click.option("--p-source", type=click.Choice(["stated", "logprob"]), help="logprob: also read p and stage scores off the judges' token log-probabilities (OpenAI-compatible servers), beside the stated p"),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def model_config_from_options(opts: dict):
    """Resolve a ModelConfig from CLI options (flag > ADJUDICATOR_* env > config file > defaults)."""
    from adjudicator.config import resolve_config

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
        rubric=opts.get("rubric"),
        evidence=opts.get("evidence"),
        panel=opts.get("panel"),
        p_source=opts.get("p_source"),
        judge_evidence=opts.get("judge_evidence"),
        track_window_chars=opts.get("track_window_chars"),
        send_order=opts.get("send_order"),
        feedback=opts.get("feedback"),
        max_concurrent_requests=opts.get("concurrency"),
        api_key_env=opts.get("api_key_env"),
    )


def models_text(provenance) -> str:
    """The model, or every role's model when the panel is mixed: "a (tracker), b (judge-1), ..."."""
    models = dict(provenance.models or {})
    if len(set(models.values())) <= 1:
        return provenance.model
    return ", ".join(f"{m} ({role})" for role, m in models.items())


def usage_summary(calls) -> str:
    """One stderr line: model requests, cache hits, tokens and cost of a run's call records."""
    from adjudicator.records import Usage

    return usage_text(Usage.of(list(calls)))


def usage_text(u) -> str:
    """:func:`usage_summary` of summed usage (a :class:`~adjudicator.records.Usage`)."""
    if u.requests == 0:
        cost = "nothing spent"
    else:
        cost = f"${u.cost_usd:.4f} spent" if u.cost_known else "cost unknown (no price for this model)"
    cached = f" ({u.cached_tokens} cached by the provider)" if u.cached_tokens else ""
    return f"{u.calls} calls: {u.requests} model requests, {u.cache_hits} cache hits, {u.prompt_tokens}+{u.completion_tokens} tokens{cached}, {cost}"


def read_json_file(path: Path) -> object:
    """Decode a UTF-8 JSON file (``-`` = stdin) with the strict reader every input file goes through
    (:func:`~adjudicator.input.tomltext.read_document_file`: at most
    :data:`~adjudicator.input.tomltext.MAX_DOCUMENT_BYTES`, UTF-8, no duplicate keys or non-finite
    numbers). Raises InputError with one line naming the file."""
    from adjudicator.input.tomltext import MAX_DOCUMENT_BYTES, read_document_bytes, read_document_file

    if str(path) != "-":
        return read_document_file(path, ".json")
    with click.open_file("-", "rb") as stdin:
        return read_document_bytes(stdin.read(MAX_DOCUMENT_BYTES + 1), "-", ".json")
