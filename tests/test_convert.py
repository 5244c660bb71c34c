"""PanelBench DebateArt -> match files (adjudicator.input.convert.debateart)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.errors import InputError
from adjudicator.input.convert.debateart import NO_SPEECH_TEXT, convert_panelbench
from adjudicator.input.match_file import load_match

BUNDLED_IDS = ["debateart_0020", "debateart_0750", "debateart_4389", "debateart_4395", "debateart_4739"]


@pytest.fixture(scope="module")
def converted(panelbench_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The whole real DebateArt folder converted once for this module."""
    return convert_panelbench(panelbench_dir / "DebateArt", tmp_path_factory.mktemp("converted"))


# --- the real folder --------------------------------------------------------------------------


def test_real_folder_gives_61_loadable_files(converted: list[Path], panelbench_dir: Path) -> None:
    # PROVENANCE.md: the subset holds 61 of the 100 DebateArt debates (the DebateArt folder alone
    # converts only those; the PanelBench folder adds its 11 BP rounds, tests/test_bp_match.py).
    assert len(converted) == 61
    motion_ids = sorted(p.stem for p in (panelbench_dir / "DebateArt" / "motion").glob("debateart_*.yml"))
    assert [p.stem for p in converted] == motion_ids
    outcomes = []
    for p in converted:
        m = load_match(p)
        assert m.match_id == p.stem and m.format == "online-1v1" and m.language == "en"
        assert m.source.kind == "real" and m.source.licence == "MIT"
        assert m.labels.outcome in ("affirmative", "negative", "tie")
        outcomes.append(m.labels.outcome)
    # gold/final.csv: 35 rows with label 1.0, 24 with 0.0, 2 with 0.5 (769 and 3842)
    assert (outcomes.count("affirmative"), outcomes.count("negative"), outcomes.count("tie")) == (24, 35, 2)  # 1.0 = con win
    # gold/dimension.csv counted by label (1.0 / 0.0 / 0.5): argument 37/19/5, source 12/7/42, language 16/7/38
    dims = [load_match(p).labels.dimensions for p in converted]
    for name, (neg, aff, tie) in {"argument": (37, 19, 5), "source": (12, 7, 42), "language": (16, 7, 38)}.items():
        got = [d[name] for d in dims]
        assert (got.count("negative"), got.count("affirmative"), got.count("tie")) == (neg, aff, tie), name


def test_spot_check_negative_first_debate(converted: list[Path]) -> None:
    # By hand from DebateArt/motion/debateart_4395.yml, speech/debateart_4395.yml and gold/*.csv:
    # pro Mast3rDebater, con zing_book; 4 speeches, zing_book (con) first; final.csv "4395,False,False,4,0.0";
    # dimension.csv argument 0.0, source 0.5, language 0.5.
    m = load_match(next(p for p in converted if p.stem == "debateart_4395"))
    assert m.motion == "Robots are going to increase the quality of life for humans"
    assert m.affirmative_position == "For the motion: Robots are going to increase the quality of life for humans"
    assert m.negative_position.startswith("Against the motion: ")
    assert {(d.side, d.position, d.name) for d in m.debaters} == {("affirmative", 1, "Mast3rDebater"), ("negative", 1, "zing_book")}
    assert len(m.stages) == 4
    assert [s.sides[0] for s in m.stages] == ["negative", "affirmative", "negative", "affirmative"]
    assert [s.type for s in m.stages] == ["constructive", "constructive", "closing", "closing"]
    assert [s.name for s in m.stages] == [
        "Round 1, negative (Con) speech",
        "Round 1, affirmative (Pro) speech",
        "Round 2, negative (Con) speech",
        "Round 2, affirmative (Pro) speech",
    ]
    assert m.stages[0].speakers == ["Negative Speaker 1"]
    assert m.stages[0].utterances[0].text.startswith("Increased automation and use of robots")
    assert m.info is not None and m.info.startswith("Below are extra information provided by zing_book")
    assert m.labels.outcome == "affirmative" and m.labels.vote_count == 4  # label 0.0, content convention
    assert m.labels.dimensions == {"argument": "affirmative", "language": "tie", "source": "tie"}
    assert "audience vote" in m.labels.note.lower()


def test_spot_check_affirmative_first_six_speeches(converted: list[Path]) -> None:
    # debateart_0017: Type1 (pro) vs drafterman (con), 6 speeches starting with Type1,
    # info_slide "No information", final.csv "17,False,True,2,1.0".
    m = load_match(next(p for p in converted if p.stem == "debateart_0017"))
    assert m.motion == "Faith and belief are useless in the pursuit of truth"
    assert m.info is None
    assert [s.type for s in m.stages] == ["constructive", "constructive", "supplementary", "supplementary", "closing", "closing"]
    assert m.stages[0].sides == ["affirmative"] and m.stages[2].name == "Round 2, affirmative (Pro) speech"
    assert m.stages[0].utterances[0].text.startswith("There is an objective truth")
    assert m.labels.outcome == "negative" and m.labels.vote_count == 2  # label 1.0, content convention


def test_tie_label_maps_to_tie(converted: list[Path]) -> None:
    # final.csv: "769,False,True,2,0.5" and "3842,False,False,1,0.5"
    for did, votes in (("debateart_0769", 2), ("debateart_3842", 1)):
        m = load_match(next(p for p in converted if p.stem == did))
        assert m.labels.outcome == "tie" and m.labels.vote_count == votes
        assert m.labels.gold_winner() == "tie"


def test_bundled_files_equal_fresh_conversion(converted: list[Path], bundled_matches_dir: Path) -> None:
    bundled = sorted((bundled_matches_dir / "panelbench").glob("*.json"))
    assert [p.stem for p in bundled] == BUNDLED_IDS
    fresh = {p.name: p for p in converted}
    for p in bundled:
        assert p.read_bytes() == fresh[p.name].read_bytes(), f"{p.name} is out of sync with convert_panelbench"


def test_accepts_the_debateart_folder_and_an_id_subset(panelbench_dir: Path, tmp_path: Path) -> None:
    out = convert_panelbench(panelbench_dir / "DebateArt", tmp_path, ids=["debateart_4395"])
    assert [p.name for p in out] == ["debateart_4395.json"]
    assert list(tmp_path.iterdir()) == out


# --- small hand-made folders: edge cases and errors -------------------------------------------

FINAL = "dart_id,is_many_round,is_long,vote_count,label\r\n1,False,False,3,1.0\r\n2,False,False,1,0.5\r\n"
DIMENSION = "dart_id,is_many_round,is_long,vote_count,dimension,label\r\n1,False,False,3,argument,0.0\r\n"
MOTION = """motion: Cats are better pets than dogs
pro_side:
- name: alice
con_side:
- name: bob
info_slide: No information
speech_order: [bob, alice, bob, alice]
"""
SPEECHES = """- debater_name: bob
  content: 'Dogs are loyal.


    They also need walks, which is healthy.'
- debater_name: alice
  content: '   '
- debater_name: bob
  content:
- debater_name: alice
  content: Cats are independent.
"""


def _tree(root: Path, speeches: str = SPEECHES, motion: str = MOTION, ids: tuple[str, ...] = ("debateart_0001",)) -> Path:
    dart = root / "DebateArt"
    for sub in ("motion", "speech", "gold"):
        (dart / sub).mkdir(parents=True, exist_ok=True)
    (dart / "gold" / "final.csv").write_text(FINAL, encoding="utf-8", newline="")
    (dart / "gold" / "dimension.csv").write_text(DIMENSION, encoding="utf-8", newline="")
    for did in ids:
        (dart / "motion" / f"{did}.yml").write_text(motion, encoding="utf-8")
        (dart / "speech" / f"{did}.yml").write_text(speeches, encoding="utf-8")
    return root


def test_empty_speeches_become_a_forfeit_marker(tmp_path: Path) -> None:
    [path] = convert_panelbench(_tree(tmp_path / "pb"), tmp_path / "out")
    m = load_match(path)
    assert [s.sides[0] for s in m.stages] == ["negative", "affirmative", "negative", "affirmative"]
    assert [len(s.utterances) for s in m.stages] == [2, 1, 1, 1]  # two paragraphs in the first speech
    assert m.stages[0].utterances[1].text == "They also need walks, which is healthy."
    assert m.stages[1].utterances[0].text == NO_SPEECH_TEXT  # whitespace-only content
    assert m.stages[2].utterances[0].text == NO_SPEECH_TEXT  # content: (null)
    assert m.stages[3].utterances[0].text == "Cats are independent."
    assert m.labels.outcome == "negative" and m.labels.vote_count == 3  # label 1.0, content convention
    assert m.labels.dimensions == {"argument": "affirmative"}  # dimension.csv "1,...,argument,0.0": 0.0 = pro (content convention)
    assert "labels.dimensions" in m.labels.note


def test_files_are_utf8_json_with_final_newline(tmp_path: Path) -> None:
    [path] = convert_panelbench(_tree(tmp_path / "pb"), tmp_path / "out")
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and json.loads(text)["match_id"] == "debateart_0001"


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nowhere: no such folder") as exc:
        convert_panelbench(tmp_path / "nowhere", tmp_path / "out")
    assert exc.value.exit_code == 2


def test_folder_without_debateart(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no DebateArt/motion folder"):
        convert_panelbench(tmp_path, tmp_path / "out")


def test_missing_speech_file(tmp_path: Path) -> None:
    root = _tree(tmp_path / "pb")
    (root / "DebateArt" / "speech" / "debateart_0001.yml").unlink()
    with pytest.raises(InputError, match=r"speech/debateart_0001\.yml: no such file"):
        convert_panelbench(root, tmp_path / "out")


@pytest.mark.parametrize("name", ["final.csv", "dimension.csv"])
def test_missing_gold_file(tmp_path: Path, name: str) -> None:
    root = _tree(tmp_path / "pb")
    (root / "DebateArt" / "gold" / name).unlink()
    with pytest.raises(InputError, match=rf"gold/{name}: no such file"):
        convert_panelbench(root, tmp_path / "out")


def test_malformed_yaml_names_the_file(tmp_path: Path) -> None:
    root = _tree(tmp_path / "pb", motion="motion: [unclosed\npro_side: x\n")
    with pytest.raises(InputError, match=r"motion/debateart_0001\.yml: invalid YAML at line"):
        convert_panelbench(root, tmp_path / "out")


def test_speaker_on_neither_side(tmp_path: Path) -> None:
    root = _tree(tmp_path / "pb", speeches="- debater_name: carol\n  content: hi\n")
    with pytest.raises(InputError, match=r"speech/debateart_0001\.yml: speech 1 is by 'carol', who is on neither side"):
        convert_panelbench(root, tmp_path / "out")


def test_debate_without_gold_row(tmp_path: Path) -> None:
    root = _tree(tmp_path / "pb", ids=("debateart_0009",))
    with pytest.raises(InputError, match=r"gold/final\.csv: no row for dart_id 9"):
        convert_panelbench(root, tmp_path / "out")


def test_bad_label_value(tmp_path: Path) -> None:
    root = _tree(tmp_path / "pb")
    (root / "DebateArt" / "gold" / "final.csv").write_text("dart_id,vote_count,label\n1,3,0.7\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"final\.csv: line 2: label '0\.7' is not 1\.0, 0\.0 or 0\.5"):
        convert_panelbench(root, tmp_path / "out")


def test_one_bad_debate_writes_nothing(tmp_path: Path) -> None:
    root = _tree(tmp_path / "pb", ids=("debateart_0001", "debateart_0002"))
    (root / "DebateArt" / "speech" / "debateart_0002.yml").write_text("- debater_name: carol\n  content: hi\n", encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(InputError, match="debateart_0002"):
        convert_panelbench(root, out)
    assert not out.exists() or not any(out.iterdir())


def test_label_conventions_map_upstream_labels_both_ways(tmp_path):
    """'content' (default) reads 1.0 as a con win; 'documented' as PROVENANCE.md states (pro win)."""
    src = _tree(tmp_path / "pb")
    [content] = convert_panelbench(src, tmp_path / "a")
    [documented] = convert_panelbench(src, tmp_path / "b", label_convention="documented")
    assert load_match(content).labels.outcome == "negative"
    assert load_match(documented).labels.outcome == "affirmative"
    assert "'documented' convention" in load_match(documented).labels.note
    with pytest.raises(InputError, match="--label-convention: unknown convention 'x'"):
        convert_panelbench(src, tmp_path / "c", label_convention="x")
