"""BP ballots and verdicts: ranking/score consistency, the panel's ranking rule with dissent, and the
offline judge end to end on a BP match."""

from __future__ import annotations

import json

import pytest
from bp_helpers import bp_data, write_bp
from pydantic import ValidationError

from adjudicator.cli import main
from adjudicator.input.match_file import parse_match
from adjudicator.verdict.aggregate import panel_ranking
from adjudicator.verdict.ballots import Ballot, SpeakerScore

SPEECHES = [("s01", "OG", "PM"), ("s02", "OO", "LO"), ("s03", "OG", "DPM"), ("s04", "OO", "DLO"), ("s05", "CG", "MG"), ("s06", "CO", "MO"), ("s07", "CG", "GW"), ("s08", "CO", "OW")]


def ballot(judge: str, ranking: dict[str, int], scores: list[int]) -> Ballot:
    """A ranking ballot; speaker ranks follow the scores (ties by speaking order)."""
    order = sorted(range(8), key=lambda k: (-scores[k], k))
    rank = {k: r for r, k in enumerate(order, start=1)}
    return Ballot(
        judge_id=judge,
        model="hand",
        winner=None,
        p=None,
        stage_scores=[],
        best_debater_votes={},
        ranking=ranking,
        speaker_scores=[SpeakerScore(stage_id=sid, unit=u, speech=a, score=scores[k], rank=rank[k]) for k, (sid, u, a) in enumerate(SPEECHES)],
    )


# speeches in order PM LO DPM DLO MG MO GW OW
J1 = ballot("judge-1", {"OG": 1, "OO": 2, "CG": 3, "CO": 4}, [84, 82, 83, 82, 80, 78, 80, 79])  # OG 167, OO 164, CG 160, CO 157
J2 = ballot("judge-2", {"OG": 2, "OO": 1, "CG": 3, "CO": 4}, [81, 83, 81, 82, 80, 79, 80, 79])  # OG 162, OO 165, CG 160, CO 158
J3 = ballot("judge-3", {"OG": 1, "OO": 3, "CG": 2, "CO": 4}, [85, 80, 84, 80, 82, 78, 82, 79])  # OG 169, OO 160, CG 164, CO 157


def test_a_low_point_win_ballot_is_refused():
    # OG ranked first with 80+80 = 160 points, OO second with 81+81 = 162
    with pytest.raises(ValidationError, match="OG \\(rank 1, 160 speaker points\\) must have more points than OO \\(rank 2, 162\\); no low-point wins"):
        ballot("j", {"OG": 1, "OO": 2, "CG": 3, "CO": 4}, [80, 81, 80, 81, 79, 78, 79, 77])


def test_tied_team_totals_cannot_separate_two_houses():
    # OG 160, OO 160
    with pytest.raises(ValidationError, match="no low-point wins"):
        ballot("j", {"OG": 1, "OO": 2, "CG": 3, "CO": 4}, [80, 80, 80, 80, 79, 78, 79, 77])


def test_duplicate_house_ranks_and_inverted_speaker_ranks_are_refused():
    with pytest.raises(ValidationError, match="ranking: rank 1 is given to OG and OO"):
        ballot("j", {"OG": 1, "OO": 1, "CG": 3, "CO": 4}, [84, 82, 83, 82, 80, 78, 80, 79])
    good = J1.model_dump()
    good["speaker_scores"][0]["rank"], good["speaker_scores"][1]["rank"] = good["speaker_scores"][1]["rank"], good["speaker_scores"][0]["rank"]
    with pytest.raises(ValidationError, match="a higher score ranks better"):
        Ballot.model_validate(good)


def test_a_ranking_ballot_has_no_winner():
    data = J1.model_dump()
    data.update(winner="affirmative", p=0.7)
    with pytest.raises(ValidationError, match="a ranking ballot has no winner"):
        Ballot.model_validate(data)


def test_panel_ranking_by_mean_rank_with_dissent():
    match = parse_match(bp_data())
    ranked, speeches, dissent = panel_ranking(match, [J1, J2, J3])
    # mean ranks: OG (1+2+1)/3 = 1.333, OO (2+1+3)/3 = 2.0, CG (3+3+2)/3 = 2.667, CO 4.0
    assert [(r.unit, r.rank, r.mean_rank) for r in ranked] == [("OG", 1, 1.333), ("OO", 2, 2.0), ("CG", 3, 2.667), ("CO", 4, 4.0)]
    # mean points: OG (167+162+169)/3 = 166.0, OO (164+165+160)/3 = 163.0, CG (160+160+164)/3 = 161.33, CO 157.33
    assert [r.points for r in ranked] == [166.0, 163.0, 161.33, 157.33]
    assert ranked[0].judge_points == [167, 162, 169]
    # first place: judges 1 and 3 put OG first -> "2:1"; judges 2 and 3 differ from the panel's ranking
    assert dissent.winner_split == "2:1" and dissent.dissenting_judges == ["judge-2", "judge-3"]
    # rank error vs panel (OG1 OO2 CG3 CO4): judge-2 |2-1|+|1-2| = 2; judge-3 |3-2|+|2-3| = 2
    assert dissent.rank_error == {"judge-1": 0, "judge-2": 2, "judge-3": 2}
    assert dissent.low_point_wins == []
    # PM: 84, 81, 85 -> mean 83.333, the best speech; range 85-81 = 4 is the widest
    pm = speeches[0]
    assert (pm.speech, pm.judge_scores, pm.mean, pm.rank) == ("PM", [84, 81, 85], 83.333, 1)
    assert dissent.max_score_range == 4
    # speaker ranks follow mean scores: PM 83.33, DPM 82.67, LO 81.67, DLO 81.33, MG 80.67 = GW 80.67
    # (mean judge rank MG (5+5+3)/3 vs GW (6+6+4)/3: MG first), OW 79.0, MO 78.33
    assert {s.speech: s.rank for s in speeches} == {"PM": 1, "DPM": 2, "LO": 3, "DLO": 4, "MG": 5, "GW": 6, "OW": 7, "MO": 8}


def test_a_ranking_against_the_mean_points_is_recorded_as_a_low_point_win():
    match = parse_match(bp_data())
    # judge-2 puts OO far ahead on points, but two judges of three rank OG above OO
    j3b = ballot("judge-3", {"OG": 1, "OO": 2, "CG": 3, "CO": 4}, [79, 78, 79, 78, 77, 76, 77, 75])  # OG 158, OO 156
    j2b = ballot("judge-2", {"OG": 2, "OO": 1, "CG": 3, "CO": 4}, [75, 90, 75, 90, 74, 73, 74, 72])  # OG 150, OO 180
    ranked, _, dissent = panel_ranking(match, [J1, j2b, j3b])
    # mean ranks OG 4/3, OO 5/3 -> OG first; mean points OG (167+150+158)/3 = 158.33 < OO (164+180+156)/3 = 166.67
    assert [r.unit for r in ranked[:2]] == ["OG", "OO"]
    assert dissent.low_point_wins == ["OG (rank 1, 158.33 points) above OO (rank 2, 166.67)"]


def test_offline_verdict_on_a_bp_match(tmp_path, capsys):
    path = write_bp(tmp_path, bp_data())
    code = main([str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    v = json.loads(out)
    assert v["format"] == "bp" and v["winner"] is None and v["p"] is None
    assert v["stage_scores"] == [] and v["best_debater_votes"] == {}
    assert sorted(r["rank"] for r in v["ranking"]) == [1, 2, 3, 4] and {r["unit"] for r in v["ranking"]} == {"OG", "OO", "CG", "CO"}
    assert [s["speech"] for s in v["speaker_scores"]] == ["PM", "LO", "DPM", "DLO", "MG", "MO", "GW", "OW"]
    assert sorted(s["rank"] for s in v["speaker_scores"]) == list(range(1, 9))
    assert len(v["ballots"]) == 3
    for b in v["ballots"]:
        Ballot.model_validate(b)  # each ballot is consistent: ranks, scores, no low-point win
        assert all(50 <= s["score"] <= 100 for s in b["speaker_scores"])
        assert "winner" in b and b["winner"] is None
    assert "ranking " in err and " > " in err
    # the clash map keeps bench positions: government = affirmative, opposition = negative
    assert all({"affirmative_position", "negative_position"} <= set(c) for c in v["battlefields"])


def test_two_sided_verdicts_carry_no_ranking_fields(bundled_matches_dir, capsys):
    assert main([str(bundled_matches_dir / "panelbench" / "debateart_0020.json")]) == 0
    v = json.loads(capsys.readouterr().out)
    assert "ranking" not in v and "speaker_scores" not in v
    assert "ranking" not in v["ballots"][0] and "rank_error" not in v["dissent"]
