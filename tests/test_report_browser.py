"""A real headless Chromium opens a benchmark's report.html from disk (``file://``, no server) over
converted DebateArt matches: the per-sample table sorts and filters, a click opens a sample's
detail (ballots, battlefield map, link to its result file), and the page is saved as
test-artifacts/report_samples.png.

Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_helpers import bench, isolate_env, run_dir_of
from cdp_chromium import CHROMIUM, Chromium

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (apt-get install chromium)")

REPO = Path(__file__).resolve().parents[1]
ARTIFACT = REPO / "test-artifacts" / "report_samples.png"


def _js(expr: str) -> str:
    return f"(function () {{ {expr} }})()"


def test_report_page_sorts_filters_and_opens_a_sample(tmp_path, capsys, monkeypatch, bundled_matches_dir):
    isolate_env(monkeypatch, tmp_path)
    runs = tmp_path / "runs"
    code, _, _ = bench([str(bundled_matches_dir / "panelbench"), "--name", "pb", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "20"], capsys)
    assert code == 0
    run = run_dir_of(runs)
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 5
    with Chromium((run / "report.html").as_uri(), root=tmp_path / "chromium") as page:
        page.wait_for("window.benchViewer !== undefined")  # the table's script has run (it follows the page's data island)
        visible_rows = "Array.from(document.querySelectorAll('#sample-table tbody tr')).filter(function (r) { return !r.hidden; })"
        ids = f"{visible_rows}.map(function (r) {{ return r.cells[0].textContent; }})"
        assert page.eval(ids) == [r["sample_id"] for r in rows]  # dataset order
        # sort by p: ascending, then descending
        page.eval("document.querySelector('#sample-table th[data-col=p]').click()")
        by_p = sorted(rows, key=lambda r: r["p"])
        assert page.eval(f"{visible_rows}.map(function (r) {{ return r.cells[5].textContent; }})") == [f"{r['p']:.2f}" for r in by_p]
        page.eval("document.querySelector('#sample-table th[data-col=p]').click()")
        assert page.eval(f"{visible_rows}.map(function (r) {{ return r.cells[5].textContent; }})") == [f"{r['p']:.2f}" for r in by_p[::-1]]
        # filter by text, then by the Correct select
        page.eval(_js("var f = document.getElementById('sample-filter'); f.value = 'debateart_0750'; f.dispatchEvent(new Event('input'));"))
        assert page.eval(ids) == ["debateart_0750"] and page.eval("document.getElementById('sample-count').textContent") == "1 shown"
        page.eval(_js("var f = document.getElementById('sample-filter'); f.value = ''; f.dispatchEvent(new Event('input'));"))
        n_wrong = sum(r["correct"] is False for r in rows)
        if n_wrong:
            page.eval(_js("var s = document.querySelector('.sample-select[data-col=correct]'); s.value = 'no'; s.dispatchEvent(new Event('change'));"))
            assert len(page.eval(ids)) == n_wrong
            page.eval(_js("var s = document.querySelector('.sample-select[data-col=correct]'); s.value = ''; s.dispatchEvent(new Event('change'));"))
        # no detail is shown until a row is clicked; the click opens that sample and only that one
        shown = "Array.from(document.querySelectorAll('section.sample')).filter(function (s) { return getComputedStyle(s).display !== 'none'; }).map(function (s) { return s.id; })"
        assert page.eval(shown) == []
        target = rows[1]
        page.eval(_js(f"Array.from(document.querySelectorAll('#sample-table tbody tr')).find(function (r) {{ return r.cells[0].textContent === {json.dumps(target['sample_id'])}; }}).cells[2].click();"))
        page.wait_for(f"{shown}.length === 1")
        (sid,) = page.eval(shown)
        detail = page.eval(f"document.getElementById('{sid}').innerText")
        assert detail.startswith(f"{target['sample_id']} · agentic · offline")
        assert "Ballots" in detail and "Battlefield map" in detail and "judge-1" in detail
        href = page.eval(f"document.querySelector('#{sid} a[href^=results]').getAttribute('href')")
        assert href == target["result_file"] and (run / href).is_file()  # relative to the page: opens from disk
        page.screenshot(ARTIFACT)
    data = ARTIFACT.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
