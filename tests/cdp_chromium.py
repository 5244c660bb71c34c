"""A minimal headless-Chromium driver over the Chrome DevTools Protocol (websockets, synchronous).

Only what the live-board test needs: open a URL, evaluate JavaScript, take a full-page screenshot.
Chromium runs with no network features (no background networking, component updates or sync), a
throw-away profile, and its DevTools endpoint on a port it picks itself (read from
``DevToolsActivePort`` in the profile folder).
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

CHROMIUM = "/usr/bin/chromium"


class Chromium:
    """``with Chromium(url) as page: page.eval("document.title")``."""

    def __init__(self, url: str, width: int = 1280, height: int = 1000, timeout_s: float = 30.0) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="live-board-chromium-"))
        self.proc = subprocess.Popen(
            [
                CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
                "--disable-dev-shm-usage", "--no-default-browser-check", f"--user-data-dir={self.profile}",
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", f"--window-size={width},{height}", url,
            ],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self._ids = itertools.count(1)
        self._stack = contextlib.ExitStack()
        try:
            port = self._devtools_port(timeout_s)
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
                raise RuntimeError(f"chromium exited with code {self.proc.returncode}")
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
        """Poll ``expression`` until it is truthy; return its value. Raises AssertionError on timeout."""
        deadline = time.monotonic() + timeout_s
        while True:
            value = self.eval(expression)
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

    def close(self) -> None:
        """Close the connection, stop Chromium, delete the profile."""
        try:
            self._stack.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
