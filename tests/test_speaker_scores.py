"""Speaker scores on a tournament's scale (adjudicator/live/tournament/speaker_scores.py): the calibrated map, the
linear one, and the rounding of a team's speeches together. Every number is worked by hand below."""

from __future__ import annotations

import pytest

from adjudicator.live.tournament.speaker_scores import HUMAN_SD_FRACTION, SpeakerScale, calibrated, linear, round_team


def test_the_human_spread_is_debatebenchs():
    # DebateBench (seed 002, Table 1): sd 2.69 on the WUDC 50-100 scale -> 2.69 / 50
    assert HUMAN_SD_FRACTION == pytest.approx(0.0538, abs=1e-12)


def test_calibrated_by_hand():
    # 68-82: mid 75, gain = 0.0538 * 14 / 0.33 = 2.282424...; raw 7.0 -> 75 + 0.34 * 2.282424 = 75.7760
    assert calibrated(7.0, 68, 82) == pytest.approx(75.776024, abs=1e-6)
    # the panel's mean lands in the middle; one raw sd above it is 5.38% of the width above the middle
    assert calibrated(6.66, 68, 82) == pytest.approx(75.0) and calibrated(6.66 + 0.33, 68, 82) - 75 == pytest.approx(0.0538 * 14)
    # clipped to the range
    assert (calibrated(10, 68, 82), calibrated(1, 68, 82)) == (82, 68)
    # another panel's own mean and sd: raw 8 with mean 7, sd 1 on 70-80 -> 75 + 1 * 0.538
    assert calibrated(8, 70, 80, raw_mean=7, raw_sd=1) == pytest.approx(75.538)
    with pytest.raises(ValueError, match="raw_sd"):
        calibrated(7, 70, 80, raw_sd=0)


def test_linear_by_hand():
    # 70 + (7.5 - 1) * 10 / 9 = 77.222
    assert linear(7.5, 70, 80) == pytest.approx(77.2222, abs=1e-4) and (linear(1, 70, 80), linear(10, 70, 80)) == (70, 80)


def test_a_team_is_rounded_together_by_largest_remainders():
    # 75.776 x 4 = 303.104 -> 303: floors 75 x 4 = 300, three more points to the largest remainders (all equal: the first three)
    assert round_team([75.776] * 4, 68, 1) == [76.0, 76.0, 76.0, 75.0]
    # 74.2, 75.9, 73.5, 74.4: total 298.0 -> floors 74, 75, 73, 74 = 296, two more: remainders .9 and .5 -> speakers 2 and 3
    assert round_team([74.2, 75.9, 73.5, 74.4], 68, 1) == [74.0, 76.0, 74.0, 74.0]
    # on a half-point grid from 70: 75.554 x 4 = 302.216 -> 302.0 = 604 half-steps: floors 75.5 x 4 = 302.0, nothing more
    assert round_team([75.554] * 4, 70, 0.5) == [75.5] * 4
    # never above the top of the range: 81.6 + 81.6 -> total 163.2 -> 163 would need 82 + 81, both allowed; 82 cannot become 83
    assert round_team([81.6, 81.6], 68, 1, 82) == [82.0, 81.0] and round_team([82.0, 81.9], 68, 1, 82) == [82.0, 82.0]


def test_the_scale_picks_its_mapping_by_range_unless_told():
    assert SpeakerScale().method() == "linear" and SpeakerScale().team([7.0, 6.5]) == [7.0, 6.5]  # the CCDB scale as the panel gave it
    s = SpeakerScale(low=68, high=82, step=1)
    assert s.method() == "calibrated" and s.team([7.0] * 4) == [76.0, 76.0, 76.0, 75.0]
    assert SpeakerScale(low=68, high=82, step=1, mapping="linear").team([7.0]) == [77.0]  # 68 + 6 * 14 / 9 = 77.33 -> 77
