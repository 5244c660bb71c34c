"""Issue 41 item 7: speaker scores keep the raw scores' order (adjudicator/live/tournament/speaker_scores.py
``round_team_ranked``), by hand and on the bundled ccdb-4v4 matches judged by the offline judge.

Hand-worked, Tabbycat's default 68-82 step 1, calibrated (gain (2.69 / 50) * 14 / 0.33 = 2.282424, raw 6.66
-> 75): synthetic_4v4_01's affirmative debaters have raw 6.6668, 6.5557, 6.75, 6.80 -> 75.0155, 74.7619,
75.2054, 75.3195 (total 300.30 -> 300), which plain rounding makes 75, 75, 75, 75. In raw order (#2, #1,
#3, #4) minus 0, 1, 2, 3 steps: 6.7619, 6.0155, 5.2054, 4.3195 (from 68) -- decreasing, so pooled into
their mean 5.5756 each; 22 = 28 - 6 steps to hand out: floors 5 x 4 = 20, two more to the equal remainders,
the higher raw scores first (#4, #3): 5, 5, 6, 6; plus 0, 1, 2, 3: #2 73, #1 74, #3 76, #4 77 (total 300).
Its negative: raw 6.5832, 6.0, 6.5, 6.9332 -> 74.8247, 73.4936, 74.6348, 75.6236 (total 298.58 -> 299; plain
rounding 75, 73, 75, 76: #1 and #3 tied); ranked 75, 73, 74, 77 (total 299).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.api import adjudicate
from adjudicator.input.formats import SIDES, position_label
from adjudicator.input.match_file import load_match
from adjudicator.live.tabbycat.ballot import winner_kept_ahead
from adjudicator.live.tabbycat.source import RoomSource
from adjudicator.live.tournament.speaker_scores import SpeakerScale, raw_debater_scores, round_team, round_team_ranked

MATCHES = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "synthetic"
DEFAULT = SpeakerScale(low=68, high=82, step=1)


def test_distinct_raw_scores_stay_distinct_by_hand():
    aff = [6.6668, 6.5557, 6.75, 6.8]
    assert round_team([DEFAULT.unrounded(r) for r in aff], 68, 1, 82) == [75.0] * 4  # the old rounding
    assert DEFAULT.team(aff) == [74.0, 73.0, 76.0, 77.0]
    assert DEFAULT.team([6.5832, 6.0, 6.5, 6.9332]) == [75.0, 73.0, 74.0, 77.0]
    # equal raw scores: as before (the earlier speakers take the spare steps)
    assert DEFAULT.team([7.0] * 4) == [76.0, 76.0, 76.0, 75.0]
    # both clipped to 82, yet 10 is above 9.9: 81 and 82 (the total, 164, gives way)
    assert DEFAULT.team([9.9, 10.0]) == [81.0, 82.0]
    # three distinct raw scores on a grid of two values (0 and 1): not possible, plain rounding
    assert round_team_ranked([0.2, 0.5, 0.9], [2.0, 5.0, 9.0], 0, 1, 1) == round_team([0.2, 0.5, 0.9], 0, 1, 1) == [0.0, 1.0, 1.0]


def _bundled_4v4() -> list[tuple[str, str, dict[str, list[float]]]]:
    out = []
    for f in sorted(MATCHES.glob("synthetic_4v4_*.json")):
        m = load_match(f)
        v = adjudicate(m)
        out.append((f.stem, v.winner, raw_debater_scores(m, v)))
    return out


@pytest.fixture(scope="module")
def bundled():
    return _bundled_4v4()


def test_the_bundled_4v4_matches_keep_their_raw_order_on_every_tabbycat_scale(bundled):
    assert [name for name, _, _ in bundled] == ["synthetic_4v4_01", "synthetic_4v4_02"]
    first = dict(zip(SIDES, (bundled[0][2]["affirmative"], bundled[0][2]["negative"]), strict=True))
    assert [round(r, 4) for r in first["affirmative"]] == [6.6668, 6.5557, 6.75, 6.8]
    checked = 0
    for low, high, step in ((68, 82, 1), (70, 80, 1), (70, 80, 0.5)):
        for mapping in ("linear", "calibrated"):
            scale = SpeakerScale(low=low, high=high, step=step, mapping=mapping)
            for _, _, raws in bundled:
                for side in SIDES:
                    pts, r = scale.team(raws[side]), [round(x, 6) for x in raws[side]]
                    assert all(pts[i] > pts[j] for i in range(4) for j in range(4) if r[i] > r[j]), (scale, side, raws[side], pts)
                    assert sum(pts) == sum(round_team([scale.unrounded(x) for x in raws[side]], low, step, high))  # the team's total unchanged
                    checked += 1
    assert checked == 24


def test_the_bundled_4v4_match_on_tabbycats_defaults_as_pushed(bundled):
    name, winner, raws = bundled[0]
    labels = {s: [position_label(s, i) for i in range(1, 5)] for s in SIDES}
    src = RoomSource(tournament_id="cup", round_id="r1", room_id="A", match_id="cup.r1.A", format="ccdb-4v4", tabbycat_round=1,
                     teams={"affirmative": "Fudan", "negative": "Wuhan"}, debaters={x: None for ls in labels.values() for x in ls},
                     state="confirmed", decision_version=1, winner=winner,
                     raw_scores={x: r for s in SIDES for x, r in zip(labels[s], raws[s], strict=True)})
    points, moves = winner_kept_ahead(src, DEFAULT)
    assert winner == "affirmative" and moves == []
    assert points == {"affirmative": [74.0, 73.0, 76.0, 77.0], "negative": [75.0, 73.0, 74.0, 77.0]}
