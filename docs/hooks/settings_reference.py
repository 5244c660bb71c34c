"""MkDocs hook: renders the references that the code declares, so the manual cannot drift from it.

``<!-- format-order: NAME -->`` becomes the declared speaking order of format NAME
(:data:`adjudicator.input.formats.FORMATS`): one row per stage with its type, sides, speakers and phase.

A page that holds the line ``<!-- settings-table -->`` gets, in its place, one row per field of
:class:`adjudicator.config.ModelConfig`: the config-file key (the field name), the command-line flag
(found on the ``adjudicate run`` click command, the one that takes every model option), the
``ADJUDICATOR_*`` variable (:data:`adjudicator.config.ENV_VARS`), the allowed values, the default
and the field's description. A field without a description stops the build: a new setting is
documented where it is declared, once.
"""

from __future__ import annotations

import re
import typing
from typing import Any

MARKER = "<!-- settings-table -->"
FORMAT_MARKER = re.compile(r"<!-- format-order: ([a-z0-9-]+) -->")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, settings_table())
    return FORMAT_MARKER.sub(lambda m: format_order(m.group(1)), markdown)


def format_order(name: str) -> str:
    """The Markdown table of a format's declared stages (raises KeyError for an unknown format)."""
    from adjudicator.input.formats import FORMATS

    spec = FORMATS[name]
    bp = spec.verdict == "ranking"
    head = ["#", "stage", "type", "house and speech" if bp else "sides", "speakers", "phase"] + ([] if bp else ["中文"])
    rows = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for i, slot in enumerate(spec.order, 1):
        who = f"{slot.unit} ({slot.abbr}, {slot.speech_role})" if bp else ", ".join(slot.sides) + (f" (questioner: {slot.questioner})" if slot.questioner else "")
        cells = [str(i), slot.name, f"`{slot.type}`", who, ", ".join(slot.speakers) or "every debater of both sides", slot.phase] + ([] if bp else [slot.name_zh])
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def settings_table() -> str:
    """The Markdown table of every setting (raises ValueError naming a field that has no description)."""
    from adjudicator.config import ENV_VARS, ModelConfig

    env_of = {setting: var for var, setting in ENV_VARS.items()}
    flags = _run_flags()
    rows = ["| setting (config file) | flag | environment | values | default | meaning |", "| --- | --- | --- | --- | --- | --- |"]
    for name, info in ModelConfig.model_fields.items():
        flag = flags.get(name)
        description = info.description or _INTERIM.get(name) or (flag[1] if flag else None)
        if not description:
            raise ValueError(f"ModelConfig.{name} has no description: give it Field(description=...) in adjudicator/config.py")
        env = env_of.get(name)
        cells = [
            f"`{name}`",
            f"`{flag[0]}`" if flag else "",
            f"`{env}`" if env else "",
            _values(info),
            _default(info),
            description.replace("|", "\\|").replace("\n", " "),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


#: Until the settings model carries its own descriptions (issue 24, part B), the settings that no
#: flag offers are described here.
_INTERIM = {
    "temperature": "sampling temperature of every request",
    "max_tokens": "one completion budget for every request; unset: each node's own budget (1,280 tokens for a tracker, 1,536 for a judge, "
    "1,024 for a single-call task); set it higher for reasoning models",
    "transport_retries": "re-sends after a transport fault (429, 5xx, timeout, refused connection)",
    "backoff_base_s": "the first backoff wait before a re-send, in seconds",
    "seed": "a sampling seed sent with every request and part of its cache key (unset: none sent); not `bench --seed`, which seeds the baselines and the bootstrap",
}


def _run_flags() -> dict[str, tuple[str, str]]:
    """Setting name -> (flag, help text) of the ``run`` command's options."""
    from adjudicator import config as settings
    from adjudicator.cli.run import run_cmd

    options = {p.name: p for p in run_cmd.params if getattr(p, "opts", None) and p.opts[0].startswith("--")}
    named = {flag: setting for setting, flag in getattr(settings, "_FLAGS", {}).items()}
    found: dict[str, tuple[str, str]] = {}
    for param_name, option in options.items():
        flag = max(option.opts, key=len)
        setting = named.get(flag, param_name)
        found[setting] = (flag + (f" {option.metavar}" if option.metavar else ""), getattr(option, "help", "") or "")
    return found


def _values(info: Any) -> str:
    """Allowed values (a Literal's members) and ranges (ge/gt/le/lt constraints), as text."""
    annotation = info.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    literal = next((a for a in args if typing.get_origin(a) is typing.Literal), None)
    if literal is not None:
        return ", ".join(f"`{v}`" for v in typing.get_args(literal))
    bounds = []
    for meta in info.metadata:
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            if getattr(meta, attr, None) is not None:
                bounds.append(f"{sign} {getattr(meta, attr)}")
    kind = {str: "text", bool: "true/false", int: "integer", float: "number"}.get(args[0], "")
    if typing.get_origin(args[0]) is tuple:
        kind = "list of text"
    elif getattr(args[0], "__name__", "") == "Path":
        kind = "path"
    return ", ".join([kind, *bounds]) if kind else ", ".join(bounds)


def _default(info: Any) -> str:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if "default_text" in extra:
        return str(extra["default_text"])
    if info.default_factory is not None:
        return "computed"
    value = info.default
    if value is None or value == ():
        return "unset"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    return f"`{value}`"
