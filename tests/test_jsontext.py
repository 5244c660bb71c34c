"""Hostile JSON input (issue 10, items 6 and 7): deep nesting and duplicate keys are bad input --
one line naming the field path, exit code 2 in the CLI, HTTP 400 from the live server, no model call
and no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.cli import main
from adjudicator.input.jsontext import MAX_JSON_DEPTH, JsonInputError, read_json

REAL = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "panelbench" / "debateart_4389.json"


def test_nesting_is_refused_with_the_path_where_it_crossed_the_limit():
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert read_json(ok, "f") == json.loads(ok)
    with pytest.raises(JsonInputError) as err:
        read_json('{"info": {"a": [' + "[" * 5000 + "]" * 5000 + "]}}", "f.json")
    # levels: the top object (1, at key info), info's object (2, at key a), a's list (3), then the run:
    # its k-th '[' (column 16 + k) would be level 3 + k, so the 62nd (column 78) is refused, with 64
    # levels open: info, a and 62 list indexes 0 (shown as the first 4, a count, the last 2)
    assert err.value.path == "info.a.0.0.(58 more).0.0"
    assert err.value.one_line().startswith("f.json: nested deeper than 64 levels at info.a.0.0.(58 more).0.0 (line 1 column 78)")


def test_a_key_given_twice_is_refused_naming_it():
    with pytest.raises(JsonInputError) as err:
        read_json('{"labels": {"outcome": "affirmative", "note": "a, b: c", "outcome": "negative"}}', "m.json")
    assert err.value.path == "labels.outcome"
    assert err.value.one_line() == "m.json: duplicate key labels.outcome (an object may name a field once); remove one of the two; which is meant cannot be guessed"
    # the same key in two different objects, escapes and structural characters inside strings are fine
    text = r'{"a": {"k": 1}, "b": {"k": "x\"}, {\"k\":"}, "c": [{"k": 1}, {"k": 2}], "\u006b": 3, "k": 4}'
    with pytest.raises(JsonInputError, match=r"duplicate key k "):
        read_json(text, "m.json")  # "\u006b" is "k": the decoded key counts
    assert read_json(text.replace(', "k": 4', ""), "m.json")["b"] == {"k": 'x"}, {"k":'}


def test_invalid_json_keeps_line_and_column():
    # line 2 is "  1,,}": after the comma at column 4 a key is expected, and column 5 is another comma
    with pytest.raises(JsonInputError, match=r"^x: invalid JSON at line 2 column 5: Expecting property name"):
        read_json('{"a":\n  1,,}', "x")


def deep_match(tmp_path: Path) -> Path:
    data = json.loads(REAL.read_text(encoding="utf-8"))
    text = json.dumps(data)
    p = tmp_path / "deep.json"
    p.write_text(text[:-1] + ', "deep": ' + "[" * 5000 + "]" * 5000 + "}", encoding="utf-8")
    return p


def test_cli_exits_2_with_one_line_for_deep_nesting(tmp_path, capsys):
    assert main([str(deep_match(tmp_path))]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "nested deeper than 64 levels at deep.0.0.0" in err and "Traceback" not in err


def test_cli_exits_2_with_one_line_for_a_duplicate_gold_label(tmp_path, capsys):
    # a second labels.outcome would flip the gold label if the last one won (Python's json does that)
    raw = REAL.read_text(encoding="utf-8")
    data = json.loads(raw)
    assert data["labels"]["outcome"] == "negative"
    flipped = tmp_path / "flipped.json"
    flipped.write_text(raw.replace('"outcome": "negative"', '"outcome": "negative", "outcome": "affirmative"', 1), encoding="utf-8")
    assert main([str(flipped)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "duplicate key labels.outcome" in err and "Traceback" not in err


def test_well_formed_input_skips_the_token_scan_and_bad_input_gets_the_scans_first_error(monkeypatch):
    """A valid file is parsed once (the scan never runs); a file with two faults is refused with
    the one the scan meets first in the text, as when the scan always ran first."""
    import adjudicator.input.jsontext as jt

    scans: list[str] = []
    real = jt.scan_structure
    monkeypatch.setattr(jt, "scan_structure", lambda text, source, max_depth=MAX_JSON_DEPTH: (scans.append(source), real(text, source, max_depth))[1])
    deep_ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert read_json('{"a": [1, {"b": "x"}], "c": null}', "ok.json") == {"a": [1, {"b": "x"}], "c": None}
    assert read_json(deep_ok, "deep-ok.json") is not None and scans == []
    # a duplicate key before a nesting fault: the duplicate is named; the reverse order names the nesting
    too_deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    with pytest.raises(JsonInputError, match=r"dup.json: duplicate key a"):
        read_json('{"a": 1, "a": 2, "z": ' + too_deep + "}", "dup.json")
    with pytest.raises(JsonInputError, match=r"deep.json: nested deeper than 64 levels at z"):
        read_json('{"z": ' + too_deep + ', "a": 1, "a": 2}', "deep.json")
    # far deeper than the parser's own recursion limit: the nesting message, never a RecursionError
    with pytest.raises(JsonInputError, match=r"nested deeper than 64 levels"):
        read_json("[" * 200_000 + "]" * 200_000, "huge.json")
    # a duplicate before a syntax error: the duplicate (the scan is tolerant of syntax)
    with pytest.raises(JsonInputError, match=r"both.json: duplicate key a"):
        read_json('{"a": 1, "a": 2, "b": }', "both.json")
    assert scans == ["dup.json", "deep.json", "huge.json", "both.json"]
