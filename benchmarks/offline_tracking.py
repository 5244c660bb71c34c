"""Time per stage of the offline clash tracker as a debate grows: flat means linear tracking.

    .venv/bin/python benchmarks/offline_tracking.py [--repeats 1,2,4] [--runs 3] [--quick] [--json FILE]

For each length, the clash-tracking graph (``adjudicator.workflow.tracking``, the graph every
adjudication and every live push runs) walks a whole match with the offline judge; the wall time of
the walk, the best of ``--runs``, is divided by the number of stages. Matches:

- Chinese: the synthetic CCDB 4v4 match of ``benchmarks/synthetic_ccdb.py`` with its 14-stage order
  repeated 1x, 2x, 4x (14, 28, 56 stages, ~21,400 characters per repeat; synthetic, not real data);
- English: the real DebateArt debate ``debateart_4389`` (8 speeches, ~16,000 characters) with its
  speeches repeated the same number of times (8, 16, 32 stages; the repeats say again what was said,
  which the tracker treats as repetition, not new clash work).

Each length also runs as live pushes would: the match is fed one stage per invocation of the same
backend (a fresh graph state each time holding every stage so far), and the time of the last
stage's invocation is reported (what the latest push costs at that length).

Target (issue 15): the time per stage at the longest length within 4.5 / 4 = 1.125x of the shortest
(56 stages within 4.5x the time of 14).

``--quick`` (CI, so the script cannot rot): each match at its own length (``--repeats 1``), one walk;
the ratio is then 1.00 by construction.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_ccdb import synthetic_ccdb_view  # noqa: E402

from adjudicator.api import initial_state, run_config  # noqa: E402
from adjudicator.input.match import MatchView  # noqa: E402
from adjudicator.input.match_file import load_match  # noqa: E402
from adjudicator.judges.offline import OfflineJudge  # noqa: E402
from adjudicator.workflow.context import AdjudicationContext  # noqa: E402
from adjudicator.workflow.tracking import compiled  # noqa: E402

ENGLISH = REPO / "adjudicator/data/matches/panelbench/debateart_4389.json"
TARGET_RATIO = 4.5


def english_view(repeats: int) -> MatchView:
    """debateart_4389 with its speeches repeated ``repeats`` times (stage ids made unique)."""
    view = load_match(ENGLISH).view()
    stages = [s.model_copy(update={"stage_id": f"{s.stage_id}-r{r}", "name": f"{s.name} (repeat {r})"})
              for r in range(1, repeats + 1) for s in view.stages]
    return view.model_copy(update={"stages": stages, "match_id": f"{view.match_id}-x{repeats}"})


def walk_s(view: MatchView, backend: OfflineJudge | None = None) -> float:
    """Wall seconds of one tracking-graph walk over ``view`` with the offline judge."""
    ctx = AdjudicationContext.single(backend or OfflineJudge())
    t0 = time.perf_counter()
    state = compiled().invoke(initial_state(view), config=run_config(view), context=ctx)
    elapsed = time.perf_counter() - t0
    assert len(state["analyses"]) == len(view.stages), "a stage failed"
    return elapsed


def last_push_s(view: MatchView) -> float:
    """Seconds of the last of one-stage-at-a-time invocations on one backend (as live pushes run)."""
    backend = OfflineJudge()
    ctx = AdjudicationContext.single(backend)
    state: dict = {"match": view.model_copy(update={"stages": []}), "stages": [], "next_stage": 0}
    elapsed = 0.0
    for stage in view.stages:
        state = {**state, "stages": [*state["stages"], stage]}
        t0 = time.perf_counter()
        state = compiled().invoke(state, config=run_config(view), context=ctx)
        elapsed = time.perf_counter() - t0
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", default="1,2,4", help="stage-order repeats, e.g. 1,2,4 (default)")
    ap.add_argument("--runs", type=int, default=3, help="walks per length; the best is reported (default 3)")
    ap.add_argument("--quick", action="store_true", help="each match at its own length, one walk (CI: the script still runs)")
    ap.add_argument("--json", dest="json_out", type=Path, help="also write every number as JSON here")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeats, args.runs = "1", 1
    repeats = [int(r) for r in args.repeats.split(",") if r.strip()]
    walk_s(synthetic_ccdb_view(1))  # warm-up: imports, graph compilation

    results = []
    print(f"Offline clash tracking, whole walk through the tracking graph (best of {args.runs}), and the last of one-stage pushes.\n")
    head = f"{'match':<34}{'stages':>7}{'chars':>9}{'walk s':>9}{'ms/stage':>10}{'last push ms':>14}"
    print(head)
    print("-" * len(head))
    for lang, make in (("zh", synthetic_ccdb_view), ("en", english_view)):
        rows = []
        for r in repeats:
            view = make(r)
            walk = min(walk_s(view) for _ in range(args.runs))
            push = last_push_s(view)
            n = len(view.stages)
            chars = sum(len(u.text) for s in view.stages for u in s.utterances)
            row = {"language": lang, "match": view.match_id, "stages": n, "chars": chars, "walk_s": walk, "per_stage_s": walk / n, "last_push_s": push}
            rows.append(row)
            print(f"{view.match_id:<34}{n:>7}{chars:>9,}{walk:>9.2f}{walk / n * 1000:>10.1f}{push * 1000:>14.1f}")
        first, last = rows[0], rows[-1]
        length = last["stages"] / first["stages"]
        ratio = last["walk_s"] / first["walk_s"]
        ok = ratio <= TARGET_RATIO * length / 4
        print(f"  {lang}: {last['stages']} stages take {ratio:.2f}x the time of {first['stages']} ({length:.0f}x the stages; per stage {last['per_stage_s'] / first['per_stage_s']:.2f}x)."
              f" Target {TARGET_RATIO * length / 4:.2f}x: {'met' if ok else 'NOT MET'}.")
        results += rows
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
