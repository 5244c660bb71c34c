"""Untrusted YAML text: PyYAML's safe loader with the limits a hostile file needs.

:func:`load_yaml` reads a config, rubric or PanelBench file with the checks the match file's JSON
reader has (:mod:`adjudicator.input.jsontext`), each refusal one line naming the file and the line:

- nesting deeper than :data:`~adjudicator.input.jsontext.MAX_JSON_DEPTH` levels is refused before the
  document is built (PyYAML's composer recurses once per level, so 5,000 levels ended in
  ``RecursionError``, and its pure-Python scanner took a minute to get there);
- aliases that expand past :data:`MAX_YAML_NODES` nodes (a "billion laughs" file: nine aliases of nine
  aliases of ... grow a 1 KB file to gigabytes once anything walks it) are refused;
- a key given twice in one mapping is refused (``yaml.safe_load`` keeps the last, where TOML refuses
  the file), so which setting is meant is never guessed;
- ``.inf`` and ``.nan`` are refused: no field of any input takes a number that is not finite.

The checks run over PyYAML's event stream (libyaml's C parser when PyYAML has it) in one pass, linear in
the text, before the document is constructed.
"""

from __future__ import annotations

import math
from typing import Any

from adjudicator.errors import InputError
from adjudicator.input.jsontext import MAX_JSON_DEPTH

#: The most nodes (scalars, sequences, mappings) a YAML document may hold once its aliases are
#: expanded. A config or rubric file has a few dozen and a PanelBench speech file a few hundred;
#: 100,000 is a few megabytes of values, where a nine-fold alias chain of nine levels is 387 million.
MAX_YAML_NODES = 100_000


class YamlInputError(InputError):
    """Refused YAML input (exit code 2). ``line`` is the 1-based line where known."""

    def __init__(self, message: str, hint: str | None = None, line: int | None = None, key: Any = None) -> None:
        super().__init__(message, hint)
        self.line = line
        self.key = key


class DuplicateKey(YamlInputError):
    """A mapping names ``key`` twice; ``line`` is the 1-based line of the second occurrence."""


def _line(mark: Any) -> int | None:
    return None if mark is None else int(mark.line) + 1


def _loaders() -> tuple[Any, Any]:
    """(loader class, yaml module): libyaml's C safe loader when PyYAML was built with it, else the
    pure-Python one."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader), yaml


def check_events(text: str, source: str) -> None:
    """Refuse ``text`` (named ``source`` in the message) for nesting deeper than
    :data:`~adjudicator.input.jsontext.MAX_JSON_DEPTH` or aliases expanding past
    :data:`MAX_YAML_NODES` nodes, reading PyYAML's events once. Syntax errors are raised as
    :class:`YamlInputError`."""
    loader, yaml = _loaders()
    depth = 0
    sizes: dict[str, int] = {}  # anchor -> nodes of the value it names, aliases expanded
    open_nodes: list[tuple[int, str | None]] = []  # (nodes so far, anchor) of each open collection
    total = 0
    try:
        for ev in yaml.parse(text, Loader=loader):
            if isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_JSON_DEPTH:
                    raise YamlInputError(f"{source}: nested deeper than {MAX_JSON_DEPTH} levels at line {_line(ev.start_mark)}", "flatten the data", _line(ev.start_mark))
                open_nodes.append((1, ev.anchor))
                continue
            if isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
                n, anchor = open_nodes.pop()
            elif isinstance(ev, yaml.ScalarEvent):
                n, anchor = 1, ev.anchor
            elif isinstance(ev, yaml.AliasEvent):
                n, anchor = sizes.get(ev.anchor, 1), None
            else:
                continue
            if anchor is not None:
                sizes[anchor] = n
            if open_nodes:
                open_nodes[-1] = (open_nodes[-1][0] + n, open_nodes[-1][1])
            else:
                total += n
            if total + sum(k for k, _ in open_nodes) > MAX_YAML_NODES:
                raise YamlInputError(
                    f"{source}: more than {MAX_YAML_NODES:,} values once its aliases are expanded (line {_line(ev.start_mark)})",
                    "write the values out; a file that small needs no alias chains",
                    _line(ev.start_mark),
                )
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, source) from None


def _syntax_error(exc: Exception, source: str) -> YamlInputError:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or ""
    if "nesting depth" in problem:  # libyaml's own limit (1,000 levels), met before ours in a look-ahead
        return YamlInputError(f"{source}: nested deeper than {MAX_JSON_DEPTH} levels at line {_line(mark)}", "flatten the data", _line(mark))
    where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
    return YamlInputError(f"{source}: invalid YAML{where}" + (f" ({problem})" if problem else ""), "fix the YAML syntax", _line(mark))


def load_yaml(text: str, source: str = "YAML") -> Any:
    """``text`` parsed as YAML with the safe loader (no tags beyond YAML's own types), after
    :func:`check_events`. Raises :class:`YamlInputError` (exit code 2, one line naming ``source``) for
    invalid YAML, nesting or aliases past the limits, :class:`DuplicateKey` for a key given twice in
    one mapping (merge keys ``<<`` aside), and a ``.inf`` or ``.nan`` value."""
    check_events(text, source)
    base, yaml = _loaders()

    class _Loader(base):  # type: ignore[misc,valid-type]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: set[Any] = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        duplicate = key in seen
                    except TypeError:  # an unhashable key: PyYAML reports it itself
                        continue
                    if duplicate:
                        line = _line(key_node.start_mark)
                        raise DuplicateKey(f"{source}: key {key!r} given twice (line {line})", "keep one; which is meant cannot be guessed", line, key)
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

        def construct_yaml_float(self, node: Any) -> float:
            value = float(super().construct_yaml_float(node))
            if not math.isfinite(value):
                line = _line(node.start_mark)
                raise YamlInputError(f"{source}: {node.value!r} at line {line} is not a finite number", "write a finite number", line)
            return value

    _Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, source) from None
