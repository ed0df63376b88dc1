"""The CreateTable request of a spec, as plain data: one table of (spec snippet -> expected request)
cases, the example specs included, plus the refusals. Pure: no endpoint here (test_dynamo.py sends
these requests to a real server and compares describe_table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blue_nb.errors import SpecError
from blue_nb.patterns import create_table_request
from blue_nb.spec import Table, load_spec, loads_spec

SPECS = Path(__file__).resolve().parent.parent / "data" / "specs"


def snippet(table: str, key: str = '{pk: "{a}", sk: "S#{b}"}') -> str:
    return f"""
spec_version: 1
domain: shop
table: {table}
entities:
  Row:
    key: {key}
access_patterns: []
"""


def attr(name: str, typ: str = "S") -> dict:
    return {"AttributeName": name, "AttributeType": typ}


def keys(pk: str, sk: str | None = None) -> list[dict]:
    return [{"AttributeName": pk, "KeyType": "HASH"}] + ([{"AttributeName": sk, "KeyType": "RANGE"}] if sk else [])


PPR = {"BillingMode": "PAY_PER_REQUEST"}
DIALOGUE_GSI = {"IndexName": "gsi1", "KeySchema": keys("gsi1pk", "gsi1sk"),
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title", "status", "created_at"]}}
DIALOGUE = {"TableName": "blue_dialogue",
            "AttributeDefinitions": [attr("gsi1pk"), attr("gsi1sk"), attr("pk"), attr("sk")],
            "KeySchema": keys("pk", "sk"), "GlobalSecondaryIndexes": [DIALOGUE_GSI], **PPR}
DOCUMENT = {"TableName": "blue_document",
            "AttributeDefinitions": [attr("gsi1pk"), attr("gsi1sk"), attr("pk"), attr("sk")],
            "KeySchema": keys("pk", "sk"),
            "GlobalSecondaryIndexes": [{"IndexName": "gsi1", "KeySchema": keys("gsi1pk", "gsi1sk"),
                                        "Projection": {"ProjectionType": "INCLUDE",
                                                       "NonKeyAttributes": ["link_type"]}}], **PPR}
THROUGHPUT = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 7}

CASES = {
    "partition key only": (
        snippet("{partition_key: pk, sort_key: null}", '{pk: "{a}"}'),
        {"TableName": "blue_shop", "AttributeDefinitions": [attr("pk")], "KeySchema": keys("pk"), **PPR}),
    "named table, N and B keys": (
        snippet("{name: orders, partition_key: id, sort_key: at, partition_key_type: N, sort_key_type: B}",
                '{id: "{a}", at: "{b}"}'),
        {"TableName": "orders", "AttributeDefinitions": [attr("at", "B"), attr("id", "N")],
         "KeySchema": keys("id", "at"), **PPR}),
    "gsi all, gsi keys_only without sort key, shared key attribute defined once": (
        snippet("{partition_key: pk, sort_key: sk, indexes: {"
                "by_sk: {type: global, partition_key: sk, sort_key: pk}, "
                "by_owner: {type: global, partition_key: owner, partition_key_type: N, projection: keys_only}}}"),
        {"TableName": "blue_shop", "AttributeDefinitions": [attr("owner", "N"), attr("pk"), attr("sk")],
         "KeySchema": keys("pk", "sk"),
         "GlobalSecondaryIndexes": [
             {"IndexName": "by_sk", "KeySchema": keys("sk", "pk"), "Projection": {"ProjectionType": "ALL"}},
             {"IndexName": "by_owner", "KeySchema": keys("owner"), "Projection": {"ProjectionType": "KEYS_ONLY"}}],
         **PPR}),
    "provisioned: table and every gsi get throughput, lsi none": (
        snippet("{partition_key: pk, sort_key: sk, billing_mode: PROVISIONED, read_capacity: 5, write_capacity: 7, "
                "indexes: {lsi1: {type: local, sort_key: created, sort_key_type: N, projection: keys_only}, "
                "gsi1: {type: global, partition_key: g1, projection: [a, b]}}}"),
        {"TableName": "blue_shop", "AttributeDefinitions": [attr("created", "N"), attr("g1"), attr("pk"), attr("sk")],
         "KeySchema": keys("pk", "sk"),
         "GlobalSecondaryIndexes": [{"IndexName": "gsi1", "KeySchema": keys("g1"),
                                     "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b"]},
                                     "ProvisionedThroughput": THROUGHPUT}],
         "LocalSecondaryIndexes": [{"IndexName": "lsi1", "KeySchema": keys("pk", "created"),
                                    "Projection": {"ProjectionType": "KEYS_ONLY"}}],
         "BillingMode": "PROVISIONED", "ProvisionedThroughput": THROUGHPUT}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_snippet_gives_the_request(name):
    text, expected = CASES[name]
    req = create_table_request(loads_spec(text))
    assert req == expected
    assert list(req) == list(expected)                   # the keys in the documented order, too
    assert json.loads(json.dumps(req)) == req            # plain data: usable as --cli-input-json


@pytest.mark.parametrize("file, expected", [("dialogue.yaml", DIALOGUE), ("dialogue_v2.yaml", DIALOGUE),
                                            ("document.yaml", DOCUMENT)])
def test_example_specs(file, expected):
    assert create_table_request(load_spec(SPECS / file)) == expected


def test_table_name_argument_wins():
    req = create_table_request(load_spec(SPECS / "document.yaml"), "dev_blue_document")
    assert req["TableName"] == "dev_blue_document" and req["KeySchema"] == keys("pk", "sk")


def test_a_key_attribute_with_two_types_is_refused():
    spec = loads_spec(snippet("{partition_key: pk, sort_key: sk, indexes: {"
                              "ggg: {type: global, partition_key: x, partition_key_type: N}, "
                              "hhh: {type: global, partition_key: x, partition_key_type: S}}}"))
    with pytest.raises(SpecError) as e:
        create_table_request(spec)
    assert e.value.where == "table.indexes.hhh.partition_key"
    assert "'x' is typed N at table.indexes.ggg.partition_key and S at" in e.value.msg


def test_provisioned_without_capacity_is_refused():
    spec = loads_spec(snippet("{partition_key: pk, sort_key: sk}"))
    spec = spec.with_changes(table=Table(billing_mode="PROVISIONED", read_capacity=None, write_capacity=3))
    with pytest.raises(SpecError, match="PROVISIONED needs read_capacity and write_capacity"):
        create_table_request(spec)
