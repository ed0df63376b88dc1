"""One stage in a child process of its own, measured from outside: its wall time and its peak RSS.

The child is a fresh interpreter (``python -m bench.stages NAME CONTEXT.json``), so a stage's
memory is that of a command run alone (the interpreter and its imports included), not the sum of the
stages before it. The peak RSS is the child's own ``ru_maxrss``, read by the parent with
:func:`os.wait4` (the rusage of that one process; ``RUSAGE_CHILDREN`` would give the largest child so
far instead). ``isolate=False`` runs the stage in this process (for tests: no peak RSS then)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.stages import run_stage
from bench.sliders import ROOT
from blue_nb.errors import BlueNbError

__all__ = ["run_measured"]


def _peak_mb(ru_maxrss: int) -> float:
    """ru_maxrss is in kilobytes on Linux, in bytes on macOS."""
    return round(ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def run_measured(name: str, ctx: dict, *, isolate: bool = True) -> dict[str, Any]:
    """Run stage ``name`` with context ``ctx``; what it measured, plus ``wall_seconds`` and ``peak_mb``."""
    work = Path(ctx["work"])
    if not isolate:
        t = time.perf_counter()
        out = run_stage(name, ctx)
        return {**out, "wall_seconds": time.perf_counter() - t, "peak_mb": None}
    ctx_file = work / "context.json"
    ctx_file.write_text(json.dumps(ctx))
    result_file = work / f"{name}.json"
    result_file.unlink(missing_ok=True)
    t = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "bench.stages", name, str(ctx_file)], cwd=ROOT)
    try:
        _, status, usage = os.wait4(child.pid, 0)
    except BaseException:
        child.kill()
        child.wait()
        raise
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if child.returncode != 0 or not result_file.is_file():
        raise BlueNbError(f"bench stage {name!r} failed (exit code {child.returncode})", where=str(work),
                          hint="its error is printed above; run the stage alone with: python -m "
                               f"bench.stages {name} {ctx_file}")
    out = json.loads(result_file.read_text())
    return {**out, "wall_seconds": wall, "peak_mb": _peak_mb(usage.ru_maxrss)}
