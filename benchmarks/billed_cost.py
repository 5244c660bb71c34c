"""What each arm is billed per debate, through a loopback server that emulates the provider's prompt cache.

    .venv/bin/python benchmarks/billed_cost.py [--table deepseek-chat --table gpt-4.1-mini] [--latency-s S] [--bench-arg=--send-order=at-once] [--quick] [--json FILE]

For every debate (the five bundled PanelBench debates, ``adjudicator/data/matches/panelbench``, and
the 14-stage synthetic CCDB 4v4 match of ``benchmarks/synthetic_ccdb.py``), every arm (single-call,
agentic) and every price table, one ``adjudicate bench`` run of that debate and arm alone (in this
process) against its own loopback server (``tests/fake_openai.py``) with a fresh emulated prompt cache
(``tests/prompt_cache.py``), so each debate is billed as if it were the first the provider saw and no
arm reads the other's cache entries. Per debate and arm the table prints requests, prompt, cached and
completion tokens and dollars, and the agentic arm's dollars over single-call's.

What the server answers and bills (our stand-in for a provider, stated):

- answers: valid ones read off each request's response schema, every free-text field at the length a
  model typically writes (``benchmarks/sized_answers.py``);
- usage: the emulated cache's count (``tests/prompt_cache.py``: o200k tokens of the response schema,
  then the messages; cached = the longest prefix served under the provider's rule, reported the way
  that provider spells it); ``deepseek-chat`` runs model ``deepseek/deepseek-chat`` under DeepSeek's
  rule, ``gpt-4.1-mini`` model ``openai/gpt-4.1-mini`` under OpenAI's (>= 1,024 tokens, 128-token steps);
- dollars (the bench's recount): every request the server billed, priced with litellm's table
  (``litellm.cost_per_token``: uncached input, cache reads at the cache-read price, output);
- ``--latency-s``: every reply waits this long (default 1 s; 0 under ``--quick``), so the wall
  time a sample takes (its result's ``elapsed_s``) shows what waiting for a cache entry costs.

Check (issue 39): the cost each run reports (its ledger in ``report.json``) equals this recount within
1e-6 dollars, and its call records' prompt, cached and completion tokens equal the server's; a line
``recount check: ok`` (or what differs) ends the output.

Targets (issue 39, both arms at their best layout): on the 14-stage 4v4, the agentic arm billed at or
under single-call for both tables; on each bundled debate at most 1.5x.

``--quick`` (CI, so the script cannot rot): :data:`QUICK_SAMPLE` alone, both tables, no latency.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_openai import FakeOpenAI  # noqa: E402
from sized_answers import sized_answer  # noqa: E402
from synthetic_ccdb import synthetic_ccdb_data  # noqa: E402

DATASET = REPO / "adjudicator" / "data" / "matches" / "panelbench"
#: price table name -> (the model the bench runs, the prompt-cache rule its server emulates)
TABLES: dict[str, tuple[str, str]] = {"deepseek-chat": ("deepseek/deepseek-chat", "deepseek"), "gpt-4.1-mini": ("openai/gpt-4.1-mini", "openai")}
ARMS = ("single-call", "agentic")
CCDB_SAMPLE = "synthetic-ccdb-4v4-x1"
QUICK_SAMPLE = "debateart_0020"
#: Targets: agentic dollars over single-call's, at most this on each bundled debate / on the 4v4.
TARGET, CCDB_TARGET = 1.5, 1.0
LATENCY_S = 1.0
RECOUNT_TOLERANCE_USD = 1e-6
KEY_ENV = "ADJUDICATOR_BILLED_COST_KEY"


@dataclass
class Bill:
    """One arm's bill for one debate: ``requests``, token counts (``cached`` a part of ``prompt``),
    ``usd`` (the recount, US dollars), ``run_usd`` (what the run reported), ``wall_s`` (the sample's
    elapsed seconds), ``mismatch`` (what the run's records and the server disagree on; empty when none)."""

    requests: int = 0
    prompt: int = 0
    cached: int = 0
    completion: int = 0
    usd: float = 0.0
    run_usd: float | None = None
    wall_s: float = 0.0
    mismatch: list[str] = field(default_factory=list)


def dataset_refusal(dataset: Path, quick: bool) -> str | None:
    """Why ``--dataset`` cannot be billed (one line naming the option), or None: the folder must exist
    and hold match files (``*.json``), and under ``--quick`` :data:`QUICK_SAMPLE`'s; each must be JSON.
    Checked before any run, so a bad folder costs no bench run."""
    if not dataset.is_dir():
        return f"--dataset: {dataset} is not a folder; give a folder of labelled match files"
    files = [dataset / f"{QUICK_SAMPLE}.json"] if quick else sorted(dataset.glob("*.json"))
    if not files or not files[0].is_file():
        missing = f"no {QUICK_SAMPLE}.json (--quick bills that debate alone)" if quick else "no match file (*.json)"
        return f"--dataset: {dataset} has {missing}; give a folder of labelled match files"
    for f in files:
        try:
            json.loads(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            return f"--dataset: {f} is not a JSON match file ({type(e).__name__}); fix or remove it"
    return None


def debates(dataset: Path, quick: bool) -> dict[str, dict[str, Any]]:
    """sample id -> match file data: the dataset's debates (``--quick``: :data:`QUICK_SAMPLE`) and the 4v4."""
    if quick:
        return {QUICK_SAMPLE: json.loads((dataset / f"{QUICK_SAMPLE}.json").read_text(encoding="utf-8"))}
    out = {f.stem: json.loads(f.read_text(encoding="utf-8")) for f in sorted(dataset.glob("*.json"))}
    out[CCDB_SAMPLE] = {**synthetic_ccdb_data(1), "labels": {"judges": [{"judge_id": "placeholder", "winner": "affirmative"}]}}
    return out


def usd(model: str, prompt: int, completion: int, cached: int) -> float:
    """What one request costs on ``model`` by litellm's table: uncached input, cache reads, output."""
    from adjudicator.model.litellm_setup import litellm_module

    p, c = litellm_module().cost_per_token(model=model, prompt_tokens=prompt, completion_tokens=completion, cache_read_input_tokens=cached)
    return float(p) + float(c)


def bill_run(server: FakeOpenAI, model: str, run_dir: Path, arm: str, sample: str) -> Bill:
    """The :class:`Bill` of one finished run: the recount from the server's emulated usage, compared
    with the run's call records and its ledger."""
    assert server.prompt_cache is not None
    billed = list(server.prompt_cache.billed)
    b = Bill(requests=len(billed), prompt=sum(u.prompt_tokens for u in billed), cached=sum(u.cached_tokens for u in billed),
             completion=sum(u.completion_tokens for u in billed))  # fmt: skip
    b.usd = sum(usd(model, u.prompt_tokens, u.completion_tokens, u.cached_tokens) for u in billed)
    result = json.loads((run_dir / "results" / arm / f"{sample}.json").read_text(encoding="utf-8"))
    calls = [c for c in result.get("calls", []) if not c.get("cache_hit")]
    b.wall_s = float(result.get("elapsed_s") or 0.0)
    seen = {"requests": len(calls), "prompt": sum(int(c.get("prompt_tokens") or 0) for c in calls),
            "cached": sum(int(c.get("cached_tokens") or 0) for c in calls), "completion": sum(int(c.get("completion_tokens") or 0) for c in calls)}  # fmt: skip
    b.mismatch = [f"{k}: records {v:,}, server {getattr(b, k):,}" for k, v in seen.items() if v != getattr(b, k)]
    report = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
    b.run_usd = report["ledger"]["arms"][arm]["cost_usd"] if report["ledger"]["arms"][arm].get("cost_known") else None
    if b.run_usd is None or abs(b.run_usd - b.usd) > RECOUNT_TOLERANCE_USD:
        b.mismatch.append(f"dollars: run reports {b.run_usd}, recount {b.usd:.8f}")
    return b


def run_one(data: dict[str, Any], sample: str, arm: str, table: str, work: Path, latency_s: float, extra: list[str]) -> Bill:
    """One ``adjudicate bench`` run of ``sample`` under ``arm`` against a fresh emulating server."""
    from adjudicator.cli import main as cli_main

    model, rule = TABLES[table]
    here = work / f"{table}-{arm}-{sample}"
    (here / "dataset").mkdir(parents=True)
    (here / "dataset" / f"{sample}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    server = FakeOpenAI(latency_s=latency_s, prompt_cache=rule)
    server.respond_with(sized_answer)
    args = ["bench", str(here / "dataset"), "--arm", arm, "--name", "billed", "--runs-dir", str(here / "runs"), "--model", model,
            "--api-base", server.base_url, "--api-key-env", KEY_ENV, "--cache-dir", str(here / "cache"), "--no-progress", "--bootstrap", "0", *extra]  # fmt: skip
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            code = cli_main(args)
    finally:
        server.close()
    if code != 0:
        raise SystemExit(f"bench of {sample} ({arm}, {table}) exited {code}:\n{err.getvalue()[-3000:]}")
    (run_dir,) = [p for p in (here / "runs").iterdir() if p.is_dir()]
    return bill_run(server, model, run_dir, arm, sample)


def table_lines(table: str, bills: dict[str, dict[str, Bill]]) -> list[str]:
    """The printed table of one price table: per debate, each arm's bill and the ratio with its target."""
    head = (f"{'debate':<22} | {'SC req':>6}{'prompt':>9}{'cached':>9}{'compl':>7}{'$':>10}{'s':>6} | "
            f"{'AG req':>6}{'prompt':>9}{'cached':>9}{'compl':>7}{'$':>10}{'s':>6} | {'AG/SC $':>7}  target")  # fmt: skip
    lines = [f"price table {table} (model {TABLES[table][0]}, {TABLES[table][1]} cache rule)", head, "-" * len(head)]
    for sample, arms in bills.items():
        s, a = arms["single-call"], arms["agentic"]
        ratio = a.usd / s.usd if s.usd else float("nan")
        target = CCDB_TARGET if sample == CCDB_SAMPLE else TARGET
        lines.append(f"{sample:<22} | {s.requests:>6}{s.prompt:>9,}{s.cached:>9,}{s.completion:>7,}{s.usd:>10.6f}{s.wall_s:>6.1f} | "
                     f"{a.requests:>6}{a.prompt:>9,}{a.cached:>9,}{a.completion:>7,}{a.usd:>10.6f}{a.wall_s:>6.1f} | "
                     f"{ratio:>7.1%}  {'<=' if ratio <= target else '> '}{target:.0%} {'met' if ratio <= target else 'NOT MET'}")  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", type=Path, default=DATASET, help="a folder of labelled match files (default: the bundled PanelBench debates)")
    ap.add_argument("--table", action="append", choices=sorted(TABLES), help="price table(s) (default: both)")
    ap.add_argument("--latency-s", type=float, default=None, help=f"seconds every reply waits (default {LATENCY_S}; 0 under --quick)")
    ap.add_argument("--bench-arg", action="append", default=[], metavar="ARG", help="passed to every bench run (repeatable; e.g. --bench-arg=--track-window-chars=0)")
    ap.add_argument("--quick", action="store_true", help=f"CI: {QUICK_SAMPLE} alone, no latency")
    ap.add_argument("--json", dest="json_out", type=Path, help="also write every number as JSON here")
    args = ap.parse_args(argv)
    latency = args.latency_s if args.latency_s is not None else (0.0 if args.quick else LATENCY_S)
    if not math.isfinite(latency) or latency < 0:
        ap.error(f"--latency-s: {args.latency_s} is not a number of seconds >= 0; give e.g. --latency-s 1")
    dataset_problem = dataset_refusal(args.dataset, args.quick)
    if dataset_problem:
        ap.error(dataset_problem)
    if args.json_out and not args.json_out.resolve().parent.is_dir():
        ap.error(f"--json: the folder {args.json_out.resolve().parent} does not exist; create it or write the file elsewhere")
    work = Path(tempfile.mkdtemp(prefix="adjudicator-billed-cost-"))
    os.environ.update({KEY_ENV: "sk-loopback-0123456789", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                       "LITELLM_LOCAL_MODEL_COST_MAP": "True", "XDG_CACHE_HOME": str(work / ".cache"), "MPLCONFIGDIR": str(work / ".mpl")})  # fmt: skip
    matches = debates(args.dataset.resolve(), args.quick)
    tables = args.table or sorted(TABLES)
    if not args.quick:  # a first run pays the imports and warm-ups in its wall time: one run first, not counted
        first = next(iter(matches))
        run_one(matches[first], first, "single-call", tables[0], work / "warm-up", 0.0, args.bench_arg)
    out: dict[str, dict[str, dict[str, Bill]]] = {}
    for table in tables:
        out[table] = {sample: {arm: run_one(data, sample, arm, table, work, latency, args.bench_arg) for arm in ARMS} for sample, data in matches.items()}
    print(f"Billed cost per debate: each (debate, arm) one `adjudicate bench` run against a loopback server emulating the provider's prompt cache;"
          f" sized answers; replies wait {latency:g} s; dollars recounted from the server's usage with litellm's price table"
          f"{'; bench args ' + ' '.join(args.bench_arg) if args.bench_arg else ''}.\n")  # fmt: skip
    for table in tables:
        print("\n".join(table_lines(table, out[table])) + "\n")
    bad = [f"{t} {s} {a}: {m}" for t, per in out.items() for s, arms in per.items() for a, b in arms.items() for m in b.mismatch]
    print("recount check: ok (every run's reported cost and tokens equal the recount)" if not bad else "recount check: FAILED\n" + "\n".join(bad))
    if args.json_out:
        args.json_out.write_text(json.dumps({"latency_s": latency, "bench_args": args.bench_arg,
                                             "tables": {t: {s: {a: asdict(b) for a, b in arms.items()} for s, arms in per.items()} for t, per in out.items()}},
                                            indent=2), encoding="utf-8")  # fmt: skip
    return 0 if not bad else 1


if __name__ == "__main__":
    raise SystemExit(main())
