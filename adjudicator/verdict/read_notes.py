"""What the review says of how the ballots were read (issue 38): normalised fields, dropped feedback
points, ballots that did not decide.

A ballot carries what its reading did beyond the letter of the answer
(:attr:`~adjudicator.verdict.ballots.Ballot.normalised`, ``dropped``, ``deciding``); each is a reason
of the review (:mod:`adjudicator.verdict.review`) so a person sees it, never silently:

- ``normalised_fields``: the judges whose answers a normalisation rule read (the count of fields and
  the rules, :mod:`adjudicator.model.normalise`);
- ``dropped_feedback``: the judges whose ballots were taken without feedback points still invalid
  after their repair (the count);
- ``non_deciding_ballot``: the judges who still answered p = 0.5 after a repair turn and stated no winner;
- ``p_left_out``: the judges who still answered p = 0.5 after a repair turn but stated a winner: the
  winner vote counts, the p is left out of the panel's p.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def read_findings(ballots: Sequence[Any]) -> list[tuple[str, dict[str, Any]]]:
    """The review findings (reason, facts) of ``ballots`` (module docstring), in reason order."""
    out: list[tuple[str, dict[str, Any]]] = []
    normalised = [b for b in ballots if getattr(b, "normalised", None)]
    if normalised:
        rules = sorted({n.rule for b in normalised for n in b.normalised})
        out.append(("normalised_fields", {"judges": [b.judge_id for b in normalised], "n": sum(len(b.normalised) for b in normalised), "rules": ", ".join(rules)}))
    dropped = [b for b in ballots if getattr(b, "dropped", None)]
    if dropped:
        out.append(("dropped_feedback", {"judges": [b.judge_id for b in dropped], "n": sum(len(b.dropped) for b in dropped)}))
    undecided = [b.judge_id for b in ballots if not getattr(b, "deciding", True)]
    if undecided:
        out.append(("non_deciding_ballot", {"judges": undecided}))
    left_out = [b.judge_id for b in ballots if getattr(b, "deciding", True) and not getattr(b, "p_counted", True)]
    if left_out:
        out.append(("p_left_out", {"judges": left_out}))
    return out
