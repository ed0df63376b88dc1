"""The WSGI layer the embedded server puts in front of moto: the identity answer.

``GET /__blue_nb__/identity`` answers ``{"token": ..., "pid": ...}`` with the token the parent
passed in :data:`TOKEN_ENV`, so the parent knows the server answering on a port is the process it
started (and not another one that took the port). Every other request goes to moto unchanged.

Standard library only: this module is also imported by the parent (for the names) without moto.
"""

from __future__ import annotations

import json
import os
import uuid
import zlib
from typing import Any, Callable, Iterable

__all__ = ["IDENTITY_PATH", "TOKEN_ENV", "Middleware"]

IDENTITY_PATH = "/__blue_nb__/identity"
TOKEN_ENV = "BLUE_NB_DYNAMO_TOKEN"
JSON_TYPE = "application/x-amz-json-1.0"

StartResponse = Callable[..., Any]


def _respond(start_response: StartResponse, status: str, body: dict[str, Any]) -> list[bytes]:
    data = json.dumps(body).encode("utf-8")
    start_response(status, [("Content-Type", JSON_TYPE), ("Content-Length", str(len(data))),
                            ("x-amzn-RequestId", uuid.uuid4().hex),
                            ("x-amz-crc32", str(zlib.crc32(data) & 0xFFFFFFFF))])
    return [data]


class Middleware:
    """The identity answer in front of a WSGI app (moto's); every other request passes through."""

    def __init__(self, app: Callable, token: str):
        self.app = app
        self.token = token

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == IDENTITY_PATH and environ.get("REQUEST_METHOD") == "GET":
            return _respond(start_response, "200 OK", {"token": self.token, "pid": os.getpid()})
        return self.app(environ, start_response)
