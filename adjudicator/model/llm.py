"""The model client: one chat request sent through litellm, and the one owner of transport retries.

:class:`LLMClient` sends one chat request (:class:`~adjudicator.model.chat.ChatRequest`) for one
attempt of a node and returns a :class:`~adjudicator.model.chat.ChatResponse` (raw text, tokens,
cost, latency, cache hit, transport retries). It

- imports litellm only when a request must really be sent (:mod:`adjudicator.model.litellm_setup`,
  the one importer): a request answered from the cache is keyed and served without litellm (what
  litellm's model table says about the model is kept in the cache as
  :class:`~adjudicator.model.cache.ModelFacts`), and the pre-flight check of a run's models
  (:class:`~adjudicator.model.preflight.PreflightGate`) and the context-window check run just before
  the first request;
- asks for structured output when it can (``json_mode``; what each mode sends, and the fall-back to
  prompted JSON within the same attempt when a server refuses a schema, are
  :mod:`adjudicator.model.structured_output`'s);
- decodes at temperature 0 unless told otherwise;
- retries transport faults -- 429 (honouring ``Retry-After``), 408, 5xx, timeouts, refused or
  dropped connections -- with bounded exponential backoff
  (:class:`~adjudicator.model.transport.TransportPolicy`). litellm and the
  OpenAI SDK are called with ``num_retries=0, max_retries=0`` so nothing else retries. Other HTTP
  errors (400 bad request, 401/403 key, 404 model) are not retried;
- reads and writes the response cache (:mod:`adjudicator.model.cache`) under a key that hashes everything
  that shaped the request (model, API base, messages, decoding parameters, response format, template
  hash, node, unit key, attempt) and never the API key. It only *reads* in :meth:`LLMClient.complete`;
  the attempts runner writes with :meth:`LLMClient.remember` once a node's output validated, so an
  unparseable output is never cached as a success.

API keys come from the ``api_key`` argument (``ADJUDICATOR_API_KEY``) or, for a provider's own
endpoint only, the provider's usual environment variable (litellm reads it); any other ``api_base``
gets :data:`~adjudicator.model.preflight.PLACEHOLDER_KEY` instead
(:func:`~adjudicator.model.preflight.preflight`). Keys are never logged, hashed or returned. A reply
is read (text, tokens, cost) by :mod:`adjudicator.model.reply`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from typing import Any

from adjudicator.config import JSON_MODES, JsonMode
from adjudicator.model.cache import CachedResponse, NullCache, ResponseStore, request_key
from adjudicator.model.cache_control import explicit_prompt_cache, with_breakpoints
from adjudicator.model.chat import LOGPROB_NODES, NODE_MAX_TOKENS, ChatRequest, ChatResponse, RequestObserver
from adjudicator.model.context_window import known_window, overflow
from adjudicator.model.litellm_setup import WIRE, litellm_module
from adjudicator.model.logprobs import TOP_LOGPROBS
from adjudicator.model.preflight import PreflightGate, key_may_go_to, model_provider, preflight
from adjudicator.model.reply import cost_of, logprobs_of, reasoning_tokens_of, text_of, usage_of
from adjudicator.model.structured_output import SchemaRejected, StructuredOutput
from adjudicator.model.transport import PromptTooLong, TransportError, TransportPolicy, classify, describe_error, headers_of, is_connection_failure, request_limit, retry_after_s

log = logging.getLogger("adjudicator.model.llm")


#: (model, api_base) -> whether litellm sends that route's requests through the shared HTTP session
#: (so :data:`~adjudicator.model.litellm_setup.WIRE`'s hook fires); learnt from the first answered request of the route.
_WIRED_ROUTES: dict[tuple[str, str | None], bool] = {}


class LLMClient:
    """A litellm-backed chat client for one model. Thread-safe: the three judges may share it.

    Arguments: ``model`` a litellm model string (``deepseek/deepseek-chat``, ``ollama/qwen2.5:14b``,
    ``openai/<name>`` with ``api_base`` for an OpenAI-compatible server); ``api_base`` the server URL
    or None; ``api_key`` an explicit key or None for the provider's environment variable;
    ``timeout_s`` per-request timeout in seconds; ``temperature`` (default 0); ``seed`` a sampling seed sent with every request and part of
    its cache key (None = none sent; the repeats probe gives each run its own); ``logprobs`` asks for
    token log-probabilities on the requests of :data:`~adjudicator.model.chat.LOGPROB_NODES` (``--p-source
    logprob``, :mod:`adjudicator.model.logprobs`); ``max_tokens`` the
    completion budget for every request (None = the request's own budget, else
    :data:`NODE_MAX_TOKENS` for its node); ``json_mode`` auto/schema/object/none
    (:mod:`adjudicator.model.structured_output`); ``cache`` a :class:`~adjudicator.model.cache.ResponseCache` or None for no caching;
    ``policy`` the transport backoff; ``sleep`` injectable for tests; ``gate`` the run's
    :class:`PreflightGate` (this client is added to it), or None to send without a pre-flight check
    (``api_key`` is then used as given); ``observer`` is told about every HTTP request before it is
    sent and when it settles (:class:`~adjudicator.model.chat.RequestObserver`); ``max_concurrent``
    caps the requests in flight to this client's server (:func:`~adjudicator.model.transport.request_limit`; None = no cap), so a
    local server that answers one request at a time never queues a request past its timeout.
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        temperature: float = 0.0,
        seed: int | None = None,
        logprobs: bool = False,
        max_tokens: int | None = None,
        json_mode: JsonMode = "auto",
        cache: ResponseStore | None = None,
        policy: TransportPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        gate: PreflightGate | None = None,
        observer: RequestObserver | None = None,
        max_concurrent: int | None = None,
    ) -> None:
        if json_mode not in JSON_MODES:
            raise ValueError(f"json_mode must be one of {', '.join(JSON_MODES)}, got {json_mode!r}")
        self.model = model
        self.api_base = api_base.rstrip("/") if api_base else None
        self._api_key_given = api_key
        self._api_key = api_key  # the key sent; the gate replaces it with preflight's answer
        self.timeout_s = float(timeout_s)
        self.temperature = float(temperature)
        self.seed = seed
        self.logprobs = logprobs
        self.max_tokens = max_tokens
        self.cache: ResponseStore = cache if cache is not None else NullCache()
        self.policy = policy or TransportPolicy()
        self._sleep = sleep
        self.observer = observer
        self._lock = threading.Lock()
        self.structured = StructuredOutput(model, self.api_base, json_mode, self.cache)
        self.requests_sent = 0  # HTTP requests actually sent (transport retries included)
        self._unreachable = False  # set when retries ran out on a refused/dropped connection
        self._gate = gate
        if gate is not None:
            gate.add(self)
        self._limit = request_limit(self.api_base or model, max_concurrent) if max_concurrent else None

    @property
    def json_mode(self) -> JsonMode:
        """auto, schema, object or none (:mod:`adjudicator.model.structured_output`)."""
        return self.structured.json_mode

    def __repr__(self) -> str:  # never shows the key
        return f"LLMClient(model={self.model!r}, api_base={self.api_base!r}, json_mode={self.json_mode!r})"

    # -- request shape ---------------------------------------------------------------------------

    def supports_schema(self) -> bool:
        """Whether ``auto`` mode sends this client's requests a JSON schema
        (:meth:`~adjudicator.model.structured_output.StructuredOutput.supports_schema`)."""
        return self.structured.supports_schema()

    def asks_json_schema(self) -> bool:
        """Whether this client asks for strict ``json_schema`` (a model litellm says takes one under
        ``auto``, or ``--json-mode schema``), whether or not the server later refused it and the
        request went out as ``json_object`` (:meth:`~adjudicator.model.structured_output.StructuredOutput.asked_mode`):
        the same in every run on the same settings, so a prompt shaped by it is too (a rerun reads the cache)."""
        return self.structured.asked_mode() == "schema"

    def response_format(self, schema: Mapping[str, Any] | None, name: str = "output") -> dict[str, Any] | None:
        """The ``response_format`` sent for ``schema`` under this client's ``json_mode``, or None
        (:meth:`~adjudicator.model.structured_output.StructuredOutput.response_format`)."""
        return self.structured.response_format(schema, name)

    def resolve_key(self) -> None:
        """Run :func:`~adjudicator.model.preflight.preflight` for this client and keep the key it returns (called by the gate)."""
        self._api_key = preflight(self.model, self.api_base, self._api_key_given)

    def _key_may_go_to(self, url: str, key: str) -> bool | None:
        """The request hook's key check for this client (:func:`~adjudicator.model.preflight.key_may_go_to`):
        the key it chose goes to its API base's host (else the provider's own endpoint); any other key
        (a provider's key litellm read from the environment) to the provider's own endpoint only."""
        provider = model_provider(self.model)
        if self._api_key and key == self._api_key:
            return key_may_go_to(provider, self.api_base, url)
        own = key_may_go_to(provider, None, url)
        return own if self.api_base is None else bool(own)

    def budget_tokens(self, request: ChatRequest) -> int | None:
        """The completion budget (``max_tokens``) sent with ``request``: the request's own budget when
        it sets one (the attempts runner raises it after a truncated reply), else the configured
        ``max_tokens``, else :data:`NODE_MAX_TOKENS` for its node; None sends no budget."""
        if request.max_tokens is not None:
            return request.max_tokens
        return self.max_tokens if self.max_tokens is not None else NODE_MAX_TOKENS.get(request.node)

    def params(self, request: ChatRequest) -> dict[str, Any]:
        """The decoding parameters sent with ``request`` (no credentials, no transport settings)."""
        p: dict[str, Any] = {"temperature": self.temperature}
        if self.seed is not None:  # a sampling seed (repeats probe): sent, and part of the cache key
            p["seed"] = self.seed
        if self.logprobs and request.node in LOGPROB_NODES:  # --p-source logprob: token log-probabilities with their top alternatives
            p["logprobs"] = True
            p["top_logprobs"] = TOP_LOGPROBS
        budget = self.budget_tokens(request)
        if budget is not None:
            p["max_tokens"] = budget
        if request.frequency_penalty is not None:  # the resend after a truncated reply (attempts.after_truncation)
            p["frequency_penalty"] = request.frequency_penalty
        rf = self.response_format(request.schema, request.schema_name)
        if rf is not None:
            p["response_format"] = rf
        return p

    def cache_key(self, request: ChatRequest, attempt: int) -> str:
        """The cache key of ``request`` at ``attempt`` (1-3): a hash of model, API base, messages,
        parameters, template hash, node, unit key and attempt. Never includes the API key."""
        return request_key(
            {
                "model": self.model,
                "api_base": self.api_base,
                "messages": [dict(m) for m in request.messages],
                "params": self.params(request),
                "template_hash": request.template_hash,
                "node": request.node,
                "key": request.key,
                "attempt": attempt,
            }
        )

    # -- calls -----------------------------------------------------------------------------------

    def complete(self, request: ChatRequest, attempt: int = 1) -> ChatResponse:
        """Answer ``request`` for protocol attempt ``attempt``: from the cache when present, else by
        one model request with bounded transport retries.

        Returns a :class:`ChatResponse` (its ``text`` may be empty or unparseable: reading it is the
        caller's job). Raises :class:`TransportError` when the retries run out or the server refuses
        the request with a non-retryable status.
        """
        t0 = time.monotonic()
        lit = None
        retries = 0
        while True:
            key = self.cache_key(request, attempt)
            hit = self.cache.get(key)
            if hit is not None:
                return _cached_response(hit, key, time.monotonic() - t0)
            if lit is None:  # the first request this call must send: check the run's models, then import
                if self._gate is not None:
                    self._gate.ensure()
                lit = litellm_module()
            kwargs = self._kwargs(request)
            self._check_context_window(lit, kwargs)
            try:
                sent = self._send(lit, kwargs, request, attempt, retries)
                break
            except SchemaRejected as exc:  # auto and schema modes: fall back (json_object, then none), same attempt
                self.structured.drop_schema(exc.reason)
                retries = exc.retries + 1  # the rejected request was sent: it counts as a re-send
        resp, retries, request_id = sent
        latency = time.monotonic() - t0
        text, finish, reasoning_content = text_of(resp)
        tokens = usage_of(self.model, resp, kwargs["messages"], text, reasoning_content)
        cost = cost_of(resp, self.model, tokens)
        if self.observer is not None:
            self.observer.settled(request_id, prompt_tokens=tokens.prompt_tokens, completion_tokens=tokens.completion_tokens, cost_usd=cost,
                                  cached_tokens=tokens.cached_tokens, cache_write_tokens=tokens.cache_write_tokens)  # fmt: skip
        return ChatResponse(
            text=text,
            prompt_tokens=tokens.prompt_tokens,
            completion_tokens=tokens.completion_tokens,
            cached_tokens=tokens.cached_tokens,
            cache_write_tokens=tokens.cache_write_tokens,
            tokens_counted_locally=tokens.counted_locally,
            cost_usd=cost,
            latency_s=round(latency, 6),
            cache_hit=False,
            transport_retries=retries,
            finish_reason=finish,
            cache_key=key,
            reasoning_content=reasoning_content,
            reasoning_tokens=reasoning_tokens_of(self.model, resp, text, reasoning_content),
            logprobs=logprobs_of(resp) if self.logprobs else None,
            json_mode_fallback=self.structured.take_note(),
        )

    def before_first_request(self, check: Callable[[], None]) -> None:
        """Run ``check`` just before this client's (or its run's) next request, through the run's
        :class:`PreflightGate` (:meth:`PreflightGate.also_check`); a client without a gate runs it now.
        ``check`` raises :class:`~adjudicator.errors.InputError` to stop the run before any request."""
        if self._gate is not None:
            self._gate.also_check(check)
        else:
            check()

    def context_window(self) -> int | None:
        """The model's input context window in tokens where litellm knows it, else None
        (:func:`~adjudicator.model.context_window.known_window`; looked up once per client)."""
        if not hasattr(self, "_context_window"):
            self._context_window = known_window(self.model)
        return self._context_window

    def overflow(self, messages: Sequence[Mapping[str, Any]]) -> tuple[int, int] | None:
        """``(tokens, window)`` when ``messages`` cannot fit the model's known input context window,
        else None (:func:`~adjudicator.model.context_window.overflow`). Imports litellm."""
        return overflow(self.model, messages, self.context_window())

    def _check_context_window(self, lit: Any, kwargs: dict[str, Any]) -> None:
        """Refuse, before sending, a prompt that cannot fit the model's known context window
        (:meth:`overflow`): it would fail three times and be billed each time. Raises
        :class:`~adjudicator.model.transport.PromptTooLong` (non-retryable; nothing was sent)."""
        over = self.overflow(kwargs["messages"])
        if over is not None:
            n, window = over
            raise PromptTooLong(f"the prompt has about {n} tokens, more than {self.model}'s context window of {window}; nothing was sent", tokens=n, window=window)

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": with_breakpoints(request.messages, request.cache_points) if request.cache_points and explicit_prompt_cache(self.model) else [dict(m) for m in request.messages],
            "timeout": self.timeout_s * max(1, request.timeout_scale),
            "num_retries": 0,
            "max_retries": 0,
            "caching": False,
            **self.params(request),
        }
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if request.frequency_penalty is not None:  # a provider without the penalty (Anthropic) gets the request without it
            kwargs["drop_params"] = True
        if self._api_key:
            kwargs["api_key"] = self._api_key
        return kwargs

    def _send(self, lit: Any, kwargs: dict[str, Any], request: ChatRequest, attempt: int, retries: int) -> tuple[Any, int, str]:
        """One request with bounded transport retries: (litellm response, retries used, the
        observer's id of the request that got the reply, "" without an observer). Every request is
        reported to the observer before it is sent (:meth:`_call`), and every failed one settled
        with its error.

        Raises :class:`TransportError`, or :class:`~adjudicator.model.structured_output.SchemaRejected` when ``auto`` mode sent a JSON
        schema and the server refused it with a 4xx naming the response format or schema."""
        while True:
            if self.observer is not None and not self.observer.accepting():
                raise TransportError(f"{self.model}: request not sent: the session was stopped", retryable=False, retries=retries)
            with self._lock:
                self.requests_sent += 1
            ids: list[str] = []
            try:
                with self._limit or nullcontext():  # a queued request is recorded when it goes out, not while it waits
                    resp = self._call(lit, kwargs, request, attempt, ids)
                self._unreachable = False
                return resp, retries, ids[0] if ids else ""
            except Exception as exc:  # litellm maps every provider error to its own exception types
                refused = getattr(WIRE, "refused", None)
                if refused is not None:  # the request hook stopped it: it would have carried a key elsewhere
                    WIRE.refused = None
                    if self.observer is not None and ids:
                        self.observer.settled(ids[0], error="not sent: the key is not for that host")
                    where = self.api_base or "the provider's own endpoint"
                    raise TransportError(
                        f"{self.model}: request not sent: it was routed to {refused}, not {where}, and would have carried the key there",
                        retryable=False,
                        retries=retries,
                    ) from None
                retryable, status = classify(exc)
                reason = describe_error(exc, status)
                if self._api_key:
                    reason = reason.replace(self._api_key, "***")
                if self.observer is not None and ids:
                    self.observer.settled(ids[0], error=reason)
                if self.observer is not None and not self.observer.accepting():
                    # the session stopped while this request was on its way (the observer refuses a
                    # request from the request hook, which litellm reports as a server error): not a
                    # fault to retry or to log
                    raise TransportError(f"{self.model}: request not sent: the session was stopped", retryable=False, retries=retries) from None
                if self.structured.is_rejection(exc, status, kwargs):  # a 500 naming response_format too: never retried
                    raise SchemaRejected(reason, retries) from None
                if not retryable:
                    raise TransportError(f"{self.model}: request refused ({reason})", status=status, retryable=False, retries=retries) from None
                unreachable = is_connection_failure(exc)
                if unreachable:
                    where = self.api_base or "the provider's endpoint"
                    reason = f"cannot connect to {where} (connection refused, dropped or timed out before a reply)"
                if retries >= (0 if unreachable and self._unreachable else self.policy.max_retries):
                    if unreachable:
                        self._unreachable = True  # later calls try once instead of backing off again
                    raise TransportError(
                        f"{self.model}: {reason}; gave up after {retries + 1} request{'s' if retries else ''}",
                        status=status,
                        retryable=True,
                        retries=retries,
                    ) from None
                retries += 1
                wait = self.policy.delay_s(retries, retry_after_s(headers_of(exc)))
                log.warning("%s %s[%s] attempt %d: %s; retry %d in %.2fs", self.model, request.node, request.key, attempt, reason, retries, wait)
                self._sleep(wait)

    def _call(self, lit: Any, kwargs: dict[str, Any], request: ChatRequest, attempt: int, ids: list[str]) -> Any:
        """``litellm.completion(**kwargs)`` with the observer told before the request goes out; the
        observer's request id is appended to ``ids`` (left empty when nothing was sent).

        On a route known to use the shared HTTP session the request is recorded from its request
        hook, just before the bytes are written (:data:`~adjudicator.model.litellm_setup.WIRE`); on any other route (or one not
        seen yet) it is recorded before litellm is called -- earlier than needed, so a kill in
        between counts a request the server never saw, never the reverse."""
        obs = self.observer
        WIRE.guard, WIRE.refused = self._key_may_go_to, None
        try:
            if obs is None:
                return lit.completion(**kwargs)
            return self._observed_call(lit, kwargs, request, attempt, ids, obs)
        finally:
            WIRE.guard = None

    def _observed_call(self, lit: Any, kwargs: dict[str, Any], request: ChatRequest, attempt: int, ids: list[str], obs: RequestObserver) -> Any:
        """:meth:`_call` with a request observer: the request is recorded on the wire or before the call."""
        route = (self.model, self.api_base)
        wired = _WIRED_ROUTES.get(route, False)
        fired: list[bool] = []

        def on_wire() -> None:
            fired.append(True)
            if wired:
                ids.append(obs.sent(model=self.model, node=request.node, key=request.key, attempt=attempt))

        if not wired:
            ids.append(obs.sent(model=self.model, node=request.node, key=request.key, attempt=attempt))
        WIRE.mark = on_wire
        try:
            resp = lit.completion(**kwargs)
        finally:
            WIRE.mark = None
        if not wired:
            _WIRED_ROUTES[route] = bool(fired)
        elif not ids:  # answered without passing the hook: record it now
            ids.append(obs.sent(model=self.model, node=request.node, key=request.key, attempt=attempt))
        return resp

    def remember(self, response: ChatResponse, parsed: bool) -> None:
        """Store a response that came from the model (not from the cache) under its key.

        The attempts runner calls this only after the node produced a valid value, for every
        attempt of that node (``parsed`` False for the ones that were unreadable), so a rerun replays
        the same attempts without a request and a failed node is never cached.
        """
        if response.cache_hit or not response.cache_key:
            return
        self.cache.set(
            response.cache_key,
            CachedResponse(
                text=response.text,
                prompt_tokens=response.prompt_tokens,
                completion_tokens=response.completion_tokens,
                cached_tokens=response.cached_tokens,
                cache_write_tokens=response.cache_write_tokens,
                tokens_counted_locally=response.tokens_counted_locally,
                cost_usd=response.cost_usd,
                finish_reason=response.finish_reason,
                parsed=parsed,
                reasoning_content=response.reasoning_content,
                reasoning_tokens=response.reasoning_tokens,
                logprobs=list(response.logprobs) if response.logprobs is not None else None,
                json_mode_fallback=response.json_mode_fallback,
            ),
        )


def _cached_response(hit: CachedResponse, key: str, latency_s: float) -> ChatResponse:
    """The :class:`ChatResponse` of a cache hit under ``key`` (``latency_s``: the time the lookup took)."""
    return ChatResponse(
        text=hit.text,
        prompt_tokens=hit.prompt_tokens,
        completion_tokens=hit.completion_tokens,
        cached_tokens=hit.cached_tokens,
        cache_write_tokens=hit.cache_write_tokens,
        tokens_counted_locally=hit.tokens_counted_locally,
        cost_usd=hit.cost_usd,
        latency_s=round(latency_s, 6),
        cache_hit=True,
        finish_reason=hit.finish_reason,
        cache_key=key,
        reasoning_content=hit.reasoning_content,
        reasoning_tokens=hit.reasoning_tokens,
        logprobs=tuple(hit.logprobs) if hit.logprobs is not None else None,
        json_mode_fallback=hit.json_mode_fallback,
    )
