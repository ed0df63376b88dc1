"""The embedded DynamoDB API endpoint: moto's server in a process of its own on 127.0.0.1.

>>> with LocalDynamo() as local:
...     client = DynamoClient(local.url, credentials=DUMMY_CREDENTIALS)

:class:`LocalDynamo` starts ``python -m blue_nb.dynamo.serve`` (see :mod:`.serve`), reads the port
the child bound itself, and asks that port for the identity token it handed the child: only then
is the endpoint known to be the process it started. The child gets dummy credentials and no AWS
profile, and never outlives the parent (its stdin is the parent's pipe). It is stopped by
:meth:`LocalDynamo.stop`, at the end of a ``with`` block, or at interpreter exit.

:data:`KNOWN_GAPS` lists where moto behaves unlike DynamoDB, as far as blue_nb relies on it.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import weakref
from typing import Any, Mapping

from blue_nb.dynamo.middleware import IDENTITY_PATH, TOKEN_ENV
from blue_nb.errors import DynamoError

__all__ = ["DUMMY_CREDENTIALS", "KNOWN_GAPS", "LocalDynamo", "MOTO_ITEM_LIMIT", "child_env"]

DUMMY_CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing",
                     "aws_session_token": "testing"}
REGION = "us-east-1"
STRIPPED_ENV = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE",
                "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
                "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB")

#: moto refuses an item above this many bytes of its own size estimate (``KNOWN_GAPS["item_limit_405000"]``).
MOTO_ITEM_LIMIT = 405_000

#: moto's differences from DynamoDB that blue_nb's results can show (name -> one sentence).
KNOWN_GAPS = {
    "consumed_capacity": "moto's ConsumedCapacity numbers are fixed, not computed from item sizes: blue_nb "
                         "computes the read and write units itself.",
    "batch_of_26": "moto accepts a BatchWriteItem of more than 25 requests; DynamoDB refuses it.",
    "item_limit_405000": f"moto rejects items above {MOTO_ITEM_LIMIT:,} bytes of its own size estimate; DynamoDB "
                         "takes items up to 409,600 bytes.",
    "no_trailing_page": "moto gives no LastEvaluatedKey when a Limit page ends exactly at the last item; "
                        "DynamoDB does, and the next call returns an empty page.",
    "page_cut_1000000": "moto cuts Query/Scan pages before the item that would take its own size estimate "
                        "past 1,000,000 bytes; DynamoDB reads 1 MB and includes the item that crosses it.",
    "query_slows": "moto's Query walks the whole table, so it slows down as the table grows.",
}

STOP_GRACE_SECONDS = 5.0


def child_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The child's environment: no AWS profile or real credentials, dummy ones, region us-east-1."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in STRIPPED_ENV}
    env.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_SESSION_TOKEN="testing",
               AWS_DEFAULT_REGION=REGION, AWS_REGION=REGION, PYTHONUNBUFFERED="1")
    return env


def _terminate(proc: subprocess.Popen, grace: float = STOP_GRACE_SECONDS) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds; closes the pipes. Safe to call twice."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        if pipe:
            try:
                pipe.close()
            except OSError:
                pass


class LocalDynamo:
    """moto's DynamoDB server in a child process on 127.0.0.1, on a port it bound itself."""

    KNOWN_GAPS = KNOWN_GAPS

    def __init__(self, *, startup_timeout: float = 30.0):
        self.startup_timeout = startup_timeout
        self.port: int | None = None
        self.pid: int | None = None
        self._proc: subprocess.Popen | None = None
        self._stderr: Any = None
        self._finalizer: weakref.finalize | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise DynamoError("the embedded endpoint is not started", hint="call start() or use it in a with block")
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> "LocalDynamo":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"LocalDynamo({self.url if self.running else 'stopped'})"

    def start(self) -> "LocalDynamo":
        """Start the child, read its port, check its identity; raises DynamoError if it fails."""
        if self.running:
            return self
        token = secrets.token_hex(16)
        env = child_env()
        env[TOKEN_ENV] = token
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen([sys.executable, "-m", "blue_nb.dynamo.serve"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=self._stderr, env=env, close_fds=True)
        self._finalizer = weakref.finalize(self, _terminate, self._proc)
        try:
            line = self._read_port_line()
            info = json.loads(line)
            self.port, self.pid = int(info["port"]), int(info["pid"])
            self._check_identity(token)
        except BaseException:
            self.stop()
            raise
        return self

    def _read_port_line(self) -> str:
        """The child's first stdout line, within the startup timeout; a clear error if it dies."""
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: lines.put(self._proc.stdout.readline()), daemon=True).start()
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.1)
            except queue.Empty:
                if self._proc.poll() is not None:
                    break
                continue
            if line:
                return line.decode("utf-8", "replace")
            break                                   # stdout closed: the child is exiting
        try:
            code = self._proc.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        why = (f"exited with code {code}" if code is not None
               else f"printed no port within {self.startup_timeout:g} s")
        raise DynamoError(f"the embedded moto_server {why}", code="EndpointStartFailed",
                          where="python -m blue_nb.dynamo.serve",
                          hint="its stderr ends with:\n" + (self.stderr_tail() or "(nothing)")
                          + "\ncheck that moto[server] is installed in this environment")

    def _check_identity(self, token: str) -> None:
        """Ask the port for its token: the answering process must be the one started here."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(self.url + IDENTITY_PATH, timeout=10) as resp:
                answer = json.loads(resp.read())
        except (OSError, ValueError) as e:
            raise DynamoError(f"the embedded moto_server on port {self.port} did not answer: {e}",
                              code="EndpointStartFailed", where=self.url,
                              hint="its stderr ends with:\n" + (self.stderr_tail() or "(nothing)"), cause=e) from e
        if answer.get("token") != token:
            raise DynamoError(f"another process answers on port {self.port} (identity token differs)",
                              code="EndpointIdentityMismatch", where=self.url,
                              hint="start the embedded endpoint again; it binds a fresh port")

    def stderr_tail(self, limit: int = 2000) -> str:
        """The end of the child's stderr (for error messages)."""
        if self._stderr is None or self._stderr.closed:
            return ""
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - limit))
        return self._stderr.read().decode("utf-8", "replace").strip()

    def stop(self) -> None:
        """Terminate the child (kill it after a grace period) and wait for it. Idempotent."""
        if self._finalizer is not None:
            self._finalizer()                     # runs _terminate once, and detaches the atexit hook
            self._finalizer = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._proc = None
