"""Untrusted TOML text and the one front for every structured file we read (JSON, YAML, TOML).

:func:`read_toml` is :mod:`tomllib` with the limits of the match file's JSON reader
(:mod:`adjudicator.input.jsontext`): nesting deeper than
:data:`~adjudicator.input.jsontext.MAX_JSON_DEPTH` levels is refused (tomllib recurses once per level, so
5,000 nested arrays ended in ``RecursionError``), and so are ``inf``, ``nan`` and a number too large
for a float. A key given twice is refused by tomllib itself.

:func:`read_document` reads a config, rubric or PanelBench file of any of the three formats through its
strict reader, after refusing a file over :data:`MAX_DOCUMENT_BYTES`, so every input file gets the same
rules and the same one-line errors (:class:`~adjudicator.errors.InputError`, exit code 2).
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

from adjudicator.errors import InputError
from adjudicator.input.jsontext import MAX_JSON_DEPTH, nesting_depth, read_json
from adjudicator.input.yamltext import load_yaml

#: The largest config, rubric or PanelBench file read (bytes): 8 MiB, as a match file
#: (:data:`~adjudicator.input.match.MAX_MATCH_BYTES`). A config or a rubric is a few KB and the
#: longest PanelBench speech file about 100 KB.
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024


class _NotFinite(ValueError):
    """Raised inside tomllib by :func:`_finite_float` (reported with the file's name)."""


def _finite_float(text: str) -> float:
    """tomllib's float hook: the float of ``text``, or :class:`_NotFinite` for ``inf``, ``nan`` and a
    number beyond a float's range (``1e999``)."""
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def read_toml(text: str, source: str) -> dict[str, Any]:
    """``text`` parsed as TOML. Raises :class:`InputError` (one line naming ``source``) for invalid TOML
    (tomllib's message, which names the line), a key given twice, nesting deeper than
    :data:`~adjudicator.input.jsontext.MAX_JSON_DEPTH` and a number that is not finite."""
    try:
        data = tomllib.loads(text, parse_float=_finite_float)
    except _NotFinite as exc:
        raise InputError(f"{source}: {exc} is not a finite number", "write a finite number") from None
    except RecursionError:
        raise InputError(f"{source}: nested deeper than {MAX_JSON_DEPTH} levels", "flatten the data") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: invalid TOML ({exc})", "fix the syntax") from None
    if nesting_depth(data) > MAX_JSON_DEPTH:
        raise InputError(f"{source}: nested deeper than {MAX_JSON_DEPTH} levels", "flatten the data")
    return data


def read_document(text: str, source: str, suffix: str) -> Any:
    """``text`` read by the strict reader of its format: ``.json`` (:func:`~adjudicator.input.jsontext.read_json`),
    ``.toml`` (:func:`read_toml`), anything else YAML (:func:`~adjudicator.input.yamltext.load_yaml`).
    Raises :class:`InputError` naming ``source``."""
    suffix = suffix.lower()
    if suffix == ".json":
        return read_json(text, source)
    if suffix == ".toml":
        return read_toml(text, source)
    return load_yaml(text, source)


def read_document_file(path: Path, suffix: str | None = None) -> Any:
    """The file at ``path`` read by :func:`read_document` for ``suffix`` (default: the file's own).
    Raises :class:`InputError` naming the file when it is missing or unreadable, larger than
    :data:`MAX_DOCUMENT_BYTES`, not UTF-8, or refused by its reader."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_DOCUMENT_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return read_document_bytes(raw, str(path), suffix or path.suffix)


def read_document_bytes(raw: bytes, source: str, suffix: str) -> Any:
    """``raw`` (at most :data:`MAX_DOCUMENT_BYTES` + 1 bytes read from ``source``: a file, or ``-`` for
    standard input) decoded as UTF-8 and read by :func:`read_document`. Raises :class:`InputError`
    naming ``source`` when it is larger than :data:`MAX_DOCUMENT_BYTES`, not UTF-8, or refused."""
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise InputError(f"{source}: larger than {MAX_DOCUMENT_BYTES // 2**20} MiB, the most a file we read may hold", "give the file it is meant to be")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{source}: not UTF-8 text (byte {exc.start})", "save the file as UTF-8") from None
    return read_document(text.removeprefix("\ufeff"), source, suffix)
