"""The runtime context of the graphs LangGraph's tools run (``langgraph dev``, Studio, the LangGraph
API): serialisable settings that arrive as JSON (the run's ``context``), from which the backends are
built when a node first asks for them.

Every field is optional; an unset field is resolved as the command line resolves an unset flag
(``ADJUDICATOR_*`` environment, then the config file, then the default), so with nothing configured
every role is the offline judge. ``{"model": "deepseek/deepseek-chat"}`` seats that model as tracker
and judges; ``judge_models`` seats a mixed panel (see :mod:`adjudicator.config`). Keys come from the
providers' usual variables, never from the context.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from adjudicator.api import build_context
from adjudicator.config import JsonMode, ModelConfig, PanelMode
from adjudicator.errors import ConfigError
from adjudicator.judges.base import Backend
from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.json_input import GraphInputError


@dataclass(frozen=True)
class GraphSettings:
    """Serialisable settings of one run (model names and how to call them; None = unset). Satisfies
    :class:`adjudicator.workflow.context.Backends`: ``tracker``, ``judges``, ``perspectives`` and
    ``model_names()`` come from the context :func:`adjudicator.api.build_context` builds for them.
    Raises :class:`~adjudicator.workflow.json_input.GraphInputError` (a ConfigError's one line) on
    first use for an unusable model setting, before any model call."""

    model: str | None = None
    tracker_model: str | None = None
    judge_models: list[str] = field(default_factory=list)
    api_base: str | None = None
    json_mode: JsonMode | None = None
    timeout_s: float | None = None
    no_cache: bool | None = None
    panel: PanelMode | None = None

    @functools.cached_property
    def context(self) -> AdjudicationContext:
        """The backends for these settings (built once per settings object, i.e. once per run)."""
        try:
            config = ModelConfig.resolve(
                model=self.model, tracker_model=self.tracker_model, judge_models=list(self.judge_models) or None, api_base=self.api_base,
                json_mode=self.json_mode, timeout_s=self.timeout_s, no_cache=self.no_cache, panel=self.panel,
            )  # fmt: skip
            return build_context(config, check_models=True)  # a bad model or missing key stops the run before any request
        except ConfigError as exc:
            raise GraphInputError.of(exc) from None

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
