"""Each output field's share of the completion tokens, per answer kind (issue 39: what to cut).

    .venv/bin/python benchmarks/completion_fields.py [--dataset DIR] [--with-ccdb] [--quick] [--json FILE]
    .venv/bin/python benchmarks/completion_fields.py --requests LOG.jsonl [LOG.jsonl ...]

Default: runs ``adjudicate bench DATASET --arm agentic --arm single-call`` through the loopback server
with answers of the stated size (``benchmarks/sized_answers.py``; the run of ``tokens_bench.py``) and
reads back every answer the server sent. ``--requests``: real replies instead, from request logs of
the shape ``/work/realmodel/.../requests.jsonl`` (one JSON object per line, ``request`` and
``response`` the bodies as JSON text; a reply's ``choices[0].message.content`` is its answer).

An answer's kind is read off its keys: ``tracker`` (a stage analysis: ``sides``), ``window`` (the
tracker's answer for several stages: ``stages``), ``judge`` (a ballot: ``stage_scores``), ``single``
(a single-call task's answer, anything else). A field is named by its path, a key the answer chooses
(a side, a unit key, a debater label, a stage id) as ``*`` and a list's items as ``[]``:
``sides.*.rationale``, ``feedback.*.worked.text``. A field's tokens are those of ``"key": value`` as
the answer writes it (tokenizer :data:`TOKENIZER`, litellm's offline counter; o200k_base), the
value's own fields counted at the deepest level only; what a field's share leaves over is the JSON's
punctuation, and ``(whole answer)`` is each kind's completion tokens counted in one piece. Shares are
of the kind's completion tokens and of all the arm's (agentic: tracker + window + judge) completion
tokens.

``--quick`` (CI, so the script cannot rot): the smallest bundled debate alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tokens_bench import DATASET, QUICK_SAMPLE, counting_responder, run_bench, with_ccdb  # noqa: E402

from adjudicator.model.litellm_setup import litellm_module  # noqa: E402

TOKENIZER = "gpt-4o"
#: Keys whose children the answer names itself (a side, a unit key, a debater label, a stage id).
CHOSEN_KEYS = frozenset({"sides", "stage_scores", "feedback", "stages", "dimension_scores"})
AGENTIC_KINDS = ("tracker", "window", "judge", "tracker-repair", "window-repair", "judge-repair")


def answer_kind(answer: dict[str, Any], body: dict[str, Any] | None = None) -> str:
    """``tracker``, ``window``, ``judge`` or ``single`` (see the module docstring); a repair turn's
    answer (``body``, the request, has more than two messages) is ``<kind>-repair``, the kind read off
    the request's system message (the keys its answer shape names)."""
    messages = (body or {}).get("messages") or []
    if len(messages) > 2:
        system = str(messages[0].get("content") or "")
        kind = "judge" if "stage_scores" in system else "window" if '"stages"' in system else "tracker" if "clash_updates" in system else "single"
        return f"{kind}-repair"
    if "stages" in answer:
        return "window"
    if "sides" in answer:
        return "tracker"
    if "stage_scores" in answer:
        return "judge"
    return "single"


def tokens(text: str) -> int:
    """Tokens of ``text`` (:data:`TOKENIZER`)."""
    return int(litellm_module().token_counter(model=TOKENIZER, text=text)) if text else 0


def leaves(value: Any, path: str = "", chosen: bool = False) -> Iterable[tuple[str, str]]:
    """(path, ``"key": value`` text) of every leaf field of ``value`` (a scalar, or a list of scalars, is
    a leaf; its path names a chosen key as ``*``, a list item as ``[]``)."""
    if isinstance(value, dict):
        for k, v in value.items():
            name = "*" if chosen else k
            sub = f"{path}.{name}" if path else name
            if isinstance(v, (dict, list)) and not _scalar_list(v):
                yield from leaves(v, sub, k in CHOSEN_KEYS)
            else:
                yield sub, f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item, f"{path}[]", False)


def _scalar_list(v: Any) -> bool:
    return isinstance(v, list) and all(not isinstance(x, (dict, list)) for x in v)


def field_tokens(answers: Iterable[tuple[dict[str, Any], str]]) -> dict[str, dict[str, int]]:
    """Per answer kind, tokens per field path plus ``(whole answer)`` and ``(answers)`` (their number),
    from (request body, answer) pairs; an answer that is not a JSON object counts as kind
    ``unreadable``, whole only."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for body, text in answers:
        try:
            answer = json.loads(text)
        except ValueError:
            answer = None
        kind = answer_kind(answer, body) if isinstance(answer, dict) else "unreadable"
        out[kind]["(answers)"] += 1
        out[kind]["(whole answer)"] += tokens(text)
        if isinstance(answer, dict):
            for path, frag in leaves(answer):
                out[kind][path] += tokens(frag)
    return {k: dict(v) for k, v in out.items()}


def logged_answers(paths: Iterable[Path]) -> list[tuple[dict[str, Any], str]]:
    """(request body, answer) of every 200 reply in request logs (see the module docstring)."""
    out = []
    for p in paths:
        for line in p.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("status") != 200:
                continue
            body = json.loads(row["response"]) if isinstance(row.get("response"), str) else row.get("response") or {}
            content = ((body.get("choices") or [{}])[0].get("message") or {}).get("content")
            if content:
                out.append((json.loads(row["request"]) if isinstance(row.get("request"), str) else row.get("request") or {}, content))
    return out


def bench_answers(dataset: Path, quick: bool) -> list[tuple[dict[str, Any], str]]:
    """(request body, answer) of every answer the loopback server sent to a bench of both arms on
    ``dataset`` (sized answers)."""
    from fake_openai import FakeOpenAI

    work = Path(tempfile.mkdtemp(prefix="adjudicator-completion-fields-"))
    sent: list[tuple[dict[str, Any], str]] = []

    def respond(body: dict[str, Any]) -> Any:
        reply = counting_responder(body)
        sent.append((body, reply.content or ""))
        return reply

    if quick:
        (work / "quick").mkdir()
        (work / "quick" / f"{QUICK_SAMPLE}.json").write_bytes((dataset / f"{QUICK_SAMPLE}.json").read_bytes())
        dataset = work / "quick"
    server = FakeOpenAI()
    server.respond_with(respond)
    try:
        run_bench(dataset, work, server.base_url, [])
    finally:
        server.close()
    return sent


def table(per_kind: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    """Rows (kind, field, tokens, share of the kind, share of the agentic arm), fields by tokens."""
    arm = sum(per_kind.get(k, {}).get("(whole answer)", 0) for k in AGENTIC_KINDS)
    rows = []
    for kind in sorted(per_kind, key=lambda k: (k not in AGENTIC_KINDS, k)):
        fields = per_kind[kind]
        whole = fields.get("(whole answer)", 0)
        for name, n in sorted(fields.items(), key=lambda kv: (kv[0] != "(whole answer)", -kv[1])):
            if name == "(answers)":
                continue
            rows.append({"kind": kind, "answers": fields["(answers)"], "field": name, "tokens": n,
                         "of_kind": n / whole if whole else 0.0, "of_agentic": n / arm if arm and kind in AGENTIC_KINDS else None})  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", type=Path, default=DATASET, help="a folder of labelled match files (default: the bundled PanelBench debates)")
    ap.add_argument("--with-ccdb", action="store_true", help="also the 14-stage synthetic CCDB 4v4 match (benchmarks/synthetic_ccdb.py)")
    ap.add_argument("--requests", type=Path, nargs="+", metavar="LOG", help="real replies from these request logs instead of a bench")
    ap.add_argument("--quick", action="store_true", help=f"CI: {QUICK_SAMPLE} alone (the script still runs)")
    ap.add_argument("--json", dest="json_out", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args(argv)
    if args.requests:
        answers, source = logged_answers(args.requests), f"{len(args.requests)} request log(s): {', '.join(map(str, args.requests))}"
    else:
        dataset = args.dataset.resolve()
        if args.with_ccdb and not args.quick:
            dataset = with_ccdb(dataset, Path(tempfile.mkdtemp(prefix="adjudicator-completion-fields-data-")))
        where = f"{QUICK_SAMPLE} of {dataset}" if args.quick else str(dataset)
        answers, source = bench_answers(dataset, args.quick), f"a bench of both arms on {where} through the loopback server (sized answers)"
    rows = table(field_tokens(answers))
    print(f"Completion tokens per output field ({len(answers)} answers from {source}; tokenizer {TOKENIZER}).\n")
    head = f"{'kind':<8} {'answers':>7}  {'field':<44} {'tokens':>8} {'of kind':>8} {'of AG':>7}"
    print(head)
    print("-" * len(head))
    for r in rows:
        ag = f"{r['of_agentic']:>7.1%}" if r["of_agentic"] is not None else f"{'':>7}"
        print(f"{r['kind']:<8} {r['answers']:>7}  {r['field']:<44} {r['tokens']:>8,} {r['of_kind']:>8.1%} {ag}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"source": source, "answers": len(answers), "rows": rows}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
