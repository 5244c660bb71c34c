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
        description = info.description
        if not description:
            raise ValueError(f"ModelConfig.{name} has no description: give it Field(description=...) in adjudicator/config.py")
        env = env_of.get(name)
        cells = [
            f"`{name}`",
            f"`{flag}`" if flag else "",
            f"`{env}`" if env else "",
            _values(info),
            _default(info),
            description.replace("|", "\\|").replace("\n", " "),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _run_flags() -> dict[str, str]:
    """Setting name -> the ``run`` command's flag for it (with its metavar)."""
    from adjudicator import config as settings
    from adjudicator.cli.run import run_cmd

    options = {p.name: p for p in run_cmd.params if getattr(p, "opts", None) and p.opts[0].startswith("--")}
    named = {flag: setting for setting, flag in settings.FLAGS.items()}
    found: dict[str, str] = {}
    for param_name, option in options.items():
        flag = max(option.opts, key=len)
        setting = named.get(flag, param_name)
        found[setting] = flag + (f" {option.metavar}" if option.metavar else "")
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
