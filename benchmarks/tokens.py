"""Token cost of one match under each arm: the CCDB single-call protocol vs the agentic panel.

A benchmark, not a test: it renders the exact requests each arm would send for a match -- nothing is
sent -- and counts what each request really carries:

- **input** = the chat messages (litellm's ``token_counter``, its per-message overhead included) plus
  the response schema sent with the request (the ``response_format`` the client builds in
  ``--json-mode schema``, counted as its JSON text; a provider turns the schema into its own prompt
  text, whose exact size it does not publish, so this is an estimate of that part);
- **completion estimate** = each request's answer written at the lengths a model typically writes
  (:mod:`sized_answers`: every free-text field at a stated length, :data:`sized_answers.ANSWER_CHARS`),
  counted with the same tokenizer: the answer the loopback bench (``benchmarks/tokens_bench.py``)
  gets, so this estimate and that bench's samples agree; the targets compare prompt plus completion;
- **ceiling** = calls x the completion budget each request asks for (``max_tokens``: by default each
  node's own, :data:`adjudicator.model.chat.NODE_MAX_TOKENS`; ``--max-tokens N`` one budget for all).
  A ceiling, not spend: what a run really completes is read from a bench run with ``--run DIR``;
- **cacheable prefix**: the share of an arm's input tokens that repeat, token for token, the start of
  an earlier request of the same match (what a provider's prompt cache could serve), and the share
  under OpenAI's rule (only prompts of 1,024 tokens or more; cached in steps of 128 tokens past 1,024).
  The schema is left out of the prefix (where a provider places it in its prompt is not published).

The tokenizer is ``--tokenizer`` (default ``gpt-4o``) as litellm's offline counter resolves it; the
table's first line names the encoding (tiktoken's o200k_base for the gpt-4o family; it ships with
litellm, so no network is needed). One attempt per request (re-asks are not counted for either arm).

- single-call (:mod:`adjudicator.single_call`): Task 1 (one request with the whole transcript),
  Task 2 (one request per scored (stage, side) with the entire preceding transcript), Task 3 (one
  request with the whole transcript);
- agentic (:mod:`adjudicator.judges.llm.backend`): one clash-tracker request per stage (the stage, the
  stage before it and the compact ledger) -- or, under ``--track-window-chars N`` (default: the
  library's default), one per stage window (:mod:`adjudicator.workflow.windows`: consecutive stages
  within N characters, at most six, read with the ledger as it stood before the window), the
  one-request-per-stage figure then shown beside it -- and one request per judge (three: the ledger and the
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

British Parliamentary rounds (``--bp``, default ``panelbench/BP-Competition`` in the checkout, else ``../shared/data/panelbench/BP-Competition``,
converted in memory; skipped when absent): single-call = DebateBench's three tasks, one request each
with all eight speeches; agentic = eight trackers and three ranking judges; pairwise = the same eight
trackers and a pairwise panel (``--panel pairwise``: three judges x 68 ordered comparisons, 12 of
houses and 56 of speeches, each with the compact ledger, both competitors' analyses and bounded
excerpts).

Targets (issue 15; issue 32 counts prompt plus completion): agentic at most 90% of single-call on each
bundled DebateArt match and at most 35% on the 14-stage 4v4 match; the agentic arm's growth linear in
the stages.

Run from the repository root::

    .venv/bin/python benchmarks/tokens.py
    .venv/bin/python benchmarks/tokens.py --ledger offline --repeats 1,2,3,4,6 --json tokens.json
    .venv/bin/python benchmarks/tokens.py --run runs/<run>   # also: completion tokens a real run spent
    .venv/bin/python benchmarks/tokens.py --track-window-chars 3000   # the tracker in stage windows
    .venv/bin/python benchmarks/tokens.py --quick   # CI: debateart_0020 alone
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

from sized_answers import sized_answer  # noqa: E402
from synthetic_ccdb import synthetic_ccdb_view  # noqa: E402

from adjudicator.config import ModelConfig  # noqa: E402
from adjudicator.input.match import MatchView  # noqa: E402
from adjudicator.input.match_file import load_match  # noqa: E402
from adjudicator.judges.base import JUDGE_PERSPECTIVES, CompareRequest, JudgeRequest, StageRequest  # noqa: E402
from adjudicator.judges.llm.backend import LLMBackend  # noqa: E402
from adjudicator.judges.llm.ledger import ledger_text  # noqa: E402
from adjudicator.judges.llm.variables import PREVIOUS_STAGE_CHARS, excerpt, tracker_ledger  # noqa: E402
from adjudicator.judges.offline import OfflineJudge  # noqa: E402
from adjudicator.model.cache import NullCache  # noqa: E402
from adjudicator.model.chat import NODE_MAX_TOKENS  # noqa: E402
from adjudicator.model.litellm_setup import litellm_module  # noqa: E402
from adjudicator.model.llm import LLMClient  # noqa: E402
from adjudicator.model.prompts import PromptStore, utterance_lines  # noqa: E402
from adjudicator.pairwise.comparisons import schedule  # noqa: E402
from adjudicator.single_call.tasks import task_instances  # noqa: E402
from adjudicator.verdict.battlefield import Clash, StageAnalysis, apply_clash_updates, merge_clashes  # noqa: E402
from adjudicator.workflow.windows import MAX_WINDOW_STAGES, windows  # noqa: E402

REAL_MATCHES = ROOT / "adjudicator" / "data" / "matches" / "panelbench"
#: Where README's "Getting PanelBench" puts the BP rounds; on the team's machine, the shared copy beside the checkout.
BP_DIR = next((d for d in (ROOT / "panelbench" / "BP-Competition", ROOT.parent / "shared" / "data" / "panelbench" / "BP-Competition") if d.is_dir()), ROOT / "panelbench" / "BP-Competition")

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
    """Token counting with litellm's offline counter for one tokenizer model; also the response
    schema a request carries (as the client in ``--json-mode schema`` sends it) and token ids for
    the cacheable-prefix measure."""

    def __init__(self, tokenizer: str, client: LLMClient) -> None:
        self.tokenizer = tokenizer
        self.client = client
        self.lit = litellm_module()

    def __call__(self, messages) -> int:
        """Tokens of a chat request's messages (litellm adds its per-message overhead)."""
        return int(self.lit.token_counter(model=self.tokenizer, messages=[dict(m) for m in messages]))

    def text(self, text: str) -> int:
        """Tokens of a bare string."""
        return int(self.lit.token_counter(model=self.tokenizer, text=text)) if text else 0

    def schema(self, chat) -> int:
        """Tokens of the response format sent with ``chat`` (its JSON text; 0 without a schema)."""
        rf = self.client.response_format(chat.schema, chat.schema_name)
        return self.text(json.dumps(rf, ensure_ascii=False)) if rf else 0

    def completion(self, chat) -> int:
        """Estimated completion tokens of the answer to ``chat``: an answer of the stated sizes
        (:func:`sized_answers.sized_answer`, the answer the loopback bench's server gives) counted
        with this tokenizer."""
        body = {"messages": [dict(m) for m in chat.messages], "response_format": self.client.response_format(chat.schema, chat.schema_name)}
        return self.text(sized_answer(body))

    def ids(self, messages) -> np.ndarray:
        """Token ids of the messages written one after another (role, then content): the sequence
        a prompt cache matches prefixes of."""
        flat = "".join(f"{m['role']}\n{m['content']}\n" for m in messages)
        return np.asarray(self.lit.encode(model=self.tokenizer, text=flat), dtype=np.int64)

    def encoding(self) -> str:
        """The name of the tokenizer litellm counts ``self.tokenizer`` with."""
        try:
            from litellm.litellm_core_utils.token_counter import openai_tokenizer_encoding_name
            from litellm.utils import huggingface_tokenizer_kind

            kind = huggingface_tokenizer_kind(self.tokenizer)
            return f"Hugging Face {kind} tokenizer" if kind else f"tiktoken {openai_tokenizer_encoding_name(self.tokenizer)}"
        except Exception:  # another litellm release: name what we can
            return "litellm's choice for this model"


#: OpenAI's prompt caching: prompts of at least this many tokens, cached in steps of CACHE_STEP beyond it.
CACHE_MIN_TOKENS = 1024
CACHE_STEP = 128


class PrefixMeter:
    """The cacheable prefix of a sequence of requests (one arm on one match, in sending order): for
    each request, its longest token prefix shared with any earlier one."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []
        self.tokens = 0
        self.shared = 0
        self.openai = 0

    def add(self, ids: np.ndarray) -> None:
        best = 0
        for prev in self.seen:
            n = min(len(prev), len(ids))
            if n <= best:
                continue
            diff = np.flatnonzero(prev[:n] != ids[:n])
            best = max(best, int(diff[0]) if diff.size else n)
        self.seen.append(ids)
        self.tokens += len(ids)
        self.shared += best
        if len(ids) >= CACHE_MIN_TOKENS and best >= CACHE_MIN_TOKENS:
            self.openai += CACHE_MIN_TOKENS + (best - CACHE_MIN_TOKENS) // CACHE_STEP * CACHE_STEP

    def shares(self) -> dict:
        return {"prefix_share": self.shared / self.tokens if self.tokens else 0.0, "openai_cached_share": self.openai / self.tokens if self.tokens else 0.0}


def request_budget(request, budget: int | None) -> int:
    """The completion budget a request asks for: ``budget`` when set, else its node's default."""
    return budget if budget is not None else (request.max_tokens or NODE_MAX_TOKENS[request.node])


def single_call_cost(view: MatchView, store: PromptStore, count: Counter, budget: int | None) -> dict:
    """Input tokens (messages; schema) per task and totals of the single-call protocol for ``view``
    (tasks task1-3, or a ranking format's three tasks), the ceiling and the cacheable prefix."""
    out: dict = {"calls": 0, "ceiling": 0, "schema": 0, "completion": 0}
    tasks: dict[str, int] = {} if view.spec().verdict == "ranking" else {"task1": 0, "task2": 0, "task3": 0}
    meter = PrefixMeter()
    for inst in task_instances(view, store):
        schema = count.schema(inst.request)
        tasks[inst.task] = tasks.get(inst.task, 0) + count(inst.request.messages) + schema
        out["schema"] += schema
        out["calls"] += 1
        out["ceiling"] += request_budget(inst.request, budget)
        out["completion"] += count.completion(inst.request)
        meter.add(count.ids(inst.request.messages))
    out.update(tasks)
    out["input"] = sum(tasks.values())
    out["total"] = out["input"] + out["completion"]
    out.update(meter.shares())
    return out


def tracker_windows(view: MatchView, backend: LLMBackend, requests: list[StageRequest], window_chars: int) -> list[list[StageRequest]]:
    """The tracker's requests grouped as the tracking graph sends them: one window per request
    (:func:`adjudicator.workflow.windows.windows` under ``window_chars``, when the backend reads
    windows for the format; else one stage each). Every stage of a window carries the ledger as it
    stood before the window, as ``nodes.window_update`` builds it."""
    spans = windows(view.stages, window_chars) if window_chars > 0 and backend.supports_windows(view.format) else [(i, 1) for i in range(len(requests))]
    out = []
    for start, n in spans:
        first = requests[start]
        out.append([first] + [requests[k].model_copy(update={"clashes": first.clashes, "analyses": first.analyses}) for k in range(start + 1, start + n)])
    return out


def agentic_cost(view: MatchView, backend: LLMBackend, count: Counter, budget: int | None, ledger: str, window_chars: int = 0) -> dict:
    """Input tokens (messages plus schema) of the agentic arm for ``view``: trackers (one request per
    stage, or per stage window under ``window_chars``, :func:`tracker_windows`) and the three judges,
    the ceiling and the cacheable prefix (trackers in stage order, then the judges), with an
    approximate split of the tracker inputs into system message, the stages' text, the previous
    stage's text, the ledger, the schema and the rest of the user message (headings, task, fences)."""
    requests, clashes, analyses = tracker_requests(view, ledger)
    groups = tracker_windows(view, backend, requests, window_chars)
    lang = view.language
    parts = {"system": 0, "stage_text": 0, "previous_text": 0, "ledger": 0, "schema": 0, "rest": 0}
    track = 0
    ceiling = 0
    completion = 0
    meter = PrefixMeter()
    for group in groups:
        r = group[0]
        chat = backend.window_prompt(group) if len(group) > 1 else backend.stage_prompt(r)
        ceiling += request_budget(chat, budget * len(group) if budget is not None else None)
        messages = chat.messages
        total = count(messages)
        schema = count.schema(chat)
        system = count(messages[:1])
        stage_text = sum(count.text(utterance_lines(g.stage.utterances)) for g in group)
        prev_text = count.text(excerpt(utterance_lines(r.previous[-1].utterances), PREVIOUS_STAGE_CHARS[lang])) if r.previous else 0
        ledger_tokens = count.text(ledger_text(backend.prompts, tracker_ledger(r), lang))
        parts["system"] += system
        parts["stage_text"] += stage_text
        parts["previous_text"] += prev_text
        parts["ledger"] += ledger_tokens
        parts["schema"] += schema
        parts["rest"] += total - system - stage_text - prev_text - ledger_tokens
        track += total + schema
        completion += count.completion(chat)
        meter.add(count.ids(messages))
    judges = 0
    judge_schema = 0
    for judge_id, perspective in JUDGE_PERSPECTIVES.items():
        jr = JudgeRequest(judge_id=judge_id, perspective=perspective, match=view, clashes=clashes, analyses=analyses)
        chat = backend.judge_prompt(jr)
        ceiling += request_budget(chat, budget)
        schema = count.schema(chat)
        judge_schema += schema
        judges += count(chat.messages) + schema
        completion += count.completion(chat)
        meter.add(count.ids(chat.messages))
    calls = len(groups) + len(JUDGE_PERSPECTIVES)
    return {"track": track, "track_calls": len(groups), "judges": judges, "calls": calls, "input": track + judges, "schema": parts["schema"] + judge_schema,
            "completion": completion, "total": track + judges + completion,
            "ceiling": ceiling, "clashes": len(clashes), "track_parts": parts, **meter.shares()}


def pairwise_cost(view: MatchView, backend: LLMBackend, count: Counter, budget: int | None, ledger: str) -> dict:
    """Input tokens (messages plus schema) of a pairwise panel for ``view``: the same trackers as the
    agentic arm, then every judge's ordered comparisons (:func:`~adjudicator.pairwise.comparisons.schedule`),
    and the ceiling."""
    requests, clashes, analyses = tracker_requests(view, ledger)
    track = ceiling = 0
    for r in requests:
        chat = backend.stage_prompt(r)
        ceiling += request_budget(chat, budget)
        track += count(chat.messages) + count.schema(chat)
    compares = n = 0
    for judge_id, perspective in JUDGE_PERSPECTIVES.items():
        for level, a, b in schedule(view):
            req = CompareRequest(judge_id=judge_id, perspective=perspective, match=view, clashes=clashes, analyses=analyses, level=level, a=a, b=b)
            chat = backend.compare_prompt(req)
            ceiling += request_budget(chat, budget)
            compares += count(chat.messages) + count.schema(chat)
            n += 1
    return {"track": track, "compares": compares, "calls": len(requests) + n, "input": track + compares, "ceiling": ceiling}


def run_completions(run_dir: Path) -> dict:
    """Completion tokens a bench run really spent, per arm and node, from its per-sample results
    (``results/<arm>/*.json``: every call record; a cache hit carries the original call's tokens):
    calls, completion tokens and their mean per call."""
    out: dict = {}
    for arm_dir in sorted(p for p in (run_dir / "results").iterdir() if p.is_dir()):
        nodes: dict[str, dict] = {}
        for f in sorted(arm_dir.glob("*.json")):
            for call in json.loads(f.read_text(encoding="utf-8")).get("calls", []):
                n = nodes.setdefault(call["node"], {"calls": 0, "completion_tokens": 0, "prompt_tokens": 0})
                n["calls"] += 1
                n["completion_tokens"] += int(call.get("completion_tokens") or 0)
                n["prompt_tokens"] += int(call.get("prompt_tokens") or 0)
        for n in nodes.values():
            n["mean_completion"] = n["completion_tokens"] / n["calls"] if n["calls"] else 0.0
        out[arm_dir.name] = nodes
    return out


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
    arm's trackers and judges (input tokens, schema included; ceilings). Empty when ``bp_dir`` does
    not exist."""
    from adjudicator.input.convert.bp import bp_matches, find_bp_dir

    found = find_bp_dir(bp_dir) if bp_dir.exists() else None
    if found is None:
        print(f"\nBritish Parliamentary rounds: {bp_dir} not found; skipped (give --bp).")
        return []
    rows = []
    for match in bp_matches(found):
        view = match.view()
        sc = single_call_cost(view, store, count, budget)
        ag = agentic_cost(view, backend, count, budget, ledger)
        pw = pairwise_cost(view, backend, count, budget, ledger)
        chars = sum(len(u.text) for s in view.stages for u in s.utterances)
        rows.append({"match_id": view.match_id, "stages": len(view.stages), "chars": chars, "single_call": sc, "agentic": ag, "pairwise": pw,
                     "ratio_input": ag["input"] / sc["input"], "ratio_ceiling": ag["ceiling"] / sc["ceiling"]})
    print(f"\nBritish Parliamentary rounds ({found}): single-call = DebateBench's three tasks, agentic = 8 trackers + 3 ranking judges,"
          " pairwise = 8 trackers + 3 judges x 68 comparisons; input tokens.")
    head = (f"{'round':<10}{'speeches':>9}{'chars':>8} | {'SC order':>9}{'SC scores':>10}{'SC ranks':>9}{'SC calls':>9}{'SC input':>10}"
            f" | {'AG track':>9}{'AG judges':>10}{'AG calls':>9}{'AG input':>10} | {'PW compare':>11}{'PW calls':>9}{'PW input':>10}"
            f" | {'AG/SC input':>12}{'AG/SC ceil':>11}{'PW/AG input':>12}")
    print(head)
    print("-" * len(head))
    for r in rows:
        sc, ag, pw = r["single_call"], r["agentic"], r["pairwise"]
        print(f"{r['match_id']:<10}{r['stages']:>9}{r['chars']:>8} | {_k(sc['bp_house_order']):>9}{_k(sc['bp_speaker_scores']):>10}{_k(sc['bp_speaker_ranks']):>9}"
              f"{sc['calls']:>9}{_k(sc['input']):>10} | {_k(ag['track']):>9}{_k(ag['judges']):>10}{ag['calls']:>9}{_k(ag['input']):>10}"
              f" | {_k(pw['compares']):>11}{pw['calls']:>9}{_k(pw['input']):>10}"
              f" | {r['ratio_input']:>11.1%}{r['ratio_ceiling']:>11.1%}{pw['input'] / ag['input']:>12.1%}")
    if rows:
        sc_in = np.mean([r["single_call"]["input"] for r in rows])
        ag_in = np.mean([r["agentic"]["input"] for r in rows])
        print(f"mean over {len(rows)} rounds: single-call {_k(sc_in)} input tokens, agentic {_k(ag_in)} ({ag_in / sc_in:.1%}); ceilings "
              f"{_k(np.mean([r['single_call']['ceiling'] for r in rows]))} vs {_k(np.mean([r['agentic']['ceiling'] for r in rows]))}; "
              f"pairwise panel {_k(np.mean([r['pairwise']['input'] for r in rows]))} input tokens, ceiling {_k(np.mean([r['pairwise']['ceiling'] for r in rows]))}.")
    return rows


def print_run(run_dir: Path, budget: int | None) -> dict:
    """Print the completion tokens a bench run spent per arm and node beside each node's budget."""
    spent = run_completions(run_dir)
    print(f"\nCompletion tokens spent in {run_dir} (from its call records; cache hits carry the original call's tokens):")
    print(f"{'arm':<12}{'node':<20}{'calls':>7}{'completion':>12}{'mean/call':>11}{'budget':>8}{'share of ceiling':>18}")
    for arm, nodes in spent.items():
        for node, n in sorted(nodes.items()):
            cap = budget if budget is not None else NODE_MAX_TOKENS.get(node)
            share = f"{n['completion_tokens'] / (cap * n['calls']):.1%}" if cap and n["calls"] else "-"
            print(f"{arm:<12}{node:<20}{n['calls']:>7}{n['completion_tokens']:>12,}{n['mean_completion']:>11.0f}{cap or '-':>8}{share:>18}")
    return spent


def _k(x: float) -> str:
    return f"{x / 1000:,.1f}k"


def _met(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokenizer", default="gpt-4o", help="litellm model whose tokenizer counts (offline), default gpt-4o")
    ap.add_argument("--max-tokens", type=int, default=None, help="one completion budget for every request (default: each node's own, adjudicator.model.chat.NODE_MAX_TOKENS)")
    ap.add_argument("--repeats", default="1,2,3,4", help="synthetic CCDB 4v4 stage-order repeats, e.g. 1,2,3,4")
    ap.add_argument("--ledger", choices=["llm-sized", "offline"], default="llm-sized", help="tracker outputs feeding the agentic ledger")
    ap.add_argument("--bp", type=Path, default=BP_DIR, help="PanelBench BP-Competition folder (default: panelbench/BP-Competition in the checkout, else ../shared/data/panelbench/BP-Competition; skipped when absent)")
    ap.add_argument("--run", type=Path, default=None, help="a bench run folder: also print the completion tokens its calls spent")
    ap.add_argument("--track-window-chars", type=int, default=None, metavar="N",
                    help="the LLM tracker's stage-window budget in characters, as adjudicate --track-window-chars (default: the library's default; 0 = one stage per request)")
    ap.add_argument("--quick", action="store_true", help="CI: one bundled debate (debateart_0020), no synthetic 4v4 match, no BP rounds")
    ap.add_argument("--json", dest="json_out", type=Path, help="also write every number as JSON here")
    args = ap.parse_args(argv)
    if args.quick:  # the script still runs end to end, on its smallest inputs (the growth fit needs three lengths: skipped)
        args.repeats, args.bp = "", Path("--quick: not read")
    repeats = [int(r) for r in args.repeats.split(",") if r.strip()]
    window = args.track_window_chars if args.track_window_chars is not None else int(ModelConfig.model_fields["track_window_chars"].default)

    t0 = time.monotonic()
    store = PromptStore()
    client = LLMClient(args.tokenizer, cache=NullCache(), json_mode="schema")
    backend = LLMBackend(client, store)
    count = Counter(args.tokenizer, client)
    rows = []
    for path in sorted(REAL_MATCHES.glob("debateart_0020.json" if args.quick else "*.json")):
        view = load_match(path).view()
        rows.append(("real", view, len(view.stages)))
    for r in repeats:
        view = synthetic_ccdb_view(r)
        rows.append((f"ccdb x{r}", view, len(view.stages)))

    results = []
    for kind, view, n in rows:
        sc = single_call_cost(view, store, count, args.max_tokens)
        ag = agentic_cost(view, backend, count, args.max_tokens, args.ledger, window)
        ag1 = agentic_cost(view, backend, count, args.max_tokens, args.ledger, 0) if window else ag
        chars = sum(len(u.text) for s in view.stages for u in s.utterances)
        results.append({"kind": kind, "match_id": view.match_id, "stages": n, "units": len(view.scored_units()), "chars": chars,
                        "single_call": sc, "agentic": ag, "agentic_per_stage": ag1,
                        "ratio_input": ag["input"] / sc["input"], "ratio_ceiling": ag["ceiling"] / sc["ceiling"],
                        "ratio_input_per_stage": ag1["input"] / sc["input"], "ratio_total": ag["total"] / sc["total"],
                        "ratio_total_per_stage": ag1["total"] / sc["total"]})

    print(f"Input tokens per match (messages + response schema), counted offline with litellm.token_counter(model={args.tokenizer!r}) = {count.encoding()};"
          f" completion ceiling = calls x budget ({args.max_tokens or 'per node ' + str(NODE_MAX_TOKENS)}); agentic ledger: {args.ledger};"
          f" tracker stage windows: {f'{window:,} characters (at most {MAX_WINDOW_STAGES} stages)' if window else 'off, one stage per request'}; nothing is sent.\n")
    head = (f"{'match':<24}{'stages':>6}{'units':>6}{'chars':>7} | {'SC T1':>7}{'SC T2':>9}{'SC T3':>7}{'calls':>6}{'SC in':>9}{'ceil':>7}{'cache':>6}"
            f" | {'AG trk':>7}{'AG jdg':>7}{'calls':>6}{'schema':>7}{'AG in':>8}{'ceil':>7}{'cache':>6} | {'AG/SC in':>9}{'ceil':>7}{'1-stage':>8}"
            f" | {'SC out':>7}{'AG out':>7}{'AG/SC in+out':>13}{'target':>7}{'1-stage':>8}")
    print(head)
    print("-" * len(head))
    verdicts = []
    for r in results:
        sc, ag = r["single_call"], r["agentic"]
        target = 0.90 if r["kind"] == "real" else (0.35 if r["stages"] == 14 else None)
        if target is not None:
            verdicts.append((r["match_id"], r["ratio_input"], r["ratio_total"], target))
        print(f"{r['match_id']:<24}{r['stages']:>6}{r['units']:>6}{r['chars']:>7} | {_k(sc['task1']):>7}{_k(sc['task2']):>9}{_k(sc['task3']):>7}"
              f"{sc['calls']:>6}{_k(sc['input']):>9}{_k(sc['ceiling']):>7}{sc['openai_cached_share']:>6.0%} | {_k(ag['track']):>7}{_k(ag['judges']):>7}{ag['calls']:>6}"
              f"{_k(ag['schema']):>7}{_k(ag['input']):>8}{_k(ag['ceiling']):>7}{ag['openai_cached_share']:>6.0%} | {r['ratio_input']:>9.1%}"
              f"{r['ratio_ceiling']:>7.0%}{r['ratio_input_per_stage']:>8.1%} | {_k(sc['completion']):>7}{_k(ag['completion']):>7}{r['ratio_total']:>13.1%}"
              f"{(f'{target:.0%}' if target is not None else '-'):>7}{r['ratio_total_per_stage']:>8.1%}")
    print("\nSC = single-call protocol (T1/T2/T3 input tokens), AG = agentic panel (tracker and judge input tokens, 'schema' of which the"
          " response schemas; 'calls' counts a stage window's one request once); '1-stage' = AG/SC input with one tracker request per stage; 'in' = messages + schema; 'ceil' = calls x completion budget (a ceiling, not spend: see --run);"
          f" 'cache' = share of input tokens a prompt cache could serve under OpenAI's rule (prefix shared with an earlier request of the match,"
          f" prompts >= {CACHE_MIN_TOKENS} tokens, steps of {CACHE_STEP}).")
    print("Cacheable prefix without the 1,024-token rule: "
          + "; ".join(f"{r['match_id']} SC {r['single_call']['prefix_share']:.0%} AG {r['agentic']['prefix_share']:.0%}" for r in results))
    print("'out' = estimated completion tokens: each request's answer at the lengths stated in benchmarks/sized_answers.py (ANSWER_CHARS), the answer"
          " the loopback bench (benchmarks/tokens_bench.py) gets; a real run's are read with --run.")
    for mid, ratio, total, target in verdicts:
        print(f"target {mid}: agentic prompt + completion {total:.1%} of single-call (input alone {ratio:.1%}), at most {target:.0%}: {_met(total <= target)}")

    synth = [r for r in results if r["kind"].startswith("ccdb")]
    growth = {}
    if len(synth) >= 3:
        n = [r["stages"] for r in synth]
        series = {
            "single-call Task 2 input": [r["single_call"]["task2"] for r in synth],
            "single-call all input": [r["single_call"]["input"] for r in synth],
            "agentic all input": [r["agentic"]["input"] for r in synth],
            "agentic tracker input": [r["agentic"]["track"] for r in synth],
        }
        print(f"\nGrowth with the number of stages (synthetic CCDB, n = {', '.join(map(str, n))}); fit tokens = a + b*n + c*n^2:")
        print(f"{'series':<28}{'tokens at each n':>40}  {'c (per n^2)':>12}{'b (per n)':>11}{'R2 lin':>8}{'R2 quad':>8}{'c*n^2 share':>12}{'x growth':>9}")
        for name, y in series.items():
            g = fit_growth(n, y)
            growth[name] = g
            print(f"{name:<28}{' '.join(_k(v) for v in y):>40}  {g['quadratic']['c']:>12.1f}{g['quadratic']['b']:>11.0f}"
                  f"{g['linear']['r2']:>8.4f}{g['quadratic']['r2']:>8.4f}{g['quadratic_share_at_max']:>11.1%}{g['growth_first_to_last']:>8.1f}x")
        print(f"(stage count grows {n[-1] / n[0]:.0f}x: a linear series grows ~{n[-1] / n[0]:.0f}x, a quadratic one up to ~{(n[-1] / n[0]) ** 2:.0f}x)")
        lin = growth["agentic all input"]["quadratic_share_at_max"]
        print(f"target: agentic input linear in the stages (quadratic term {lin:.1%} of the total at n = {n[-1]}; at most 5%): {_met(abs(lin) <= 0.05)}")

    full = next((r for r in synth if r["stages"] == 14), None)
    if full:
        parts = full["agentic"]["track_parts"]
        print(f"\nAgentic tracker input tokens on the 14-stage 4v4 match ({full['chars']:,} characters), by part (approx.): "
              + ", ".join(f"{k.replace('_', ' ')} {_k(v)}" for k, v in parts.items())
              + f"; judges {_k(full['agentic']['judges'])} for three; {full['agentic']['clashes']} clashes in the final ledger.")
    bp = bp_rows(args.bp, store, backend, count, args.max_tokens, args.ledger)
    spent = print_run(args.run, args.max_tokens) if args.run else None
    print(f"[{time.monotonic() - t0:.1f}s]", file=sys.stderr)
    if args.json_out:
        args.json_out.write_text(json.dumps({"tokenizer": args.tokenizer, "encoding": count.encoding(), "max_tokens": args.max_tokens, "ledger": args.ledger, "track_window_chars": window,
                                             "matches": results, "growth": growth, "bp": bp, "run": spent}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
