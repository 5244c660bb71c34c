"""Turning points of a match in progress: the stages after which the provisional tendency
(:mod:`adjudicator.live.rooms.tendency`) crossed 0.5, and what moved it.

Replaying the trackers' analyses stage by stage (stage ``k`` sees the analyses of stages 1..k and the
clash map as it stood after stage ``k``), the tendency's side is "affirmative" above 0.5 and
"negative" below; exactly 0.5, or no tendency yet, keeps the side it had. A turning point is a stage
after which the side differs from the side before it (the first side taken is not a turning point:
nothing was crossed).

What moved it: among the clashes with events in that stage, the one whose events there pushed hardest
toward the new side -- +1 for each "advanced" or "defended" event of that side and each "conceded"
event of the other, -1 for the reverse (the counting of clash momentum) -- if any pushed toward it at
all; otherwise the stage's suggested scores moved the like-for-like score gap (``driver="scores"``).
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.input.formats import Side
from adjudicator.input.match import Stage
from adjudicator.live.rooms.tendency import Tendency, provisional_tendency
from adjudicator.verdict.battlefield import Clash, ClashEvent, StageAnalysis


@dataclass(frozen=True)
class TurningPoint:
    """One crossing of 0.5: the stage (id, name, 1-based position among the analysed stages), the
    tendency before and after it (``p`` 0-1, score gap in points, momentum -1..1), the side it crossed
    toward, what moved it (``driver`` "clash" or "scores") and, for a clash, its id, title and the
    kinds of its events in that stage."""

    stage_id: str
    stage_name: str
    position: int
    toward: Side
    p_before: float | None
    p_after: float | None
    score_gap_before: float
    score_gap_after: float
    momentum_before: float
    momentum_after: float
    driver: str
    clash_id: str | None = None
    clash_title: str | None = None
    clash_events: tuple[str, ...] = ()


def clashes_through(clashes: dict[str, Clash], stage_ids: set[str]) -> dict[str, Clash]:
    """The clash map as it stood once the stages ``stage_ids`` were analysed: clashes opened in them,
    with only their events from them."""
    out: dict[str, Clash] = {}
    for cid, c in clashes.items():
        if c.opened_in not in stage_ids:
            continue
        out[cid] = c.model_copy(update={"events": [e for e in c.events if e.stage_id in stage_ids]})
    return out


def _side_of(p: float | None, previous: Side | None) -> Side | None:
    if p is None or p == 0.5:
        return previous
    return "affirmative" if p > 0.5 else "negative"


def _push(events: list[ClashEvent], toward: Side) -> int:
    """Net push of ``events`` toward ``toward`` (module docstring)."""
    n = 0
    for e in events:
        if e.kind in ("advanced", "defended"):
            n += 1 if e.side == toward else -1
        elif e.kind == "conceded":
            n += -1 if e.side == toward else 1
    return n


def turning_points(analyses: list[StageAnalysis], clashes: dict[str, Clash], stages: list[Stage]) -> list[TurningPoint]:
    """Every turning point of the analyses so far (``analyses`` sorted by stage index), in order."""
    names = {s.stage_id: s.name for s in stages}
    out: list[TurningPoint] = []
    seen: set[str] = set()
    before: Tendency = provisional_tendency([], {}, stages)
    side: Side | None = None
    for k, a in enumerate(analyses):
        seen.add(a.stage_id)
        after = provisional_tendency(analyses[: k + 1], clashes_through(clashes, seen), stages)
        new_side = _side_of(after.p, side)
        if side is not None and new_side is not None and new_side != side:
            moved = [(c, [e for e in c.events if e.stage_id == a.stage_id]) for c in clashes.values()]
            ranked = sorted(((_push(evs, new_side), i, c, evs) for i, (c, evs) in enumerate(moved) if evs), key=lambda t: (-t[0], t[1]))
            best = ranked[0] if ranked and ranked[0][0] > 0 else None
            out.append(TurningPoint(
                stage_id=a.stage_id, stage_name=names.get(a.stage_id, a.stage_id), position=k + 1, toward=new_side,
                p_before=before.p, p_after=after.p, score_gap_before=before.score_gap, score_gap_after=after.score_gap,
                momentum_before=before.momentum, momentum_after=after.momentum,
                driver="clash" if best else "scores",
                clash_id=best[2].clash_id if best else None, clash_title=best[2].title if best else None,
                clash_events=tuple(f"{e.side} {e.kind}" for e in best[3]) if best else (),
            ))
        side = new_side
        before = after
    return out
