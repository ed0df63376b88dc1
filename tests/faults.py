"""Faults DynamoDB can answer a BatchWriteItem or a BatchGetItem with, injected from outside the product: an
HTTP proxy on 127.0.0.1 in front of a moto_server (a started LocalDynamo), in the test process.

>>> with LocalDynamo() as local, FaultProxy(local.url, {"unprocessed": 0.3, "throttle": 0.2, "seed": 1}) as proxy:
...     client = proxy.endpoint().client()

Every request is forwarded to the server as it came. A BatchWriteItem call, with probability
``throttle``, is answered with DynamoDB's ProvisionedThroughputExceededException (HTTP 400, the real
JSON error body) without reaching the server; with probability ``unprocessed`` only a random subset
of its requests reaches the server and the rest comes back in ``UnprocessedItems``, shaped exactly as
DynamoDB shapes it. A BatchGetItem the same way, its keys coming back in ``UnprocessedKeys``. One
seeded random stream decides, so a run with the same calls in the same order sees the same faults. The
client's retries (botocore's, and the product's own) happen above the proxy, as they would against DynamoDB.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import urlsplit

from blue_nb.dynamo import Endpoint
from blue_nb.dynamo.local import DUMMY_CREDENTIALS, REGION

BATCH_WRITE_TARGET = "DynamoDB_20120810.BatchWriteItem"
BATCH_GET_TARGET = "DynamoDB_20120810.BatchGetItem"
THROTTLE_TYPE = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"
THROTTLE_MESSAGE = ("The level of configured provisioned throughput for the table was exceeded. "
                    "Consider increasing your provisioning level with the UpdateTable API.")
JSON_TYPE = "application/x-amz-json-1.0"
FAULT_KEYS = {"unprocessed", "throttle", "seed", "hang", "error500"}
HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "proxy-connection"}


class Faults:
    """The seeded decisions: throttle this call, or process only some of its requests."""

    def __init__(self, cfg: dict[str, Any]):
        unknown = set(cfg) - FAULT_KEYS
        if unknown:
            raise ValueError(f"unknown fault keys {sorted(unknown)}; known: {sorted(FAULT_KEYS)}")
        self.throttle = float(cfg.get("throttle", 0))
        self.unprocessed = float(cfg.get("unprocessed", 0))
        if not (0 <= self.throttle <= 1 and 0 <= self.unprocessed <= 1):
            raise ValueError("throttle and unprocessed are probabilities between 0 and 1")
        self.hang = float(cfg.get("hang", 0))
        self.error500 = cfg.get("error500")
        self.calls = 0
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


class FaultProxy:
    """A threaded HTTP proxy on 127.0.0.1 that forwards to ``target`` and injects :class:`Faults`."""

    def __init__(self, target: str, faults: dict[str, Any]):
        self.target = urlsplit(target)
        self.faults = Faults(faults)
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def endpoint(self) -> Endpoint:
        """An Endpoint for the proxy: moto behind it, dummy credentials, as the embedded one has."""
        return Endpoint("url", self.url, REGION, f"faulty proxy at {self.url}", "moto",
                        credentials=dict(DUMMY_CREDENTIALS))

    def __enter__(self) -> "FaultProxy":
        proxy = self

        class Handler(_Handler):
            owner = proxy

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="fault-proxy", daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def forward(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, list, bytes]:
        """The request sent to the target as it is; (status, headers, body) of its answer."""
        conn = http.client.HTTPConnection(self.target.hostname, self.target.port, timeout=120)
        try:
            conn.request(method, path, body=body, headers={k: v for k, v in headers.items()
                                                           if k.lower() not in HOP_HEADERS})
            resp = conn.getresponse()
            return resp.status, resp.getheaders(), resp.read()
        finally:
            conn.close()

    def batch_write(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, list, bytes]:
        """A BatchWriteItem call, with the fault the seeded stream decides."""
        try:
            request = json.loads(body)
            pairs = [(table, r) for table, reqs in request["RequestItems"].items() for r in reqs]
        except (ValueError, KeyError, AttributeError, TypeError):
            pairs = None                                  # malformed: let the server answer it
        if self.faults.hang:
            time.sleep(self.faults.hang)
            return 504, [], b""
        with self.faults._lock:
            self.faults.calls += 1
            failing = self.faults.error500 is not None and self.faults.calls > self.faults.error500
        if failing:
            return 500, [], json.dumps({"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                                        "message": "Internal server error"}).encode()
        fault, keep = self.faults.decide(len(pairs)) if pairs else (None, [])
        if fault == "throttle":
            return 400, [], json.dumps({"__type": THROTTLE_TYPE, "message": THROTTLE_MESSAGE}).encode()
        if fault is None:
            return self.forward("POST", path, headers, body)
        kept: dict[str, list] = {}
        rest: dict[str, list] = {}
        chosen = set(keep)
        for i, (table, r) in enumerate(pairs):
            (kept if i in chosen else rest).setdefault(table, []).append(r)
        return self.forward_part(path, headers, request, kept, "UnprocessedItems",
                                 lambda have: {t: have.get(t, []) + reqs for t, reqs in rest.items()})

    def forward_part(self, path: str, headers: dict[str, str], request: dict, kept: dict, field: str,
                     left: Callable[[dict], dict]) -> tuple[int, list, bytes]:
        """``request`` with only the ``kept`` RequestItems sent on; the server's answer with ``field`` (what came
        back unprocessed) set to ``left(what the server left)``."""
        status, got_headers, data = self.forward("POST", path, headers,
                                                 json.dumps({**request, "RequestItems": kept}).encode("utf-8"))
        if status != 200:
            return status, got_headers, data
        answer = json.loads(data)
        have = answer.get(field) or {}
        answer[field] = {**have, **left(have)}
        return 200, [], json.dumps(answer).encode("utf-8")


    def batch_get(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, list, bytes]:
        """A BatchGetItem call: throttled, or some of its keys sent on and the rest answered as UnprocessedKeys
        (each table's other fields kept with them, as DynamoDB returns them)."""
        try:
            request = json.loads(body)
            pairs = [(table, k) for table, v in request["RequestItems"].items() for k in v["Keys"]]
        except (ValueError, KeyError, AttributeError, TypeError):
            return self.forward("POST", path, headers, body)
        fault, keep = self.faults.decide(len(pairs))
        if fault == "throttle":
            return 400, [], json.dumps({"__type": THROTTLE_TYPE, "message": THROTTLE_MESSAGE}).encode()
        if fault is None:
            return self.forward("POST", path, headers, body)
        kept: dict[str, dict] = {}
        rest: dict[str, dict] = {}
        for i, (table, key) in enumerate(pairs):
            side = kept if i in set(keep) else rest
            side.setdefault(table, {**request["RequestItems"][table], "Keys": []})["Keys"].append(key)
        return self.forward_part(path, headers, request, kept, "UnprocessedKeys", lambda have: rest)


class _Handler(BaseHTTPRequestHandler):
    """One request: forwarded, or faulted when it is a BatchWriteItem."""

    protocol_version = "HTTP/1.1"
    owner: FaultProxy

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _handle(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = dict(self.headers.items())
        if self.command == "POST" and self.headers.get("X-Amz-Target") == BATCH_WRITE_TARGET:
            status, out_headers, data = self.owner.batch_write(self.path, headers, body)
        elif self.command == "POST" and self.headers.get("X-Amz-Target") == BATCH_GET_TARGET:
            status, out_headers, data = self.owner.batch_get(self.path, headers, body)
        else:
            status, out_headers, data = self.owner.forward(self.command, self.path, headers, body)
        self.send_response(status)
        sent = {k.lower() for k, _ in out_headers}
        for k, v in out_headers:
            if k.lower() not in HOP_HEADERS and k.lower() != "x-amz-crc32":
                self.send_header(k, v)
        if "content-type" not in sent:
            self.send_header("Content-Type", JSON_TYPE)
        if "x-amzn-requestid" not in sent:
            self.send_header("x-amzn-RequestId", uuid.uuid4().hex)
        self.send_header("x-amz-crc32", str(zlib.crc32(data) & 0xFFFFFFFF))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _handle
