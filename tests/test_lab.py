"""`make lab`: the Makefile target, the port it chooses, and the JupyterLab server that `blue-nb lab` starts.

The port choice is tested as a function, against ports held by sockets of the test. The server test
runs the very command the Makefile runs, with the port it asks for held by another listening socket
(as when another JupyterLab has 8888), with every Jupyter/IPython directory and HOME inside tmp_path,
and talks to it over HTTP with urllib only.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from blue_nb.cli.labserver import NEWS_PLUGIN, choose_port, lab_argv, lab_url, port_is_free, write_page_config

ROOT = Path(__file__).resolve().parent.parent
BLUE_NB = ROOT / ".venv" / "bin" / "blue-nb"
NOTEBOOK = "notebooks/00_quickstart.ipynb"
START_TIMEOUT = 60
STOP_TIMEOUT = 15

# urllib without proxies (an http_proxy in the environment must not see 127.0.0.1 traffic)
# and without following redirects (a redirect to the login page is an answer to check).


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


def get(url: str, timeout: float = 5) -> tuple[int, bytes, dict[str, str]]:
    """(status, body, headers) of a GET; HTTP errors are answers too."""
    assert url.startswith("http://127.0.0.1:"), url
    try:
        with OPENER.open(url, timeout=timeout) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


# ------------------------------------------------------------------------------------ quick checks

def test_make_lab_prepares_sample_data_then_runs_blue_nb_lab():
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    out = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, timeout=30,
                         check=True).stdout.splitlines()
    out = [line for line in out if not line.startswith("make[")]     # "Entering directory" under make test
    prepare = [i for i, line in enumerate(out) if re.search(r"\bblue-nb prepare\b", line)]
    lab = [i for i, line in enumerate(out) if re.search(r"\bblue-nb lab\b", line)]
    assert prepare and lab, "make -n lab printed:\n" + "\n".join(out)
    assert prepare[0] < lab[-1], "the sample data is prepared before JupyterLab starts"
    assert lab[-1] == len(out) - 1, "starting JupyterLab is the last step"
    assert "--port" in out[lab[-1]]


def test_ci_runs_make_test():
    lines = [line.split("#", 1)[0].strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "make test" in lines
    assert os.access(ROOT / ".ci" / "run", os.X_OK), ".ci/run must be executable"


def two_free_ports() -> int:
    """A port p such that p and p + 1 are both free now."""
    for _ in range(50):
        p = free_port()
        if p < 65535 and port_is_free(p) and port_is_free(p + 1):
            return p
    pytest.skip("found no two adjacent free ports")


def hold(port: int, listen: bool = True) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", port))
    if listen:
        s.listen()
    return s


# ------------------------------------------------------------------------------------ the port

def test_a_port_in_use_is_skipped_for_the_next_one():
    p = two_free_ports()
    assert choose_port(p) == p
    with hold(p):                                       # another server listens on p (JupyterLab on 8888)
        assert not port_is_free(p)
        assert choose_port(p) == p + 1
    assert port_is_free(p)


def test_a_bound_port_that_does_not_listen_yet_is_skipped_too():
    p = two_free_ports()
    with hold(p, listen=False):                         # bound, not listening: nothing answers, but it is taken
        assert not port_is_free(p)
        assert choose_port(p) == p + 1


def test_skipped_ports_and_the_system_port_when_every_port_tried_is_taken():
    p = two_free_ports()
    assert choose_port(p, skip=frozenset({p})) == p + 1
    with hold(p):
        other = choose_port(p, tries=1)                 # p was the only port to try: the system gives one
        assert other != p and port_is_free(other)


def test_the_lab_command_names_its_port_token_notebook_and_switches_the_news_off(tmp_path):
    argv = lab_argv(8890, "t0k", NOTEBOOK, "/proj", browser=False, python="py")
    assert argv[:3] == ["py", "-m", "jupyterlab"]
    for arg in ("--ServerApp.ip=127.0.0.1", "--ServerApp.port=8890", "--ServerApp.port_retries=0",
                "--IdentityProvider.token=t0k", "--ServerApp.root_dir=/proj", f"--LabApp.default_url=/lab/tree/{NOTEBOOK}",
                "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                "--ServerApp.log_level=ERROR", "--LabApp.log_level=ERROR", "--no-browser"):
        assert arg in argv
    assert "--no-browser" not in lab_argv(8890, "t0k", NOTEBOOK, "/proj", browser=True)
    assert lab_url(8890, NOTEBOOK, "t0k") == f"http://127.0.0.1:8890/lab/tree/{NOTEBOOK}?token=t0k"
    path = write_page_config(tmp_path)
    assert path == tmp_path / "labconfig" / "page_config.json"
    assert json.loads(path.read_text()) == {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}


# ------------------------------------------------------------------------------------ the server

@pytest.fixture
def lab_env(tmp_path) -> dict[str, str]:
    env = dict(os.environ)
    for var, sub in (("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTER_CONFIG_DIR", "config"),
                     ("JUPYTER_DATA_DIR", "data"), ("IPYTHONDIR", "ipython"), ("HOME", "home")):
        (tmp_path / sub).mkdir()
        env[var] = str(tmp_path / sub)
    env.pop("JUPYTER_TOKEN", None)
    env["BLUE_NB_LAB_TOKEN"] = secrets.token_hex(16)
    return env


@pytest.mark.slow
def test_blue_nb_lab_serves_the_quickstart(lab_env, tmp_path):
    assert BLUE_NB.exists(), f"{BLUE_NB} is missing: run `make venv`"
    asked, token = two_free_ports(), lab_env["BLUE_NB_LAB_TOKEN"]
    port = asked + 1                                    # asked is held by another server: the next port is taken
    base = f"http://127.0.0.1:{port}"
    err_path = tmp_path / "lab.stderr"
    other = hold(asked)
    with open(tmp_path / "lab.stdout", "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen([str(BLUE_NB), "lab", "--no-browser", "--port", str(asked)], cwd=ROOT,
                                env=lab_env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    try:
        status, body = None, b""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                log = err_path.read_text()
                hint = ("\nhint: jupyter_server refuses to run as root unless blue-nb lab passes "
                        "--ServerApp.allow_root=True" if "--allow-root" in log else "")
                pytest.fail(f"blue-nb lab exited with {proc.returncode}:\n{log}{hint}")
            if "JupyterLab is ready" in err_path.read_text() and port_open(port):
                status, body, _ = get(f"{base}/api/contents/{NOTEBOOK}?token={token}")
                if status in (200, 404):      # 404: the server is up but serves another folder
                    break
            time.sleep(0.25)
        assert status == 200, (f"GET /api/contents/{NOTEBOOK} answered {status} within {START_TIMEOUT} s; the server "
                               f"must serve the project folder (ServerApp.root_dir), so that the printed "
                               f"/lab/tree/{NOTEBOOK} URL opens the notebook:\n{err_path.read_text()}")

        model = json.loads(body)
        assert model["type"] == "notebook" and model["name"] == "00_quickstart.ipynb"
        assert model["path"] == NOTEBOOK
        tagged = [c for c in model["content"]["cells"] if "parameters" in c["metadata"].get("tags", [])]
        assert len(tagged) == 1 and tagged[0]["cell_type"] == "code"

        status, page, _ = get(f"{base}/lab?token={token}")
        assert status == 200 and b"JupyterLab" in page

        # without the token: refused, or sent to the login page
        status, _, headers = get(f"{base}/api/contents/{NOTEBOOK}")
        assert status in (401, 403), status
        status, _, headers = get(f"{base}/lab")
        assert status in (401, 403) or (status in (302, 303) and "login" in headers.get("Location", "")), status
        status, _, _ = get(f"{base}/api/contents/{NOTEBOOK}?token={'0' * len(token)}")
        assert status in (401, 403), status

        # the news pop-up's plugin is disabled in the page, and the server fetches no news
        config = re.search(rb'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S)
        assert config, "the /lab page carries no page config"
        assert NEWS_PLUGIN in json.loads(config.group(1))["disabledExtensions"]
        status, news, _ = get(f"{base}/lab/api/news?token={token}")
        assert (status, json.loads(news)) == (200, {"news": []})

        # one URL, printed once the server answered: this server's port and token, never the held port's
        log = err_path.read_text()
        assert f"port {asked} is in use: JupyterLab takes port {port}" in log
        ready = [line for line in log.splitlines() if line.startswith("JupyterLab is ready: ")]
        assert ready == [f"JupyterLab is ready: http://127.0.0.1:{port}/lab/tree/{NOTEBOOK}?token={token}"], log
        assert f":{asked}/" not in log, "a URL names the port another server holds"
        # the terminal shows the URL and errors, not Jupyter's routine start-up lines ([I ...] / [W ...] info logs)
        routine = [line for line in log.splitlines() if re.match(r"\[[ID] ", line) or "extension was successfully" in line
                   or line.lstrip().startswith(("To access the server", "Or copy and paste", "http://127.0.0.1:"))]
        assert routine == [], log
    finally:
        other.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=STOP_TIMEOUT)
    assert proc.returncode is not None, "the server is still running"
    assert not port_open(port), f"port {port} still answers after the server stopped"
