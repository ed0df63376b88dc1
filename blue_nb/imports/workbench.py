"""Read a NoSQL Workbench for DynamoDB data model: a spec per table, and its sample items.

``model = read_workbench("shop.json")`` reads the file (format versions none/2019, 1.0, 2.0 and
3.0) and gives one :class:`WorkbenchTable` per ``DataModel`` entry: the spec, the items (each with
the entity it belongs to) and notes on what was accepted, guessed or left out.

* A model exported by blue_nb carries its spec under the extra top-level key ``BlueNb``; when the
  table in the file still says what that spec says (keys, indexes, billing, facets and their key
  templates, see :func:`~.workbench_spec.spec_differences`) and each item fits one of its entities, that
  spec is the result, unchanged.
  Otherwise the spec is built from the model (:func:`~.workbench_spec.model_spec`): entities from
  facets, key templates from the facets' key aliases when they are templates that fit the items,
  else inferred from the items' keys; parts inferred are listed in the spec's ``inferred`` field.
* Items may sit in the table's ``TableData``, in facets' ``TableData`` or both: they are merged by
  key (a facet's copy wins; a differing table copy is noted). Nested maps and lists that hold
  plain JSON instead of typed values (``{"M": {"enabled": true}}``) and numbers written as JSON
  numbers are accepted, with a note.
* Unknown top-level keys are kept as read in :attr:`WorkbenchModel.extra` (Workbench ignores
  them; the import writes them next to the spec).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blue_nb.errors import BlueNbError, SourceError, SpecError
from blue_nb.imports import workbench_checks, workbench_spec
from blue_nb.imports.infer import domain_name
from blue_nb.imports.infer_keys import is_number
from blue_nb.items.build import plain_to_value
from blue_nb.items.values import TYPE_TAGS, from_wire, to_wire
from blue_nb.spec import Index, Spec, spec_from_dict

__all__ = ["BLUE_NB_KEY", "KNOWN_VERSIONS", "MAX_MODEL_BYTES", "WorkbenchModel", "WorkbenchTable", "loads_workbench",
           "read_workbench"]

BLUE_NB_KEY = "BlueNb"                        # blue_nb's own top-level key: {"spec": ..., "stamp": ...}
KNOWN_KEYS = ("ModelName", "ModelMetadata", "DataModel", BLUE_NB_KEY)
KNOWN_VERSIONS = ("1.0", "2.0", "3.0")        # and none: a 2019 file
TABLE_KEYS = ("TableName", "KeyAttributes", "NonKeyAttributes", "TableFacets", "GlobalSecondaryIndexes",
              "LocalSecondaryIndexes", "TableData", "DataAccess", "BillingMode", "ProvisionedCapacitySettings")
MAX_MODEL_BYTES = 100_000_000                 # a model with sample data is KBs to a few MB
_HINT = "export the model again from NoSQL Workbench (File > Export), or fix the JSON at that place"
_BODY = {"S": str, "N": str, "B": str, "BOOL": bool, "NULL": bool, "M": dict, "L": list, "SS": list, "NS": list,
         "BS": list}


@dataclass
class WorkbenchTable:
    """One table of the model: its spec, items ``(entity, item, where)`` and notes."""

    name: str
    spec: Spec
    items: list[tuple[str, dict[str, Any], str]]
    from_blue_nb: bool = False
    unmatched: int = 0                        # items that fit no entity of the spec (none: the import carries all)
    notes: list[str] = field(default_factory=list)

    def items_of(self, entity: str) -> list[dict[str, Any]]:
        return [item for e, item, _ in self.items if e == entity]


@dataclass
class WorkbenchModel:
    """The model file as read: its name, format version, tables and unknown top-level keys."""

    source: str
    name: str
    version: str | None
    tables: list[WorkbenchTable]
    extra: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def read_workbench(path: str | Path, *, domain: str | None = None) -> WorkbenchModel:
    """Read a Workbench model file (see the module docstring). ``domain`` names the spec of a
    one-table model; for a model of several tables it selects the table of that domain."""
    p = Path(path)
    if not p.is_file():
        raise SourceError("no such Workbench model file", where=str(p), hint="give the path of the model's .json file")
    with p.open("rb") as f:
        raw = f.read(MAX_MODEL_BYTES + 1)
    if len(raw) > MAX_MODEL_BYTES:
        raise SourceError(f"the file is larger than {MAX_MODEL_BYTES:,} bytes", where=str(p),
                          hint="is this a Workbench data model? Models hold a few sample items per facet")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SourceError("not UTF-8 text", where=str(p), hint="a Workbench model is JSON text", cause=e) from e
    return loads_workbench(text, source=str(p), domain=domain)


def loads_workbench(text: str, source: str = "<workbench>", *, domain: str | None = None) -> WorkbenchModel:
    """Read a Workbench model from JSON text (see :func:`read_workbench`)."""
    data = workbench_checks.parse_model(text, source)        # nesting bounded, no name given twice
    if not isinstance(data, dict) or not isinstance(data.get("DataModel"), list):
        raise SourceError("not a NoSQL Workbench data model: no DataModel list at the top", where=source,
                          hint="give a model exported by NoSQL Workbench (File > Export) or by blue-nb export")
    meta = data.get("ModelMetadata") if isinstance(data.get("ModelMetadata"), dict) else {}
    version = meta.get("Version")
    notes = []
    if version is None:
        notes.append("the model has no ModelMetadata.Version (a 2019 file): read as format 1.0")
    elif version not in KNOWN_VERSIONS:
        notes.append(f"format version {version!r} is not one of {', '.join(KNOWN_VERSIONS)}: read as 3.0")
    extra: dict[str, Any] = {}
    plain: Any = None
    if any(k not in KNOWN_KEYS for k in data) or any(isinstance(t, dict) and any(k not in TABLE_KEYS for k in t)
                                                     for t in data["DataModel"]):
        plain = json.loads(text)                                    # read again: numbers as JSON has them
        extra = {k: v for k, v in plain.items() if k not in KNOWN_KEYS}
        if extra:
            notes.append(f"unknown top-level keys kept as read: {', '.join(extra)}")
        for i, t in enumerate(plain["DataModel"]):
            unknown = {k: v for k, v in t.items() if k not in TABLE_KEYS} if isinstance(t, dict) else {}
            if unknown:
                extra[f"DataModel[{i}]"] = unknown
                notes.append(f"unknown keys of the table {t.get('TableName')!r} kept as read: {', '.join(unknown)}")
    if BLUE_NB_KEY in data and plain is None:   # the spec's numbers as JSON has them (parse_model reads Decimals)
        plain = json.loads(text)
    embedded, why = _embedded_spec(plain[BLUE_NB_KEY] if BLUE_NB_KEY in data else None, source)
    if why:
        notes.append(why)
    parsed = [_table(t, f"DataModel[{i}]", source) for i, t in enumerate(data["DataModel"])]
    if not parsed:
        raise SourceError("the model has no table (DataModel is empty)", where=source, hint=_HINT)
    parsed = _select(parsed, domain, source)
    workbench_checks.check_tables(parsed, source)            # key types, item sizes, index attributes
    tables = [_result(t, embedded, domain if len(parsed) == 1 else None) for t in parsed]
    _distinct(tables, source)
    return WorkbenchModel(source, str(data.get("ModelName") or Path(source).stem), version, tables, extra, notes)


# ---------------------------------------------------------------- the spec of a table


def _embedded_spec(value: Any, source: str) -> tuple[Spec | None, str]:
    if value is None:
        return None, ""
    if not isinstance(value, dict) or not isinstance(value.get("spec"), dict):
        return None, f"{BLUE_NB_KEY} holds no spec mapping: ignored"
    try:
        return spec_from_dict(value["spec"], source=f"{source}:{BLUE_NB_KEY}.spec"), ""
    except SpecError as e:
        return None, f"{BLUE_NB_KEY}.spec is not a valid spec ({len(e.problems) or 1} problems): read the model itself"


def _select(parsed: list[workbench_spec.ModelTable], domain: str | None,
            source: str) -> list[workbench_spec.ModelTable]:
    if domain is None or len(parsed) == 1:
        return parsed
    picked = [t for t in parsed if domain_name(t.name) == domain]
    if not picked:
        raise SourceError(f"no table of domain {domain!r} in the model (its tables: "
                          f"{', '.join(t.name for t in parsed)})", where=source,
                          hint="give the domain of one of its tables, or none to import them all")
    return picked


def _result(table: workbench_spec.ModelTable, embedded: Spec | None, domain: str | None) -> WorkbenchTable:
    if embedded is not None and embedded.table_name == table.name:
        differences = workbench_spec.spec_differences(embedded, table)
        if not differences:
            own = _with_own_spec(table, embedded, domain)
            if not own.unmatched:
                return own
            differences = [f"{own.unmatched:,} of its items fit no entity of that spec"]
        table.notes.append("the model differs from the blue_nb spec it carries (" + "; ".join(differences[:5])
                           + "): the spec was built from the model itself")
    spec, items, notes = workbench_spec.model_spec(table, domain or domain_name(table.name))
    return WorkbenchTable(table.name, spec, items, False, 0, table.notes + notes)


def _with_own_spec(table: workbench_spec.ModelTable, spec: Spec, domain: str | None) -> WorkbenchTable:
    """The items of a model blue_nb exported, given to the entities of its own spec: facet = entity."""
    notes = [f"{table.name}: the blue_nb spec the model carries (BlueNb.spec) matches the model: used as is"]
    if domain and domain != spec.domain:
        spec = spec.with_changes(domain=domain)
        notes.append(f"domain renamed to {domain} as asked")
    items, unmatched = [], 0
    t = spec.table
    for facet, item, where in table.items:
        entity = facet if facet in spec.entities else spec.entity_for_key(
            _text(item.get(t.partition_key)), _text(item.get(t.sort_key)) if t.sort_key else None)
        if entity is None:
            unmatched += 1
            continue
        items.append((entity, item, where))
    return WorkbenchTable(table.name, spec, items, True, unmatched, table.notes + notes)


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return "" if value is None else str(value)


def _distinct(tables: list[WorkbenchTable], source: str) -> None:
    seen: dict[str, str] = {}
    for t in tables:
        if t.spec.domain in seen:
            raise SourceError(f"tables {seen[t.spec.domain]} and {t.name} would both make the spec "
                              f"{t.spec.domain}.yaml", where=source,
                              hint="import them one at a time with different domains (--domain)")
        seen[t.spec.domain] = t.name


# ---------------------------------------------------------------- the table's parts


def _need(mapping: Any, key: str, kind: type, where: str) -> Any:
    value = mapping.get(key) if isinstance(mapping, dict) else None
    if not isinstance(value, kind):
        raise SourceError(f"{key} is missing or not {'text' if kind is str else 'a ' + kind.__name__}",
                          where=f"{where}.{key}", hint=_HINT)
    return value


def _key_pair(keys: Any, where: str) -> tuple[str, str, str | None, str]:
    pk = _need(keys, "PartitionKey", dict, where)
    name = _need(pk, "AttributeName", str, f"{where}.PartitionKey")
    sk = keys.get("SortKey") if isinstance(keys, dict) else None
    sk_name = _need(sk, "AttributeName", str, f"{where}.SortKey") if sk else None
    return (name, _key_type(pk, f"{where}.PartitionKey"), sk_name,
            _key_type(sk, f"{where}.SortKey") if sk else "S")


def _key_type(key: dict, where: str) -> str:
    typ = key.get("AttributeType", "S")
    if typ not in ("S", "N", "B"):
        raise SourceError(f"key type {typ!r} is not S, N or B", where=f"{where}.AttributeType", hint=_HINT)
    return typ


def _projection(proj: Any, keys: set[str], where: str, notes: list[str]) -> tuple[str | list[str], Any]:
    """The spec's projection (key attributes listed in INCLUDE are dropped, with a note) and the raw one."""
    proj = proj if isinstance(proj, dict) else {}
    kind = proj.get("ProjectionType", "ALL")
    if kind == "INCLUDE":
        listed = [a for a in proj.get("NonKeyAttributes") or [] if isinstance(a, str)]
        own = [a for a in listed if a in keys]
        if own:
            notes.append(f"{where}: the INCLUDE projection lists key attributes ({', '.join(own)}), which every "
                         "index holds anyway: left out of the projection")
        rest = [a for a in listed if a not in keys]
        return (rest or "keys_only"), listed
    return ("keys_only" if kind == "KEYS_ONLY" else "all"), kind


def _table(t: Any, where: str, source: str) -> workbench_spec.ModelTable:
    if not isinstance(t, dict):
        raise SourceError("a DataModel entry is not an object", where=f"{source}: {where}", hint=_HINT)
    at = f"{source}: {where}"
    name = _need(t, "TableName", str, at)
    pk, pk_type, sk, sk_type = _key_pair(_need(t, "KeyAttributes", dict, at), f"{at}.KeyAttributes")
    table = workbench_spec.ModelTable(name, pk, pk_type, sk, sk_type)
    for a in t.get("NonKeyAttributes") or []:
        if isinstance(a, dict) and isinstance(a.get("AttributeName"), str):
            table.attribute_types[a["AttributeName"]] = str(a.get("AttributeType", "S"))
    for i, g in enumerate(t.get("GlobalSecondaryIndexes") or []):
        gw = f"{at}.GlobalSecondaryIndexes[{i}]"
        iname = _need(g, "IndexName", str, gw)
        ipk, ipk_type, isk, isk_type = _key_pair(_need(g, "KeyAttributes", dict, gw), f"{gw}.KeyAttributes")
        keys = {pk, sk, ipk, isk} - {None}
        projection, raw = _projection(g.get("Projection"), keys, f"{name} index {iname}", table.notes)
        table.indexes[iname] = Index(iname, "global", ipk, isk, projection, ipk_type, isk_type)
        table.raw_projections[iname] = raw
    for i, g in enumerate(t.get("LocalSecondaryIndexes") or []):
        gw = f"{at}.LocalSecondaryIndexes[{i}]"
        iname = _need(g, "IndexName", str, gw)
        ipk, _, isk, isk_type = _key_pair(_need(g, "KeyAttributes", dict, gw), f"{gw}.KeyAttributes")
        if ipk != pk or isk is None:
            raise SourceError(f"local index {iname} is keyed by {ipk}{', ' + isk if isk else ''}: a local index has "
                              f"the table's partition key ({pk}) and a sort key of its own", where=gw,
                              hint="make it a global index, or give it the table's partition key and a sort key")
        keys = {pk, sk, isk} - {None}
        projection, raw = _projection(g.get("Projection"), keys, f"{name} index {iname}", table.notes)
        table.indexes[iname] = Index(iname, "local", None, isk, projection, "S", isk_type)
        table.raw_projections[iname] = raw
    table.billing = _billing(t, name, table.notes)
    counter = _Counter()
    for j, f in enumerate(t.get("TableFacets") or []):
        fw = f"{at}.TableFacets[{j}]"
        fname = _need(f, "FacetName", str, fw)
        alias = f.get("KeyAttributeAlias") if isinstance(f.get("KeyAttributeAlias"), dict) else {}
        table.facets.append((fname, alias.get("PartitionKeyAlias"), alias.get("SortKeyAlias"),
                             [a for a in f.get("NonKeyAttributes") or [] if isinstance(a, str)]))
        for k, raw_item in enumerate(f.get("TableData") or []):
            table.add(fname, _item(raw_item, f"{fw}.TableData[{k}]", counter), f"{fw}.TableData[{k}]")
    for k, raw_item in enumerate(t.get("TableData") or []):
        table.add(None, _item(raw_item, f"{at}.TableData[{k}]", counter), f"{at}.TableData[{k}]")
    if counter.plain:
        table.notes.append(f"{counter.plain:,} values inside maps or lists were plain JSON, not typed DynamoDB JSON "
                           f"(e.g. at {counter.first}): read as their DynamoDB types (numbers as N)")
    if counter.numbers:
        table.notes.append(f"{counter.numbers:,} N values were JSON numbers, not strings: read as numbers")
    return table


def _billing(t: dict, name: str, notes: list[str]) -> dict[str, Any]:
    mode = t.get("BillingMode")
    if mode != "PROVISIONED":
        return {"billing_mode": "PAY_PER_REQUEST"} if mode == "PAY_PER_REQUEST" else {}
    thr = (t.get("ProvisionedCapacitySettings") or {}).get("ProvisionedThroughput") or {}
    out = {"billing_mode": "PROVISIONED"}
    for key, field_ in (("ReadCapacityUnits", "read_capacity"), ("WriteCapacityUnits", "write_capacity")):
        value = thr.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            notes.append(f"{name}: PROVISIONED without a {key}: 1 assumed")
            value = 1
        out[field_] = value
    return out


# ---------------------------------------------------------------- items


class _Counter:
    def __init__(self):
        self.plain, self.numbers, self.first = 0, 0, ""


def _item(raw: Any, where: str, counter: _Counter) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise SourceError("an item is not an object of attribute -> typed value", where=where, hint=_HINT)
    return {name: _typed(value, f"{where}.{name}", counter) for name, value in raw.items()}


def _looks_typed(value: Any) -> bool:
    if not isinstance(value, dict) or len(value) != 1:
        return False
    ((tag, body),) = value.items()
    return tag in _BODY and (isinstance(body, _BODY[tag]) or tag == "N" and is_number(body))


def _typed(value: Any, where: str, counter: _Counter) -> Any:
    """A typed DynamoDB JSON value; inside M and L, a plain JSON value is accepted (and counted)."""
    if not _looks_typed(value):
        raise SourceError(f"not a typed DynamoDB JSON value: {json.dumps(value, default=str)[:80]}", where=where,
                          hint=f'write {{"S": "text"}}, {{"N": "12"}}, ... (types: {", ".join(sorted(TYPE_TAGS))})')
    ((tag, body),) = value.items()
    try:
        if tag == "M":
            return {k: _nested(v, f"{where}.{k}", counter) for k, v in body.items()}
        if tag == "L":
            return [_nested(v, f"{where}[{i}]", counter) for i, v in enumerate(body)]
        if tag == "N" and is_number(body):
            counter.numbers += 1
            return from_wire({"N": str(body)}, where)
        return from_wire(value, where)
    except BlueNbError as e:
        raise SourceError(f"bad value: {e.msg}", where=where, hint=e.hint or _HINT, cause=e) from e


def _nested(value: Any, where: str, counter: _Counter) -> Any:
    if _looks_typed(value):
        return _typed(value, where, counter)
    counter.plain += 1
    counter.first = counter.first or where
    try:
        converted = plain_to_value(value)
        to_wire(converted, where)                     # a value DynamoDB can hold (no float NaN, no empty key)
        return converted
    except BlueNbError as e:
        raise SourceError(f"bad plain value: {e.msg}", where=where, hint=_HINT, cause=e) from e
