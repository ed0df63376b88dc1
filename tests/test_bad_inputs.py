"""Every bad input refused with a located message, nothing lost: one table of cases (see
tests/bad_inputs/), each run through the command line against a folder holding the library
example and two stores loaded from it. Each must exit with its status, say what, where and how
to fix it, print no traceback, and leave both stores exactly as they were."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from blue_nb.cli import cli
from blue_nb.stores import open_store
from tests.bad_inputs import (cli_cases, data_cases, export_cases, import_cases, load_cases, size_cases, spec_cases,
                              number_cases, workbench_cases)

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "data" / "examples" / "library"
CASES = [*spec_cases.CASES, *data_cases.CASES, *size_cases.CASES, *cli_cases.CASES, *load_cases.CASES,
         *export_cases.CASES, *import_cases.CASES, *workbench_cases.CASES,
         *number_cases.CASES]
TABLE = "blue_library"


def files(folder: Path) -> dict[str, str]:
    """Every file of the folder but the stores (and their lock files): its path -> a hash of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
            for p in sorted(folder.rglob("*")) if not p.name.startswith(("store.sqlite", "store.duckdb"))}


def digest(folder: Path) -> dict[str, str]:
    """What each store holds: a hash of every table's rows, in key order."""
    out = {}
    for backend in ("sqlite", "duckdb"):
        with open_store(backend, folder / f"store.{backend}") as s:
            h = hashlib.sha256()
            for table in (TABLE, f"{TABLE}__items"):
                for row in s.execute(f'SELECT * FROM "{table}" ORDER BY pk, sk'):
                    h.update(repr(row).encode())
            out[backend] = h.hexdigest()
    return out


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    t = tmp_path_factory.mktemp("library")
    shutil.copytree(LIBRARY, t / "data")
    shutil.move(t / "data" / "library.yaml", t / "library.yaml")
    r = CliRunner().invoke(cli, ["load", str(t / "library.yaml"), "--data", str(t / "data"), "--sqlite",
                                 str(t / "store.sqlite"), "--duckdb", str(t / "store.duckdb"), "--no-progress"])
    assert r.exit_code == 0, r.output
    return t


def test_there_are_many_kinds_of_bad_input():
    assert len(CASES) >= 60
    assert len({c.name for c in CASES}) == len(CASES), "case names are unique"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_refused_with_a_located_message(case, template, tmp_path):
    folder = tmp_path / "case"
    shutil.copytree(template, folder)
    for rel, content in case.files.items():
        path = folder / rel
        if content is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    before, files_before = digest(folder), files(folder)
    args = [a.replace("{dir}", str(folder)) for a in case.args]
    stdin = case.stdin.replace("{dir}", str(folder)) if isinstance(case.stdin, str) else case.stdin
    result = CliRunner().invoke(cli, args, input=stdin)
    message = result.stderr + (result.stdout if case.exit_code != 2 else "")   # exit 0 or 1: the output too
    assert result.exit_code == case.exit_code, (
        f"exit {result.exit_code}, wanted {case.exit_code}\nstdout: {result.stdout[-2000:]}\nstderr: {message[-2000:]}"
        + (f"\nexception: {result.exception!r}" if result.exception and not isinstance(result.exception, SystemExit)
           else ""))
    assert result.exception is None or isinstance(result.exception, SystemExit), f"crashed: {result.exception!r}"
    assert "Traceback" not in message and "Traceback" not in result.stdout
    missing = [w for w in case.words if w.lower() not in message.lower()]
    assert not missing, f"the message lacks {missing}:\n{message}"
    if case.stores_unchanged:
        assert digest(folder) == before, "a refused input changed a store"
    if case.files_unchanged:
        assert files(folder) == files_before, "a refused input wrote, changed or left a file"
