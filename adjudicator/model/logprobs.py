"""Token log-probabilities: read them from a reply, and derive a winner tendency and expected scores.

A stated p is the number a model writes; a *log-prob p* is read off the probabilities the model gave
the tokens it could have written where it named the winner. G-Eval (Liu et al., 2023) and TrustJudge
(2025) score this way: the probability-weighted expectation over the candidate score tokens instead
of the one token sampled. ``--p-source logprob`` asks an OpenAI-compatible server (OpenAI, llama.cpp,
vLLM) for ``logprobs`` with the top :data:`TOP_LOGPROBS` alternatives of every token, and here:

- :func:`token_logprobs_of` reads ``choices[0].logprobs.content`` of a reply into :class:`TokenLogprob`
  records (token, its log-probability, its top alternatives);
- :func:`winner_mass` takes the token that starts the ``"winner"`` value of the answer's JSON and sums
  the probability of every alternative that begins one of the choices (``"aff"`` and ``"affirmative"``
  both count for ``affirmative``); :func:`logprob_p` = mass(affirmative) / (mass(affirmative) +
  mass(negative)), in [0, 1];
- :func:`expected_score` takes the token that starts a unit's score and returns the expectation
  sum(k · P(k)) / sum(P(k)) over the alternatives that are whole integers in the score range.

Offsets are found in the reply text by pattern, and the tokens are located by their character spans,
so both need the tokens to spell the reply exactly (``"".join(tokens) == text``); otherwise, or when no
alternative names a choice, the value is None -- never a guess. A score of ``10`` written as the two
tokens ``1`` ``0`` is read from its first token, where ``1`` and ``10`` compete; the expectation then
leans low by the mass of ``1`` that was really the start of ``10``, a known limit of per-token reading.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.frozen import FrozenModel

#: Alternatives requested per token (OpenAI's maximum is 20).
TOP_LOGPROBS = 20


class TopLogprob(FrozenModel):
    """One alternative for a token position: the token text and its natural-log probability (<= 0)."""

    token: str
    logprob: float


class TokenLogprob(FrozenModel):
    """One generated token: its text, its natural-log probability and the top alternatives at its
    position (the token itself is usually among them)."""

    token: str
    logprob: float
    top: list[TopLogprob] = []


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


def token_logprobs_of(choice: Any) -> list[TokenLogprob] | None:
    """The token log-probabilities of a reply's choice (a litellm ``Choices`` or a plain dict), None
    when the reply carries none. Entries without a numeric log-probability are skipped."""
    lp = _get(choice, "logprobs")
    content = _get(lp, "content") if lp is not None else None
    if not content:
        return None
    out = []
    for entry in content:
        token, logprob = _get(entry, "token"), _get(entry, "logprob")
        if not isinstance(token, str) or not isinstance(logprob, (int, float)):
            continue
        top = [TopLogprob(token=str(_get(t, "token")), logprob=float(_get(t, "logprob"))) for t in (_get(entry, "top_logprobs") or []) if isinstance(_get(t, "logprob"), (int, float))]
        out.append(TokenLogprob(token=token, logprob=float(logprob), top=top))
    return out or None


def _token_at(tokens: Sequence[TokenLogprob], text: str, offset: int) -> TokenLogprob | None:
    """The token whose span covers character ``offset`` of ``text`` (None when the tokens do not
    spell ``text`` or the offset is past the end)."""
    if "".join(t.token for t in tokens) != text:
        return None
    pos = 0
    for t in tokens:
        if pos <= offset < pos + len(t.token):
            return t
        pos += len(t.token)
    return None


def _alternatives(token: TokenLogprob) -> dict[str, float]:
    """Alternative token text -> probability at one position (the sampled token included)."""
    alts = {a.token: math.exp(a.logprob) for a in token.top}
    alts.setdefault(token.token, math.exp(token.logprob))
    return alts


def winner_mass(text: str, tokens: Sequence[TokenLogprob], choices: Sequence[str] = ("affirmative", "negative")) -> dict[str, float] | None:
    """Choice -> probability mass at the token that starts the ``"winner"`` value of ``text``: the sum
    over the alternatives whose text, stripped of quotes and spaces and lower-cased, is a non-empty
    prefix of the choice. None when there is no ``"winner"`` value or no token there."""
    m = re.search(r'"winner"\s*:\s*"', text)
    if m is None:
        return None
    token = _token_at(tokens, text, m.end())
    if token is None:
        return None
    # the value may start inside a token that also holds the opening quote: read from the value on
    mass = dict.fromkeys(choices, 0.0)
    for alt, prob in _alternatives(token).items():
        word = alt.strip().strip('"').strip().lower()
        if not word:
            continue
        for c in choices:
            if c.startswith(word):
                mass[c] += prob
                break
    return mass


def logprob_p(text: str, tokens: Sequence[TokenLogprob] | None) -> float | None:
    """P(affirmative) from the winner token's alternatives: mass(aff) / (mass(aff) + mass(neg)),
    rounded to 4 decimals; None without tokens, without a ``"winner"`` value, or with no mass on
    either side. Example: alternatives ``"aff"`` 0.6, ``"neg"`` 0.3, ``"the"`` 0.1 -> 0.6 / 0.9 = 0.6667."""
    if not tokens:
        return None
    mass = winner_mass(text, tokens)
    if mass is None:
        return None
    total = mass["affirmative"] + mass["negative"]
    return round(mass["affirmative"] / total, 4) if total > 0 else None


def expected_score(text: str, tokens: Sequence[TokenLogprob] | None, key: str, low: int = 1, high: int = 10) -> float | None:
    """The expected score of unit ``key`` (``"s03|affirmative"``): at the token that starts the number
    after ``"<key>":``, sum(k · P(k)) / sum(P(k)) over the alternatives that are integers k in
    [``low``, ``high``] (spaces stripped), rounded to 4 decimals. None without tokens, without the key
    in ``text`` or with no integer alternative. Example: ``7`` 0.5, ``8`` 0.3, ``6`` 0.2 -> 7.1."""
    if not tokens:
        return None
    m = re.search(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:\s*", text)
    if m is None:
        return None
    token = _token_at(tokens, text, m.end())
    if token is None:
        return None
    weights: dict[int, float] = {}
    for alt, prob in _alternatives(token).items():
        s = alt.strip()
        if s.isdigit() and low <= int(s) <= high:
            weights[int(s)] = weights.get(int(s), 0.0) + prob
    total = sum(weights.values())
    return round(sum(k * w for k, w in weights.items()) / total, 4) if total > 0 else None
