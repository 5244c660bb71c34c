"""The per-sample result cache (adjudicator/bench/result_cache.py): a sample answered wholly from the
response cache is not run again when nothing that determines its result changed, and its result file
is the one a cached rerun writes; any change of settings, code, input or response entries misses.

Runs go over real HTTP to the loopback server (tests/fake_openai.py) with the real client. Whether a
sample's graph ran is counted by wrapping ``adjudicator.bench.execute.run_arm``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from bench_helpers import answer, bench, isolate_env, online, write_dataset
from fake_openai import fake_openai  # noqa: F401 (fixture)

import adjudicator.bench.execute as execute
from adjudicator.bench import result_cache
from adjudicator.config import ModelConfig
from adjudicator.model.cache import JournaledCache, ResponseCache, entries_unchanged

#: Fields no two runs share: wall-clock times.
CLOCK = ("started_at", "finished_at", "elapsed_s")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


@pytest.fixture
def graph_runs(monkeypatch):
    """How many samples actually ran their arm (a result-cache hit runs none)."""
    runs: list[str] = []
    real = execute.run_arm

    def counting(match, arm, *args, **kwargs):
        runs.append(match.match_id)
        return real(match, arm, *args, **kwargs)

    monkeypatch.setattr(execute, "run_arm", counting)
    return runs


def llm_args(server, tmp_path, *extra):
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"),
            "--timeout-s", "20", "--no-progress", "--bootstrap", "0", *extra]


def run(data, name, runs, server, tmp_path, capsys, *extra):
    """One bench run; returns (its folder, the requests it sent)."""
    before = server.count
    code, out, err = bench([str(data), "--name", name, "--runs-dir", str(runs), *llm_args(server, tmp_path, *extra)], capsys)
    assert code == 0, err
    return Path(out.strip()), server.count - before


def normalised(path: Path) -> str:
    """A result file with its wall-clock fields (CLOCK, each call's latency_s and their sum) set to 0,
    as canonical JSON text."""
    d = json.loads(path.read_text(encoding="utf-8"))
    for k in CLOCK:
        d[k] = 0
    for c in d["calls"]:
        c["latency_s"] = 0
    d["usage"]["latency_s"] = 0
    return json.dumps(d, sort_keys=True, ensure_ascii=False)


def results(run_dir: Path) -> dict[str, Path]:
    return {p.name: p for p in sorted((run_dir / "results" / "agentic").glob("*.json"))}


def test_a_hit_writes_byte_for_byte_what_a_rerun_from_the_response_cache_writes(tmp_path, capsys, fake_openai, graph_runs):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(3)])
    runs = tmp_path / "runs"
    fake_openai.respond_with(answer)
    cold, sent = run(data, "cold", runs, fake_openai, tmp_path, capsys)
    assert sent == 3 * (4 + 3)  # four speeches tracked and three judges per match
    assert len(graph_runs) == 3
    replay, sent = run(data, "replay", runs, fake_openai, tmp_path, capsys, "--no-result-cache")
    assert sent == 0 and len(graph_runs) == 6  # the graphs ran, every answer from the response cache
    hit, sent = run(data, "hit", runs, fake_openai, tmp_path, capsys)
    assert sent == 0 and len(graph_runs) == 6  # no graph ran
    a, b = results(replay), results(hit)
    assert list(a) == ["m00.json", "m01.json", "m02.json"] == list(b)
    for name in a:
        assert normalised(a[name]) == normalised(b[name]), name
        res = json.loads(b[name].read_text(encoding="utf-8"))
        assert res["usage"]["requests"] == 0 and res["usage"]["cache_hits"] == 7 and res["usage"]["cost_usd"] == 0.0
        assert all(c["cache_hit"] and c["transport_retries"] == 0 for c in res["calls"])
        assert res["verdict"] == json.loads(results(cold)[name].read_text(encoding="utf-8"))["verdict"]
    # the reports and the ledger agree: nothing was sent, the same tokens were counted
    ledger_a = json.loads((replay / "status.json").read_text())["ledger"]["total"]
    ledger_b = json.loads((hit / "status.json").read_text())["ledger"]["total"]
    assert ledger_b["requests"] == 0 and ledger_b == ledger_a
    # a second hit reproduces the first (the stored entry is not rewritten by a hit)
    again, sent = run(data, "again", runs, fake_openai, tmp_path, capsys)
    assert sent == 0 and len(graph_runs) == 6
    for name, path in results(again).items():
        assert normalised(path) == normalised(b[name])


def test_a_changed_setting_or_code_misses_and_no_cache_bypasses(tmp_path, capsys, fake_openai, graph_runs, monkeypatch):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(2)])
    runs = tmp_path / "runs"
    fake_openai.respond_with(answer)
    run(data, "cold", runs, fake_openai, tmp_path, capsys)
    assert len(graph_runs) == 2
    # any setting is in the key, even one that shapes no request (the timeout): the graphs run again
    _, sent = run(data, "timeout", runs, fake_openai, tmp_path, capsys, "--timeout-s", "21")
    assert sent == 0 and len(graph_runs) == 4
    # other code (a different fingerprint of the package, prompts and installed versions): run again
    monkeypatch.setattr(result_cache, "code_fingerprint", lambda: "0" * 64)
    _, sent = run(data, "code", runs, fake_openai, tmp_path, capsys)
    assert sent == 0 and len(graph_runs) == 6
    monkeypatch.undo()
    # --no-cache: neither cache is read; every request is sent again
    _, sent = run(data, "nocache", runs, fake_openai, tmp_path, capsys, "--no-cache")
    assert sent == 2 * 7


def test_a_changed_response_entry_misses_and_the_sample_runs_on_the_new_answer(tmp_path, capsys, fake_openai, graph_runs):
    data = write_dataset(tmp_path / "data", [online(0)])
    runs = tmp_path / "runs"
    fake_openai.respond_with(answer)
    run(data, "cold", runs, fake_openai, tmp_path, capsys)
    cache = ResponseCache(tmp_path / "cache")
    keys = [k for k in cache._cache.iterkeys() if str(k).startswith("result-")]
    assert len(keys) == 1
    stored = result_cache.StoredOutcome.model_validate_json(cache.get_result(keys[0]))
    assert sum(1 for kind, _, d in stored.entries if kind == "response" and d is not None) == 7
    assert entries_unchanged(cache, stored.entries)
    # rewrite the first judge's answer: the stored result no longer holds
    judge_key = next(k for kind, k, d in stored.entries if kind == "response" and d is not None and "judge" in cache.get(k).text)
    old = cache.get(judge_key)
    cache.set(judge_key, old.model_copy(update={"text": old.text.replace('"reasoning": "', '"reasoning": "rewritten ')}))
    assert not entries_unchanged(cache, stored.entries)
    cache.close()
    rerun, sent = run(data, "rerun", runs, fake_openai, tmp_path, capsys)
    assert sent == 0 and len(graph_runs) == 2
    res = json.loads((rerun / "results" / "agentic" / "m00.json").read_text())
    assert any("rewritten" in (c["raw_output"] or "") for c in res["calls"])


def test_a_partial_sample_is_not_stored_and_reruns_its_failed_node(tmp_path, capsys, fake_openai, graph_runs):
    data = write_dataset(tmp_path / "data", [online(0)])
    runs = tmp_path / "runs"

    def judge_1_fails(body):  # the first judge's every attempt is unreadable; the rest answer
        return "no answer here" if "judge-1" in json.dumps(body.get("messages"), ensure_ascii=False) else answer(body)

    fake_openai.respond_with(judge_1_fails)
    cold, sent = run(data, "cold", runs, fake_openai, tmp_path, capsys)
    res = json.loads((cold / "results" / "agentic" / "m00.json").read_text())
    assert res["status"] == "partial" and [f["key"] for f in res["failures"]] == ["judge-1"]
    assert sent == 4 + 2 + 3  # four speeches, two judges, judge-1's three attempts
    cache = ResponseCache(tmp_path / "cache")
    assert not [k for k in cache._cache.iterkeys() if str(k).startswith("result-")]
    cache.close()
    _, sent = run(data, "again", runs, fake_openai, tmp_path, capsys)
    assert len(graph_runs) == 2 and sent == 3  # the graph ran again and judge-1 was asked again


def test_the_key_covers_every_setting_the_input_and_named_files(tmp_path):
    base = ModelConfig.model_validate({"model": "openai/m", "cache_dir": str(tmp_path / "c")})
    key = result_cache.sample_key(base, "agentic", "a" * 64)
    assert key is not None and key.startswith("result-v1-")
    assert result_cache.sample_key(base, "agentic", "a" * 64) == key
    assert result_cache.sample_key(base, "agentic", "b" * 64) != key  # another match file
    assert result_cache.sample_key(base, "single-call", "a" * 64) != key  # another arm
    for field, value in {"temperature": 0.5, "seed": 3, "judge_evidence": "quotes", "json_mode": "schema", "api_base": "http://x/v1",
                         "max_tokens": 99, "rubric": "debateart", "judge_models": ("openai/n",), "track_window_chars": 4000}.items():
        other = base.model_copy(update={field: value})
        assert result_cache.sample_key(other, "agentic", "a" * 64) != key, field
    # every field of the settings reaches the key: one added later is covered without listing it
    assert set(base.model_dump(mode="json")) == set(ModelConfig.model_fields)
    # a rubric file: its content is in the key, not only its name
    rubric = tmp_path / "r.yaml"
    rubric.write_text("a: 1\n", encoding="utf-8")
    k1 = result_cache.sample_key(base.model_copy(update={"rubric": str(rubric)}), "agentic", "a" * 64)
    rubric.write_text("a: 2\n", encoding="utf-8")
    assert result_cache.sample_key(base.model_copy(update={"rubric": str(rubric)}), "agentic", "a" * 64) != k1
    # no result cache with --no-cache or for the offline judge
    assert result_cache.sample_key(base.model_copy(update={"no_cache": True}), "agentic", "a" * 64) is None
    assert result_cache.sample_key(ModelConfig.model_validate({}), "agentic", "a" * 64) is None


def test_the_code_fingerprint_changes_with_any_file_byte_or_name(tmp_path):
    tree = tmp_path / "pkg"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.py").write_text("x = 1\n")
    (tree / "sub" / "b.j2").write_text("{{ y }}\n")

    def digest() -> str:
        h = hashlib.sha256()
        result_cache._hash_tree(h, tree)
        return h.hexdigest()

    first = digest()
    (tree / "__pycache__").mkdir()
    (tree / "__pycache__" / "a.pyc").write_bytes(b"\0")
    assert digest() == first  # bytecode is not code
    (tree / "sub" / "b.j2").write_text("{{ y }} \n")
    second = digest()
    assert second != first
    (tree / "sub" / "b.j2").rename(tree / "sub" / "c.j2")
    assert digest() != second
    assert len(result_cache.code_fingerprint()) == 64
    assert any(n.startswith("langgraph-") for n in result_cache.installed_distributions())


def test_the_journal_names_every_lookup_and_an_absent_marker_must_stay_absent(tmp_path):
    from adjudicator.model.cache import CachedResponse

    cache = ResponseCache(tmp_path / "c")
    j = JournaledCache(cache)
    assert j.get("v1-a") is None
    assert not j.complete()  # a miss never answered
    j.set("v1-a", CachedResponse(text="x"))
    assert j.get("v1-marker") is None
    assert not j.complete() and j.complete(frozenset({"v1-marker"}))
    entries = j.entries()
    assert [(k, key, d is None) for k, key, d in entries] == [("response", "v1-a", False), ("response", "v1-marker", True)]
    assert entries_unchanged(cache, entries)
    cache.set("v1-marker", CachedResponse(text="rejected"))  # the marker appeared: the entry no longer holds
    assert not entries_unchanged(cache, entries)
    with pytest.raises(ValueError):
        cache.set_result("v1-a", "{}")  # a result can never shadow a response
    cache.close()
