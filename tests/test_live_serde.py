"""The live server's checkpoint serializer (adjudicator/live/store/checkpoints.py ``live_serde``): the
state's models read back as themselves, also from a checkpoint an older version wrote before a model
moved module."""

from __future__ import annotations

from pathlib import Path

from adjudicator.input import stages
from adjudicator.input.match import MatchView
from adjudicator.input.match_file import load_match
from adjudicator.live.store.checkpoints import live_serde

MATCH = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "panelbench" / "debateart_0020.json"


def test_the_match_and_its_stages_read_back_as_themselves():
    view = load_match(MATCH).view()
    serde = live_serde()
    back = serde.loads_typed(serde.dumps_typed({"match": view, "stages": list(view.stages)}))
    assert isinstance(back["match"], MatchView) and back["match"] == view
    assert [type(s) for s in back["stages"]] == [stages.Stage] * len(view.stages) and back["stages"] == list(view.stages)


def test_stages_checkpointed_before_the_stage_models_moved_read_back_as_stages(monkeypatch):
    """A checkpoint written when Stage lived in adjudicator.input.match (before 5ac4d7b) names that
    module; without the allowlist entry LangGraph blocks it and hands back plain dicts."""
    view = load_match(MATCH).view()
    serde = live_serde()
    monkeypatch.setattr(stages.Stage, "__module__", "adjudicator.input.match")  # as the older version wrote it
    old = serde.dumps_typed({"stages": list(view.stages)})
    monkeypatch.undo()
    assert b"adjudicator.input.match" in old[1] and b"adjudicator.input.stages" not in old[1]
    back = serde.loads_typed(old)
    assert [type(s) for s in back["stages"]] == [stages.Stage] * len(view.stages) and back["stages"] == list(view.stages)
