"""Starting JupyterLab for ``blue-nb lab`` (and so ``make lab``): a free port, a token of its own,
no news pop-up, and the URL printed only once the server answering on that port is ours.

Why a child process rather than ``exec``: when the port asked for is taken (another JupyterLab on
8888, say), the next free one is used; and the URL is printed only after the server on that port
has accepted *our* token, so the URL can never belong to another server — not even when another
program grabs the port between the moment it was chosen and the moment JupyterLab binds it (the
child then exits, and the next port is tried).

The news pop-up ("Would you like to get notified about official Jupyter news?") comes from the
front-end plugin ``@jupyterlab/apputils-extension:announcements``; in JupyterLab 4 it asks whenever
the ``fetchNews`` setting is unset, whatever the server's ``news_url``. So the plugin is disabled in
the page config (``disabledExtensions``, the same entry ``jupyter labextension disable`` writes),
from a config folder put first on ``JUPYTER_CONFIG_PATH`` for this server only; and the server is
told never to fetch the news feed or check for updates (``LabApp.news_url=None``,
``LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate``), so it talks to no one.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable

__all__ = ["HOST", "NEWS_PLUGIN", "choose_port", "lab_argv", "lab_url", "port_is_free", "run_lab",
           "write_page_config"]

HOST = "127.0.0.1"
PORT_TRIES = 50                 # ports tried upwards from the one asked for, before asking the system for any
START_ATTEMPTS = 3              # ports tried when another program takes the chosen one first
START_TIMEOUT = 180.0           # seconds for JupyterLab to answer (a cold start on a slow machine takes ~10 s)
POLL_SECONDS = 0.25
NEWS_PLUGIN = "@jupyterlab/apputils-extension:announcements"
TOKEN_ENV = "BLUE_NB_LAB_TOKEN"

# urllib without proxies (an http_proxy must not see 127.0.0.1 traffic) and without redirects
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def port_is_free(port: int, host: str = HOST) -> bool:
    """True when nothing answers on ``host:port`` and a server could bind it now.

    The bind is tried with SO_REUSEADDR, as JupyterLab's web server binds: a port left in TIME_WAIT
    by a stopped server counts as free, a port that some socket is bound to or listens on does not."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        if probe.connect_ex((host, port)) == 0:
            return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def choose_port(first: int, host: str = HOST, tries: int = PORT_TRIES, skip: frozenset[int] = frozenset()) -> int:
    """The first free port from ``first`` upwards (at most ``tries`` of them, ``skip`` left out); when
    none is free, any port the system gives (port 0)."""
    for port in range(first, min(first + tries, 65536)):
        if port not in skip and port_is_free(port, host):
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def lab_url(port: int, notebook: str, token: str, host: str = HOST) -> str:
    """The URL that opens ``notebook`` in the server on ``port``, logged in by ``token``."""
    return f"http://{host}:{port}/lab/tree/{notebook}?token={token}"


def lab_argv(port: int, token: str, notebook: str, root: str, browser: bool, python: str = sys.executable) -> list[str]:
    """The command that starts JupyterLab on ``HOST:port`` serving ``root``, with the notebook open."""
    args = [python, "-m", "jupyterlab", f"--ServerApp.ip={HOST}", f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",                 # this port or none: the URL names it
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            f"--LabApp.default_url=/lab/tree/{notebook}",
            "--LabApp.news_url=None",                     # never fetch the Jupyter news feed
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            # the terminal: the URL and errors, not routine logs (the server's and JupyterLab's own start-up lines,
            # "Notebook ... is not trusted" for every notebook opened)
            "--ServerApp.log_level=ERROR", "--LabApp.log_level=ERROR"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--ServerApp.allow_root=True")        # containers and CI run as root
    if not browser:
        args.append("--no-browser")
    return args


def write_page_config(config_dir: Path) -> Path:
    """Write ``labconfig/page_config.json`` under ``config_dir`` that disables the news plugin; the
    folder goes first on JUPYTER_CONFIG_PATH, and JupyterLab merges it with the user's own page config."""
    path = Path(config_dir) / "labconfig" / "page_config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"disabledExtensions": {NEWS_PLUGIN: True}}, indent=2) + "\n", encoding="utf-8")
    return path


def _lab_env(config_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(p for p in (str(config_dir), env.get("JUPYTER_CONFIG_PATH")) if p)
    return env


def _ours(port: int, token: str) -> bool:
    """True when the server on ``port`` accepts ``token`` (another server refuses it)."""
    try:
        with _OPENER.open(f"http://{HOST}:{port}/api/status?token={token}", timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _wait_ready(proc: subprocess.Popen, port: int, token: str, timeout: float) -> bool:
    """True once the child's server answers with our token; False when the child exited first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if _ours(port, token):
            return True
        time.sleep(POLL_SECONDS)
    _stop(proc)
    raise TimeoutError(f"JupyterLab did not answer on port {port} within {timeout:.0f} s")


def _stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def _start(first_port: int, token: str, notebook: str, root: str, browser: bool, env: dict[str, str],
           say: Callable[[str], None]) -> tuple[subprocess.Popen, int]:
    """Start JupyterLab on the first free port from ``first_port``; (the child, its port) once it answers."""
    taken: set[int] = set()
    for _ in range(START_ATTEMPTS):
        port = choose_port(first_port, skip=frozenset(taken))
        if port != first_port:
            say(f"port {first_port} is in use: JupyterLab takes port {port}")
        proc = subprocess.Popen(lab_argv(port, token, notebook, root, browser), env=env)
        try:
            ready = _wait_ready(proc, port, token, START_TIMEOUT)
        except BaseException:                             # Ctrl-C while starting: leave no server behind
            _stop(proc)
            raise
        if ready:
            return proc, port
        if port_is_free(port):                            # it failed on its own: its messages are above
            raise RuntimeError(f"JupyterLab exited with status {proc.returncode} before it answered")
        taken.add(port)                                   # another program took the port first: try the next
    raise RuntimeError(f"every port tried from {first_port} was taken before JupyterLab could bind it")


def _serve(proc: subprocess.Popen) -> int:
    """Wait for the server to stop. Ctrl-C in the terminal reaches JupyterLab itself (same process
    group: it asks to confirm, or stops on a second Ctrl-C); SIGTERM and SIGHUP are passed on."""
    def forward(sig, _frame):
        if proc.poll() is None:
            proc.send_signal(sig)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGHUP)}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:                     # pragma: no cover - the handler above takes SIGINT
                continue
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def run_lab(port: int, notebook: str, browser: bool, root: str | None = None,
            say: Callable[[str], None] | None = None) -> int:
    """Start JupyterLab (see the module docstring), print its URL through ``say`` once it is ours, and
    return its exit status when it stops. The token is $BLUE_NB_LAB_TOKEN, or a fresh random one."""
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    token = os.environ.get(TOKEN_ENV) or secrets.token_hex(16)
    root = root or os.getcwd()
    with tempfile.TemporaryDirectory(prefix="blue-nb-lab-") as config_dir:
        write_page_config(Path(config_dir))
        sys.stdout.flush()
        proc, chosen = _start(port, token, notebook, root, browser, _lab_env(Path(config_dir)), say)
        say(f"JupyterLab is ready: {lab_url(chosen, notebook, token)}\n"
            f"  stop it with Ctrl-C twice (or Ctrl-C, then y); the command line meanwhile: "
            f".venv/bin/blue-nb --help in another terminal")
        return _serve(proc)
