"""Time to write a run's reports against the number of matches, with the bootstrap at 2,000 resamples.

    .venv/bin/python benchmarks/report_time.py [--sizes 10 100 1000] [--bootstrap 2000] [--keep DIR] [--quick]

For each size N it builds a run folder of N **synthetic** CCDB matches (not real data): copies of the
four bundled synthetic matches (``adjudicator/data/matches/synthetic``, two ccdb-4v4 and two
ccdb-2v2) under new match ids, each copy's gold labels perturbed with a seeded draw (every judge's
stage scores moved by -1, 0 or +1 within 1-10, a quarter of the winners flipped, the best-debater
votes redrawn) so that every metric has spread. The offline judge runs on the four originals through
``adjudicate bench``; a copy's verdict is its original's (labels never reach a judge, and the text is
the same), so its result file is the original's under the copy's id and file hash, and ``bench
--resume --limit N`` then adopts all N without running anything. Then it times:

- ``report``: :func:`adjudicator.bench.report.write_reports` in this process (scoring with every
  bootstrap interval and paired test, report.json, report.md and report.html with its plots);
- ``cli``: ``adjudicate bench DATASET --name NAME --report-only`` as a fresh process (imports
  included), the command the target is stated for (issue 14: under 5 s on the 61 DebateArt matches
  and on the synthetic set with 2,000 resamples).

It prints one row per size: matches, scored (stage, side) units, confidence intervals in report.json,
and the two times in seconds. The times are wall-clock on a possibly shared machine; run it on a
quiet one to compare.

``--quick`` (CI, so the script cannot rot): one size of 6 matches (the four originals and two copies)
with 50 resamples.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from adjudicator.bench.dataset import file_sha256, safe_file_stem
from adjudicator.bench.report import write_reports
from adjudicator.bench.results import read_result, result_path, write_result
from adjudicator.cli import main
from adjudicator.files import atomic_write_text, dumps

ROOT = Path(__file__).resolve().parents[1]
SYNTHETIC = ROOT / "adjudicator" / "data" / "matches" / "synthetic"
BASES = sorted(SYNTHETIC.glob("*.json"))


def _perturb(labels: dict, debaters: list[str], rng: random.Random) -> dict:
    """A copy of a match's gold labels with every judge's scores nudged, votes redrawn and (for a
    quarter of the copies) the winner flipped."""
    flip = rng.random() < 0.25
    judges = []
    for j in labels["judges"]:
        scores = {k: min(10, max(1, v + rng.choice((-1, 0, 1)))) for k, v in j["stage_scores"].items()}
        votes: dict[str, int] = {}
        for _ in range(3):
            d = rng.choice(debaters)
            votes[d] = votes.get(d, 0) + 1
        winner = j["winner"]
        if flip and winner in ("affirmative", "negative"):
            winner = "negative" if winner == "affirmative" else "affirmative"
        judges.append({**j, "stage_scores": scores, "best_debater_votes": votes, "winner": winner})
    return {**labels, "judges": judges}


def write_dataset(folder: Path, n: int, seed: int = 0) -> list[tuple[str, str, Path]]:
    """``n`` match files in ``folder``, the four originals first (file-name order); returns (match id
    of its original, match id, path) per file."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        base = BASES[i % len(BASES)]
        m = json.loads(base.read_text(encoding="utf-8"))
        if i >= len(BASES):
            m["match_id"] = f"{m['match_id']}-copy{i:05d}"
            labels = [f"{d['side'].capitalize()} Speaker {d['position']}" for d in m["debaters"]]
            m["labels"] = _perturb(m["labels"], labels, rng)
        path = folder / f"m{i:05d}.json"
        atomic_write_text(path, dumps(m))
        out.append((out[i % len(BASES)][1] if i >= len(BASES) else m["match_id"], m["match_id"], path))
    return out


def build_run(work: Path, n: int) -> tuple[Path, Path, Path]:
    """(dataset folder, runs folder, run folder) of an offline run over ``n`` synthetic matches."""
    data, runs = work / f"data{n}", work / f"runs{n}"
    data.mkdir(parents=True)
    files = write_dataset(data, n)
    quiet = ["--no-progress", "--bootstrap", "0", "--runs-dir", str(runs), "--name", "rt"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["bench", str(data), "--limit", str(min(n, len(BASES))), *quiet]) == 0
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    for base_id, match_id, path in files[len(BASES):]:
        base = read_result(result_path(run, "agentic", safe_file_stem(base_id)))
        assert base is not None and base.verdict is not None
        verdict = {**base.verdict, "match_id": match_id}
        write_result(result_path(run, "agentic", safe_file_stem(match_id)), base.model_copy(update={"sample_id": match_id, "sample_sha256": file_sha256(path), "verdict": verdict}))
    if n > len(BASES):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(["bench", str(data), "--resume", "--limit", str(n), *quiet]) == 0
    return data, runs, run


def count_intervals(report: object) -> int:
    """Confidence intervals and paired bootstraps in a report.json (dicts holding ``n_resamples``)."""
    if isinstance(report, dict):
        return int("n_resamples" in report) + sum(count_intervals(v) for v in report.values())
    if isinstance(report, list):
        return sum(count_intervals(v) for v in report)
    return 0


def measure(work: Path, n: int, n_bootstrap: int) -> dict[str, float]:
    data, runs, run = build_run(work, n)
    t0 = time.perf_counter()
    write_reports(run, n_bootstrap=n_bootstrap)
    report_s = time.perf_counter() - t0
    exe = Path(sys.executable).with_name("adjudicate")
    t0 = time.perf_counter()
    subprocess.run([str(exe), "bench", str(data), "--name", "rt", "--runs-dir", str(runs), "--report-only", "--bootstrap", str(n_bootstrap)],
                   check=True, capture_output=True)
    cli_s = time.perf_counter() - t0
    report = json.loads((run / "report.json").read_text(encoding="utf-8"))
    return {"matches": n, "units": report["tasks"]["task2"].get("n_units", 0), "intervals": count_intervals(report), "report_s": report_s, "cli_s": cli_s}


def main_(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--bootstrap", type=int, default=2000)
    ap.add_argument("--keep", type=Path, help="build the runs in this folder and keep them")
    ap.add_argument("--quick", action="store_true", help="6 matches, 50 resamples (CI: the script still runs)")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.bootstrap = [len(BASES) + 2], 50
    work = args.keep or Path(tempfile.mkdtemp(prefix="report-time-"))
    try:
        rows = [measure(work, n, args.bootstrap) for n in args.sizes]
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"report time with {args.bootstrap} bootstrap resamples (synthetic ccdb matches, offline judge)")
    print(f"{'matches':>8} {'units':>7} {'intervals':>9} {'report (s)':>11} {'cli (s)':>8}")
    for r in rows:
        print(f"{r['matches']:>8} {r['units']:>7} {r['intervals']:>9} {r['report_s']:>11.2f} {r['cli_s']:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main_())
