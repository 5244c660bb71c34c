"""The live server's HTTP API: create, push, close, errors, auth, isolation, events, and the CLI client.

Every server binds 127.0.0.1 on a free port and is stopped at the end of its test. The backend is the
scripted RecordingBackend (tests/graph_fakes.py): each stage scores 7 for every evaluated side and
moves clash "c1" (opened by the first stage's side, then advanced by each stage's acting side); each
judge votes affirmative with p 0.7. ``live serve`` as a real process is tested in test_live_serve.py.
"""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, ccdb_header, ccdb_stage, header_body, online_match, stage_body, start_server, token_file, wait_until

from adjudicator.cli import main
from adjudicator.errors import InputError
from adjudicator.input.match_file import load_match
from adjudicator.workflow.context import AdjudicationContext

AUTH = {"Authorization": f"Bearer {TOKEN}"}

pytestmark = pytest.mark.usefixtures("live_store")  # every test once on SQLite, once on PostgreSQL


@pytest.fixture
def live(tmp_path):
    backend = RecordingBackend()
    server = start_server(tmp_path / "state", AdjudicationContext.single(backend))
    http = httpx.Client(base_url=server.url, timeout=30, trust_env=False)
    try:
        yield SimpleNamespace(url=server.url, backend=backend, http=http, state=tmp_path / "state", server=server)
    finally:
        http.close()
        server.stop()


def create(live, match):
    r = live.http.post("/api/matches", json=header_body(match), headers=AUTH)
    assert r.status_code == 201, r.text
    return r.json()


def push(live, match_id, body, **kw):
    return live.http.post(f"/api/matches/{match_id}/stages", json=body, headers=AUTH, **kw)


def test_create_push_close_round_trip(live):
    m = online_match("m1", 4)
    created = create(live, m)
    assert created["match_id"] == "m1" and created["board_url"] == "/board/m1"
    assert created["snapshot"]["received"] == 0 and created["snapshot"]["next_slot"]["stage"]["sides"] == ["affirmative"]

    for i in range(4):
        r = push(live, "m1", stage_body(m, i))
        assert r.status_code == 200, r.text
        body = r.json()
        # exactly one stage analysed per push, and it is this one
        assert (body["status"], body["received"], body["analysed"], body["pending"]) == ("analysed", i + 1, i + 1, [])
        assert body["latest"]["stage_id"] == f"s{i + 1}"
        assert [q.stage.stage_id for q in live.backend.stage_requests] == [f"s{k + 1}" for k in range(i + 1)]

    snap = live.http.get("/api/matches/m1").json()
    assert [(e["stage_id"], e["side"], e["kind"]) for e in snap["clashes"][0]["events"]] == [
        ("s1", "affirmative", "opened"), ("s2", "negative", "advanced"), ("s3", "affirmative", "advanced"), ("s4", "negative", "advanced")]
    assert [(s["stage_id"], s["side"], s["suggested_score"]) for s in snap["scores"]] == [
        ("s1", "affirmative", 7), ("s2", "negative", 7), ("s3", "affirmative", 7), ("s4", "negative", 7)]
    # tendency: every like-for-like gap is 7 - 7 = 0; momentum counts s2 neg -1, s3 aff +1, s4 neg -1 = -1/3;
    # p = 1 / (1 + e^(1.2/3)) = 1 / (1 + e^0.4) = 0.4013 -> 0.40
    assert snap["tendency"]["p"] == 0.40 and snap["tendency"]["leaning"] == "negative"
    # before s4: momentum (-1 + 1) / 2 = 0 -> 0.50
    assert (snap["latest"]["tendency_before"], snap["latest"]["tendency_after"]) == (0.5, 0.4)
    assert snap["latest"]["clash_events"] == [{"clash_id": "c1", "title": "main clash", "side": "negative", "kind": "advanced", "note": "", "debater": None}]

    r = live.http.post("/api/matches/m1/close", headers=AUTH)
    assert r.status_code == 200, r.text
    verdict = r.json()
    # the three scripted judges vote affirmative with p 0.7 and score 7 / 6
    assert (verdict["match_id"], verdict["winner"], verdict["p"]) == ("m1", "affirmative", 0.7)
    assert [(s["stage_id"], s["mean"]) for s in verdict["stage_scores"]] == [("s1", 7.0), ("s2", 6.0), ("s3", 7.0), ("s4", 6.0)]
    stored_files = live.server.app.state.store.verdicts  # verdicts/<id>.json and reports/<id>.md, or their PostgreSQL table
    stored = json.loads(stored_files.verdict_json("m1").decode("utf-8"))
    assert stored == verdict
    report = stored_files.report_text("m1")
    assert report.startswith("# Verdict: m1") and live.http.get("/api/matches/m1/report").text == report
    assert live.http.get("/api/matches/m1/verdict").json() == verdict

    snap = live.http.get("/api/matches/m1").json()
    assert snap["status"] == "closed" and snap["verdict"]["winner"] == "affirmative" and snap["next_slot"] is None
    # closed: no more stages; closing again returns the stored verdict without a second panel
    r = push(live, "m1", stage_body(online_match("m1", 5), 4))
    assert r.status_code == 409 and "closed" in r.json()["detail"]
    assert live.http.post("/api/matches/m1/close", headers=AUTH).json() == verdict
    assert len(live.backend.judge_requests) == 3
    assert live.http.get("/api/matches").json()["matches"][0] | {"created_at": None} == {
        "match_id": "m1", "motion": m.motion, "format": "online-1v1", "status": "closed", "received": 4, "analysed": 4, "failed": 0,
        "created_at": None, "board_url": "/board/m1"}


def test_writes_need_the_token_reads_do_not(live):
    m = online_match("m1", 2)
    r = live.http.post("/api/matches", json=header_body(m))
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert r.json()["detail"].startswith("writes need the organiser's access token")
    r = live.http.post("/api/matches", json=header_body(m), headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401 and r.json()["detail"].startswith("the access token is wrong")
    assert live.http.post("/api/matches", json=header_body(m), headers={"X-Adjudicator-Token": TOKEN}).status_code == 201
    assert live.http.post("/api/matches/m1/stages", json=stage_body(m, 0)).status_code == 401
    assert live.http.post("/api/matches/m1/close").status_code == 401
    assert live.backend.stage_requests == []
    # the board and its data are read-only and public
    assert live.http.get("/api/matches/m1").status_code == 200
    page = live.http.get("/board/m1")
    assert page.status_code == 200 and "/static/board.js" in page.text
    assert live.http.get("/static/board.js").status_code == 200
    assert live.http.get("/organiser").status_code == 200


def test_bad_headers_get_4xx_with_the_field_path(live):
    good = header_body(online_match("h1", 1))

    def post(body=None, content=None):
        return live.http.post("/api/matches", json=body, content=content, headers=AUTH)

    r = post({**good, "format": "ccdb-9v9"})
    assert r.status_code == 422 and r.json()["field"] == "format" and r.json()["detail"].startswith("match: field format: Input should be")
    r = post({k: v for k, v in good.items() if k != "motion"})
    assert r.status_code == 422
    assert r.json() == {"detail": "match: field motion is missing; add it (see `adjudicate schema`)", "field": "motion"}
    r = post({**good, "stages": [stage_body(online_match("h1", 1), 0)]})
    assert r.status_code == 422 and r.json()["field"] == "stages"
    r = post({**good, "match_id": "../etc"})
    assert r.status_code == 422 and r.json()["field"] == "match_id"
    r = post(content=b'{"match_id": ')
    assert r.status_code == 400 and r.json()["detail"].startswith("body: invalid JSON at line 1 column 14")
    r = post(content=json.dumps(good)[:-1].encode() + b', "deep": ' + b"[" * 5000 + b"]" * 5000 + b"}")
    assert r.status_code == 400 and r.json()["detail"].startswith("body: nested deeper than 64 levels at deep.0.0.0")
    r = post(content=json.dumps(good)[:-1].encode() + b', "motion": "another"}')
    assert r.status_code == 400 and r.json()["field"] == "motion" and r.json()["detail"].startswith("body: duplicate key motion")
    r = post(content=b"\xff\xfe{}")
    assert r.status_code == 400 and r.json()["detail"].startswith("body: not UTF-8")
    r = post([good])
    assert r.status_code == 422 and r.json()["field"] == "body"
    assert post(good).status_code == 201
    r = post(good)
    assert r.status_code == 409 and r.json()["field"] == "match_id"


def test_bad_stages_get_the_cli_message_and_spend_no_model_call(live, tmp_path):
    m = online_match("p1", 2)
    create(live, m)
    assert push(live, "nope", stage_body(m, 0)).status_code == 404

    bad = stage_body(m, 0)
    bad["utterances"][0]["speaker"] = "Affirmative Speaker 9"
    r = push(live, "p1", bad)
    assert r.status_code == 422 and r.json()["field"] == "stages.0.utterances.0.speaker"
    # the CLI's message for the same stage in a match file, with the file name replaced by "stage"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**header_body(m), "stages": [bad]}), encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_match(path)
    assert r.json()["detail"] == exc.value.one_line().replace(str(path), "stage", 1)

    r = push(live, "p1", {k: v for k, v in stage_body(m, 0).items() if k != "utterances"})
    assert r.status_code == 422 and r.json()["detail"] == "stage: field stages.0.utterances is missing; add it (see `adjudicate schema`)"
    r = push(live, "p1", ["not", "an", "object"])
    assert r.status_code == 422 and r.json()["field"] == "body"
    assert live.backend.stage_requests == []

    # a stage id reused: identical content is a harmless duplicate, other content a conflict
    assert push(live, "p1", stage_body(m, 0)).json()["duplicate"] is False
    again = push(live, "p1", stage_body(m, 0))
    assert again.status_code == 200 and again.json()["duplicate"] is True and again.json()["analysed"] == 1
    other = stage_body(m, 1) | {"stage_id": "s1"}
    r = push(live, "p1", other)
    assert r.status_code == 409 and r.json()["field"] == "stage_id"
    assert [q.stage.stage_id for q in live.backend.stage_requests] == ["s1"]


def test_fixed_order_format_rejects_a_stage_out_of_order(live):
    assert live.http.post("/api/matches", json=ccdb_header("c1"), headers=AUTH).status_code == 201
    r = push(live, "c1", ccdb_stage(1))
    assert r.status_code == 422 and r.json()["field"] == "stages.0.type"
    assert r.json()["detail"].startswith("stage: stages.0.type: expected constructive (Affirmative constructive speech), got questioning;")
    for k in range(3):
        assert push(live, "c1", ccdb_stage(k)).status_code == 200
    # an incomplete fixed-order match cannot be closed: same message as `adjudicate` on the file
    r = live.http.post("/api/matches/c1/close", headers=AUTH)
    assert r.status_code == 422 and r.json()["detail"].startswith("match: stages: 11 stage(s) missing after stages.2, starting with questioning")
    assert live.backend.judge_requests == []


def test_oversized_payloads_are_refused(tmp_path):
    backend = RecordingBackend()
    server = start_server(tmp_path / "s", AdjudicationContext.single(backend), max_body_bytes=4096)
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            m = online_match("big", 1)
            assert http.post("/api/matches", json=header_body(m), headers=AUTH).status_code == 201
            body = stage_body(m, 0)
            body["utterances"][0]["text"] = "word " * 2000  # 10 KB > 4 KB
            r = http.post("/api/matches/big/stages", json=body, headers=AUTH)
            assert r.status_code == 413 and r.json()["detail"].startswith("body: larger than this server's limit of 4096 bytes")

            def chunks():  # no Content-Length: the limit is enforced while streaming
                for _ in range(10):
                    yield b" " * 1024

            r = http.post("/api/matches/big/stages", content=chunks(), headers=AUTH)
            assert r.status_code == 413
            assert backend.stage_requests == []
            assert http.post("/api/matches/big/stages", json=stage_body(m, 0), headers=AUTH).status_code == 200
    finally:
        server.stop()


def test_default_limit_is_one_mebibyte(live):
    create(live, online_match("lim", 1))
    body = stage_body(online_match("lim", 1), 0)
    body["utterances"][0]["text"] = "x" * (1024 * 1024)
    r = push(live, "lim", body)
    assert r.status_code == 413 and "1048576 bytes" in r.json()["detail"]


def test_close_without_stages_is_a_conflict(live):
    create(live, online_match("e1", 1))
    r = live.http.post("/api/matches/e1/close", headers=AUTH)
    assert r.status_code == 409 and r.json()["detail"].startswith("match 'e1' has no stages yet")
    assert live.http.get("/api/matches/e1/verdict").status_code == 404


def test_concurrent_matches_never_see_each_other(live):
    a, b = online_match("A", 4, topic="school uniforms"), online_match("B", 4, topic="space travel")
    create(live, a)
    create(live, b)
    barrier = threading.Barrier(2)
    errors: list = []

    def feed(m):
        try:
            with httpx.Client(base_url=live.url, timeout=30, trust_env=False) as http:
                barrier.wait()
                for i in range(4):
                    r = http.post(f"/api/matches/{m.match_id}/stages", json=stage_body(m, i), headers=AUTH)
                    assert r.status_code == 200, r.text
                r = http.post(f"/api/matches/{m.match_id}/close", headers=AUTH)
                assert r.status_code == 200, r.text
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=feed, args=(m,)) for m in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    for m, topic, other in ((a, "school uniforms", "space travel"), (b, "space travel", "school uniforms")):
        snap = live.http.get(f"/api/matches/{m.match_id}").json()
        assert [s["stage_id"] for s in snap["stages"]] == ["s1", "s2", "s3", "s4"]
        # both matches name their clash "c1"; shared state would have merged them into 8 events
        assert [len(c["events"]) for c in snap["clashes"]] == [4]
        reqs = [q for q in live.backend.stage_requests if q.match.match_id == m.match_id]
        assert [q.stage.stage_id for q in reqs] == ["s1", "s2", "s3", "s4"]
        for q in reqs:
            texts = " ".join(u.text for s in [q.stage, *q.previous] for u in s.utterances)
            assert topic in texts and other not in texts
        judged = [q for q in live.backend.judge_requests if q.match.match_id == m.match_id]
        assert len(judged) == 3 and all(len(q.match.stages) == 4 and other not in q.match.motion for q in judged)
        assert snap["verdict"]["winner"] == "affirmative"


def _collect_events(url: str, match_id: str, out: list, until, stop: threading.Event) -> None:
    with httpx.Client(timeout=httpx.Timeout(30, read=30), trust_env=False) as http:
        with http.stream("GET", f"{url}/api/matches/{match_id}/events") as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            event = None
            for line in resp.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "board":
                    out.append(json.loads(line[6:]))
                    if until(out) or stop.is_set():
                        return


def test_events_stream_follows_pushes_of_its_own_match_only(live):
    a, b = online_match("A", 3), online_match("B", 3, topic="space travel")
    create(live, a)
    create(live, b)
    got_a: list = []
    got_b: list = []
    stop = threading.Event()
    ta = threading.Thread(target=_collect_events, args=(live.url, "A", got_a, lambda ev: ev[-1]["analysed"] == 3, stop))
    tb = threading.Thread(target=_collect_events, args=(live.url, "B", got_b, lambda ev: ev[-1]["analysed"] == 1, stop))
    ta.start()
    tb.start()
    wait_until(lambda: live.server.app.state.hub.subscribers("A") == 1 and live.server.app.state.hub.subscribers("B") == 1)
    for i in range(3):
        assert push(live, "A", stage_body(a, i)).status_code == 200
    assert push(live, "B", stage_body(b, 0)).status_code == 200
    ta.join(20)
    tb.join(20)
    stop.set()
    assert not ta.is_alive() and not tb.is_alive()
    # the first event is the snapshot at connection; then one per committed change (receive, analyse);
    # a slow reader may skip intermediate snapshots (only the latest is kept), never go backwards
    counts = [e["analysed"] for e in got_a]
    assert counts[0] == 0 and counts[-1] == 3 and counts == sorted(counts)
    assert [e["revision"] for e in got_a] == sorted(e["revision"] for e in got_a)
    assert all(e["match"]["match_id"] == "A" for e in got_a) and all(e["match"]["match_id"] == "B" for e in got_b)
    assert got_b[-1]["analysed"] == 1 and got_b[-1]["latest"]["stage_id"] == "s1"


def test_push_without_waiting_returns_202_and_analyses_in_background(live):
    m = online_match("q1", 2)
    create(live, m)
    r = push(live, "q1", stage_body(m, 0), params={"wait": "false"})
    assert r.status_code in (200, 202) and r.json()["received"] == 1
    if r.status_code == 202:
        assert r.json()["status"] == "queued" and r.json()["pending"] == ["s1"]
    wait_until(lambda: live.http.get("/api/matches/q1").json()["analysed"] == 1)
    assert [q.stage.stage_id for q in live.backend.stage_requests] == ["s1"]


class FlakyBackend(RecordingBackend):
    """Raises (a transport fault escaping the model boundary) the first time it analyses ``stage_id``."""

    def __init__(self, stage_id):
        super().__init__()
        self.fail_on = stage_id
        self.attempts: list[str] = []

    def analyse_stage(self, request):
        self.attempts.append(request.stage.stage_id)
        if request.stage.stage_id == self.fail_on and self.attempts.count(self.fail_on) == 1:
            raise RuntimeError("connection reset by peer")
        return super().analyse_stage(request)


def test_a_backend_fault_keeps_the_stage_and_the_next_push_resumes_it(tmp_path):
    backend = FlakyBackend("s2")
    server = start_server(tmp_path / "s", AdjudicationContext.single(backend))
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            m = online_match("f1", 3)
            http.post("/api/matches", json=header_body(m), headers=AUTH)
            assert http.post("/api/matches/f1/stages", json=stage_body(m, 0), headers=AUTH).status_code == 200
            r = http.post("/api/matches/f1/stages", json=stage_body(m, 1), headers=AUTH)
            assert r.status_code == 502 and "analysis of stage s2 did not complete: RuntimeError: connection reset by peer" in r.json()["detail"]
            snap = http.get("/api/matches/f1").json()
            assert (snap["received"], snap["analysed"], snap["pending"]) == (2, 1, ["s2"]) and "s2" in snap["error"]
            r = http.post("/api/matches/f1/stages", json=stage_body(m, 2), headers=AUTH)
            assert r.status_code == 200 and r.json()["analysed"] == 3
            snap = http.get("/api/matches/f1").json()
            assert snap["error"] is None and [a["stage_id"] for a in snap["stages"] if a["analysed"]] == ["s1", "s2", "s3"]
            # s2 was attempted twice (the fault, then the resume); no stage was analysed twice successfully
            assert backend.attempts == ["s1", "s2", "s2", "s3"]
            assert [q.stage.stage_id for q in backend.stage_requests] == ["s1", "s2", "s3"]
    finally:
        server.stop()


# ---------------------------------------------------------------------------------------------
# The CLI client against a real server


def test_cli_replay_create_push_close(live, tmp_path, capsys):
    m = online_match("r1", 4)
    path = tmp_path / "r1.json"
    path.write_text(m.model_dump_json(), encoding="utf-8")
    common = ["--url", live.url, "--token-file", token_file()]

    assert main(["live", "replay", str(path), "--speed", "0", *common]) == 0
    out, err = capsys.readouterr()
    verdict = json.loads(out)
    assert verdict["match_id"] == "r1" and verdict["winner"] == "affirmative"
    assert "r1: s4 Speech 4: analysed (negative 7); provisional tendency 0.40" in err
    # replaying a match already on the server continues it instead of failing (here: nothing left)
    assert main(["live", "replay", str(path), "--speed", "0", *common]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == verdict and "continuing; 4 stage(s) already received" in err
    assert len(live.backend.stage_requests) == 4

    assert main(["live", "create", str(path), "--match-id", "r2", *common]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["board_url"] == f"{live.url}/board/r2" and "4 stage(s) in the file are not sent" in err
    assert main(["live", "push", "r2", str(path), "--stage-id", "s1", *common]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["analysed"] == 1 and err.startswith("r2: s1 analysed; 1/1 analysed; affirmative 7")
    stage_file = tmp_path / "s2.json"
    stage_file.write_text(json.dumps(stage_body(m, 1)), encoding="utf-8")
    assert main(["live", "push", "r2", str(stage_file), *common]) == 0
    capsys.readouterr()
    assert main(["live", "close", "r2", *common]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["match_id"] == "r2" and [s["stage_id"] for s in json.loads(out)["stage_scores"]] == ["s1", "s2"]
    # no model judged (the scripted backend is not an LLM): the close says what the offline judge is
    assert json.loads(out)["provenance"]["offline_note"] in err and "a deterministic baseline, not a judge" in err


def test_cli_errors_are_one_line_with_exit_code_2(live, tmp_path, capsys, monkeypatch):
    m = online_match("x1", 1)
    path = tmp_path / "x1.json"
    path.write_text(json.dumps(header_body(m)), encoding="utf-8")
    assert main(["live", "create", str(path), "--url", live.url, "--token-file", token_file("wrong")]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("adjudicate: error: the access token is wrong;") and err.count("\n") == 1
    # token and URL from the environment
    monkeypatch.setenv("ADJUDICATOR_LIVE_URL", live.url)
    monkeypatch.setenv("ADJUDICATOR_LIVE_TOKEN", TOKEN)
    assert main(["live", "create", str(path)]) == 0
    capsys.readouterr()
    bad = stage_body(m, 0) | {"type": "closing_speech"}
    bad_file = tmp_path / "bad.json"
    bad_file.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["live", "push", "x1", str(bad_file)]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("adjudicate: error: stage: field stages.0.type: Input should be") and err.count("\n") == 1
    assert main(["live", "push", "x1", str(tmp_path / "missing.json")]) == 2
    assert "missing.json: no such file" in capsys.readouterr().err
    monkeypatch.delenv("ADJUDICATOR_LIVE_URL")
    assert main(["live", "close", "x1", "--url", "http://127.0.0.1:9", "--token-file", token_file()]) == 2
    assert "cannot reach the live server at http://127.0.0.1:9" in capsys.readouterr().err
