"""The offline judge on the longest matches the input limits allow.

    .venv/bin/python benchmarks/long_input.py [--chars 400000] [--json FILE]

A bundled match (the DebateArt ``debateart_4389`` in English, the synthetic CCDB 4v4
``synthetic_4v4_01`` in Chinese) is grown to ``--chars`` characters of transcript (default
:data:`~adjudicator.input.match.MAX_MATCH_CHARS`) by refilling every utterance, in turn, with words (en) or
characters (zh) drawn with a fixed seed from the match's own text, each utterance at most
:data:`~adjudicator.input.match.MAX_UTTERANCE_CHARS`. The table gives the match's size and the wall time of
``adjudicate(match)`` with the offline judge in this process (validation included, start-up not).

Target (issue 10): the longest accepted match in under 60 s on one core. Shuffled text is a worst
case for the Chinese phrase vocabulary (far more distinct n-grams than real speech).
"""

from __future__ import annotations

import argparse
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


def main() -> int:
    from adjudicator.api import adjudicate
    from adjudicator.input.match import MAX_MATCH_CHARS, MAX_UTTERANCE_CHARS
    from adjudicator.input.match_file import parse_match

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chars", type=int, default=MAX_MATCH_CHARS)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = []
    for lang, path in MATCHES.items():
        data = grow(json.loads(path.read_text(encoding="utf-8")), args.chars, MAX_UTTERANCE_CHARS)
        raw = json.dumps(data, ensure_ascii=False)
        t0 = time.perf_counter()
        match = parse_match(json.loads(raw), path.name)
        verdict = adjudicate(match)
        elapsed = time.perf_counter() - t0
        n_chars = sum(len(u.text) for st in match.stages for u in st.utterances)
        n_utt = sum(len(st.utterances) for st in match.stages)
        rows.append({"language": lang, "match": path.stem, "utterances": n_utt, "characters": n_chars,
                     "mib": round(len(raw.encode()) / 2**20, 2), "seconds": round(elapsed, 1),
                     "winner": verdict.winner, "ok": elapsed < TARGET_S})
    print(f"{'lang':<5} {'match':<18} {'utterances':>10} {'characters':>11} {'MiB':>6} {'seconds':>8}  target <{TARGET_S:.0f} s")
    for r in rows:
        print(f"{r['language']:<5} {r['match']:<18} {r['utterances']:>10} {r['characters']:>11,} {r['mib']:>6} {r['seconds']:>8}  {'ok' if r['ok'] else 'MISSED'}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
