"""Helpers to read PanelBench DebateArt debates as online-1v1 matches, and a script that measures the
offline judge's winner accuracy on them by simulating the panel (majority of three ballots).

Run from the repository root::

    .venv/bin/python tests/offline_debateart.py [--data /work/shared/data/panelbench/DebateArt] [-v]

Each speech becomes one monologue stage: a side's first speech is "constructive", its last "closing",
those between "supplementary"; debaters are position 1 on each side, affirmative = pro, negative = con.
Gold: label 1.0 = pro won, 0.0 = con won, 0.5 = tie (ties are excluded from accuracy).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from adjudicator.input.match import Match  # noqa: E402
from adjudicator.judges.base import JUDGE_PERSPECTIVES, JudgeRequest, StageRequest  # noqa: E402
from adjudicator.judges.offline import OfflineBackend  # noqa: E402
from adjudicator.verdict.ballots import Ballot  # noqa: E402
from adjudicator.verdict.battlefield import apply_clash_updates, merge_clashes  # noqa: E402

DEBATEART = Path("/work/shared/data/panelbench/DebateArt")


def load_gold(root: Path = DEBATEART) -> dict[str, float]:
    """dart id (e.g. "0017") -> label (1.0 pro won, 0.0 con won, 0.5 tie)."""
    with open(root / "gold" / "final.csv", newline="") as fh:
        return {f"{int(r['dart_id']):04d}": float(r["label"]) for r in csv.DictReader(fh)}


def debateart_match(dart_id: str, root: Path = DEBATEART, swap: bool = False) -> Match:
    """Build an online-1v1 Match from ``speech/debateart_<id>.yml`` and ``motion/...``.

    ``swap=True`` exchanges the sides' texts (the pro debater's speeches are attributed to the
    negative and vice versa), keeping the speaking order."""
    speech = yaml.safe_load((root / "speech" / f"debateart_{dart_id}.yml").read_text(encoding="utf-8"))
    motion = yaml.safe_load((root / "motion" / f"debateart_{dart_id}.yml").read_text(encoding="utf-8"))
    pro = {d["name"] for d in motion["pro_side"]}
    side_of = {}
    for s in speech:
        is_pro = s["debater_name"] in pro
        side_of[s["debater_name"]] = ("negative" if is_pro else "affirmative") if swap else ("affirmative" if is_pro else "negative")
    sides = [side_of[s["debater_name"]] for s in speech]
    stages = []
    for i, (s, side) in enumerate(zip(speech, sides)):
        own = [j for j, x in enumerate(sides) if x == side]
        kind = "constructive" if i == own[0] else "closing" if i == own[-1] else "supplementary"
        label = f"{side.capitalize()} Speaker 1"
        text = (s.get("content") or "").strip() or "(no speech)"
        stages.append(
            {
                "stage_id": f"s{i + 1:02d}",
                "name": f"{side.capitalize()} {kind} ({i + 1})",
                "type": kind,
                "sides": [side],
                "speakers": [label],
                "utterances": [{"speaker": label, "side": side, "text": text}],
            }
        )
    return Match.model_validate(
        {
            "match_id": f"debateart_{dart_id}" + ("_swapped" if swap else ""),
            "format": "online-1v1",
            "language": "en",
            "motion": str(motion["motion"]),
            "affirmative_position": "Pro: " + str(motion["motion"]),
            "negative_position": "Con: against " + str(motion["motion"]),
            "debaters": [{"side": "affirmative", "position": 1}, {"side": "negative", "position": 1}],
            "stages": stages,
        }
    )


def run_panel(match: Match, backend: OfflineBackend | None = None) -> tuple[list[Ballot], dict, list]:
    """Track every stage in order (folding clash updates with the battlefield reducers), then run the
    three judges. Returns (ballots, clashes, analyses)."""
    backend = backend or OfflineBackend()
    view = match.view()
    clashes: dict = {}
    analyses: list = []
    for i, stage in enumerate(view.stages):
        res = backend.analyse_stage(StageRequest(match=view, stage=stage, index=i, previous=view.stages[:i], clashes=clashes, analyses=analyses))
        assert res.value is not None, res.failure
        clashes = merge_clashes(clashes, apply_clash_updates(clashes, stage.stage_id, res.value.clash_updates))
        analyses = analyses + [res.value]
    ballots = []
    for jid, persp in JUDGE_PERSPECTIVES.items():
        res = backend.judge(JudgeRequest(judge_id=jid, perspective=persp, match=view, clashes=clashes, analyses=analyses))
        assert res.value is not None, res.failure
        ballots.append(res.value)
    return ballots, clashes, analyses


def panel_winner(ballots: list[Ballot]) -> str:
    """Majority of the ballots' winners."""
    aff = sum(b.winner == "affirmative" for b in ballots)
    return "affirmative" if aff * 2 > len(ballots) else "negative"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEBATEART)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    gold = load_gold(args.data)
    preds: dict[str, str] = {}
    for dart_id, label in sorted(gold.items()):
        if label == 0.5:
            continue
        ballots, clashes, analyses = run_panel(debateart_match(dart_id, args.data))
        preds[dart_id] = panel_winner(ballots)
        if args.verbose:
            ps = " ".join(f"{b.p:.2f}" for b in ballots)
            scores = " ".join(f"{sa.side[0]}{sa.suggested_score}" for a in analyses for sa in a.sides)
            print(f"{dart_id} label={label} pred={preds[dart_id][:3]} p=[{ps}] clashes={len(clashes)} {scores}")
    total = len(preds)
    n_aff = sum(p == "affirmative" for p in preds.values())
    # Convention A (PROVENANCE.md): 1.0 = pro (affirmative) won. Convention B: 1.0 = con won (see report).
    for name, pro_label in (("A: 1.0 = pro won (PROVENANCE.md)", 1.0), ("B: 1.0 = con won", 0.0)):
        truth = {d: ("affirmative" if gold[d] == pro_label else "negative") for d in preds}
        correct = sum(preds[d] == truth[d] for d in preds)
        aff = sum(t == "affirmative" for t in truth.values())
        print(f"[{name}] offline panel winner accuracy on DebateArt: {correct}/{total} = {correct / total:.3f} "
              f"(predicted affirmative {n_aff}/{total}; always-affirmative baseline {aff}/{total} = {aff / total:.3f})")


if __name__ == "__main__":
    main()
