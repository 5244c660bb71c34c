"""adjudicator: multi-agent adjudication of competitive debates, measured against real judges.

The package sets ``LITELLM_LOCAL_MODEL_COST_MAP=True`` before anything can import litellm, because
litellm otherwise fetches its price map from the network at import time. litellm itself is only
imported lazily, by :mod:`adjudicator.model.litellm_setup`.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
