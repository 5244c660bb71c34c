"""Input transformations of the bias probes: a match in, a transformed match out (pure functions).

- :func:`mask_names` -- every debater name and team name, and every position label the transcript
  mentions, replaced by a neutral token (``Debater A``, ``Team 1``, ``Speaker P1``). A judge that reads
  the debate rather than who is in it gives the same verdict.
- :func:`swap_sides` -- the two sides exchange their labels (who is called affirmative and who
  negative, their stance texts and their speakers' position labels), while the transcript's words and
  the motion stay as they are. A judge that follows the arguments rather than the label gives the same
  team the win, so its winner tendency maps to 1 - p. Only formats that leave the speaking order free
  (``FormatSpec.fixed_order`` False, e.g. ``online-1v1``) can be swapped: in a CCDB or BP round the
  order itself says which side is which, so relabelling would produce an invalid match
  (:class:`ProbeNotApplicable`).

Both keep the gold labels consistent with the new match (swapped labels follow the swap), so a
transformed match can still be scored, and both return a validated :class:`~adjudicator.input.match.Match`.
"""

from __future__ import annotations

import re
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.input.formats import Side
from adjudicator.input.match import Match

_OTHER: dict[str, Side] = {"affirmative": "negative", "negative": "affirmative"}

#: Side words inside a stage's display name, swapped with the sides (``"Round 1, negative (Con) speech"``).
_SIDE_WORDS = {"affirmative": "negative", "negative": "affirmative", "Affirmative": "Negative", "Negative": "Affirmative", "Pro": "Con", "Con": "Pro", "正方": "反方", "反方": "正方"}
_SIDE_WORD_RE = re.compile("|".join(sorted((re.escape(w) for w in _SIDE_WORDS), key=len, reverse=True)))


class ProbeNotApplicable(AdjudicatorError):
    """The probe cannot transform this match (the message says why); the probe skips it."""

    exit_code = 2


def _replace_all(text: str, table: dict[str, str]) -> str:
    """``text`` with every key of ``table`` replaced by its value in one pass, longest key first (so
    ``"Affirmative Speaker 1"`` is never half-replaced by a shorter key)."""
    keys = [k for k in table if k]
    if not keys:
        return text
    pattern = re.compile("|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True)))
    return pattern.sub(lambda m: table[m.group(0)], text)


def mask_table(match: Match) -> dict[str, str]:
    """Original string -> neutral token for :func:`mask_names`: each debater's name (``Debater A``,
    ``Debater B`` ... in the order of :meth:`~adjudicator.input.match.MatchView.debater_labels`), each team
    name (``Team 1`` ...) and each position label (``Speaker P1`` ...). Names shorter than 2
    characters are left alone (they would match inside ordinary words)."""
    table: dict[str, str] = {}
    order = sorted(match.debaters, key=lambda d: (d.side != "affirmative", d.position))
    for i, d in enumerate(order):
        if d.name and len(d.name.strip()) >= 2:
            table.setdefault(d.name.strip(), f"Debater {chr(ord('A') + i)}")
    for i, t in enumerate(match.teams, start=1):
        if t.name and len(t.name.strip()) >= 2:
            table.setdefault(t.name.strip(), f"Team {i}")
    for i, label in enumerate(match.debater_labels(), start=1):
        table.setdefault(label, f"Speaker P{i}")
    return table


def mask_names(match: Match) -> Match:
    """``match`` with debater and team names and position labels masked in every text a judge reads
    (utterances, stage names, the motion's extra ``info``) and the ``name`` fields set to their tokens.
    The structure (sides, positions, speaker keys, stage ids) and the gold labels are unchanged, so the
    verdict is comparable unit by unit. Raises nothing for a match with no names (only labels are masked)."""
    table = mask_table(match)
    data: dict[str, Any] = match.model_dump(mode="json")
    for d in data["debaters"]:
        if d.get("name") and d["name"].strip() in table:
            d["name"] = table[d["name"].strip()]
    for t in data.get("teams") or []:
        if t.get("name") and t["name"].strip() in table:
            t["name"] = table[t["name"].strip()]
    if data.get("info"):
        data["info"] = _replace_all(data["info"], table)
    for st in data["stages"]:
        st["name"] = _replace_all(st["name"], table)
        for u in st["utterances"]:
            u["text"] = _replace_all(u["text"], table)
    return Match.model_validate(data)


def _swap_key(key: str) -> str:
    """``"s03|affirmative"`` -> ``"s03|negative"``; a position label ``"Affirmative Speaker 2"`` ->
    ``"Negative Speaker 2"``; anything else unchanged."""
    if "|" in key:
        sid, side = key.rsplit("|", 1)
        return f"{sid}|{_OTHER.get(side, side)}"
    for a, b in (("Affirmative", "Negative"), ("Negative", "Affirmative")):
        if key.startswith(a + " "):
            return b + key[len(a):]
    return key


def _swap_labels(labels: dict[str, Any]) -> dict[str, Any]:
    """Gold labels under the swapped side names: outcome and judges' winners flip, unit keys and
    position labels follow their side."""
    out = dict(labels)
    if out.get("outcome") in _OTHER:
        out["outcome"] = _OTHER[out["outcome"]]
    for group in ("judges", "appeal_judges"):
        judges = []
        for j in out.get(group) or []:
            j = dict(j)
            if j.get("winner") in _OTHER:
                j["winner"] = _OTHER[j["winner"]]
            j["stage_scores"] = {_swap_key(k): v for k, v in (j.get("stage_scores") or {}).items()}
            j["best_debater_votes"] = {_swap_key(k): v for k, v in (j.get("best_debater_votes") or {}).items()}
            judges.append(j)
        out[group] = judges
    return out


def swap_sides(match: Match) -> Match:
    """``match`` with the sides' labels exchanged (see the module docstring): every debater, utterance,
    stage side, questioner/respondent role, speaker label and gold label moves to the other side's name,
    the stance texts (``affirmative_position``/``negative_position``) are exchanged, and side words in
    stage names follow; utterance texts and the motion are unchanged.

    Raises :class:`ProbeNotApplicable` for a format with a fixed speaking order (CCDB, BP) or a
    ranking format."""
    spec = match.spec()
    if spec.fixed_order or spec.verdict == "ranking":
        raise ProbeNotApplicable(f"side swap: format {match.format} fixes which side speaks when, so its sides cannot be relabelled")
    data: dict[str, Any] = match.model_dump(mode="json")
    data["affirmative_position"], data["negative_position"] = match.negative_position, match.affirmative_position
    for d in data["debaters"]:
        d["side"] = _OTHER[d["side"]]
    for st in data["stages"]:
        st["sides"] = [_OTHER[s] for s in st["sides"]]
        if st.get("roles"):
            st["roles"] = {_OTHER[s]: r for s, r in st["roles"].items()}
        st["speakers"] = [_swap_key(s) for s in st.get("speakers") or []]
        st["name"] = _SIDE_WORD_RE.sub(lambda m: _SIDE_WORDS[m.group(0)], st["name"])
        for u in st["utterances"]:
            if u["side"] is not None:  # a machine transcript's unattributed utterance stays unattributed
                u["side"] = _OTHER[u["side"]]
            if u["speaker"] is not None:
                u["speaker"] = _swap_key(u["speaker"])
    if data.get("labels"):
        data["labels"] = _swap_labels(data["labels"])
    return Match.model_validate(data)
