"""The one base of every pydantic model that crosses a boundary (the design card, Conventions).

:class:`FrozenModel` instances are immutable (``frozen``) and reject unknown fields (``extra="forbid"``),
so a typo in a match file, a model's answer or a result file is an error, never a silently dropped
value. Input models that must not coerce types (a JSON ``"7"`` is not the integer 7) add
``strict=True`` on top (:mod:`adjudicator.input.match`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class FrozenModel(BaseModel):
    """Immutable, unknown fields forbidden. Subclasses may add settings to ``model_config``; pydantic
    merges them with these."""

    model_config = ConfigDict(frozen=True, extra="forbid")
