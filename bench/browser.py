"""The heat sliders in Chromium at ~100k partition keys: key press to painted heat map, measured in the page.

``python -m bench.browser [--keys N] [--presses N]`` starts JupyterLab and headless Chromium (as the browser
tests do: tests/browser.py), runs a notebook that loads the wide sample of :mod:`bench.sliders` and shows a
:class:`~blue_nb.widgets.HeatExplorer`, then presses the right arrow on list_perspectives' rate slider, each
press timed from the page's keydown to the frame after the canvas was painted with the new cells. Prints the
median and the max (JSON)."""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

import nbformat

from bench.sliders import ROOT

NOTEBOOK = """
import tempfile
from bench.sliders import SPEC, write_wide_sample
from blue_nb import load_data, load_spec, open_store, partition_heat
from blue_nb.widgets import HeatExplorer
spec, store = load_spec(SPEC), open_store("duckdb")
with tempfile.TemporaryDirectory() as tmp:
    write_wide_sample(tmp, {keys})
    load_data(spec, tmp, stores=[store], progress=False)
explorer = HeatExplorer(partition_heat(spec, store, rate_model=True))
explorer
"""

KEYDOWN = """() => { window.__keys = []; document.addEventListener('keydown',
    () => window.__keys.push(performance.now()), true); }"""


def measure(keys: int = 100_000, presses: int = 25) -> dict:
    """Key press to painted map, in ms, over ``presses`` presses (each waits for its paint)."""
    import sys

    sys.path.insert(0, str(ROOT))
    from tests.browser import Lab, chromium_path

    if not chromium_path():
        raise SystemExit("no Chromium or Playwright: make browser, and the test extras")
    with tempfile.TemporaryDirectory() as tmp:
        lab = Lab(Path(tmp) / "lab", ROOT, Path(tmp) / "shots")
        (Path(tmp) / "lab" / "notebooks" / "bench").symlink_to(ROOT / "bench", target_is_directory=True)
        times: list[float] = []
        arrived: list[float] = []                      # key press to the cells' arrival in the page
        status: list[str] = []                         # the explorer's status line: the kernel's own timings

        def interact(page):
            canvas = page.locator(".blue-nb-heatcanvas").first
            canvas.wait_for(timeout=120_000)
            page.evaluate(KEYDOWN)
            row = page.locator(".blue-nb-heat-explorer .widget-hbox", has_text="list_perspectives").first
            row.locator(".blue-nb-rate .noUi-handle").first.focus()
            for i in range(presses):
                painted = int(canvas.get_attribute("data-painted") or 0)
                page.keyboard.press("ArrowRight")
                page.wait_for_function("(n) => Number(document.querySelector('.blue-nb-heatcanvas')"
                                       ".dataset.painted) > n", arg=painted, timeout=60_000)
                page.wait_for_timeout(50)
                at = float(canvas.get_attribute("data-painted-at"))
                key = page.evaluate("window.__keys[window.__keys.length - 1]")
                times.append(at - key)
                arrived.append(float(canvas.get_attribute("data-arrived-at")) - key)
            page.wait_for_timeout(1000)
            status.append(page.locator(".blue-nb-heat-explorer .blue-nb-status").first.inner_text())

        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(NOTEBOOK.format(keys=keys))])
        try:
            lab.run(nb, "sliders.ipynb", interact)
        finally:
            lab.close()
    return {"keys": keys, "presses": len(times), "median_ms": round(statistics.median(times), 1),
            "max_ms": round(max(times), 1), "arrived_median_ms": round(statistics.median(arrived), 1),
            "all_ms": [round(t, 1) for t in times], "last_status": status[-1] if status else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--presses", type=int, default=25)
    args = parser.parse_args()
    print(json.dumps(measure(args.keys, args.presses), indent=1))


if __name__ == "__main__":
    main()
