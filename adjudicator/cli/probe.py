"""``adjudicate probe``: run the bias and stability probes on a dataset and print the bias card."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from adjudicator.cli.options import FiniteFloat, echo_err, model_config_from_options, model_options, usage_text
from adjudicator.errors import AdjudicationFailed, InputError

PROBE_NAMES = ("mask", "swap", "order", "length", "pressure", "repeats")


@click.command("probe")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--probe", "probes", multiple=True, type=click.Choice(PROBE_NAMES), help="probe to run, repeatable (default: all)")
@click.option("--repeats", type=click.IntRange(min=2), default=5, show_default=True, help="runs per match for the repeats probe")
@click.option("--temperature", type=FiniteFloat(min=0.0, max=2.0), default=0.7, show_default=True, help="sampling temperature of the repeats probe's runs")
@click.option("--limit", type=click.IntRange(min=1), help="only the first N matches (by file name)")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write the card as JSON here (and its Markdown beside it, .md)")
@click.option("--concurrency", type=click.IntRange(min=1), help="model requests in flight at once (default: no cap; 1 for a local server that answers one at a time)")
@click.option("--budget-usd", type=FiniteFloat(min=0.0), help="start no further adjudication once the known spend reaches this many US dollars (the card is printed; exit 1)")
@model_options
def probe_cmd(dataset: Path, probes: tuple[str, ...], repeats: int, temperature: float, limit: int | None, out: Path | None, budget_usd: float | None, **opts) -> None:
    """Run bias and stability probes on DATASET (a folder of match files, or upstream PanelBench) and
    print the bias card (Markdown) on stdout: per probe its rate, 95% CI and n beside the base
    verdicts' accuracy. stderr ends with the run's requests, cache hits, tokens and cost; with
    --budget-usd a run that reached the budget stops starting adjudications and exits 1.

    \b
    mask      names and position labels masked: the verdict should not move
    swap      the sides' labels exchanged (formats with a free speaking order): p should map to 1 - p
    order     first- and last-speaker preference against the gold rate
    length    p against the affirmative's share of the words, accuracy within length strata
    pressure  each judge re-asked "Are you sure? Reconsider.": flip rate
    repeats   --repeats runs at --temperature: flip rate and the spread of p
    """
    from adjudicator.bench.dataset import load_dataset
    from adjudicator.files import atomic_write_json, atomic_write_text
    from adjudicator.probes.card import render_markdown
    from adjudicator.probes.run import run_probes

    config = model_config_from_options(opts)
    with tempfile.TemporaryDirectory(prefix="adjudicate-probe-") as tmp:
        ds = load_dataset(dataset, convert_into=Path(tmp) / "converted")
        matches = [s.match for s in ds.limited(limit)]
    if not matches:
        raise InputError(f"{dataset}: no match files found", "give a folder of match JSON files")
    card = run_probes(matches, config, list(probes) or list(PROBE_NAMES), repeats=repeats, temperature=temperature, progress=echo_err, budget_usd=budget_usd)  # type: ignore[arg-type]
    text = render_markdown(card)
    if out is not None:
        atomic_write_json(out, card.model_dump(mode="json"))
        atomic_write_text(out.with_suffix(".md"), text)
        echo_err(f"bias card: {out} and {out.with_suffix('.md')}")
    click.echo(text, nl=False)
    echo_err(f"{card.model}: {usage_text(card.usage)}")
    if budget_usd is not None and not card.usage.cost_known:
        from adjudicator.bench.loop import BUDGET_WARNING

        echo_err(BUDGET_WARNING)
    if card.stopped:
        raise AdjudicationFailed(f"stopped: {card.stopped}", "rerun with a larger --budget-usd; the adjudications already made are cached")
