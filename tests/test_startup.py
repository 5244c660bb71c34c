"""Start-up: what a process imports and checks before it sends anything.

litellm is imported only on a path that sends a request (never for a run answered from the cache,
the offline judge, ``--help``, ``schema`` or ``bench --report-only``); the pre-flight check of a
run's models (routing, keys) runs once, just before its first request, and still stops a bad
setting with no request sent. Each import check runs the real command in a fresh interpreter and
reads ``sys.modules`` afterwards.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from env_isolation import isolate_env, subprocess_env
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import online_match

from adjudicator.api import adjudicate, build_context
from adjudicator.cli import main
from adjudicator.config import ModelConfig
from adjudicator.errors import ConfigError

REAL = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "panelbench" / "debateart_0020.json"
HEAVY = ("litellm", "openai", "tiktoken", "scipy", "matplotlib", "langgraph", "langsmith")

#: Run ``adjudicate ARGS...`` in this interpreter, then report its exit code and the heavy packages loaded
#: (``--probe-modules A,B`` first: report those packages, or dotted modules such as scipy.stats, instead of HEAVY).
PROBE = """
import json, sys
from adjudicator.cli import main
args, heavy = sys.argv[3:], sys.argv[2]
if args[:1] == ['--probe-modules']:
    heavy, args = args[1], args[2:]
code = main(args)
loaded = sorted(({m.split('.')[0] for m in sys.modules} | set(sys.modules)) & set(heavy.split(',')))
with open(sys.argv[1], 'w', encoding='utf-8') as f:
    json.dump({'code': code, 'heavy': loaded}, f)
"""


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


def probe(tmp_path: Path, *args: object, cwd: Path | None = None) -> tuple[int, list[str], subprocess.CompletedProcess]:
    """(exit code, heavy packages imported, the process) of ``adjudicate ARGS`` in a fresh interpreter."""
    out = tmp_path / f"probe-{len(list(tmp_path.glob('probe-*')))}.json"
    proc = subprocess.run([sys.executable, "-c", PROBE, str(out), ",".join(HEAVY), *map(str, args)], capture_output=True, text=True,
                          timeout=180, env=subprocess_env(tmp_path), cwd=cwd or tmp_path)
    assert out.exists(), proc.stderr
    found = json.loads(out.read_text(encoding="utf-8"))
    return found["code"], found["heavy"], proc


@pytest.mark.parametrize("args", [["--help"], ["schema"], ["bench", "--help"], ["live", "--help"], ["run", "--help"]])
def test_help_and_schema_import_nothing_heavy(tmp_path, args):
    code, heavy, _ = probe(tmp_path, *args)
    assert code == 0 and heavy == []


@pytest.mark.parametrize("args", [["--help"], ["bench", "--help"], ["live", "--help"], ["bench"]])
def test_help_and_usage_errors_import_no_pydantic_or_settings(tmp_path, args):
    """Building the command tree imports click and nothing heavy: no pydantic, pydantic-settings or
    graph (``bench`` without DATASET is a usage error, answered before any of them too)."""
    code, heavy, _ = probe(tmp_path, "--probe-modules", "pydantic,pydantic_settings,langgraph,numpy,jinja2", *args)
    assert code == (2 if args == ["bench"] else 0) and heavy == []


def test_the_cli_spells_out_the_arms_and_the_live_state_variable_as_the_library_does():
    from adjudicator.api import ARMS
    from adjudicator.cli import bench, live
    from adjudicator.environment import LIVE_STATE_ENV, LIVE_STORE_ENV

    assert bench.ARMS == ARMS and live.LIVE_STATE_ENV == LIVE_STATE_ENV and live.LIVE_STORE_ENV == LIVE_STORE_ENV


def test_the_offline_judge_imports_no_litellm_scipy_or_matplotlib(tmp_path):
    code, heavy, proc = probe(tmp_path, REAL)
    assert code == 0 and json.loads(proc.stdout)["provenance"]["model"] == "offline"
    assert set(heavy) <= {"langgraph", "langsmith"}  # the graph runs; nothing else heavy


def test_the_offline_judge_imports_no_opentelemetry_rich_pygments_sdk_client_or_rest_types(tmp_path):
    """LangSmith's optional OpenTelemetry SDK import and httpx's command-line client (rich, pygments)
    are refused on the adjudication path, the bodies of ``langsmith.types`` and ``langgraph_sdk`` are
    deferred (adjudicator/lean_imports.py), and the report module (jinja2) is not imported when no
    report is written; the verdict is the same."""
    code, loaded, proc = probe(tmp_path, "--probe-modules", "opentelemetry,rich,pygments,websockets,langgraph_sdk.client,langsmith.types.run,"
                               "jinja2,langsmith", REAL)
    assert code == 0 and json.loads(proc.stdout)["provenance"]["model"] == "offline"
    assert loaded == ["langsmith"]  # langgraph.types imports langchain-core's tracers, which import it


DEFERRED = """
import importlib, sys, types
import adjudicator, langgraph.graph, langgraph.runtime
print('before', 'langsmith.types.run' in sys.modules, 'langgraph_sdk.client' in sys.modules)
from langgraph_sdk import get_client
import langsmith.types as t
print('names', get_client.__module__, t.Run.__module__, 'get_client' in dir(sys.modules['langgraph_sdk']), t.__loader__.__class__.__name__)
from langsmith.types import shared
print('submodule', shared.__name__)
for pkg in ('langsmith.types', 'langgraph_sdk'):  # every name the body binds that is a submodule's name binds that submodule
    mod = sys.modules[pkg]
    clash = [k for k, v in vars(mod).items() if f'{pkg}.{k}' in sys.modules and v is not sys.modules[f'{pkg}.{k}']]
    print(pkg, 'clashes', len(clash))
try:
    t.NoSuchName
except AttributeError as exc:
    print('missing', exc.name)
"""


def test_the_deferred_package_bodies_run_on_first_use(tmp_path):
    """``langsmith.types`` and ``langgraph_sdk`` are entered for one submodule each and their bodies
    deferred; the first name asked for runs the body, after which each is an ordinary package (every
    submodule name in it binds its submodule, as the deferral assumes; a missing name is AttributeError)."""
    out = subprocess.run([sys.executable, "-c", DEFERRED], capture_output=True, text=True, timeout=180, env=subprocess_env(tmp_path), check=True).stdout
    assert out.splitlines() == ["before False False", "names langgraph_sdk._async.client langsmith.types.run True SourceFileLoader", "submodule langsmith.types.shared",
                                "langsmith.types clashes 0", "langgraph_sdk clashes 0", "missing NoSuchName"]


def test_the_import_guard_refuses_only_the_two_optional_imports_of_those_modules(tmp_path):
    """Imported by anything else, the same modules load; with LangSmith's OpenTelemetry switched on,
    its own import of the SDK is not refused."""
    code = ("import adjudicator, httpx, langsmith.client, sys; "
            "print('opentelemetry.sdk.trace' in sys.modules, 'httpx._main' in sys.modules); "
            "import opentelemetry.sdk.trace, httpx._main; print('direct ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, env=subprocess_env(tmp_path), check=True).stdout
    assert out.split() == ["False", "False", "direct", "ok"]
    env = {**subprocess_env(tmp_path), "LANGSMITH_OTEL_ENABLED": "true"}
    out = subprocess.run([sys.executable, "-c", "import adjudicator, langsmith.client, sys; print('opentelemetry.sdk.trace' in sys.modules)"],
                         capture_output=True, text=True, timeout=180, env=env, check=True).stdout
    assert out.split() == ["True"]


EXIT = """
import atexit, sys
import pathlib
atexit.register(pathlib.Path(sys.argv[1]).write_text, 'atexit ran')
sys.argv = ['adjudicate', *sys.argv[2:]]
from adjudicator.cli import main
main()
raise SystemExit('main() returned instead of ending the process')
"""


@pytest.mark.parametrize(("args", "code"), [(["schema"], 0), (["no-such-file.json"], 2)])
def test_the_command_line_ends_without_teardown_after_atexit_and_a_flush(tmp_path, args, code):
    """``main()`` as the process's entry point ends it (os._exit after the atexit handlers and a flush
    of stdout and stderr): the exit code, the whole output and the atexit handlers are all there."""
    mark = tmp_path / "mark"
    proc = subprocess.run([sys.executable, "-c", EXIT, str(mark), *args], capture_output=True, text=True, timeout=180,
                          env=subprocess_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == code and mark.read_text(encoding="utf-8") == "atexit ran"
    if code == 0:
        assert json.loads(proc.stdout)["title"]  # the whole schema, flushed
    else:
        assert proc.stdout == "" and proc.stderr.count("\n") == 1 and "no-such-file.json" in proc.stderr


def test_a_cached_rerun_imports_no_litellm_needs_no_key_and_sends_nothing(tmp_path, fake_openai, capsys):
    """First run against the loopback server in json mode ``auto`` with a model litellm lists as
    schema-capable (so the requests, and their cache keys, depend on litellm's model table; that
    answer is kept in the cache). Then the server is closed, no key is set, and a fresh process
    reruns: the same verdict, byte for byte, from the cache alone, without importing litellm."""
    from llm_helpers import schema_responder

    fake_openai.respond_with(schema_responder)
    args = [REAL, "--model", "openai/gpt-4o-mini", "--api-base", fake_openai.base_url, "--cache-dir", tmp_path / "cache"]
    assert main(list(map(str, args))) == 0
    first = capsys.readouterr().out
    assert fake_openai.count == 4 + 3  # four speeches tracked, three judges
    assert all(r["response_format"]["type"] == "json_schema" for r in fake_openai.requests)
    fake_openai.close()
    code, heavy, proc = probe(tmp_path, *args)
    assert code == 0, proc.stderr
    assert proc.stdout == first
    assert "0 model requests, 7 cache hits" in proc.stderr
    assert "litellm" not in heavy and "openai" not in heavy
    assert fake_openai.count == 7


def test_bench_report_only_imports_no_litellm(tmp_path, bundled_matches_dir):
    """``--report-only`` rescoring a run: no litellm, no graph, no scipy.stats (the exact McNemar
    test runs on scipy.special), and no matplotlib once its pictures are in the plot cache (the
    first bench drew them)."""
    data = bundled_matches_dir / "panelbench"
    assert main(["bench", str(data), "--name", "r", "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--bootstrap", "0"]) == 0
    code, heavy, proc = probe(tmp_path, "--probe-modules", "litellm,langgraph,scipy.stats,matplotlib",
                              "bench", "--name", "r", "--runs-dir", tmp_path / "runs", "--report-only")  # no DATASET needed
    assert code == 0, proc.stderr
    assert heavy == []
    code, _, proc = probe(tmp_path, "bench", "--runs-dir", tmp_path / "runs", "--report-only")
    assert code == 2 and "--name: missing with --report-only" in proc.stderr


# ---------------------------------------------------------------------------------------------
# the pre-flight check, once, before the first request


def test_a_bad_model_in_the_panel_stops_the_run_before_any_request(tmp_path, fake_openai):
    """The tracker's model is fine and would be asked first; judge-2's names no provider. The gate
    checks every model before the first request, so nothing at all is sent."""
    cfg = ModelConfig(model="openai/test-model", api_base=fake_openai.base_url, judge_models=("openai/test-model", "mystery-model"),
                      cache_dir=tmp_path / "cache", json_mode="object")
    ctx = build_context(cfg)  # building the context checks nothing yet (no litellm import needed)
    with pytest.raises(ConfigError, match="mystery-model.*provider"):
        from adjudicator.api import adjudicate_with_context

        adjudicate_with_context(online_match(), ctx)
    assert fake_openai.count == 0


def test_a_missing_key_stops_the_run_before_any_request(tmp_path):
    cfg = ModelConfig(model="deepseek/deepseek-chat", cache_dir=tmp_path / "cache")
    with pytest.raises(ConfigError, match="DEEPSEEK_API_KEY"):
        adjudicate(online_match(), cfg)


def test_check_models_checks_at_build_time(tmp_path):
    with pytest.raises(ConfigError, match="provider"):
        build_context(ModelConfig(model="mystery-model", cache_dir=tmp_path), check_models=True)


def test_the_cli_reports_a_missing_key_as_one_line_exit_2(tmp_path, capsys):
    code = main([str(REAL), "--model", "deepseek/deepseek-chat", "--cache-dir", str(tmp_path / "cache")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "DEEPSEEK_API_KEY" in err and "Traceback" not in err


def test_a_bench_answered_by_the_result_cache_imports_no_graph_litellm_or_matplotlib(tmp_path, fake_openai, capsys):
    """A bench run against the loopback server fills the response cache and the result cache; a new
    run of the same samples in a fresh process (server closed, no key) takes every sample's stored
    result: 0 requests, and langgraph (with langchain-core and langsmith), litellm and matplotlib are
    never imported (the pictures come from the plot cache the first run filled)."""
    from bench_helpers import answer, online, write_dataset

    fake_openai.respond_with(answer)
    data = write_dataset(tmp_path / "data", [online(i) for i in range(2)])
    llm = ["--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"),
           "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--bootstrap", "0"]
    assert main(["bench", str(data), "--name", "first", *llm]) == 0
    capsys.readouterr()
    assert fake_openai.count == 2 * (4 + 3)
    fake_openai.close()
    code, heavy, proc = probe(tmp_path, "--probe-modules", "langgraph,langchain_core,langsmith,litellm,openai,matplotlib",
                              "bench", data, "--name", "second", *llm)
    assert code == 0, proc.stderr
    assert heavy == []
    run_dir = Path(proc.stdout.strip().splitlines()[-1])
    if not run_dir.is_absolute():
        run_dir = tmp_path / run_dir
    ledger = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))["ledger"]["total"]
    assert ledger["requests"] == 0 and ledger["cache_hits"] == 2 * 7


def test_the_command_line_process_tunes_the_collector_and_main_argv_does_not(tmp_path):
    """``main()`` as the entry point sets :data:`adjudicator.cli.GC_THRESHOLDS` for its own process
    (litellm's import is about a quarter cheaper); ``main(argv)`` called from Python leaves the caller's alone."""
    code = ("import atexit, gc, pathlib, sys\n"
            "mark = pathlib.Path(sys.argv[1])\n"
            "from adjudicator.cli import GC_THRESHOLDS, main\n"
            "main(['--version'])\n"
            "before = gc.get_threshold()\n"
            "atexit.register(lambda: mark.write_text(repr((before, gc.get_threshold(), GC_THRESHOLDS))))\n"
            "sys.argv = ['adjudicate', '--version']\n"
            "main()\n")
    mark = tmp_path / "mark"
    proc = subprocess.run([sys.executable, "-c", code, str(mark)], capture_output=True, text=True, timeout=180, env=subprocess_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    before, after, wanted = ast.literal_eval(mark.read_text(encoding="utf-8"))
    assert before == (700, 10, 10) and after == wanted == (50_000, 10, 10)


def test_the_command_line_still_waits_for_a_running_non_daemon_thread(tmp_path):
    """As Python's own exit: a non-daemon thread still working when the command returns finishes first."""
    mark = tmp_path / "mark"
    code = ("import pathlib, sys, threading, time\n"
            "mark = pathlib.Path(sys.argv[1])\n"
            "threading.Thread(target=lambda: (time.sleep(0.5), mark.write_text('thread done'))).start()\n"
            "sys.argv = ['adjudicate', 'schema']\n"
            "from adjudicator.cli import main\n"
            "main()\n")
    proc = subprocess.run([sys.executable, "-c", code, str(mark)], capture_output=True, text=True, timeout=180, env=subprocess_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0 and mark.read_text(encoding="utf-8") == "thread done"
