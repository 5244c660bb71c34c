"""Two optional imports a dependency makes at import time that no adjudicator run uses, refused.

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
anywhere else (``import opentelemetry.sdk.trace`` in your own code works). Measured by
benchmarks/startup.py (offline main job, 2 shared cores): about 0.2 s of CPU and the rich, pygments
and OpenTelemetry packages less. What stays and why: LangSmith itself (langgraph.types imports
langchain-core's tracers at module level, which import langsmith.run_trees) and the LangGraph SDK
(langgraph.runtime imports ``langgraph_sdk.auth.types``, whose package imports its HTTP client and
websockets); refusing either would break LangGraph.
"""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec
from types import FrameType

from adjudicator.environment import opentelemetry_requested

#: name refused -> the module whose body's import of it is refused.
REFUSED = {"httpx._main": "httpx", "opentelemetry": "langsmith.client", "opentelemetry.sdk": "langsmith.client",
           "opentelemetry.sdk.trace": "langsmith.client"}


def _importer(frame: FrameType | None) -> FrameType | None:
    """The first frame outside importlib's own machinery (the code whose import statement runs)."""
    while frame is not None and frame.f_code.co_filename.startswith(("<frozen importlib", __file__)):
        frame = frame.f_back
    return frame


class UnusedImportGuard:
    """A ``sys.meta_path`` finder that raises ImportError for a :data:`REFUSED` name imported by the
    module body paired with it, and defers (returns None) for every other import."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        owner = REFUSED.get(name)
        if owner is None:
            return None
        frame = _importer(sys._getframe(1))
        if frame is not None and frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == owner \
                and not opentelemetry_requested():
            raise ImportError(f"{name} is not imported by adjudicator runs (adjudicator/lean_imports.py)", name=name)
        return None


def install() -> None:
    """Put one :class:`UnusedImportGuard` first in ``sys.meta_path`` (idempotent)."""
    if not any(isinstance(f, UnusedImportGuard) for f in sys.meta_path):
        sys.meta_path.insert(0, UnusedImportGuard())
