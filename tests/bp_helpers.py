"""A small hand-written British Parliamentary match for tests (format ``bp``): eight short speeches,
team-level speakers, optional gold labels."""

from __future__ import annotations

import copy
import json
from pathlib import Path

SPEECHES = [
    ("OG", "affirmative", "Opening Government", "We define the motion narrowly: cities should ban private cars from their centres. Our first argument is public health, because exhaust fumes kill thousands every year."),
    ("OO", "negative", "Opening Opposition", "The government ignores workers who commute from suburbs without trains. A ban hurts the poor first, because they cannot afford to live in the centre."),
    ("OG", "affirmative", "Opening Government", "The opposition claimed the poor are hurt, but buses and trains are cheaper than cars. We rebuild our case on public health and add that streets become safer for children."),
    ("OO", "negative", "Opening Opposition", "Buses do not reach the night shift, so the government's answer fails. Our second argument is small shops, which lose customers who drive in from outside."),
    ("CG", "affirmative", "Closing Government", "Our extension is climate: the centre is where most trips are short, so a ban cuts emissions at the lowest cost. This matters more than any shop because the harm is permanent."),
    ("CO", "negative", "Closing Opposition", "Our extension is liberty and consent: a ban imposed without a vote breeds backlash that ends climate policy altogether. Weigh trust in government above one city's emissions."),
    ("CG", "affirmative", "Closing Government", "Three clashes decided this debate: health, fairness to the poor and climate. On each we showed that the benefit is larger and falls on those the opposition claims to defend."),
    ("CO", "negative", "Closing Opposition", "The key clash is legitimacy. Government never answered the backlash, so even if their benefits are real they will not last; that is why opposition wins."),
]


def bp_data(match_id: str = "bp_test", labels: dict | None = None) -> dict:
    """The decoded JSON of a valid ``bp`` match (stage ids s01-s08)."""
    from adjudicator.input.formats import BP

    stages = []
    for k, ((unit, side, team, text), slot) in enumerate(zip(SPEECHES, BP.order)):
        assert slot.unit == unit
        stages.append(
            {
                "stage_id": f"s{k + 1:02d}",
                "name": slot.name,
                "type": slot.type,
                "sides": [side],
                "speakers": [team],
                "utterances": [{"speaker": team, "side": side, "text": text}],
            }
        )
    data = {
        "match_id": match_id,
        "format": "bp",
        "language": "en",
        "motion": "This House would ban private cars from city centres",
        "affirmative_position": "Government: ban private cars from city centres",
        "negative_position": "Opposition: keep private cars in city centres",
        "debaters": [],
        "stages": stages,
    }
    if labels is not None:
        data["labels"] = labels
    return copy.deepcopy(data)


def write_bp(tmp_path: Path, data: dict, name: str = "bp.json") -> Path:
    """Write ``data`` as a match file under ``tmp_path``; returns its path."""
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path
