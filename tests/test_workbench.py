"""NoSQL Workbench models in: blue_nb's own exports come back exactly (export -> import -> export is
byte-identical, import(export(spec)) == spec), and real-world model shapes are read: format versions
none/1.0/2.0/3.0, items at table and facet level, untyped nested maps, INCLUDE projections listing
key attributes, several tables, a GSI without sort key, unknown top-level keys; and two real models
from aws-samples (tests/fixtures/workbench/, see SOURCES.md there)."""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from blue_nb.app.exports import sample_items_by_entity
from blue_nb.app.workflows import located_items
from blue_nb.app.imports import import_data
from blue_nb.cli import cli
from blue_nb.errors import SourceError
from blue_nb.export import export
from blue_nb.imports.workbench import read_workbench
from blue_nb.imports.workflow import WORKBENCH_EXTRA
from blue_nb.items.values import item_to_wire
from blue_nb.rules import check_spec
from blue_nb.spec import load_spec
from blue_nb.stores import open_store

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "workbench"
SPECS = {"dialogue": ROOT / "data/specs/dialogue.yaml", "dialogue_v2": ROOT / "data/specs/dialogue_v2.yaml",
         "document": ROOT / "data/specs/document.yaml"}
NOW = "2026-01-31T12:00:00Z"


def imported(tmp_path: Path, model: dict | str | Path, **kw):
    path = model if isinstance(model, (str, Path)) else tmp_path / "model.json"
    if isinstance(model, dict):
        path.write_text(json.dumps(model), encoding="utf-8")
    return import_data(path, "workbench", tmp_path / "out", progress=False, **kw)


def rows_of(result) -> dict[str, list[str]]:
    return {p.stem: p.read_text(encoding="utf-8").splitlines() for p in sorted(result.rows_dir.glob("*.jsonl"))}


# ---------------------------------------------------------------- blue_nb's own exports


@pytest.mark.parametrize("name", list(SPECS))
def test_import_of_an_export_is_the_spec_and_the_second_export_is_byte_identical(name, tmp_path):
    spec = load_spec(SPECS[name])
    first = export(spec, "workbench", force=True, now=NOW)
    (result,) = imported(tmp_path, json.loads(first))
    assert result.spec == spec
    assert load_spec(result.spec_path) == spec
    assert any("matches the model: used as is" in n for n in result.notes)
    assert export(result.spec, "workbench", force=True, now=NOW) == first


def test_sample_items_come_back_as_rows_that_rebuild_them_and_the_second_export_is_identical(dialogue_data, tmp_path):
    spec = load_spec(SPECS["dialogue_v2"])
    items = sample_items_by_entity(spec, dialogue_data, n=4)
    first = export(spec, "workbench", data=items, now=NOW)
    (result,) = imported(tmp_path, json.loads(first), sqlite=tmp_path / "s.sqlite")
    assert result.spec == spec and result.items == 20 and result.not_in_rows == 0
    assert result.per_entity == {e: 4 for e in spec.entities}
    again = sample_items_by_entity(result.spec, result.rows_dir, n=4)         # a load of the rows written
    assert again == items
    assert export(result.spec, "workbench", data=again, now=NOW) == first
    with open_store("sqlite", tmp_path / "s.sqlite") as store:
        assert store.count(spec.table_name) == 20
    assert result.findings is not None and result.findings.items_checked == 20


def test_a_model_edited_after_export_is_read_as_a_model_keeping_the_templates(dialogue_data, tmp_path):
    spec = load_spec(SPECS["dialogue_v2"])
    model = json.loads(export(spec, "workbench", data=sample_items_by_entity(spec, dialogue_data, n=3), now=NOW))
    del model["DataModel"][0]["GlobalSecondaryIndexes"]          # someone removed the index in Workbench
    (result,) = imported(tmp_path, model)
    assert any("differs from the blue_nb spec it carries (the secondary indexes)" in n for n in result.notes)
    got = result.spec
    assert got.table.indexes == {} and list(got.entities) == list(spec.entities)
    for name, entity in spec.entities.items():
        assert {a: got.entities[name].key[a] for a in ("pk", "sk")} == {a: entity.key[a] for a in ("pk", "sk")}
    assert got.entities["Perspective"].attributes == spec.entities["Perspective"].attributes
    assert result.not_in_rows == 0 and result.items == 15


def test_without_blue_nbs_key_templates_come_from_aliases_and_index_keys_from_the_items(dialogue_data, tmp_path):
    spec = load_spec(SPECS["dialogue_v2"])
    model = json.loads(export(spec, "workbench", data=sample_items_by_entity(spec, dialogue_data, n=5), now=NOW))
    del model["BlueNb"]
    (result,) = imported(tmp_path, model)
    got = result.spec
    assert got.domain == "dialogue" and got.table.indexes == spec.table.indexes
    assert {n: e.key for n, e in got.entities.items()} == {n: e.key for n, e in spec.entities.items()}
    assert got.inferred["entities.Dialogue.key.gsi1pk"].startswith("the facet's items: from 5 of 5 keys shaped "
                                                                   "STATUS#<text>; {status} equals attribute status")
    assert "entities.Dialogue.key.pk" not in got.inferred                       # the alias was a fitting template
    assert [p.name for p in got.access_patterns] == ["get_dialogue", "list_expert", "list_perspective",
                                                     "list_tension", "list_tension_event", "query_gsi1"]
    assert result.not_in_rows == 0 and sum(len(r) for r in rows_of(result).values()) == 25


# ---------------------------------------------------------------- the shapes of real files


def typed(**attrs) -> dict:
    return {k: v if isinstance(v, dict) else {"S": v} for k, v in attrs.items()}


CUSTOMERS = [typed(PK="CUST#c1", SK="PROFILE", name="Ann"), typed(PK="CUST#c2", SK="PROFILE", name="Bo")]
ORDERS = [typed(PK="CUST#c1", SK="ORDER#o1", total={"N": "12.50"}, GSI1PK="STATUS#open"),
          typed(PK="CUST#c1", SK="ORDER#o2", total={"N": "3"}, GSI1PK="STATUS#shipped"),
          typed(PK="CUST#c2", SK="ORDER#o3", total={"N": "7"}, GSI1PK="STATUS#open")]


def shop_table(**changes) -> dict:
    table = {
        "TableName": "shop",
        "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"},
                          "SortKey": {"AttributeName": "SK", "AttributeType": "S"}},
        "NonKeyAttributes": [{"AttributeName": "name", "AttributeType": "S"},
                             {"AttributeName": "total", "AttributeType": "N"},
                             {"AttributeName": "GSI1PK", "AttributeType": "S"}],
        "TableFacets": [
            {"FacetName": "customer", "KeyAttributeAlias": {"PartitionKeyAlias": "CUST#{customer_id}",
                                                            "SortKeyAlias": "PROFILE"},
             "TableData": copy.deepcopy(CUSTOMERS), "NonKeyAttributes": ["name"], "DataAccess": {"MySql": {}}},
            {"FacetName": "order", "KeyAttributeAlias": {"PartitionKeyAlias": "PK", "SortKeyAlias": "SK"},
             "TableData": copy.deepcopy(ORDERS), "NonKeyAttributes": ["GSI1PK", "total"],
             "DataAccess": {"MySql": {}}}],
        "GlobalSecondaryIndexes": [{"IndexName": "GSI1",                        # no sort key
                                    "KeyAttributes": {"PartitionKey": {"AttributeName": "GSI1PK",
                                                                       "AttributeType": "S"}},
                                    "Projection": {"ProjectionType": "INCLUDE",
                                                   "NonKeyAttributes": ["PK", "SK", "total"]}}],
        "DataAccess": {"MySql": {}},
    }
    table.update(changes)
    return table


def shop(version: str | None = "3.0", tables: list | None = None, **top) -> dict:
    meta = {"Author": "", "DateCreated": "May 11, 2023, 09:18 PM", "DateLastModified": "May 11, 2023, 09:18 PM",
            "Description": ""}
    if version is not None:
        meta.update(AWSService="Amazon DynamoDB", Version=version)
    return {"ModelName": "Shop", "ModelMetadata": meta, "DataModel": tables or [shop_table()], **top}


SHOP_KEYS = {"Customer": {"PK": "CUST#{customer_id}", "SK": "PROFILE"},
             "Order": {"PK": "CUST#{cust}", "SK": "ORDER#{order}", "GSI1PK": "STATUS#{status}"}}


@pytest.mark.parametrize("version", [None, "1.0", "2.0", "3.0"])
def test_every_format_version_reads_to_the_same_spec(version, tmp_path):
    (result,) = imported(tmp_path, shop(version))
    spec = result.spec
    assert {n: e.key for n, e in spec.entities.items()} == SHOP_KEYS
    assert {n: e.attributes for n, e in spec.entities.items()} == {"Customer": {"name": "S"}, "Order": {"total": "N"}}
    assert spec.table.name == "shop" and spec.domain == "shop" and spec.table.billing_mode == "PAY_PER_REQUEST"
    assert result.per_entity == {"Customer": 2, "Order": 3} and result.not_in_rows == 0
    assert any(n.endswith(f"format {version or 'none (2019)'}") for n in result.notes)
    assert any("no ModelMetadata.Version (a 2019 file)" in n for n in result.notes) == (version is None)


def test_an_include_projection_listing_key_attributes_and_a_gsi_without_sort_key(tmp_path):
    (result,) = imported(tmp_path, shop())
    gsi = result.spec.table.indexes["GSI1"]
    assert (gsi.type, gsi.partition_key, gsi.sort_key, gsi.projection) == ("global", "GSI1PK", None, ["total"])
    assert any("shop index GSI1: the INCLUDE projection lists key attributes (PK, SK)" in n for n in result.notes)
    assert result.spec.pattern("query_gsi1").key_condition.pk == "STATUS#{status}"


def test_items_at_table_and_facet_level_are_merged_by_key(tmp_path):
    changed = copy.deepcopy(ORDERS[0])
    changed["total"] = {"N": "99"}
    table = shop_table(TableData=[copy.deepcopy(CUSTOMERS[0]), changed,                  # copies of facet items
                                  typed(PK="CUST#c3", SK="PROFILE", name="Cy"),          # fits the customer facet
                                  typed(PK="AUDIT#a1", SK="LOG#2024-01-01", actor="ann")])
    (result,) = imported(tmp_path, shop(tables=[table]))
    assert result.per_entity == {"Customer": 3, "Order": 3, "Log": 1} and result.items == 7
    assert any("1 items of the table's TableData differ from a facet's item with the same key: the facet's kept"
               in n for n in result.notes)
    assert result.spec.entities["Log"].key == {"PK": "AUDIT#{audit}", "SK": "LOG#{log}"}
    assert result.spec.inferred["entities.Log"] == "1 items grouped by key prefix"
    assert rows_of(result)["order"][0] == '{"total":12.5,"cust":"c1","order":"o1","status":"open"}'


def test_plain_json_inside_maps_is_accepted_with_a_note(tmp_path):
    table = shop_table()
    table["TableFacets"][1]["TableData"][0]["settings"] = {"M": {"enabled": True, "limits": {"max": 3},
                                                               "tags": {"L": [{"S": "a"}, "b"]}}}
    (result,) = imported(tmp_path, shop(tables=[table]))
    model = read_workbench(tmp_path / "model.json")
    (order,) = [item for e, item, _ in model.tables[0].items if item.get("settings")]
    assert order["settings"] == {"enabled": True, "limits": {"max": Decimal(3)}, "tags": ["a", "b"]}
    assert any(n.startswith("3 values inside maps or lists were plain JSON, not typed DynamoDB JSON (e.g. at ")
               for n in result.notes)
    assert result.spec.entities["Order"].attributes == {"total": "N", "settings": "M"}
    assert result.spec.inferred["entities.Order.attributes.settings"] == \
        "in the items, not in the facet's attribute list"


def test_two_tables_make_two_specs_and_unknown_top_level_keys_are_kept(tmp_path):
    audit = {"TableName": "blue_audit", "KeyAttributes": {"PartitionKey": {"AttributeName": "id",
                                                                           "AttributeType": "N"}},
             "TableData": [{"id": {"N": "1"}, "what": {"S": "login"}}, {"id": {"N": "2"}, "what": {"S": "logout"}}],
             "BillingMode": "PROVISIONED",
             "ProvisionedCapacitySettings": {"ProvisionedThroughput": {"ReadCapacityUnits": 4,
                                                                       "WriteCapacityUnits": 2}}}
    extra = {"x-team": {"owner": "ann", "ratio": 0.1}, "Comments": ["keep me"]}
    results = imported(tmp_path, shop(tables=[shop_table(), audit], **extra), sqlite=tmp_path / "s.sqlite")
    assert [r.domain for r in results] == ["shop", "audit"]
    audit_spec = results[1].spec
    assert (audit_spec.table.partition_key, audit_spec.table.partition_key_type, audit_spec.table.sort_key) == \
        ("id", "N", None)
    assert (audit_spec.table.billing_mode, audit_spec.table.read_capacity, audit_spec.table.write_capacity) == \
        ("PROVISIONED", 4, 2)
    assert sorted(p.name for p in (tmp_path / "out").glob("*.yaml")) == ["audit.yaml", "shop.yaml"]
    assert json.loads((tmp_path / "out" / WORKBENCH_EXTRA).read_text(encoding="utf-8")) == extra
    assert all(any("unknown keys (x-team, Comments) are kept as read" in n for n in r.notes) for r in results)
    with open_store("sqlite", tmp_path / "s.sqlite") as store:
        assert (store.count("shop"), store.count("blue_audit")) == (5, 2)


@pytest.mark.parametrize("damage, message, where", [
    (lambda m: m.pop("DataModel"), "not a NoSQL Workbench data model: no DataModel list", "model.json"),
    (lambda m: m["DataModel"][0]["TableFacets"][0]["TableData"][1].update(name="Bo"),
     "not a typed DynamoDB JSON value", "DataModel[0].TableFacets[0].TableData[1].name"),
    (lambda m: m["DataModel"][0]["TableFacets"][1]["TableData"][2].pop("SK"),
     "the item has no value for the table key (PK, SK)", "DataModel[0].TableFacets[1].TableData[2]"),
    (lambda m: m["DataModel"][0]["KeyAttributes"].pop("PartitionKey"), "PartitionKey is missing",
     "DataModel[0].KeyAttributes.PartitionKey"),
])
def test_a_broken_model_is_a_clear_error_that_says_where(damage, message, where, tmp_path):
    model = shop()
    damage(model)
    with pytest.raises(SourceError, match=re.escape(message)) as e:
        imported(tmp_path, model)
    assert e.value.where.endswith(where)
    assert not (tmp_path / "out" / "shop.yaml").exists()


# ---------------------------------------------------------------- real models (aws-samples)


def test_a_real_version_1_model_with_facets(tmp_path):
    (result,) = imported(tmp_path, FIXTURES / "AnOnlineShop_facets.json", sqlite=tmp_path / "s.sqlite")
    spec = result.spec
    assert (spec.domain, spec.table.name) == ("online_shop", "OnlineShop")
    assert list(spec.entities) == ["Customer", "Product", "Warehouse", "WarehouseItem", "OrderItem", "Shipment",
                                   "ShipmentItem", "Invoice", "Payment"]
    assert spec.entities["WarehouseItem"].key == {"PK": "p#{p}", "SK": "w#{w}", "GSI2-PK": "w#{w2}",
                                                  "GSI2-SK": "p#{p2}"}
    assert spec.entities["Warehouse"].attributes == {"EntityType": "S", "Address": "M"}
    assert result.items == 20 and result.not_in_rows == 0
    assert spec.inferred["entities.Customer.key.PK"] == ("its key alias 'PK' is a label, not a template that fits "
                                                         "the items: from 3 of 3 keys shaped c#<int>; {c} named "
                                                         "after the prefix")
    with open_store("sqlite", tmp_path / "s.sqlite") as store:
        assert store.count("OnlineShop") == 20


def test_a_real_version_3_model_without_facets_is_inferred_from_its_items(tmp_path):
    (result,) = imported(tmp_path, FIXTURES / "SessionManagementSchema.json")
    spec = result.spec
    assert {n: e.key for n, e in spec.entities.items()} == {"Child": {"PK": "suuid#{suuid}",
                                                                      "SK": "child#{child_1}#{child_2}"},
                                                            "C": {"PK": "suuid#{suuid}", "SK": "c#{c}"}}
    assert (spec.table.billing_mode, spec.table.read_capacity, spec.table.write_capacity) == ("PROVISIONED", 5, 5)
    ix = spec.table.indexes["GSI1_inverse"]
    assert (ix.partition_key, ix.sort_key, ix.projection) == ("SK", "PK", "all")
    assert result.per_entity == {"Child": 3, "C": 3} and result.not_in_rows == 0


def test_the_import_command_reads_a_workbench_model(tmp_path):
    r = CliRunner().invoke(cli, ["import", str(FIXTURES / "SessionManagementSchema.json"), "--from", "workbench",
                                 "--out", str(tmp_path / "out"), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(f"session_store: 6 items (Child 3, C 3) -> {tmp_path / 'out' / 'session_store.yaml'}")
    assert "note: " in r.stdout and "draft checked:" in r.stdout
    r = CliRunner().invoke(cli, ["import", str(tmp_path / "nothing.json"), "--from", "workbench", "--out",
                                 str(tmp_path / "out")])
    assert r.exit_code == 2 and "no such Workbench model file" in r.stderr and "Traceback" not in r.output


def test_every_dynamodb_type_survives_the_model_and_its_rows(tmp_path):
    spec = load_spec(ROOT / "data/examples/library/library.yaml")         # S N B BOOL NULL L M SS NS BS
    items = sample_items_by_entity(spec, ROOT / "data/examples/library")
    first = export(spec, "workbench", data=items, force=True, now=NOW)
    (result,) = imported(tmp_path, json.loads(first))
    assert result.spec == spec and result.not_in_rows == 0 and result.items == 13
    again = sample_items_by_entity(result.spec, result.rows_dir)
    assert again == items
    assert export(result.spec, "workbench", data=again, force=True, now=NOW) == first


# ---------------------------------------------------------------- designs nobody here wrote (issue 27)


def test_a_local_index_is_carried_into_the_spec_the_export_and_back(tmp_path):
    table = shop_table(LocalSecondaryIndexes=[{
        "IndexName": "by-total", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"},
                                                   "SortKey": {"AttributeName": "total", "AttributeType": "N"}},
        "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    (result,) = imported(tmp_path, shop(tables=[table]))
    lsi = result.spec.table.indexes["by-total"]
    assert (lsi.type, lsi.partition_key, lsi.sort_key, lsi.sort_key_type, lsi.projection) == \
        ("local", None, "total", "N", "keys_only")
    model = json.loads(export(result.spec, "workbench", now=NOW))
    assert model["DataModel"][0]["LocalSecondaryIndexes"] == table["LocalSecondaryIndexes"]
    (tmp_path / "again").mkdir()
    (back,) = imported(tmp_path / "again", model)
    assert back.spec.table.indexes == result.spec.table.indexes


def test_a_local_index_keyed_otherwise_is_refused_with_its_place(tmp_path):
    table = shop_table(LocalSecondaryIndexes=[{
        "IndexName": "bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "name", "AttributeType": "S"},
                                              "SortKey": {"AttributeName": "total", "AttributeType": "N"}}}])
    with pytest.raises(SourceError) as e:
        imported(tmp_path, shop(tables=[table]))
    assert "LocalSecondaryIndexes[0]" in e.value.where and "the table's partition key (PK)" in e.value.msg


def plain_table(items: list[dict], **changes) -> dict:
    return {"TableName": "data", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"},
                                                   "SortKey": {"AttributeName": "SK", "AttributeType": "S"}},
            "GlobalSecondaryIndexes": [{"IndexName": "GSI1", "KeyAttributes": {
                "PartitionKey": {"AttributeName": "GSI1PK", "AttributeType": "S"},
                "SortKey": {"AttributeName": "GSI1SK", "AttributeType": "S"}}, "Projection": {"ProjectionType": "ALL"}}],
            "TableData": items, **changes}


def test_entities_follow_the_type_attribute_and_sparse_index_keys_stay_sparse(tmp_path):
    items = [typed(PK="C1", SK="A", type="customer", name="Ann"),
             typed(PK="C1", SK="A1", type="account", GSI1PK="C1", GSI1SK="A1"),
             typed(PK="C1", SK="A2", type="account", GSI1PK="C1", GSI1SK="A2"),
             typed(PK="C1", SK="A1#2021-05-20", type="transaction", amount="1", GSI1PK="A1", GSI1SK="2021-05-20"),
             typed(PK="C1", SK="A1#2021-05-21", type="transaction", amount="2"),
             typed(PK="C1", SK="A2#2021-05-22", type="transaction", amount="3")]
    (result,) = imported(tmp_path, shop(tables=[plain_table(items)]), sqlite=tmp_path / "s.sqlite")
    spec = result.spec
    assert result.per_entity == {"Customer": 1, "Account": 2, "Transaction": 3} and result.not_in_rows == 0
    assert spec.rules == "dynamodb" and "not Blue's ADR 0018" in spec.inferred["rules"]
    tx = spec.entities["Transaction"].key
    assert tx["SK"] == "{sk}#{sk2}" and tx["GSI1PK"] == "{gsi1pk}"          # sparse: a placeholder, never "A1"
    assert "sparse index key" in spec.inferred["entities.Transaction.key.GSI1PK"]
    assert "every item names its kind in 'type'" in spec.inferred["entities.Transaction"]
    rebuilt = sorted(json.dumps(item_to_wire(i), sort_keys=True) for _, i, _ in located_items(spec, result.rows_dir))
    assert rebuilt == sorted(json.dumps(item_to_wire(from_typed(x)), sort_keys=True) for x in items)
    findings = check_spec(spec, ((e, i) for e, i, _ in located_items(spec, result.rows_dir)))
    assert not findings.has_errors and not [f for f in findings if f.rule.startswith("ADR")]


def from_typed(item: dict) -> dict:
    return {k: v["S"] for k, v in item.items()}


def test_key_values_split_at_the_separator_they_use(tmp_path):
    items = [typed(PK="User:UserA", SK="2023-04-01T12:00:00Z", Comment="hi"),
             typed(PK="User:UserB", SK="2023-04-01T12:00:01Z", Comment="yo"),
             typed(PK="Room:Music", SK="meta", CreatedBy="UserA"),
             typed(PK="Room:Art", SK="meta", CreatedBy="UserB")]
    (result,) = imported(tmp_path, shop(tables=[plain_table(items, GlobalSecondaryIndexes=[])]))
    keys = {n: e.key["PK"] for n, e in result.spec.entities.items()}
    assert keys == {"User": "User:{user}", "Room": "Room:{room}"} and result.not_in_rows == 0
    assert "separated by ':'" in result.spec.inferred["entities.User.key.PK"]


def test_unknown_table_keys_and_unheld_attributes_are_kept_with_a_note(tmp_path):
    table = plain_table([typed(PK="C1", SK="A", type="c")], GlobalSecondaryIndexes=[],
                        NonKeyAttributes=[{"AttributeName": "nickname", "AttributeType": "S"}],
                        ModelSchema={"indexes": {}}, SavedQuery={"q": {"PK": "C1"}})
    (result,) = imported(tmp_path, shop(tables=[table]))
    assert any("unknown keys of the table 'data' kept as read: ModelSchema, SavedQuery" in n for n in result.notes)
    extra = json.loads((tmp_path / "out" / WORKBENCH_EXTRA).read_text())
    assert extra["DataModel[0]"] == {"ModelSchema": {"indexes": {}}, "SavedQuery": {"q": {"PK": "C1"}}}
    (entity,) = result.spec.entities.values()
    assert entity.attributes["nickname"] == "S"
    model = json.loads(export(result.spec, "workbench", now=NOW))
    assert {"AttributeName": "nickname", "AttributeType": "S"} in model["DataModel"][0]["NonKeyAttributes"]


def test_the_type_attribute_is_named_like_one_or_the_one_whose_values_partition_the_items():
    from blue_nb.imports.infer_shapes import key_separator
    from blue_nb.imports.workbench_spec import type_attribute

    named = [{"PK": "1", "EntityType": "user", "a": "x"}, {"PK": "2", "EntityType": "order", "b": "y"}]
    assert type_attribute(named, {"PK"})[0] == "EntityType"
    shaped = [{"PK": str(i), "category": c, **extra} for i, (c, extra) in enumerate(
        [("book", {"isbn": "1"}), ("book", {"isbn": "2"}), ("film", {"minutes": "90"}), ("film", {"minutes": "80"})])]
    attr, why = type_attribute(shaped, {"PK"})
    assert attr == "category" and "partition the items" in why
    mixed = [{"PK": str(i), "colour": c, "size": "M"} for i, c in enumerate(["red", "blue", "red", "blue"])]
    assert type_attribute(mixed, {"PK"}) == (None, "")       # its values say nothing of the items' shapes
    assert [key_separator(v) for v in (["User:UserA", "Room:Art"], ["a#b", "c:d"], ["org|7", "org|8"],
                                       ["2023-04-01T12:00:00", "x"])] == [":", "#", "|", "#"]


def test_items_blue_nbs_own_spec_has_no_entity_for_make_the_spec_be_built_from_the_model(dialogue_data, tmp_path):
    spec = load_spec(SPECS["dialogue_v2"])
    model = json.loads(export(spec, "workbench", data=sample_items_by_entity(spec, dialogue_data, n=2), now=NOW))
    model["DataModel"][0]["TableData"] = [typed(pk="AUDIT#1", sk="LOG#2024-01-01", actor="ann")]
    (result,) = imported(tmp_path, model)
    assert any("1 of its items fit no entity of that spec" in n for n in result.notes)
    assert result.items == 2 * len(spec.entities) + 1 and result.not_in_rows == 0 and result.unmatched == 0


def test_a_facet_without_items_is_an_entity_that_may_be_empty(tmp_path):
    table = shop_table()
    table["TableFacets"].append({"FacetName": "Coupon", "KeyAttributeAlias": {"PartitionKeyAlias": "CUST#{customer_id}",
                                                                              "SortKeyAlias": "COUPON#{code}"},
                                 "NonKeyAttributes": ["name"], "TableData": []})
    (result,) = imported(tmp_path, shop(tables=[table]))
    coupon = result.spec.entities["Coupon"]
    assert coupon.key == {"PK": "CUST#{customer_id}", "SK": "COUPON#{code}"} and coupon.allow_empty
    assert result.not_in_rows == 0 and "Coupon" not in result.per_entity
