"""The WSGI layer the embedded server puts in front of moto: an identity answer and test faults.

* ``GET /__blue_nb__/identity`` answers ``{"token": ..., "pid": ...}`` with the token the parent
  passed in :data:`TOKEN_ENV`, so the parent knows the server answering on a port is the process
  it started (and not another one that took the port).
* Test-only faults, enabled by :data:`FAULTS_ENV` (JSON such as
  ``{"unprocessed": 0.3, "throttle": 0.2, "seed": 1}``), for BatchWriteItem calls only: with
  probability ``throttle`` the call is answered with DynamoDB's
  ProvisionedThroughputExceededException (HTTP 400, the real JSON error body) without reaching
  moto; with probability ``unprocessed`` only a random subset of its requests reaches moto and the
  rest comes back in ``UnprocessedItems``, shaped exactly as DynamoDB shapes it. One seeded random
  stream decides, so a run with the same calls in the same order sees the same faults.

Standard library only: this module is also imported by the parent (for the names) without moto.
"""

from __future__ import annotations

import io
import json
import os
import random
import threading
import uuid
import zlib
from typing import Any, Callable, Iterable

__all__ = ["BATCH_WRITE_TARGET", "FAULTS_ENV", "IDENTITY_PATH", "TOKEN_ENV", "Faults", "Middleware", "parse_faults"]

IDENTITY_PATH = "/__blue_nb__/identity"
TOKEN_ENV = "BLUE_NB_DYNAMO_TOKEN"
FAULTS_ENV = "BLUE_NB_TEST_FAULTS"
BATCH_WRITE_TARGET = "DynamoDB_20120810.BatchWriteItem"
THROTTLE_TYPE = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"
THROTTLE_MESSAGE = ("The level of configured provisioned throughput for the table was exceeded. "
                    "Consider increasing your provisioning level with the UpdateTable API.")
JSON_TYPE = "application/x-amz-json-1.0"
FAULT_KEYS = {"unprocessed", "throttle", "seed"}

StartResponse = Callable[..., Any]


def parse_faults(text: str | None) -> dict[str, float] | None:
    """The fault settings of :data:`FAULTS_ENV`, checked; None when unset or empty."""
    if not text:
        return None
    cfg = json.loads(text)
    if not isinstance(cfg, dict):
        raise ValueError(f"{FAULTS_ENV} must be a JSON object such as {{\"throttle\": 0.2, \"seed\": 1}}")
    unknown = set(cfg) - FAULT_KEYS
    if unknown:
        raise ValueError(f"{FAULTS_ENV}: unknown keys {sorted(unknown)}; known: {sorted(FAULT_KEYS)}")
    for k in ("unprocessed", "throttle"):
        if not 0 <= float(cfg.get(k, 0)) <= 1:
            raise ValueError(f"{FAULTS_ENV}: {k} must be a probability between 0 and 1")
    return cfg


class Faults:
    """The seeded decisions: throttle this call, or process only some of its requests."""

    def __init__(self, cfg: dict[str, Any]):
        self.throttle = float(cfg.get("throttle", 0))
        self.unprocessed = float(cfg.get("unprocessed", 0))
        self._rng = random.Random(cfg.get("seed", 0))
        self._lock = threading.Lock()

    def decide(self, n: int) -> tuple[str | None, list[int]]:
        """("throttle", []), ("unprocessed", indices of the requests to keep) or (None, all indices)."""
        with self._lock:
            if self._rng.random() < self.throttle:
                return "throttle", []
            if n > 1 and self._rng.random() < self.unprocessed:
                keep = self._rng.sample(range(n), self._rng.randint(1, n - 1))
                return "unprocessed", sorted(keep)
        return None, list(range(n))


def _respond(start_response: StartResponse, status: str, body: dict[str, Any]) -> list[bytes]:
    data = json.dumps(body).encode("utf-8")
    start_response(status, [("Content-Type", JSON_TYPE), ("Content-Length", str(len(data))),
                            ("x-amzn-RequestId", uuid.uuid4().hex),
                            ("x-amz-crc32", str(zlib.crc32(data) & 0xFFFFFFFF))])
    return [data]


def _call(app: Callable, environ: dict[str, Any], body: bytes) -> tuple[str, list[tuple[str, str]], bytes]:
    """Run the wrapped app on ``body``; (status, headers, response body)."""
    env = dict(environ)
    env["wsgi.input"] = io.BytesIO(body)
    env["CONTENT_LENGTH"] = str(len(body))
    seen: dict[str, Any] = {}

    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable:
        seen["status"], seen["headers"] = status, headers
        return lambda _data: None

    result: Iterable[bytes] = app(env, start)
    try:
        data = b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close:
            close()
    return seen["status"], seen["headers"], data


class Middleware:
    """Identity answer and test faults in front of a WSGI app (moto's)."""

    def __init__(self, app: Callable, token: str, faults: dict[str, Any] | None = None):
        self.app = app
        self.token = token
        self.faults = Faults(faults) if faults else None

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == IDENTITY_PATH and environ.get("REQUEST_METHOD") == "GET":
            return _respond(start_response, "200 OK", {"token": self.token, "pid": os.getpid()})
        if self.faults and environ.get("HTTP_X_AMZ_TARGET") == BATCH_WRITE_TARGET:
            return self._batch_write(environ, start_response)
        return self.app(environ, start_response)

    def _batch_write(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        try:
            request = json.loads(body)
            pairs = [(table, r) for table, reqs in request["RequestItems"].items() for r in reqs]
        except (ValueError, KeyError, AttributeError, TypeError):
            pairs = None                                  # malformed: let moto answer it
        fault, keep = self.faults.decide(len(pairs)) if pairs else (None, [])
        if fault == "throttle":
            return _respond(start_response, "400 Bad Request", {"__type": THROTTLE_TYPE, "message": THROTTLE_MESSAGE})
        if fault is None:
            status, headers, data = _call(self.app, environ, body)
            start_response(status, headers)
            return [data]
        return self._partial(environ, start_response, request, pairs, keep)

    def _partial(self, environ: dict[str, Any], start_response: StartResponse, request: dict[str, Any],
                 pairs: list[tuple[str, Any]], keep: list[int]) -> Iterable[bytes]:
        """Forward the kept requests; answer the others in UnprocessedItems."""
        kept: dict[str, list] = {}
        rest: dict[str, list] = {}
        chosen = set(keep)
        for i, (table, r) in enumerate(pairs):
            (kept if i in chosen else rest).setdefault(table, []).append(r)
        forwarded = json.dumps({**request, "RequestItems": kept}).encode("utf-8")
        status, headers, data = _call(self.app, environ, forwarded)
        if not status.startswith("200"):
            start_response(status, headers)
            return [data]
        answer = json.loads(data)
        unprocessed = answer.get("UnprocessedItems") or {}
        for table, reqs in rest.items():
            unprocessed.setdefault(table, []).extend(reqs)
        answer["UnprocessedItems"] = unprocessed
        return _respond(start_response, status, answer)
