"""The cost a run reports equals the billed-cost bench's recount from the emulated usage (issue 39).

``benchmarks/billed_cost.py`` runs a bench of one debate and one arm against a loopback server that
emulates a provider's prompt cache, then prices every request the server billed with litellm's table
itself. Here, for the smallest bundled debate under both arms and both cache rules, the run's ledger
(``report.json``) must equal that recount and its call records must carry the server's prompt, cached
and completion tokens; on the code before cached tokens were read, the records had no cached count.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import billed_cost  # noqa: E402


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path):
    monkeypatch.setenv(billed_cost.KEY_ENV, "sk-loopback-0123456789")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.mark.parametrize("table", ["gpt-4.1-mini", "deepseek-chat"])
@pytest.mark.parametrize("arm", ["single-call", "agentic"])
def test_the_run_reports_what_the_emulated_provider_bills(table, arm, tmp_path):
    data = json.loads((billed_cost.DATASET / f"{billed_cost.QUICK_SAMPLE}.json").read_text(encoding="utf-8"))
    bill = billed_cost.run_one(data, billed_cost.QUICK_SAMPLE, arm, table, tmp_path, 0.0, [])
    assert bill.mismatch == []
    assert bill.requests >= 6 and bill.cached > 0 and bill.cached < bill.prompt
    assert bill.run_usd == pytest.approx(bill.usd, abs=billed_cost.RECOUNT_TOLERANCE_USD)
    # litellm's table, per token: input, cache read, output
    rate_in, rate_cached, rate_out = {"gpt-4.1-mini": (0.4e-6, 0.1e-6, 1.6e-6), "deepseek-chat": (0.28e-6, 0.028e-6, 0.42e-6)}[table]
    expected = (bill.prompt - bill.cached) * rate_in + bill.cached * rate_cached + bill.completion * rate_out
    assert bill.run_usd == pytest.approx(expected, abs=1e-6)
    assert bill.run_usd < (bill.prompt * rate_in + bill.completion * rate_out) - 0.9 * bill.cached * (rate_in - rate_cached)

def test_the_recount_prices_cached_tokens_at_the_cache_read_price():
    # gpt-4.1-mini: 464 uncached x $0.40/M + 1,536 cached x $0.10/M + 100 out x $1.60/M = $0.0004992 (by hand)
    assert billed_cost.usd("openai/gpt-4.1-mini", 2000, 100, 1536) == pytest.approx(0.0004992, abs=1e-12)
    # deepseek-chat: 464 x $0.28/M + 1,536 x $0.028/M + 100 x $0.42/M = $0.000214928
    assert billed_cost.usd("deepseek/deepseek-chat", 2000, 100, 1536) == pytest.approx(0.000214928, abs=1e-12)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--dataset", "/nonexistent-folder", "--quick"], "--dataset: /nonexistent-folder is not a folder"),
        (["--dataset", "{empty}"], "has no match file (*.json)"),
        (["--dataset", "{empty}", "--quick"], "has no debateart_0020.json"),
        (["--dataset", "{broken}"], "is not a JSON match file (JSONDecodeError)"),
        (["--latency-s", "inf", "--quick"], "--latency-s: inf is not a number of seconds >= 0"),
        (["--latency-s", "nan", "--quick"], "--latency-s: nan is not a number of seconds >= 0"),
        (["--quick", "--json", "/nonexistent-folder/out.json"], "--json: the folder /nonexistent-folder does not exist"),
    ],
)
def test_bad_options_are_refused_in_one_line_before_any_run(argv, named, tmp_path, capsys, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "debateart_0020.json").write_text("{not json", encoding="utf-8")
    ran: list[str] = []
    monkeypatch.setattr(billed_cost, "run_one", lambda *a, **k: ran.append("run"))
    argv = [a.replace("{empty}", str(empty)).replace("{broken}", str(broken)) for a in argv]
    with pytest.raises(SystemExit) as exc:
        billed_cost.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert named in err
    assert "Traceback" not in err
    assert ran == []
