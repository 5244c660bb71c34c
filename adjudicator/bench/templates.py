"""The report pages' Jinja2 templates, compiled once per version of their text rather than once per
process.

Compiling report.html's template and the samples section's (Jinja2 parses them and generates and
compiles Python code) costs about 0.2 s of CPU, more than rendering them; a bench whose samples all
came from the caches would spend that on every run. :func:`report_environment` gives an
environment whose compiled code is kept in ``~/.cache/adjudicator/templates``
(:func:`adjudicator.environment.default_template_cache_dir`, ``$XDG_CACHE_HOME`` honoured), one file per
template text, as Python keeps ``.pyc`` files: the file's name is a hash of the template's source
(Jinja2's checksum), its name, the environment's options, Jinja2's version and Python's bytecode
magic number (and this module's bytes, which hold the options), so an edited template, another Jinja2 or another Python compiles again. A file that
cannot be read or written, or does not hold code, only means compiling again (no error is raised);
at most :data:`TEMPLATE_CACHE_ENTRIES` are kept; deleting the folder is always safe.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import types
from pathlib import Path
from typing import Any

import jinja2

from adjudicator.files import atomic_write_bytes, prune_oldest_files

#: Compiled templates kept (the newest by modification time); two are in use at a time.
TEMPLATE_CACHE_ENTRIES = 32


class DiskTemplateCode(jinja2.BytecodeCache):
    """A Jinja2 bytecode cache of marshalled code objects in ``folder`` (module docstring); ``salt``
    names the environment's options, so two environments never share code."""

    def __init__(self, folder: Path, salt: str) -> None:
        self.folder = folder
        module = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()  # the options below are in this file
        self.salt = f"{salt}|{module}|jinja2 {jinja2.__version__}|python {importlib.util.MAGIC_NUMBER.hex()}"

    def _path(self, bucket: Any) -> Path:
        digest = hashlib.sha256(f"{self.salt}|{bucket.key}|{bucket.checksum}".encode()).hexdigest()
        return self.folder / f"{digest}.code"

    def load_bytecode(self, bucket: Any) -> None:
        """Fill ``bucket`` with the stored code, when there is a readable file holding code."""
        try:
            code = marshal.loads(self._path(bucket).read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return
        if isinstance(code, types.CodeType):
            bucket.code = code

    def dump_bytecode(self, bucket: Any) -> None:
        """Store the bucket's code (atomically), then drop the oldest beyond the bound."""
        try:
            atomic_write_bytes(self._path(bucket), marshal.dumps(bucket.code))
            prune_oldest_files(self.folder, "*.code", TEMPLATE_CACHE_ENTRIES)
        except (OSError, ValueError):
            pass


def report_environment(templates: dict[str, str], folder: Path | None = None) -> jinja2.Environment:
    """An autoescaping, strict-undefined Jinja2 environment over ``templates`` (name -> source text;
    load one with ``env.get_template(name)``) whose compiled code is cached in ``folder`` (default
    :func:`adjudicator.environment.default_template_cache_dir`)."""
    if folder is None:
        from adjudicator.environment import default_template_cache_dir

        folder = default_template_cache_dir()
    return jinja2.Environment(
        loader=jinja2.DictLoader(templates), autoescape=True, undefined=jinja2.StrictUndefined,
        bytecode_cache=DiskTemplateCode(folder, "report autoescape strict-undefined"),
    )
