"""Running the live app: the access token file, the listening socket, uvicorn in the foreground
(``adjudicate live serve``) or in a background thread (tests, benchmarks).

The token is created once per state directory and kept in ``STATE_DIR/access.json`` (mode 0600)
together with the URLs, so organiser links stay valid across restarts and ``adjudicate live push``
can find the server without flags. uvicorn serves HTTPS when given a certificate and its key
(:func:`check_tls`), and its access log never shows a query string's values (:class:`RedactQuery`):
the organiser's and chairs' page links carry their token as ``?token=``.

uvicorn waits for a request's head for ever: a client that connects and sends nothing (or half a
header) holds a file descriptor until it leaves, so ~20,000 such connections exhausted the server's
descriptors without a token. :func:`deadline_protocol` closes a connection whose head has not arrived
within :data:`HEAD_TIMEOUT_S` (counted from the connection, or from the first byte of a kept-alive
connection's next request) or whose body has not within :data:`BODY_TIMEOUT_S`, and at most
:data:`MAX_PENDING_HEADS` connections may wait for their head at once (the oldest is closed first), so
half-open connections hold a bounded number of descriptors. The protocol also counts the open
connections for the app's caps on connections and event streams (:mod:`adjudicator.live.server.capacity`).
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import secrets
import socket
import ssl
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Literal

import uvicorn
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from adjudicator.errors import InputError
from adjudicator.files import atomic_write_text
from adjudicator.live.server.capacity import Capacity

ACCESS_FILE = "access.json"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8421
"""``live serve``'s port unless told: not 8765 (llama.cpp's examples and this project's local model server),
8000 (vLLM), 8080 (llama.cpp's server), 11434 (Ollama) or 1234 (LM Studio), so a client command that
finds no access file does not talk to a model server by mistake."""
LOOPBACK = {"127.0.0.1", "::1", "localhost"}

#: Seconds a connection has to send its request's head (request line and headers) after it opens, or
#: after the first byte of its next request when kept alive. A browser or ``adjudicate live push``
#: sends it in one write, within milliseconds; 10 s leaves room for a slow link.
HEAD_TIMEOUT_S = 10.0
#: Seconds a request has to send its body after its head: the largest body the server takes is 1 MiB
#: (``max_body_bytes``), 60 s is 17 KB/s.
BODY_TIMEOUT_S = 60.0
#: Most connections that may wait for their request's head at once; past it the one that has waited
#: longest is closed. A half-open flood then holds at most this many descriptors (the process's soft
#: limit is commonly 1,024), while a real client, whose head arrives within milliseconds, is rarely
#: the oldest.
MAX_PENDING_HEADS = 256
#: Seconds an idle kept-alive connection stays open after a response (uvicorn's default, stated).
KEEP_ALIVE_S = 5


def access_path(state_dir: str | Path) -> Path:
    """``STATE_DIR/access.json``."""
    return Path(state_dir) / ACCESS_FILE


def read_access(state_dir: str | Path) -> dict[str, Any] | None:
    """The access file's content (``url``, ``organiser_url``, ``board_url``, ``token``), or None."""
    p = access_path(state_dir)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def load_or_create_token(state_dir: str | Path) -> str:
    """The state directory's access token: the one in ``access.json`` if present, else a new random
    URL-safe token (32 bytes of entropy)."""
    old = read_access(state_dir) or {}
    tok = old.get("token")
    return tok if isinstance(tok, str) and len(tok) >= 16 else secrets.token_urlsafe(32)


def urls(base_url: str, token: str) -> dict[str, str]:
    """The organiser URL (with the token) and the read-only board URL for a server at ``base_url``."""
    return {"url": base_url, "organiser_url": f"{base_url}/organiser?token={token}", "board_url": f"{base_url}/board", "token": token}


def write_access(state_dir: str | Path, base_url: str, token: str, tls_cert: str | Path | None = None) -> Path:
    """Write ``access.json`` (mode 0600) and return its path; ``tls_cert``, the certificate an ``https``
    server was started with, is kept for the local client commands to trust."""
    p = access_path(state_dir)
    data: dict[str, Any] = urls(base_url, token)
    if tls_cert is not None:
        data["tls_cert"] = str(Path(tls_cert).resolve())
    atomic_write_text(p, json.dumps(data, indent=2) + "\n", private=True)
    return p


def check_tls(cert: str | Path | None, key: str | Path | None) -> tuple[str, str] | None:
    """``(cert, key)`` once both load as a certificate chain (``live serve --tls-cert --tls-key``), or
    None for plain HTTP. Raises :class:`~adjudicator.errors.InputError` (one line) when only one is
    given or they do not load."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise InputError(f"--tls-{'cert' if cert is None else 'key'}: HTTPS needs both --tls-cert and --tls-key", "give the certificate and its private key (PEM files)")
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(str(cert), str(key))
    except (OSError, ssl.SSLError) as exc:
        raise InputError(f"--tls-cert {cert} / --tls-key {key}: cannot be loaded ({getattr(exc, 'strerror', None) or exc})",
                         "give a PEM certificate and the private key it was made with") from None
    return str(cert), str(key)


class RedactQuery(logging.Filter):
    """Writes uvicorn's access log lines with every query value replaced by ``***``: the organiser's and
    the chairs' page links carry their token as ``?token=...``, and a log file is read by more people
    than the token's holder. The path, the parameter names and the status stay."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str) and "?" in args[2]:
            record.args = (*args[:2], redact_query(args[2]), *args[3:])
        return True


def redact_query(path: str) -> str:
    """``/board/x?token=abc&wait=false`` -> ``/board/x?token=***&wait=***``."""
    head, _, query = path.partition("?")
    parts = [p.split("=", 1)[0] + "=***" if p else p for p in query.split("&")]
    return head + "?" + "&".join(parts)


def _redact_access_log() -> None:
    """Install :class:`RedactQuery` on uvicorn's access logger (once)."""
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactQuery) for f in logger.filters):
        logger.addFilter(RedactQuery())


def bind_socket(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (port 0 picks a free port). Raises OSError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: a response's header and body writes then go out at once
    # instead of the body waiting ~40 ms for the client's delayed ACK (Nagle's algorithm)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def base_url_of(sock: socket.socket, tls: bool = False) -> str:
    """``http://host:port`` (``https`` with ``tls``) of a bound socket (IPv6 hosts in brackets)."""
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        host = socket.gethostname()
    scheme = "https" if tls else "http"
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


class _Server(uvicorn.Server):
    """uvicorn, ending the app's event streams first when asked to exit (Ctrl+C, SIGTERM)."""

    def __init__(self, config: uvicorn.Config, app) -> None:
        super().__init__(config)
        self._live_app = app

    def handle_exit(self, sig, frame) -> None:
        hub = getattr(self._live_app.state, "hub", None)
        if hub is not None:
            hub.close()
        super().handle_exit(sig, frame)


def deadline_protocol(head_timeout_s: float = HEAD_TIMEOUT_S, body_timeout_s: float = BODY_TIMEOUT_S, max_pending: int = MAX_PENDING_HEADS,
                      capacity: Capacity | None = None) -> type:
    """uvicorn's HTTP protocol class (httptools, else h11) with the deadlines of the module docstring:
    a connection still waiting for its request's head after ``head_timeout_s`` seconds, or for its
    body ``body_timeout_s`` seconds after the head, is closed without a reply, and when more than
    ``max_pending`` connections wait for their head the one that has waited longest is closed. A
    request that has been read whole (an event stream included) is never timed out here. Each call
    makes a class with its own count of waiting connections (one per server). ``capacity``, when given,
    has its ``connections`` kept up to date (the app's :class:`~adjudicator.live.server.capacity.CapacityGuard`
    reads it)."""
    waiting: OrderedDict[Any, None] = OrderedDict()  # connections waiting for their head, oldest first
    base: Any = AutoHTTPProtocol  # httptools' protocol when installed, else h11's (uvicorn's choice)

    class DeadlineProtocol(base):
        _deadline: asyncio.TimerHandle | None = None
        _waiting_for: Literal["head", "body"] | None = None

        def connection_made(self, transport: Any) -> None:
            if capacity is not None:
                capacity.connections += 1
            super().connection_made(transport)
            self._watch()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            if capacity is not None:
                capacity.connections -= 1
            self._set(None)
            super().connection_lost(exc)

        def _awaited(self) -> Literal["head", "body"] | None:
            """What the connection waits for: a request's head (none yet, or the last one answered),
            its body, or nothing (a request read whole is with the app)."""
            cycle = self.cycle
            if cycle is None or cycle.response_complete:
                return "head"
            return "body" if cycle.more_body else None

        def _watch(self) -> None:
            """Arm the deadline of what the connection now waits for (called when it opens and after
            each read; an idle kept-alive connection is left to uvicorn's keep-alive timer until the
            first byte of its next request)."""
            if self.transport is None or self.transport.is_closing():
                return self._set(None)
            awaited = self._awaited()
            if awaited != self._waiting_for:
                self._set(awaited)

        def _set(self, awaited: Literal["head", "body"] | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            waiting.pop(self, None)
            self._waiting_for = awaited
            if awaited is None:
                return
            self._deadline = self.loop.call_later(head_timeout_s if awaited == "head" else body_timeout_s, self._expire)
            if awaited == "head":
                waiting[self] = None
                while len(waiting) > max_pending:
                    oldest, _ = waiting.popitem(last=False)
                    oldest._expire()

        def _expire(self) -> None:
            self._set(None)
            if self.transport is not None and not self.transport.is_closing():
                self.transport.close()

    return DeadlineProtocol


def _config(app, log_level: str, protocol: type | None = None, tls: tuple[str, str] | None = None) -> uvicorn.Config:
    protocol = protocol or deadline_protocol(capacity=getattr(app.state, "capacity", None))
    config = uvicorn.Config(
        app,
        log_level=log_level,
        timeout_graceful_shutdown=3,
        lifespan="on",
        ws="none",
        access_log=log_level in ("debug", "info"),
        http=protocol,
        timeout_keep_alive=KEEP_ALIVE_S,
        ssl_certfile=tls[0] if tls else None,
        ssl_keyfile=tls[1] if tls else None,
        log_config=_log_config(),
    )
    _redact_access_log()  # after the Config: it (re)configures uvicorn's loggers
    return config


def _log_config() -> dict[str, Any]:
    """uvicorn's logging set-up with its access log on stderr beside its other lines (uvicorn writes it
    to stdout, which carries only the organiser's URLs: the house rule for every command's stdout)."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    return config


def serve_forever(app, sock: socket.socket, log_level: str = "info", tls: tuple[str, str] | None = None) -> None:
    """Serve ``app`` on ``sock`` in the foreground until interrupted (HTTPS with ``tls`` = (cert, key))."""
    _Server(_config(app, log_level, tls=tls), app).run(sockets=[sock])


class LiveServer:
    """The live app served by uvicorn in a background thread, on 127.0.0.1 and a free port by default.

    Use as a context manager; ``url`` is the base URL once started. ``stop()`` ends the event
    streams, shuts uvicorn down (the app then closes its store) and joins the thread. ``protocol``:
    the HTTP protocol class (default :func:`deadline_protocol` with the module's deadlines); ``tls``:
    (certificate, key) files to serve HTTPS.
    """

    def __init__(self, app, host: str = DEFAULT_HOST, port: int = 0, log_level: str = "warning", protocol: type | None = None,
                 tls: tuple[str, str] | None = None) -> None:
        self.app = app
        self.sock = bind_socket(host, port)
        self.url = base_url_of(self.sock, tls=tls is not None)
        self.server = _Server(_config(app, log_level, protocol, tls), app)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, name="live-uvicorn", daemon=True)

    def start(self, timeout_s: float = 20.0) -> "LiveServer":
        """Start serving; returns once uvicorn has started. Raises RuntimeError on timeout."""
        self.thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the live server did not start")
            time.sleep(0.01)
        return self

    def stop(self, timeout_s: float = 20.0) -> None:
        """Shut down and wait for the thread (and the app's store) to finish."""
        hub = getattr(self.app.state, "hub", None)
        if hub is not None:
            hub.close()
        self.server.should_exit = True
        self.thread.join(timeout_s)
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> "LiveServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def warn_if_exposed(host: str, tls: bool = False) -> None:
    """One stderr line when the server listens beyond loopback (and one more without TLS)."""
    if host not in LOOPBACK:
        print(
            f"adjudicate live: listening on {host}: anyone who can reach it can read the public boards; writes still need a token",
            file=sys.stderr,
        )
        if not tls:
            print(
                "adjudicate live: plain HTTP: tokens cross the network readable by anyone on the way; give --tls-cert/--tls-key, or serve behind an HTTPS reverse proxy",
                file=sys.stderr,
            )
