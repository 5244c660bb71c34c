"""Stricter input rules found by QA: slot sides and roles of fixed-order formats, strict types, ids,
non-empty text fields, CCDB vote totals, file size, and CLI path clashes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.cli import main
from adjudicator.errors import InputError
from adjudicator.input import match_file
from adjudicator.input.match_file import load_match

SYNTH = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "synthetic"
REAL = SYNTH.parent / "panelbench" / "debateart_0020.json"


def edited(tmp_path: Path, source: Path, edit) -> Path:
    data = json.loads(source.read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def swap_side_of_first_constructive(d):
    st = d["stages"][0]
    st["sides"] = ["negative"]
    st["speakers"] = ["Negative Speaker 1"]
    for u in st["utterances"]:
        u["speaker"], u["side"] = "Negative Speaker 1", "negative"
    for j in d["labels"]["judges"]:
        j["stage_scores"] = {k.replace(f"{st['stage_id']}|affirmative", f"{st['stage_id']}|negative"): v for k, v in j["stage_scores"].items()}


def test_a_fixed_order_stage_must_be_acted_by_its_slot_side(tmp_path):
    path = edited(tmp_path, SYNTH / "synthetic_2v2_01.json", swap_side_of_first_constructive)
    with pytest.raises(InputError, match=r"stages\.0\.sides: Affirmative constructive speech .* is the affirmative's stage in ccdb-2v2; got negative"):
        load_match(path)


def test_a_fixed_order_questioning_keeps_its_questioner(tmp_path):
    def swap_roles(d):
        d["stages"][1]["roles"] = {"affirmative": "questioner", "negative": "respondent"}

    path = edited(tmp_path, SYNTH / "synthetic_2v2_01.json", swap_roles)
    with pytest.raises(InputError, match=r"stages\.1\.roles: in Negative questioning .* the negative is the questioner"):
        load_match(path)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["labels"]["judges"][0]["stage_scores"].update({next(iter(d["labels"]["judges"][0]["stage_scores"])): "7"}), "valid integer"),
        (lambda d: d["debaters"][0].update(position="1"), "debaters.0.position"),
        (lambda d: d["debaters"][0].update(position=True), "debaters.0.position"),
        (lambda d: d.update(motion=""), "field motion"),
        (lambda d: d.update(match_id="../../etc/x"), "field match_id"),
        (lambda d: d.update(match_id=""), "field match_id"),
        (lambda d: d["stages"][0].update(stage_id="s|1"), "stages.0.stage_id"),
        (lambda d: d["labels"]["judges"][0].update(best_debater_votes={"Affirmative Speaker 1": 5}), "a CCDB judge gives exactly 3 votes, got 5"),
    ],
    ids=["score-string", "position-string", "position-bool", "empty-motion", "path-id", "empty-id", "pipe-in-stage-id", "five-votes"],
)
def test_loose_values_are_refused(tmp_path, edit, message):
    path = edited(tmp_path, SYNTH / "synthetic_4v4_01.json", edit)
    with pytest.raises(InputError) as err:
        load_match(path)
    assert message in err.value.one_line()


def test_an_oversized_file_is_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(match_file, "MAX_MATCH_BYTES", 1000)
    big = tmp_path / "big.json"
    big.write_text(" " * 2000 + "{}", encoding="utf-8")
    with pytest.raises(InputError, match="larger than the 0 MiB a match file may be"):
        load_match(big)


def test_report_may_not_overwrite_the_verdict(tmp_path, capsys):
    same = tmp_path / "same.md"
    assert main([str(REAL), "--out", str(same), "--report", "md"]) == 2
    assert "would be overwritten by the Markdown report" in capsys.readouterr().err
    assert not same.exists()
    v = tmp_path / "v.json"
    assert main([str(REAL), "--out", str(v), "--report-out", str(v)]) == 2
    assert "is also the --out verdict path" in capsys.readouterr().err


def test_report_out_implies_a_markdown_report(tmp_path, capsys):
    rep = tmp_path / "r.md"
    assert main([str(REAL), "--report-out", str(rep)]) == 0
    assert rep.read_text(encoding="utf-8").startswith("# Verdict: debateart_0020")


def test_no_arguments_is_a_usage_error(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give a match file or a command" in err
