"""Replay a finished match into the live server at N times real speed (demos and tests).

Each stage is pushed when it would have finished: after its *nominal duration* divided by the speed.
The nominal duration is derived from the stage's text length at a typical delivery rate (our choice,
documented here; transcripts carry no timings):

- Chinese (``language == "zh"``): non-whitespace characters / :data:`ZH_CHARS_PER_S` (5 a second,
  300 a minute, brisk competitive delivery);
- English: words / :data:`EN_WORDS_PER_S` (2.5 a second, 150 words a minute).

``speed`` 0 means no waiting at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from adjudicator.errors import InputError
from adjudicator.input.match import Match, Stage
from adjudicator.live.client.connection import LiveClient

ZH_CHARS_PER_S = 5.0
EN_WORDS_PER_S = 2.5


def nominal_duration_s(stage: Stage, language: str) -> float:
    """Seconds the stage would take to deliver (module docstring), >= 0."""
    if language == "zh":
        return sum(len("".join(u.text.split())) for u in stage.utterances) / ZH_CHARS_PER_S
    return sum(len(u.text.split()) for u in stage.utterances) / EN_WORDS_PER_S


def replay_delays_s(match: Match, speed: float) -> list[float]:
    """The wait before each stage's push: nominal duration / ``speed`` (0 when ``speed`` is 0).
    Raises InputError for a negative speed."""
    if speed < 0:
        raise InputError(f"--speed: {speed} is negative", "give 1 for real time, 10 for ten times faster, 0 for no waiting")
    return [0.0 if speed == 0 else nominal_duration_s(s, match.language) / speed for s in match.stages]


def header_of(match: Match, match_id: str | None = None) -> dict:
    """The create-match body of ``match``: its label-free view without stages."""
    body = match.view().model_dump(mode="json", exclude={"stages"})
    if match_id:
        body["match_id"] = match_id
    return body


def replay(
    client: LiveClient,
    match: Match,
    speed: float,
    *,
    match_id: str | None = None,
    close: bool = True,
    sleep: Callable[[float], None] = time.sleep,
    progress: Callable[[str], None] | None = None,
) -> dict | None:
    """Create ``match`` on the server (or continue it if a match with that id and the same motion and
    format exists: stages already received are skipped without waiting), push its stages one at a time
    at ``speed`` times real speed, and close it. Returns the verdict JSON (None when ``close`` is
    False). Raises InputError / AdjudicationFailed from the server (see :mod:`.connection`)."""
    delays = replay_delays_s(match, speed)
    header = header_of(match, match_id)
    mid = header["match_id"]
    say = progress or (lambda line: None)
    received: set[str] = set()
    if client.exists(mid):
        snap = client.snapshot(mid)
        m = snap["match"]
        if (m["format"], m["motion"]) != (header["format"], header["motion"]):
            if snap.get("room"):  # a tournament room: a new id would take the match out of the room
                raise InputError(f"match {mid!r} is room {snap['room']['room_id']!r} of round {snap['room']['round_id']!r}, which debates {m['format']} {m['motion']!r}; "
                                 f"{match.match_id!r} is {header['format']} {header['motion']!r}",
                                 "replay a file of that round's motion into the room, or create a round for this motion (`adjudicate live round create --from-match FILE`)")
            raise InputError(f"match {mid!r} already exists on the server with another motion or format", "pass --match-id with a new id")
        received = {s["stage_id"] for s in snap["stages"]}
        say(f"{mid}: continuing; {len(received)} stage(s) already received")
    else:
        client.create(header)
        say(f"{mid}: created ({match.format}, {len(match.stages)} stage{'' if len(match.stages) == 1 else 's'} to push)")
    for stage, delay in zip(match.stages, delays):
        if stage.stage_id in received:
            continue
        if delay > 0:
            sleep(delay)
        r = client.push(mid, stage.model_dump(mode="json"))
        latest = r.get("latest") or {}
        scores = ", ".join(f"{s['side']} {s['suggested_score']}" for s in latest.get("scores", []))
        p = (r.get("tendency") or {}).get("p")
        say(f"{mid}: {stage.stage_id} {stage.name}: {r['status']}" + (f" ({scores})" if scores else "") + (f"; provisional tendency {p:.2f}" if p is not None else ""))
    if not close:
        return None
    verdict = client.close_match(mid, force=True)  # the file is the whole debate, however its speeches fall
    say(f"{mid}: closed; winner {verdict.get('winner')} (p={verdict.get('p')})")
    return verdict
