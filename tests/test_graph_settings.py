"""The settings LangGraph's tools offer (``graphs.settings.GraphSettings``, the graphs' context schema)
are the settings model's own fields, described in plain text with their defaults; unknown keys are
refused with one line naming them; each graph's output schema names its result. In process, without
a server (tests/test_langgraph_dev.py checks what ``langgraph dev`` serves)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adjudicator.api import adjudicate
from adjudicator.config import ModelConfig
from adjudicator.errors import ConfigError
from adjudicator.frozen import plain_text
from adjudicator.input.match_file import load_match
from adjudicator.workflow.json_input import GraphInputError
from graphs.settings import SERVER_SETTINGS, GraphSettings, check_context_keys, setting_title

REPO = Path(__file__).resolve().parents[1]
MATCHES = REPO / "adjudicator" / "data" / "matches"
MARKUP = re.compile(r"``|:[a-z]+:`")


def test_every_setting_has_a_plain_text_description():
    for name, info in ModelConfig.model_fields.items():
        assert info.description and len(info.description) > 20, name
        assert not MARKUP.search(info.description), (name, info.description)


def test_the_context_schema_is_every_setting_but_the_servers_own_with_its_description_and_default():
    schema = GraphSettings.model_json_schema()
    expected = [n for n in ModelConfig.model_fields if n not in SERVER_SETTINGS]
    assert list(schema["properties"]) == expected
    assert SERVER_SETTINGS == {"api_key_env", "config_file", "cache_dir"}
    for name, prop in schema["properties"].items():
        info = ModelConfig.model_fields[name]
        assert prop["description"] == info.description
        assert prop["default"] == ([] if name == "judge_models" else info.default), name
    assert schema["properties"]["timeout_s"]["title"] == "Timeout (s)" and schema["properties"]["timeout_s"]["default"] == 120.0
    assert schema["properties"]["rubric"]["default"] is None and schema["properties"]["judge_evidence"]["enum"] == ["ledger", "quotes", "transcript"]
    assert schema["additionalProperties"] is False
    assert schema["description"].startswith("Settings of this run:") and not MARKUP.search(schema["description"]) and "\n" not in schema["description"]


def test_titles_read_as_words():
    assert [setting_title(n) for n in ("api_base", "timeout_s", "p_source", "json_mode", "max_tokens")] == ["API base", "Timeout (s)", "p source", "JSON mode", "Max tokens"]


@pytest.mark.parametrize(
    "context, words",
    [
        ({"rubrik": "debateart"}, ["context: unknown setting 'rubrik'", "known settings: model,"]),
        ({"rubrik": 1, "modle": "x"}, ["'modle', 'rubrik'"]),
        ({"api_key_env": "OPENAI_API_KEY"}, ["'api_key_env' cannot be set by a run", "ADJUDICATOR_"]),
        ({"timeout_s": "soon"}, ["context: field timeout_s", "valid number"]),
        ({"judge_evidence": "everything"}, ["context: field judge_evidence", "'ledger', 'quotes' or 'transcript'"]),
    ],
)
def test_a_bad_context_is_one_line_naming_the_key(context, words):
    with pytest.raises(GraphInputError) as err:
        GraphSettings(**context)
    line = str(err.value)
    assert "\n" not in line and all(w in line for w in words), line


def test_langgraphs_own_keys_pass_the_check():
    check_context_keys(["model", "__pregel_runtime", "langgraph_auth_user"])  # no error


def test_a_context_value_beats_the_environment_and_an_unset_one_takes_it():
    env = {"ADJUDICATOR_TIMEOUT_S": "30", "ADJUDICATOR_RUBRIC": "inspire"}
    config = ModelConfig.resolve_values({"rubric": "debateart", "model": None}, source="context", env=env)
    assert (config.rubric, config.timeout_s, config.model) == ("debateart", 30.0, None)
    with pytest.raises(ConfigError, match=r"^context: unknown setting 'rubrik'"):
        ModelConfig.resolve_values({"rubrik": "x"}, source="context", env={})
    with pytest.raises(ConfigError, match=r"^context\.track_window_chars: "):
        ModelConfig.resolve_values({"track_window_chars": -1}, source="context", env={})


def test_only_the_settings_a_run_gives_are_passed_on():
    settings = GraphSettings(rubric="debateart")
    assert settings.model_fields_set == {"rubric"}  # timeout_s's default shown in Studio does not override the environment
    assert settings.context.model_names() == {"tracker": "offline", "judge-1": "offline", "judge-2": "offline", "judge-3": "offline"}


def test_an_unknown_context_key_fails_the_graph_in_process_before_any_node():
    from graphs.adjudication import graph

    raw = json.loads((MATCHES / "panelbench" / "debateart_0020.json").read_text(encoding="utf-8"))
    with pytest.raises(GraphInputError, match="unknown setting 'rubrik'"):
        graph.invoke({"match": raw}, context={"rubrik": "debateart"})


def test_a_setting_the_old_context_dropped_is_honoured():
    """``{"rubric": "debateart"}`` was silently dropped; now the graph's verdict is the library's under that rubric."""
    from graphs.adjudication import graph

    path = MATCHES / "panelbench" / "debateart_0020.json"
    out = graph.invoke({"match": json.loads(path.read_text(encoding="utf-8"))}, context={"rubric": "debateart"})
    expected = adjudicate(load_match(path), ModelConfig.resolve(rubric="debateart", env={}))
    assert list(out) == ["verdict"]
    assert out["verdict"].rubric == "debateart" and out["verdict"].dimension_decision is not None
    assert out["verdict"].model_dump(mode="json") == expected.model_dump(mode="json")


def test_each_graph_outputs_its_result_only():
    from graphs.adjudication import graph as adjudication
    from graphs.panel import graph as panel
    from graphs.tracking import graph as tracking

    assert list(adjudication.get_output_jsonschema()["properties"]) == ["verdict"]
    assert list(panel.get_output_jsonschema()["properties"]) == ["verdict"]
    assert list(tracking.get_output_jsonschema()["properties"]) == ["battlefield"]
    battlefield = tracking.get_output_jsonschema()["$defs"]["Battlefield"]
    assert list(battlefield["properties"]) == ["match", "stages", "next_stage", "clashes", "analyses", "calls", "failures"]


def test_the_schemas_studio_shows_hold_plain_text_only():
    from graphs.adjudication import graph as adjudication
    from graphs.panel import graph as panel
    from graphs.tracking import graph as tracking

    def descriptions(node):
        if isinstance(node, dict):
            if isinstance(node.get("description"), str):
                yield node["description"]
            for value in node.values():
                yield from descriptions(value)
        elif isinstance(node, list):
            for value in node:
                yield from descriptions(value)

    for graph in (adjudication, panel, tracking):
        texts = [*descriptions(graph.get_input_jsonschema()), *descriptions(graph.get_output_jsonschema())]
        assert len(texts) > 20
        assert [t for t in texts if MARKUP.search(t)] == []


def test_plain_text_of_docstring_markup():
    doc = """One debater. ``position`` is 1-4; :meth:`MatchView.label_of` gives the label
    (BP: ``"Prime Minister"``), see :class:`~adjudicator.verdict.battlefield.BattlefieldState`.

    :data:`adjudicator.config.JUDGE_IDS` and :func:`the reader <adjudicator.input.match_file.parse_match>`."""
    assert plain_text(doc) == (
        'One debater. position is 1-4; MatchView.label_of gives the label (BP: "Prime Minister"), see BattlefieldState.'
        "\n\nadjudicator.config.JUDGE_IDS and the reader."
    )
