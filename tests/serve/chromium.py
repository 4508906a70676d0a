"""A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON messages
ended by a NUL byte on file descriptors 3 and 4), so a test can load a page, click it as a person would (mouse
events at an element's place on the screen), read it and take a screenshot, with no driver package."""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time

BINARIES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    return next((p for p in map(shutil.which, BINARIES) if p), None)


class Chromium:
    """One headless browser with one page. `evaluate` runs JavaScript in the page, `click` clicks the centre of
    the element a CSS selector finds, `wait_for` waits (boundedly) until an expression is true."""

    def __init__(self, binary: str, width: int = 1500, height: int = 950):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def pipes_as_3_and_4():
            a, b = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-dev-shm-usage", "--disable-extensions", f"--window-size={width},{height}",
             "--user-data-dir=" + os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tactician-chromium-{os.getpid()}"),
             "about:blank"],
            preexec_fn=pipes_as_3_and_4, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._id = 0
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False}, session=True)

    # ---- the protocol ----
    def call(self, method: str, params: dict | None = None, session: bool = False) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _read(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    # ---- the page ----
    def open(self, url: str) -> None:
        self.call("Page.navigate", {"url": url}, session=True)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, tries: int = 200, what: str = "") -> object:
        """Evaluate until the expression is true (up to `tries` times, 50 ms apart)."""
        for _ in range(tries):
            value = self.evaluate(f"!!({expression})")
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"the page never showed {what or expression}")

    def click(self, selector: str) -> None:
        """A left click at the centre of the first element `selector` finds, as mouse events."""
        box = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                            " e.scrollIntoView({block: 'center', inline: 'center'});"
                            " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        if box is None:
            raise AssertionError(f"nothing on the page matches {selector}")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
                      session=True)

    def type_text(self, text: str) -> None:
        self.call("Input.insertText", {"text": text}, session=True)

    def screenshot(self, path) -> bytes:
        data = base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
