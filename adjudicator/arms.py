"""The arms a match can be adjudicated with: the agentic panel and the CCDB single-call protocol.

Both return a :class:`~adjudicator.verdict.Verdict` of the same shape, so the benchmark scores them
the same way.
"""

from __future__ import annotations

from .match import Match
from .verdict import Verdict

ARMS = ("agentic", "single-call")


def adjudicate_with_arm(match: Match, arm: str, config) -> Verdict:
    """Adjudicate ``match`` with ``arm`` under model configuration ``config`` (a
    :class:`adjudicator.config.ModelConfig`). Raises InputError for an unknown arm, and
    AdjudicationFailed when the arm could not produce a verdict."""
    from .errors import InputError

    if arm == "agentic":
        from .config import build_context
        from .run import adjudicate

        return adjudicate(match, build_context(config))
    if arm == "single-call":
        from .single_call import adjudicate_single_call

        return adjudicate_single_call(match, config)
    raise InputError(f"--arm: unknown arm {arm!r}", f"use one of {', '.join(ARMS)}")
