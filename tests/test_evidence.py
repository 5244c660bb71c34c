"""The fact-authenticity interface (issue 13): the local-folder evidence source on a small fixture,
the transcript's quoted passages, the offline claim check, and "not assessed" without a source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.api import adjudicate
from adjudicator.config import ModelConfig
from adjudicator.errors import InputError
from adjudicator.input.evidence import EvidenceSource, LocalFolderSource, TranscriptQuotes, open_source, quoted_passages, split_passages, support
from adjudicator.input.match import Match
from adjudicator.judges.offline.dimensions import factual_claims
from adjudicator.verdict.dimensions import NO_EVIDENCE

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "evidence"


def test_local_folder_indexes_text_files_and_ranks_the_right_passage() -> None:
    src = LocalFolderSource(FIXTURE)
    assert isinstance(src, EvidenceSource) and src.name == "folder:evidence"
    top = src.retrieve("cyclist road deaths fell from 12 to 5", k=2)
    assert top[0].document == "infopack.md" and "fell from 12 in 2019 to 5 in 2023" in top[0].text
    assert top[0].score > top[1].score
    assert src.retrieve("bicycle sales doubled")[0].document == "notes.txt"  # .txt read too; .pdf is not a text suffix


def test_support_needs_most_of_the_claims_terms_in_one_passage() -> None:
    src = LocalFolderSource(FIXTURE)
    # claim terms: city, opened, 42, kilometres, protected, bike, lanes: all 7 in the passage -> supported
    ok, passage = support("The city opened 42 kilometres of protected bike lanes.", src.retrieve("The city opened 42 kilometres of protected bike lanes."))
    assert ok and passage is not None and passage.document == "infopack.md"
    # terms: city, built, 300, kilometres, motorways, last, year: only city and kilometres (2 of 7 < 0.6) -> unverified
    claim = "The city built 300 kilometres of motorways last year."
    assert support(claim, src.retrieve(claim))[0] is False


def test_bad_folders_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        LocalFolderSource(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "scan.pdf").write_bytes(b"%PDF")
    with pytest.raises(InputError, match="no readable text document"):
        LocalFolderSource(tmp_path / "empty")
    assert open_source(None) is None and open_source("transcript") == "transcript"


def test_passages_and_quotes() -> None:
    words = " ".join(f"w{i}" for i in range(200))
    parts = split_passages(words, words=80)
    assert [len(p.split()) for p in parts] == [80, 80, 80, 80]  # windows at 0, 40, 80, 120 (the last holds w120-w199)
    text = '> Studies show that 40 percent of commuters would cycle if lanes were safe.\nMy opponent said "cycling is only for the young and the fit people" earlier.\nShort "quote".'
    assert quoted_passages(text) == ["Studies show that 40 percent of commuters would cycle if lanes were safe.", "cycling is only for the young and the fit people"]
    tq = TranscriptQuotes([("s01", text)])
    assert tq.retrieve("40 percent of commuters would cycle")[0].document == "transcript:s01"


def test_claims_are_own_sentences_with_numbers_or_names() -> None:
    text = "> Quoted 99 line is not mine.\nRoad deaths fell to 5 in 2023. I think cycling is nice. Why not ask Amsterdam? We should copy Copenhagen here."
    assert factual_claims(text) == ["Road deaths fell to 5 in 2023.", "We should copy Copenhagen here."]


def _match() -> Match:
    def stage(i: int, side: str, text: str) -> dict:
        label = f"{side.capitalize()} Speaker 1"
        return {"stage_id": f"s0{i}", "name": f"Round {i}", "type": "constructive" if i < 3 else "closing", "sides": [side], "speakers": [label], "utterances": [{"speaker": label, "side": side, "text": text}]}

    return Match.model_validate(
        {
            "match_id": "cycling",
            "format": "online-1v1",
            "language": "en",
            "motion": "The city should build more bike lanes",
            "affirmative_position": "For the motion",
            "negative_position": "Against the motion",
            "debaters": [{"side": "affirmative", "position": 1, "name": "a"}, {"side": "negative", "position": 1, "name": "b"}],
            "stages": [
                stage(1, "affirmative", "The city opened 42 kilometres of protected bike lanes between 2019 and 2023. Road deaths of cyclists fell from 12 in 2019 to 5 in 2023. Bike lanes save lives, so we should build more of them."),
                stage(2, "negative", "Lanes cost too much money for a small city. The city spent 900 million on bike lanes in 2022. Bicycle sales fell by half in 2020. Drivers lose road space, because lanes take a full car lane."),
                stage(3, "affirmative", "My opponent offers no source for 900 million. Safety matters more than money, because lives cannot be bought back."),
                stage(4, "negative", "Money spent on lanes is money not spent on buses. Buses carry more people than bikes, so buses come first."),
            ],
        }
    )


def test_fact_authenticity_end_to_end_with_the_fixture_folder() -> None:
    v = adjudicate(_match(), ModelConfig.model_validate({"rubric": "inspire", "evidence": str(FIXTURE)}))
    fa = next(d for d in v.dimensions if d.dimension == "fact_authenticity")
    # affirmative claims: "The city opened 42 km ..." and "Road deaths ... fell from 12 in 2019 to 5 in 2023" (both in
    # the info pack), "My opponent offers no source for 900 million" (not) -> 2 of 3 = 0.6667;
    # negative: "The city spent 900 million on bike lanes in 2022", "Bicycle sales fell by half in 2020" (the pack says
    # doubled: only bicycle, sales, 2020 of bicycle, sales, fell, half, 2020 -> 3/5 = 0.6 -> counts as supported: the
    # offline check matches terms, it cannot see that "fell by half" contradicts "doubled") -> 1 of 2 = 0.5
    assert fa.assessed and fa.mean_scores == {"affirmative": 0.667, "negative": 0.5} and fa.winner == "affirmative"
    ballot = v.ballots[0].dimensions
    assert next(d for d in ballot if d.dimension == "fact_authenticity").scores == {"affirmative": 0.6667, "negative": 0.5}


def test_fact_authenticity_without_a_source_is_not_assessed() -> None:
    v = adjudicate(_match(), ModelConfig.model_validate({"rubric": "inspire"}))
    fa = next(d for d in v.dimensions if d.dimension == "fact_authenticity")
    assert fa.assessed is False and fa.winner is None and fa.mean_scores == {} and fa.note == NO_EVIDENCE
    dumped = json.loads(v.model_dump_json())
    assert next(d for d in dumped["dimensions"] if d["dimension"] == "fact_authenticity")["winner"] is None
