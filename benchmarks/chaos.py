"""Chaos run (issues 10 and 26): a benchmark against a faulty model server, killed twice and resumed.

    .venv/bin/python benchmarks/chaos.py [--samples 24] [--rate 0.12] [--seed 7] [--quick] [--json FILE]

The loopback OpenAI-compatible server of the test suite (``tests/fake_openai.py``, valid answers read
off each request's JSON schema, a usage block of bytes / 4, 50 ms a reply) sits behind the chaos
proxy (``tests/chaos_proxy.py``), which answers ``--rate`` of the requests with 429 and as many with
500 itself, and cuts in half (``finish_reason: length``), replaces with prose, wraps in a code fence,
or breaks one field of (an unescaped quote or a dropped brace inside a clash update; an unescaped
quote in a judge's text) as many more of the answers it forwards. ``adjudicate bench`` runs ``--samples`` distinct online
matches (``openai/gpt-4o-mini`` at the proxy's URL, ``--json-mode object``, concurrency 2, first
backoff 10 ms) in a child process that is killed with SIGKILL twice -- once the proxy has seen
``kill_at`` requests of the run -- and resumed, then resumed a last time to the end.

It checks, and prints as a table: every sample has a result (ok, partial or failed; none missing),
and every one that is not ok names what is missing (each failure its node and unit: a stage id or a
judge id); no result accepted an answer cut off at the budget (every accepted call has ``truncated``
false); no sample lost a clash update silently (the server's every tracker answer and repair holds
exactly one update, so every stage a result counts as analysed must hold one, and the battlefield its
event); the ledger's request count equals the request log's (``requests.jsonl``, every request on
record before it was sent) and the requests the proxy received (429s and 500s it answered itself
included). Exit code 0 when all hold.

``--quick`` (CI, so the script cannot rot): 1 sample and one kill (a third of the way), then the
resume to the end; the same checks.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from bench_helpers import answer, online, run_dir_of, subprocess_env, write_dataset  # noqa: E402
from chaos_proxy import KINDS, ChaosProxy  # noqa: E402
from fake_openai import FakeOpenAI, Reply  # noqa: E402

ADJUDICATE = Path(sys.executable).parent / "adjudicate"


def bench_args(data: Path, runs: Path, cache: Path, base_url: str) -> list[str]:
    return [
        str(ADJUDICATE), "bench", str(data), "--name", "chaos", "--runs-dir", str(runs), "--concurrency", "2", "--no-progress",
        "--bootstrap", "0", "--model", "openai/gpt-4o-mini", "--api-base", base_url, "--json-mode", "object", "--cache-dir", str(cache),
    ]


def run_until(args: list[str], env: dict[str, str], proxy: ChaosProxy, kill_at: int | None, timeout_s: float = 900) -> tuple[int, str]:
    """Run the bench child; SIGKILL it once the proxy has received ``kill_at`` requests in all (None:
    let it finish). Returns (exit code, stderr)."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    deadline = time.monotonic() + timeout_s
    try:
        while proc.poll() is None:
            if kill_at is not None and proxy.counts["received"] >= kill_at:
                os.kill(proc.pid, signal.SIGKILL)
                break
            if time.monotonic() > deadline:
                proc.kill()
                break
            time.sleep(0.01)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err


def request_log(path: Path) -> list[dict]:
    """The request log's lines (a line torn by a kill is skipped, as the bench skips it)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def lost_updates(result: dict) -> int:
    """Stages of ``result`` analysed without the clash update the server sent: the loopback server's
    every tracker answer (and repair) holds exactly one, so an analysed stage with no update, or whose
    update left no event in the battlefield, lost it without saying so. A stage listed as failed is
    not counted (its loss is on record)."""
    verdict = result.get("verdict") or {}
    events = {e["stage_id"] for c in verdict.get("battlefields") or [] for e in c.get("events") or []}
    analyses = result.get("analyses") or []
    return sum(1 for a in analyses if not a.get("clash_updates") or (verdict and a["stage_id"] not in events))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=24)
    ap.add_argument("--rate", type=float, default=0.12, help="probability of each of the six fault kinds (default 0.12)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="1 sample, one kill, then the resume (CI: the script still runs)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.quick:
        args.samples = 1
    tmp = Path(tempfile.mkdtemp(prefix="adjudicator-chaos-"))
    data = write_dataset(tmp / "data", [online(i) for i in range(1, args.samples + 1)])
    env = subprocess_env(tmp) | {"ADJUDICATOR_BACKOFF_BASE_S": "0.01"}
    server = FakeOpenAI(latency_s=0.05)
    server.respond_with(lambda body: Reply(content=(text := answer(body)), usage=(len(json.dumps(body.get("messages", []))) // 4, len(text) // 4)))
    proxy = ChaosProxy(server.base_url, {k: args.rate for k in KINDS}, seed=args.seed)
    cmd = bench_args(data, tmp / "runs", tmp / "cache", proxy.base_url)
    sessions = []
    try:
        per_sample = 7  # 4 tracker stages + 3 judges, before retries
        kills = (args.samples * per_sample // 3,) if args.quick else (args.samples * per_sample // 4, args.samples * per_sample * 2 // 3)
        for kill_at in kills:
            code, _ = run_until(cmd + (["--resume"] if sessions else []), env, proxy, kill_at)
            sessions.append({"killed_at_requests": proxy.counts["received"], "exit": code})
        code, err = run_until(cmd + ["--resume"], env, proxy, None)
        sessions.append({"killed_at_requests": None, "exit": code})
    finally:
        proxy.close()
        server.close()
    run = run_dir_of(tmp / "runs")  # the runs folder also holds index.html
    report = json.loads((run / "report.json").read_text(encoding="utf-8"))
    results = {f.stem: json.loads(f.read_text(encoding="utf-8")) for f in (run / "results" / "agentic").glob("*.json")}
    status = Counter(r["status"] for r in results.values())
    accepted_truncated = 0
    failure_kinds: Counter[str] = Counter()
    unnamed: list[str] = []
    lost = {sid: lost_updates(r) for sid, r in results.items()}
    for sid, r in results.items():
        # the result's own calls and failures: a failed sample has no verdict, but keeps both
        v = r.get("verdict") or {}
        failures = r.get("failures") or v.get("failures") or []
        for f in failures:
            failure_kinds[f"{f['node']}:{f.get('kind')}"] += 1
        if r["status"] != "ok" and not (failures and all(f.get("node") and f.get("key") for f in failures)) and not r.get("error"):
            unnamed.append(sid)
        bad = {(f["node"], f["key"]) for f in failures}
        for c in r.get("calls") or v.get("calls") or []:
            last_of_node = (c["node"], c["key"]) not in bad
            if c.get("truncated") and c.get("parse") != "failed" and last_of_node:
                accepted_truncated += 1
    ledger_requests = report["ledger"]["total"]["requests"]
    logged = sum(1 for e in request_log(run / "requests.jsonl") if e.get("e") == "sent")
    figures = {
        "samples": args.samples,
        "sessions": sessions,
        "results": dict(status),
        "missing": args.samples - len(results),
        "proxy": dict(proxy.counts),
        "upstream_served": server.count,
        "ledger_requests": ledger_requests,
        "ledger_unfinished_requests": report["ledger"]["total"].get("unfinished_requests"),
        "ledger_cost_usd": report["ledger"]["total"].get("cost_usd"),
        "request_log_requests": logged,
        "failures_by_kind": dict(failure_kinds),
        "accepted_truncated_answers": accepted_truncated,
        "samples_with_lost_updates": sorted(k for k, v in lost.items() if v),
        "stages_with_lost_updates": sum(lost.values()),
        "not_ok_without_named_units": unnamed,
        "run_dir": str(run),
    }
    checks = {
        "every sample has a result": figures["missing"] == 0 and "not_run" not in status,
        "every sample not ok names its missing units": not unnamed,
        "no truncated answer accepted": accepted_truncated == 0,
        "no clash update lost silently": not figures["samples_with_lost_updates"],
        "ledger == request log == requests the proxy received": ledger_requests == logged == proxy.counts["received"],
        "final session exit 0 or 1": sessions[-1]["exit"] in (0, 1),
    }
    print(f"chaos run: {args.samples} samples, each fault at {args.rate:.0%}, seed {args.seed}, {len(kills)} SIGKILL(s) then resume")
    for s_i, s in enumerate(sessions, 1):
        print(f"  session {s_i}: exit {s['exit']}" + (f", killed after {s['killed_at_requests']} requests at the proxy" if s["killed_at_requests"] else ", ran to the end"))
    print(f"  results: {dict(status)}; missing {figures['missing']}")
    print(f"  proxy: {dict(proxy.counts)}; upstream served {server.count}")
    print(f"  ledger: {ledger_requests} requests ({figures['ledger_unfinished_requests']} of samples killed in flight), cost {figures['ledger_cost_usd']}; request log: {logged}")
    print(f"  recorded failures: {dict(failure_kinds) or 'none'}; accepted truncated answers: {accepted_truncated}")
    print(f"  samples with silently lost clash updates: {len(figures['samples_with_lost_updates'])} ({figures['stages_with_lost_updates']} stages)")
    for name, ok in checks.items():
        print(f"  {'ok    ' if ok else 'FAILED'} {name}")
    if args.json:
        args.json.write_text(json.dumps(figures | {"checks": checks}, indent=2) + "\n", encoding="utf-8")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
