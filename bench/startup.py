"""The command line's start-up: how long a person waits for the first line, per command, in fresh
processes, against a naive baseline measured in the same run.

Each command runs as ``python -m blue_nb.cli ...`` with stdout and stderr on one pipe (what a
terminal shows); the time to its first line and to its exit are each the best of ``repeats`` runs
(the machine is shared: the best run is the one least disturbed). The baseline is what a command
that simply imported its libraries at the top would pay before its first line:
``python -c "import pandas, duckdb, matplotlib"`` to its exit, and the bare interpreter
(``python -c pass``) for scale. The issue's targets: ``--help`` under 0.3 s, and the first line of
every command given data under 1 s.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.sliders import ROOT

__all__ = ["FIRST_LINE_S", "HELP_S", "NAIVE", "commands", "first_line", "format_startup", "startup_times"]

HELP_S = 0.3
FIRST_LINE_S = 1.0
NAIVE = {"import pandas, duckdb, matplotlib": "import pandas, duckdb, matplotlib", "python alone": "pass"}


def commands(work: Path) -> dict[str, list[str]]:
    """The commands measured (a store for ``query`` is loaded into ``work`` first, unmeasured)."""
    spec, data = str(ROOT / "data" / "specs" / "dialogue.yaml"), str(ROOT / "data" / "sample" / "dialogue")
    store = work / "startup.sqlite"
    if not store.exists():
        subprocess.run([sys.executable, "-m", "blue_nb.cli", "load", spec, "--data", data, "--sqlite", str(store),
                        "--no-progress"], cwd=ROOT, check=True, capture_output=True, timeout=600)
    items = work / "items.jsonl"
    items.write_text('{"pk": {"S": "a"}, "sk": {"S": "b"}, "n": {"N": "1"}}\n', encoding="utf-8")
    return {"--help": ["--help"],
            "validate --data": ["validate", spec, "--data", data],
            "cost --data": ["cost", spec, "--data", data],
            "heat --data": ["heat", spec, "--data", data, "--out", str(work / "heat"), "--no-progress"],
            "query --sqlite": ["query", spec, "get_dialogue", "--param", "dialogue_id=nvidia-dec", "--sqlite",
                               str(store)],
            "size": ["size", str(items)]}


def first_line(argv: list[str]) -> tuple[float, float, str, int]:
    """(seconds to the first line on stdout or stderr, seconds to the exit, that line, exit code) of one run."""
    t = time.perf_counter()
    child = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    line = child.stdout.readline()
    first = time.perf_counter() - t
    child.stdout.read()
    code = child.wait()
    return first, time.perf_counter() - t, line.decode("utf-8", "replace").rstrip("\n"), code


def startup_times(repeats: int = 5, work: Path | None = None, only: list[str] | None = None) -> dict[str, Any]:
    """Each command's best time to its first line and to its exit, and the baselines' (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="blue-nb-startup-") as tmp:
        folder = Path(work or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        out: dict[str, Any] = {"repeats": repeats, "commands": {}, "baselines": {}}
        for name, args in commands(folder).items():
            if only is not None and name not in only:
                continue
            runs = [first_line([sys.executable, "-m", "blue_nb.cli", *args]) for _ in range(repeats)]
            out["commands"][name] = {"first_line_s": round(min(r[0] for r in runs), 3),
                                     "exit_s": round(min(r[1] for r in runs), 3), "first_line": runs[0][2],
                                     "exit_code": runs[0][3]}
        for name, code in NAIVE.items():
            runs = [first_line([sys.executable, "-c", code]) for _ in range(repeats)]
            out["baselines"][name] = {"exit_s": round(min(r[1] for r in runs), 3), "code": code}
    return out


def format_startup(found: dict[str, Any]) -> str:
    """The start-up table."""
    head = f"{'command':<18} {'first line s':>12} {'exit s':>8}  first line"
    lines = [f"start-up (best of {found['repeats']}, fresh processes)", head, "-" * len(head)]
    for name, c in found["commands"].items():
        lines.append(f"{name:<18} {c['first_line_s']:>12.3f} {c['exit_s']:>8.3f}  {c['first_line'][:70]}")
    for name, b in found["baselines"].items():
        lines.append(f"{'baseline':<18} {'':>12} {b['exit_s']:>8.3f}  {name}: python -c {b['code']!r}")
    return "\n".join(lines)
