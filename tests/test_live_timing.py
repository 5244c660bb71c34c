"""The live server's ``Server-Timing`` header (adjudicator/live/server/timing.py): every HTTP answer carries the
time the app took, which benchmarks/live_scale.py subtracts from the client's latency."""

from __future__ import annotations

import time

from fastapi import FastAPI
from fastapi.testclient import TestClient

from adjudicator.live.server.timing import ServerTiming


def test_every_answer_carries_the_time_the_app_took():
    app = FastAPI()

    @app.get("/slow")
    def slow() -> dict:
        time.sleep(0.05)
        return {}

    app.add_middleware(ServerTiming)
    with TestClient(app) as client:
        answers = [client.get("/slow"), client.get("/missing")]
    slow_ms = float(answers[0].headers["server-timing"].removeprefix("app;dur="))
    assert 50.0 <= slow_ms < 5000.0  # at least the handler's 50 ms sleep
    assert answers[1].status_code == 404 and answers[1].headers["server-timing"].startswith("app;dur=")
