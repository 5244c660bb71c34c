"""Graph input and output as JSON: the entry nodes and the input and output schemas of the graphs
LangGraph's own tools run (``langgraph dev``, LangGraph Studio, the LangGraph API), where the input
arrives as decoded JSON, not as models.

LangGraph writes a graph's input into the state channels as given, so JSON input would reach the nodes
as plain dicts and lists. Each graph compiled with ``json_input=True`` therefore starts with one entry
node that validates its input into the package's models, with the same rules and one-line messages as
a match file on the command line:

- the clash-tracking and adjudication graphs take :class:`MatchInput`, ``{"match": <a match file's
  JSON>}``; :func:`read_match` validates it (:func:`~adjudicator.input.match_file.parse_match`), drops its gold
  labels and source (:meth:`~adjudicator.input.match.Match.view`: labels never reach a model) and starts the
  walk over its stages, as :func:`adjudicator.api.initial_state` does;
- the panel graph takes :class:`PanelInput`, ``{"battlefield": <a clash-tracking state as JSON>}``
  (e.g. the clash_tracking graph's output); :func:`read_battlefield` validates each of its keys with
  the state's own type and writes them into the state. (The state is wrapped in one key because
  LangGraph passes input for a key with a reducer through that reducer, which expects models.)

Each graph's output schema names its result, not the whole internal state: :class:`VerdictOutput`
(``{"verdict": ...}``) for the adjudication and panel graphs, :class:`TrackingOutput`
(``{"battlefield": ...}``, written by :func:`write_battlefield`, the panel graph's input as it is) for
the clash-tracking graph. The run's whole state stays readable in the thread's checkpoints.

The TypedDicts' docstrings are the descriptions Studio shows, so they are plain text.
"""

from __future__ import annotations

import json
from typing import Any, get_type_hints

from langgraph.types import Overwrite
from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
from pydantic_core import to_jsonable_python
from typing_extensions import TypedDict

from adjudicator.errors import InputError
from adjudicator.frozen import plain_descriptions
from adjudicator.input.field_errors import describe_validation_error
from adjudicator.input.match import Match, MatchView, Stage
from adjudicator.input.match_file import parse_match
from adjudicator.records import CallRecord, NodeFailure
from adjudicator.verdict.ballots import Verdict
from adjudicator.verdict.battlefield import BattlefieldState, Clash, StageAnalysis

#: The schema config of the TypedDicts below: Studio shows their docstrings, as plain text.
_SHOWN = ConfigDict(json_schema_extra=plain_descriptions)

#: The entry node's name in every graph compiled with ``json_input=True``.
READ_INPUT = "read_input"
#: The clash-tracking graph's last node when compiled with ``json_input=True``.
WRITE_OUTPUT = "write_output"


class GraphInputError(InputError, ValueError):
    """Bad graph input or settings from LangGraph's tools: an :class:`~adjudicator.errors.InputError`
    that is also a ``ValueError``, because LangGraph's API server shows the client the message of a
    ``ValueError`` and hides that of other exception types. ``str()`` is the one line with its hint."""

    def __str__(self) -> str:
        return self.one_line()

    @classmethod
    def of(cls, exc: InputError) -> "GraphInputError":
        """The same message and hint."""
        return cls(exc.message, exc.hint)


@with_config(_SHOWN)
class MatchInput(TypedDict):
    """The debate to judge: match is the content of a match file (its JSON Schema: adjudicate schema
    --which match). Its gold labels and source are dropped before any node runs."""

    match: MatchView


@with_config(_SHOWN)
class Battlefield(TypedDict, total=False):
    """The battlefield after clash tracking: the match header, the stages received, the next stage to
    analyse, the clashes and who advanced them, one analysis per stage, the model calls made and any
    failures."""

    match: MatchView
    stages: list[Stage]
    next_stage: int
    clashes: dict[str, Clash]
    analyses: list[StageAnalysis]
    calls: list[CallRecord]
    failures: list[NodeFailure]


@with_config(_SHOWN)
class PanelInput(TypedDict):
    """The battlefield the panel judges: the clash_tracking graph's output as it is."""

    battlefield: Battlefield


@with_config(_SHOWN)
class VerdictOutput(TypedDict):
    """The result of the adjudication and panel graphs: the panel's verdict (its JSON Schema:
    adjudicate schema --which verdict)."""

    verdict: Verdict


@with_config(_SHOWN)
class TrackingOutput(TypedDict):
    """The result of the clash_tracking graph: the battlefield, ready to be the panel graph's input."""

    battlefield: Battlefield


def write_battlefield(state: BattlefieldState) -> dict[str, Any]:
    """The clash-tracking graph's output node: ``{"battlefield": <each key of the state that is set>}``
    (:class:`TrackingOutput`)."""
    return {"battlefield": {key: state[key] for key in ("match", *_STATE_KEYS) if key in state}}  # type: ignore[literal-required]


def _jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (models dumped), so that every input is validated the same way."""
    return to_jsonable_python(value)


def read_match(state: dict[str, Any]) -> dict[str, Any]:
    """Validate ``state["match"]`` (a match file's JSON) and start the walk: returns ``{"match": view,
    "stages": its stages, "next_stage": 0}``. Raises :class:`GraphInputError` (one line naming the
    field) for a missing or invalid match."""
    if "match" not in state:
        raise GraphInputError("input: field match is required", 'give {"match": <the JSON of a match file>}')
    try:
        view = parse_match(_jsonable(state["match"]), "input.match").view()
    except InputError as exc:
        raise GraphInputError.of(exc) from None
    return {"match": view, "stages": Overwrite(list(view.stages)), "next_stage": 0}


_STATE_KEYS = ("stages", "next_stage", "clashes", "analyses", "calls", "failures")  # a Battlefield's keys after the match header
_REDUCED = {"stages", "clashes", "analyses", "calls", "failures"}  # BattlefieldState keys with a reducer


def read_battlefield(state: PanelInput) -> dict[str, Any]:
    """Validate each key of ``state["battlefield"]`` (a clash-tracking state as JSON) with its type in
    :class:`~adjudicator.verdict.battlefield.BattlefieldState`, the header ``match`` as a match file in
    progress (labels dropped; it may have fewer stages than its format's order, or none). Returns the
    validated values for the state (and clears ``battlefield``). Raises
    :class:`GraphInputError` naming the field."""
    given = _jsonable(state.get("battlefield"))
    if not isinstance(given, dict) or "match" not in given:
        raise GraphInputError("input: field battlefield.match is required", 'give {"battlefield": <a clash-tracking state>}, e.g. the output of the clash_tracking graph')
    hints = get_type_hints(BattlefieldState, include_extras=True)
    try:
        header = Match.model_validate(given["match"], context={"partial": True}).view()
    except ValidationError as exc:
        raise GraphInputError(describe_validation_error(exc, "input.battlefield.match")) from None
    out: dict[str, Any] = {"match": header, "battlefield": None}
    for key in _STATE_KEYS:
        if key not in given:
            continue
        annotation = hints[key].__origin__ if key in _REDUCED else hints[key]  # Annotated[T, reducer] -> T
        try:
            value = TypeAdapter(annotation).validate_json(json.dumps(given[key], ensure_ascii=False))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise GraphInputError(f"input: field battlefield.{key}{'.' + loc if loc else ''}: {err['msg']}") from None
        out[key] = Overwrite(value) if key in _REDUCED else value
    return out
