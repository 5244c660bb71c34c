"""The battlefield ledger a model reads: adjudicator/judges/llm/ledger.py chooses what is shown (most
recent clashes, latest stages, texts cut to length), prompts/_ledger.<lang>.j2 words it."""

from __future__ import annotations

import pytest

from adjudicator.judges.llm.ledger import ledger_text, ledger_view
from adjudicator.model.prompts import PromptStore
from adjudicator.verdict.battlefield import Clash, ClashEvent, SideAnalysis, StageAnalysis


@pytest.fixture(scope="module")
def store() -> PromptStore:
    return PromptStore()


def analysis(stage_id: str, index: int, scores: dict[str, int], summary: str = "") -> StageAnalysis:
    sides = [
        SideAnalysis(stage_id=stage_id, side=side, task_performance="well", battlefield_judgement="correct_important", advancement="effective", suggested_score=score)
        for side, score in scores.items()
    ]
    return StageAnalysis(stage_id=stage_id, stage_index=index, sides=sides, summary=summary)


def battlefield() -> tuple[dict[str, Clash], list[StageAnalysis]]:
    c1 = Clash(clash_id="c1", title="sleep versus discipline", affirmative_position="sleep matters", negative_position="habits matter", opened_in="s1",
               events=[ClashEvent(stage_id="s1", side="affirmative", kind="opened"), ClashEvent(stage_id="s2", side="negative", kind="advanced", note="x" * 100)])
    c2 = Clash(clash_id="c2", title="cost", opened_in="s2", events=[ClashEvent(stage_id="s2", side="negative", kind="opened")])
    c3 = Clash(clash_id="c3", title="fairness", opened_in="s3", events=[ClashEvent(stage_id="s3", side="affirmative", kind="defended")])
    analyses = [analysis("s1", 0, {"affirmative": 7}, "opened"), analysis("s2", 1, {"negative": 6}), analysis("s3", 2, {"affirmative": 5, "negative": 8}, "y" * 200)]
    return {"c1": c1, "c2": c2, "c3": c3}, analyses


def test_the_full_ledger_in_english(store):
    clashes, analyses = battlefield()
    text = ledger_text(store, ledger_view(clashes, analyses), "en")
    assert text == "\n".join(
        [
            "Battlefields:",
            f"- [c1] sleep versus discipline | AFF: sleep matters | NEG: habits matter | momentum -1.00 | s1:aff opened; s2:neg advanced ({'x' * 60})",
            "- [c2] cost | momentum +0.00 | s2:neg opened",
            "- [c3] fairness | momentum +1.00 | s3:aff defended",
            "Stages so far:",
            "- s1: aff=7 | opened",
            "- s2: neg=6",
            f"- s3: aff=5, neg=8 | {'y' * 120}",
        ]
    )


def test_the_bounded_ledger_in_chinese(store):
    clashes, analyses = battlefield()
    view = ledger_view(clashes, analyses, max_events=1, max_clashes=2, max_stages=1, compact=True)
    assert [c.clash_id for c in view.clashes] == ["c1", "c3"]  # c2 was last touched in s2, c3 in s3, c1 in s2 (tie by id)
    assert ledger_text(store, view, "zh") == "\n".join(
        [
            "战场:",
            f"- [c1] sleep versus discipline | AFF: sleep matters | NEG: habits matter | momentum -1.00 | s2:neg advanced ({'x' * 30})",
            "- [c3] fairness | momentum +1.00 | s3:aff defended",
            "- (另有1个较早的战场未列出)",
            "已分析环节:",
            "- (另有2个较早环节未列出)",
            f"- s3: aff=5, neg=8 | {'y' * 80}",
        ]
    )


def test_an_empty_battlefield(store):
    assert ledger_text(store, ledger_view({}, []), "en") == "Battlefields:\n- (none yet)\nStages so far:"
    assert ledger_text(store, ledger_view({}, []), "zh") == "战场:\n- (暂无)\n已分析环节:"
    clashes, analyses = battlefield()
    hidden = ledger_text(store, ledger_view(clashes, analyses, max_clashes=0, max_stages=0), "en")
    assert hidden == "Battlefields:\n- (+3 older clashes not shown)\nStages so far:\n- (+3 earlier stages not shown)"


def test_events_of_one_stage_name_the_stage_once_and_a_side_once_per_run(store):
    # c1: s1 aff opened + aff advanced (one stage, one side), then s2 neg contested + aff conceded
    # (one stage, the side changes), then s3 aff defended (a new stage)
    events = [ClashEvent(stage_id="s1", side="affirmative", kind="opened", note="sleep first"), ClashEvent(stage_id="s1", side="affirmative", kind="advanced"),
              ClashEvent(stage_id="s2", side="negative", kind="contested", note="habits"), ClashEvent(stage_id="s2", side="affirmative", kind="conceded"),
              ClashEvent(stage_id="s3", side="affirmative", kind="defended")]
    c1 = Clash(clash_id="c1", title="sleep", affirmative_position="sleep matters", negative_position="habits matter", opened_in="s1", events=events)
    view = ledger_view({"c1": c1}, [], max_events=5)
    line = "- [c1] sleep | AFF: sleep matters | NEG: habits matter | momentum +0.33 | s1:aff opened (sleep first), advanced; s2:neg contested (habits), aff conceded; s3:aff defended"
    # momentum (battlefield.event_balance): aff advanced +1, aff conceded -1, aff defended +1; opened and
    # contested not counted: (1 - 1 + 1) / 3 = +0.33
    assert ledger_text(store, view, "en").splitlines()[1] == line
    assert ledger_text(store, view, "zh").splitlines()[1] == line  # the markers are the same in both languages


def test_the_judges_clash_lines_leave_the_stage_lines_to_the_analyses(store):
    clashes, analyses = battlefield()
    view = ledger_view(clashes, analyses)
    full = ledger_text(store, view, "en").splitlines()
    for lang in ("en", "zh"):
        lines = store.render_macro(f"_ledger.{lang}.j2", "clash_lines", view).splitlines()
        assert lines == full[1:4]  # the three clash lines, no headings, no stage lines
    assert store.render_macro("_ledger.en.j2", "clash_lines", ledger_view({}, [])) == "- (none yet)"
    assert store.render_macro("_ledger.zh.j2", "clash_lines", ledger_view({}, [])) == "- (暂无)"


def test_a_side_without_a_recorded_position_has_no_position_part(store):
    # the tracker fills positions only when it opens a clash or a position changes: c1 was opened by
    # the negative, whose position is all that is known
    c1 = Clash(clash_id="c1", title="cost", negative_position="it costs too much", opened_in="s2", events=[ClashEvent(stage_id="s2", side="negative", kind="opened")])
    for lang in ("en", "zh"):
        lines = store.render_macro(f"_ledger.{lang}.j2", "clash_lines", ledger_view({"c1": c1}, []))
        assert lines == "- [c1] cost | NEG: it costs too much | momentum +0.00 | s2:neg opened"
