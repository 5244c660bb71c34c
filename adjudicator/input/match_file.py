"""Reading a match file: size and encoding checks, the strict JSON reader, validation, one-line errors.

:func:`load_match` reads a file and :func:`parse_match` validates an already decoded JSON value as a
:class:`~adjudicator.input.match.Match`; both raise :class:`~adjudicator.errors.InputError` (exit
code 2) with one line naming the file and the field (:mod:`adjudicator.input.field_errors`).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from adjudicator.errors import InputError
from adjudicator.input.field_errors import describe_validation_error
from adjudicator.input.jsontext import read_json
from adjudicator.input.match import Match

#: Largest match file accepted (bytes). A CCDB 4v4 match is ~100 KB; a larger file is almost
#: certainly not one match, and its text would be sent to a model several times.
MAX_MATCH_BYTES = 8 * 1024 * 1024


def parse_match(data: object, source: str = "match") -> Match:
    """Validate a decoded JSON value as a :class:`Match`. Raises :class:`InputError` with one line."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: the top level must be a JSON object describing one match", "see `adjudicate schema`")
    try:
        return Match.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, source)) from None


def load_match(path: str | Path) -> Match:
    """Read and validate a match file.

    Raises :class:`InputError` (one line, exit code 2) for: a missing file, a directory, bytes that
    are not UTF-8, invalid JSON, nesting deeper than :data:`~adjudicator.input.jsontext.MAX_JSON_DEPTH`, a
    key given twice in one object (:func:`~adjudicator.input.jsontext.read_json`), and any schema or
    consistency violation (naming the field path).
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file", "give the path of a match .json file")
    if p.is_dir():
        raise InputError(f"{p}: is a directory", "give the path of one match .json file (use `adjudicate bench` for a folder)")
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror})") from None
    if size > MAX_MATCH_BYTES:
        raise InputError(
            f"{p}: {size / 2**20:.1f} MiB is larger than the {MAX_MATCH_BYTES // 2**20} MiB a match file may be",
            "give one match per file (a CCDB match is about 0.1 MiB)",
        )
    try:
        raw = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: not UTF-8 text (byte {exc.start})", "save the match file as UTF-8") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror})") from None
    return parse_match(read_json(raw, str(p)), str(p))
