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

import json
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
from blue_nb.layout import catalog_table_sql, main_table_sql
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


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory) -> Path:
    """One mypy cache per test process: the standard library and boto3's stubs are analysed once, not once per
    package (each package's own modules are checked again: their files are new)."""
    return tmp_path_factory.mktemp("mypy_cache")


def _check_package(out: Path, endpoint_url: str, mypy_cache: Path) -> str:
    """ruff, mypy --strict and the package's own tests (one pytest process), all on ``out``; pytest's summary."""
    ruff = subprocess.run([str(VENV / "ruff"), "check", "--no-cache", "--output-format", "concise", "."], cwd=out,
                          capture_output=True, text=True, timeout=300)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), "."],
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
def test_a_shipped_spec_gives_a_package_whose_tests_pass_on_both_backends(name, tmp_path, dynamo_endpoint, mypy_cache):
    data, force = SHIPPED[name]
    spec = load_spec(ROOT / "data" / "specs" / f"{name}.yaml")
    result = export_python(spec, tmp_path / "pkg", data_dir=ROOT / data, force=force, now=NOW)
    assert result.validated is not force and len(result.files) == 11
    out = tmp_path / "pkg"
    assert {p.name for p in spec.access_patterns} <= _patterns_tested(out)      # every pattern has its test
    design = (out / f"{spec.domain}_access" / "design.py").read_text(encoding="utf-8")
    assert f"'validated': {not force}" in design
    _check_package(out, dynamo_endpoint.url, mypy_cache)


@pytest.mark.slow
def test_a_design_with_every_kind_of_operation_runs_the_same_on_both_backends(tmp_path, dynamo_endpoint, mypy_cache):
    spec = load_spec(LEDGER / "ledger.yaml")
    export_python(spec, tmp_path / "pkg", data_dir=LEDGER / "ledger", now=NOW)
    fixture = (tmp_path / "pkg" / "tests" / "fixture.json").read_text(encoding="utf-8")
    # the cases the fixture holds: a descending paged between (its bounds the account's first and last entry), a
    # failed conditional put and delete, an update
    between = json.loads(fixture)["reads"]["entries_between"][0]
    assert between["label"] == "most items read" and between["params"] == {"account": "alice", "low": "10",
                                                                          "high": "70"}
    assert len(between["pages"]) == 4 and '"condition_passed": false' in fixture
    # a transaction carried out and one cancelled by its ConditionCheck (nothing written), the reads' items and
    # a key that holds nothing, a batch write's put and delete
    composites = json.loads(fixture)["composites"]
    transfer = {c["label"]: c for c in composites["post_transfer"]}
    assert transfer["carried out"]["reasons"] is None
    assert transfer["cancelled"]["reasons"] == ["None", "ConditionalCheckFailed", "None"]
    assert [m is None for m in transfer["cancelled"]["met"]] == [True, False, True]      # ALL_OLD: the item met
    loaded = {json.dumps(i["pk"]) + json.dumps(i["seq"]): i for i in json.loads(fixture)["items"]}
    assert [a["item"] == loaded.get(json.dumps(a["key"]["pk"]) + json.dumps(a["key"]["seq"]))
            for a in transfer["cancelled"]["after"]] == [True, True, True]          # each item as it was
    assert [a["item"] is None for a in composites["load_entries"][0]["after"]] == [False, True]
    for name in ("get_pair", "get_many"):
        assert [[i is None for i in c["items"]] for c in composites[name]] == [[False, False], [False, True]]
    assert {p.name for p in spec.access_patterns} <= _patterns_tested(tmp_path / "pkg")
    access = (tmp_path / "pkg" / "ledger_access" / "access.py").read_text(encoding="utf-8")
    assert "def post_transfer(self, account: str, seq: str, other: str, to_account: str, new_seq: str, *, entry: Entry)" \
        in access and "-> tuple[Entry | None, Entry | None]:" in access
    _check_package(tmp_path / "pkg", dynamo_endpoint.url, mypy_cache)


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_a_public_workbench_model_gives_a_package_whose_tests_pass(model, tmp_path, dynamo_endpoint, mypy_cache):
    results = import_data(ROOT / "tests" / "data" / "workbench" / f"{model}.json", "workbench", tmp_path / "imported",
                          sqlite=tmp_path / "s.sqlite", progress=False)
    for r in results:
        out = tmp_path / f"pkg_{r.spec.domain}"
        export_python(r.spec, out, data_dir=r.rows_dir, now=NOW)
        assert {p.name for p in r.spec.access_patterns} <= _patterns_tested(out)
        _check_package(out, dynamo_endpoint.url, mypy_cache)


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
def test_names_that_are_not_python_names_and_a_spec_without_patterns(tmp_path, dynamo_endpoint, mypy_cache):
    path = tmp_path / "odd.yaml"
    path.write_text(ODD_NAMES, encoding="utf-8")
    export_python(path, tmp_path / "pkg", now=NOW)
    entities = (tmp_path / "pkg" / "odd_access" / "entities.py").read_text(encoding="utf-8")
    for field in ("first_name: str | None = None", "class_: str | None = None",
                  "other_attributes: dict[str, Any] | None = None", "other_attributes_: dict[str, Any] = field("):
        assert f"    {field}" in entities
    assert "item['first-name'] = self.first_name" in entities
    _check_package(tmp_path / "pkg", dynamo_endpoint.url, mypy_cache)


SET_IN_TRANSACTION = """
spec_version: 1
domain: sets
table: {partition_key: pk, sort_key: sk}
entities:
  Thing:
    key: {pk: "THING#{id}", sk: "A"}
    attributes: {name: S}
    writer: things
access_patterns:
  - name: rename
    operation: update_item
    entities: [Thing]
    key_condition: {pk: "THING#{id}", sk: "A"}
  - name: rename_two
    operation: transact_write_items
    entities: [Thing]
    actions:
      - {pattern: rename, params: {id: "{first}"}}
      - {pattern: rename, params: {id: "{second}"}}
"""


@pytest.mark.parametrize(("text", "where", "name"), [
    (FETCHING, "access_patterns[0] (recent).projection", "recent"),                    # a local index's fetch
    (SET_IN_TRANSACTION, "access_patterns[1] (rename_two).actions[0]", "rename"),    # the caller's attributes
], ids=["index-fetch", "update-in-transaction"])
def test_a_pattern_the_generator_cannot_run_alike_is_refused_with_its_spec_path(tmp_path, text, where, name):
    """Refused by export_python (ExportRefused naming the spec path, nothing written) and by the command line
    (exit 2, the path, no traceback)."""
    path = tmp_path / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ExportRefused) as e:
        export_python(path, tmp_path / "out", now=NOW)
    assert e.value.where == where and name in e.value.msg
    assert not (tmp_path / "out").exists()
    result = CliRunner().invoke(cli, ["export", str(path), "--format", "python", "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and where.split(".")[0] in result.output, result.output
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


def _runtime():
    """The runtime the packages carry, as a module of its own."""
    import types

    from blue_nb.export.python_code import runtime_text

    module = types.ModuleType("blue_access_runtime")
    sys.modules[module.__name__] = module              # dataclasses look their module up
    exec(compile(runtime_text(), "runtime.py", "exec"), module.__dict__)
    return module


def test_a_batch_sends_what_dynamodb_left_unprocessed_again_with_a_backoff(monkeypatch):
    import boto3
    from botocore.stub import Stubber

    rt = _runtime()
    waits = []
    monkeypatch.setattr(rt.time, "sleep", waits.append)
    table = rt.Table("t", "pk", "sk", "S", "S", (), {})
    op = rt.Operation("get", "get_item", None, "pk", "sk", "S", "S")
    put = rt.Operation("put", "put_item", None, "pk", "sk", "S", "S")
    client = boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    backend = rt.DynamoBackend(table, client=client)
    keys = [{"pk": {"S": "a"}, "sk": {"S": str(i)}} for i in range(3)]
    with Stubber(client) as stub:
        stub.add_response("batch_get_item", {"Responses": {"t": [{**keys[2], "n": {"N": "2"}}]},
                                             "UnprocessedKeys": {"t": {"Keys": keys[:2]}}},
                          {"RequestItems": {"t": {"Keys": keys}}})
        stub.add_response("batch_get_item", {"Responses": {"t": [{**keys[0], "n": {"N": "0"}}]}},
                          {"RequestItems": {"t": {"Keys": keys[:2]}}})
        found = backend.batch_get("b", [rt.Call(op, pk="a", sk=(str(i),)) for i in range(3)])
        stub.assert_no_pending_responses()
    assert [None if i is None else i["n"] for i in found] == [0, None, 2]       # in action order, None: missing
    assert waits == [rt.BACKOFF]
    writes = [{"PutRequest": {"Item": {**k, "v": {"S": "x"}}}} for k in keys]
    with Stubber(client) as stub:
        for _ in range(rt.RETRIES + 1):
            stub.add_response("batch_write_item", {"UnprocessedItems": {"t": writes[1:]}})
        with pytest.raises(rt.Unprocessed) as e:
            backend.batch_write("w", [rt.Call(put, pk="a", sk=(str(i),), item={"v": "x"}) for i in range(3)])
    assert e.value.left == {"t": writes[1:]} and len(waits) == 1 + rt.RETRIES
    assert waits[1:4] == [rt.BACKOFF, 2 * rt.BACKOFF, 4 * rt.BACKOFF] and max(waits) <= 2.0


def test_a_transaction_or_a_batch_that_dynamodb_refuses_is_refused_alike_on_sqlite():
    rt = _runtime()
    table = rt.Table("t", "pk", "sk", "S", "S", (), {}, (main_table_sql("t"), *catalog_table_sql("t", [])))
    backend = rt.SqliteBackend(table)
    backend.create_table()
    put = rt.Operation("put", "put_item", None, "pk", "sk", "S", "S")
    twice = [rt.Call(put, pk="a", sk=("1",), item={"v": "x"}), rt.Call(put, pk="a", sk=("1",), item={"v": "y"})]
    with pytest.raises(rt.ValidationError, match="multiple operations on one item"):
        backend.transact_write("w", twice)
    with pytest.raises(rt.ValidationError, match="contains duplicates"):
        backend.batch_write("w", twice)
    with pytest.raises(rt.ValidationError, match="takes 1 to 25 actions, not 26"):
        backend.batch_write("w", [rt.Call(put, pk="a", sk=(str(i),), item={}) for i in range(26)])
    with pytest.raises(rt.ValidationError, match="has the key"):
        backend.transact_write("w", [rt.Call(put, pk="a", sk=("1",), item={"pk": "b", "v": "x"})])
    assert backend.get_raw({"pk": "a", "sk": "1"}) is None                           # nothing was written
