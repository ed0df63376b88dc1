"""``workbench``: a NoSQL Workbench for DynamoDB data model, format 3.0.

One table (``DataModel[0]``): its key attributes, the non-key attributes with their types (index
keys first, then every entity's attributes, each once), one facet per entity, the GSIs and LSIs with their
projections, the billing mode and, for PROVISIONED, the provisioned throughput. A facet's
``KeyAttributeAlias`` holds the entity's table key templates as text (``PERSP#{round}#{expert}#{seq}``),
which Workbench shows as labels; its ``TableData`` holds the items given for the entity (``data``: entity ->
items, Python values; every item, or a sample of :data:`SAMPLE_ITEMS` or as many as asked) as DynamoDB JSON.

What the format has no place for (index key templates, descriptions, sources, writers, access
patterns) travels in one extra top-level key, ``BlueNb``: ``{"spec": <the canonical
spec mapping>, "stamp": <the validation stamp>}``. Workbench ignores unknown keys; blue_nb's
Workbench import reads it back, so export -> import gives the same spec.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from blue_nb.errors import BlueNbError
from blue_nb.export.base import ExportContext, stamp_text
from blue_nb.items.values import item_to_wire
from blue_nb.spec import Spec

__all__ = ["BLUE_NB_KEY", "FORMAT_VERSION", "SAMPLE_ITEMS", "render_workbench", "table_model", "workbench_date",
           "workbench_model"]

FORMAT_VERSION = "3.0"
BLUE_NB_KEY = "BlueNb"
SAMPLE_ITEMS = 25                      # a sample's items per facet, when a sample is asked for (--sample)
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def workbench_date(ctx: ExportContext) -> str:
    """The time as Workbench writes it (``May 11, 2023, 09:18 PM``), in UTC, locale-free."""
    t = ctx.now
    hour = t.hour % 12 or 12
    return f"{_MONTHS[t.month - 1]} {t.day:02d}, {t.year}, {hour:02d}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"


def _key(name: str, typ: str) -> dict[str, str]:
    return {"AttributeName": name, "AttributeType": typ}


def _key_attributes(pk: str, pk_type: str, sk: str | None, sk_type: str) -> dict[str, Any]:
    out = {"PartitionKey": _key(pk, pk_type)}
    if sk:
        out["SortKey"] = _key(sk, sk_type)
    return out


def _non_key_attributes(spec: Spec) -> list[dict[str, str]]:
    """Index key attributes (typed as the index declares), then each entity's attributes, each name once
    (an attribute declared with two types keeps the first: Workbench has one type per name)."""
    t = spec.table
    table_keys = {t.partition_key, t.sort_key}
    typed: dict[str, str] = {}
    for ix in t.indexes.values():
        for attr, typ in ((ix.partition_key, ix.partition_key_type), (ix.sort_key, ix.sort_key_type)):
            if attr and attr not in table_keys:
                typed.setdefault(attr, typ)
    for entity in spec.entities.values():
        for attr, typ in entity.attributes.items():
            if attr not in table_keys:
                typed.setdefault(attr, typ)
    return [_key(a, typ) for a, typ in typed.items()]


def _projection(projection: str | list[str]) -> dict[str, Any]:
    if isinstance(projection, list):
        return ({"ProjectionType": "INCLUDE", "NonKeyAttributes": list(projection)} if projection
                else {"ProjectionType": "KEYS_ONLY"})
    return {"ProjectionType": "KEYS_ONLY" if projection == "keys_only" else "ALL"}


def _facet(spec: Spec, name: str, items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    t = spec.table
    entity = spec.entities[name]
    alias = {"PartitionKeyAlias": entity.key.get(t.partition_key, t.partition_key)}
    if t.sort_key:
        alias["SortKeyAlias"] = entity.key.get(t.sort_key, t.sort_key)
    non_key = [a for a in entity.key if a not in (t.partition_key, t.sort_key)] + list(entity.attributes)
    return {"FacetName": name, "KeyAttributeAlias": alias,
            "TableData": [item_to_wire(item) for item in items],
            "NonKeyAttributes": non_key, "DataAccess": {"MySql": {}}}


def table_model(spec: Spec, items: Mapping[str, Iterable[Mapping[str, Any]]] | None = None) -> dict[str, Any]:
    """The ``DataModel`` entry of the spec's table (with ``items``: entity -> sample items)."""
    t = spec.table
    items = items or {}
    unknown = [e for e in items if e not in spec.entities]
    if unknown:
        raise BlueNbError(f"sample items given for {', '.join(map(repr, unknown))}, not an entity of the spec",
                          where="data", hint="give entity name -> items for entities of the spec")
    out: dict[str, Any] = {
        "TableName": spec.table_name,
        "KeyAttributes": _key_attributes(t.partition_key, t.partition_key_type, t.sort_key, t.sort_key_type),
        "NonKeyAttributes": _non_key_attributes(spec),
        "TableFacets": [_facet(spec, name, items.get(name, ())) for name in spec.entities],
    }
    gsis = []
    for name, ix in t.indexes.items():
        if ix.type == "global":
            gsis.append({"IndexName": name,
                         "KeyAttributes": _key_attributes(ix.partition_key, ix.partition_key_type, ix.sort_key,
                                                          ix.sort_key_type),
                         "Projection": _projection(ix.projection)})
    if gsis:
        out["GlobalSecondaryIndexes"] = gsis
    lsis = [{"IndexName": name,
             "KeyAttributes": _key_attributes(t.partition_key, t.partition_key_type, ix.sort_key, ix.sort_key_type),
             "Projection": _projection(ix.projection)} for name, ix in t.indexes.items() if ix.type == "local"]
    if lsis:
        out["LocalSecondaryIndexes"] = lsis
    out["DataAccess"] = {"MySql": {}}
    out["BillingMode"] = t.billing_mode
    if t.billing_mode == "PROVISIONED":
        out["ProvisionedCapacitySettings"] = {"ProvisionedThroughput": {
            "ReadCapacityUnits": int(t.read_capacity or 1), "WriteCapacityUnits": int(t.write_capacity or 1)}}
    return out


def workbench_model(spec: Spec, ctx: ExportContext) -> dict[str, Any]:
    """The whole model file as a mapping."""
    description = " ".join(x for x in (
        spec.description.rstrip(".") + "." if spec.description else "",
        stamp_text(spec, ctx),
        "Facet key aliases are blue_nb key templates.") if x)
    date = workbench_date(ctx)
    return {
        "ModelName": spec.domain,
        "ModelMetadata": {"Author": "blue_nb", "DateCreated": date, "DateLastModified": date,
                          "Description": description, "AWSService": "Amazon DynamoDB", "Version": FORMAT_VERSION},
        "DataModel": [table_model(spec, ctx.data)],
        BLUE_NB_KEY: {"spec": spec.to_dict(), "stamp": ctx.stamp(spec)},
    }


def render_workbench(spec: Spec, ctx: ExportContext) -> str:
    """The model as JSON text (2-space indent, UTF-8)."""
    return json.dumps(workbench_model(spec, ctx), indent=2, ensure_ascii=False) + "\n"
