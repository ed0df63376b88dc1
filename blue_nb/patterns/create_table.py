"""The CreateTable request of a spec's table, as plain data.

Pure (layer 1): :func:`create_table_request` returns one dict that works both as
``client.create_table(**request)`` (boto3) and as ``aws dynamodb create-table --cli-input-json``:
the table's key schema, every index with its projection, the attribute definitions of the key
attributes only (DynamoDB refuses definitions of attributes that key nothing) and the billing
mode. The wire keys are the module constants below, written once.
"""

from __future__ import annotations

from typing import Any, Mapping

from blue_nb.errors import SpecError
from blue_nb.spec import Index, Spec

__all__ = ["ATTRIBUTE_DEFINITIONS", "ATTRIBUTE_NAME", "ATTRIBUTE_TYPE", "BILLING_MODE", "GLOBAL_SECONDARY_INDEXES",
           "INDEX_NAME", "KEY_SCHEMA", "KEY_TYPE", "LOCAL_SECONDARY_INDEXES", "NON_KEY_ATTRIBUTES", "PAY_PER_REQUEST",
           "PROJECTION", "PROJECTION_TYPE", "PROVISIONED", "PROVISIONED_THROUGHPUT", "READ_CAPACITY_UNITS",
           "TABLE_NAME", "WRITE_CAPACITY_UNITS", "create_table_request", "global_index_request",
           "global_index_updates"]

TABLE_NAME = "TableName"
ATTRIBUTE_DEFINITIONS = "AttributeDefinitions"
ATTRIBUTE_NAME = "AttributeName"
ATTRIBUTE_TYPE = "AttributeType"
KEY_SCHEMA = "KeySchema"
KEY_TYPE = "KeyType"
HASH, RANGE = "HASH", "RANGE"
GLOBAL_SECONDARY_INDEXES = "GlobalSecondaryIndexes"
LOCAL_SECONDARY_INDEXES = "LocalSecondaryIndexes"
INDEX_NAME = "IndexName"
PROJECTION = "Projection"
PROJECTION_TYPE = "ProjectionType"
NON_KEY_ATTRIBUTES = "NonKeyAttributes"
BILLING_MODE = "BillingMode"
PAY_PER_REQUEST, PROVISIONED = "PAY_PER_REQUEST", "PROVISIONED"
PROVISIONED_THROUGHPUT = "ProvisionedThroughput"
READ_CAPACITY_UNITS = "ReadCapacityUnits"
WRITE_CAPACITY_UNITS = "WriteCapacityUnits"


def _key_schema(pk: str, sk: str | None) -> list[dict[str, str]]:
    schema = [{ATTRIBUTE_NAME: pk, KEY_TYPE: HASH}]
    if sk:
        schema.append({ATTRIBUTE_NAME: sk, KEY_TYPE: RANGE})
    return schema


def _projection(index: Index) -> dict[str, Any]:
    """ALL, KEYS_ONLY, or INCLUDE with the listed attributes (an empty list keeps only the keys)."""
    if isinstance(index.projection, (list, tuple)):
        if not index.projection:
            return {PROJECTION_TYPE: "KEYS_ONLY"}
        return {PROJECTION_TYPE: "INCLUDE", NON_KEY_ATTRIBUTES: list(index.projection)}
    return {PROJECTION_TYPE: "KEYS_ONLY" if index.projection == "keys_only" else "ALL"}


def _throughput(spec: Spec) -> dict[str, int]:
    t = spec.table
    if t.read_capacity is None or t.write_capacity is None:
        raise SpecError("billing_mode PROVISIONED needs read_capacity and write_capacity", where="table",
                        hint="give table.read_capacity and table.write_capacity, or use PAY_PER_REQUEST")
    return {READ_CAPACITY_UNITS: int(t.read_capacity), WRITE_CAPACITY_UNITS: int(t.write_capacity)}


def _definitions(spec: Spec) -> list[dict[str, str]]:
    """Each key attribute of the table and its indexes once, with its type, sorted by name."""
    t = spec.table
    typed: dict[str, tuple[str, str]] = {}

    def add(attr: str | None, typ: str, where: str) -> None:
        if not attr:
            return
        seen = typed.setdefault(attr, (typ, where))
        if seen[0] != typ:
            raise SpecError(f"key attribute {attr!r} is typed {seen[0]} at {seen[1]} and {typ} at {where}",
                            where=where, hint="give the attribute one type wherever it is a key")

    add(t.partition_key, t.partition_key_type, "table.partition_key")
    add(t.sort_key, t.sort_key_type, "table.sort_key")
    for name, idx in t.indexes.items():
        if idx.type == "global":
            add(idx.partition_key, idx.partition_key_type, f"table.indexes.{name}.partition_key")
        add(idx.sort_key, idx.sort_key_type, f"table.indexes.{name}.sort_key")
    return [{ATTRIBUTE_NAME: a, ATTRIBUTE_TYPE: typed[a][0]} for a in sorted(typed)]


def create_table_request(spec: Spec, table_name: str | None = None) -> dict[str, Any]:
    """The CreateTable request of ``spec``'s table (named ``table_name``, else the spec's table name)."""
    t = spec.table
    provisioned = t.billing_mode == PROVISIONED
    req: dict[str, Any] = {TABLE_NAME: table_name or spec.table_name,
                           ATTRIBUTE_DEFINITIONS: _definitions(spec),
                           KEY_SCHEMA: _key_schema(t.partition_key, t.sort_key)}
    gsis, lsis = [], []
    for name, idx in t.indexes.items():
        pk, sk = spec.key_attributes(name)
        entry: dict[str, Any] = {INDEX_NAME: name, KEY_SCHEMA: _key_schema(pk, sk), PROJECTION: _projection(idx)}
        if idx.type == "global":
            if provisioned:
                entry[PROVISIONED_THROUGHPUT] = _throughput(spec)
            gsis.append(entry)
        else:
            lsis.append(entry)
    if gsis:
        req[GLOBAL_SECONDARY_INDEXES] = gsis
    if lsis:
        req[LOCAL_SECONDARY_INDEXES] = lsis
    req[BILLING_MODE] = PROVISIONED if provisioned else PAY_PER_REQUEST
    if provisioned:
        req[PROVISIONED_THROUGHPUT] = _throughput(spec)
    return req


def global_index_request(spec: Spec, index: str, table_name: str | None = None) -> dict[str, Any]:
    """The UpdateTable request that creates ``spec``'s global index ``index`` on the table (DynamoDB takes one
    index creation or deletion per call): the index as CreateTable gives it, and the definitions of the
    table's and the index's key attributes (DynamoDB refuses definitions of attributes that key nothing)."""
    request = create_table_request(spec, table_name)
    entry = next((g for g in request.get(GLOBAL_SECONDARY_INDEXES, []) if g[INDEX_NAME] == index), None)
    if entry is None:
        raise SpecError(f"{index!r} is not a global index of the design", where=f"table.indexes.{index}",
                        hint=f"global indexes: {', '.join(_globals(spec)) or 'none'}")
    keys = {*spec.key_attributes(), *spec.key_attributes(index)} - {None}
    return {TABLE_NAME: request[TABLE_NAME],
            ATTRIBUTE_DEFINITIONS: [d for d in request[ATTRIBUTE_DEFINITIONS] if d[ATTRIBUTE_NAME] in keys],
            "GlobalSecondaryIndexUpdates": [{"Create": entry}]}


def _globals(spec: Spec) -> list[str]:
    return [n for n, i in spec.table.indexes.items() if i.type == "global"]


def _shape(entry: Mapping[str, Any], types: Mapping[str, str]) -> tuple:
    """A global index as its key (attribute names, types, roles) and projection, whatever else is described."""
    projection = entry.get(PROJECTION) or {}
    return (tuple((k[ATTRIBUTE_NAME], types.get(k[ATTRIBUTE_NAME]), k[KEY_TYPE]) for k in entry.get(KEY_SCHEMA, [])),
            projection.get(PROJECTION_TYPE, "ALL"), tuple(sorted(projection.get(NON_KEY_ATTRIBUTES) or ())))


def global_index_updates(spec: Spec, described: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """What turns the global indexes of a table, as DescribeTable's ``Table`` gives them, into ``spec``'s:
    (indexes to delete, indexes to create). An index whose key attributes, their types or its projection
    differ is in both (deleted, then created again: DynamoDB cannot change them in place)."""
    want_request = create_table_request(spec)
    want_types = {d[ATTRIBUTE_NAME]: d[ATTRIBUTE_TYPE] for d in want_request[ATTRIBUTE_DEFINITIONS]}
    # an attribute the description does not define is taken as the design types it (an endpoint may describe
    # only the definitions of its last UpdateTable)
    have_types = {**want_types, **{d[ATTRIBUTE_NAME]: d[ATTRIBUTE_TYPE] for d in described.get(ATTRIBUTE_DEFINITIONS, [])}}
    want = {g[INDEX_NAME]: _shape(g, want_types) for g in want_request.get(GLOBAL_SECONDARY_INDEXES, [])}
    have = {g[INDEX_NAME]: _shape(g, have_types) for g in described.get(GLOBAL_SECONDARY_INDEXES, [])}
    delete = [n for n in have if want.get(n) != have[n]]
    create = [n for n in want if have.get(n) != want[n]]
    return delete, create
