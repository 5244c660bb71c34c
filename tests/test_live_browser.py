"""A real headless Chromium opens the live board and watches it update (over SSE) while stages are
pushed; the final page is saved as test-artifacts/live_board.png. Another test runs Chromium under
strace and checks it stays on loopback and writes nothing under the real home.

Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped otherwise. The strace test also needs
``strace`` (apt-get install strace).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from cdp_chromium import CHROMIUM, Chromium, strace_wrapper, trace_findings
from live_fakes import TOKEN, start_server

from adjudicator.input.match_file import load_match
from adjudicator.workflow.context import AdjudicationContext

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (apt-get install chromium)")

REPO = Path(__file__).resolve().parents[1]
ARTIFACT = REPO / "test-artifacts" / "live_board.png"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
MATCH = REPO / "adjudicator/data/matches/panelbench/debateart_0750.json"


def _text(selector: str) -> str:
    return f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _tendency_text(t: dict, leaning_label: str = "Leaning") -> str:
    """What the board writes under the tendency bar, from the snapshot's ``tendency``."""
    if t["p"] is None:
        return "Not enough to compare yet: both sides must be scored in a comparable stage."
    return (
        f"{leaning_label}: {t['leaning']}. Like-for-like score gap {t['score_gap']:+.2f} ({_count(t['compared_groups'], 'comparable stage group')}), "
        f"clash momentum {t['momentum']:+.2f} ({_count(t['counted_events'], 'event')})."
    )


def test_board_updates_live_while_stages_are_pushed(tmp_path):
    from adjudicator.judges.offline import OfflineBackend

    match = load_match(MATCH)
    mid = match.match_id
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            header = match.view().model_dump(mode="json", exclude={"stages"})
            assert http.post("/api/matches", json=header, headers=AUTH).status_code == 201
            with Chromium(f"{server.url}/board/{mid}", root=tmp_path / "chromium") as page:
                page.wait_for("document.body.dataset.analysed === '0'")
                assert page.eval(_text("#tendency-title")) == "Provisional tendency"
                assert page.eval(_text("#m-motion")) == match.motion
                assert page.eval(_text("#tendency-p")) == "–"
                page.eval("window.__sameDocument = 1")  # survives only if the page never reloads

                for i, stage in enumerate(match.stages):
                    r = http.post(f"/api/matches/{mid}/stages", json=stage.model_dump(mode="json"), headers=AUTH)
                    assert r.status_code == 200, r.text
                    page.wait_for(f"document.body.dataset.analysed === '{i + 1}'")
                    assert page.eval("document.querySelectorAll('#score-table tbody tr.score-row').length") == i + 1
                    assert page.eval(_text("#latest-name")).startswith(f"{stage.stage_id} · ")
                    snap = http.get(f"/api/matches/{mid}").json()
                    p = snap['tendency']['p']
                    assert page.eval(_text("#tendency-p")) == ('–' if p is None else f"{p:.2f}")  # none until both sides are comparable
                    assert page.eval(_text("#tendency-text")) == _tendency_text(snap["tendency"])
                    # an online match has no fixed stage count: "1 stage analysed", "2 stages analysed"
                    assert page.eval(_text("#stage-progress")) == f"{_count(i + 1, 'stage')} analysed · {i + 1} received"
                assert page.eval("window.__sameDocument") == 1

                # the battlefield map shows every clash of the API snapshot, with one column per stage
                assert snap["clashes"], "the offline tracker found no clash in this debate"
                assert page.eval("document.querySelectorAll('#clash-table tbody tr.clash-row').length") == len(snap["clashes"])
                assert page.eval("document.querySelectorAll('#clash-table thead th.stagehead').length") == len(match.stages)
                first = snap["clashes"][0]
                assert page.eval(_text(f"tr[data-clash='{first['clash_id']}'] .clash-title")) == first["title"]
                chips = page.eval(f"document.querySelectorAll(\"tr[data-clash='{first['clash_id']}'] .chip\").length")
                assert chips == len(first["events"])
                assert page.eval("document.getElementById('push-panel').hidden") is True  # read-only board

                verdict = http.post(f"/api/matches/{mid}/close", headers=AUTH).json()
                page.wait_for("document.body.dataset.status === 'closed'")
                # the result is the panel's verdict: winner, p and split, shown above every provisional number
                assert page.eval("document.getElementById('verdict-panel').hidden") is False
                assert page.eval(_text("#verdict-winner")) == f"Winner: {verdict['winner']}"
                assert page.eval(_text("#verdict-p")) == f"winner tendency p = {verdict['p']:.2f}"
                assert page.eval(_text("#verdict-split")) == f"panel split {verdict['dissent']['winner_split']}"
                # the quality gate's review at the top of the verdict, one line per reason (issue 25)
                review = verdict["review"]
                assert page.eval("document.getElementById('verdict-review').hidden") is False
                assert page.eval("document.getElementById('verdict-review').dataset.escalate") == str(review["escalate"]).lower()
                head = f"A person should check this verdict before it is used ({len(review['reasons'])} reason(s)):" if review["escalate"] else "No reason to escalate: every check of the quality gate passed."
                assert page.eval(_text("#verdict-review-head")) == f"Review: {head}"
                assert page.eval("[...document.querySelectorAll('#verdict-review-list li')].map((x) => x.textContent)") == review["detail"]
                # the coach's feedback per debater under the verdict: three points each, the offline judge's
                assert verdict["feedback"] and page.eval("document.getElementById('verdict-feedback').hidden") is False
                assert page.eval("document.querySelectorAll('#verdict-feedback-list .feedback-debater').length") == len(verdict["feedback"])
                first_fb = verdict["feedback"][0]
                got = page.eval(f"[...document.querySelectorAll(\".feedback-debater[data-debater='{first_fb['debater']}'] li\")].map((x) => x.textContent)")
                assert [x.split(": ", 1)[1] for x in got] == [first_fb[k]["text"] for k in ("worked", "missed", "work_on")]
                assert got[0].startswith("What worked (") and got[1].startswith("The response missed (") and got[2].startswith("One thing to work on (")
                above = "document.getElementById('verdict-panel').compareDocumentPosition(document.getElementById('tendency-panel'))"
                assert page.eval(f"Boolean({above} & Node.DOCUMENT_POSITION_FOLLOWING)") is True
                # the trackers' tendency stays only as the labelled pre-verdict estimate
                assert page.eval(_text("#tendency-title")) == "Pre-verdict estimate (not the result)"
                assert page.eval("document.getElementById('tendency-panel').classList.contains('superseded')") is True
                assert page.eval(_text("#tendency-note")).startswith("The trackers' provisional estimate as it stood before the panel met.")
                assert page.eval(_text("#tendency-text")) == _tendency_text(snap["tendency"], "Trackers leaned")
                assert page.eval(_text("#latest-move")).startswith("Pre-verdict estimate ")
                assert page.eval(_text("#scores-title")) == "Trackers' stage scores (pre-verdict)"
                assert "Provisional tendency" not in page.eval("document.body.innerText")
                assert page.eval("window.__sameDocument") == 1
                page.screenshot(ARTIFACT)
    finally:
        server.stop()
    data = ARTIFACT.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_organiser_page_pushes_with_the_token_from_its_url(tmp_path):
    from adjudicator.judges.offline import OfflineBackend

    match = load_match(MATCH)
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            header = match.view().model_dump(mode="json", exclude={"stages"}) | {"match_id": "org"}
            assert http.post("/api/matches", json=header, headers=AUTH).status_code == 201
            with Chromium(f"{server.url}/board/org?token={TOKEN}", root=tmp_path / "chromium") as page:
                page.wait_for("document.body.dataset.analysed === '0'")
                assert "token" not in page.eval("location.href")  # taken out of the address bar
                assert page.eval("document.getElementById('push-panel').hidden") is False
                # the push form is prefilled with the next stage's template
                template = json.loads(page.eval("document.getElementById('push-body').value"))
                assert template["sides"] == ["affirmative"] and template["type"] == "constructive"
                body = json.dumps(match.stages[0].model_dump(mode="json"))
                page.eval(f"document.getElementById('push-body').value = {json.dumps(body)}; document.getElementById('push-btn').click()")
                page.wait_for("document.body.dataset.analysed === '1'")
                page.wait_for(f"{_text('#push-msg')} === '{match.stages[0].stage_id}: analysed'")
                # a bad push shows the server's one-line error with the field path
                page.eval("document.getElementById('push-body').value = '{\"stage_id\": \"s2\"}'; document.getElementById('push-btn').click()")
                msg = page.wait_for(f"({_text('#push-msg')}.startsWith('stage: field') ? {_text('#push-msg')} : '')")
                assert msg.startswith("stage: field stages.1.name is missing")
            assert http.get("/api/matches/org").json()["analysed"] == 1
            # a token the server does not know (revoked, or another server's) is 401 on every read: the page
            # forgets it and shows what the public sees, instead of failing every read
            with Chromium(f"{server.url}/board/org?token=made-up", root=tmp_path / "chromium-stale") as page:
                # the page reloads once it has forgotten the token: wait for the reloaded document
                page.wait_for("sessionStorage.getItem('adjudicator-live-token') === null && document.body.dataset.analysed === '1'")
                assert page.eval("document.getElementById('push-panel').hidden") is True
    finally:
        server.stop()


def _strace_works() -> bool:
    """strace is installed and may trace here (not inside a container without ptrace, nor under
    another tracer)."""
    if shutil.which("strace") is None:
        return False
    return subprocess.run(["strace", "-qq", "-o", os.devnull, "true"], capture_output=True, timeout=30).returncode == 0


@pytest.mark.skipif(not _strace_works(), reason="strace is not installed or cannot trace here (apt-get install strace)")
def test_chromium_stays_on_loopback_and_out_of_the_real_home(tmp_path):
    from adjudicator.judges.offline import OfflineBackend

    # the checker itself flags what QA saw with the old launch (lines of that strace log)
    home = Path.home()
    bad = [
        '41 connect(25<UDP:[7]>, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 0',
        '41 sendto(25<UDP:[10.0.0.2:4321->10.255.255.53:53]>, "\\251\\371\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\10clients2\\6google\\3com"..., 37, 0, NULL, 0) = 37',
        '41 connect(21<TCP:[9]>, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:4860:4860::8888", &sin6_addr), sin6_scope_id=0}, 28) = 0',
        '41 sendto(21<UDPv6:[[fd00::2]:32876->[2001:4860:4860::8888]:443]>, "x", 1, 0, NULL, 0) = 1',
        f'41 openat(AT_FDCWD<{home}>, "{home}/.config/chromium/Crash Reports/settings.dat", O_RDWR|O_CREAT|O_CLOEXEC, 0600) = 5',
        f'41 openat(AT_FDCWD, "{home}/.cache/dconf/user", O_WRONLY|O_CREAT|O_TRUNC, 0600) = 7',
    ]
    assert len(trace_findings(bad, home)["violations"]) == len(bad)
    probe = '41 connect(21<UDPv6:[164904]>, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:4860:4860::8888", &sin6_addr), sin6_scope_id=0}, 28) = 0'
    reading = f'41 openat(AT_FDCWD, "{home}/.config/chromium/x", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)'
    assert trace_findings([probe, reading], home) == {"violations": [], "probes": [probe], "loopback": []}

    match = load_match(MATCH)
    mid = match.match_id
    trace = tmp_path / "chromium.strace"
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            assert http.post("/api/matches", json=match.view().model_dump(mode="json", exclude={"stages"}), headers=AUTH).status_code == 201
            assert http.post(f"/api/matches/{mid}/stages", json=match.stages[0].model_dump(mode="json"), headers=AUTH).status_code == 200
            with Chromium(f"{server.url}/board/{mid}", root=tmp_path / "chromium", wrapper=strace_wrapper(trace)) as page:
                page.wait_for("document.body.dataset.analysed === '1'")
                page.wait_for("document.getElementById('conn').textContent === 'live'")
    finally:
        server.stop()
    found = trace_findings(trace.read_text(errors="replace").splitlines(), home, allowed=(tmp_path,))
    assert found["violations"] == []
    port = server.url.rsplit(":", 1)[1]
    assert any(f"htons({port})" in line for line in found["loopback"])  # the trace did see the board's connections
