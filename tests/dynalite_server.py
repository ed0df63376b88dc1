"""dynalite, an independent DynamoDB implementation (Node.js), run on 127.0.0.1 for the differential test.

``make test`` installs it into ``tests/dynalite/node_modules`` (``npm ci --prefix tests/dynalite``) when npm
exists. :func:`dynalite_missing` says why it cannot run here; :class:`Dynalite` starts it on a free port and
stops it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

CLI = Path(__file__).resolve().parent / "dynalite" / "node_modules" / "dynalite" / "cli.js"


def dynalite_missing() -> str | None:
    """Why dynalite cannot run on this machine (None: it can)."""
    if shutil.which("node") is None:
        return "node is not installed: the differential test runs blue_nb against dynalite, a Node.js program"
    if not CLI.is_file():
        return f"dynalite is not installed: run `npm ci --prefix tests/dynalite` (make test does it when npm exists)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Dynalite:
    """A dynalite server on 127.0.0.1 (in memory; tables are active as soon as they are created)."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> "Dynalite":
        self.process = subprocess.Popen(
            [shutil.which("node") or "node", str(CLI), "--host", "127.0.0.1", "--port", str(self.port),
             "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out = self.process.stdout.read().decode("utf-8", "replace") if self.process.stdout else ""
                raise RuntimeError(f"dynalite exited with {self.process.returncode}: {out[-500:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("dynalite did not listen within 30 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None and self.process.stdout:
            self.process.stdout.close()
