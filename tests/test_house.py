"""The house rules of the source tree, checked with the standard library's ``ast``:

- no import cycle between the package's modules, and none between ``adjudicator`` and ``graphs``
  (``graphs`` imports ``adjudicator``, never the other way);
- one owner per effect: click only in ``adjudicator.cli``, litellm only in ``adjudicator.model.litellm_setup``,
  diskcache only in ``adjudicator.model.cache``, file writes (``write_text``, ``write_bytes``,
  ``os.replace``, ``open(..., "w"/"a")``) only in ``adjudicator.files``.

Every import counts, at module level or inside a function.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("adjudicator", "graphs")


def modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            rel = f.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[".".join(parts)] = f
    return out


MODULES = modules()


@cache
def tree_of(name: str) -> ast.Module:
    """The parsed source of module ``name``, parsed once for every test here (each walks it, none changes it):
    parsing the ~200 modules once per use took most of this file's time (15 s of the full suite's run under load)."""
    return ast.parse(MODULES[name].read_text(encoding="utf-8"))


@cache
def imports_of(name: str) -> tuple[str, ...]:
    """:func:`imported_names` of module ``name``'s own source (computed once)."""
    return tuple(imported_names(name, tree_of(name)))


def imported_names(name: str, tree: ast.AST) -> list[str]:
    """Every absolute module name ``name``'s source imports (relative imports resolved)."""
    is_pkg = MODULES[name].name == "__init__.py"
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                parts = parts[: len(parts) - node.level + (1 if is_pkg else 0)]
                base = ".".join(parts + ([node.module] if node.module else []))
            out.append(base)
            out += [f"{base}.{a.name}" for a in node.names]
    return out


def project_edges() -> dict[str, set[str]]:
    """Module -> the project modules it imports (a ``from pkg import mod`` counts as importing mod)."""
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for m in MODULES:
        for n in imports_of(m):
            while n:
                if n in MODULES and n != m:
                    edges[m].add(n)
                    break
                n = n.rpartition(".")[0]
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path of module names, or None (iterative depth-first search)."""
    state: dict[str, int] = {}
    for start in sorted(edges):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(edges[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(sorted(edges[nxt]))))
                path.append(nxt)
    return None


def test_no_import_cycle_between_modules():
    assert find_cycle(project_edges()) is None


def test_the_cycle_finder_finds_a_planted_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_graphs_imports_adjudicator_and_never_the_reverse():
    edges = project_edges()
    back = sorted(m for m, targets in edges.items() if m.startswith("adjudicator") and any(t.startswith("graphs") for t in targets))
    assert back == []
    assert any(t.startswith("adjudicator") for m, targets in edges.items() if m.startswith("graphs") for t in targets)


def third_party_importers(top: str) -> set[str]:
    return {m for m in MODULES if any(n.split(".")[0] == top for n in imports_of(m))}


def test_one_owner_per_effect():
    assert all(m == "adjudicator.cli" or m.startswith("adjudicator.cli.") for m in third_party_importers("click"))
    assert third_party_importers("litellm") == {"adjudicator.model.litellm_setup"}
    assert third_party_importers("diskcache") == {"adjudicator.model.cache"}


def file_writers() -> set[str]:
    writers = set()
    for m in MODULES:
        for node in ast.walk(tree_of(m)):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            if isinstance(fn, ast.Attribute) and (fn.attr in ("write_text", "write_bytes") or (fn.attr == "replace" and getattr(fn.value, "id", "") == "os")):
                writers.add(m)
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            if name in ("open", "fdopen"):
                modes = [a.value for a in node.args[1:2] if isinstance(a, ast.Constant)] + [k.value.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)]
                if any(isinstance(mode, str) and set(mode) & set("wax+") for mode in modes):
                    writers.add(m)
    return writers


def test_files_is_the_one_writer_of_files():
    assert file_writers() == {"adjudicator.files"}
