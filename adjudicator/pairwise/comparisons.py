"""What a pairwise judge is asked and what it answers: the schedule of comparisons, one judge's
answer to one ordered comparison, and the pair's result once both orders are in.

- :func:`schedule` -- every comparison one judge makes: for each level (``"unit"``: the two sides,
  or BP's four houses; ``"speaker"``: the debaters, or BP's eight speeches where the speakers are
  team-level, :meth:`~adjudicator.input.match.MatchView.competitors`) every unordered pair, asked in both
  orders (position swap): (x, y) with x shown as A, then (y, x). A format with n competitors at a
  level costs n(n-1) comparisons per judge: BP 12 + 56, CCDB 4v4 2 + 56, DebateArt 2 + 2.
- :class:`PairChoice` -- one answer ("A", "B" or "tie") to one ordered comparison.
- :func:`resolve` -- a judge's two answers on one pair -> :class:`PairResult`. The pair is
  *order-consistent* when both answers name the same competitor, or both say tie; any other pair
  of answers (the winner flips with the position, or one order says tie and the other does not)
  is order-inconsistent and counts as a tie, flagged so that the report can count it.
"""

from __future__ import annotations

from itertools import combinations
from typing import Literal

from adjudicator.frozen import FrozenModel
from adjudicator.input.match import MatchView

Level = Literal["unit", "speaker"]
LEVELS: tuple[Level, ...] = ("unit", "speaker")
Answer = Literal["A", "B", "tie"]
Outcome = Literal["first", "second", "tie"]


class PairChoice(FrozenModel):
    """One judge's answer to one ordered comparison: ``a`` was shown first (as "A"), ``b`` second;
    ``answer`` "A", "B" or "tie"; ``reasoning`` the judge's short explanation ("" offline)."""

    judge_id: str
    level: Level
    a: str
    b: str
    answer: Answer
    reasoning: str = ""

    def winner(self) -> str | None:
        """The competitor named better, None for a tie."""
        return self.a if self.answer == "A" else self.b if self.answer == "B" else None


class PairResult(FrozenModel):
    """One judge's result on one unordered pair (``first`` precedes ``second`` in the match's
    competitor order): ``forward`` the answer with ``first`` shown as A, ``backward`` with
    ``second`` shown as A, ``outcome`` the resolved result, ``consistent`` False when the two
    orders disagreed (the outcome is then "tie")."""

    judge_id: str
    level: Level
    first: str
    second: str
    forward: Answer
    backward: Answer
    outcome: Outcome
    consistent: bool


def pairs(view: MatchView, level: Level) -> list[tuple[str, str]]:
    """The unordered pairs of ``level``'s competitors, in competitor order (``(c0, c1), (c0, c2), ...``)."""
    return list(combinations(view.competitors(level), 2))


def schedule(view: MatchView) -> list[tuple[Level, str, str]]:
    """Every ordered comparison of one judge, as (level, shown as A, shown as B): for each level and
    pair (x, y), first (x, y) then (y, x) (module docstring)."""
    out: list[tuple[Level, str, str]] = []
    for level in LEVELS:
        for x, y in pairs(view, level):
            out += [(level, x, y), (level, y, x)]
    return out


def resolve(forward: PairChoice, backward: PairChoice) -> PairResult:
    """The result of one pair from its two orders (module docstring). ``forward`` shows the pair's
    first competitor as A, ``backward`` shows it as B. Raises ValueError when the two choices are
    not the same judge, level and pair in swapped positions."""
    if (forward.judge_id, forward.level, forward.a, forward.b) != (backward.judge_id, backward.level, backward.b, backward.a):
        raise ValueError(f"resolve: {forward.a}/{forward.b} and {backward.a}/{backward.b} are not one pair in both orders")
    w1, w2 = forward.winner(), backward.winner()
    consistent = w1 == w2
    outcome: Outcome = "tie"
    if consistent and w1 is not None:
        outcome = "first" if w1 == forward.a else "second"
    return PairResult(
        judge_id=forward.judge_id,
        level=forward.level,
        first=forward.a,
        second=forward.b,
        forward=forward.answer,
        backward=backward.answer,
        outcome=outcome,
        consistent=consistent,
    )


def resolve_all(view: MatchView, choices: list[PairChoice]) -> list[PairResult]:
    """Every pair for which a judge answered both orders, resolved; judges in the order they first
    appear in ``choices``, then level and pair order. A pair missing an order (its call failed) is
    left out: a failure is never turned into a tie."""
    by_key = {(c.judge_id, c.level, c.a, c.b): c for c in choices}
    judges = list(dict.fromkeys(c.judge_id for c in choices))
    out = []
    for j in judges:
        for level in LEVELS:
            for x, y in pairs(view, level):
                f, b = by_key.get((j, level, x, y)), by_key.get((j, level, y, x))
                if f is not None and b is not None:
                    out.append(resolve(f, b))
    return out
