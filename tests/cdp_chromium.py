"""A minimal headless-Chromium driver over the Chrome DevTools Protocol (websockets, synchronous).

Only what the live-board test needs: open a URL, evaluate JavaScript, take a full-page screenshot.

Chromium is kept to loopback and to a throw-away folder:

- it runs the browser binary itself (``/usr/lib/chromium/chromium``), not Debian's ``/usr/bin/chromium``
  launcher, which sources ``/etc/chromium.d`` (Google API keys, ``--enable-remote-extensions``,
  component extensions) and so turns background networking back on;
- ``HOME``, ``XDG_CONFIG_HOME``, ``XDG_CACHE_HOME``, ``XDG_DATA_HOME`` point into its folder (by
  default a fresh temporary one; the tests pass their ``tmp_path``) and ``TMPDIR`` into a short
  temporary folder (Unix socket paths are limited to 107 bytes), both deleted on close; GSettings uses its
  in-memory backend and the D-Bus session address points nowhere, so nothing is written under the real home (no
  ``~/.config/chromium/Crash Reports``, no ``~/.cache/dconf``);
- :data:`NETWORK_FLAGS` switch off every service that talks to Google (background networking,
  component and extension updates, sync, pings, domain reliability, crash reporting, metrics upload,
  field trials) and ``--host-resolver-rules`` maps every host name to "not found" except 127.0.0.1 and
  localhost, so no DNS lookup leaves the machine even if a service were left on. Only flags this
  Chromium (156) actually has are passed (``disable-crash-reporter``, ``dns-prefetch-disable`` and
  ``disable-client-side-phishing-detection`` no longer exist).

One thing no switch stops: before each host resolution (even of the literal 127.0.0.1) Chromium's
resolver tests IPv6 reachability, at most once a second, by ``connect()``-ing a UDP socket to
2001:4860:4860::8888 port 443 and reading back the local address. A UDP ``connect()`` only selects a
route; no datagram is sent (:func:`trace_findings` flags any data written to such a socket).

Its DevTools endpoint listens on 127.0.0.1 on a port it picks itself (read from ``DevToolsActivePort``
in the profile folder). ``test_live_browser.py`` runs it under strace to check all of this.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

# the browser binary itself; Debian's launcher script only as a fallback
CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if Path(p).exists()), "/usr/bin/chromium")

NETWORK_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-component-extensions-with-background-pages",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--no-pings",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--disable-field-trial-config",
    "--metrics-recording-only",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-search-engine-choice-screen",
    "--password-store=basic",
    "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,"
    "CertificateTransparencyComponentUpdater,NetworkTimeServiceQuerying,InterestFeedContentSuggestions",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
)

# environment variables that would hand Chromium Google credentials or extra flags
#: Chromium's answers to an evaluation that meets the page mid-navigation (a reload, a redirect).
NAVIGATING = ("Inspected target navigated or closed", "Cannot find context with specified id", "Execution context was destroyed")
_DROPPED_ENV = ("GOOGLE_API_KEY", "GOOGLE_DEFAULT_CLIENT_ID", "GOOGLE_DEFAULT_CLIENT_SECRET", "CHROMIUM_FLAGS", "CHROME_WRAPPER")


def isolated_env(root: Path, tmp: Path) -> dict[str, str]:
    """The environment Chromium runs in: the current one with home and XDG folders moved under ``root``
    and TMPDIR to ``tmp`` (all created), GSettings in memory, no D-Bus session, no Google API keys, no
    proxy. ``tmp`` must be a short path: Chromium's singleton socket lives there and a Unix socket path
    has at most 107 bytes."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV and not k.lower().endswith("_proxy")}
    home = root / "home"
    dirs = {
        "HOME": home,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_STATE_HOME": home / ".local" / "state",
        "XDG_RUNTIME_DIR": tmp / "run",
        "TMPDIR": tmp,
    }
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
    env.update({k: str(v) for k, v in dirs.items()})
    env.update({"GSETTINGS_BACKEND": "memory", "DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp / 'run' / 'no-bus'}", "NO_PROXY": "*"})
    return env


class Chromium:
    """``with Chromium(url) as page: page.eval("document.title")``."""

    def __init__(
        self,
        url: str,
        width: int = 1280,
        height: int = 1000,
        timeout_s: float = 30.0,
        root: Path | None = None,
        wrapper: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        """Start Chromium on ``url``. ``root``: the folder for its home, profile and temporary files
        (created; default a fresh temporary folder; a short temporary folder holds its sockets and
        TMPDIR); both are deleted by :meth:`close`. ``wrapper``: a command prefix (e.g. ``strace -f
        -o FILE``) that runs Chromium. ``env``: extra environment variables (e.g. ``FONTCONFIG_FILE``).
        Chromium runs in its own process group."""
        self.root = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="live-board-chromium-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.profile = self.root / "profile"
        self.profile.mkdir(exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix="cdp-"))  # short: holds Chromium's singleton socket
        env = isolated_env(self.root, self.tmp) | dict(env or {})
        self.log = self.root / "chromium.log"
        self._log_fh = open(self.log, "wb")
        self.port: int | None = None
        self.proc = subprocess.Popen(
            [
                *wrapper, CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", *NETWORK_FLAGS,
                f"--user-data-dir={self.profile}", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                f"--window-size={width},{height}", url,
            ],
            stdout=subprocess.DEVNULL, stderr=self._log_fh, env=env, cwd=self.root, start_new_session=True,
        )
        self._ids = itertools.count(1)
        self._stack = contextlib.ExitStack()
        try:
            self.port = port = self._devtools_port(timeout_s)
            ws_url = self._page_target(port, timeout_s)
            self.ws = self._stack.enter_context(connect(ws_url, max_size=None, open_timeout=timeout_s))
        except BaseException:
            self.close()
            raise

    def _devtools_port(self, timeout_s: float) -> int:
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log.read_text(errors="replace").strip().splitlines()[-5:]
                raise RuntimeError(f"chromium exited with code {self.proc.returncode}: " + " | ".join(tail))
            if marker.exists():
                first = marker.read_text().splitlines()[:1]
                if first and first[0].isdigit():
                    return int(first[0])
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its DevTools port")

    def _page_target(self, port: int, timeout_s: float) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                targets = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=5, trust_env=False).json()
                pages = [t for t in targets if t.get("type") == "page" and t.get("webSocketDebuggerUrl")]
                if pages:
                    return pages[0]["webSocketDebuggerUrl"]
            except (httpx.TransportError, ValueError):
                pass
            time.sleep(0.05)
        raise RuntimeError("chromium exposed no page target")

    def call(self, method: str, **params) -> dict:
        """Send one CDP command and return its result (events in between are skipped)."""
        mid = next(self._ids)
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=30))
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def eval(self, expression: str):
        """The JSON value of a JavaScript expression in the page (None on a page-side exception)."""
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            return None
        return r.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout_s: float = 20.0):
        """Poll ``expression`` until it is truthy; return its value. A poll that meets the page mid-navigation
        (Chromium's :data:`NAVIGATING` errors) counts as not yet. Raises AssertionError on timeout."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                value = self.eval(expression)
            except RuntimeError as e:  # the page is navigating (a reload, a redirect): poll its next document
                if not any(m in str(e) for m in NAVIGATING):
                    raise
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for: {expression}")
            time.sleep(0.05)

    def screenshot(self, path: Path) -> Path:
        """Save a full-page PNG screenshot to ``path``."""
        metrics = self.call("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True, clip=clip)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def _browser_close(self) -> None:
        """Ask the browser to quit over its own DevTools session (``Browser.close``)."""
        if self.port is None:
            return
        try:
            info = httpx.get(f"http://127.0.0.1:{self.port}/json/version", timeout=5, trust_env=False).json()
            with connect(info["webSocketDebuggerUrl"], open_timeout=5) as ws:
                ws.send(json.dumps({"id": 1, "method": "Browser.close"}))
                ws.recv(timeout=5)
        except Exception:
            pass

    def _group_members(self) -> list[int]:
        """Pids still in the process group Chromium (or its wrapper) leads (Linux /proc)."""
        members = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == self.proc.pid:  # fields after "(comm)": state, ppid, pgrp, ...
                members.append(int(stat.parent.name))
        return members

    def _signal_group(self, sig: int) -> None:
        # only while the group has members, so its id cannot have been reused by another process
        if self._group_members():
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def close(self) -> None:
        """Close the connection, quit Chromium (``Browser.close``; then SIGTERM and SIGKILL to its
        process group if it lingers), delete its folders (home, profile, temporary files)."""
        try:
            self._stack.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            self._browser_close()
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    self.proc.wait(10)
                    break
                except subprocess.TimeoutExpired:
                    self._signal_group(sig)
            else:
                self.proc.wait(10)
        # the browser has quit; its helpers (zygotes, GPU, utility) linger a second or so: end them too
        for sig in (signal.SIGTERM, signal.SIGKILL):
            self._signal_group(sig)
            deadline = time.monotonic() + 5
            while self._group_members() and time.monotonic() < deadline:
                time.sleep(0.02)
        self._log_fh.close()
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---------------------------------------------------------------------------------------------
# Checking an strace log of Chromium: loopback only, nothing written under the real home

#: ``strace`` prefix for :class:`Chromium` (``wrapper=strace_wrapper(path)``): follows every process,
#: annotates socket descriptors with their endpoints (-yy), records network calls, data writes and
#: file creation / modification.
STRACE_CALLS = (
    "network,write,writev,close,open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,"
    "unlink,unlinkat,truncate,symlink,symlinkat,link,linkat"
)
_SYSCALL = re.compile(r"^\d+\s+(\w+)\(")
_SOCKADDR = re.compile(
    r"sa_family=(AF_INET6?), sin6?_port=htons\((\d+)\),.*?(?:inet_addr\(\"([^\"]+)\"\)|inet_pton\(AF_INET6, \"([^\"]+)\")"
)
_FD_ENDPOINTS = re.compile(r"<(TCP|UDP)(?:v6)?:\[([^<>]*?)->([^<>]*?)\]>")
_DATA_CALLS = {"sendto", "sendmsg", "sendmmsg", "write", "writev"}
_WRITE_FLAGS = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC")
_PATH_CALLS = {"mkdir", "mkdirat", "rename", "renameat", "renameat2", "unlink", "unlinkat", "truncate", "symlink", "symlinkat", "link", "linkat"}


def strace_wrapper(trace: Path) -> tuple[str, ...]:
    """The ``wrapper`` that runs Chromium under strace, logging to ``trace``."""
    return ("strace", "-f", "-qq", "-yy", "-o", str(trace), "-e", f"trace={STRACE_CALLS}")


def _loopback(host: str) -> bool:
    host = host.strip("[]")
    return host.startswith("127.") or host in ("::1", "localhost") or host.startswith("::ffff:127.")


def trace_findings(lines, home: Path, allowed: tuple[Path, ...] = ()) -> dict[str, list[str]]:
    """Classify an ``strace -f -yy`` log of Chromium. Returns ``{"violations": [...], "probes": [...],
    "loopback": [...]}`` (lines):

    - violations: a DNS query (anything to port 53); a TCP connection, or any datagram, to an address
      other than 127.0.0.0/8 or ::1; data written to a socket whose peer is such an address; a file
      created, opened for writing, renamed, removed or linked under ``home`` (outside ``allowed``);
    - probes: ``connect()`` of a UDP socket to a non-loopback address with no data sent (Chromium's
      resolver picks a route this way to test IPv6 reachability: nothing leaves the machine);
    - loopback: connections to loopback addresses (the test server, DevTools).
    """
    home_s = str(home).rstrip("/")
    allowed_s = [str(a).rstrip("/") + "/" for a in allowed]
    out: dict[str, list[str]] = {"violations": [], "probes": [], "loopback": []}
    for line in lines:
        line = line.rstrip("\n")
        m = _SYSCALL.match(line)
        if not m:
            continue  # "<... resumed>" lines: the arguments were on the "<unfinished ...>" line
        call = m.group(1)
        addr = _SOCKADDR.search(line)
        if addr and call in ("connect", "sendto", "sendmsg", "sendmmsg"):
            host, port = addr.group(3) or addr.group(4), int(addr.group(2))
            if port == 53:
                out["violations"].append(line)
            elif _loopback(host):
                out["loopback"].append(line)
            elif call == "connect" and "<UDP" in line.split(",", 1)[0]:
                out["probes"].append(line)
            else:
                out["violations"].append(line)
            continue
        peer = _FD_ENDPOINTS.search(line)
        if peer and call in _DATA_CALLS:
            remote = peer.group(3).rsplit(":", 1)[0]
            if not _loopback(remote):
                out["violations"].append(line)
            continue
        if call in ("open", "openat", "creat") or call in _PATH_CALLS:
            if call in ("open", "openat") and not _WRITE_FLAGS.search(line):
                continue
            for path in re.findall(r'"([^"]*)"', line):
                if (path == home_s or path.startswith(home_s + "/")) and not any(path.startswith(a) for a in allowed_s):
                    out["violations"].append(line)
                    break
    return out
