"""The model boundary, in the order a request travels.

- ``prompts``: the Jinja environment; renders a node's template into chat messages and hashes the
  template with its partials.
- ``schema``: pydantic output models reduced to the plain JSON Schema sent as ``response_format``.
- ``chat``: the request of one node and the outcome of one attempt.
- ``litellm_setup``: the only litellm importer; imports and configures it once, lazily.
- ``preflight``: a run's models checked (routing, keys) just before its first request.
- ``llm``: the client; sends a request (context window, cache reads, the request observer).
- ``structured_output``: which ``response_format`` a request carries under ``json_mode``, and a
  server's refusal of a schema remembered.
- ``reply``: what a reply says: text, reasoning, tokens, cost.
- ``transport``: transport faults and their bounded, Retry-After-honouring retries; the cap per server.
- ``context_window``: whether a prompt fits its model, checked before sending.
- ``cache``: the only diskcache importer; the response cache keyed on everything that shaped a request.
- ``parsing``: reading a raw reply in three stages (strict JSON, normalised, field-level expressions).
  ``reasoning`` sets a reasoning model's draft aside first; ``near_json`` is stage 2's repairs;
  ``validators`` the field checks every node shares (scores, p, votes).
- ``attempts``: the protocol's up-to-three attempts per node, every raw output kept.
"""
