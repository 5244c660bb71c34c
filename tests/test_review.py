"""Escalation: the review rule on verdicts, and selective accuracy against coverage (by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.api import adjudicate
from adjudicator.evaluation.selective import rule_selective, selective_accuracy
from adjudicator.match import load_match
from adjudicator.records import FailureKind, NodeFailure
from adjudicator.review import review_of, with_probe_flips

BUNDLED = Path(__file__).resolve().parents[1] / "adjudicator/data/matches"


def test_a_clear_unanimous_verdict_is_not_escalated():
    r = review_of(0.68, "3:0", [])
    assert (r.escalate, r.reasons, r.band) == (False, [], 0.1)


def test_each_reason_escalates_and_says_why():
    assert review_of(0.60, "3:0", []).reasons == ["close_call"]  # |0.60 - 0.5| = 0.1: inside the band
    assert review_of(0.39, "3:0", []).reasons == []
    r = review_of(0.45, "2:1", [NodeFailure(node="judge", key="judge-2", kind=FailureKind.UNPARSEABLE, reason="unparseable: x")])
    assert r.reasons == ["close_call", "split_panel", "failed_judge"]
    assert r.detail == ["p = 0.45 is within 0.1 of 0.5", "the panel split 2:1 on the winner", "judge(s) judge-2 failed; the verdict rests on the others"]
    flipped = with_probe_flips(review_of(0.8, "3:0", []), ["swap"])
    assert flipped.escalate and flipped.reasons == ["probe_flip"] and "swap" in flipped.detail[0]


def test_offline_verdicts_carry_the_review():
    v = adjudicate(load_match(BUNDLED / "synthetic/synthetic_2v2_01.json"))
    expected = abs(v.p - 0.5) <= 0.1 or v.dissent.winner_split != "3:0"
    assert v.review is not None and v.review.escalate == expected
    assert "review" in v.model_dump(mode="json")


def test_selective_accuracy_against_coverage():
    p = [0.9, 0.7, 0.55, 0.45, 0.2, None]
    gold = ["affirmative", "negative", "affirmative", "affirmative", "negative", "affirmative"]
    curve = selective_accuracy(p, gold, bands=(0.0, 0.1, 0.3))
    # eligible: the five with a p; correct: 0.9 yes, 0.7 no, 0.55 yes, 0.45 no, 0.2 yes
    assert [(c.kept, c.n, c.accuracy) for c in curve] == [(5, 5, pytest.approx(3 / 5)), (3, 5, pytest.approx(2 / 3)), (1, 5, 1.0)]
    # band 0.1 keeps |p - 0.5| > 0.1: 0.9, 0.7, 0.2; band 0.3 keeps 0.9 only (|0.2 - 0.5| = 0.3 is inside)
    assert curve[1].coverage == pytest.approx(0.6)
    rule = rule_selective(p, gold, [False, True, False, True, False, None])
    assert (rule.kept, rule.accuracy) == (3, 1.0)
    with pytest.raises(ValueError, match="bands"):
        selective_accuracy(p, gold, bands=(0.5,))
