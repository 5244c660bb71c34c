"""``adjudicate splits``: three folds grouped by motion, balanced by format, team overlap checked
(CCDB Appendix A.5)."""

from __future__ import annotations

import json

import pytest
from bench_helpers import labelled_2v2, online, write_dataset

from adjudicator.bench.splits import make_splits, teams_of
from adjudicator.cli import main
from adjudicator.errors import InputError


def dataset():
    ms = [online(i) for i in range(1, 7)]
    ms[1] = ms[1].model_copy(update={"motion": ms[0].motion})  # m01 and m02 share a motion
    d = ms[4].model_dump(mode="json", exclude_defaults=True)
    d["debaters"][0]["name"] = "pro1"  # m05's affirmative debater also debated m01
    ms[4] = type(ms[4]).model_validate(d)
    c1 = labelled_2v2("c1", ["affirmative"] * 3, {}, [{"Affirmative Speaker 1": 3}] * 3)
    c2 = labelled_2v2("c2", ["negative"] * 3, {}, [{"Negative Speaker 1": 3}] * 3).model_copy(update={"motion": "另一个辩题"})
    return ms + [c1, c2]


def test_folds_group_by_motion_and_balance_formats():
    ms = dataset()
    out = make_splits(ms, folds=3, seed=0)
    a = out["assignment"]
    assert sorted(a) == sorted(m.match_id for m in ms) and set(a.values()) == {0, 1, 2}
    assert a["m01"] == a["m02"]  # one motion, one fold
    assert out["n_motions"] == 7
    # 6 online-1v1 matches over 3 folds: 2 each; 2 ccdb-2v2 matches: never both in one fold
    assert [f["formats"].get("online-1v1", 0) for f in out["folds"]] == [2, 2, 2]
    assert max(f["formats"].get("ccdb-2v2", 0) for f in out["folds"]) == 1
    assert sum(f["n_matches"] for f in out["folds"]) == 8
    assert make_splits(ms, folds=3, seed=0) == out  # deterministic


def test_team_overlap_is_reported_exactly():
    ms = dataset()
    assert teams_of(ms[0]) == ["pro1", "con1"]
    out = make_splits(ms, folds=3, seed=0)
    a = out["assignment"]
    folds_of: dict[str, set[int]] = {}
    for m in ms:
        for t in teams_of(m):
            folds_of.setdefault(t, set()).add(a[m.match_id])
    expected = sorted(t for t, f in folds_of.items() if len(f) > 1)
    got = out["team_overlap"]["teams_in_several_folds"]
    assert [x["team"] for x in got] == expected
    # pro1 debated m01 and m05: it is either kept in one fold or reported with both matches
    if a["m01"] != a["m05"]:
        assert {"team": "pro1", "folds": sorted({a["m01"], a["m05"]}), "matches": ["m01", "m05"]} in got


def test_too_few_motions_is_an_input_error():
    with pytest.raises(InputError, match="distinct motion"):
        make_splits([online(1), online(2)], folds=3)


def test_splits_cli_writes_json(tmp_path, capsys):
    data = write_dataset(tmp_path / "d", dataset())
    out = tmp_path / "folds.json"
    assert main(["splits", str(data), "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert len(doc["folds"]) == 3 and doc["dataset"]["sha256"]
    assert "teams appear in more than one fold" in capsys.readouterr().err


def test_splits_of_real_panelbench(capsys, panelbench_dir):
    assert main(["splits", str(panelbench_dir)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_matches"] == 61 and sum(f["n_matches"] for f in doc["folds"]) == 61
    sizes = [f["n_matches"] for f in doc["folds"]]
    assert max(sizes) - min(sizes) <= 2
