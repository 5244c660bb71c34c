"""A clash title the tracker copied with the rest of the ledger's line (rule ``title_from_ledger_line``,
adjudicator/model/normalise.py): both small models wrote the line's positions, momentum and events into
an existing clash's title on most debates (issue 38, session 5: 91 titles), so the map of clashes
showed ledger lines; the title is read as written before the copied parts, with a note."""

from __future__ import annotations

import json

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import LONG_SPEECHES, loopback_backend, online_match, weak_model_tracker_reply

from adjudicator.judges.base import StageRequest
from adjudicator.model.normalise import ledger_title, normalise_stage_answer

VIEW = online_match(LONG_SPEECHES).view()

#: Titles the real models wrote (Qwen2.5-Coder 1.5B and 0.5B, session 5 runs; /work/realmodel s5b, s5c, s6a).
REAL = [
    ("Heath Ledger's Joker is spectacular | momentum +0.00 | s02:neg opened (The custom of green hair, smud)", "Heath Ledger's Joker is spectacular"),
    ("The Basics of Law Be Taught in High School? | AFF: affirmati | AFF: negative | NEG: positive | momentum +0.00 | s04:neg advanced (This is different from math, E",
     "The Basics of Law Be Taught in High School?"),
    ("Increased automation and use of robots could have unintended | AFF: negative | NEG: positive | momentum -1.00 | s02:neg advanced (The negative (debaters: Negati",
     "Increased automation and use of robots could have unintended"),
    ("Robots and Global Warming | momentum +0.00 | s03:neg contested", "Robots and Global Warming"),
    ("- [c2] Batman: Gotham Knight | AFF: none | NEG: none | momentum +0.00 | s03:aff advanced (<https://en.m.wikipedia.org/wi) ", "Batman: Gotham Knight"),
]  # fmt: skip


@pytest.mark.parametrize(("written", "read"), REAL)
def test_a_title_with_the_copied_ledger_line_is_read_as_its_title(written, read):
    assert ledger_title(written) == read


@pytest.mark.parametrize("title", ["sleep against practice", "cost | benefit of homework", "momentum of the debate", "| momentum +0.00 | s01:aff opened", "[c1] | AFF: x", 7, None])
def test_a_title_without_the_copied_parts_or_with_nothing_before_them_is_left_as_written(title):
    assert ledger_title(title) is None


def test_a_stage_answer_and_a_window_answer_are_rewritten_with_a_note_per_title():
    update = {"clash_id": "c1", "title": REAL[0][0], "side": "negative", "kind": "advanced", "note": "pressed it"}
    answer, notes = normalise_stage_answer({"sides": {}, "clash_updates": [update, {**update, "title": "kept as it is"}], "summary": "s"})
    assert [u["title"] for u in answer["clash_updates"]] == [REAL[0][1], "kept as it is"]
    assert [(n.rule, n.field, json.loads(n.before), json.loads(n.after)) for n in notes] == [("title_from_ledger_line", "clash_updates.0.title", REAL[0][0], REAL[0][1])]
    window, notes = normalise_stage_answer({"stages": {"s2": {"clash_updates": [update]}, "s3": {"clash_updates": "not a list"}}})
    assert window["stages"]["s2"]["clash_updates"][0]["title"] == REAL[0][1] and window["stages"]["s3"]["clash_updates"] == "not a list"
    assert [n.field for n in notes] == ["stages.s2.clash_updates.0.title"]


def test_the_tracker_reads_the_title_and_its_record_names_the_rule(fake_openai):  # noqa: F811
    copied = {"clash_id": "c1", "title": REAL[3][0], "side": "affirmative", "kind": "opened", "note": "says late homework costs sleep",
              "debater": "Affirmative Speaker 1", "affirmative_position": "homework costs sleep", "negative_position": ""}  # fmt: skip
    fake_openai.push(weak_model_tracker_reply(["affirmative"], [copied]))
    result = loopback_backend(fake_openai).analyse_stage(StageRequest(match=VIEW, stage=VIEW.stages[0], index=0, previous=[]))
    assert result.failure is None and fake_openai.count == 1
    assert [u.title for u in result.value.clash_updates] == ["Robots and Global Warming"]
    assert [(n.rule, n.field) for n in result.calls[-1].normalised] == [("title_from_ledger_line", "clash_updates.0.title")]
