"""Checks an exported ballot against what Tabbycat's API v1 accepts for a ballot submission.

Two parts: the JSON Schema of the request body (``tests/tabbycat/ballot_v1_request.schema.json``,
written from Tabbycat's BallotSerializer and its published OpenAPI schema), and the cross-field rules
Tabbycat's serializer checks in code -- a team's ``score`` equals the sum of its speeches' scores
(compared as floats, as Tabbycat does), every speaker of a team is that team's, one team per side of
the debate with the sides its format uses, the same speaker order on every sheet, one sheet for a
consensus ballot -- plus, from the room's Tabbycat ids, that every link points at the right object.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

SCHEMA = json.loads((Path(__file__).parent / "tabbycat" / "ballot_v1_request.schema.json").read_text(encoding="utf-8"))
TWO_TEAM_SIDES = ["aff", "neg"]


def problems(export: dict, base: str, ids: dict) -> list[str]:
    """Every way ``export`` (an ``adjudicate live`` Tabbycat export) departs from what Tabbycat accepts
    for the room whose Tabbycat ids are ``ids`` in the tournament API ``base``; [] when it is fine."""
    out = [f"schema: {e.json_path}: {e.message}" for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(export["body"])]
    if out:
        return out
    body = export["body"]
    if export["url"] != f"{base}/rounds/{export['url'].split('/rounds/')[1].split('/')[0]}/pairings/{ids['debate']}/ballots":
        out.append(f"url: {export['url']} is not the ballots endpoint of debate {ids['debate']}")
    if export["method"] != "POST":
        out.append("method: ballots are created with POST")
    sheets = body["result"]["sheets"]
    if len(sheets) != 1:
        out.append(f"result.sheets: a consensus ballot has one sheet, not {len(sheets)}")
    order = None
    for i, sheet in enumerate(sheets):
        sides = [t["side"] for t in sheet["teams"]]
        if sides != TWO_TEAM_SIDES:
            out.append(f"sheets.{i}.teams: sides {sides}, expected {TWO_TEAM_SIDES} (one team per side, in order)")
        speakers = [s["speaker"] for t in sheet["teams"] for s in t.get("speeches", [])]
        if order is None:
            order = speakers
        elif speakers != order:
            out.append(f"sheets.{i}: inconsistent speaker order")
        winners = [t for t in sheet["teams"] if t.get("win")]
        if len(winners) != 1:
            out.append(f"sheets.{i}: {len(winners)} winning teams, expected 1")
        for t in sheet["teams"]:
            side = {"aff": "affirmative", "neg": "negative"}[t["side"]]
            if t["team"] != f"{base}/teams/{ids['teams'][side]}":
                out.append(f"sheets.{i}.{t['side']}.team: {t['team']} is not team {ids['teams'][side]}")
            speeches = t.get("speeches", [])
            if t.get("score") is not None and t["score"] != sum(s["score"] for s in speeches):
                out.append(f"sheets.{i}.{t['side']}.score: {t['score']} is not the sum of the speech scores {[s['score'] for s in speeches]}")
            own = {f"{base}/speakers/{pk}" for label, pk in ids["speakers"].items() if label.lower().startswith(side)}
            if any(s["speaker"] not in own for s in speeches):
                out.append(f"sheets.{i}.{t['side']}.speeches: a speaker is not in the team")
            expected_order = [f"{base}/speakers/{ids['speakers'][f'{side.capitalize()} Speaker {k}']}" for k in range(1, len(speeches) + 1)]
            if [s["speaker"] for s in speeches] != expected_order:
                out.append(f"sheets.{i}.{t['side']}.speeches: not in speaker order")
    if ids.get("motion") is not None and body.get("motion") != f"{base}/motions/{ids['motion']}":
        out.append(f"motion: {body.get('motion')} is not motion {ids['motion']}")
    return out
