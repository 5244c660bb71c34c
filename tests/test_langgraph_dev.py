"""LangGraph's own tools run the graphs of ``graphs/`` from JSON: ``langgraph dev`` (the in-memory
LangGraph API server, ``langgraph-cli[inmem]``) loads the three graphs of ``langgraph.json`` with
non-null schemas, serves a context schema with every setting a run may set described, refuses an
unknown context key by name, and runs the adjudication graph on a bundled match through its HTTP API
with the offline judge, giving the verdict the library gives for the same match."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from env_isolation import subprocess_env
from live_fakes import wait_until
from pydantic_core import to_jsonable_python

from adjudicator.api import adjudicate
from adjudicator.config import ModelConfig
from adjudicator.input.match_file import load_match

REPO = Path(__file__).resolve().parents[1]
MATCH = REPO / "adjudicator" / "data" / "matches" / "synthetic" / "synthetic_4v4_01.json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def langgraph_dev(tmp_path_factory):
    """``langgraph dev`` on a loopback port, run in a temporary folder (its ``.langgraph_api/`` state
    goes there) with a copy of ``langgraph.json`` whose paths point into the repository."""
    cli = Path(sys.executable).with_name("langgraph")
    if not cli.exists():
        cli = Path(shutil.which("langgraph") or "langgraph")
    work = tmp_path_factory.mktemp("langgraph-dev")
    spec = json.loads((REPO / "langgraph.json").read_text(encoding="utf-8"))
    spec["dependencies"] = [str(REPO)]
    spec["graphs"] = {name: str(REPO / path.removeprefix("./")) for name, path in spec["graphs"].items()}
    (work / "langgraph.json").write_text(json.dumps(spec), encoding="utf-8")
    port = _free_port()
    env = subprocess_env(work) | {"LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false"}
    log = (work / "server.log").open("w", encoding="utf-8")
    proc = subprocess.Popen([str(cli), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120, trust_env=False)

    def up() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"langgraph dev exited: {(work / 'server.log').read_text(encoding='utf-8')[-2000:]}")
        try:
            return http.get("/ok").status_code == 200
        except httpx.TransportError:
            return False

    try:
        wait_until(up, timeout_s=90, interval_s=0.25)
        yield http
    finally:
        http.close()
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_every_graph_loads_with_its_schemas(langgraph_dev):
    assistants = {a["graph_id"]: a["assistant_id"] for a in langgraph_dev.post("/assistants/search", json={}).json()}
    assert set(assistants) == {"adjudication", "clash_tracking", "panel"}
    for graph_id, assistant_id in assistants.items():
        schemas = langgraph_dev.get(f"/assistants/{assistant_id}/schemas").json()
        # typing.TypedDict states on Python 3.11 came back null; typing_extensions.TypedDict gives them
        assert schemas["state_schema"]["properties"].keys() >= {"match", "stages", "clashes", "analyses"}
        assert schemas["context_schema"]["properties"].keys() >= {"model", "tracker_model", "judge_models", "api_base"}
        assert list(schemas["input_schema"]["properties"]) == (["battlefield"] if graph_id == "panel" else ["match"])
        assert list(schemas["output_schema"]["properties"]) == (["battlefield"] if graph_id == "clash_tracking" else ["verdict"])


def test_the_served_context_schema_describes_every_setting_with_its_default(langgraph_dev):
    """Every setting of the settings model but the server's own three (its key variable, config file
    and cache folder) is in the context schema the API serves, with its description and default."""
    assistants = {a["graph_id"]: a["assistant_id"] for a in langgraph_dev.post("/assistants/search", json={}).json()}
    offered = [name for name in ModelConfig.model_fields if name not in ("api_key_env", "config_file", "cache_dir")]
    assert len(offered) == len(ModelConfig.model_fields) - 3 >= 19
    for assistant_id in assistants.values():
        context = langgraph_dev.get(f"/assistants/{assistant_id}/schemas").json()["context_schema"]
        assert list(context["properties"]) == offered
        for name, prop in context["properties"].items():
            assert prop["description"] == ModelConfig.model_fields[name].description, name
            assert "default" in prop, name
        props = context["properties"]
        assert (props["timeout_s"]["default"], props["rubric"]["default"], props["judge_evidence"]["default"], props["track_window_chars"]["default"]) == (120.0, None, "ledger", 0)
        assert props["timeout_s"]["title"] == "Timeout (s)" and props["api_base"]["title"] == "API base"
        assert context["description"].startswith("Settings of this run:") and "``" not in context["description"]


def test_an_unknown_context_key_fails_the_run_naming_it(langgraph_dev):
    raw = json.loads(MATCH.read_text(encoding="utf-8"))
    r = langgraph_dev.post("/runs/wait", json={"assistant_id": "adjudication", "input": {"match": raw}, "context": {"rubrik": "debateart", "model": "offline"}})
    err = r.json()["__error__"]
    assert err["error"] == "GraphInputError" and "\n" not in err["message"]
    assert err["message"].startswith("context: unknown setting 'rubrik'"), err["message"]


def test_a_rubric_in_the_context_is_used(langgraph_dev):
    """``{"rubric": "debateart"}`` used to be dropped silently; the verdict is now the library's under that rubric."""
    path = MATCH.parent.parent / "panelbench" / "debateart_0020.json"
    expected = json.loads(adjudicate(load_match(path), ModelConfig.resolve(rubric="debateart", env={})).model_dump_json())
    raw = json.loads(path.read_text(encoding="utf-8"))
    r = langgraph_dev.post("/runs/wait", json={"assistant_id": "adjudication", "input": {"match": raw}, "context": {"rubric": "debateart"}})
    assert r.status_code == 200, r.text
    verdict = r.json()["verdict"]
    assert verdict["rubric"] == "debateart" and verdict["dimension_decision"] is not None
    assert verdict == expected


def test_the_adjudication_graph_runs_a_bundled_match_from_json(langgraph_dev):
    match = load_match(MATCH)
    expected = json.loads(adjudicate(match).model_dump_json())  # the library's verdict, offline judge
    raw = json.loads(MATCH.read_text(encoding="utf-8"))  # the match file as is: its labels are dropped
    thread = langgraph_dev.post("/threads", json={}).json()["thread_id"]
    r = langgraph_dev.post(f"/threads/{thread}/runs/wait", json={"assistant_id": "adjudication", "input": {"match": raw}, "context": {"model": "offline"}})
    assert r.status_code == 200, r.text
    verdict = r.json()["verdict"]
    assert (verdict["winner"], verdict["p"]) == (expected["winner"], expected["p"])
    assert verdict == expected
    assert verdict["provenance"]["model"] == "offline" and verdict["provenance"]["is_llm"] is False
    # the run's state is in the server's checkpointer: 14 stages analysed, three ballots
    state = langgraph_dev.get(f"/threads/{thread}/state").json()["values"]
    assert state["next_stage"] == 14 and len(state["analyses"]) == 14 and len(state["ballots"]) == 3
    # no context at all: the settings default to the offline judge
    r2 = langgraph_dev.post("/runs/wait", json={"assistant_id": "adjudication", "input": {"match": raw}})
    assert r2.status_code == 200 and r2.json()["verdict"] == expected


def test_the_tracking_and_panel_graphs_chain_through_json(langgraph_dev):
    raw = json.loads(MATCH.read_text(encoding="utf-8"))
    tracked = langgraph_dev.post("/runs/wait", json={"assistant_id": "clash_tracking", "input": {"match": raw}}).json()
    assert list(tracked) == ["battlefield"]  # the output schema's one field; the whole state stays in the thread's checkpoints
    battlefield = tracked["battlefield"]
    assert battlefield["next_stage"] == 14 and [a["stage_id"] for a in battlefield["analyses"]] == [s["stage_id"] for s in raw["stages"]]
    paneled = langgraph_dev.post("/runs/wait", json={"assistant_id": "panel", "input": tracked}).json()  # the output is the panel's input as it is
    assert list(paneled) == ["verdict"]
    expected = to_jsonable_python(adjudicate(load_match(MATCH)))
    assert paneled["verdict"] == json.loads(json.dumps(expected))


def test_bad_json_input_names_the_field(langgraph_dev):
    raw = json.loads(MATCH.read_text(encoding="utf-8"))
    raw["stages"][0]["type"] = "monologue"
    r = langgraph_dev.post("/runs/wait", json={"assistant_id": "adjudication", "input": {"match": raw}})
    body = json.dumps(r.json(), ensure_ascii=False)
    assert "input.match" in body and "stages.0.type" in body


def test_an_unusable_model_setting_is_one_line_before_any_call(langgraph_dev):
    raw = json.loads(MATCH.read_text(encoding="utf-8"))
    r = langgraph_dev.post("/runs/wait", json={"assistant_id": "adjudication", "input": {"match": raw}, "context": {"model": "nosuchprovider/xyz"}})
    err = r.json()["__error__"]
    assert err["error"] == "GraphInputError" and "nosuchprovider/xyz" in err["message"] and "\n" not in err["message"]
