"""``python -m blue_nb.dynamo.serve``: moto's DynamoDB server as a process of its own, race-free.

The process binds 127.0.0.1 on port 0 itself (so no other process can take the port between a
choice and a bind), prints one JSON line ``{"port": ..., "pid": ...}`` on stdout, then serves
moto's WSGI app behind :class:`~blue_nb.dynamo.middleware.Middleware` (the identity answer). It
exits on SIGTERM/SIGINT, and when its stdin reaches end of file: the parent holds the other end,
so the server never outlives the process that started it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import make_server

from blue_nb.dynamo.middleware import TOKEN_ENV, Middleware

__all__ = ["QuietHandler", "main"]

HOST = "127.0.0.1"


class QuietHandler(MotoRequestHandler):
    """moto's request handler without one stderr line per request (errors are still logged)."""

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        return None


def _exit_when_parent_goes() -> None:
    """End the process when stdin closes (the parent died or closed the pipe)."""
    def watch() -> None:
        try:
            while os.read(fd, 4096):              # the raw fd: no buffer lock held at shutdown
                pass
        finally:
            os._exit(0)

    fd = sys.stdin.fileno()

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _stop(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def main() -> None:
    app = Middleware(DomainDispatcherApplication(create_backend_app), os.environ.get(TOKEN_ENV, ""))
    server = make_server(HOST, 0, app, threaded=True, request_handler=QuietHandler)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    sys.stdout.write(json.dumps({"port": server.server_address[1], "pid": os.getpid()}) + "\n")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())   # nothing else goes to the parent's pipe
    _exit_when_parent_goes()
    try:
        server.serve_forever()
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
