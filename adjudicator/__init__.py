"""adjudicator: multi-agent adjudication of competitive debates, measured against real judges.

The package sets ``LITELLM_LOCAL_MODEL_COST_MAP=True`` before anything can import litellm, because
litellm otherwise fetches its price map from the network at import time, and ``LITELLM_MODE=PRODUCTION``,
because otherwise it loads a ``.env`` file into the environment (both only where the user set neither). litellm itself is only
imported lazily, by :mod:`adjudicator.model.litellm_setup`. It also installs the import guard of
:mod:`adjudicator.lean_imports` (two optional imports of LangGraph's dependencies no run uses).
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# litellm in its default "DEV" mode loads a .env file into the process's environment on import
# (python-dotenv's find_dotenv, walking up from litellm's own folder: a virtual environment inside a
# checkout reaches the checkout's .env), so keys and switches nobody passed would steer a run.
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

from adjudicator import lean_imports  # noqa: E402 (after the variable above, before anything imports LangGraph)

lean_imports.install()

__version__ = "0.1.0"
