"""The offline judge on the longest matches the input limits allow, and the cost of a stage as stages grow.

    .venv/bin/python benchmarks/long_input.py [--chars 400000] [--stages 100,200,300,400,500] [--repeat 5] [--quick] [--json FILE]

A bundled match (the DebateArt ``debateart_4389`` in English, the synthetic CCDB 4v4
``synthetic_4v4_01`` in Chinese) is grown to ``--chars`` characters of transcript (default
:data:`~adjudicator.input.match.MAX_MATCH_CHARS`) by refilling every utterance, in turn, with words (en) or
characters (zh) drawn with a fixed seed from the match's own text, each utterance at most
:data:`~adjudicator.input.stages.MAX_UTTERANCE_CHARS`. The table gives the match's size and the wall and CPU time of
``adjudicate(match)`` with the offline judge in this process (validation included, start-up not).

Target (issue 10): the longest accepted match in under 60 s on one core. Shuffled text is a worst
case for the Chinese phrase vocabulary (far more distinct n-grams than real speech).

The second table (issue 26): online-1v1 matches of ``--stages`` short speeches (up to the format's
cap, :data:`~adjudicator.input.formats.ONLINE_MAX_STAGES`), each ``point <k> on uniforms <word>``. For
each it gives the CPU time per stage of ``adjudicate(match)`` (the fastest of ``--repeat`` runs) with the offline judge (parsing and
validation included), and the CPU time of validating one live push at that position
(:func:`~adjudicator.live.rooms.validation.validate_push`, the median of 20), each with its ratio to the first
row. Target: the time per stage flat from 100 stages to the cap (a stage's work does not grow with the
stages before it). A push validates only the new stage; it still reads the earlier stages' ids and
lengths (the id must be new, the transcript within its cap), well under a microsecond a stage, so
its column grows slowly from a fraction of a millisecond (before issue 26 the whole match was
validated again: 2.2 ms at stage 100, 6.5 ms at 500).

``--quick`` (CI, so the script cannot rot): 20,000 characters, stage counts 20 and 40, one run each;
the exit code then says only that every step ran (the targets are printed, not enforced).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MATCHES = {
    "en": REPO / "adjudicator/data/matches/panelbench/debateart_4389.json",
    "zh": REPO / "adjudicator/data/matches/synthetic/synthetic_4v4_01.json",
}
TARGET_S = 60.0


def grow(data: dict, chars: int, per_utterance: int, seed: int = 7) -> dict:
    """``data`` with its utterances refilled to ``chars`` characters in all (each <= ``per_utterance``)."""
    rng = random.Random(seed)
    utterances = [u for st in data["stages"] for u in st["utterances"]]
    source = " ".join(u["text"] for u in utterances)
    pieces = source.split() if data.get("language") != "zh" else [c for c in source if not c.isspace()]
    joiner = " " if data.get("language") != "zh" else ""
    share = min(per_utterance, chars // len(utterances))
    for u in utterances:
        out: list[str] = []
        n = 0
        while n < share:
            w = rng.choice(pieces)
            out.append(w)
            n += len(w) + len(joiner)
        u["text"] = joiner.join(out)[:share]
    return data


def online(n: int) -> dict:
    """An online-1v1 match of ``n`` short speeches (the second table)."""
    words = ["cost", "expression", "discipline", "equality", "budget", "identity", "safety", "choice"]
    stages = []
    for k in range(n):
        side = "affirmative" if k % 2 == 0 else "negative"
        kind = "constructive" if k < 2 else ("closing" if k >= n - 2 else "supplementary")
        speaker = f"{side.capitalize()} Speaker 1"
        text = f"point {k} on uniforms {words[k % len(words)]}"
        stages.append({"stage_id": f"s{k}", "name": f"Speech {k}", "type": kind, "sides": [side], "utterances": [{"speaker": speaker, "side": side, "text": text}]})
    return {
        "match_id": f"long{n}", "format": "online-1v1", "language": "en", "motion": "Schools should require uniforms",
        "affirmative_position": "For", "negative_position": "Against",
        "debaters": [{"side": "affirmative", "position": 1}, {"side": "negative", "position": 1}], "stages": stages,
    }  # fmt: skip


def stage_rows(counts: list[int], repeat: int = 5) -> list[dict]:
    """CPU ms per stage of adjudicating, and of one live push, at each stage count: the fastest of
    ``repeat`` runs, taken in rounds over the counts (a single run of about a second moves by a third
    on a shared machine, where other processes' cache traffic only ever adds time)."""
    from statistics import median

    from adjudicator.api import adjudicate
    from adjudicator.input.match import Stage
    from adjudicator.input.match_file import parse_match
    from adjudicator.live.rooms.validation import validate_header, validate_push

    adjudicate(parse_match(online(20)))  # imports and first-use caches out of the times
    runs: dict[int, list[float]] = {n: [] for n in counts}
    for _ in range(repeat):  # rounds over the counts, so a change in the machine's load reaches every row
        for n in counts:
            data = online(n)
            gc.collect()  # the garbage of the run before is not this one's
            t0 = time.process_time()
            adjudicate(parse_match(data))
            runs[n].append(time.process_time() - t0)
    rows = []
    for n in counts:
        data = online(n)
        per_stage_ms = 1000 * min(runs[n]) / n
        header = validate_header({k: v for k, v in data.items() if k != "stages"})
        received = [Stage.model_validate(st) for st in data["stages"][: n - 1]]
        pushes = []
        for _ in range(20):
            t1 = time.process_time()
            validate_push(header, received, data["stages"][n - 1])
            pushes.append(1000 * (time.process_time() - t1))
        rows.append({"stages": n, "adjudicate_ms_per_stage": round(per_stage_ms, 2), "push_ms": round(median(pushes), 3)})
    for r in rows:
        r["ratio_adjudicate"] = round(r["adjudicate_ms_per_stage"] / rows[0]["adjudicate_ms_per_stage"], 2)
        r["ratio_push"] = round(r["push_ms"] / rows[0]["push_ms"], 2)
    return rows


def main() -> int:
    from adjudicator.api import adjudicate
    from adjudicator.input.formats import ONLINE_MAX_STAGES
    from adjudicator.input.match import MAX_MATCH_CHARS
    from adjudicator.input.match_file import parse_match
    from adjudicator.input.stages import MAX_UTTERANCE_CHARS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chars", type=int, default=MAX_MATCH_CHARS)
    ap.add_argument("--stages", default=",".join(str(n) for n in range(100, ONLINE_MAX_STAGES + 1, 100)), help="stage counts of the second table (default 100,200,...,the cap)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per stage count in the second table, the fastest kept (default 5)")
    ap.add_argument("--quick", action="store_true", help="20,000 characters, 20 and 40 stages, one run (CI); exit 0 whatever the times")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.quick:
        args.chars, args.stages, args.repeat = 20_000, "20,40", 1
    rows = []
    for lang, path in MATCHES.items():
        data = grow(json.loads(path.read_text(encoding="utf-8")), args.chars, MAX_UTTERANCE_CHARS)
        raw = json.dumps(data, ensure_ascii=False)
        t0, c0 = time.perf_counter(), time.process_time()
        match = parse_match(json.loads(raw), path.name)
        verdict = adjudicate(match)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        n_chars = sum(len(u.text) for st in match.stages for u in st.utterances)
        n_utt = sum(len(st.utterances) for st in match.stages)
        rows.append({"language": lang, "match": path.stem, "utterances": n_utt, "characters": n_chars,
                     "mib": round(len(raw.encode()) / 2**20, 2), "seconds": round(elapsed, 1), "cpu_seconds": round(cpu, 1),
                     "winner": verdict.winner, "ok": elapsed < TARGET_S})
    print(f"{'lang':<5} {'match':<18} {'utterances':>10} {'characters':>11} {'MiB':>6} {'seconds':>8} {'cpu s':>6}  target <{TARGET_S:.0f} s")
    for r in rows:
        print(f"{r['language']:<5} {r['match']:<18} {r['utterances']:>10} {r['characters']:>11,} {r['mib']:>6} {r['seconds']:>8} {r['cpu_seconds']:>6}  {'ok' if r['ok'] else 'MISSED'}")
    stages = stage_rows([int(x) for x in args.stages.split(",") if x.strip()], args.repeat)
    print()
    print(f"{'stages':>6} {'adjudicate ms/stage':>20} {'x first':>8} {'live push ms':>13} {'x first':>8}   target: flat to the cap ({ONLINE_MAX_STAGES})")
    for r in stages:
        print(f"{r['stages']:>6} {r['adjudicate_ms_per_stage']:>20} {r['ratio_adjudicate']:>8} {r['push_ms']:>13} {r['ratio_push']:>8}")
    flat = all(r["ratio_adjudicate"] < 1.3 for r in stages)
    print("per-stage cost", "flat" if flat else "NOT FLAT")
    if args.json:
        args.json.write_text(json.dumps({"long_matches": rows, "stages": stages}, indent=2) + "\n", encoding="utf-8")
    return 0 if args.quick or (all(r["ok"] for r in rows) and flat) else 1


if __name__ == "__main__":
    sys.exit(main())
