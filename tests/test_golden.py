"""Golden outputs of the command line on the committed samples: ``validate --format json``,
``heat``'s ``summary.json`` and ``query --format json`` for every pattern of every example spec.

They were recorded before the package was reorganised and must stay byte-identical: a change
that moves code must not change an answer. A change that is meant to change an answer updates
the files with ``BLUE_NB_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and shows the diff in review.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from blue_nb.cli import cli

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
SPECS = {"dialogue": "dialogue", "dialogue_v2": "dialogue", "document": "document"}   # spec -> sample
UPDATE = os.environ.get("BLUE_NB_UPDATE_GOLDEN") == "1"
PARAMS = json.loads((GOLDEN / "params.json").read_text(encoding="utf-8"))   # spec -> pattern -> params


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{name} differs from its golden file"


def rel(path: Path) -> str:
    return os.path.relpath(path, Path.cwd())


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("spec", sorted(SPECS))
def test_validate_json(spec):
    check(f"{spec}.validate.json",
          run("validate", f"data/specs/{spec}.yaml", "--data", f"data/sample/{SPECS[spec]}", "--format", "json"))


@pytest.mark.slow
@pytest.mark.parametrize("spec", sorted(SPECS))
def test_heat_summary(spec, tmp_path):
    run("heat", f"data/specs/{spec}.yaml", "--data", f"data/sample/{SPECS[spec]}", "--out", str(tmp_path),
        "--no-progress", "--format", "json")
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    summary.pop("timings", None)                          # seconds differ run to run
    summary["files"] = sorted(Path(f).name for f in summary.get("files", []))
    check(f"{spec}.heat.json", json.dumps(summary, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    out = {}
    for spec, sample in SPECS.items():
        d = tmp_path_factory.mktemp(spec)
        run("load", f"data/specs/{spec}.yaml", "--data", f"data/sample/{sample}", "--sqlite", str(d / "s.sqlite"),
            "--duckdb", str(d / "s.duckdb"), "--no-progress")
        out[spec] = d
    return out


CASES = [(spec, pattern) for spec in sorted(PARAMS) for pattern in PARAMS[spec]]


@pytest.mark.parametrize("spec, pattern", CASES, ids=[f"{s}-{p}" for s, p in CASES])
def test_query_json(spec, pattern, stores):
    params = [f"--param={k}={v}" for k, v in PARAMS[spec][pattern].items()]
    outs = {}
    for backend in ("sqlite", "duckdb"):
        outs[backend] = run("query", f"data/specs/{spec}.yaml", pattern, *params, f"--{backend}",
                            str(stores[spec] / f"s.{backend}"), "--format", "json")
    assert outs["sqlite"] == outs["duckdb"]
    check(f"{spec}.query.{pattern}.json", digest(outs["sqlite"]))


def digest(out: str) -> str:
    """A reviewable golden of a query's output: its cost and item keys, and the whole output's sha256
    (so any byte of any item that changes fails the test without storing megabytes of items)."""
    obj = json.loads(out)
    items = obj.pop("items", None)
    if items is not None:
        obj["keys"] = [[next(iter(i[k].values())) for k in ("pk", "sk", "gsi1pk") if k in i] for i in items]
    obj["sha256"] = hashlib.sha256(out.encode("utf-8")).hexdigest()
    return json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


#: the files of a python export shown whole in its golden (the others by their sha256: the runtime, the same text
#: for every spec, and the fixture of sample items and blue_nb's answers)
PYTHON_SHOWN = (".py", ".toml", ".md")


@pytest.mark.parametrize("spec", sorted(SPECS))
def test_python_export(spec, tmp_path):
    out = tmp_path / "pkg"
    run("export", f"data/specs/{spec}.yaml", "--format", "python", "-o", str(out), "--data",
        f"data/sample/{SPECS[spec]}", "--now", "2026-01-31T12:00:00Z", "--force")
    parts = []
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        name, data = path.relative_to(out).as_posix(), path.read_bytes()
        head = f"=== {name} ({len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()}) ==="
        shown = path.suffix in PYTHON_SHOWN and path.name != "runtime.py"
        parts.append(head + ("\n" + data.decode("utf-8") if shown else "\n"))
    check(f"{spec}.python.txt", "\n".join(parts))
