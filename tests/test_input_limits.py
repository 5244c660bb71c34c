"""Input size limits (issue 10, item 8): an utterance over MAX_UTTERANCE_CHARS or a transcript over
MAX_MATCH_CHARS is bad input (one line naming the field, exit code 2, before any model call)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.cli import main
from adjudicator.errors import InputError
from adjudicator.input.match import MAX_MATCH_CHARS
from adjudicator.input.match_file import parse_match
from adjudicator.input.stages import MAX_UTTERANCE_CHARS

REAL = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "panelbench" / "debateart_4389.json"


def real() -> dict:
    return json.loads(REAL.read_text(encoding="utf-8"))


def test_an_utterance_over_the_limit_is_refused_naming_it(tmp_path, capsys):
    data = real()
    data["stages"][2]["utterances"][0]["text"] = "word " * (MAX_UTTERANCE_CHARS // 5) + "x"  # 50,001 characters
    p = tmp_path / "long.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    assert main([str(p), "--model", "openai/never-called", "--api-base", "http://127.0.0.1:9/v1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "field stages.2.utterances.0.text has 50,001 characters, more than the 50,000 allowed" in err


def test_an_utterance_at_the_limit_is_accepted():
    data = real()
    data["stages"][2]["utterances"][0]["text"] = "word " * (MAX_UTTERANCE_CHARS // 5)
    assert len(parse_match(data).stages[2].utterances[0].text) == MAX_UTTERANCE_CHARS


def test_a_transcript_over_the_limit_is_refused():
    data = real()
    n = sum(len(st["utterances"]) for st in data["stages"])
    per = MAX_MATCH_CHARS // n + 1  # every utterance a little over its share: the total is over the limit
    for st in data["stages"]:
        for u in st["utterances"]:
            u["text"] = ("a" * per)[:per]
    assert per <= MAX_UTTERANCE_CHARS
    with pytest.raises(InputError) as err:
        parse_match(data, "m.json")
    assert err.value.one_line().startswith(f"m.json: stages: the transcript has {per * n:,} characters, more than the {MAX_MATCH_CHARS:,} a match may have")


def test_a_5000_digit_integer_is_bad_input_naming_its_field(tmp_path, capsys):
    # json.loads raises a bare ValueError past Python's 4,300-digit integer limit (it was an internal error, exit 1)
    text = json.dumps(real()).replace('"position": 1', '"position": ' + "9" * 5000, 1)
    assert '"position": 999' in text
    p = tmp_path / "huge.json"
    p.write_text(text, encoding="utf-8")
    assert main([str(p), "--model", "openai/never-called", "--api-base", "http://127.0.0.1:9/v1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert "field debaters.0.position: a number of 5,000 digits" in err and "at most 100 are read" in err


def test_digits_inside_a_string_and_a_100_digit_number_are_not_refused():
    from adjudicator.input.jsontext import read_json

    text = '{"text": "' + "9" * 5000 + '", "n": ' + "7" * 100 + "}"
    assert read_json(text, "x.json") == {"text": "9" * 5000, "n": int("7" * 100)}
    # 101 digits, which Python could read, is refused the same way (one rule, not Python's limit)
    with pytest.raises(InputError, match=r"field n: a number of 101 digits"):
        read_json('{"n": ' + "7" * 101 + "}", "x.json")
    with pytest.raises(InputError, match=r"field p: a number of 150 digits"):
        read_json('{"p": 0.' + "5" * 150 + "}", "x.json")
