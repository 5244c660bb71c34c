"""Whether a prompt fits its model's context window, checked before it is sent (a prompt that cannot
fit would fail every attempt and be billed each time).

The window is litellm's ``max_input_tokens`` (else ``max_tokens``) for the model, None where litellm
does not know it (local and unknown models: then nothing is checked). Counting tokens needs the
model's tokenizer, so it is done only when the prompt might not fit: a token covers at least one byte
of text under every tokenizer litellm uses (byte-level BPE, SentencePiece with byte fallback), so a
prompt whose UTF-8 bytes plus :data:`MESSAGE_OVERHEAD_TOKENS` per message and once more for the reply
fit the window fits it, and is not counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.model.litellm_setup import litellm_module

#: Tokens a chat template adds per message (role markers, separators), an upper bound: OpenAI's
#: format adds 3-4 per message and 3 for the reply; litellm's counter adds the same.
MESSAGE_OVERHEAD_TOKENS = 8


def known_window(model: str) -> int | None:
    """``model``'s input context window in tokens by litellm's model table, else None. Imports litellm."""
    try:
        info = litellm_module().get_model_info(model=model)
        window = info.get("max_input_tokens") or info.get("max_tokens")
    except Exception:
        window = None
    return int(window) if window else None


def overflow(model: str, messages: Sequence[Mapping[str, Any]], window: int | None) -> tuple[int, int] | None:
    """``(tokens, window)`` when ``messages`` cannot fit ``window`` tokens of ``model``, else None (it
    fits, or the window or the token count is unknown); the tokenizer is loaded only past the byte bound
    (module docstring)."""
    if window is None:
        return None
    bound = sum(len(str(m.get("content") or "").encode("utf-8")) + MESSAGE_OVERHEAD_TOKENS for m in messages) + MESSAGE_OVERHEAD_TOKENS
    if bound <= window:
        return None
    try:
        n = int(litellm_module().token_counter(model=model, messages=[dict(m) for m in messages]))
    except Exception:
        return None
    return (n, window) if n > window else None
