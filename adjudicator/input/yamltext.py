"""Untrusted YAML text: PyYAML's safe loader, refusing a key given twice in one mapping.

``yaml.safe_load`` keeps the last of two equal keys silently (``model: a`` then ``model: b`` is
``b``), where TOML refuses the file; a config or rubric file with a repeated key is refused here
instead (:class:`DuplicateKey`), so which setting is meant is never guessed.
"""

from __future__ import annotations

from typing import Any


class DuplicateKey(ValueError):
    """A mapping names ``key`` twice; ``line`` is the 1-based line of the second occurrence."""

    def __init__(self, key: Any, line: int) -> None:
        super().__init__(f"key {key!r} given twice (line {line})")
        self.key = key
        self.line = line


def load_yaml(text: str) -> Any:
    """``text`` parsed as YAML with the safe loader (no tags beyond YAML's own types). Raises
    :class:`DuplicateKey` for a key given twice in one mapping (merge keys ``<<`` aside) and
    ``yaml.YAMLError`` for invalid YAML."""
    import yaml

    class _Loader(yaml.SafeLoader):
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
                        raise DuplicateKey(key, key_node.start_mark.line + 1)
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return yaml.load(text, Loader=_Loader)  # noqa: S506 (a SafeLoader subclass)
