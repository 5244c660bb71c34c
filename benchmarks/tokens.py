"""Token cost of one match under each arm: the CCDB single-call protocol vs the agentic panel.

A benchmark, not a test: it renders the exact requests each arm would send for a match -- nothing is
sent -- and counts their prompt tokens with litellm's offline token counter (``--tokenizer``, default
``gpt-4o``; tiktoken's o200k encoding ships with litellm, so no network is needed), plus the
completion budget each request asks for (``max_tokens``: by default each node's own budget,
:data:`adjudicator.model.llm.NODE_MAX_TOKENS`; ``--max-tokens N`` sets one budget for every request of both
arms). One attempt per request (the protocol's re-asks are not counted for either arm).

- single-call (:mod:`adjudicator.single_call`): Task 1 (one request with the whole transcript),
  Task 2 (one request per scored (stage, side) with the entire preceding transcript), Task 3 (one
  request with the whole transcript);
- agentic (:mod:`adjudicator.judges.llm.backend`): one clash-tracker request per stage (the stage, the
  stage before it and the compact ledger) and one request per judge (three: the ledger and the
  per-unit analyses). Its ledger comes from real tracker outputs: the offline judge
  (:class:`adjudicator.judges.offline.OfflineJudge`) run over the match stage by stage, exactly as the
  tracking graph folds them. With ``--ledger llm-sized`` (the default) every free-text field of
  those outputs (side rationales, stage summaries, clash titles, positions and notes) is padded to
  the length an LLM tracker typically writes (our assumption, stated in :data:`LLM_TEXT_CHARS`),
  because the offline judge's own notes are terse; ``--ledger offline`` uses them unpadded.

Matches: the bundled real debates (``adjudicator/data/matches/panelbench/*.json``, online-1v1,
English) and synthetic CCDB 4v4 matches (:mod:`synthetic_ccdb`) whose 14-stage order is repeated
1x..4x (14-56 stages, ~21,400 Chinese characters per repeat). The growth section fits
``tokens = a + b*n + c*n^2`` over the stage count n for each arm.

British Parliamentary rounds (``--bp``, default the PanelBench BP-Competition folder beside the
repository, ``../shared/data/panelbench/BP-Competition``, converted in memory; skipped when absent):
single-call = DebateBench's three tasks (house order, speaker scores, speaker ranks), one request each
with the judging manual and all eight speeches (:mod:`adjudicator.single_call.ranking`); agentic =
eight tracker requests (one per speech) and three ranking judges.

Run from the repository root::

    .venv/bin/python benchmarks/tokens.py
    .venv/bin/python benchmarks/tokens.py --ledger offline --repeats 1,2,3,4,6 --json tokens.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_ccdb import synthetic_ccdb_view  # noqa: E402

from adjudicator.battlefield import Clash, StageAnalysis, apply_clash_updates, merge_clashes  # noqa: E402
from adjudicator.judges.base import JUDGE_PERSPECTIVES, JudgeRequest, StageRequest  # noqa: E402
from adjudicator.judges.llm.backend import LLMBackend  # noqa: E402
from adjudicator.judges.llm.ledger import ledger_text  # noqa: E402
from adjudicator.judges.llm.variables import PREVIOUS_STAGE_CHARS, excerpt, tracker_ledger  # noqa: E402
from adjudicator.judges.offline import OfflineJudge  # noqa: E402
from adjudicator.match import MatchView, load_match  # noqa: E402
from adjudicator.model.cache import NullCache  # noqa: E402
from adjudicator.model.chat import NODE_MAX_TOKENS  # noqa: E402
from adjudicator.model.llm import LLMClient, litellm_module  # noqa: E402
from adjudicator.model.prompts import PromptStore, utterance_lines  # noqa: E402
from adjudicator.single_call.tasks import task_instances  # noqa: E402

REAL_MATCHES = ROOT / "adjudicator" / "data" / "matches" / "panelbench"
BP_DIR = ROOT.parent / "shared" / "data" / "panelbench" / "BP-Competition"

#: Characters an LLM tracker typically writes per free-text field (our assumption, from what the
#: tracker prompt asks for: a few sentences of rationale per side, a one-to-two-sentence stage
#: summary, a short clash name, one-sentence positions and notes). Each is below the cap the agentic
#: prompts truncate to (judge prompt: rationale 400, summary 300; ledger: notes 80, positions 120).
LLM_TEXT_CHARS = {"rationale": 150, "summary": 100, "title": 10, "position": 40, "note": 40}
_FILLER = {
    "zh": "该方围绕核心争点展开论证并回应了对方的主要攻击，推进了己方在标准问题上的优势，但对对方提出的例证回应不够充分，整体推进有限。",
    "en": "The side pressed its main line on the central clash and answered the strongest attack, gaining ground on the standard, though one example went unanswered. ",
}


def _filler(chars: int, lang: str) -> str:
    """Neutral prose of exactly ``chars`` characters in ``lang`` (stands in for an LLM's words)."""
    base = _FILLER["zh" if lang == "zh" else "en"]
    return (base * (chars // len(base) + 1))[:chars]


def llm_sized(analysis: StageAnalysis, lang: str) -> StageAnalysis:
    """The offline analysis with its free-text fields replaced by text of the lengths in
    :data:`LLM_TEXT_CHARS` (positions only where a clash is opened, as the tracker prompt asks);
    levels, scores, clash ids, sides and event kinds unchanged."""
    c = LLM_TEXT_CHARS
    sides = [s.model_copy(update={"rationale": _filler(c["rationale"], lang)}) for s in analysis.sides]
    updates = []
    for u in analysis.clash_updates:
        opened = u.kind == "opened"
        updates.append(
            u.model_copy(
                update={
                    "title": _filler(c["title"], lang) if opened else "",
                    "note": _filler(c["note"], lang),
                    "affirmative_position": _filler(c["position"], lang) if opened else "",
                    "negative_position": _filler(c["position"], lang) if opened else "",
                }
            )
        )
    return analysis.model_copy(update={"sides": sides, "clash_updates": updates, "summary": _filler(c["summary"], lang)})


def tracker_requests(view: MatchView, ledger: str) -> tuple[list[StageRequest], dict[str, Clash], list[StageAnalysis]]:
    """Walk the match as the tracking graph does (``nodes.track_stage``): for stage i, the request
    holds the stages before it and the ledger folded from the analyses of those stages. Returns
    every stage request and the final clashes and analyses (the judges' input)."""
    tracker = OfflineJudge()
    clashes: dict[str, Clash] = {}
    analyses: list[StageAnalysis] = []
    requests = []
    for i, stage in enumerate(view.stages):
        req = StageRequest(match=view, stage=stage, index=i, previous=list(view.stages[:i]), clashes=clashes, analyses=list(analyses))
        requests.append(req)
        result = tracker.analyse_stage(req)
        if result.value is None:
            continue
        value = llm_sized(result.value, view.language) if ledger == "llm-sized" else result.value
        analyses.append(value)
        clashes = merge_clashes(clashes, apply_clash_updates(clashes, stage.stage_id, value.clash_updates))
    return requests, clashes, analyses


class Counter:
    """Prompt-token counting with litellm's offline counter for one tokenizer model."""

    def __init__(self, tokenizer: str) -> None:
        self.tokenizer = tokenizer
        self.lit = litellm_module()

    def __call__(self, messages) -> int:
        """Tokens of a chat request's messages (litellm adds its per-message overhead)."""
        return int(self.lit.token_counter(model=self.tokenizer, messages=[dict(m) for m in messages]))

    def text(self, text: str) -> int:
        """Tokens of a bare string."""
        return int(self.lit.token_counter(model=self.tokenizer, text=text)) if text else 0


def request_budget(request, budget: int | None) -> int:
    """The completion budget a request asks for: ``budget`` when set, else its node's default."""
    return budget if budget is not None else (request.max_tokens or NODE_MAX_TOKENS[request.node])


def single_call_cost(view: MatchView, store: PromptStore, count: Counter, budget: int | None) -> dict:
    """Prompt tokens per task and totals of the single-call protocol for ``view`` (tasks task1-3, or
    a ranking format's three tasks)."""
    out: dict = {"calls": 0, "budget": 0}
    tasks: dict[str, int] = {} if view.spec().verdict == "ranking" else {"task1": 0, "task2": 0, "task3": 0}
    for inst in task_instances(view, store):
        tasks[inst.task] = tasks.get(inst.task, 0) + count(inst.request.messages)
        out["calls"] += 1
        out["budget"] += request_budget(inst.request, budget)
    out.update(tasks)
    out["prompt"] = sum(tasks.values())
    out["total"] = out["prompt"] + out["budget"]
    return out


def agentic_cost(view: MatchView, backend: LLMBackend, count: Counter, budget: int | None, ledger: str) -> dict:
    """Prompt tokens of the agentic arm for ``view``: trackers (one per stage) and the three judges,
    with an approximate split of the tracker prompts into system message, the stage's text, the
    previous stage's text, the ledger and the rest of the user message (headings, task, fences)."""
    requests, clashes, analyses = tracker_requests(view, ledger)
    lang = view.language
    parts = {"system": 0, "stage_text": 0, "previous_text": 0, "ledger": 0, "rest": 0}
    track = 0
    spent = 0
    for r in requests:
        chat = backend.stage_prompt(r)
        spent += request_budget(chat, budget)
        messages = chat.messages
        total = count(messages)
        system = count(messages[:1])
        stage_text = count.text(utterance_lines(r.stage.utterances))
        prev_text = count.text(excerpt(utterance_lines(r.previous[-1].utterances), PREVIOUS_STAGE_CHARS[lang])) if r.previous else 0
        ledger_tokens = count.text(ledger_text(backend.prompts, tracker_ledger(r), lang))
        parts["system"] += system
        parts["stage_text"] += stage_text
        parts["previous_text"] += prev_text
        parts["ledger"] += ledger_tokens
        parts["rest"] += total - system - stage_text - prev_text - ledger_tokens
        track += total
    judges = 0
    for judge_id, perspective in JUDGE_PERSPECTIVES.items():
        jr = JudgeRequest(judge_id=judge_id, perspective=perspective, match=view, clashes=clashes, analyses=analyses)
        chat = backend.judge_prompt(jr)
        spent += request_budget(chat, budget)
        judges += count(chat.messages)
    calls = len(requests) + len(JUDGE_PERSPECTIVES)
    return {"track": track, "judges": judges, "calls": calls, "prompt": track + judges, "budget": spent,
            "total": track + judges + spent, "clashes": len(clashes), "track_parts": parts}


def fit_growth(n: list[int], y: list[int]) -> dict:
    """Least-squares ``y = a + b n + c n^2`` and ``y = a + b n``; R^2 of each; and the share of the
    quadratic term in y at the largest n. Needs at least 3 points for the quadratic fit."""
    x = np.asarray(n, dtype=float)
    v = np.asarray(y, dtype=float)
    ss = float(((v - v.mean()) ** 2).sum())

    def r2(pred: np.ndarray) -> float:
        return 1.0 - float(((v - pred) ** 2).sum()) / ss if ss > 0 else float("nan")

    b1, a1 = np.polyfit(x, v, 1)
    c2, b2, a2 = np.polyfit(x, v, 2)
    quad = np.polyval([c2, b2, a2], x)
    return {
        "linear": {"a": float(a1), "b": float(b1), "r2": r2(np.polyval([b1, a1], x))},
        "quadratic": {"a": float(a2), "b": float(b2), "c": float(c2), "r2": r2(quad)},
        "quadratic_share_at_max": float(c2 * x[-1] ** 2 / v[-1]),
        "growth_first_to_last": float(v[-1] / v[0]),
    }


def bp_rows(bp_dir: Path, store: PromptStore, backend: LLMBackend, count: Counter, budget: int | None, ledger: str) -> list[dict]:
    """Print and return the BP table: per round, the single-call arm's three tasks and the agentic
    arm's trackers and judges (prompt tokens; totals with the completion budget). Empty when
    ``bp_dir`` does not exist."""
    from adjudicator.convert_bp import bp_matches, find_bp_dir

    found = find_bp_dir(bp_dir) if bp_dir.exists() else None
    if found is None:
        print(f"\nBritish Parliamentary rounds: {bp_dir} not found; skipped (give --bp).")
        return []
    rows = []
    for match in bp_matches(found):
        view = match.view()
        sc = single_call_cost(view, store, count, budget)
        ag = agentic_cost(view, backend, count, budget, ledger)
        chars = sum(len(u.text) for s in view.stages for u in s.utterances)
        rows.append({"match_id": view.match_id, "stages": len(view.stages), "chars": chars, "single_call": sc, "agentic": ag, "ratio_total": ag["total"] / sc["total"], "ratio_prompt": ag["prompt"] / sc["prompt"]})
    print(f"\nBritish Parliamentary rounds ({found}): single-call = DebateBench's three tasks, agentic = 8 trackers + 3 ranking judges.")
    head = (f"{'round':<10}{'speeches':>9}{'chars':>8} | {'SC order':>9}{'SC scores':>10}{'SC ranks':>9}{'SC calls':>9}{'SC total':>10}"
            f" | {'AG track':>9}{'AG judges':>10}{'AG calls':>9}{'AG total':>10} | {'AG/SC prompt':>12}{'AG/SC total':>12}")
    print(head)
    print("-" * len(head))
    for r in rows:
        sc, ag = r["single_call"], r["agentic"]
        print(f"{r['match_id']:<10}{r['stages']:>9}{r['chars']:>8} | {_k(sc['bp_house_order']):>9}{_k(sc['bp_speaker_scores']):>10}{_k(sc['bp_speaker_ranks']):>9}"
              f"{sc['calls']:>9}{_k(sc['total']):>10} | {_k(ag['track']):>9}{_k(ag['judges']):>10}{ag['calls']:>9}{_k(ag['total']):>10}"
              f" | {r['ratio_prompt']:>11.1%}{r['ratio_total']:>12.1%}")
    if rows:
        sc_prompt = np.mean([r["single_call"]["prompt"] for r in rows])
        ag_prompt = np.mean([r["agentic"]["prompt"] for r in rows])
        print(f"mean over {len(rows)} rounds: single-call {_k(sc_prompt)} prompt tokens, agentic {_k(ag_prompt)} ({ag_prompt / sc_prompt:.1%}); totals with budget "
              f"{_k(np.mean([r['single_call']['total'] for r in rows]))} vs {_k(np.mean([r['agentic']['total'] for r in rows]))}.")
    return rows


def _k(x: float) -> str:
    return f"{x / 1000:,.1f}k"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokenizer", default="gpt-4o", help="litellm model whose tokenizer counts (offline), default gpt-4o")
    ap.add_argument("--max-tokens", type=int, default=None, help="one completion budget for every request (default: each node's own, adjudicator.model.llm.NODE_MAX_TOKENS)")
    ap.add_argument("--repeats", default="1,2,3,4", help="synthetic CCDB 4v4 stage-order repeats, e.g. 1,2,3,4")
    ap.add_argument("--ledger", choices=["llm-sized", "offline"], default="llm-sized", help="tracker outputs feeding the agentic ledger")
    ap.add_argument("--bp", type=Path, default=BP_DIR, help="PanelBench BP-Competition folder (default: ../shared/data/panelbench/BP-Competition; skipped when absent)")
    ap.add_argument("--json", dest="json_out", type=Path, help="also write every number as JSON here")
    args = ap.parse_args(argv)
    repeats = [int(r) for r in args.repeats.split(",") if r.strip()]

    t0 = time.monotonic()
    store = PromptStore()
    backend = LLMBackend(LLMClient(args.tokenizer, cache=NullCache()), store)
    count = Counter(args.tokenizer)
    rows = []
    for path in sorted(REAL_MATCHES.glob("*.json")):
        view = load_match(path).view()
        rows.append(("real", view, len(view.stages)))
    for r in repeats:
        view = synthetic_ccdb_view(r)
        rows.append((f"ccdb x{r}", view, len(view.stages)))

    results = []
    for kind, view, n in rows:
        sc = single_call_cost(view, store, count, args.max_tokens)
        ag = agentic_cost(view, backend, count, args.max_tokens, args.ledger)
        chars = sum(len(u.text) for s in view.stages for u in s.utterances)
        results.append({"kind": kind, "match_id": view.match_id, "stages": n, "units": len(view.scored_units()), "chars": chars,
                        "single_call": sc, "agentic": ag,
                        "ratio_total": ag["total"] / sc["total"], "ratio_prompt": ag["prompt"] / sc["prompt"]})

    print(f"Tokens per match, counted offline with litellm.token_counter(model={args.tokenizer!r}); completion budget "
          f"{args.max_tokens or 'per node ' + str(NODE_MAX_TOKENS)} per request; agentic ledger: {args.ledger}; nothing is sent.\n")
    head = (f"{'match':<28}{'stages':>6}{'units':>6}{'chars':>8} | {'SC T1':>8}{'SC T2':>9}{'SC T3':>8}{'SC calls':>9}{'SC total':>10}"
            f" | {'AG track':>9}{'AG judges':>10}{'AG calls':>9}{'AG total':>10} | {'AG/SC prompt':>12}{'AG/SC total':>12}")
    print(head)
    print("-" * len(head))
    for r in results:
        sc, ag = r["single_call"], r["agentic"]
        print(f"{r['match_id']:<28}{r['stages']:>6}{r['units']:>6}{r['chars']:>8} | {_k(sc['task1']):>8}{_k(sc['task2']):>9}{_k(sc['task3']):>8}"
              f"{sc['calls']:>9}{_k(sc['total']):>10} | {_k(ag['track']):>9}{_k(ag['judges']):>10}{ag['calls']:>9}{_k(ag['total']):>10}"
              f" | {r['ratio_prompt']:>11.1%}{r['ratio_total']:>12.1%}")
    print("\nSC = single-call protocol (T1/T2/T3 prompt tokens), AG = agentic panel (tracker and judge prompt tokens);"
          " 'total' = prompt tokens + calls x completion budget.")

    synth = [r for r in results if r["kind"].startswith("ccdb")]
    growth = {}
    if len(synth) >= 3:
        n = [r["stages"] for r in synth]
        series = {
            "single-call Task 2 prompt": [r["single_call"]["task2"] for r in synth],
            "single-call all prompt": [r["single_call"]["prompt"] for r in synth],
            "agentic all prompt": [r["agentic"]["prompt"] for r in synth],
            "agentic tracker prompt": [r["agentic"]["track"] for r in synth],
        }
        print(f"\nGrowth with the number of stages (synthetic CCDB, n = {', '.join(map(str, n))}); fit tokens = a + b*n + c*n^2:")
        print(f"{'series':<28}{'tokens at each n':>40}  {'c (per n^2)':>12}{'b (per n)':>11}{'R2 lin':>8}{'R2 quad':>8}{'c*n^2 share':>12}{'x growth':>9}")
        for name, y in series.items():
            g = fit_growth(n, y)
            growth[name] = g
            print(f"{name:<28}{' '.join(_k(v) for v in y):>40}  {g['quadratic']['c']:>12.1f}{g['quadratic']['b']:>11.0f}"
                  f"{g['linear']['r2']:>8.4f}{g['quadratic']['r2']:>8.4f}{g['quadratic_share_at_max']:>11.1%}{g['growth_first_to_last']:>8.1f}x")
        print(f"(stage count grows {n[-1] / n[0]:.0f}x: a linear series grows ~{n[-1] / n[0]:.0f}x, a quadratic one up to ~{(n[-1] / n[0]) ** 2:.0f}x)")

    full = next((r for r in synth if r["stages"] == 14), None)
    if full:
        verdict = "meets" if full["ratio_total"] <= 0.40 else "MISSES"
        print(f"\nFull 4v4-length match (14 stages, {full['chars']:,} characters): agentic {full['agentic']['total']:,} vs single-call "
              f"{full['single_call']['total']:,} tokens (prompt + budget) = {full['ratio_total']:.1%}; prompt only {full['ratio_prompt']:.1%}. "
              f"Target <= 40%: {verdict}.")
    if full:
        parts = full["agentic"]["track_parts"]
        print("Agentic tracker prompt tokens on that match, by part (approx.): "
              + ", ".join(f"{k.replace('_', ' ')} {_k(v)}" for k, v in parts.items())
              + f"; judges {_k(full['agentic']['judges'])} for three; {full['agentic']['clashes']} clashes in the final ledger.")
    bp = bp_rows(args.bp, store, backend, count, args.max_tokens, args.ledger)
    print(f"[{time.monotonic() - t0:.1f}s]", file=sys.stderr)
    if args.json_out:
        args.json_out.write_text(json.dumps({"tokenizer": args.tokenizer, "max_tokens": args.max_tokens, "ledger": args.ledger,
                                             "matches": [{k: v for k, v in r.items()} for r in results], "growth": growth, "bp": bp}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
