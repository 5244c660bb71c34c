"""Tokens per sample of both arms, from a real bench run through the loopback server.

    .venv/bin/python benchmarks/tokens_bench.py [--dataset DIR] [--with-ccdb] [--track-window-chars N] [--quick] [--json FILE]

Runs ``adjudicate bench DATASET --arm agentic --arm single-call`` (default settings otherwise; the
dataset by default the bundled PanelBench debates, ``adjudicator/data/matches/panelbench``) against the
loopback OpenAI-compatible server of the test suite (``tests/fake_openai.py``, in this process), then
reads the run's own per-sample results (``results/<arm>/<sample>.json``: every call record) and prints,
per debate, each arm's prompt and completion tokens and the agentic arm's share of single-call's.

What the server answers and bills (our stand-in for a provider, stated):

- its answers are valid ones read off each request's response schema, with every free-text field at
  the length a model typically writes (``benchmarks/sized_answers.py``, :data:`sized_answers.ANSWER_CHARS`);
- its usage block counts tokens with the same tokenizer as ``benchmarks/tokens.py`` (litellm's offline
  counter for ``gpt-4o``, tiktoken o200k_base): prompt = the messages plus the response format's JSON
  text (a provider turns the schema into prompt text of a size it does not publish; this is the
  estimate ``tokens.py`` uses), completion = the answer.

The client runs as a hosted model's would (model ``openai/gpt-4o`` at the loopback URL: ``--json-mode
auto`` sends the JSON schema). ``--with-ccdb`` adds the 14-stage synthetic CCDB 4v4 match that
``benchmarks/tokens.py`` measures (``synthetic_ccdb.py``, ~22,700 Chinese characters; its label is a
placeholder winner, the tokens do not depend on it) to a copy of the dataset. Targets (issue 32): the
agentic arm at most 90% of single-call, prompt plus completion, on every bundled debate, and at most
35% on the 14-stage 4v4 match.

``--quick`` (CI, so the script cannot rot): the dataset is the smallest bundled debate alone
(:data:`QUICK_SAMPLE`, 4 speeches).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_openai import FakeOpenAI, Reply  # noqa: E402
from sized_answers import sized_answer  # noqa: E402
from synthetic_ccdb import synthetic_ccdb_data  # noqa: E402

from adjudicator.model.litellm_setup import litellm_module  # noqa: E402

DATASET = REPO / "adjudicator" / "data" / "matches" / "panelbench"
TOKENIZER = "gpt-4o"
TARGET = 0.90
#: The 14-stage 4v4 match's target and its sample name (its match id).
CCDB_TARGET = 0.35
CCDB_SAMPLE = "synthetic-ccdb-4v4-x1"
#: ``--quick``: the one debate of the dataset.
QUICK_SAMPLE = "debateart_0020"


def with_ccdb(dataset: Path, work: Path) -> Path:
    """A copy of ``dataset``'s match files plus the 14-stage synthetic CCDB 4v4 match (label: a
    placeholder winner), in ``work``; the copy's folder."""
    out = work / "dataset"
    out.mkdir()
    for f in sorted(dataset.glob("*.json")):
        (out / f.name).write_bytes(f.read_bytes())
    data = {**synthetic_ccdb_data(1), "labels": {"judges": [{"judge_id": "placeholder", "winner": "affirmative"}]}}
    (out / f"{CCDB_SAMPLE}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return out


def counting_responder(body: dict[str, Any]) -> Reply:
    """A sized answer (:func:`sized_answers.sized_answer`) with a usage block counted offline: prompt =
    messages + the response format's JSON text, completion = the answer (tokenizer :data:`TOKENIZER`)."""
    lit = litellm_module()
    text = sized_answer(body)
    rf = body.get("response_format")
    prompt = int(lit.token_counter(model=TOKENIZER, messages=body.get("messages", [])))
    if rf:
        prompt += int(lit.token_counter(model=TOKENIZER, text=json.dumps(rf, ensure_ascii=False)))
    return Reply(content=text, usage=(prompt, int(lit.token_counter(model=TOKENIZER, text=text))))


def sample_tokens(run_dir: Path) -> dict[str, dict[str, dict[str, int]]]:
    """Per arm and sample, the calls, prompt and completion tokens of the run's call records
    (``results/<arm>/<sample>.json``)."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for arm_dir in sorted(p for p in (run_dir / "results").iterdir() if p.is_dir()):
        for f in sorted(arm_dir.glob("*.json")):
            calls = json.loads(f.read_text(encoding="utf-8")).get("calls", [])
            out.setdefault(arm_dir.name, {})[f.stem] = {
                "calls": len(calls),
                "prompt": sum(int(c.get("prompt_tokens") or 0) for c in calls),
                "completion": sum(int(c.get("completion_tokens") or 0) for c in calls),
            }
    return out


def run_bench(dataset: Path, work: Path, url: str, extra: list[str]) -> Path:
    """Run the bench of both arms on ``dataset`` against ``url``; the run folder."""
    env = {k: v for k, v in os.environ.items() if not (k.startswith("ADJUDICATOR_") or k.endswith("_API_KEY"))}
    env.update({"OPENAI_API_KEY": "sk-loopback", "HOME": str(work), "XDG_CACHE_HOME": str(work / ".cache"), "XDG_CONFIG_HOME": str(work / ".config"),
                "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "MPLCONFIGDIR": str(work / ".mpl")})
    args = [sys.executable, "-m", "adjudicator.cli", "bench", str(dataset), "--arm", "agentic", "--arm", "single-call", "--name", "tokens",
            "--runs-dir", str(work / "runs"), "--model", "openai/gpt-4o", "--api-base", url, "--cache-dir", str(work / "cache"),
            "--no-progress", "--bootstrap", "0", "--concurrency", "2", *extra]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=work, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"bench exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return max((work / "runs").glob("*_tokens"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", type=Path, default=DATASET, help="a folder of labelled match files (default: the bundled PanelBench debates)")
    ap.add_argument("--with-ccdb", action="store_true", help="also the 14-stage synthetic CCDB 4v4 match of benchmarks/tokens.py (target 35%%)")
    ap.add_argument("--track-window-chars", type=int, default=None, metavar="N", help="passed to the bench (default: the library's default)")
    ap.add_argument("--quick", action="store_true", help=f"CI: {QUICK_SAMPLE} alone (the script still runs)")
    ap.add_argument("--json", dest="json_out", type=Path, help="also write every number as JSON here")
    args = ap.parse_args(argv)
    extra = ["--track-window-chars", str(args.track_window_chars)] if args.track_window_chars is not None else []
    work = Path(tempfile.mkdtemp(prefix="adjudicator-tokens-bench-"))
    server = FakeOpenAI()
    server.respond_with(counting_responder)
    dataset = with_ccdb(args.dataset.resolve(), work) if args.with_ccdb else args.dataset.resolve()
    if args.quick:
        (work / "quick").mkdir()
        (work / "quick" / f"{QUICK_SAMPLE}.json").write_bytes((args.dataset / f"{QUICK_SAMPLE}.json").read_bytes())
        dataset = work / "quick"
    try:
        run_dir = run_bench(dataset, work, server.base_url, extra)
    finally:
        server.close()
    per = sample_tokens(run_dir)
    sc, ag = per.get("single-call", {}), per.get("agentic", {})
    print(f"Tokens per sample of `adjudicate bench {args.dataset.name} --arm agentic --arm single-call {' '.join(extra)}` through the loopback server"
          f" ({server.count} requests; usage counted with {TOKENIZER}'s tokenizer: prompt = messages + response schema, completion = a sized answer);"
          f" from the run's own call records ({run_dir}).\n")
    head = f"{'sample':<22} | {'SC calls':>8}{'SC prompt':>10}{'SC compl':>9}{'SC total':>9} | {'AG calls':>8}{'AG prompt':>10}{'AG compl':>9}{'AG total':>9} | {'AG/SC':>7}{'target':>7}"
    print(head)
    print("-" * len(head))
    rows = []
    for sample in sorted(set(sc) | set(ag)):
        s, a = sc.get(sample), ag.get(sample)
        if not s or not a:
            print(f"{sample:<22} | missing an arm's result")
            continue
        st, at = s["prompt"] + s["completion"], a["prompt"] + a["completion"]
        ratio = at / st if st else float("nan")
        target = CCDB_TARGET if sample == CCDB_SAMPLE else TARGET
        rows.append({"sample": sample, "single_call": s, "agentic": a, "ratio": ratio, "target": target})
        print(f"{sample:<22} | {s['calls']:>8}{s['prompt']:>10,}{s['completion']:>9,}{st:>9,} | {a['calls']:>8}{a['prompt']:>10,}{a['completion']:>9,}{at:>9,}"
              f" | {ratio:>7.1%}{target:>7.0%} {'met' if ratio <= target else 'NOT MET'}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"run": str(run_dir), "requests": server.count, "rows": rows}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
