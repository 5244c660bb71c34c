"""The arms of a run as the manifest records them: per arm the model behind each role, the hash of
every prompt template it uses, and whether it calls a language model.

Arms (:data:`adjudicator.api.ARMS`): ``agentic`` (the tracker and the judge panel of
:func:`adjudicator.api.build_context`) and ``single-call`` (the CCDB single-call protocol, which needs
a language model). Describing an arm builds its context but makes no model call.
"""

from __future__ import annotations

from typing import Any

from adjudicator.api import ARMS
from adjudicator.errors import InputError

#: (arm -> role -> model, arm -> template -> hash, arm -> calls a language model), as in the manifest.
ArmDescriptions = tuple[dict[str, dict[str, str]], dict[str, dict[str, str]], dict[str, bool]]


def _context_description(config: Any) -> tuple[dict[str, str], dict[str, str], bool]:
    """(role -> model, template -> hash, is_llm) of the agentic arm under ``config``. Building the
    context makes no model call."""
    from adjudicator.api import build_context
    from adjudicator.input.formats import FORMATS

    ctx = build_context(config)
    backends = [ctx.tracker, *ctx.judges.values()]
    hashes: dict[str, str] = {}
    for b in backends:
        hashes.update(b.prompt_hashes())
        for name in (n for n, f in FORMATS.items() if f.templates):  # formats with their own templates (BP)
            hashes.update(b.prompt_hashes(name))
    return ctx.model_names(), dict(sorted(hashes.items())), any(b.is_llm for b in backends)


def _single_call_description(config: Any) -> tuple[dict[str, str], dict[str, str]]:
    """(role -> model, template -> hash) of the single-call arm: every task uses ``config.model``;
    the hashes cover the Chinese and English templates and the BP tasks' templates."""
    from adjudicator.model.prompts import PromptStore
    from adjudicator.single_call.ranking import ranking_template_hashes
    from adjudicator.single_call.tasks import template_hashes

    model = str(getattr(config, "model", "") or "")
    store = PromptStore()
    hashes = {**template_hashes(store, "zh"), **template_hashes(store, "en"), **ranking_template_hashes(store, "en")}
    return {"single-call": model}, dict(sorted(hashes.items()))


def describe_arms(arms: list[str], config: Any) -> ArmDescriptions:
    """Models, prompt hashes and LLM flag per arm. Raises InputError for an unknown arm and for the
    single-call arm on the offline judge (the protocol needs a language model)."""
    models: dict[str, dict[str, str]] = {}
    hashes: dict[str, dict[str, str]] = {}
    is_llm: dict[str, bool] = {}
    agentic_models, agentic_hashes, llm = _context_description(config)
    for arm in arms:
        if arm not in ARMS:
            raise InputError(f"--arm: unknown arm {arm!r}", f"use one of {', '.join(ARMS)}")
        if arm == "agentic":
            models[arm], hashes[arm], is_llm[arm] = agentic_models, agentic_hashes, llm
        else:
            from adjudicator.config import is_offline

            if is_offline(getattr(config, "model", None)):
                raise InputError(
                    "--arm single-call: the CCDB single-call protocol needs a language model, but the model is the offline judge",
                    "give --model (e.g. --model deepseek/deepseek-chat, or --model openai/NAME --api-base URL)",
                )
            models[arm], hashes[arm] = _single_call_description(config)
            is_llm[arm] = True
    return models, hashes, is_llm
