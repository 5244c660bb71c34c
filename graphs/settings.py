"""The runtime context of the graphs LangGraph's tools run (``langgraph dev``, Studio, the LangGraph
API): the settings of one run, arriving as JSON (the run's ``context``), from which the backends are
built when a node first asks for them.

:data:`GraphSettings` is derived from the settings model, :class:`adjudicator.config.ModelConfig`:
one field per setting, with its type, range, default and description, so a new setting appears in
Studio's form as it appears in the command line and the settings reference, without a second list.
Three settings are left out (:data:`SERVER_SETTINGS`): they choose the server's own secrets and files,
so they come from its environment or config file, never from whoever starts a run.

Every field is optional; a field the run does not set is resolved as the command line resolves an
unset flag (``ADJUDICATOR_*`` environment, then the config file, then the default shown), so with
nothing configured every role is the offline judge. Keys come from the providers' usual variables,
never from the context.

Unknown keys are refused with one line naming them (:func:`check_context_keys`), both when the
compiled graph is called in process (``graph.invoke(..., context={...})``) and through the LangGraph
API server, which drops keys its context schema lacks before the graph sees them: the graph factories
in :mod:`graphs.adjudication`, :mod:`graphs.tracking` and :mod:`graphs.panel` check the run's context
as the server received it.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from langgraph.pregel import Pregel
from langgraph_sdk.runtime import ServerRuntime  # the server finds a factory's runtime parameter by this annotation
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from adjudicator.api import build_context
from adjudicator.config import ModelConfig, PanelMode
from adjudicator.errors import ConfigError
from adjudicator.input.field_errors import describe_validation_error
from adjudicator.judges.base import Backend
from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.json_input import GraphInputError

#: Settings a run's context may not set: ``api_key_env`` would let a caller send any of the server's
#: environment variables to an ``api_base`` of its choosing; ``config_file`` and ``cache_dir`` name
#: files and folders of the server to read and write. The server's environment and config file set them.
SERVER_SETTINGS = frozenset({"api_key_env", "config_file", "cache_dir"})

#: Context keys of LangGraph's own (its reserved prefixes), passed through untouched.
_LANGGRAPH_PREFIXES = ("__", "langgraph_")


class _RunSettings(BaseModel):
    """Settings of this run: which language models track the clashes and judge, and how they are
    called. Leave a setting out to use the server's ADJUDICATOR_* environment, then its config file,
    then the default shown. With nothing set the judge is the offline judge, a deterministic baseline
    that needs no model, key or network. API keys are never set here: the server reads each provider's
    usual variable."""

    model_config = ConfigDict(frozen=True, extra="forbid", title="Run settings", field_title_generator=lambda name, _info: setting_title(name))

    def __init__(self, **values: Any) -> None:
        """Raises :class:`GraphInputError` (one line naming the key) for an unknown key or a value of
        the wrong type or range, before any model call."""
        check_context_keys(values)
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise GraphInputError(describe_validation_error(exc, "context")) from None

    @functools.cached_property
    def context(self) -> AdjudicationContext:
        """The backends for these settings (built once per settings object, i.e. once per run): the
        settings the run set, above the server's environment, config file and defaults."""
        try:
            given = {name: getattr(self, name) for name in self.model_fields_set}
            config = ModelConfig.resolve_values(given, source="context")
            return build_context(config, check_models=True)  # a bad model or missing key stops the run before any request
        except ConfigError as exc:
            raise GraphInputError.of(exc) from None

    # -- adjudicator.workflow.context.Backends ---------------------------------------------------

    @property
    def tracker(self) -> Backend:
        return self.context.tracker

    @property
    def judges(self) -> Mapping[str, Backend]:
        return self.context.judges

    @property
    def perspectives(self) -> Mapping[str, str]:
        return self.context.perspectives

    @property
    def panel_mode(self) -> PanelMode:
        return self.context.panel_mode

    def model_names(self) -> dict[str, str]:
        """Role -> model name, e.g. {"tracker": "offline", "judge-1": "offline", ...}."""
        return self.context.model_names()


_TITLE_WORDS = {"api": "API", "json": "JSON", "p": "p", "s": "(s)"}


def setting_title(name: str) -> str:
    """A setting's label in Studio's form: ``timeout_s`` -> "Timeout (s)", ``api_base`` -> "API base"."""
    words = [_TITLE_WORDS.get(w, w) for w in name.split("_")]
    first = words[0] if words[0] in _TITLE_WORDS.values() else words[0].capitalize()
    return " ".join([first, *words[1:]])


def _context_fields() -> dict[str, Any]:
    """Setting name -> (type, field) for every setting a run may set: the settings model's own field
    (default, range, description), with a list where the model keeps a tuple (JSON has lists)."""
    fields: dict[str, Any] = {}
    for name, info in ModelConfig.model_fields.items():
        if name in SERVER_SETTINGS:
            continue
        field = copy.copy(info)
        annotation = info.annotation
        if name == "judge_models":
            annotation, field.default = list[str], []
            field.metadata = []  # pydantic-settings' NoDecode marker: the context is JSON already
        fields[name] = (annotation, field)
    return fields


#: The context schema of every graph in ``langgraph.json`` (a pydantic model; Studio's form).
GraphSettings: type[_RunSettings] = create_model("GraphSettings", __base__=_RunSettings, __doc__=" ".join((_RunSettings.__doc__ or "").split()), **_context_fields())


def check_context_keys(keys: Iterable[str]) -> None:
    """Raise :class:`GraphInputError` naming every key that is not a setting a run may set (LangGraph's
    own ``__``/``langgraph_`` keys excepted); :data:`SERVER_SETTINGS` get their own hint."""
    unknown = sorted(k for k in keys if k not in GraphSettings.model_fields and not k.startswith(_LANGGRAPH_PREFIXES))
    if not unknown:
        return
    names = ", ".join(repr(k) for k in unknown)
    if set(unknown) <= SERVER_SETTINGS:
        raise GraphInputError(f"context: {names} cannot be set by a run", "the server's ADJUDICATOR_* environment or config file sets it")
    raise GraphInputError(f"context: unknown setting {names}", f"known settings: {', '.join(GraphSettings.model_fields)}")


def server_factory(graph: Pregel) -> Callable[..., Pregel]:
    """The graph factory ``langgraph.json`` names for ``graph``: the LangGraph API server calls it with
    the run's runtime before it drops the context keys its schema lacks, so an unknown key fails the
    run here, naming it (:func:`check_context_keys`). For reads (schemas, the graph's picture) the
    runtime has no context and the graph is returned as it is."""

    def make_graph(runtime: ServerRuntime) -> Pregel:
        context = getattr(runtime, "context", None)
        if isinstance(context, Mapping):
            check_context_keys(context)
        return graph

    return make_graph
