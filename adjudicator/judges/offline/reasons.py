"""The reasons of an offline ballot, in sentences a coach can read (:func:`ballot_reasons`), in the
match's language (words: ``reason.*`` of :mod:`adjudicator.judges.offline.words`).

Every sentence states a fact the ballot was computed from, or one read off the transcript and the
clash map the judge saw; none is a judgement the baseline did not make:

- **the call**: the perspective's focus, the winner, how clear (by p: within 0.03 of 0.5 "by a
  hair", 0.10 "narrowly", 0.25 "clearly", beyond "decisively"), the two sides' stage-weighted mean
  unit values and which way the clash moves lean (the two terms of the ballot's D,
  :func:`~adjudicator.judges.offline.ballot.judge_ballot`);
- **stages**: the winner's best unit on this ballot (with the clash it moved there, if any) and the
  loser's weakest;
- **questions**: in a questioning stage, how many of the other side's turns of questions a side answered
  (:func:`~adjudicator.judges.offline.transcript.questions_answered`; the telling one: the loser's
  lowest share answered, else the winner's highest, at least 2 questions);
- **clashes**: the clash whose counted moves went most clearly the winner's way (at least 2), the
  clash the loser never came back to after the winner last pressed it although it spoke again, and
  (the "advancement" judge) the latest stage in the second half where the winner moved a clash.

Each perspective leads with what it weighs: "task" the stages and questions, "battlefield" the
clashes, "advancement" the late moves. Numbers stay what the ballot computed; the words change nothing.
"""

from __future__ import annotations

from adjudicator.input.formats import Side, other_side
from adjudicator.input.match import MatchView
from adjudicator.judges.offline.transcript import questions_answered
from adjudicator.judges.offline.words import Words
from adjudicator.verdict.battlefield import Clash, event_balance
from adjudicator.verdict.markup import strip_markup

Unit = tuple[str, Side]

#: |p - 0.5| below which each margin word applies (else "decisively").
MARGINS = ((0.03, "hair"), (0.10, "narrow"), (0.25, "clear"))
#: Clash moves that press a clash for the side that makes them, and which one a sentence names first.
PRESS = ("opened", "advanced", "defended")
PREFER = {"advanced": 0, "defended": 1, "opened": 2}
#: Which facts each perspective states after the call, in order.
ORDER = {
    "task": ("stages", "questions", "won_clash"),
    "battlefield": ("won_clash", "dropped", "stages"),
    "advancement": ("late", "dropped", "stages"),
}


def ballot_reasons(match: MatchView, perspective: str, clashes: dict[str, Clash], values: dict[Unit, float], scores: dict[Unit, int],
                   mean: dict[str, float], momentum: float, p: float, winner: Side) -> str:
    """The reasoning of one offline ballot (module docstring): ``values`` the judge's unit values
    (1-10), ``scores`` its integer stage scores, ``mean`` each side's stage-weighted mean value,
    ``momentum`` the event-weighted clash momentum in [-1, 1], ``p`` and ``winner`` the ballot's."""
    w = Words(match.language)
    ctx = _Context(match, w, clashes, values, scores, winner)
    out = [_call(w, perspective, mean, momentum, p, winner)]
    for fact in ORDER.get(perspective, ORDER["task"]):
        said = getattr(ctx, fact)()
        if said and said not in out:
            out.append(said)
    return (" " if w.lang == "en" else "").join(out)


def _call(w: Words, perspective: str, mean: dict[str, float], momentum: float, p: float, winner: Side) -> str:
    loser = other_side(winner)
    margin = next((word for bound, word in MARGINS if abs(p - 0.5) < bound), "wide")
    kw = {"focus": w.t(f"focus.{perspective}" if f"focus.{perspective}" in w.table else "focus.task"), "winner": w.side(winner), "loser": w.side(loser),
          "margin": w.t(f"margin.{margin}"), "p": f"{p:.2f}", "mine": f"{mean[winner]:.2f}", "theirs": f"{mean[loser]:.2f}"}
    if mean[winner] < mean[loser]:
        return w.t("reason.call_by_clashes", **kw) + w.t("reason.lean_none")
    lean = momentum * (1 if winner == "affirmative" else -1)
    tail = "reason.lean_with" if lean > 0.005 else ("reason.lean_against" if lean < -0.005 else "reason.lean_none")
    return w.t("reason.call", **kw) + w.t(tail, **kw)


class _Context:
    """What the facts of one ballot are read from; each fact method returns its sentence or ""."""

    def __init__(self, match: MatchView, w: Words, clashes: dict[str, Clash], values: dict[Unit, float], scores: dict[Unit, int], winner: Side) -> None:
        self.match, self.w, self.values, self.scores = match, w, values, scores
        self.winner, self.loser = winner, other_side(winner)
        self.clashes = list(clashes.values())
        self.order = {s.stage_id: i for i, s in enumerate(match.stages)}
        self.by_id = {s.stage_id: s for s in match.stages}

    def _stage(self, stage_id: str) -> str:
        stage = self.by_id.get(stage_id)
        return self.w.stage(stage.name) if stage is not None else stage_id

    def _title(self, clash: Clash) -> str:
        return strip_markup(clash.title)

    def _kw(self, **kw: object) -> dict[str, object]:
        return {"winner": self.w.side(self.winner), "loser": self.w.side(self.loser), **kw}

    def stages(self) -> str:
        """The winner's best unit (with the clash it pressed there) and the loser's weakest."""
        mine = [u for u in self.values if u[1] == self.winner]
        theirs = [u for u in self.values if u[1] == self.loser]
        if not mine:
            return ""
        best = max(mine, key=lambda u: (self.values[u], -self.order[u[0]]))
        pressed = [(PREFER[e.kind], self.order[e.stage_id], c.clash_id, e.kind, c) for c in self.clashes for e in c.events
                   if e.stage_id == best[0] and e.side == self.winner and e.kind in PRESS]
        kw = self._kw(stage=self._stage(best[0]), score=self.scores[best])
        if pressed:
            *_, kind, clash = min(pressed, key=lambda x: x[:3])
            text = self.w.t("reason.best_clash", move=self.w.t(f"move.{kind}"), title=self._title(clash), **kw)
        else:
            text = self.w.t("reason.best", **kw)
        if theirs:
            worst = min(theirs, key=lambda u: (self.values[u], self.order[u[0]]))
            text += (" " if self.w.lang == "en" else "") + self.w.t("reason.worst", **self._kw(stage=self._stage(worst[0]), score=self.scores[worst]))
        return text

    def questions(self) -> str:
        """Questions answered in a questioning stage: the loser's lowest share, else the winner's highest."""
        found = []
        for stage in self.match.stages:
            if stage.interaction == "monologue":
                continue
            for side in stage.evaluated_sides():
                asked, answered = questions_answered(stage, side, self.match.language)
                if asked >= 2:
                    telling = 1 - answered / asked if side == self.loser else answered / asked
                    found.append((telling, side == self.loser, asked, -self.order[stage.stage_id], stage, side, answered))
        if not found:
            return ""
        _, _, asked, _, stage, side, answered = max(found, key=lambda x: x[:4])
        return self.w.t("reason.answers", stage=self._stage(stage.stage_id), side=self.w.side(side), other=self.w.side(other_side(side)),
                        answered=answered, asked=self.w.n("question_turn", asked))

    def won_clash(self) -> str:
        """The clash whose counted moves went most clearly the winner's way (at least 2 moves)."""
        sign = 1.0 if self.winner == "affirmative" else -1.0
        best = None
        for c in self.clashes:
            score, n = event_balance(c.events)
            k = round((n + sign * score) / 2)
            if n >= 2 and k * 2 > n and (best is None or (k / n, k) > best[0]):
                best = ((k / n, k), c, k, n)
        if best is None:
            return ""
        _, c, k, n = best
        return self.w.t("reason.won_clash", title=self._title(c), side=self.w.side(self.winner), k=k, moves=self.w.n("move", n))

    def dropped(self) -> str:
        """A clash the loser never came back to after the winner last pressed it, though it spoke in a
        later stage (the latest such)."""
        found = []
        speaks = [i for i, s in enumerate(self.match.stages) if self.loser in s.evaluated_sides()]
        for c in self.clashes:
            pressed = [self.order[e.stage_id] for e in c.events if e.side == self.winner and e.kind in PRESS]
            theirs = [self.order[e.stage_id] for e in c.events if e.side == self.loser]
            if not pressed or not any(i > max(pressed) for i in speaks):
                continue  # the loser had no stage left to answer in
            last = max(pressed)
            if theirs and max(theirs) < last:
                found.append((last, max(theirs), c))
            elif not theirs:
                found.append((last, -1, c))
        if not found:
            return ""
        last, left, c = max(found, key=lambda x: (x[0], x[1], x[2].clash_id))
        later = self._stage(self.match.stages[last].stage_id)
        if left < 0:
            raised = self._stage(c.opened_in)
            return self.w.t("reason.untouched", side=self.w.side(self.loser), other=self.w.side(self.winner), title=self._title(c), stage=raised)
        return self.w.t("reason.dropped", side=self.w.side(self.loser), other=self.w.side(self.winner), title=self._title(c),
                        stage=self._stage(self.match.stages[left].stage_id), later=later)

    def late(self) -> str:
        """The latest stage in the second half of the debate where the winner pushed a clash forward or held it."""
        half = len(self.match.stages) / 2
        moves = [(self.order[e.stage_id], c.clash_id, e.kind, c) for c in self.clashes for e in c.events
                 if e.side == self.winner and e.kind in ("advanced", "defended") and self.order[e.stage_id] >= half]
        if not moves:
            return ""
        at, _, kind, c = max(moves, key=lambda x: (x[0], x[1]))
        return self.w.t("reason.late", stage=self._stage(self.match.stages[at].stage_id), side=self.w.side(self.winner),
                        move=self.w.t(f"move.{kind}"), title=self._title(c))

