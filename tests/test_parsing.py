"""Three-stage extraction and the field validators (no model, no network)."""

from __future__ import annotations

import pytest
from llm_helpers import parse_p

from adjudicator.model.near_json import balanced_objects, repair_json
from adjudicator.model.parsing import find_number, find_votes, parse_output
from adjudicator.model.validators import OutputInvalid, as_int, as_probability, as_score, as_side, as_votes, canonical_label

LABELS = ["Affirmative Speaker 1", "Affirmative Speaker 2", "Affirmative Speaker 3", "Negative Speaker 1", "Negative Speaker 2", "Negative Speaker 3"]


def read_votes(obj, total=9):
    return as_votes(obj, LABELS, total)


def test_strict_json_is_strict():
    r = parse_p('  {"p": 0.72, "basis": "clearer framing"}\n')
    assert (r.value, r.stage, r.error) == (0.72, "strict", None)


def test_fenced_json_is_normalised():
    r = parse_p('```json\n{"p": 0.31, "basis": "x"}\n```')
    assert (r.value, r.stage) == (0.31, "normalised")


def test_prose_around_json_is_normalised():
    r = parse_p('Having weighed both sides, my answer is {"basis": "the negative {framed} it", "p": 0.4}. Thanks!')
    assert (r.value, r.stage) == (0.4, "normalised")


def test_full_width_punctuation_outside_strings_is_repaired_and_text_kept():
    r = parse_output('｛“p”：0.66，“basis”：“正方，论证更完整”｝', validate=lambda o: (as_probability(o["p"]), o["basis"]))
    assert r.stage == "normalised"
    # the full-width comma inside the string value is preserved
    assert r.value == (0.66, "正方，论证更完整")


def test_single_quotes_trailing_commas_python_literals_and_unquoted_keys():
    r = parse_output("{'p': 0.55, 'final': True, basis: 'it's close',}", validate=lambda o: (o["p"], o["final"], o["basis"]))
    assert r.stage == "normalised"
    assert r.value == (0.55, True, "it's close")


def test_chinese_quotes_inside_an_ascii_string_survive_strict_parsing():
    r = parse_output('{"basis": "他说“你好”", "p": 0.6}', validate=lambda o: o["basis"])
    assert (r.value, r.stage) == ("他说“你好”", "strict")


def test_truncated_output_recovers_by_regex_when_the_field_is_complete():
    r = parse_p('{"basis": "the affirmative owned the key clash", "p": 0.64, "extra": "the output was cut her')
    assert (r.value, r.stage) == (0.64, "regex")


def test_truncated_output_without_the_field_fails():
    r = parse_p('{"basis": "the affirmative owned the key clash because')
    assert r.stage == "failed" and r.value is None


def test_wrong_type_fails_with_the_field_named():
    r = parse_p('{"p": "high", "basis": "x"}')
    assert r.stage == "failed"
    assert "p" in r.error and "'high'" in r.error


def test_refusal_has_no_json():
    r = parse_p("I'm sorry, but I can't help with judging this debate.")
    assert (r.stage, r.error) == ("failed", "no JSON object found")


def test_empty_output():
    assert parse_p("   ").error == "empty output"


def test_probability_range_and_steps():
    assert as_probability(1) == 1.0
    assert as_probability("0.123") == 0.12  # steps of 0.01
    assert as_probability(0.5) == 0.5  # accepted here; Task 1 scores it as incorrect
    with pytest.raises(OutputInvalid):
        as_probability(1.2)
    with pytest.raises(OutputInvalid):
        as_probability(True)


def test_score_is_an_integer_1_to_10():
    assert as_score(7) == 7 and as_score(7.0) == 7 and as_score("8") == 8
    for bad in (0, 11, 7.5, "seven", None, True):
        with pytest.raises(OutputInvalid):
            as_score(bad)


def test_out_of_range_score_fails_parsing():
    r = parse_output('{"score": 11}', validate=lambda o: as_score(o["score"]))
    assert r.stage == "failed" and "outside 1-10" in r.error


def test_votes_must_sum_to_the_total():
    assert read_votes({"Affirmative Speaker 3": 4, "Negative Speaker 2": 3, "Affirmative Speaker 1": 2}) == {
        "Affirmative Speaker 3": 4,
        "Negative Speaker 2": 3,
        "Affirmative Speaker 1": 2,
    }
    r = parse_output('{"Affirmative Speaker 3": 4, "Negative Speaker 2": 4}', validate=read_votes)
    assert r.stage == "failed" and "sum to 8, not 9" in r.error


def test_votes_reject_unknown_positions_and_negative_counts():
    with pytest.raises(OutputInvalid, match="not a debater"):
        read_votes({"Affirmative Speaker 4": 9})
    with pytest.raises(OutputInvalid, match="negative"):
        read_votes({"Affirmative Speaker 1": 10, "Negative Speaker 1": -1})


def test_votes_accept_chinese_labels_lists_and_drop_zeros():
    assert read_votes({"正方三辩": 5, "反方二辩": 4, "Negative Speaker 1": 0}) == {"Affirmative Speaker 3": 5, "Negative Speaker 2": 4}
    assert as_votes([{"debater": "negative speaker 1", "votes": 3}], LABELS, 3) == {"Negative Speaker 1": 3}


def test_votes_by_regex_from_broken_text():
    text = "votes -> Affirmative Speaker 3: 5, 'Negative Speaker 2': 4 (that is all)"
    assert find_votes(text, LABELS) == {"Affirmative Speaker 3": 5, "Negative Speaker 2": 4}


def test_find_number_needs_the_whole_key():
    assert find_number('{"step": 3, "p": 0.7}', ["p"]) == 0.7
    assert find_number('{"step": 3}', ["p"]) is None
    assert find_number("p = 0.35", ["p"]) == 0.35


def test_balanced_objects_ignore_braces_in_strings():
    assert balanced_objects('a {"x": "}{"} b {"y": 1} {"z": ') == ['{"x": "}{"}', '{"y": 1}']


def test_repair_escapes_raw_newlines_in_strings():
    assert repair_json('{"a": "line1\nline2"}') == '{"a": "line1\\nline2"}'


def test_side_and_label_aliases():
    assert as_side("正方") == "affirmative" and as_side("Con") == "negative"
    with pytest.raises(OutputInvalid):
        as_side("judge")
    assert canonical_label("反方一辩", LABELS) == "Negative Speaker 1"
    assert canonical_label("affirmative  speaker 2", LABELS) == "Affirmative Speaker 2"
    assert canonical_label("Speaker 2", LABELS) is None


def test_as_int_rejects_bool_and_fractions():
    assert as_int("-3", "x") == -3
    with pytest.raises(OutputInvalid):
        as_int(False, "x")
    with pytest.raises(OutputInvalid):
        as_int(2.5, "x")


def test_validation_error_of_strict_object_is_reported_even_if_later_stages_fail():
    r = parse_p('{"p": 1.7}')
    assert r.stage == "failed" and "outside [0, 1]" in r.error
