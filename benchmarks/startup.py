"""Start-up and exit: the CPU a whole ``adjudicate`` process pays that is not judging (issue 32, item 1).

    .venv/bin/python benchmarks/startup.py [--repeats 5] [--checkout DIR] [--quick] [--json FILE]

Each number is the CPU time (user + system, ``getrusage(RUSAGE_CHILDREN)`` around one process) of a
whole command-line process, ``python -m adjudicator.cli ...``, start-up and exit included, the median
(and the least) of ``--repeats`` runs one at a time. CPU rather than wall time because this machine is
shared: wall times wander with the load, CPU seconds much less (they still move by 10-20% under load,
hence the repeats).

1. **Offline main job**: ``adjudicate debateart_0020.json --out FILE`` (the default model, the
   offline judge; 4 speeches). Target: under 0.5 s.
2. **A model run's fixed cost**: the same match with ``--model openai/gpt-4o-mini`` against the
   loopback server of the test suite (``tests/fake_openai.py``, in this process, so its work is in
   neither number), *cold* (an empty response cache: 7 requests) minus *cached* (the same command again:
   7 cache hits, no litellm import). That is litellm's import, its first request's set-up and its
   teardown, plus 7 requests' own cost (7-8 ms each, benchmarks/overhead.py), so it slightly overstates
   the fixed part. Target: under 2 s.
3. **Modules**: which of the packages no run uses (LangSmith's OpenTelemetry SDK, rich, pygments,
   websockets, the LangGraph SDK's client, LangSmith's REST types, LangSmith) the offline run has imported (a fresh interpreter that runs
   the same command in-process and reads ``sys.modules``).

``--checkout DIR`` runs another checkout's package (its directory first on ``PYTHONPATH``), e.g.
``--checkout /work/main`` for the numbers before a change (its bytecode is written under the run's
temporary folder, ``PYTHONPYCACHEPREFIX``, never into that checkout). ``--quick`` (CI): one repeat, and it checks
only that every number was produced.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

from fake_openai import FakeOpenAI  # noqa: E402
from overhead import clean_env, responder, timed  # noqa: E402

MATCH = REPO / "adjudicator/data/matches/panelbench/debateart_0020.json"
MODEL = "openai/gpt-4o-mini"
TARGET_OFFLINE_CPU_S = 0.5
TARGET_FIXED_CPU_S = 2.0
#: packages, or dotted modules (the LangGraph SDK's client, LangSmith's REST types: adjudicator/lean_imports.py defers both packages' bodies)
UNUSED = ("opentelemetry", "rich", "pygments", "websockets", "langgraph_sdk.client", "langsmith.types.run", "langsmith")
PROBE = """
import json, sys
from adjudicator.cli import main
code = main(sys.argv[2:])
print(json.dumps({'code': code, 'loaded': sorted(({m.split('.')[0] for m in sys.modules} | set(sys.modules)) & set(sys.argv[1].split(',')))}))
"""


def adjudicate(*args: object) -> list[str]:
    return [sys.executable, "-m", "adjudicator.cli", *map(str, args)]


def measure(repeats: int, env: dict[str, str], work: Path) -> dict:
    """CPU seconds of every process (lists, one per repeat), the requests sent and the modules loaded."""
    server = FakeOpenAI()
    server.respond_with(responder)
    cpu: dict[str, list[float]] = {"offline": [], "cold": [], "cached": []}
    try:
        for r in range(repeats):
            cpu["offline"].append(timed(adjudicate(MATCH, "--out", work / "offline.json"), env, work)[1])
            llm = ["--model", MODEL, "--api-base", server.base_url, "--cache-dir", work / f"cache-{r}", "--out", work / "model.json"]
            before = server.count
            cpu["cold"].append(timed(adjudicate(MATCH, *llm), env, work)[1])
            requests = server.count - before
            cpu["cached"].append(timed(adjudicate(MATCH, *llm), env, work)[1])
            if server.count - before != requests:
                raise SystemExit("the cached run sent requests: the fixed cost would be wrong")
    finally:
        server.close()
    probe = subprocess.run([sys.executable, "-c", PROBE, ",".join(UNUSED), str(MATCH), "--out", str(work / "probe.json")],
                           capture_output=True, text=True, env=env, cwd=work, timeout=600, check=True)
    return {"cpu_s": cpu, "requests": requests, "loaded": json.loads(probe.stdout.strip().splitlines()[-1])["loaded"]}


def table(found: dict) -> str:
    cpu = found["cpu_s"]
    fixed = [c - k for c, k in zip(cpu["cold"], cpu["cached"], strict=True)]
    rows = [("offline main job (debateart_0020, 4 speeches)", cpu["offline"], TARGET_OFFLINE_CPU_S),
            (f"model run, cold ({found['requests']} requests)", cpu["cold"], None),
            ("model run, cached (0 requests)", cpu["cached"], None),
            ("model run's fixed cost (cold - cached)", fixed, TARGET_FIXED_CPU_S)]
    lines = ["| process | CPU s, median | least | target | met |", "|---|---:|---:|---:|---|"]
    for name, xs, target in rows:
        med = statistics.median(xs)
        lines.append(f"| {name} | {med:.3f} | {min(xs):.3f} | {'' if target is None else f'< {target}'} | "
                     f"{'' if target is None else ('yes' if med < target else 'no')} |")
    lines.append(f"\nunused packages imported by the offline run: {', '.join(found['loaded']) or 'none'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--checkout", type=Path, help="run this checkout's package instead (e.g. /work/main)")
    ap.add_argument("--quick", action="store_true", help="one repeat (CI: the benchmark still runs)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as tmp:
        work = Path(tmp)
        env = clean_env(work / "home")
        if args.checkout:
            env["PYTHONPATH"] = os.pathsep.join([str(args.checkout.resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        if args.checkout:  # another checkout is only read: its bytecode goes to a cache of this run's
            env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        subprocess.run([sys.executable, "-m", "compileall", "-q", str((args.checkout or REPO) / "adjudicator")], check=True, env=env)
        found = measure(1 if args.quick else args.repeats, env, work)
    found["checkout"] = str(args.checkout or REPO)
    print(table(found))
    if args.json:
        args.json.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
