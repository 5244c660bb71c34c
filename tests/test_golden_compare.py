"""The golden comparator forgives the last bits of a float and nothing else (tests/golden_compare.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_compare import assert_json_matches, json_differences

RECORDED = {"p": 0.0494473314166751, "scores": [7.5, 6.25], "n": 12, "winner": "negative", "tie": False, "ci": None}


def changed(**kw) -> dict:
    return {**RECORDED, **kw}


def test_the_last_bits_of_a_float_are_forgiven():
    # the case: recorded 0.0494473314166751, computed 0.04944733141667508 (one ulp apart, ~1.4e-16 relative)
    assert json_differences(changed(p=0.04944733141667508), RECORDED) == []
    assert json_differences(changed(scores=[7.5 * (1 + 5e-10), 6.25]), RECORDED) == []  # within 1e-9 relative
    assert json_differences({"x": 3e-17}, {"x": 0.0}) == []  # cancellation noise around zero
    assert json_differences({"x": 2}, {"x": 2.0}) == []  # JSON does not say which a writer prints
    assert json_differences({"x": float("nan")}, {"x": float("nan")}) == []


def test_a_changed_number_fails():
    # 1e-6 relative is far below anything a report prints, far above summation-order noise
    (diff,) = json_differences(changed(p=0.0494473314166751 * (1 + 1e-6)), RECORDED)
    assert diff.startswith("$.p: ") and "relative difference 1e-06 > 1e-09" in diff
    assert json_differences(changed(scores=[7.5, 6.25 * (1 + 2e-9)]), RECORDED) != []  # just over the tolerance
    assert json_differences(changed(n=13), RECORDED) == ["$.n: 13 != recorded 12"]  # ints compare exactly
    assert json_differences({"x": 1e-11}, {"x": 0.0}) != []
    assert json_differences({"x": 0.5}, {"x": float("nan")}) != [] and json_differences({"x": float("nan")}, {"x": 0.5}) != []


def test_changed_strings_keys_structure_and_kinds_fail():
    assert json_differences(changed(winner="affirmative"), RECORDED) == ["$.winner: 'affirmative' != recorded 'negative'"]
    renamed = {("probability" if k == "p" else k): v for k, v in RECORDED.items()}
    assert json_differences(renamed, RECORDED) == ["$: key 'probability' is new (not in the recording)", "$: key 'p' is missing"]
    assert json_differences(changed(scores=[7.5]), RECORDED) == ["$.scores: 1 items where the recording has 2"]
    assert json_differences(changed(scores=[6.25, 7.5]), RECORDED) != []  # order counts
    assert json_differences(changed(tie=0), RECORDED) == ["$.tie: a number (0) where the recording has a bool (False)"]
    assert json_differences(changed(n="12"), RECORDED) != [] and json_differences(changed(ci=0.0), RECORDED) != []
    assert json_differences({"a": {"b": [{"c": "x"}]}}, {"a": {"b": [{"c": "y"}]}}) == ["$.a.b[0].c: 'x' != recorded 'y'"]


def test_a_recorded_golden_with_one_number_moved_fails():
    # A real recorded file, not only a toy dict: move one number of the bench report by 1e-6 relative.
    path = Path(__file__).resolve().parent / "golden" / "bench" / "synthetic_report.json"
    text = path.read_text(encoding="utf-8")
    assert_json_matches(text, text, path.name)
    doc = json.loads(text)
    found = []

    def move_first_float(value):
        if isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, float) and v != 0 and not found:
                    value[k] = v * (1 + 1e-6)
                    found.append(k)
                else:
                    move_first_float(v)
        elif isinstance(value, list):
            for v in value:
                move_first_float(v)

    move_first_float(doc)
    assert found
    with pytest.raises(AssertionError, match=rf"(?s)synthetic_report.json differs.*\.{found[0]}: .*relative difference 1e-06"):
        assert_json_matches(json.dumps(doc), text, path.name)
