"""Prompt templates: loading, strict rendering, content hashes and transcript fencing.

Every prompt is a Jinja2 file in the repository's ``prompts/`` folder, named after the node that
uses it and the language: ``track_stage.zh.j2``, ``judge.en.j2`` ... (Chinese for ``ccdb-*``
formats, English for ``online-1v1``; :func:`prompt_language`). A template defines two blocks,
``system`` and ``user``, rendered into the two chat messages. Rendering uses ``StrictUndefined``:
a variable the caller forgot is an error, never an empty string.

A *partial* (a file named ``_*.j2``, e.g. ``_ledger.en.j2``) holds macros that templates import or
include; it is not rendered on its own. Each template's *content hash* (first 16 hex digits of a
SHA-256 over its file bytes and those of every partial it references, :meth:`PromptStore.template_hash`)
is recorded with every call and in the verdict's provenance, and enters the cache key, so changing a
partial changes the hash of every template that uses it.

Untrusted text (transcripts, and anything derived from them) is put inside a fence by the
``fence`` filter: a pair of marker lines ``<<<NAME-xxxxxxxx>>>`` / ``<<<END NAME-xxxxxxxx>>>``.
The code is the render's ``fence_code`` variable when the caller gives one -- the match's
(:func:`match_fence_code`), so every request of a match opens its fences with the same line and a
provider's prompt cache can serve a fenced prefix that two requests share (docs/cost.md) -- else a
hash of the fenced text; either way deterministic, so cache keys are stable. Before fencing, every
run of three or more ``<`` or ``>`` in the text is replaced by the look-alike ``‹``/``›``, so the
text cannot contain any marker line at all and therefore cannot close the fence, whatever code it
guesses: the code is a label, not a secret. Utterances are written one per line as ``speaker: text`` with continuation
lines indented, so a line break inside an utterance cannot fake another speaker's turn.

Parsing and compiling a template is the costly part of a store (a bench builds one per sample), so
both are remembered process-wide by the template's text: its compiled code (a Jinja2 bytecode cache
keyed by name and a checksum of the source) and the templates it references or extends (keyed by
the source itself; also kept across processes in ``~/.cache/adjudicator/templates`` under a hash of
the text and Jinja2's version, so a rerun that only hashes the prompts parses none). A file that
changes is parsed afresh; an unchanged one never twice.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adjudicator.environment import prompts_dir_override
from adjudicator.errors import ConfigError
from adjudicator.input.formats import get_format

#: The repository's prompts folder (installs are editable); ``ADJUDICATOR_PROMPTS_DIR`` overrides it.
DEFAULT_PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"

_RUN_LT = re.compile(r"<{3,}")
_RUN_GT = re.compile(r">{3,}")


def prompts_dir() -> Path:
    """``$ADJUDICATOR_PROMPTS_DIR`` when set, else the repository's ``prompts/`` folder (editable
    installs and checkouts), else ``<sys.prefix>/share/adjudicator/prompts`` where a wheel install
    puts the same files (pyproject ``data-files``)."""
    override = prompts_dir_override()
    if override is not None:
        return override
    if DEFAULT_PROMPTS_DIR.is_dir():
        return DEFAULT_PROMPTS_DIR
    return Path(sys.prefix) / "share" / "adjudicator" / "prompts"


def prompt_language(format_name: str) -> str:
    """``"zh"`` for the CCDB formats, ``"en"`` for ``online-1v1`` (the format spec's language)."""
    return get_format(format_name).language


def neutralise(text: str) -> str:
    """``text`` with every run of 3+ ``<`` or ``>`` replaced by as many ``‹`` / ``›``, so it cannot
    contain a fence marker."""
    text = _RUN_LT.sub(lambda m: "‹" * len(m.group(0)), text)
    return _RUN_GT.sub(lambda m: "›" * len(m.group(0)), text)


def fence_code(text: str) -> str:
    """The 8-hex-digit code of a fence around ``text`` (from its SHA-256; deterministic)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def match_fence_code(view: Any) -> str:
    """The fence code of every fence in a match's prompts: 8 hex digits of the SHA-256 of what the
    match's header says (format, motion, both positions, debater labels), which every request of
    the match shows and which stays the same while a live match grows stage by stage. ``view``: a
    :class:`~adjudicator.input.match.MatchView`."""
    head = "\x1f".join([view.format, view.motion, view.affirmative_position, view.negative_position, *view.debater_labels()])
    return fence_code(head)


def fence(text: str, name: str = "TRANSCRIPT", code: str | None = None) -> str:
    """``text`` neutralised and wrapped in ``<<<NAME-code>>>`` ... ``<<<END NAME-code>>>`` lines.

    ``name`` is upper-cased and reduced to ``A-Z0-9_``; ``code`` is the given one (8 hex digits,
    :func:`match_fence_code`), else :func:`fence_code` of the neutralised text. The text inside
    can contain no ``<<<`` or ``>>>`` (see :func:`neutralise`), so no marker inside it can end the
    fence. Raises ValueError for a code that is not 8 lowercase hex digits.
    """
    label = re.sub(r"[^A-Z0-9_]", "_", name.upper()) or "TEXT"
    body = neutralise(text if text is not None else "")
    if code is not None and not re.fullmatch(r"[0-9a-f]{8}", code):
        raise ValueError(f"a fence code is 8 lowercase hex digits, got {code!r}")
    tag = f"{label}-{code or fence_code(body)}"
    return f"<<<{tag}>>>\n{body}\n<<<END {tag}>>>"


def utterance_lines(utterances: Iterable[Any]) -> str:
    """Utterances one per line as ``speaker: text``; a line break inside an utterance is kept but the
    continuation is indented by four spaces, so only a turn starts a line with a speaker label.
    ``utterances`` are :class:`~adjudicator.input.stages.Utterance` objects (``speaker``, ``text``); a
    machine transcript's utterance without a known speaker is labelled by its side, else
    ``unattributed`` (the tracker's prompt says what those mean)."""
    lines = []
    for u in utterances:
        parts = [p.strip() for p in str(u.text).strip().splitlines()] or [""]
        body = "\n    ".join(p for p in parts if p) or "(silence)"
        who = u.speaker if u.speaker is not None else (getattr(u, "side", None) or "unattributed")  # Utterance.who
        lines.append(f"{who}: {body}")
    return "\n".join(lines)


#: Source text -> the templates it references (``None`` for a name computed at render time) and
#: whether it extends another; filled by :func:`_references` (entries are never stale: the key is the text).
_REFERENCES: dict[str, tuple[tuple[str | None, ...], bool]] = {}

#: Reference records kept on disk (the newest by modification time); the prompts folder has about 50 files.
REFERENCE_CACHE_ENTRIES = 256


def _references(env: Any, source: str, name: str) -> tuple[tuple[str | None, ...], bool]:
    """``(templates referenced by source, whether it extends another)`` from Jinja2's parser,
    remembered by the source text: in this process, and across processes in the template cache
    folder (:func:`_stored_references`), so hashing the prompts parses no template that was parsed
    before."""
    found = _REFERENCES.get(source)
    if found is None:
        found = _stored_references(source)
        if found is None:
            import jinja2.meta
            import jinja2.nodes

            ast = env.parse(source, name)
            found = (tuple(jinja2.meta.find_referenced_templates(ast)), ast.find(jinja2.nodes.Extends) is not None)
            _store_references(source, found)
        _REFERENCES[source] = found
    return found


def _references_path(source: str) -> Path:
    """Where the references of ``source`` are kept: ``<sha256 of Jinja2's version and the text>.refs.json``
    in :func:`adjudicator.environment.default_template_cache_dir`."""
    import jinja2

    from adjudicator.environment import default_template_cache_dir

    digest = hashlib.sha256(f"jinja2 {jinja2.__version__}\0{source}".encode()).hexdigest()
    return default_template_cache_dir() / f"{digest}.refs.json"


def _stored_references(source: str) -> tuple[tuple[str | None, ...], bool] | None:
    """The references stored for ``source`` by an earlier process, or None (none, unreadable or malformed)."""
    import json

    try:
        data = json.loads(_references_path(source).read_text(encoding="utf-8"))
        refs, extends = data["references"], data["extends"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(refs, list) or not all(r is None or isinstance(r, str) for r in refs) or not isinstance(extends, bool):
        return None
    return tuple(refs), extends


def _store_references(source: str, found: tuple[tuple[str | None, ...], bool]) -> None:
    """Keep ``found`` for later processes (a folder that cannot be written only means parsing again)."""
    from adjudicator.files import atomic_write_json, prune_oldest_files

    path = _references_path(source)
    try:
        atomic_write_json(path, {"references": list(found[0]), "extends": found[1]})
        prune_oldest_files(path.parent, "*.refs.json", REFERENCE_CACHE_ENTRIES)
    except OSError:
        pass


@functools.lru_cache(maxsize=1)
def _bytecode_cache() -> Any:
    """The process-wide in-memory Jinja2 bytecode cache every :class:`PromptStore` compiles into:
    a template's code is keyed by its name, file name and the SHA-1 of its source (Jinja2's bucket
    key and checksum), so an edited file is compiled again and an unchanged one is compiled once.
    Every store uses the same environment options, so the code is the same for all of them."""
    import jinja2

    class MemoryBytecodeCache(jinja2.BytecodeCache):
        def __init__(self) -> None:
            self.code: dict[tuple[str, str], Any] = {}

        def load_bytecode(self, bucket: Any) -> None:
            code = self.code.get((bucket.key, bucket.checksum))
            if code is not None:
                bucket.code = code

        def dump_bytecode(self, bucket: Any) -> None:
            self.code[(bucket.key, bucket.checksum)] = bucket.code

        def clear(self) -> None:
            self.code.clear()

    return MemoryBytecodeCache()


def _strict_filter(fn: Any) -> Any:
    """Wrap a filter so an undefined input raises (Jinja2 hands filters an Undefined silently)."""
    import jinja2

    def wrapped(value: Any, *args: Any) -> Any:
        if isinstance(value, jinja2.Undefined):
            str(value)  # StrictUndefined raises UndefinedError here
        return fn(value, *args)

    return wrapped


def _fence_filter() -> Any:
    """The templates' ``fence`` filter: :func:`fence` with the render's ``fence_code`` variable as
    its code when the caller gave one (a template imported "with context" sees it too), strict on
    an undefined input as every filter here."""
    import jinja2

    @jinja2.pass_context
    def fence_filter(ctx: Any, value: Any, name: str = "TRANSCRIPT") -> str:
        if isinstance(value, jinja2.Undefined):
            str(value)  # StrictUndefined raises UndefinedError here
        code = ctx.get("fence_code")
        return fence(value, name, code if isinstance(code, str) and code else None)

    return fence_filter


@dataclass(frozen=True)
class RenderedPrompt:
    """A rendered template: its file name, content hash and the two chat messages' text."""

    name: str
    template_hash: str
    system: str
    user: str

    def messages(self) -> tuple[dict[str, str], ...]:
        """The chat messages: a system message, then the user message."""
        return ({"role": "system", "content": self.system}, {"role": "user", "content": self.user})


class PromptStore:
    """Loads templates from ``directory`` (default :func:`prompts_dir`) with strict undefined
    variables; thread-safe once constructed (Jinja2 environments are).

    Raises :class:`~adjudicator.errors.ConfigError` when the folder or a template is missing, and
    ``jinja2.UndefinedError`` when a render call lacks a variable the template uses.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        import jinja2

        self.directory = Path(directory) if directory is not None else prompts_dir()
        if not self.directory.is_dir():
            raise ConfigError(
                f"prompt folder {self.directory} not found",
                "set ADJUDICATOR_PROMPTS_DIR to the repository's prompts/ folder or reinstall with `pip install -e .`",
            )
        self._env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(self.directory), encoding="utf-8"),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=False,
            auto_reload=False,
            bytecode_cache=_bytecode_cache(),
        )
        self._env.filters["fence"] = _fence_filter()
        self._env.filters["neutral"] = _strict_filter(neutralise)
        self._hashes: dict[str, str] = {}
        self._extends_cache: dict[str, bool] = {}

    def names(self) -> list[str]:
        """Every template file name in the folder (partials, ``_*.j2``, left out), sorted."""
        return sorted(p.name for p in self.directory.glob("*.j2") if not p.name.startswith("_"))

    def _source(self, name: str) -> bytes:
        path = self.directory / name
        if not path.is_file():
            raise ConfigError(f"prompt template {name} not found in {self.directory}")
        return path.read_bytes()

    def partials(self, name: str) -> list[str]:
        """Every template that rendering ``name`` reads besides ``name`` itself -- what it imports,
        includes or extends, directly or through another partial -- sorted by name.

        Found with Jinja2's own parser (``jinja2.meta.find_referenced_templates`` over each file's
        AST, remembered by each file's text). Raises ConfigError for a missing file or a reference
        computed at render time (whose file cannot be known, so could not be hashed).
        """
        seen: set[str] = set()
        todo = [name]
        while todo:
            current = todo.pop()
            for ref in _references(self._env, self._source(current).decode("utf-8"), current)[0]:
                if ref is None:
                    raise ConfigError(f"prompt template {current} includes a template whose name is computed at render time; name it literally")
                if ref != name and ref not in seen:
                    seen.add(ref)
                    todo.append(ref)
        return sorted(seen)

    def template_hash(self, name: str) -> str:
        """First 16 hex digits of the SHA-256 of the template file's bytes followed, for each of its
        :meth:`partials` in name order, by a ``\\n--- <name> <byte count>\\n`` line and the partial's
        bytes. A template that uses no partial hashes as its own bytes alone."""
        if name not in self._hashes:
            digest = hashlib.sha256(self._source(name))
            for partial in self.partials(name):
                data = self._source(partial)
                digest.update(f"\n--- {partial} {len(data)}\n".encode())
                digest.update(data)
            self._hashes[name] = digest.hexdigest()[:16]
        return self._hashes[name]

    def hashes(self, names: Iterable[str] | None = None) -> dict[str, str]:
        """Template name -> content hash for ``names`` (default: every template in the folder)."""
        return {n: self.template_hash(n) for n in (self.names() if names is None else names)}

    def _template(self, name: str) -> Any:
        import jinja2

        try:
            return self._env.get_template(name)
        except jinja2.TemplateNotFound:
            raise ConfigError(f"prompt template {name} not found in {self.directory}") from None

    def render_macro(self, name: str, macro: str, *args: Any) -> str:
        """The text of macro ``macro`` of partial (or template) ``name`` called with ``args``: the
        same text a template that imports it gets, e.g. the ledger, for measuring one part of a
        prompt. Raises ConfigError for a missing file or macro."""
        fn = getattr(self._template(name).module, macro, None)
        if not callable(fn):
            raise ConfigError(f"prompt template {name} has no macro {macro}")
        return str(fn(*args))

    def _extends(self, name: str) -> bool:
        """True when template ``name`` extends another (``{% extends "..." %}``); cached per name."""
        cached = self._extends_cache.get(name)
        if cached is None:
            cached = self._extends_cache[name] = _references(self._env, self._source(name).decode("utf-8"), name)[1]
        return cached

    def render(self, name: str, variables: Mapping[str, Any]) -> RenderedPrompt:
        """Render the ``system`` and ``user`` blocks of template ``name`` with ``variables``.

        Raises ``jinja2.UndefinedError`` for a missing variable and ConfigError for a missing
        template or one without both blocks.
        """
        template = self._template(name)
        ctx = template.new_context(dict(variables))
        if self._extends(name):
            # a template that extends another: running its body once puts the parent's blocks into the
            # context's block chains, so a block it does not override, and super(), render the parent's
            "".join(template.root_render_func(ctx))
        if "system" not in ctx.blocks or "user" not in ctx.blocks:
            raise ConfigError(f"prompt template {name} must define a 'system' and a 'user' block")
        system = "".join(ctx.blocks["system"][0](ctx)).strip()
        user = "".join(ctx.blocks["user"][0](ctx)).strip()
        return RenderedPrompt(name=name, template_hash=self.template_hash(name), system=system, user=user)
