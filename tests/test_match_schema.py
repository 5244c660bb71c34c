"""The match file schema (adjudicator.input.match): round trip, the label-free view, labels, and every
bad-input case, each raising a one-line InputError that names the field path."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from adjudicator.errors import InputError
from adjudicator.input.formats import get_format
from adjudicator.input.match import Match, MatchView
from adjudicator.input.match_file import load_match

A1, N1 = "Affirmative Speaker 1", "Negative Speaker 1"


def small_match() -> dict[str, Any]:
    """A minimal valid online-1v1 match with labels."""
    return {
        "match_id": "m1",
        "format": "online-1v1",
        "language": "en",
        "motion": "Tea is better than coffee",
        "affirmative_position": "For the motion",
        "negative_position": "Against the motion",
        "debaters": [{"side": "affirmative", "position": 1}, {"side": "negative", "position": 1, "name": "bob"}],
        "stages": [
            {"stage_id": "s01", "name": "Round 1, affirmative (Pro) speech", "type": "constructive",
             "sides": ["affirmative"], "speakers": [A1],
             "utterances": [{"speaker": A1, "side": "affirmative", "text": "Tea has less caffeine."}]},
            {"stage_id": "s02", "name": "Round 1, negative (Con) speech", "type": "closing",
             "sides": ["negative"], "speakers": [N1],
             "utterances": [{"speaker": N1, "side": "negative", "text": "Coffee wakes you up.", "line": 3}]},
        ],
        "labels": {"outcome": "negative", "vote_count": 3, "note": "SECRET-GOLD-NOTE",
                   "judges": [{"judge_id": "j1", "winner": "negative", "stage_scores": {"s01|affirmative": 6, "s02|negative": 8},
                               "best_debater_votes": {N1: 3}}]},
        "source": {"kind": "synthetic", "origin": "tests"},
    }


def write(tmp_path: Path, data: Any, name: str = "match.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return p


def synthetic(bundled_matches_dir: Path, name: str) -> dict[str, Any]:
    return json.loads((bundled_matches_dir / "synthetic" / f"{name}.json").read_text(encoding="utf-8"))


def expect_error(path: Path, *fragments: str) -> str:
    """load_match(path) must raise InputError (exit 2) with one line containing every fragment."""
    with pytest.raises(InputError) as exc:
        load_match(path)
    line = exc.value.one_line()
    assert exc.value.exit_code == 2
    assert "\n" not in line
    for frag in fragments:
        assert frag in line, f"{frag!r} not in {line!r}"
    return line


# --- valid files ------------------------------------------------------------------------------


def test_valid_file_round_trips(tmp_path: Path) -> None:
    m = load_match(write(tmp_path, small_match()))
    assert m.stages[1].utterances[0].line == 3
    again = Match.model_validate_json(m.model_dump_json())
    assert again == m
    assert load_match(write(tmp_path, json.loads(m.model_dump_json()), "again.json")) == m


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    p = tmp_path / "bom.json"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(small_match()).encode("utf-8"))
    assert load_match(p).match_id == "m1"


def test_view_has_no_labels(tmp_path: Path) -> None:
    m = load_match(write(tmp_path, small_match()))
    view = m.view()
    assert type(view) is MatchView
    assert "labels" not in MatchView.model_fields and "source" not in MatchView.model_fields
    assert not hasattr(view, "labels")
    dumped = view.model_dump_json()
    assert "SECRET-GOLD-NOTE" not in dumped and "best_debater_votes" not in dumped and "stage_scores" not in dumped
    # a MatchView cannot be built with labels at all (extra="forbid")
    with pytest.raises(ValidationError):
        MatchView.model_validate(small_match())


def test_scored_units_follow_interaction(bundled_matches_dir: Path) -> None:
    # 4v4: 8 monologues (1 side) + 6 two-sided stages (2 sides) = 8 + 12 = 20 units.
    # 2v2 with both surprises: 6 monologues + 6 two-sided (12) + surprise questioning (2) + surprise speech (1) = 21.
    m4 = load_match(bundled_matches_dir / "synthetic" / "synthetic_4v4_01.json")
    m2 = load_match(bundled_matches_dir / "synthetic" / "synthetic_2v2_02.json")
    assert len(m4.scored_units()) == 20 and len(m2.scored_units()) == 21
    assert m4.scored_units()[:3] == [("s01", "affirmative"), ("s02", "affirmative"), ("s02", "negative")]


# --- labels -----------------------------------------------------------------------------------


def test_gold_winner_majority_and_appeal_kept_apart(bundled_matches_dir: Path) -> None:
    m = load_match(bundled_matches_dir / "synthetic" / "synthetic_4v4_02.json")
    # original panel: j1 negative, j2 negative, j3 affirmative -> negative 2:1
    assert [j.winner for j in m.labels.judges] == ["negative", "negative", "affirmative"]
    assert m.labels.gold_winner() == "negative"
    # appeal panel: a1, a2 affirmative, a3 negative; it does not change gold_winner()
    assert [j.winner for j in m.labels.appeal_judges] == ["affirmative", "affirmative", "negative"]


def test_outcome_used_when_no_judges(tmp_path: Path) -> None:
    d = small_match()
    d["labels"] = {"outcome": "tie", "vote_count": 2}
    assert load_match(write(tmp_path, d)).labels.gold_winner() == "tie"


LABEL_CASES: list[tuple[str, Callable[[dict], None], tuple[str, ...]]] = [
    ("score above 10", lambda d: d["labels"]["judges"][0]["stage_scores"].update({"s01|affirmative": 11}),
     ("labels.judges.0.stage_scores.s01|affirmative", "outside 1-10")),
    ("score not an integer", lambda d: d["labels"]["judges"][0]["stage_scores"].update({"s01|affirmative": "high"}),
     ("labels.judges.0.stage_scores.s01|affirmative", "integer")),
    ("score key without side", lambda d: d["labels"]["judges"][0]["stage_scores"].update({"s01": 5}),
     ("labels.judges.0.stage_scores", "'s01'")),
    ("score for an unscored side", lambda d: d["labels"]["judges"][0]["stage_scores"].update({"s01|negative": 5}),
     ("labels.judges.0.stage_scores", "'s01|negative' is not a scored")),
    ("vote for a non-debater", lambda d: d["labels"]["judges"][0]["best_debater_votes"].update({"Negative Speaker 3": 1}),
     ("labels.judges.0.best_debater_votes", "Negative Speaker 3")),
    ("negative vote count", lambda d: d["labels"]["judges"][0]["best_debater_votes"].update({N1: -1}),
     ("labels.judges.0.best_debater_votes", "cannot be negative")),
    ("duplicate judge id", lambda d: d["labels"]["judges"].append(copy.deepcopy(d["labels"]["judges"][0])),
     ("labels.judges", "judge_id is used twice")),
    ("unknown winner", lambda d: d["labels"]["judges"][0].update({"winner": "pro"}),
     ("labels.judges.0.winner",)),
    ("unknown outcome", lambda d: d["labels"].update({"outcome": "draw"}),
     ("field labels.outcome: Input should be 'affirmative' or 'negative' or 'tie'",)),
    ("negative vote_count", lambda d: d["labels"].update({"vote_count": -1}), ("labels.vote_count",)),
]


@pytest.mark.parametrize("case", LABEL_CASES, ids=[c[0] for c in LABEL_CASES])
def test_labels_validation(tmp_path: Path, case) -> None:
    _, mutate, fragments = case
    d = small_match()
    mutate(d)
    expect_error(write(tmp_path, d), *fragments)


# --- bad input: files -------------------------------------------------------------------------


def test_invalid_json(tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    p.write_text('{"match_id": "m1",\n  "format": }', encoding="utf-8")
    expect_error(p, "bad.json", "invalid JSON at line 2 column", "fix the JSON syntax")


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "latin1.json"
    p.write_bytes(json.dumps(small_match()).replace("Tea", "Th\u00e9").encode("latin-1"))
    expect_error(p, "latin1.json", "not UTF-8", "save the match file as UTF-8")


def test_top_level_not_an_object(tmp_path: Path) -> None:
    expect_error(write(tmp_path, [small_match()]), "top level must be a JSON object")


def test_file_does_not_exist(tmp_path: Path) -> None:
    expect_error(tmp_path / "missing.json", "missing.json: no such file")


def test_directory(tmp_path: Path) -> None:
    expect_error(tmp_path, "is a directory")


# --- bad input: schema and consistency --------------------------------------------------------


def _stage0(d: dict) -> dict:
    return d["stages"][0]


BAD_CASES: list[tuple[str, Callable[[dict], None], tuple[str, ...]]] = [
    ("missing field", lambda d: d.pop("motion"), ("field motion is missing",)),
    ("missing nested field", lambda d: _stage0(d)["utterances"][0].pop("text"), ("field stages.0.utterances.0.text is missing",)),
    ("unknown field", lambda d: d.update({"venue": "online"}), ("field venue is not part of the format",)),
    ("unknown nested field", lambda d: _stage0(d)["utterances"][0].update({"tone": "calm"}),
     ("field stages.0.utterances.0.tone is not part of the format",)),
    ("unknown format", lambda d: d.update({"format": "australs-3v3"}), ("field format", "'online-1v1'")),
    ("unknown stage type", lambda d: _stage0(d).update({"type": "rebuttal"}), ("field stages.0.type", "'constructive'")),
    ("stage type outside the format", lambda d: _stage0(d).update({"type": "summary"}),
     ("stages.0.type", "'summary' is not a stage type of online-1v1")),
    ("speaker not a debater", lambda d: _stage0(d)["utterances"][0].update({"speaker": "Affirmative Speaker 2"}),
     ("stages.0.utterances.0.speaker", "'Affirmative Speaker 2' is not a debater")),
    ("stage speaker not a debater", lambda d: _stage0(d).update({"speakers": ["Judge"]}),
     ("stages.0.speakers", "'Judge' is not a debater")),
    ("utterance side contradicts speaker", lambda d: _stage0(d)["utterances"][0].update({"side": "negative"}),
     ("stages.0.utterances.0.side",)),
    ("empty transcript", lambda d: d.update({"stages": []}), ("stages: the transcript is empty",)),
    ("stage with no utterances", lambda d: _stage0(d).update({"utterances": []}), ("field stages.0.utterances", "give at least one item")),
    ("stage with only empty text", lambda d: _stage0(d)["utterances"][0].update({"text": "  \n "}),
     ("field stages.0.utterances", "every utterance is empty")),
    ("duplicate stage ids", lambda d: d["stages"][1].update({"stage_id": "s01"}), ("stages", "stage_id 's01' is used twice")),
    ("duplicate debaters", lambda d: d["debaters"].append({"side": "affirmative", "position": 1}),
     ("debaters", "Affirmative Speaker 1 is listed twice")),
    ("debater position outside the format", lambda d: d["debaters"].append({"side": "negative", "position": 2}),
     ("debaters", "Negative Speaker 2 does not exist in online-1v1")),
    ("monologue with two sides", lambda d: _stage0(d).update({"sides": ["affirmative", "negative"]}),
     ("field stages.0.sides", "monologue")),
    ("roles on a monologue", lambda d: _stage0(d).update({"roles": {"affirmative": "questioner", "negative": "respondent"}}),
     ("field stages.0.roles", "only questioning and cross-examination")),
    ("exchange out of range", lambda d: _stage0(d).update({"exchanges": [{"exchange_id": "e1", "start": 0, "end": 4}]}),
     ("field stages.0.exchanges", "e1")),
]


@pytest.mark.parametrize("case", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_input(tmp_path: Path, case) -> None:
    _, mutate, fragments = case
    d = small_match()
    mutate(d)
    expect_error(write(tmp_path, d), "match.json", *fragments)


def test_asymmetric_stage_without_roles(tmp_path: Path, bundled_matches_dir: Path) -> None:
    d = synthetic(bundled_matches_dir, "synthetic_4v4_01")
    assert d["stages"][1]["type"] == "questioning"
    del d["stages"][1]["roles"]
    expect_error(write(tmp_path, d), "field stages.1.roles", "needs one questioner and one respondent")


def test_asymmetric_stage_with_two_questioners(tmp_path: Path, bundled_matches_dir: Path) -> None:
    d = synthetic(bundled_matches_dir, "synthetic_4v4_01")
    d["stages"][7]["roles"] = {"affirmative": "questioner", "negative": "questioner"}  # s08 cross-examination
    expect_error(write(tmp_path, d), "field stages.7.roles")


def test_wrong_stage_order_4v4(tmp_path: Path, bundled_matches_dir: Path) -> None:
    d = synthetic(bundled_matches_dir, "synthetic_4v4_01")
    # swap the two questioning summaries with the constructive speech before them: s03 <-> s05
    d["stages"][2], d["stages"][4] = d["stages"][4], d["stages"][2]
    expect_error(write(tmp_path, d), "stages.2.type: expected constructive (Negative constructive speech), got summary", "ccdb-4v4 expects 14 stages")


def test_missing_stage_2v2(tmp_path: Path, bundled_matches_dir: Path) -> None:
    d = synthetic(bundled_matches_dir, "synthetic_2v2_01")
    d["stages"].pop()  # drop the affirmative closing speech
    d["labels"] = None
    expect_error(write(tmp_path, d), "stages: 1 stage(s) missing after stages.10", "closing (Affirmative closing speech)")


def test_partial_match_may_be_a_prefix(bundled_matches_dir: Path) -> None:
    d = synthetic(bundled_matches_dir, "synthetic_4v4_01")
    d["stages"] = d["stages"][:5]
    d["labels"] = None
    m = Match.model_validate(d, context={"partial": True})
    assert len(m.stages) == 5
    with pytest.raises(ValidationError):
        Match.model_validate(d)


def test_surprise_challenge_twice(tmp_path: Path, bundled_matches_dir: Path) -> None:
    d = synthetic(bundled_matches_dir, "synthetic_2v2_02")
    surprise = [i for i, s in enumerate(d["stages"]) if s.get("surprise")]
    assert surprise == [7, 10]  # negative questioning after s07, affirmative speech after s10
    extra = copy.deepcopy(d["stages"][7])
    extra["stage_id"] = "s99"
    d["stages"].insert(9, extra)  # the negative surprises again after the next fixed stage
    d["labels"] = None
    expect_error(write(tmp_path, d), "stages.9.surprise", "negative already used its surprise challenge at stages.7")


def test_surprise_in_a_format_without_it(tmp_path: Path, bundled_matches_dir: Path) -> None:
    d = synthetic(bundled_matches_dir, "synthetic_4v4_01")
    d["stages"][0]["surprise"] = True
    expect_error(write(tmp_path, d), "stages.0.surprise", "ccdb-4v4 has no surprise challenge")


def test_surprise_of_the_wrong_type(tmp_path: Path, bundled_matches_dir: Path) -> None:
    d = synthetic(bundled_matches_dir, "synthetic_2v2_02")
    d["stages"][10]["type"] = "closing"
    d["labels"] = None
    expect_error(write(tmp_path, d), "stages.10.surprise", "questioning or supplementary")


# --- the bundled files ------------------------------------------------------------------------


def test_every_bundled_file_loads(bundled_matches_dir: Path) -> None:
    files = sorted(bundled_matches_dir.rglob("*.json"))
    assert len(files) >= 8
    for p in files:
        m = load_match(p)
        assert m.source is not None
        assert m.source.kind == ("real" if p.parent.name == "panelbench" else "synthetic")


def test_bundled_panelbench_credits(bundled_matches_dir: Path) -> None:
    folder = bundled_matches_dir / "panelbench"
    readme = (folder / "README.md").read_text(encoding="utf-8")
    for needle in ("Debatrix", "Liang et al.", "ljcleo/debatrix", "MIT", "2024 Leo Liang", "debateart.com"):
        assert needle in readme
    assert "Copyright (c) 2024 Leo Liang" in (folder / "LICENSE").read_text(encoding="utf-8")
    firsts = [load_match(p).stages[0].sides[0] for p in sorted(folder.glob("*.json"))]
    assert len(firsts) >= 4 and "negative" in firsts
    assert all(load_match(p).labels.outcome in ("affirmative", "negative") for p in folder.glob("*.json"))


def test_synthetic_files_follow_the_format_order(bundled_matches_dir: Path) -> None:
    folder = bundled_matches_dir / "synthetic"
    assert "must never be presented" in (folder / "README.md").read_text(encoding="utf-8")
    formats, splits, appeals, surprises = [], 0, 0, 0
    for p in sorted(folder.glob("*.json")):
        m = load_match(p)
        spec = get_format(m.format)
        formats.append(m.format)
        assert m.language == "zh" and m.source.kind == "synthetic" and "not real CCDB data" in m.source.origin
        fixed = [s for s in m.stages if not s.surprise]
        assert len(fixed) == len(spec.order)
        for st, slot in zip(fixed, spec.order):
            assert (st.type, tuple(st.sides), tuple(st.speakers), st.questioner) == (slot.type, slot.sides, slot.speakers, slot.questioner)
        surprises += sum(s.surprise for s in m.stages)
        units = {f"{sid}|{side}" for sid, side in m.scored_units()}
        for group in (m.labels.judges, m.labels.appeal_judges):
            if not group:
                continue
            assert len(group) == 3
            for j in group:
                assert j.winner in ("affirmative", "negative")
                assert set(j.stage_scores) == units  # every scored unit, nothing else
                assert sum(j.best_debater_votes.values()) == 3
        assert [j.judge_id for j in m.labels.judges] == ["j1", "j2", "j3"]
        winners = [j.winner for j in m.labels.judges]
        splits += max(winners.count("affirmative"), winners.count("negative")) == 2
        appeals += bool(m.labels.appeal_judges)
        assert p.stat().st_size < 40_000
    assert formats.count("ccdb-4v4") >= 2 and formats.count("ccdb-2v2") >= 2
    assert splits >= 1 and appeals >= 1 and surprises >= 1
