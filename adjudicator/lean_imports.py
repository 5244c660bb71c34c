"""Import work a dependency does at import time that no adjudicator run uses: two optional imports refused, two package bodies deferred.

LangGraph's import chain (``langgraph.types`` -> ``langchain_core.tracers`` -> ``langsmith.run_trees``
-> ``langsmith.client``; ``langgraph.runtime`` -> ``langgraph_sdk`` -> ``httpx``) reaches two
``try: import ... except ImportError`` blocks whose modules are installed here (the test and dev-server
extras bring them) but serve nothing a run does:

- ``httpx/__init__.py`` imports ``httpx._main``, httpx's own command-line client, which imports rich,
  pygments and click's terminal helpers; without it ``httpx.main`` is httpx's own stub saying to
  install ``httpx[cli]``. Nothing here calls ``httpx.main``.
- ``langsmith/client.py`` imports ``opentelemetry.sdk.trace.TracerProvider`` in its module body only to
  name a type in signatures (with a stand-in class of its own when it is missing); the SDK (and its
  exporters, protobuf) costs about 0.1-0.2 s of CPU. LangSmith's OpenTelemetry mode imports what it
  needs when it is used (``langsmith.client._import_otel``), which this guard does not touch; and when
  any of LangSmith's OpenTelemetry variables is set (:data:`adjudicator.environment.OTEL_VARIABLES`, read there: the environment has one reader) the guard refuses nothing.

The guard (:class:`UnusedImportGuard`, first in ``sys.meta_path``, installed once by
``adjudicator/__init__.py``) refuses exactly those two names and only when the importing code is the
module body named above (read from the calling frames), so the same modules import normally from
anywhere else (``import opentelemetry.sdk.trace`` in your own code works): about 0.2 s of CPU and
the rich, pygments and OpenTelemetry packages less (benchmarks/startup.py, offline main job).

It also defers the ``__init__`` bodies of two packages (:data:`DEFERRED`, :class:`DeferredBody`)
that the chain enters only for one small submodule, the way each package's own lazy exports intend:

- ``langsmith.types``: ``langsmith/_internal/_v2_migration_utils.py`` (imported by
  ``langsmith.run_trees``) imports ``langsmith.types.run_select_field``, a ``Literal`` alias; the
  package's ``__init__`` imports some 180 generated pydantic models of LangSmith's REST API (about
  0.3 s of CPU), which ``langsmith/__init__.py`` itself loads lazily ("so that ``import langsmith``
  stays cheap") and which only LangSmith's API client uses;
- ``langgraph_sdk``: ``langgraph.runtime`` imports ``langgraph_sdk.auth.types`` (the ``BaseUser``
  protocol); the package's ``__init__`` imports the SDK's HTTP client (httpx, websockets), about 0.1 s.

The body still runs, whole, the first time anything asks the package for a name it defines (see
:class:`DeferredBody`), so every use of either package works as before. What stays and why: LangSmith's
tracing client itself (``langgraph.types`` imports langchain-core's runnables and tracers at module
level, which import ``langsmith.run_trees`` and ``langsmith.client``); refusing it would break LangGraph.
"""

from __future__ import annotations

import importlib
import sys
import threading
from importlib.abc import Loader
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path
from types import FrameType, ModuleType

from adjudicator.environment import opentelemetry_requested

#: name refused -> the module whose body's import of it is refused.
REFUSED = {"httpx._main": "httpx", "opentelemetry": "langsmith.client", "opentelemetry.sdk": "langsmith.client",
           "opentelemetry.sdk.trace": "langsmith.client"}


def _importer(frame: FrameType | None) -> FrameType | None:
    """The first frame outside importlib's own machinery (the code whose import statement runs)."""
    while frame is not None and frame.f_code.co_filename.startswith(("<frozen importlib", __file__)):
        frame = frame.f_back
    return frame


#: package -> (the module whose import of one small submodule runs the package's ``__init__``, that submodule).
DEFERRED = {"langsmith.types": ("langsmith._internal._v2_migration_utils", "run_select_field"),
            "langgraph_sdk": ("langgraph.runtime", "auth.types")}


class DeferredBody(Loader):
    """The loader of a :data:`DEFERRED` package: its module is made from its own spec (name, file,
    ``__path__``), so its submodules import at once, but its ``__init__`` body runs, in full and once,
    only when a name that is not a submodule is first looked up on it (a PEP 562 ``__getattr__``, and
    ``dir()``): ``from langgraph_sdk import get_client`` or ``langsmith.types.Run`` run it first. A
    submodule's name (``from . import shared``) imports that submodule, which is what the body would
    have bound to the name (tests/test_startup.py checks that for both packages). One lock: a second
    thread waits for the first's run of the body; the body's own lookups of names it has not defined
    yet raise AttributeError, as in any module being initialised. Once the body has run, the module
    is an ordinary one (the hooks are removed, ``__loader__`` is the real loader)."""

    def __init__(self, loader: Loader) -> None:
        self.loader = loader
        self.lock = threading.RLock()
        self.state = "deferred"  # -> "running" -> "done"

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        def names() -> list[str]:
            self.run_body(module)
            return sorted(module.__dict__)

        vars(module).update(__getattr__=lambda name: self.lookup(module, name), __dir__=names)
        module.__loader__ = self.loader  # a reload or importlib.resources sees the real loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader

    def run_body(self, module: ModuleType) -> None:
        """Run the package's ``__init__`` in its module, unless it has run (or is running in this thread)."""
        with self.lock:
            if self.state != "deferred":
                return
            self.state = "running"
            module.__dict__.pop("__getattr__", None)
            module.__dict__.pop("__dir__", None)
            try:
                self.loader.exec_module(module)
            finally:
                self.state = "done"

    def lookup(self, module: ModuleType, name: str) -> object:
        """``module.name`` for a name the module does not hold yet: a submodule is imported; any other
        name runs the body first (AttributeError if the body does not define it either)."""
        if not name.startswith("__") and any(Path(p, name + ".py").is_file() or Path(p, name, "__init__.py").is_file() for p in module.__path__):
            return importlib.import_module(f"{module.__name__}.{name}")
        self.run_body(module)
        if name in module.__dict__:
            return module.__dict__[name]
        own = module.__dict__.get("__getattr__")  # the body's own PEP 562 hook, if it has one
        if own is not None:
            return own(name)
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}", name=name, obj=module)


class UnusedImportGuard:
    """A ``sys.meta_path`` finder that raises ImportError for a :data:`REFUSED` name imported by the
    module body paired with it, gives a :data:`DEFERRED` package a :class:`DeferredBody` loader, and
    leaves every other import to the finders after it (returns None)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name in DEFERRED:
            return deferred_spec(name, path, target)
        owner = REFUSED.get(name)
        if owner is None:
            return None
        frame = _importer(sys._getframe(1))
        if frame is not None and frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == owner \
                and not opentelemetry_requested():
            raise ImportError(f"{name} is not imported by adjudicator runs (adjudicator/lean_imports.py)", name=name)
        return None


def deferred_spec(name: str, path: object, target: object) -> ModuleSpec | None:
    """The spec the path finder gives the package ``name``, with its loader wrapped in a
    :class:`DeferredBody`; None (the ordinary import) when it is not a package of source files."""
    spec = PathFinder.find_spec(name, path, target)  # type: ignore[arg-type]
    if spec is None or spec.submodule_search_locations is None or not hasattr(spec.loader, "exec_module"):
        return spec
    spec.loader = DeferredBody(spec.loader)  # type: ignore[arg-type]
    return spec


def install() -> None:
    """Put one :class:`UnusedImportGuard` first in ``sys.meta_path`` (idempotent)."""
    if not any(isinstance(f, UnusedImportGuard) for f in sys.meta_path):
        sys.meta_path.insert(0, UnusedImportGuard())
