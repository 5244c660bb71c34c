"""Transport faults and their bounded retries: the error raised when they run out, the backoff policy
(``Retry-After`` honoured), reading status and headers off a provider's exception, error text with
anything shaped like a key redacted, and the cap on requests in flight to one server
(:func:`request_limit`). :class:`~adjudicator.model.llm.LLMClient` is the one owner of the retries;
it classifies litellm's exceptions with these helpers (:func:`classify`, :func:`is_connection_failure`).
"""

from __future__ import annotations

import email.utils
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator.errors import ModelCallError
from adjudicator.model.litellm_setup import litellm_module


class TransportError(ModelCallError):
    """A request failed at the transport level after the bounded retries, or was refused by the
    server with a non-retryable status (``status`` is the HTTP status when known).
    ``retryable`` tells whether the fault was one we retry (so the retries ran out)."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False, retries: int = 0) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retries = retries


class PromptTooLong(TransportError):
    """A request refused by the client before sending: its prompt cannot fit the model's known context
    window (:meth:`~adjudicator.model.llm.LLMClient.overflow`). Nothing was sent, so it is no request,
    no transport fault and no parse failure. ``tokens`` and ``window`` are the counts, in tokens."""

    def __init__(self, message: str, *, tokens: int, window: int) -> None:
        super().__init__(message, status=None, retryable=False)
        self.tokens = tokens
        self.window = window


@dataclass(frozen=True)
class TransportPolicy:
    """Bounded backoff for transport faults.

    At most ``max_retries`` re-sends after the first request (so ``max_retries + 1`` requests per
    attempt). The n-th retry (1-based) waits ``min(max_delay_s, base_delay_s * 2**(n-1))`` seconds,
    or the server's ``Retry-After`` (seconds or HTTP date; ``retry-after-ms`` too) when it sends one,
    capped at ``max_retry_after_s``. Deterministic (no jitter) so tests can assert the waits.
    Once the retries have run out on a refused or dropped connection, the client sends later
    requests once, without backoff, until one gets through: a server that is down costs one wait
    sequence per run, not one per node.
    """

    max_retries: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0

    def delay_s(self, retry: int, retry_after_s: float | None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        if retry_after_s is not None:
            return max(0.0, min(retry_after_s, self.max_retry_after_s))
        return min(self.max_delay_s, self.base_delay_s * (2 ** (retry - 1)))


RETRYABLE_STATUS = frozenset({408, 409, 425, 429})


#: One semaphore per (server, cap): clients of the same endpoint share it, so a server that answers
#: one request at a time sees one at a time from the whole process (every sample of a benchmark builds
#: its own clients). Guarded by :data:`_LIMITS_LOCK`.
_LIMITS: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_LIMITS_LOCK = threading.Lock()


def request_limit(endpoint: str, cap: int) -> threading.BoundedSemaphore:
    """The semaphore that caps the requests in flight to ``endpoint`` (an API base, or the model
    string for a hosted provider) at ``cap`` (>= 1), shared by every client of that endpoint."""
    with _LIMITS_LOCK:
        sem = _LIMITS.get((endpoint, cap))
        if sem is None:
            sem = _LIMITS[(endpoint, cap)] = threading.BoundedSemaphore(cap)
        return sem


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of a provider exception (litellm's ``status_code`` or its response's), or None."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status
    resp = getattr(exc, "response", None)
    status = getattr(resp, "status_code", None)
    return status if isinstance(status, int) else None


def headers_of(exc: BaseException) -> Mapping[str, str]:
    """The response headers of a provider exception, keys lower-cased ({} when there are none)."""
    for attr in ("litellm_response_headers",):
        h = getattr(exc, attr, None)
        if h:
            return {str(k).lower(): str(v) for k, v in dict(h).items()}
    resp = getattr(exc, "response", None)
    h = getattr(resp, "headers", None)
    if h:
        try:
            return {str(k).lower(): str(v) for k, v in dict(h).items()}
        except Exception:  # pragma: no cover - exotic header containers
            return {}
    return {}


def retry_after_s(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait according to ``retry-after-ms`` or ``retry-after`` (delta-seconds or an HTTP
    date), or None when absent or unreadable. ``headers`` keys must be lower-case."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


_SECRET_RE = re.compile(r"(?i)(bearer\s+\S+|\b(?:sk|pk|gsk|xai|key)-[A-Za-z0-9_\-*.]{6,})")


def redact(text: str) -> str:
    """``text`` with anything shaped like an API key or bearer token replaced by ``***``."""
    return _SECRET_RE.sub("***", text)


def describe_error(exc: BaseException, status: int | None) -> str:
    """One line for a provider exception: its class, the status, and its message with litellm's
    class-name prefixes dropped, keys redacted and the text cut at 240 characters."""
    name = type(exc).__name__
    text = redact(" ".join(str(exc).split()))
    # litellm prefixes messages with its own class names (often twice) and the provider's; drop them.
    text = text.replace("litellm.", "")
    text = re.sub(r"^(?:[A-Za-z]+(?:Error|Exception)\s*[:-]\s*)+", "", text)
    text = re.sub(r"^[A-Za-z]+Exception - ", "", text)
    if len(text) > 240:
        text = text[:237] + "..."
    return f"{name}{f' {status}' if status else ''}: {text}"


def classify(exc: BaseException) -> tuple[bool, int | None]:
    """(retryable, status) for an exception raised by a litellm call.

    Retryable: timeouts, connection errors, 408/409/425/429 and any 5xx. Not retryable: other 4xx
    (bad request, context window exceeded, bad key, unknown model) and anything else.
    """
    lit = litellm_module()
    status = status_of(exc)
    if "missing credentials" in str(exc).lower():  # litellm reports a missing key as a 500
        return False, status
    if isinstance(exc, (lit.Timeout, lit.APIConnectionError)):
        return True, status
    if status is not None and (status in RETRYABLE_STATUS or status >= 500):
        return True, status
    if isinstance(exc, (lit.RateLimitError, lit.InternalServerError, lit.ServiceUnavailableError)):
        return True, status
    return False, status


def is_connection_failure(exc: BaseException) -> bool:
    """True for a refused or dropped connection (litellm reports those as a 500 "Connection error")."""
    lit = litellm_module()
    return isinstance(exc, lit.APIConnectionError) or "connection error" in str(exc).lower()
