"""Running the live app: the access token file, the listening socket, uvicorn in the foreground
(``adjudicate live serve``) or in a background thread (tests, benchmarks).

The token is created once per state directory and kept in ``STATE_DIR/access.json`` (mode 0600)
together with the URLs, so organiser links stay valid across restarts and ``adjudicate live push``
can find the server without flags.
"""

from __future__ import annotations

import json
import secrets
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from adjudicator.files import atomic_write_text

ACCESS_FILE = "access.json"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
LOOPBACK = {"127.0.0.1", "::1", "localhost"}


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


def write_access(state_dir: str | Path, base_url: str, token: str) -> Path:
    """Write ``access.json`` (mode 0600) and return its path."""
    p = access_path(state_dir)
    atomic_write_text(p, json.dumps(urls(base_url, token), indent=2) + "\n", private=True)
    return p


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


def base_url_of(sock: socket.socket) -> str:
    """``http://host:port`` of a bound socket (IPv6 hosts in brackets)."""
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        host = socket.gethostname()
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


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


def _config(app, log_level: str) -> uvicorn.Config:
    return uvicorn.Config(app, log_level=log_level, timeout_graceful_shutdown=3, lifespan="on", ws="none", access_log=log_level in ("debug", "info"))


def serve_forever(app, sock: socket.socket, log_level: str = "info") -> None:
    """Serve ``app`` on ``sock`` in the foreground until interrupted."""
    _Server(_config(app, log_level), app).run(sockets=[sock])


class LiveServer:
    """The live app served by uvicorn in a background thread, on 127.0.0.1 and a free port by default.

    Use as a context manager; ``url`` is the base URL once started. ``stop()`` ends the event
    streams, shuts uvicorn down (the app then closes its store) and joins the thread.
    """

    def __init__(self, app, host: str = DEFAULT_HOST, port: int = 0, log_level: str = "warning") -> None:
        self.app = app
        self.sock = bind_socket(host, port)
        self.url = base_url_of(self.sock)
        self.server = _Server(_config(app, log_level), app)
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


def warn_if_exposed(host: str) -> None:
    """One stderr line when the server listens beyond loopback."""
    if host not in LOOPBACK:
        print(
            f"adjudicate live: listening on {host}: anyone who can reach it can read the boards; writes still need the token",
            file=sys.stderr,
        )
