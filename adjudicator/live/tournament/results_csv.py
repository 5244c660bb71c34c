"""A round's results as CSV: one row per room and team, so that a four-team BP room fits the same
columns as a two-team room (issue 12).

Columns (UTF-8, comma-separated, header row): ``tournament_id, round_id, room_id, match_id, state``
(``in progress``, ``draft``, ``confirmed``, ``released``), ``side, team, rank`` (1 = best), ``points``
(two teams: 1 win, 0 loss; BP: 3-0), ``won`` (two teams: 1/0; empty for BP), ``mean_stage_score``
(the mean counted score, 1-10, of the side's scored units), ``speaker_scores`` (``label=score`` pairs
on the tournament's speaker scale, ``;``-separated), ``automated_winner, overridden`` (1 when a person
changed the automated result), ``winner_split, p`` (the panel's), ``best_debaters``, ``confirmed_by,
confirmed_at, released_at, model``. Numbers use a dot and at most three decimals; a room still in
progress has its result columns empty.

Spreadsheets run a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return as a
formula (a team named ``=HYPERLINK(...)`` became a live link): such a text cell is written with a
leading apostrophe, which spreadsheets show as the text itself (OWASP's advice on CSV injection).
Numbers are written as they are.
"""

from __future__ import annotations

import csv
import io
import re

from adjudicator.input.formats import SIDES, get_format, position_label
from adjudicator.input.match import Stage
from adjudicator.live.tabbycat.export import team_outcomes
from adjudicator.live.tournament.lifecycle import Decision
from adjudicator.live.tournament.model import Room, Round, Tournament
from adjudicator.live.tournament.speaker_scores import debater_scores

COLUMNS = (
    "tournament_id", "round_id", "room_id", "match_id", "state", "side", "team", "rank", "points", "won",
    "mean_stage_score", "speaker_scores", "automated_winner", "overridden", "winner_split", "p", "best_debaters",
    "confirmed_by", "confirmed_at", "released_at", "model",
)


def _num(x: float | None) -> str:
    return "" if x is None else f"{round(x, 3):g}"


def room_rows(tournament: Tournament, rnd: Round, room: Room, decision: Decision | None, stages: list[Stage]) -> list[dict[str, str]]:
    """The CSV rows (column -> text) of one room, one per team in side order."""
    spec = get_format(rnd.format)
    units: list[str] = list(SIDES)
    base = {"tournament_id": room.tournament_id, "round_id": room.round_id, "room_id": room.room_id, "match_id": room.match_id}
    if decision is None or decision.void:  # a voided room counts for nothing: its state, no result
        state = "in progress" if decision is None else "void"
        return [base | {c: "" for c in COLUMNS if c not in base} | {"state": state, "side": u, "team": room.teams.get(u, "")} for u in units]
    eff = decision.effective()
    ranks: dict[str, int] = {u: (1 if u == eff.winner else 2) for u in units}
    outcome = team_outcomes(ranks)
    labels_by_side: dict[str, list[str]] = {u: [position_label(u, i) for i in range(1, spec.debaters_per_side + 1)] for u in SIDES}
    per_debater = debater_scores(stages, eff.stage_scores, labels_by_side)
    a = decision.automated
    rows = []
    for u in units:
        unit_scores = [v for k, v in eff.stage_scores.items() if k.endswith(f"|{u}")]
        scored = [(label, s) for label in labels_by_side[u] if (s := per_debater[label]) is not None]
        on_scale = tournament.speaker_scale.team([s for _, s in scored])  # rounded together, as in the Tabbycat ballot
        speakers = "; ".join(f"{label}={_num(v)}" for (label, _), v in zip(scored, on_scale, strict=True))
        won = outcome[u].get("win")
        rows.append(base | {
            "state": decision.state, "side": u, "team": room.teams.get(u, ""), "rank": str(ranks[u]),
            "points": str(int(bool(won))) if won is not None else str(outcome[u]["points"]),
            "won": "" if won is None else str(int(bool(won))),
            "mean_stage_score": _num(sum(unit_scores) / len(unit_scores)) if unit_scores else "",
            "speaker_scores": speakers, "automated_winner": a.winner, "overridden": str(int(decision.overridden)),
            "winner_split": a.winner_split or "", "p": _num(a.p), "best_debaters": "; ".join(eff.best_debaters()),
            "confirmed_by": decision.confirmed_by.name if decision.confirmed_by else "", "confirmed_at": decision.confirmed_at or "",
            "released_at": decision.released_at or "", "model": a.model,
        })
    return rows


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula."""

_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def cell(text: str) -> str:
    """``text`` safe for a spreadsheet: a text that a spreadsheet would run as a formula gets a
    leading apostrophe; a plain number is left as it is."""
    if text.startswith(FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def results_csv(rows: list[dict[str, str]]) -> str:
    """The CSV text of ``rows`` (header first, ``\\r\\n`` line ends as the csv module writes them), every
    cell through :func:`cell`."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(COLUMNS))
    w.writeheader()
    for r in rows:
        w.writerow({k: cell(v) for k, v in r.items()})
    return buf.getvalue()
