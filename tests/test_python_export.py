"""``blue-nb export SPEC --format python -o DIR``: the package it writes, held to what the issue asks.

For the shipped specs, a design that uses what they do not (``tests/fixtures/python_export/ledger.yaml``: number
keys, a local and a keys-only global index, filters, a projection, COUNT, a scan, conditional writes, an update
expression) and public Workbench models imported here (specs nobody wrote for blue_nb): the package passes
``ruff`` and ``mypy --strict``, and its own tests pass on SQLite and on the embedded endpoint, every read page by
page against blue_nb's ``query`` (one pytest process per spec). The package installs with pip and runs with no
part of blue_nb importable; the same spec gives the same bytes; a pattern the generator cannot run is refused
with its spec path.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from blue_nb.app.imports import import_data
from blue_nb.app.python_export import export_python
from blue_nb.cli import cli
from blue_nb.export import ExportRefused
from blue_nb.layout import main_table_sql
from blue_nb.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.executable).parent
LEDGER = ROOT / "tests" / "fixtures" / "python_export"
NOW = "2026-01-31T12:00:00Z"
#: spec -> (its rows, whether it has errors and is exported with --force)
SHIPPED = {"dialogue_v2": ("data/sample/dialogue", False), "dialogue": ("data/sample/dialogue", True),
           "document": ("data/sample/document", True)}
#: public Workbench models (tests/data/workbench), imported here and exported as packages
MODELS = ["Hospital", "HotelReservations", "ConnectedVehicles"]


def _check_package(out: Path, endpoint_url: str) -> str:
    """ruff, mypy --strict and the package's own tests (one pytest process), all on ``out``; pytest's summary."""
    ruff = subprocess.run([str(VENV / "ruff"), "check", "--no-cache", "--output-format", "concise", "."], cwd=out,
                          capture_output=True, text=True, timeout=300)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull, "."],
                          cwd=out, capture_output=True, text=True, timeout=600)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(out), BLUE_ACCESS_ENDPOINT_URL=endpoint_url, AWS_ACCESS_KEY_ID="test",
               AWS_SECRET_ACCESS_KEY="test", AWS_DEFAULT_REGION="us-east-1")
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                            "tests"], cwd=out, capture_output=True, text=True, env=env, timeout=900)
    assert tests.returncode == 0, tests.stdout[-6000:] + tests.stderr[-2000:]
    summary = tests.stdout.strip().splitlines()[-1]
    assert "skipped" not in summary and "passed" in summary, summary     # both backends ran every pattern
    return summary


def _patterns_tested(out: Path) -> set[str]:
    text = next((out / "tests").glob("test_*.py")).read_text(encoding="utf-8")
    return set(re.findall(r"^def test_(\w+)\(", text, re.MULTILINE))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_a_shipped_spec_gives_a_package_whose_tests_pass_on_both_backends(name, tmp_path, dynamo_endpoint):
    data, force = SHIPPED[name]
    spec = load_spec(ROOT / "data" / "specs" / f"{name}.yaml")
    result = export_python(spec, tmp_path / "pkg", data_dir=ROOT / data, force=force, now=NOW)
    assert result.validated is not force and len(result.files) == 11
    out = tmp_path / "pkg"
    assert {p.name for p in spec.access_patterns} <= _patterns_tested(out)      # every pattern has its test
    design = (out / f"{spec.domain}_access" / "design.py").read_text(encoding="utf-8")
    assert f"'validated': {not force}" in design
    _check_package(out, dynamo_endpoint.url)


@pytest.mark.slow
def test_a_design_with_every_kind_of_operation_runs_the_same_on_both_backends(tmp_path, dynamo_endpoint):
    spec = load_spec(LEDGER / "ledger.yaml")
    export_python(spec, tmp_path / "pkg", data_dir=LEDGER / "ledger", now=NOW)
    fixture = (tmp_path / "pkg" / "tests" / "fixture.json").read_text(encoding="utf-8")
    # the cases the fixture holds: a descending paged between, a failed conditional put and delete, an update
    assert '"label": "drawn from an item"' in fixture and '"condition_passed": false' in fixture
    assert {p.name for p in spec.access_patterns} <= _patterns_tested(tmp_path / "pkg")
    _check_package(tmp_path / "pkg", dynamo_endpoint.url)


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_a_public_workbench_model_gives_a_package_whose_tests_pass(model, tmp_path, dynamo_endpoint):
    results = import_data(ROOT / "tests" / "data" / "workbench" / f"{model}.json", "workbench", tmp_path / "imported",
                          sqlite=tmp_path / "s.sqlite", progress=False)
    for r in results:
        out = tmp_path / f"pkg_{r.spec.domain}"
        export_python(r.spec, out, data_dir=r.rows_dir, now=NOW)
        assert {p.name for p in r.spec.access_patterns} <= _patterns_tested(out)
        _check_package(out, dynamo_endpoint.url)


def test_the_same_spec_gives_the_same_bytes_and_a_sample_when_no_data_is_given(tmp_path):
    spec = ROOT / "data" / "specs" / "dialogue_v2.yaml"
    first = export_python(spec, tmp_path / "a", now=NOW)
    second = export_python(spec, tmp_path / "b", now=NOW)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert len(files) == 11 and first.findings.items_checked is None
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    assert second.text == first.text and '"items": [' in (tmp_path / "a" / "tests" / "fixture.json").read_text()
    code = "".join((tmp_path / "a" / f).read_text(encoding="utf-8") for f in files if f.suffix == ".py")
    assert "blue_nb" not in re.sub(r'""".*?"""|#.*', "", code, flags=re.DOTALL)   # no import of blue_nb anywhere


INSTALLED = r"""
import sys
sys.modules["blue_nb"] = None                  # any import of blue_nb now fails
import json
from decimal import Decimal
from dialogue_access import DIGEST, TABLE, DialogueAccess, DesignMismatch, SqliteBackend, check_design
from dialogue_access import runtime as rt
from dialogue_access.entities import Dialogue, Perspective

assert check_design(DIGEST)["validated"] is True
try:
    check_design("0" * 64)
    raise SystemExit("a wrong digest was accepted")
except DesignMismatch as e:
    assert "not the reviewed" in str(e)
backend = SqliteBackend(TABLE, sys.argv[1])
backend.create_table()
access = DialogueAccess(backend)
p = Perspective(dialogue_id="nvidia-dec", round=3, expert="muffin", seq=7, label="l", content="c", status="open")
access.add_perspective(p)
access.add_perspective(Perspective(dialogue_id="nvidia-dec", round=12, expert="ada", seq=1))
backend.put_items([Dialogue(dialogue_id="nvidia-dec", title="t", status="open", created_at="2026-01-01").to_item()])
access.set_dialogue_status("nvidia-dec", status="closed")
page = access.list_round("nvidia-dec", 3)
got = access.get_dialogue("nvidia-dec")
print(json.dumps({"round": [x.to_item()["sk"] for x in page.items], "cursor": page.cursor,
                  "status": got.status if got else None, "gsi1pk": got.keys().get("gsi1pk") if got else None,
                  "all": [x.seq for x in access.list_perspectives("nvidia-dec").items],
                  "modules": sorted(m for m in sys.modules if m.startswith("blue_nb") and sys.modules[m] is not None),
                  "ddl": backend.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'blue_dialogue'").fetchone()[0]}))
"""


@pytest.mark.slow
def test_the_package_installs_with_pip_and_runs_with_no_part_of_blue_nb(tmp_path):
    import json

    export_python(ROOT / "data" / "specs" / "dialogue_v2.yaml", tmp_path / "pkg", now=NOW)
    site = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                          str(tmp_path / "pkg")], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    assert (site / "dialogue_access" / "runtime.py").exists() and (site / "dialogue_access" / "py.typed").exists()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", INSTALLED, str(tmp_path / "blue.sqlite")], capture_output=True,
                         text=True, timeout=300, env={**env, "PYTHONPATH": str(site)}, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["round"] == ["PERSP#003#muffin#007"] and got["cursor"] is None and got["modules"] == []
    assert got["status"] == "closed" and got["gsi1pk"] == "STATUS#closed"   # the index key follows the attribute
    assert got["ddl"] == main_table_sql("blue_dialogue")            # ADR 0018's table, exactly
    assert got["all"] == [7, 1]                   # PERSP#003... before PERSP#012...: the padding orders them


FETCHING = """
spec_version: 1
domain: fetch
table:
  partition_key: pk
  sort_key: sk
  indexes:
    by_when: {type: local, sort_key: at, projection: keys_only}
entities:
  Event:
    key: {pk: "{user}", sk: "EVENT#{id}", at: "{at}"}
    attributes: {body: S}
    writer: events
access_patterns:
  - name: recent
    operation: query
    entities: [Event]
    index: by_when
    key_condition: {pk: "{user}"}
    select: ALL_ATTRIBUTES
"""


def test_a_pattern_the_generator_cannot_run_alike_is_refused_with_its_spec_path(tmp_path):
    path = tmp_path / "fetch.yaml"
    path.write_text(FETCHING, encoding="utf-8")
    with pytest.raises(ExportRefused) as e:
        export_python(path, tmp_path / "out", now=NOW)
    assert e.value.where == "access_patterns[0] (recent).projection" and "recent" in e.value.msg
    assert not (tmp_path / "out").exists()
    result = CliRunner().invoke(cli, ["export", str(path), "--format", "python", "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and "access_patterns[0] (recent)" in result.output
    assert "Traceback" not in result.output


def test_the_command_line_writes_the_folder_and_refuses_what_it_cannot_do(tmp_path):
    spec = str(ROOT / "data" / "specs" / "dialogue_v2.yaml")
    out = tmp_path / "pkg"
    ok = CliRunner().invoke(cli, ["export", spec, "--format", "python", "-o", str(out), "--now", NOW])
    assert ok.exit_code == 0, ok.output
    assert f"wrote python to {out}" in ok.output and "; 11 files" in ok.output
    again = CliRunner().invoke(cli, ["export", spec, "--format", "python", "-o", str(out), "--now", NOW])
    assert again.exit_code == 2 and "already there" in again.output                  # replaced only with --force
    forced = CliRunner().invoke(cli, ["export", spec, "--format", "python", "-o", str(out), "--now", NOW, "--force"])
    assert forced.exit_code == 0, forced.output
    both = CliRunner().invoke(cli, ["export", spec, "--format", "python", "--format", "spec-yaml", "-o", str(out)])
    assert both.exit_code == 2 and "on its own" in both.output
    errors = CliRunner().invoke(cli, ["export", str(ROOT / "data" / "specs" / "dialogue.yaml"), "--format", "python",
                                      "-o", str(tmp_path / "d")])
    assert errors.exit_code == 2 and "python export refused: the spec has 1 error" in errors.output
    assert not (tmp_path / "d").exists()


ODD_NAMES = """
spec_version: 1
domain: odd
rules: dynamodb
table: {partition_key: id}
entities:
  Thing:
    key: {id: "{thing_id}"}
    attributes: {flag: BOOL, raw: B, tags: SS, "first-name": S, class: S, other_attributes: M}
"""


@pytest.mark.slow
def test_names_that_are_not_python_names_and_a_spec_without_patterns(tmp_path, dynamo_endpoint):
    path = tmp_path / "odd.yaml"
    path.write_text(ODD_NAMES, encoding="utf-8")
    export_python(path, tmp_path / "pkg", now=NOW)
    entities = (tmp_path / "pkg" / "odd_access" / "entities.py").read_text(encoding="utf-8")
    for field in ("first_name: str | None = None", "class_: str | None = None",
                  "other_attributes: dict[str, Any] | None = None", "other_attributes_: dict[str, Any] = field("):
        assert f"    {field}" in entities
    assert "item['first-name'] = self.first_name" in entities
    _check_package(tmp_path / "pkg", dynamo_endpoint.url)
