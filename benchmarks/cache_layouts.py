"""What layouts not built yet would bill: each arm's captured requests replayed through the emulated cache.

    .venv/bin/python benchmarks/cache_layouts.py [--table deepseek-chat --table gpt-4.1-mini] [--quick] [--json FILE]

For every debate of ``benchmarks/billed_cost.py`` (the five bundled PanelBench debates and the 14-stage
synthetic 4v4) and each price table, both arms run once through the loopback server (sized answers,
``billed_cost.run_one``, no reply latency); the requests the server received are then replayed, one at a
time, through a fresh emulated prompt cache (``tests/prompt_cache.py``; each request answered before
the next is sent), as they are or rewritten as a layout would send them:

- ``sent``: the live run's own bill (its requests as sent, concurrently);
- ``serial``: the same requests one at a time, the judges in id order (judge-1, the chair, first):
  what cache-ordered sending gives at its limit;
- ``1 judge schema``: serial, the wings sent the chair's response schema (with the coach's feedback)
  and answering ``"feedback": null`` (5 completion tokens more each), so the three judges' requests
  are identical up to the judge's id (needs a nullable object in a response schema, which
  ``adjudicator/model/schema.py`` does not write today);
- ``1 tracker schema``: serial, every tracker request of a match sent the schema of its first one
  (one schema per match; 3 completion tokens more each, a null for a side it does not evaluate);
- ``both``: the two together.

Every figure is litellm's price of the replayed usage (``billed_cost.usd``); the ratio is the agentic
arm's over single-call's ``serial`` bill (single call at its best send order), with the issue's targets
(at most 1.5x on each bundled debate, at most 1x on the 4v4). A second table estimates what the
tracker's Anthropic breakpoints (``adjudicator/model/cache_control.py``) save on claude-sonnet-4-5:
o200k tokens standing in for Claude's, a write (1.25x) of each marked prefix of at least 1,024 tokens
that is not yet cached, a read (0.1x) of one that is.

``--quick`` (CI, so the script cannot rot): :data:`billed_cost.QUICK_SAMPLE` alone, gpt-4.1-mini.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import billed_cost as bc  # noqa: E402  (puts tests/ on the path)
import prompt_cache as pc  # noqa: E402
from sized_answers import sized_answer  # noqa: E402

from adjudicator.model.cache_control import line_end_after  # noqa: E402

CLAUDE = "anthropic/claude-sonnet-4-5"
ANTHROPIC_MIN_TOKENS = 1024
Layout = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def captured(data: dict[str, Any], sample: str, arm: str, table: str, work: Path) -> list[dict[str, Any]]:
    """The request bodies one ``billed_cost`` run of ``sample`` under ``arm`` sent, in arrival order,
    each with ``_usd`` (its live bill) and ``_answer`` (the server's answer to it)."""
    servers: list[Any] = []

    class Recording(bc.FakeOpenAI):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            servers.append(self)

    live, bc.FakeOpenAI = bc.FakeOpenAI, Recording  # type: ignore[misc]
    try:
        bc.run_one(data, sample, arm, table, work, 0.0, [])
    finally:
        bc.FakeOpenAI = live  # type: ignore[misc]
    model = bc.TABLES[table][0]
    server = servers[0]
    return [{**body, "_usd": bc.usd(model, u.prompt_tokens, u.completion_tokens, u.cached_tokens), "_answer": sized_answer(body)}
            for body, u in zip(server.requests, server.prompt_cache.billed)]  # fmt: skip


def kind(body: dict[str, Any]) -> str:
    """``judge``, ``tracker``, ``repair`` or ``single`` (read off the response schema and the turns)."""
    schema = json.dumps(body.get("response_format") or {})
    if len(body["messages"]) > 2:
        return "repair"
    return "judge" if "stage_scores" in schema else "tracker" if "clash_updates" in schema else "single"


def judge_number(body: dict[str, Any]) -> int:
    found = re.findall(r"judge-(\d+)", str(body["messages"][-1]["content"]))
    return int(found[-1]) if found else 0


def serial(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The judges in id order after everything else, as sent otherwise."""
    judges = sorted((b for b in bodies if kind(b) == "judge"), key=judge_number)
    return [b for b in bodies if kind(b) != "judge"] + judges


def one_judge_schema(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The wings sent the chair's schema; unchanged when the judges already share one (built since
    the one judge schema landed: ``adjudicator/judges/llm/outputs.judge_schema``)."""
    if len({json.dumps(b["response_format"], sort_keys=True) for b in bodies if kind(b) == "judge"}) <= 1:
        return bodies
    chair = next((b for b in bodies if kind(b) == "judge" and '"feedback"' in json.dumps(b["response_format"])), None)
    for b in bodies:
        if chair is not None and kind(b) == "judge" and b is not chair:
            b["response_format"], b["_extra"] = copy.deepcopy(chair["response_format"]), 5
    return bodies


def one_tracker_schema(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    first = next((b for b in bodies if kind(b) == "tracker"), None)
    for b in bodies:
        if first is not None and kind(b) == "tracker" and b is not first:
            b["response_format"], b["_extra"] = copy.deepcopy(first["response_format"]), 3
    return bodies


LAYOUTS: dict[str, Layout] = {
    "serial": lambda bodies: bodies,
    "1 judge schema": one_judge_schema,
    "1 tracker schema": one_tracker_schema,
    "both": lambda bodies: one_tracker_schema(one_judge_schema(bodies)),
}


def replay(bodies: list[dict[str, Any]], table: str, layout: Layout) -> float:
    """Dollars of ``bodies`` rewritten by ``layout`` and sent one at a time (:func:`serial` order)
    through a fresh emulated cache of ``table``'s rule, each answered before the next."""
    model, rule = bc.TABLES[table]
    cache = pc.PromptCache(rule)  # type: ignore[arg-type]
    total = 0.0
    for body in serial(layout([copy.deepcopy(b) for b in bodies])):
        answer, extra = body.pop("_answer"), body.pop("_extra", 0)
        body.pop("_usd", None)
        usage, tokens, answer_tokens = cache.bill(body, answer)
        cache.answered(tokens, answer_tokens)
        total += bc.usd(model, usage.prompt_tokens, usage.completion_tokens + extra, usage.cached_tokens)
    return total


def claude_usd(prompt: int, completion: int, read: int = 0, write: int = 0) -> float:
    from adjudicator.model.litellm_setup import litellm_module

    p, c = litellm_module().cost_per_token(model=CLAUDE, prompt_tokens=prompt, completion_tokens=completion, cache_read_input_tokens=read, cache_creation_input_tokens=write)
    return float(p) + float(c)


def tracker_breakpoints(bodies: list[dict[str, Any]]) -> tuple[float, float]:
    """The agentic arm's requests on claude-sonnet-4-5 without breakpoints and with the tracker's
    (see the module docstring): (dollars without, dollars with)."""
    trackers = [i for i, b in enumerate(bodies) if kind(b) == "tracker"]
    written: set[str] = set()
    plain = marked = 0.0
    for i, body in enumerate(bodies):
        messages = body["messages"]
        prompt = len(pc.request_tokens(messages, body.get("response_format"), body.get("tools")))
        completion = len(pc.message_tokens({"role": "assistant", "content": body["_answer"]}))
        base = claude_usd(prompt, completion)
        plain += base
        user = str(messages[1]["content"])
        header = line_end_after(user, "<<<END MOTION-") if i in trackers else None
        if header is None:
            marked += base
            continue
        schema = json.dumps(body.get("response_format"))
        later = any(json.dumps(bodies[j].get("response_format")) == schema for j in trackers if j > i)
        head = len(pc.request_tokens([messages[0], {"role": "user", "content": user[:header]}], body.get("response_format"), None))
        key = schema + str(messages[0]["content"]) + user[:header]
        if key in written:
            marked += claude_usd(prompt, completion, read=head)
        elif later and head >= ANTHROPIC_MIN_TOKENS:
            written.add(key)
            marked += claude_usd(prompt, completion, write=head)
        else:
            marked += base
    return plain, marked


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", action="append", choices=sorted(bc.TABLES), help="price table(s) (default: both)")
    ap.add_argument("--quick", action="store_true", help=f"CI: {bc.QUICK_SAMPLE} alone, gpt-4.1-mini")
    ap.add_argument("--json", dest="json_out", type=Path, help="also write every number as JSON here")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="adjudicator-cache-layouts-"))
    os.environ.update({bc.KEY_ENV: "sk-loopback-0123456789", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                       "LITELLM_LOCAL_MODEL_COST_MAP": "True", "XDG_CACHE_HOME": str(work / ".cache"), "MPLCONFIGDIR": str(work / ".mpl")})  # fmt: skip
    matches = bc.debates(bc.DATASET, args.quick)
    tables = ["gpt-4.1-mini"] if args.quick else (args.table or sorted(bc.TABLES))
    out: dict[str, Any] = {}
    names = ["sent", *LAYOUTS]
    for table in tables:
        print(f"price table {table}: agentic dollars per layout, and over single-call's serial bill (targets: <= 150% each bundled debate, <= 100% the 4v4)")
        print(f"{'debate':<22} {'SC sent':>9} {'SC serial':>9} | " + " | ".join(f"{n:>16}" for n in names))
        for sample, data in matches.items():
            sc = captured(data, sample, "single-call", table, work / table)
            ag = captured(data, sample, "agentic", table, work / table)
            sc_bill = {"sent": sum(b["_usd"] for b in sc), "serial": replay(sc, table, LAYOUTS["serial"])}
            ag_bill = {"sent": sum(b["_usd"] for b in ag), **{n: replay(ag, table, f) for n, f in LAYOUTS.items()}}
            target = bc.CCDB_TARGET if sample == bc.CCDB_SAMPLE else bc.TARGET
            cells = [f"{ag_bill[n]:.6f} {ag_bill[n] / sc_bill['serial']:>4.0%}{'' if ag_bill[n] <= target * sc_bill['serial'] else '!'}" for n in names]
            print(f"{sample:<22} {sc_bill['sent']:>9.6f} {sc_bill['serial']:>9.6f} | " + " | ".join(f"{c:>16}" for c in cells))
            out.setdefault(table, {})[sample] = {"single-call": sc_bill, "agentic": ag_bill}
            if table == tables[0]:
                out.setdefault("claude", {})[sample] = tracker_breakpoints(ag)
        print("('!': over the target)\n")
    print(f"{CLAUDE} (estimate): the agentic arm without and with the tracker's cache_control breakpoints")
    for sample, (plain, marked) in out["claude"].items():
        print(f"{sample:<22} {plain:>9.6f} -> {marked:>9.6f} ({marked / plain - 1:+.1%})")
    if args.json_out:
        args.json_out.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
