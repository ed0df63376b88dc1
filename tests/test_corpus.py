"""Designs nobody here wrote: every public NoSQL Workbench model of ``tests/data/workbench/`` (and the two of
``tests/fixtures/workbench/``) goes through the whole pipeline, in process, with every item accounted for.

For each model: the import (spec, rows, a SQLite store) holds exactly the model's items (the digest of
the items the model file holds = the digest of the items its rows build = the digest of the store); the
draft validates without errors under the DynamoDB rule profile; every export format is written in one
run without ``--force`` (the review reports included), the Workbench model with every item; that model
imported again gives back the same spec and the same items; the bill is priced; and the design is
applied to the embedded DynamoDB endpoint, every item arriving identical and every read pattern
answering as the local stores do. ``tests/data/README.md`` cites where each model comes from.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from blue_nb.app.costs import design_cost
from blue_nb.app.exports import export_all
from blue_nb.app.imports import import_data
from blue_nb.app.roundtrip import apply_spec, items_digest
from blue_nb.app.workflows import located_items
from blue_nb.dynamo import Endpoint
from blue_nb.errors import SourceError
from blue_nb.export import FORMATS
from blue_nb.imports.workbench import read_workbench
from blue_nb.stores import open_store

HERE = Path(__file__).parent
MODELS = sorted((HERE / "data" / "workbench").glob("*.json")) + sorted((HERE / "fixtures" / "workbench").glob("*.json"))

# model -> entities the import makes (by the type attribute, facets, the separator the keys use, key shapes)
ENTITIES = {
    "ACL": ["User", "Group", "Role", "Privilege"],
    "AssetManagement": ["Asset", "Event"],
    "Chat": ["User", "Room"],
    "Hospital": ["Patient", "Treatment", "Medicine", "Admission", "Doctor", "Nurse", "Room", "Activity"],
    "OnlineBanking": ["Customer", "Account", "Transaction", "Purchase"],
    "PhoneBilling": ["Customer", "Address", "Phone", "Call", "Detail"],
    "MobilePayments": ["Customer", "Device", "Account", "Transaction"],
    "RecurringPayments": ["Subscription", "Receipts"],
}


def test_the_corpus_is_large_and_cited():
    readme = (HERE / "data" / "README.md").read_text(encoding="utf-8")
    assert len(MODELS) >= 15
    for model in MODELS:
        assert model.name in readme or model.parent.name == "fixtures" or model.parent.parent.name == "fixtures"


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.stem)
def test_a_public_model_goes_through_the_whole_pipeline_with_every_item(model, tmp_path, dynamo_endpoint):
    tables = {t.name: t for t in read_workbench(model).tables}
    results = import_data(model, "workbench", tmp_path / "imported", sqlite=tmp_path / "s.sqlite", progress=False)
    assert sorted(r.spec.table_name for r in results) == sorted(tables)
    endpoint = Endpoint.embedded(dynamo_endpoint)
    for r in results:
        spec, rows = r.spec, r.rows_dir
        table = tables[spec.table_name]
        count, digest = items_digest(item for _, item, _ in table.items)
        assert (r.items, r.not_in_rows, r.unmatched) == (count, 0, 0), r.notes
        assert items_digest(item for _, item, _ in located_items(spec, rows)) == (count, digest)   # rows rebuild them
        with open_store("sqlite", tmp_path / "s.sqlite") as store:
            assert items_digest(store.iter_items(spec.table_name)) == (count, digest)
        if model.stem in ENTITIES:
            assert list(spec.entities) == ENTITIES[model.stem]
        assert spec.rules == "dynamodb" and not any(p.startswith("entities.") and "{sk}" == p for p in spec.inferred)

        out = tmp_path / "handover" / spec.domain
        exported = export_all(spec, out, data_dir=rows)                # validates once, for every format
        findings = exported["spec-yaml"].findings
        assert not findings.has_errors and findings.items_checked == count, findings.to_text()
        assert list(exported) == list(FORMATS) and all(x.validated for x in exported.values())
        assert all(x.path is not None and x.path.stat().st_size > 0 for x in exported.values())
        wb = exported["workbench"]
        assert wb.sample_items == wb.total_items == count

        (back,) = import_data(wb.path, "workbench", tmp_path / "again" / spec.domain, progress=False)
        assert back.spec.to_dict() == spec.to_dict() and back.items == count
        assert items_digest(item for _, item, _ in located_items(back.spec, back.rows_dir)) == (count, digest)

        bill = design_cost(spec, rows)
        assert bill.spec and bill.patterns

        applied = apply_spec(spec, rows, endpoint=endpoint, table_prefix=f"c{uuid.uuid4().hex[:8]}_",
                             progress=False)
        assert applied.ok and not applied.left_out, applied.lines()
        assert (applied.items_stored, applied.digest_stored) == (count, digest)


@pytest.mark.slow
def test_cost_and_apply_take_the_loaded_store_as_well_as_the_rows(tmp_path, dynamo_endpoint):
    """`blue-nb import --duckdb FILE` fills a store once; cost and apply read it (the same bill and the same
    items as from the rows); both or neither of --data and --duckdb is refused, exit 2."""
    from click.testing import CliRunner

    from blue_nb.cli import cli

    run = CliRunner().invoke
    model, store = HERE / "data" / "workbench" / "Chat.json", tmp_path / "chat.duckdb"
    r = run(cli, ["import", str(model), "--from", "workbench", "--out", str(tmp_path / "in"), "--duckdb", str(store),
                  "--no-progress"])
    assert r.exit_code == 0, r.output + r.stderr
    spec, rows = str(tmp_path / "in" / "chat.yaml"), str(tmp_path / "in" / "chat")
    by_rows = run(cli, ["cost", spec, "--data", rows, "--format", "json"])
    by_store = run(cli, ["cost", spec, "--duckdb", str(store), "--format", "json"])
    assert by_rows.exit_code == by_store.exit_code == 0 and by_rows.stdout == by_store.stdout
    for bad in ([], ["--data", rows, "--duckdb", str(store)]):
        r = run(cli, ["cost", spec, *bad])
        assert r.exit_code == 2 and "Traceback" not in r.stderr and "--duckdb" in r.stderr
    r = run(cli, ["apply", spec, "--duckdb", str(store), "--endpoint-url", dynamo_endpoint.url, "--table-prefix", f"d{uuid.uuid4().hex[:8]}_",
                  "--no-progress", "--format", "json"])
    assert r.exit_code == 0, r.output + r.stderr
    got = json.loads(r.stdout)
    assert got["ok"] and got["items"]["built"] == got["items"]["stored"] == 8 and got["items"]["match"]


TEMPLATES = sorted((HERE / "data" / "cloudformation").glob("*.json"))


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.stem)
def test_a_cloudformation_template_imports_as_a_spec_that_exports_the_same_table(template, tmp_path):
    (r,) = import_data(template, "cloudformation", tmp_path / "in", progress=False)
    assert r.spec.rules == "dynamodb" and r.items == 0 and not r.findings.has_errors
    source = next(res["Properties"] for res in json.loads(template.read_text())["Resources"].values())
    out = export_all(r.spec, tmp_path / "out", formats=["cloudformation-json", "create-table"])
    (made,) = json.loads(out["cloudformation-json"].path.read_text())["Resources"].values()
    props = made["Properties"]
    assert props["TableName"] == source["TableName"] and props["KeySchema"] == source["KeySchema"]
    assert sorted(map(json.dumps, props["AttributeDefinitions"])) == \
        sorted(map(json.dumps, source["AttributeDefinitions"]))
    index = {g["IndexName"]: (g["KeySchema"], g["Projection"]) for g in source.get("GlobalSecondaryIndexes", [])}
    assert {g["IndexName"]: (g["KeySchema"], g["Projection"]) for g in props.get("GlobalSecondaryIndexes", [])} == index
    assert props.get("BillingMode", "PROVISIONED") == source["BillingMode"]


def test_a_template_in_yaml_with_short_functions_and_a_local_index(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text("""
Parameters:
  Reads: {Type: Number, Default: 7}
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "${AWS::StackName}-orders"
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: sk, AttributeType: S}
        - {AttributeName: placed, AttributeType: N}
      KeySchema: [{AttributeName: pk, KeyType: HASH}, {AttributeName: sk, KeyType: RANGE}]
      LocalSecondaryIndexes:
        - IndexName: by-placed
          KeySchema: [{AttributeName: pk, KeyType: HASH}, {AttributeName: placed, KeyType: RANGE}]
          Projection: {ProjectionType: KEYS_ONLY}
      ProvisionedThroughput: {ReadCapacityUnits: !Ref Reads, WriteCapacityUnits: !Ref Writes}
  Bucket: {Type: AWS::S3::Bucket}
""")
    (r,) = import_data(template, "cloudformation", tmp_path / "in", progress=False)
    t = r.spec.table
    assert (t.name, t.partition_key, t.sort_key, t.billing_mode, t.read_capacity, t.write_capacity) == \
        ("Orders", "pk", "sk", "PROVISIONED", 7, 1)
    lsi = t.indexes["by-placed"]
    assert (lsi.type, lsi.sort_key, lsi.sort_key_type, lsi.projection) == ("local", "placed", "N", "keys_only")
    assert any("named after the resource, Orders" in n for n in r.notes)
    assert any("the write capacity is" in n and "1 assumed" in n for n in r.notes)


def test_a_template_without_a_table_is_refused_with_its_place(tmp_path):
    bad = tmp_path / "t.yaml"
    bad.write_text("Resources:\n  B: {Type: AWS::S3::Bucket}\n")
    with pytest.raises(SourceError) as e:
        import_data(bad, "cloudformation", tmp_path / "in", progress=False)
    assert "AWS::DynamoDB::Table" in e.value.msg and e.value.where == str(bad)


def test_a_live_tables_description_imports_as_the_same_table(tmp_path, dynamo_client):
    spec = next(r.spec for r in import_data(HERE / "data" / "workbench" / "RecurringPayments.json", "workbench",
                                            tmp_path / "wb", progress=False))
    dynamo_client.create_table(spec)
    described = tmp_path / "described.json"
    described.write_text(json.dumps({"Table": dynamo_client.describe(spec.table_name)}, default=str))
    (r,) = import_data(described, "describe-table", tmp_path / "in", progress=False)
    got, want = r.spec.table, spec.table
    assert (got.partition_key, got.sort_key, got.billing_mode, got.read_capacity, got.write_capacity) == \
        (want.partition_key, want.sort_key, want.billing_mode, want.read_capacity, want.write_capacity)
    assert got.indexes == want.indexes
