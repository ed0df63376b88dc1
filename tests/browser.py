"""Notebooks run as a user runs them: JupyterLab started by the tests, each notebook opened in headless
Chromium (Python Playwright driving the system's Chromium), Run All, then what the page shows is
checked and the executed notebook is saved and read back for the value checks of test_notebooks.py.

The server serves a scratch root of its own (``notebooks/`` holding the copies with the test's
parameters, ``data`` a link to the repository's data), so the repository's notebooks stay committed
without outputs. User settings, runtime and config live in that root too; the notebook shows every
cell (no windowing), so every output is in the page.

Used when Chromium and Playwright are installed (``chromium_path()``); else nbclient runs the notebooks.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import nbformat

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:                                   # no Playwright: chromium_path() is None, nbclient runs them
    PlaywrightTimeout = TimeoutError

from blue_nb.cli.labserver import _lab_env, _stop, _wait_ready, choose_port, lab_argv, write_page_config

ACTIVE: list = []          # the running Lab (its Chromium serves chromium_page too)
RUN_TIMEOUT = 420          # seconds for Run All of one notebook
STALL = 20                 # seconds with nothing running or queued and cells left before the run is resumed
#: headless, and quiet: no connection of Chromium's own leaves the machine
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOT_WIDTH = 1400
ACCEPT = ".jp-Dialog .jp-mod-accept"                                  # a dialog's accept button
IDLE = ".jp-Notebook-ExecutionIndicator[data-status='idle']"          # the notebook's kernel started and idle


def chromium_path() -> str | None:
    """The system Chromium, when it and Playwright are installed and BLUE_NB_BROWSER is not 0."""
    if os.environ.get("BLUE_NB_BROWSER") == "0":
        return None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


@dataclass
class PageReport:
    """What the page showed after Run All."""

    code_cells: int = 0
    executed: int = 0
    errors: list[str] = field(default_factory=list)          # error outputs' text
    widget_errors: int = 0                                   # "Error displaying widget"
    widgets: int = 0                                         # widget views rendered
    images: int = 0
    broken_images: int = 0
    cut: list[str] = field(default_factory=list)             # text clipped by its box (overflow hidden)
    wide: list[str] = field(default_factory=list)            # outputs wider than the notebook with no scrollbar
    chars: str = ""                                          # every character the outputs show (for the fonts)
    screenshots: list[Path] = field(default_factory=list)


@contextlib.contextmanager
def chromium_page(width: int = 1280, height: int = 900):
    """A page in headless Chromium: from the running :class:`Lab`'s browser when there is one (Playwright's
    sync API allows one instance per thread), else from a Chromium started for this page."""
    if ACTIVE:
        page = ACTIVE[-1].browser.new_page(viewport={"width": width, "height": height})
        try:
            yield page
        finally:
            page.close()
        return
    from playwright.sync_api import sync_playwright  # deferred: only where Chromium is installed

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()


class Lab:
    """A JupyterLab server on a free port serving ``root``, and one Chromium that opens its notebooks."""

    def __init__(self, root: Path, repo: Path, shots: Path):
        self.root, self.shots = root, shots
        (root / "notebooks").mkdir(parents=True)
        (root / "scratch").mkdir()
        (root / "data").symlink_to(repo / "data", target_is_directory=True)
        config = root / ".config"
        write_page_config(config)
        settings = root / ".settings" / "@jupyterlab" / "notebook-extension"
        settings.mkdir(parents=True)
        (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
        env = _lab_env(config)
        for var, sub in (("JUPYTER_RUNTIME_DIR", ".runtime"), ("JUPYTER_DATA_DIR", ".data"),
                         ("IPYTHONDIR", ".ipython"), ("MPLCONFIGDIR", ".mpl"), ("JUPYTERLAB_SETTINGS_DIR", ".settings"),
                         ("JUPYTERLAB_WORKSPACES_DIR", ".workspaces")):
            (root / sub).mkdir(exist_ok=True)
            env[var] = str(root / sub)
        for var in [v for v in env if v.startswith("AWS_")]:
            del env[var]                                     # the notebooks' default endpoint is the embedded one
        self.token = secrets.token_hex(16)
        self.port = choose_port(18888)
        self.proc = subprocess.Popen(lab_argv(self.port, self.token, "notebooks", str(root), browser=False), env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root)
        if not _wait_ready(self.proc, self.port, self.token, 180):
            raise RuntimeError(f"JupyterLab exited with status {self.proc.returncode} before it answered")
        from playwright.sync_api import sync_playwright  # deferred: only where Chromium runs the notebooks

        self._pw = sync_playwright().start()
        self.browser = self._pw.chromium.launch(executable_path=chromium_path(),
                                                args=CHROMIUM_ARGS)
        ACTIVE.append(self)

    def close(self) -> None:
        if self in ACTIVE:
            ACTIVE.remove(self)
        try:
            self.browser.close()
            self._pw.stop()
        finally:
            _stop(self.proc)

    # -------------------------------------------------------------------------------------------
    def run(self, nb, name: str, interact: Callable[[Any], None] | None = None) -> tuple[Any, PageReport]:
        """Open ``nb`` (written as notebooks/<name>), Run All, check the page, run ``interact(page)``,
        save, and return the executed notebook as saved, with what the page showed."""
        path = self.root / "notebooks" / name
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
        nbformat.write(nb, path)
        page = self.browser.new_page(viewport={"width": SHOT_WIDTH, "height": 1000})
        try:
            page.goto(f"http://127.0.0.1:{self.port}/lab/tree/notebooks/{name}?reset&token={self.token}")
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
            # the kernel idle, or first the kernel chooser JupyterLab may ask (accepted): whichever comes first,
            # not a fixed wait for a chooser that the notebook's kernelspec makes rare (8 s of each notebook)
            first = page.wait_for_selector(f"{ACCEPT}, {IDLE}", timeout=90_000)
            if first.evaluate("(e, s) => e.matches(s)", ACCEPT):
                first.click()
                page.wait_for_selector(IDLE, timeout=90_000)
            self._run_all(page, name)
            report = self._wait(page, name)
            self._screenshots(page, name, report, "run-all")
            if interact is not None:
                interact(page)
                self._screenshots(page, name, report, "interaction")
            before = path.stat().st_mtime_ns
            page.keyboard.press("Control+s")
            deadline = time.monotonic() + 30
            while path.stat().st_mtime_ns == before and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            page.close()
        return nbformat.read(path, as_version=4), report

    @staticmethod
    def _run_all(page, name: str) -> None:
        """Run > Run All Cells, again while no cell has started (a prompt ``[*]`` or ``[n]``): in a fresh
        JupyterLab the kernel can show idle before Run All is enabled, and a click on it then does nothing (so
        nothing runs twice)."""
        for _ in range(6):
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
            try:
                page.wait_for_function(_STARTED, timeout=10_000)
                return
            except PlaywrightTimeout:
                page.keyboard.press("Escape")                # a menu a disabled item left open
        raise TimeoutError(f"{name}: Run All started no cell in 60 s")

    @staticmethod
    def _run_from_first_not_run(page) -> None:
        """Select the first code cell without an execution count and Run > Run Selected Cell and All Below."""
        first = page.evaluate("""() => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell'))
          .findIndex(c => !/\\[\\d+\\]/.test((c.querySelector('.jp-InputPrompt') || {}).textContent || ''))""")
        page.keyboard.press("Escape")
        page.locator(".jp-Notebook .jp-CodeCell").nth(first).locator(".jp-InputPrompt").click()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run Selected Cell and All Below", exact=True).click()

    def _wait(self, page, name: str) -> PageReport:
        deadline = time.monotonic() + RUN_TIMEOUT
        state: dict[str, Any] = {}
        stalled_since, resumed = None, 0
        while time.monotonic() < deadline:
            state = page.evaluate(_STATE)
            if state["codeCells"] and state["executed"] == state["codeCells"] and state["busy"] == 0:
                break
            # nothing running or queued, no error, cells left: the kernel dropped the queue (a session that
            # connected after Run All was clicked). Run on from the first cell not run, once or twice.
            if state["busy"] == 0 and not state["errors"] and state["executed"] < state["codeCells"]:
                stalled_since = stalled_since or time.monotonic()
                if time.monotonic() - stalled_since > STALL and resumed < 2:
                    self._run_from_first_not_run(page)
                    stalled_since, resumed = None, resumed + 1
            else:
                stalled_since = None
            time.sleep(1)
        else:
            raise TimeoutError(f"{name}: Run All did not finish in {RUN_TIMEOUT} s: {state}")
        page.wait_for_timeout(1500)                          # widgets and images finish rendering
        state = page.evaluate(_STATE)
        return PageReport(state["codeCells"], state["executed"], state["errors"], state["widgetErrors"],
                          state["widgets"], state["images"], state["broken"], state["cut"], state["wide"], state["chars"])

    def _screenshots(self, page, name: str, report: PageReport, stage: str) -> None:
        """The notebook from top to bottom, one picture per screen."""
        self.shots.mkdir(parents=True, exist_ok=True)
        scroller = ("(document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer') || "
                    "document.querySelector('.jp-NotebookPanel-notebook'))")
        height = page.evaluate(f"{scroller}.scrollHeight")
        step, n = 950, 0
        for top in range(0, max(1, height), step):
            page.evaluate(f"{scroller}.scrollTop = {top}")
            page.wait_for_timeout(150)
            shot = self.shots / f"{Path(name).stem}-{stage}-{n:02d}.png"
            page.screenshot(path=shot)
            report.screenshots.append(shot)
            n += 1
            last_shown = page.evaluate(f"(() => {{ const cells = document.querySelectorAll('.jp-Notebook .jp-Cell');"
                                       f" const last = cells[cells.length - 1]; return !!last && last.getBoundingClientRect()"
                                       f".bottom <= {scroller}.getBoundingClientRect().bottom; }})()")
            if n >= 40 or last_shown:                  # the space JupyterLab leaves past the end is not a page
                break


_STARTED = """() => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt'))
  .some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))"""

_STATE = """() => {
  const cells = Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell'));
  const prompts = cells.map(c => (c.querySelector('.jp-InputPrompt') || {}).textContent || '');
  const imgs = Array.from(document.querySelectorAll('.jp-OutputArea-output img'));
  return {
    codeCells: cells.length,
    executed: prompts.filter(p => /\\[\\d+\\]/.test(p)).length,
    busy: prompts.filter(p => p.includes('*')).length,
    errors: Array.from(document.querySelectorAll(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']"))
              .map(e => e.textContent.slice(0, 500)),
    widgetErrors: Array.from(document.querySelectorAll('.jp-OutputArea-output'))
              .filter(e => e.textContent.includes('Error displaying widget')).length,
    widgets: document.querySelectorAll('.jp-OutputArea-output .jupyter-widgets').length,
    images: imgs.length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).length,
    // text its box cuts off: an element of an output whose content is wider than the element, which hides the rest
    cut: Array.from(document.querySelectorAll('.jp-OutputArea-output *')).filter(e => {
      const s = getComputedStyle(e);
      return e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1 && ['hidden', 'clip'].includes(s.overflowX)
        && e.textContent.trim() && !e.closest('.jupyter-widgets-output-area');
    }).map(e => e.textContent.trim().slice(0, 80)),
    // an output wider than the notebook that cannot be scrolled to its end
    wide: Array.from(document.querySelectorAll('.jp-OutputArea-output')).filter(e =>
      e.scrollWidth > e.clientWidth + 1 && !['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
      .map(e => e.textContent.trim().slice(0, 80)),
    chars: Array.from(new Set(Array.from(document.querySelectorAll('.jp-OutputArea-output'))
      .map(e => e.innerText).join(''))).join(''),
  };
}"""


def missing_glyphs(chars: str) -> list[str]:
    """The characters no installed font has a glyph for (fontconfig, whose fonts Chromium draws with): each
    would show as an empty box. ASCII, spaces and controls are left out; None when fontconfig is missing."""
    import unicodedata

    if not shutil.which("fc-list"):
        return []
    missing = []
    for ch in sorted(set(chars)):
        if ord(ch) < 128 or ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Mn"):
            continue
        found = subprocess.run(["fc-list", f":charset={ord(ch):x}", "family"], capture_output=True, text=True,
                               timeout=30).stdout.strip()
        if not found:
            missing.append(f"{ch} U+{ord(ch):04X}")
    return missing
