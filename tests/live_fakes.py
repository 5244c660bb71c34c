"""Helpers for the live-server tests: match bodies, a server fixture factory, and scripted backends
that a server subprocess can load with ``--context-factory live_fakes:<name>``."""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from graph_fakes import RecordingBackend, tiny_match

from adjudicator.input.formats import CCDB_4V4, other_side
from adjudicator.live.server.app import create_app
from adjudicator.live.server.serving import LiveServer
from adjudicator.workflow.context import AdjudicationContext

TOKEN = "test-token-0123456789abcdef"
STORE: str | None = None  # the store start_server uses unless told (conftest's live_store sets it)


def online_match(match_id: str = "tiny", n_stages: int = 4, topic: str = "school uniforms"):
    """tiny_match with its own id and topic words (so two matches' texts differ)."""
    m = tiny_match(n_stages, with_labels=True)
    stages = []
    for s in m.stages:
        utt = [u.model_copy(update={"text": u.text.replace("school uniforms", topic)}) for u in s.utterances]
        stages.append(s.model_copy(update={"utterances": utt}))
    return m.model_copy(update={"match_id": match_id, "motion": f"Motion about {topic}", "stages": stages})


def header_body(match) -> dict:
    """The create body of a Match: the view without stages."""
    return match.view().model_dump(mode="json", exclude={"stages"})


def stage_body(match, i: int) -> dict:
    """The push body of stage ``i`` of a Match."""
    return match.stages[i].model_dump(mode="json")


def ccdb_header(match_id: str = "ccdb-live") -> dict:
    """A ccdb-4v4 header body (four debaters a side)."""
    return {
        "match_id": match_id, "format": "ccdb-4v4", "language": "zh", "motion": "人工智能的发展利大于弊",
        "affirmative_position": "利大于弊", "negative_position": "弊大于利",
        "debaters": [{"side": side, "position": p} for side in ("affirmative", "negative") for p in range(1, 5)],
    }


def ccdb_stage(k: int, text: str = "我方认为这个观点成立，因为证据充分。") -> dict:
    """Stage ``k`` (0-based) of the ccdb-4v4 declared order as a push body."""
    slot = CCDB_4V4.order[k]
    body: dict = {"stage_id": f"s{k + 1:02d}", "name": slot.name, "type": slot.type, "sides": list(slot.sides)}
    if slot.questioner:
        body["roles"] = {slot.questioner: "questioner", other_side(slot.questioner): "respondent"}
    speakers = list(slot.speakers) or ["Affirmative Speaker 2", "Negative Speaker 2"]
    body["speakers"] = speakers
    body["utterances"] = [{"speaker": sp, "side": sp.split(" ")[0].lower(), "text": f"{text}{i}"} for i, sp in enumerate(speakers)]
    if slot.type in ("questioning", "cross_examination") and len(speakers) == 1:
        other = f"{other_side(slot.questioner).capitalize()} Speaker 1"
        body["utterances"].append({"speaker": other, "side": other_side(slot.questioner), "text": "我方回应。"})
    return body


_TOKEN_DIR: Path | None = None


def token_file(token: str = TOKEN) -> str:
    """The path of a file (mode 0600) holding ``token`` on its first line, for ``--token-file``: a token
    is never given on a command line (it would show in ``ps``)."""
    global _TOKEN_DIR
    if _TOKEN_DIR is None:
        _TOKEN_DIR = Path(tempfile.mkdtemp(prefix="adjudicator-tokens-"))
        atexit.register(shutil.rmtree, _TOKEN_DIR, True)  # removed when the test process exits
    path = _TOKEN_DIR / hashlib.sha256(token.encode()).hexdigest()[:16]
    if not path.exists():
        path.write_text(token + "\n", encoding="utf-8")
        path.chmod(0o600)
    return str(path)


def start_server(state_dir: Path, context: AdjudicationContext, **kw) -> LiveServer:
    """A started LiveServer on 127.0.0.1 and a free port (stop it with .stop())."""
    kw.setdefault("store", STORE)
    app = create_app(state_dir, context, TOKEN, **kw)
    return LiveServer(app).start()


def wait_until(predicate, timeout_s: float = 20.0, interval_s: float = 0.05):
    """Poll ``predicate`` until it returns a truthy value; return it. Raises AssertionError on timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(interval_s)


# ---------------------------------------------------------------------------------------------
# Backends for server subprocesses (configured through environment variables)


class PanelFault(RecordingBackend):
    """A judge-2 that fails with an exception, as if the process died mid-panel while the other
    judges' ballots were being saved."""

    def judge(self, request):
        if request.judge_id == "judge-2":
            raise RuntimeError("judge-2 lost its connection")
        return super().judge(request)


class LoggingBackend(RecordingBackend):
    """RecordingBackend that appends "<match_id> <stage_id>" to $LIVE_FAKE_LOG for every analysis it
    starts, and, for the stage named in $LIVE_FAKE_BLOCK, writes $LIVE_FAKE_LOG.blocked and then
    blocks for good (so the test can kill the process mid-analysis)."""

    def __init__(self):
        super().__init__()
        self.log = os.environ.get("LIVE_FAKE_LOG")
        self.block = os.environ.get("LIVE_FAKE_BLOCK")

    def analyse_stage(self, request):
        if self.log:
            with open(self.log, "a", encoding="utf-8") as fh:
                fh.write(f"{request.match.match_id} {request.stage.stage_id}\n")
        if self.block and request.stage.stage_id == self.block:
            Path(f"{self.log}.blocked").write_text(request.stage.stage_id, encoding="utf-8")
            threading.Event().wait(3600)
        return super().analyse_stage(request)


def logging_context() -> AdjudicationContext:
    """``--context-factory live_fakes:logging_context``."""
    return AdjudicationContext.single(LoggingBackend())
