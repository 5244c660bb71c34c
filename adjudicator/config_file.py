"""The config file: where it is and what it may hold.

One resolution of the settings (:meth:`adjudicator.config.ModelConfig.resolve`) reads at most one file:
``--config FILE``, else ``$ADJUDICATOR_CONFIG``, else the default location
``$XDG_CONFIG_HOME/adjudicator/config.toml`` (``~/.config/...``; a ``config.yaml`` / ``config.yml``
there is read too) when it exists. TOML is read with the standard library, YAML with the strict reader
(:mod:`adjudicator.input.yamltext`, a key given twice is refused). Unknown settings are refused, so
a typo never silently leaves a default in place.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from adjudicator.environment import CONFIG_ENV, variables
from adjudicator.errors import ConfigError


def default_config_path(env: Mapping[str, str] | None = None) -> Path | None:
    """The first existing default config file: ``$XDG_CONFIG_HOME/adjudicator/config.{toml,yaml,yml}``
    (``~/.config`` when XDG_CONFIG_HOME is unset), or None."""
    env = variables(env)
    base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or os.path.expanduser("~")) / ".config")
    for name in ("config.toml", "config.yaml", "config.yml"):
        p = base / "adjudicator" / name
        if p.is_file():
            return p
    return None


def config_path(flag: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path | None:
    """The config file one resolution reads: ``--config`` (``flag``), else ``$ADJUDICATOR_CONFIG``, else
    :func:`default_config_path`; None when there is none. A named file that does not exist is a ConfigError."""
    if flag is not None:
        p = Path(flag).expanduser()
        if not p.is_file():
            raise ConfigError(f"--config {p}: no such file", "give the path of a TOML or YAML config file")
        return p
    if env.get(CONFIG_ENV):
        p = Path(env[CONFIG_ENV]).expanduser()
        if not p.is_file():
            raise ConfigError(f"{CONFIG_ENV}={p}: no such file", "point it at a TOML or YAML config file or unset it")
        return p
    return default_config_path(env)


def read_config_file(path: Path, known: frozenset[str]) -> dict[str, Any]:
    """The settings in the TOML or YAML (by suffix) file ``path``, at top level or under an
    ``[adjudicator]`` table, read by the strict readers every input file goes through
    (:func:`~adjudicator.input.tomltext.read_document_file`: size, nesting, YAML aliases, numbers that
    are not finite). Raises ConfigError (one line naming the file) when it cannot be read, is not valid
    TOML/YAML, breaks those limits, names a setting twice (YAML; TOML refuses that itself) or one not in
    ``known``."""
    from adjudicator.errors import InputError
    from adjudicator.input.tomltext import read_document_file
    from adjudicator.input.yamltext import DuplicateKey

    try:
        data: Any = read_document_file(path, ".yaml" if path.suffix.lower() in (".yaml", ".yml") else ".toml")
    except DuplicateKey as exc:
        raise ConfigError(f"{path}: setting {exc.key!r} given twice (line {exc.line})", "keep one; which is meant cannot be guessed") from None
    except InputError as exc:
        raise ConfigError(exc.message, exc.hint or "fix the syntax") from None
    if data is None:  # an empty YAML file
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a table of settings")
    if isinstance(data.get("adjudicator"), dict):
        data = data["adjudicator"]
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown setting {unknown[0]!r}", f"known settings: {', '.join(sorted(known))}")
    return data
