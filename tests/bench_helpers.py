"""Helpers for the benchmark-harness tests: small labelled datasets and a loopback responder.

- :func:`labelled_2v2` builds a ccdb-2v2 match with chosen per-judge labels (winner votes, stage
  scores for a few units, best-debater votes).
- :func:`online` builds a distinct online-1v1 match whose every speech carries ``token``.
- :func:`write_dataset` writes matches as a dataset folder.
- :func:`isolate_env` / :func:`subprocess_env`: the tests' environment without the user's settings
  (no ``ADJUDICATOR_*``, provider keys or proxies; HOME and XDG folders in the test's temp folder),
  in-process and for a spawned ``adjudicate`` process.
- :func:`answer` produces a valid answer for any agentic (tracker / judge) or single-call
  (task 1 / 2 / 3) request from the JSON schema the client sent (``json_mode="object"``), echoing
  the sample tokens and isolation markers it saw into its free-text field, so the raw outputs kept in result files show
  which sample's text a request carried.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from env_isolation import isolate_env, subprocess_env  # noqa: F401  (re-exported for the bench tests)
from llm_helpers import ccdb_2v2_match, schema_responder

from adjudicator.cli import main
from adjudicator.input.convert.debateart import match_json
from adjudicator.input.match import Match

TOKEN_RE = re.compile(r"SAMPLETOKEN-\d+")
ECHO_RE = re.compile(r"(?:SAMPLETOKEN|ISOLATIONMARKER)-[A-Za-z0-9]+")


def bench(args, capsys) -> tuple[int, str, str]:
    """Run ``adjudicate bench ARGS`` in-process; returns (exit code, stdout, stderr)."""
    code = main(["bench", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def run_dir_of(runs: Path) -> Path:
    """The single run folder under ``runs``."""
    (d,) = [p for p in runs.iterdir() if p.is_dir()]
    return d


def labelled_2v2(match_id: str, winners: list[str], scores: dict[str, list[int]], votes: list[dict[str, int]]) -> Match:
    """A ccdb-2v2 match (stage ids s01..s12; s02 negative questioning, s07 head-to-head) with three
    judges: judge k votes ``winners[k]``, scores ``scores[unit][k]`` for each ``"sid|side"`` unit and
    casts ``votes[k]``."""
    data = ccdb_2v2_match(match_id).model_dump(mode="json", exclude_defaults=True)
    judges = []
    for k in range(3):
        judges.append(
            {"judge_id": f"j{k + 1}", "winner": winners[k], "stage_scores": {u: s[k] for u, s in scores.items()}, "best_debater_votes": votes[k]}
        )
    data["labels"] = {"judges": judges}
    return Match.model_validate(data)


def online(i: int, outcome: str = "affirmative", extra: str = "") -> Match:
    """A distinct online-1v1 match ``m{i:02d}``: the motion and each of four speeches contain
    ``SAMPLETOKEN-i`` (so every request about the match carries it); ``extra`` goes into speech 1."""
    tok = f"SAMPLETOKEN-{i}"
    texts = [
        f"{tok} Opening: uniforms cut costs for families {i}. {extra}",
        f"{tok} Reply: uniforms suppress expression, point {i}.",
        f"{tok} Rebuttal: cost data beats anecdote, case {i}.",
        f"{tok} Closing: expression matters more, round {i}.",
    ]
    stages = []
    for k, text in enumerate(texts):
        side = "affirmative" if k % 2 == 0 else "negative"
        kind = "constructive" if k < 2 else "closing"
        speaker = f"{side.capitalize()} Speaker 1"
        stages.append({"stage_id": f"s{k + 1}", "name": f"Speech {k + 1}", "type": kind, "sides": [side], "speakers": [speaker],
                       "utterances": [{"speaker": speaker, "side": side, "text": text}]})
    return Match.model_validate({
        "match_id": f"m{i:02d}", "format": "online-1v1", "language": "en", "motion": f"Schools should require uniforms ({tok})",
        "affirmative_position": "For", "negative_position": "Against",
        "debaters": [{"side": "affirmative", "position": 1, "name": f"pro{i}"}, {"side": "negative", "position": 1, "name": f"con{i}"}],
        "stages": stages, "labels": {"outcome": outcome},
    })


def write_dataset(folder: Path, matches: list[Match]) -> Path:
    """Write ``matches`` as ``folder/<match_id>.json``; returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for m in matches:
        (folder / f"{m.match_id}.json").write_text(match_json(m), encoding="utf-8")
    return folder


def tokens_in(body: Any) -> set[str]:
    """The sample tokens present anywhere in a request body."""
    return set(TOKEN_RE.findall(json.dumps(body, ensure_ascii=False)))


def answer(body: dict[str, Any]) -> str:
    """A valid answer for an agentic or single-call request (see module docstring)."""
    rf = body.get("response_format") or {}
    schema = rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}
    props = schema.get("properties") or {}
    echo = " ".join(sorted(set(ECHO_RE.findall(json.dumps(body.get("messages"), ensure_ascii=False))))) or "no token"
    if "p" in props and "basis" in props:
        return json.dumps({"basis": f"seen {echo}", "p": 0.7})
    if "score" in props:
        return json.dumps({"basis": f"seen {echo}", "score": 7})
    if "votes" in props:
        labels = props["votes"]["items"]["enum"]
        return json.dumps({"basis": f"seen {echo}", "votes": {labels[0]: 9}})
    if not schema:  # the single-call arm's plain-text BP tasks
        return schema_responder(body)
    obj = json.loads(schema_responder(body))
    obj["reasoning"] = f"seen {echo}"
    return json.dumps(obj)
