"""The British Parliamentary format: its declaration, match validation, gold labels, and the
PanelBench BP-Competition converter."""

from __future__ import annotations

import pytest
from bp_helpers import bp_data, write_bp

from adjudicator.cli import main
from adjudicator.errors import InputError
from adjudicator.input.convert.debateart import convert_panelbench
from adjudicator.input.formats import BP, get_format
from adjudicator.input.match_file import load_match, parse_match


def run(args, capsys):
    code = main(list(map(str, args)))
    out, err = capsys.readouterr()
    return code, out, err


# --- the declaration ----------------------------------------------------------------------------


def test_bp_declares_four_houses_and_eight_speeches_with_roles():
    spec = get_format("bp")
    assert spec.unit_ids() == ["OG", "OO", "CG", "CO"]
    assert [u.side for u in spec.units] == ["affirmative", "negative", "affirmative", "negative"]
    assert [u.closing for u in spec.units] == [False, False, True, True]
    assert [s.abbr for s in spec.order] == ["PM", "LO", "DPM", "DLO", "MG", "MO", "GW", "OW"]
    assert [s.unit for s in spec.order] == ["OG", "OO", "OG", "OO", "CG", "CO", "CG", "CO"]
    assert [s.speech_role for s in spec.order] == ["set-up", "set-up", "rebuttal", "rebuttal", "extension", "extension", "whip", "whip"]
    assert spec.verdict == "ranking" and spec.speaker_scale == (50, 100) and not spec.has_third_speaker
    assert spec.label("affirmative", 3) == "Member of Government" and spec.label("negative", 1) == "Leader of the Opposition"
    # a two-sided format keeps its units: the sides, each holding all its positions
    assert get_format("ccdb-4v4").unit_ids() == ["affirmative", "negative"]
    assert get_format("ccdb-4v4").units[0].positions == (1, 2, 3, 4)


def test_a_valid_bp_match_with_team_level_speakers():
    m = parse_match(bp_data())
    assert m.units() == ["OG", "OO", "CG", "CO"]
    assert m.speeches()[4] == ("s05", "CG", "MG")
    assert m.unit_of("Closing Opposition") == "CO" and m.side_of("Closing Opposition") == "negative"
    assert m.slot_of("s08").abbr == "OW"


def test_named_debaters_take_the_formats_labels():
    data = bp_data()
    data["debaters"] = [{"side": "affirmative", "position": 1, "name": "Ada"}]
    data["stages"][0]["speakers"] = ["Prime Minister"]
    data["stages"][0]["utterances"][0]["speaker"] = "Prime Minister"
    m = parse_match(data)
    assert m.debater_labels() == ["Prime Minister"]
    assert m.unit_of("Prime Minister") == "OG"


# --- bad input: one line, exit 2 ------------------------------------------------------------------


def test_five_teams_is_refused(tmp_path, capsys):
    data = bp_data()
    data["teams"] = [{"unit": u} for u in ("OG", "OO", "CG", "CO")] + [{"unit": "OG", "name": "Extra"}]
    code, out, err = run([write_bp(tmp_path, data)], capsys)
    assert code == 2 and out == ""
    assert err.strip().splitlines()[0].endswith("teams: bp has 4 teams (OG, OO, CG, CO); got 5")
    assert "Traceback" not in err


def test_an_unknown_team_is_refused(tmp_path, capsys):
    data = bp_data()
    data["teams"] = [{"unit": "MG"}]
    with pytest.raises(InputError, match=r"teams\.0\.unit: 'MG' is not a team of bp; use one of OG, OO, CG, CO"):
        parse_match(data)


def test_a_speech_by_an_unknown_team_is_refused(tmp_path, capsys):
    data = bp_data()
    data["stages"][4]["utterances"][0]["speaker"] = "Middle Government"
    code, _, err = run([write_bp(tmp_path, data)], capsys)
    assert code == 2
    assert "stages.4.utterances.0.speaker: 'Middle Government' is not a debater of this match" in err
    assert len(err.strip().splitlines()) <= 2  # the line, and at most its hint


def test_a_speech_by_the_wrong_house_is_refused():
    data = bp_data()
    st = data["stages"][4]  # MG belongs to CG
    st["speakers"] = ["Opening Government"]
    st["utterances"][0]["speaker"] = "Opening Government"
    with pytest.raises(InputError, match=r"stages\.4\.speakers: Opening Government speaks for OG, but the MG speech .* belongs to CG"):
        parse_match(data)


def test_a_speech_on_the_wrong_bench_is_refused():
    data = bp_data()
    data["stages"][1]["utterances"][0]["side"] = "affirmative"
    with pytest.raises(InputError, match=r"stages\.1\.utterances\.0\.side: Opening Opposition speaks for the negative, not the affirmative"):
        parse_match(data)


def test_duplicate_ranks_are_refused(tmp_path, capsys):
    data = bp_data(labels={"ranking": {"OG": 1, "OO": 1, "CG": 3, "CO": 4}})
    code, _, err = run([write_bp(tmp_path, data)], capsys)
    assert code == 2
    assert "labels.ranking: rank 1 is given to OG and OO; ranks are 1-4 without ties" in err


def test_duplicate_speaker_ranks_and_missing_ranks_are_refused():
    ranks = {f"s{k:02d}": k for k in range(1, 9)}
    ranks["s02"] = 1
    with pytest.raises(InputError, match=r"labels\.speaker_ranks: rank 1 is given to s01 and s02"):
        parse_match(bp_data(labels={"speaker_ranks": ranks}))
    with pytest.raises(InputError, match=r"labels\.ranking: CO has no rank"):
        parse_match(bp_data(labels={"ranking": {"OG": 1, "OO": 2, "CG": 3}}))


def test_a_low_point_win_is_refused():
    # OG 80+80 = 160 ranked first, OO 81+80 = 161 ranked second: a low-point win
    scores = dict(zip([f"s{k:02d}" for k in range(1, 9)], [80, 81, 80, 80, 75, 75, 75, 74]))
    labels = {"ranking": {"OG": 1, "OO": 2, "CG": 3, "CO": 4}, "speaker_scores": scores}
    with pytest.raises(InputError, match=r"labels\.ranking: OG \(rank 1, 160 speaker points\) must have more points than OO \(rank 2, 161\); no low-point wins"):
        parse_match(bp_data(labels=labels))
    scores["s01"] = 82  # OG 162 > OO 161 > CG 150 > CO 149
    assert parse_match(bp_data(labels=labels)).labels.ranking["OG"] == 1


def test_speaker_scores_stay_on_the_wudc_scale():
    with pytest.raises(InputError, match=r"labels\.speaker_scores\.s03: 101 is outside 50-100"):
        parse_match(bp_data(labels={"speaker_scores": {"s03": 101}}))


def test_advancing_teams_must_top_the_ranking():
    with pytest.raises(InputError, match="labels.advanced: the advancing teams must be the top of labels.ranking"):
        parse_match(bp_data(labels={"ranking": {"OG": 1, "OO": 2, "CG": 3, "CO": 4}, "advanced": ["OG", "CG"]}))
    with pytest.raises(InputError, match="labels.advanced: 'XX' is not a team of bp"):
        parse_match(bp_data(labels={"advanced": ["XX"]}))


def test_ranking_labels_on_a_two_sided_format_are_refused(bundled_matches_dir):
    import json

    data = json.loads((bundled_matches_dir / "panelbench" / "debateart_0020.json").read_text(encoding="utf-8"))
    data["labels"]["ranking"] = {"affirmative": 1, "negative": 2}
    with pytest.raises(InputError, match="labels.ranking: online-1v1 has a winner, not a ranking"):
        parse_match(data)


# --- the converter on the real rounds --------------------------------------------------------------


def test_converter_writes_the_eleven_bp_rounds(panelbench_dir, tmp_path):
    paths = convert_panelbench(panelbench_dir / "BP-Competition", tmp_path)
    assert [p.stem for p in paths] == ["bp_110", "bp_202", "bp_210", "bp_211", "bp_216", "bp_221", "bp_222", "bp_230", "bp_234", "bp_235", "bp_236"]
    matches = {p.stem: load_match(p) for p in paths}
    # gold/gold.csv by hand: 110 CO (NAUDC 2021 Final), 202 "OG,OO" (WUDC 2020 Semifinal 1), 216 "OO,CG"
    assert matches["bp_110"].labels.advanced == ["CO"]
    assert matches["bp_202"].labels.advanced == ["OG", "OO"]
    assert matches["bp_216"].labels.advanced == ["OO", "CG"]
    assert "NAUDC 2021 Final" in matches["bp_110"].labels.note
    m = matches["bp_202"]
    assert m.format == "bp" and m.debaters == [] and len(m.stages) == 8
    assert [s.speakers[0] for s in m.stages] == [BP.unit(u).name for u in ("OG", "OO", "OG", "OO", "CG", "CO", "CG", "CO")]
    assert m.info.startswith('A "Brave New World" has these characteristics')
    assert matches["bp_110"].info is None  # "No information."
    assert m.stages[0].utterances[0].text.startswith("Okay, so I know the majority of people in this room")
    assert m.source.kind == "real" and m.source.licence == "MIT"


def test_the_panelbench_folder_converts_both_parts(panelbench_dir, tmp_path):
    paths = convert_panelbench(panelbench_dir, tmp_path, ids=["debateart_0020", "bp_230"])
    assert [p.name for p in paths] == ["debateart_0020.json", "bp_230.json"]
    assert load_match(paths[1]).labels.advanced == ["OO"]  # WUDC 2023 Final: OO won


def test_a_speech_out_of_bp_order_is_refused(panelbench_dir, tmp_path):
    import shutil

    src = tmp_path / "BP-Competition"
    shutil.copytree(panelbench_dir / "BP-Competition", src)
    for p in src.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    speech = src / "speech" / "bp_110.yml"
    text = speech.read_text(encoding="utf-8")
    speech.write_text(text.replace("speaker_name: Opening_Opposition_(OO)", "speaker_name: Closing_Opposition_(CO)", 1), encoding="utf-8")
    with pytest.raises(InputError, match=r"bp_110\.yml: speech 2 is by CO, but the LO speech belongs to OO"):
        convert_panelbench(src, tmp_path / "out")


def test_competitors_for_a_pairwise_comparison(bundled_matches_dir):
    m = parse_match(bp_data())
    assert m.competitors("unit") == ["OG", "OO", "CG", "CO"]
    # team-level speakers: each speech is one speaker's performance
    assert m.competitors("speaker") == [f"s{k:02d}" for k in range(1, 9)]
    two = load_match(bundled_matches_dir / "panelbench" / "debateart_0020.json")
    assert two.competitors("unit") == ["affirmative", "negative"]
    assert two.competitors("speaker") == ["Affirmative Speaker 1", "Negative Speaker 1"]
