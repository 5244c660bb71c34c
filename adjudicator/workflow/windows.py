"""Stage windows: which consecutive stages the LLM clash tracker reads in one request.

On a short debate most of a tracker request is fixed overhead (instructions, response schema, motion,
ledger, the previous stage), while each stage's own text is a few hundred tokens. A *window* lets the
tracker analyse several consecutive short stages in one request; everything downstream still sees one
:class:`~adjudicator.verdict.battlefield.StageAnalysis` per stage, folded into the battlefield in stage order.

The grouping is a pure, deterministic function of the stages' texts and the character budget
(``--track-window-chars``): greedy from left to right, the next stage joins the current window while
the window's transcript (the stages' utterance lines, as the prompt shows them) stays within the
budget and the window holds fewer than :data:`MAX_WINDOW_STAGES` stages. A stage longer than the
budget is a window of its own; a budget of 0 means one stage per window (per-stage tracking).
Because a window always starts where the previous one ended, the window at any cursor the graph
reaches equals the one the greedy walk from the first stage gives there.
"""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.input.match import Stage
from adjudicator.model.prompts import utterance_lines

#: The most stages one window holds: its completion budget is the per-stage budget times its stage
#: count (6 x 1,280 = 7,680 tokens), which stays within the 8,192 output tokens common models allow
#: and the attempts' truncation cap (:data:`~adjudicator.model.attempts.TRUNCATION_CAP_TOKENS`); a
#: six-speech DebateArt debate is then one request (benchmarks/tokens.py: 0750 and 4739 at 83% and
#: 94% of single-call with six, 97% and 109% with four).
MAX_WINDOW_STAGES = 6


def stage_chars(stage: Stage) -> int:
    """The characters of ``stage``'s transcript as the tracker's prompt shows it (its utterance lines,
    :func:`~adjudicator.model.prompts.utterance_lines`)."""
    return len(utterance_lines(stage.utterances))


def window_size(stages: Sequence[Stage], start: int, budget_chars: int, max_stages: int = MAX_WINDOW_STAGES) -> int:
    """The number of stages in the window that starts at ``stages[start]`` (0-based): at least 1
    when ``start`` is a stage, 0 past the end. Greedy: stage ``start`` always; each next stage while
    the window's characters (:func:`stage_chars` summed) stay <= ``budget_chars`` and the window
    holds fewer than ``max_stages``. ``budget_chars`` <= 0 or ``max_stages`` <= 1: 1."""
    if start >= len(stages):
        return 0
    if budget_chars <= 0 or max_stages <= 1:
        return 1
    n, used = 1, stage_chars(stages[start])
    while start + n < len(stages) and n < max_stages:
        more = stage_chars(stages[start + n])
        if used + more > budget_chars:
            break
        used += more
        n += 1
    return n


def windows(stages: Sequence[Stage], budget_chars: int, max_stages: int = MAX_WINDOW_STAGES) -> list[tuple[int, int]]:
    """Every window of ``stages`` as ``(start, count)`` pairs, in order (see :func:`window_size`);
    the counts add up to ``len(stages)``."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(stages):
        n = window_size(stages, i, budget_chars, max_stages)
        out.append((i, n))
        i += n
    return out
