"""Rubric presets and rubric files (issue 13): the shipped presets, the file schema, and one-line
bad-input errors (exit code 2, nothing sent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.cli import main
from adjudicator.errors import InputError
from adjudicator.input.rubric import PRESETS, Rubric, check_rubric_format, load_rubric

REAL = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "panelbench" / "debateart_4395.json"

GOOD = """name: club
description: our club's ballot
decision: weighted_points
dimensions:
  - key: reasoning
    name: Reasoning
    definition: How well the side reasons.
    weight: 2
  - key: style
    name: Style
    definition: How well the side speaks.
"""


def test_presets_load_with_their_declared_dimensions() -> None:
    assert PRESETS == ("ccdb", "debateart", "inspire")
    ccdb = load_rubric(None)
    assert ccdb.name == "ccdb" and not ccdb.dimensional and ccdb.decision == "panel"
    assert [d.key for d in ccdb.dimensions] == ["task_performance", "battlefield_judgement", "advancement"]
    da = load_rubric("debateart")
    assert da.dimensional and da.decision == "weighted_points"
    # debateart.com's ballot: arguments 3, sources 2, legibility 1; gold names match dimension.csv
    assert [(d.key, d.weight, d.gold) for d in da.dimensions] == [("argument", 3.0, "argument"), ("source", 2.0, "source"), ("language", 1.0, "language")]
    ins = load_rubric("inspire")
    assert ins.decision == "weighted_mean"
    assert [d.key for d in ins.dimensions if d.kind == "subjective"] == ["emotional_appeal", "argument_clarity", "argument_arrangement", "topic_relevance"]
    assert [(d.key, d.check, d.scale_min, d.scale_max) for d in ins.dimensions if d.kind == "objective"] == [
        ("logical_validity", "logical_validity", 0.0, 1.0),
        ("fact_authenticity", "fact_authenticity", 0.0, 1.0),
    ]


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".toml"])
def test_a_rubric_file_in_each_syntax(tmp_path: Path, suffix: str) -> None:
    import yaml

    data = yaml.safe_load(GOOD)
    path = tmp_path / f"club{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(data), encoding="utf-8")
    elif suffix == ".toml":
        dims = "".join(f'[[dimensions]]\nkey = "{d["key"]}"\nname = "{d["name"]}"\ndefinition = "{d["definition"]}"\nweight = {d.get("weight", 1)}\n' for d in data["dimensions"])
        path.write_text(f'name = "club"\ndecision = "weighted_points"\n{dims}', encoding="utf-8")
    else:
        path.write_text(GOOD, encoding="utf-8")
    r = load_rubric(str(path))
    assert r.name == "club" and [d.key for d in r.dimensions] == ["reasoning", "style"]
    assert r.dimension("reasoning").weight == 2.0 and r.dimension("style").scale_max == 10.0


@pytest.mark.parametrize(
    "text, expected",
    [
        (GOOD.replace("key: style", "key: reasoning"), "--rubric {path}: dimensions: key 'reasoning' is used twice"),
        (GOOD.replace("weight: 2", "weight: -1"), "dimensions.0.weight: Input should be greater than or equal to 0"),
        (GOOD.replace("key: style", "key: Style!"), "dimensions.1.key: String should match pattern"),
        (GOOD.replace("    definition: How well the side speaks.\n", ""), "dimensions.1.definition: Field required"),
        (GOOD + "colour: blue\n", "colour: Extra inputs are not permitted"),
        (GOOD.replace("decision: weighted_points", "decision: vibes"), "decision: Input should be 'panel', 'weighted_points' or 'weighted_mean'"),
        (GOOD.replace("    weight: 2\n", "    scale_min: 5\n    scale_max: 5\n"), "dimensions.0: scale_min 5 must be below scale_max 5"),
        (GOOD.replace("    weight: 2\n", "    check: fact_authenticity\n"), "check fact_authenticity scores a ratio; give scale_min 0 and scale_max 1"),
        (GOOD.replace("    weight: 2\n", "    check: ccdb_level\n"), "ccdb_level dimensions and stage_score ccdb_table go together"),
        ("name: club\ndimensions: []\n", "dimensions: List should have at least 1 item"),
        ("- just\n- a list\n", "expected a mapping with name, dimensions, decision"),
        ("name: [unclosed\n", "malformed file"),
    ],
)
def test_bad_rubric_files_are_one_line_errors(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_rubric(str(path))
    line = exc.value.one_line()
    assert expected.format(path=path) in line and "\n" not in line and exc.value.exit_code == 2


def test_unknown_name_and_missing_file() -> None:
    with pytest.raises(InputError) as exc:
        load_rubric("debatart")
    assert exc.value.one_line().startswith("--rubric: unknown rubric 'debatart'; use one of ccdb, debateart, inspire")
    with pytest.raises(InputError, match=r"--rubric /no/such/rubric.yaml: no such file"):
        load_rubric("/no/such/rubric.yaml")


def test_dimensional_rubric_refuses_a_ranking_format() -> None:
    check_rubric_format(load_rubric("ccdb"), "bp")  # the ccdb rubric judges BP as before
    with pytest.raises(InputError, match="per-dimension winners are defined for two-sided formats, not bp"):
        check_rubric_format(load_rubric("debateart"), "bp")


def test_cli_bad_rubric_exits_2_with_one_line(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("weight: 2", "weight: heavy"), encoding="utf-8")
    code = main([str(REAL), "--rubric", str(bad)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "dimensions.0.weight: Input should be a valid number" in err and "Traceback" not in err


def test_rubric_from_environment_and_config_file(tmp_path: Path) -> None:
    from adjudicator.config import ModelConfig

    assert ModelConfig.resolve(env={"ADJUDICATOR_RUBRIC": "inspire"}).rubric == "inspire"
    cfg = tmp_path / "config.toml"
    cfg.write_text('rubric = "debateart"\nevidence = "transcript"\n', encoding="utf-8")
    c = ModelConfig.resolve(config_file=cfg, env={})
    assert (c.rubric, c.evidence) == ("debateart", "transcript")
    assert ModelConfig.resolve(config_file=cfg, rubric="inspire", env={}).rubric == "inspire"  # the flag wins


def test_rubric_schema_is_the_documented_one() -> None:
    fields = set(Rubric.model_json_schema()["properties"])
    assert fields == {"name", "description", "source", "dimensions", "stage_score", "decision", "tie_margin"}


def test_a_rubric_yaml_naming_a_key_twice_is_refused(tmp_path):
    from adjudicator.errors import InputError
    from adjudicator.input.rubric import load_rubric

    f = tmp_path / "r.yaml"
    f.write_text("name: mine\nname: other\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"malformed file \(key 'name' given twice \(line 2\)\)"):
        load_rubric(str(f))
