"""blue-nb export: every format of every example spec against its golden file, the spec formats'
exact round trip and stamp, the refusal of a spec with errors (and what a forced file says),
cfn-lint on every CloudFormation template, the CreateTable request on a real endpoint and as
--cli-input-json, and the command line.

Golden files: tests/golden/export/<spec>.<format><suffix>, made from the specs alone with a fixed
time (and one Workbench model with sample items from the session's small generated sample);
regenerate with ``BLUE_NB_UPDATE_GOLDEN=1 pytest tests/test_export.py`` and review the diff.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from blue_nb import __version__
from blue_nb.app import exports as app_exports
from blue_nb.app.exports import export_spec, sample_items_by_entity
from blue_nb.app.workflows import source_files
from blue_nb.cli import cli
from blue_nb.export import FORMATS, SAMPLE_ITEMS, ExportRefused, content_hash, export, verify_stamp
from blue_nb.items.values import item_to_wire
from blue_nb.rules import check_spec
from blue_nb.sources.files import count_rows
from blue_nb.spec import dumps_spec, load_spec, loads_spec

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden" / "export"
UPDATE = os.environ.get("BLUE_NB_UPDATE_GOLDEN") == "1"
NOW = "2026-01-31T12:00:00Z"
SPECS = {"dialogue": ROOT / "data/specs/dialogue.yaml", "dialogue_v2": ROOT / "data/specs/dialogue_v2.yaml",
         "document": ROOT / "data/specs/document.yaml", "library": ROOT / "data/examples/library/library.yaml"}
WITH_ERRORS = {"dialogue", "library"}          # ADR4-SINGLE-WRITER: exported only with force
CFN_LINT = Path(sys.executable).with_name("cfn-lint")
DOCUMENTS = [f for f, rec in FORMATS.items() if rec.refuses_errors]     # not the review reports (test_report.py)


def spec_of(name: str):
    return load_spec(SPECS[name])


def golden_name(spec: str, fmt: str) -> str:
    return f"{spec}.{fmt}{FORMATS[fmt].suffix}"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{name} differs from its golden file"


def provisioned(spec, read: int = 40, write: int = 15):
    return spec.with_changes(table=replace(spec.table, billing_mode="PROVISIONED", read_capacity=read,
                                           write_capacity=write))


# ---------------------------------------------------------------- golden files


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("spec", list(SPECS))
def test_every_format_of_every_spec_matches_its_golden_file(spec, fmt, monkeypatch):
    monkeypatch.chdir(ROOT)                       # the reports name the spec relative to the working folder
    text = export(spec_of(spec), fmt, force=spec in WITH_ERRORS, now=NOW)
    check_golden(golden_name(spec, fmt), text)


def test_the_workbench_golden_with_sample_items(dialogue_data):
    spec = spec_of("dialogue_v2")
    items = sample_items_by_entity(spec, dialogue_data, n=2)
    assert {e: len(v) for e, v in items.items()} == {e: 2 for e in spec.entities}
    text = export(spec, "workbench", data=items, now=NOW)
    check_golden("dialogue_v2.workbench-sample.json", text)
    model = json.loads(text)
    facets = {f["FacetName"]: f for f in model["DataModel"][0]["TableFacets"]}
    assert facets["Perspective"]["TableData"] == [item_to_wire(i) for i in items["Perspective"]]


def test_the_registry_lists_the_formats_and_their_files():
    assert list(FORMATS) == ["spec-yaml", "spec-json", "create-table", "cloudformation", "cloudformation-json",
                             "workbench", "report-html", "report-md"]
    assert DOCUMENTS == list(FORMATS)[:6]
    assert {f.name: (f.suffix, f.media_type) for f in FORMATS.values()}["cloudformation"] == (".yaml",
                                                                                             "application/yaml")
    with pytest.raises(Exception, match="unknown export format 'report-pdf'"):
        export(spec_of("document"), "report-pdf")


# ---------------------------------------------------------------- the spec, with its stamp


@pytest.mark.parametrize("fmt", ["spec-yaml", "spec-json"])
@pytest.mark.parametrize("spec", list(SPECS))
def test_the_spec_export_round_trips_exactly_and_its_stamp_verifies(spec, fmt):
    original = spec_of(spec)
    text = export(original, fmt, force=spec in WITH_ERRORS, now=NOW)
    loaded = loads_spec(text)
    assert loaded == original
    assert dumps_spec(loaded, "yaml") == dumps_spec(original, "yaml")
    canonical = json.dumps(original.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    findings = check_spec(original)
    assert loaded.stamp == {
        "blue_nb": __version__, "exported_at": NOW, "validated": spec not in WITH_ERRORS,
        "findings": findings.counts, "items_checked": None,
        "content_sha256": hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
        **({"note": "NOT VALIDATED: exported with --force despite 1 error (ADR4-SINGLE-WRITER)"}
           if spec in WITH_ERRORS else {})}
    assert verify_stamp(loaded) and content_hash(loaded) == loaded.stamp["content_sha256"]


def test_the_stamp_catches_an_edit_and_a_resaved_spec_drops_it(tmp_path):
    spec = spec_of("dialogue_v2")
    text = export(spec, "spec-yaml", now=NOW)
    assert text.startswith(f"# blue_nb {__version__} export of spec dialogue (table blue_dialogue) at {NOW}\n"
                           "# validated (spec only): 0 errors, 0 warnings, 2 notes\n")
    assert text.endswith(f"stamp:\n  blue_nb: {__version__}\n  exported_at: '{NOW}'\n  validated: true\n"
                         "  findings:\n    error: 0\n    warning: 0\n    info: 2\n  items_checked: null\n"
                         f"  content_sha256: {content_hash(spec)}\n")
    edited = text.replace("rate_per_second: 120", "rate_per_second: 121", 1)
    assert edited != text
    assert not verify_stamp(loads_spec(edited))
    path = tmp_path / "v2.yaml"
    path.write_text(text, encoding="utf-8")
    assert verify_stamp(load_spec(path))
    assert "stamp" not in dumps_spec(load_spec(path)) and not verify_stamp(spec)


def test_a_stamp_with_a_bad_hash_or_an_unknown_field_is_refused_by_the_spec_loader():
    text = export(spec_of("document"), "spec-json", now=NOW)
    data = json.loads(text)
    data["stamp"]["content_sha256"] = "abc"
    with pytest.raises(Exception, match=r"stamp.content_sha256"):
        loads_spec(json.dumps(data))
    data = json.loads(text)
    data["stamp"]["signed_by"] = "me"
    with pytest.raises(Exception, match="unknown field 'signed_by'"):
        loads_spec(json.dumps(data))


# ---------------------------------------------------------------- refusal and force


@pytest.mark.parametrize("fmt", DOCUMENTS)
def test_a_spec_with_errors_is_refused_and_named(fmt):
    with pytest.raises(ExportRefused) as e:
        export(spec_of("dialogue"), fmt, now=NOW)
    assert e.value.errors == [f"ADR4-SINGLE-WRITER at entities.TensionEvent.writer: {f.message}"
                              for f in check_spec(spec_of("dialogue")).errors]
    assert "export refused: the spec has 1 error" in str(e.value) and "--force" in e.value.hint


FORCED = {
    "spec-yaml": lambda t: [t.splitlines()[1], yaml.safe_load(t)["stamp"]["note"]],
    "spec-json": lambda t: [json.loads(t)["stamp"]["note"]],
    "create-table": lambda t: [json.loads(t)["Tags"][0]["Value"]],
    "cloudformation": lambda t: [yaml.safe_load(t)["Description"]],
    "cloudformation-json": lambda t: [json.loads(t)["Description"]],
    "workbench": lambda t: [json.loads(t)["ModelMetadata"]["Description"], json.loads(t)["BlueNb"]["stamp"]["note"]],
}


@pytest.mark.parametrize("fmt", DOCUMENTS)
def test_a_forced_export_says_in_the_file_that_it_is_not_validated(fmt):
    places = FORCED[fmt](export(spec_of("dialogue"), fmt, force=True, now=NOW))
    for text in places:
        assert re.search(r"NOT VALIDATED|^false: exported with", text), text
        assert "ADR4-SINGLE-WRITER" in text
    clean = export(spec_of("dialogue_v2"), fmt, force=True, now=NOW)
    assert "NOT VALIDATED" not in clean and "validated: false" not in clean and '"validated": false' not in clean


def test_findings_given_are_used_and_force_exports_past_them():
    spec = spec_of("document")
    errors = check_spec(spec_of("dialogue"))          # an error found elsewhere (e.g. in the items)
    with pytest.raises(ExportRefused):
        export(spec, "spec-json", findings=errors, now=NOW)
    stamp = json.loads(export(spec, "spec-json", findings=errors, force=True, now=NOW))["stamp"]
    assert stamp["validated"] is False and stamp["findings"] == errors.counts


# ---------------------------------------------------------------- CloudFormation


def test_cloudformation_holds_the_table_the_indexes_and_the_safety_settings():
    t = yaml.safe_load(export(spec_of("dialogue_v2"), "cloudformation", now=NOW))
    assert list(t) == ["AWSTemplateFormatVersion", "Description", "Resources", "Outputs"]
    table = t["Resources"]["Table"]
    assert (table["Type"], table["DeletionPolicy"], table["UpdateReplacePolicy"]) == \
        ("AWS::DynamoDB::Table", "Retain", "Retain")
    p = table["Properties"]
    assert p["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert p["DeletionProtectionEnabled"] is True and p["BillingMode"] == "PAY_PER_REQUEST"
    assert "ProvisionedThroughput" not in p
    assert p["GlobalSecondaryIndexes"][0]["Projection"] == {"ProjectionType": "INCLUDE",
                                                            "NonKeyAttributes": ["title", "status", "created_at"]}
    assert t["Outputs"] == {"TableName": {"Description": "The table's name", "Value": {"Ref": "Table"}},
                            "TableArn": {"Description": "The table's ARN", "Value": {"Fn::GetAtt": ["Table", "Arn"]}}}
    assert t["Description"].endswith("validated: 0 errors, 0 warnings, 2 notes. Billing: on demand (PAY_PER_REQUEST).")


def test_provisioned_throughput_comes_from_the_spec_or_from_the_modelled_peaks():
    spec = provisioned(spec_of("dialogue_v2"))
    p = yaml.safe_load(export(spec, "cloudformation", now=NOW))
    props = p["Resources"]["Table"]["Properties"]
    assert props["ProvisionedThroughput"] == {"ReadCapacityUnits": 40, "WriteCapacityUnits": 15}
    assert props["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"] == {"ReadCapacityUnits": 40,
                                                                           "WriteCapacityUnits": 15}
    assert p["Description"].endswith("Provisioned throughput from the spec's read_capacity / write_capacity: "
                                     "table 40 RCU / 15 WCU; gsi1 40 RCU / 15 WCU.")
    p = json.loads(export(spec, "cloudformation-json", data={"table": (812.25, 30), "gsi1": (0.2, 4.01)}, now=NOW))
    props = p["Resources"]["Table"]["Properties"]
    assert props["ProvisionedThroughput"] == {"ReadCapacityUnits": 813, "WriteCapacityUnits": 30}
    assert props["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"] == {"ReadCapacityUnits": 1,
                                                                           "WriteCapacityUnits": 5}
    assert "Provisioned throughput from the modelled peak traffic (rounded up): table 813 RCU / 30 WCU; " \
           "gsi1 1 RCU / 5 WCU." in p["Description"]
    partial = json.loads(export(spec, "cloudformation-json", data={"gsi1": (9, 9)}, now=NOW))["Description"]
    assert "of gsi1 from the modelled peak traffic (rounded up), of the others from the spec's" in partial
    with pytest.raises(Exception, match="capacity given for 'gsi9', which is not the table or a GSI"):
        export(spec, "cloudformation", data={"gsi9": (1, 1)}, now=NOW)


def test_cfn_lint_passes_every_template_provisioned_included(tmp_path):
    files = [GOLDEN / golden_name(s, f) for s in SPECS for f in ("cloudformation", "cloudformation-json")]
    for name in SPECS:
        spec = provisioned(spec_of(name))
        peaks = {"table": (1779.4, 46), "gsi1": (13.5, 10)}
        for fmt, data in (("cloudformation", None), ("cloudformation-json", peaks)):
            path = tmp_path / f"{name}.provisioned{FORMATS[fmt].suffix}"
            path.write_text(export(spec, fmt, data=data, force=True, now=NOW), encoding="utf-8")
            files.append(path)
    broken = yaml.safe_load(files[0].read_text(encoding="utf-8"))
    del broken["Resources"]["Table"]["Properties"]["KeySchema"]
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken), encoding="utf-8")
    out = subprocess.run([str(CFN_LINT), "--", *map(str, files)], capture_output=True, text=True, timeout=300)
    assert (out.returncode, out.stdout, out.stderr) == (0, "", ""), out.stdout + out.stderr
    bad = subprocess.run([str(CFN_LINT), str(tmp_path / "broken.yaml")], capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "KeySchema" in bad.stdout        # the check can fail


# ---------------------------------------------------------------- CreateTable


def test_create_table_is_exactly_the_create_table_input_for_the_aws_cli():
    import botocore.session
    from botocore.validate import validate_parameters

    shape = botocore.session.get_session().get_service_model("dynamodb").operation_model("CreateTable").input_shape
    for name in SPECS:
        request = json.loads(export(spec_of(name), "create-table", force=True, now=NOW))
        assert set(request) <= set(shape.members), set(request) - set(shape.members)
        validate_parameters(request, shape)                # raises on any unknown or ill-typed key
        assert ("Tags" in request) == (name in WITH_ERRORS)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SPECS))
def test_create_table_creates_the_table_on_the_endpoint(name, dynamo_client):
    spec = spec_of(name)
    request = json.loads(export(spec, "create-table", force=True, now=NOW))
    dynamo_client.call("create_table", **request)
    table = dynamo_client.call("describe_table", TableName=spec.table_name)["Table"]
    assert table["KeySchema"] == request["KeySchema"]
    assert sorted(table["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == request["AttributeDefinitions"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert [{k: g[k] for k in ("IndexName", "KeySchema", "Projection")} for g in table["GlobalSecondaryIndexes"]] \
        == request["GlobalSecondaryIndexes"]


@pytest.mark.slow
def test_a_provisioned_create_table_request_creates_its_throughput(dynamo_client):
    spec = provisioned(spec_of("document"), 7, 3)
    request = json.loads(export(spec, "create-table", now=NOW))
    dynamo_client.call("create_table", **request)
    table = dynamo_client.call("describe_table", TableName=spec.table_name)["Table"]
    assert {k: table["ProvisionedThroughput"][k] for k in ("ReadCapacityUnits", "WriteCapacityUnits")} == \
        {"ReadCapacityUnits": 7, "WriteCapacityUnits": 3}


# ---------------------------------------------------------------- the app layer and the command line


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_the_command_writes_each_format_to_a_file(fmt, tmp_path):
    out = tmp_path / "sub" / f"doc{FORMATS[fmt].suffix}"
    r = run("export", SPECS["document"], "--format", fmt, "-o", out, "--now", NOW)
    assert r.exit_code == 0, r.output
    assert out.read_text(encoding="utf-8") == export(spec_of("document"), fmt, now=NOW)
    assert r.stdout == (f"wrote {fmt} to {out} ({out.stat().st_size:,} bytes): validated (spec only): "
                        "0 errors, 0 warnings, 4 notes\n")


def test_the_command_refuses_a_spec_with_errors_with_exit_2_and_writes_nothing(tmp_path):
    out = tmp_path / "t.yaml"
    r = run("export", SPECS["dialogue"], "--format", "cloudformation", "-o", out)
    assert r.exit_code == 2 and not out.exists()
    assert r.stderr.startswith(f"error: {SPECS['dialogue']}: cloudformation export refused: the spec has 1 error:\n"
                               "  - ADR4-SINGLE-WRITER at entities.TensionEvent.writer")
    assert "hint: fix them, or --force" in r.stderr and "Traceback" not in r.output
    r = run("export", SPECS["dialogue"], "--format", "cloudformation", "-o", out, "--force", "--now", NOW)
    assert r.exit_code == 0 and "NOT VALIDATED (spec only): 1 error, 1 warning, 4 notes, exported with --force" \
        in r.stdout
    assert out.read_text(encoding="utf-8") == (GOLDEN / "dialogue.cloudformation.yaml").read_text(encoding="utf-8")


def test_the_command_writes_to_stdout_with_dash_and_says_so_on_stderr():
    r = run("export", SPECS["dialogue_v2"], "--format", "spec-json", "-o", "-", "--now", NOW)
    assert r.exit_code == 0
    assert r.stdout == export(spec_of("dialogue_v2"), "spec-json", now=NOW)
    assert r.stderr.startswith("wrote spec-json to stdout (")


def test_bad_usage_is_exit_2_without_traceback(tmp_path):
    for args in (["--format", "report-pdf"], ["--format", "spec-json", "--now", "yesterday"]):
        r = run("export", SPECS["document"], *args, "-o", tmp_path / "x")
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    r = run("export", tmp_path / "missing.yaml", "--format", "spec-json", "-o", tmp_path / "x")
    assert r.exit_code == 2 and "cannot read spec file" in r.stderr


@pytest.mark.slow
def test_with_data_the_items_are_checked_the_model_gets_samples_and_the_template_the_peaks(dialogue_data, tmp_path):
    result = export_spec(ROOT / "data/specs/dialogue_v2.yaml", "workbench", data_dir=dialogue_data, now=NOW,
                         out=tmp_path / "m.json")
    rows = {e: count_rows(p) for e, p in source_files(spec_of("dialogue_v2"), dialogue_data).items()}
    assert sum(rows.values()) == result.findings.items_checked == 3245
    assert result.sample_items == result.total_items == 3245 and result.summary().endswith("; 3,245 items")
    model = json.loads((tmp_path / "m.json").read_text())
    assert sum(len(f["TableData"]) for f in model["DataModel"][0]["TableFacets"]) == 3245      # nothing left out
    sampled = export_spec(ROOT / "data/specs/dialogue_v2.yaml", "workbench", data_dir=dialogue_data, now=NOW,
                          sample=SAMPLE_ITEMS)
    assert sampled.sample_items == sum(min(n, SAMPLE_ITEMS) for n in rows.values()) == 25 * len(rows)  # 25 Dialogues
    assert sampled.summary().endswith(f"; {sampled.sample_items:,} of 3,245 items (a sample)")
    stamp = json.loads((tmp_path / "m.json").read_text())["BlueNb"]["stamp"]
    assert stamp["items_checked"] == 3245 and stamp["findings"] == result.findings.counts
    spec_path = tmp_path / "provisioned.yaml"
    spec_path.write_text(dumps_spec(provisioned(spec_of("dialogue_v2"), 1, 1)), encoding="utf-8")
    result = export_spec(spec_path, "cloudformation", data_dir=dialogue_data, now=NOW, out=tmp_path / "t.yaml")
    assert result.validated and result.capacity.startswith("the modelled peaks: ")
    assert any("TABLE-CAPACITY finding(s)" in n for n in result.notes)
    props = yaml.safe_load(result.text)["Resources"]["Table"]["Properties"]
    assert props["ProvisionedThroughput"]["ReadCapacityUnits"] > 1
    out = subprocess.run([str(CFN_LINT), str(tmp_path / "t.yaml")], capture_output=True, text=True, timeout=300)
    assert (out.returncode, out.stdout) == (0, "")


def test_a_file_already_there_is_replaced_only_with_force_and_a_failed_write_leaves_it(tmp_path, monkeypatch):
    out = tmp_path / "t.json"
    out.write_text("old\n")
    r = run("export", SPECS["document"], "--format", "create-table", "-o", out, "--now", NOW)
    assert r.exit_code == 2 and "is already there; nothing was written" in r.stderr and "--force" in r.stderr
    assert out.read_text() == "old\n"
    def full(*_a, **_k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(app_exports.os, "replace", full)
    r = run("export", SPECS["document"], "--format", "create-table", "-o", out, "--force", "--now", NOW)
    assert r.exit_code == 2 and "cannot write the export: No space left on device" in r.stderr
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]
    monkeypatch.undo()
    r = run("export", SPECS["document"], "--format", "create-table", "-o", out, "--force", "--now", NOW)
    assert r.exit_code == 0 and out.read_text(encoding="utf-8") == export(spec_of("document"), "create-table", now=NOW)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"] and out.stat().st_mode & 0o777 != 0o600
