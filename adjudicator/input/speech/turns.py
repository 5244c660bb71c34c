"""Turn marks: who holds the floor from when, in an interactive stage's recording, as the chair marked it.

A turns file is UTF-8 JSON written by the chair page's turn marker (``/static/turns.html``: a key per
turn while the stage is recorded) or by hand::

    {"turns": [{"at_s": 0.0, "speaker": "Negative Speaker 4"},
               {"at_s": 14.2, "side": "affirmative"},
               {"at_s": 21.7, "speaker": "Negative Speaker 4"}]}

``at_s`` is seconds from the start of the recording, increasing; each turn names a ``speaker`` (a
position label of the match; it fixes the side) or only a ``side`` (the debater is then the stage's
one declared speaker of that side where it has exactly one, else left unknown: the utterance keeps
its side and has no speaker). A turn lasts until the next one; words before the first mark belong
to the first turn. Bad files are :class:`~adjudicator.errors.InputError` naming the field.
"""

from __future__ import annotations

import bisect
from pathlib import Path

from pydantic import ConfigDict, Field, ValidationError, model_validator

from adjudicator.errors import InputError
from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import Side

#: Most marks one stage's file may hold (an eight-minute free debate changes turn every few seconds:
#: a few hundred at most).
MAX_TURNS = 2000


class Turn(FrozenModel):
    """One mark: from ``at_s`` seconds the floor is ``speaker``'s (a position label) or ``side``'s."""

    model_config = ConfigDict(strict=True)

    at_s: float = Field(ge=0)
    speaker: str | None = Field(default=None, max_length=200)
    side: Side | None = None

    @model_validator(mode="after")
    def _someone(self) -> "Turn":
        if self.speaker is None and self.side is None:
            raise ValueError("give the speaker (a position label) or the side who takes the floor")
        return self


class Turns(FrozenModel):
    """A stage's turn marks in time order (module docstring)."""

    model_config = ConfigDict(strict=True)

    turns: list[Turn] = Field(min_length=1, max_length=MAX_TURNS)

    @model_validator(mode="after")
    def _in_order(self) -> "Turns":
        for k in range(1, len(self.turns)):
            if self.turns[k].at_s < self.turns[k - 1].at_s:
                raise ValueError(f"turns.{k}.at_s: {self.turns[k].at_s:g} s comes before the previous mark ({self.turns[k - 1].at_s:g} s); list the marks in time order")
        return self

    def index_at(self, t_s: float) -> int:
        """The index of the turn holding the floor at ``t_s`` seconds (0 before the first mark)."""
        return max(0, bisect.bisect_right([t.at_s for t in self.turns], t_s) - 1)


def read_turns(path: str | Path) -> Turns:
    """Read and validate a turns file with the rules every input file has (size, UTF-8, strict JSON:
    :func:`~adjudicator.input.tomltext.read_document_file`). Raises InputError (one line naming the field)."""
    from adjudicator.input.field_errors import describe_validation_error
    from adjudicator.input.tomltext import read_document_file

    p = Path(path)
    data = read_document_file(p, ".json")
    if isinstance(data, list):  # a bare list of marks is accepted too
        data = {"turns": data}
    try:
        return Turns.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, str(p)).replace("adjudicate schema", "docs/speech.md")) from None
