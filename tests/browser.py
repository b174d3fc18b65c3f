"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
file descriptors 3 and 4, NUL-terminated JSON), with no extra dependency: open a page, collect
its console errors and uncaught exceptions, evaluate JavaScript, take a full-page screenshot."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
]

MISSING = (
    "chromium is not installed: the browser test needs Debian's chromium package "
    "(`make test` installs it with apt-get; or run `apt-get install -y chromium`)"
)


def chromium_path() -> str:
    """The Chromium executable; a clear error when it is missing (the test must not skip)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError(MISSING)


class Browser:
    """One headless Chromium with one page attached (``with Browser() as b: ...``)."""

    def __init__(self, width: int = 1280, height: int = 900) -> None:
        self.width, self.height = width, height
        self.events: list[dict[str, Any]] = []
        self._id = 0

    def __enter__(self) -> Browser:
        self._profile = tempfile.mkdtemp(prefix="taiwa-chromium-")
        import fcntl

        read_end, self._to_child = os.pipe()
        self._from_child, write_end = os.pipe()
        # the child must find the pipes at fds 3 (commands) and 4 (replies): move them high
        # first so that putting them in place cannot overwrite one another
        high_r = fcntl.fcntl(read_end, fcntl.F_DUPFD_CLOEXEC, 100)
        high_w = fcntl.fcntl(write_end, fcntl.F_DUPFD_CLOEXEC, 100)
        os.close(read_end)
        os.close(write_end)

        def place() -> None:
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [chromium_path(), *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,  # fds 3 and 4 must survive; every other fd is close-on-exec
            preexec_fn=place,
        )
        os.close(high_r)
        os.close(high_w)
        self._buf = b""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=self.width,
            height=self.height,
            deviceScaleFactor=1,
            mobile=False,
        )
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError, RuntimeError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self._profile, ignore_errors=True)

    def _read(self, timeout: float) -> dict[str, Any]:
        import select

        end = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = end - time.monotonic()
            ready, _, _ = select.select([self._from_child], [], [], max(0.0, left))
            if not ready:
                raise RuntimeError("chromium did not answer in time")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return dict(json.loads(raw))

    def call(
        self, method: str, *, session: bool = False, timeout: float = 60, **params: Any
    ) -> dict[str, Any]:
        """Send one command and wait for its result (events meanwhile are kept)."""
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def open(self, url: str, timeout: float = 60) -> None:
        """Navigate and wait for the load event."""
        self.call("Page.navigate", session=True, url=url)
        end = time.monotonic() + timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._read(max(0.1, end - time.monotonic())))

    def evaluate(self, expression: str, *, wait: bool = False, timeout: float = 60) -> Any:
        """The JSON value of a JavaScript expression in the page (``wait``: of the promise it
        gives, once settled)."""
        res = self.call(
            "Runtime.evaluate",
            session=True,
            timeout=timeout,
            expression=expression,
            returnByValue=True,
            awaitPromise=wait,
        )
        if "exceptionDetails" in res:
            raise RuntimeError(f"page script failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(str(p["exceptionDetails"].get("text")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(str(p["entry"].get("text")))
        return out

    def screenshot(self, path: Path) -> Path:
        """A PNG of the whole page (not only the viewport)."""
        size = self.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
        return self.screenshot_region(path, 0, 0, size["width"], size["height"])

    def screenshot_region(
        self, path: Path, x: float, y: float, width: float, height: float
    ) -> Path:
        """A PNG of one region of the page (CSS pixels from the page's top left, the page
        scrolled to its top)."""
        clip = {"x": x, "y": y, "width": width, "height": height, "scale": 1}
        data = self.call(
            "Page.captureScreenshot",
            session=True,
            format="png",
            clip=clip,
            captureBeyondViewport=True,
        )["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path
