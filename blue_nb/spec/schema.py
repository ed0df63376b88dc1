"""The spec file's structure, declared once.

The same declaration drives the validator (:func:`structure_problems`, which collects every
problem with its spec path and rejects unknown fields by name) and the JSON Schema that ships
as ``spec.schema.json`` for editors (:func:`json_schema`).
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Any

from blue_nb.errors import Problem
from blue_nb.spec.model import (ATTRIBUTE_TYPES, KEY_TYPES, MAX_CAPACITY_UNITS, MAX_RATE, MAX_TOTAL_SEGMENTS, OPERATIONS,
                                RULE_PROFILES, SELECTS)

__all__ = ["SPEC", "json_schema", "structure_problems", "DOMAIN_RE", "NAME_RE", "ATTR_NAME_RE"]

DOMAIN_RE = r"^[a-z][a-z0-9_]*$"
NAME_RE = r"^[A-Za-z0-9_.-]{3,255}$"            # table and index names (DynamoDB)
ENTITY_RE = r"^[A-Za-z_][A-Za-z0-9_]*$"
ATTR_NAME_RE = r"^[^\s]{1,255}$"                # key / attribute names used by blue_nb
DISTRIBUTION_RE = r"^(uniform|sample|zipf:[0-9]+(\.[0-9]+)?)$"


@dataclass
class T:
    """A node of the declaration: JSON type(s) plus constraints."""

    kind: str                                   # str int num bool null obj map list any-of
    pattern: str | None = None
    enum: tuple | None = None
    minimum: float | None = None
    maximum: float | None = None
    fields: dict[str, tuple["T", bool]] = field(default_factory=dict)  # obj: name -> (type, required)
    items: "T | None" = None                    # map values / list items
    key_pattern: str | None = None              # map keys
    options: tuple["T", ...] = ()               # any-of
    min_items: int | None = None
    max_items: int | None = None
    description: str = ""


def S(pattern=None, enum=None, d=""): return T("str", pattern=pattern, enum=enum, description=d)
def OBJ(d="", **fields): return T("obj", fields=fields, description=d)
def REQ(t): return (t, True)
def OPT(t): return (t, False)
def NULLABLE(t): return T("any-of", options=(t, T("null")))


KEY_TYPE = S(enum=KEY_TYPES)
INDEX = OBJ(
    "A global or local secondary index",
    type=REQ(S(enum=("global", "local"))),
    partition_key=OPT(S(ATTR_NAME_RE, d="global: required; local: omit (the table's partition key)")),
    sort_key=OPT(S(ATTR_NAME_RE)),
    partition_key_type=OPT(KEY_TYPE), sort_key_type=OPT(KEY_TYPE),
    projection=OPT(T("any-of", options=(S(enum=("all", "keys_only")),
                                        T("list", items=S(ATTR_NAME_RE), min_items=1)))),
)
TABLE = OBJ(
    "The domain's single table",
    name=OPT(NULLABLE(S(NAME_RE))),
    partition_key=REQ(S(ATTR_NAME_RE)), sort_key=OPT(NULLABLE(S(ATTR_NAME_RE))),
    partition_key_type=OPT(KEY_TYPE), sort_key_type=OPT(KEY_TYPE),
    billing_mode=OPT(S(enum=("PAY_PER_REQUEST", "PROVISIONED"))),
    read_capacity=OPT(NULLABLE(T("int", minimum=1, maximum=MAX_CAPACITY_UNITS))),
    write_capacity=OPT(NULLABLE(T("int", minimum=1, maximum=MAX_CAPACITY_UNITS))),
    indexes=OPT(T("map", items=INDEX, key_pattern=NAME_RE)),
)
ENTITY = OBJ(
    "One kind of item",
    description=OPT(S()), source=OPT(NULLABLE(S())),
    key=REQ(T("map", items=S(d="key template"), key_pattern=ATTR_NAME_RE)),
    attributes=OPT(T("map", items=S(enum=ATTRIBUTE_TYPES), key_pattern=ATTR_NAME_RE)),
    writer=OPT(NULLABLE(S())),
    allow_empty=OPT(T("bool", description="true: the entity's source file may hold no rows (a load then empties "
                                            "the entity); otherwise an empty source file is an error")),
)
_SK_VALUE = S(d="key template")
KEY_CONDITION = OBJ(
    "pk equality and at most one sort-key condition",
    pk=REQ(S()), sk=OPT(_SK_VALUE), sk_begins_with=OPT(_SK_VALUE),
    sk_between=OPT(T("list", items=_SK_VALUE, min_items=2, max_items=2)),
    sk_lt=OPT(_SK_VALUE), sk_lte=OPT(_SK_VALUE), sk_gt=OPT(_SK_VALUE), sk_gte=OPT(_SK_VALUE),
)
_FILTER_TYPED = T("map", key_pattern=r"^(S|N|B|BOOL|NULL|SS|NS|BS)$",
                  items=T("any-of", options=(S(d="key template"), T("bool"), T("list", items=S(d="key template")))),
                  description="DynamoDB JSON, its strings key templates: {N: '{min}'}, {SS: ['a', '{tag}']}")
FILTER = OBJ(
    "A FilterExpression (a read's) or ConditionExpression (a write's): the condition in DynamoDB's syntax "
    "(attribute names bare, values :name), and its values",
    expression=REQ(S(d="e.g. status = :open AND size(tags) > :n")),
    values=OPT(T("map", key_pattern=r"^[A-Za-z0-9_]+$", description="value name (without the colon) -> its value",
                 items=T("any-of", options=(S(d="key template: an S value"), T("num"), T("bool"), T("null"),
                                            _FILTER_TYPED)))),
)
JOIN = OBJ("An application-level join", pattern=REQ(S()), params=OPT(T("map", items=S())))
ACTION = OBJ(
    "One action of a transaction or a batch: another pattern's call",
    pattern=REQ(S(d="the access pattern this action calls (a get_item, put_item, update_item or delete_item)")),
    params=OPT(T("map", items=S(d="key template over the enclosing pattern's parameters"),
                 description="the called pattern's parameter -> its value (a key template: '{dialogue_id}')")),
    check=OPT(T("bool", description="true: a ConditionCheck (the pattern's key and condition; nothing written); "
                                    "transact_write_items only")),
)
PATTERN = OBJ(
    "One access pattern",
    name=REQ(S(ENTITY_RE)), description=OPT(S()), operation=REQ(S(enum=OPERATIONS)),
    entities=REQ(T("list", items=S(ENTITY_RE), min_items=1)),
    index=OPT(S()), key_condition=OPT(NULLABLE(KEY_CONDITION)), filter=OPT(NULLABLE(FILTER)),
    select=OPT(NULLABLE(S(enum=SELECTS, d="what a query or scan returns of each item; default: ALL_ATTRIBUTES "
                                         "on the table, ALL_PROJECTED_ATTRIBUTES on an index, SPECIFIC_ATTRIBUTES "
                                         "with a projection"))),
    projection=OPT(T("list", items=S(d="a document path: a, a.b, a[0]"), min_items=1,
                     description="ProjectionExpression: the attributes a read returns")),
    condition=OPT(NULLABLE(FILTER)),
    update=OPT(NULLABLE(OBJ("An UpdateExpression (SET, REMOVE, ADD, DELETE; names bare, values :name) and its values",
                            expression=REQ(S(d="e.g. SET n = n + :one REMOVE draft")),
                            values=FILTER.fields["values"]))),
    return_values_on_condition_check_failure=OPT(S(enum=("NONE", "ALL_OLD"))),
    consistent_read=OPT(T("bool")), limit=OPT(NULLABLE(T("int", minimum=1))), scan_forward=OPT(T("bool")),
    hot=OPT(T("bool")), rate_per_second=OPT(T("num", minimum=0, maximum=MAX_RATE)),
    key_distribution=OPT(S(DISTRIBUTION_RE)), joins=OPT(T("list", items=JOIN)),
    actions=OPT(T("list", items=ACTION, min_items=1, max_items=100,
                  description="a transact_write_items, transact_get_items, batch_get_item or batch_write_item's calls")),
    total_segments=OPT(NULLABLE(T("int", minimum=1, maximum=MAX_TOTAL_SEGMENTS,
                                  description="a parallel scan's TotalSegments; each call gives its Segment as the "
                                              "parameter 'segment' (0 to total_segments - 1)"))),
)
STAMP = OBJ(
    "The validation stamp of an exported spec (blue-nb export): not part of the design; a re-saved spec drops it",
    blue_nb=OPT(S(d="the blue_nb version that exported the spec")),
    exported_at=OPT(S(d="when, UTC ISO 8601")),
    validated=OPT(T("bool", description="true: the checks found no error; false: exported with --force despite errors")),
    findings=OPT(T("map", items=T("int", minimum=0), description="findings per severity: error, warning, info")),
    items_checked=OPT(NULLABLE(T("int", minimum=0))),
    content_sha256=REQ(S(r"^[0-9a-f]{64}$", d="sha256 of the spec without its stamp (canonical JSON)")),
    note=OPT(S()),
)
_NUM = T("num")
_WEIGHT = T("num", minimum=0, description="a relative weight, 0 or more")
_DIST_FIELDS = dict(
    fixed=OPT(T("num", minimum=0, description="always this value")),
    uniform=OPT(T("list", items=T("num", minimum=0), min_items=2, max_items=2, description="[low, high], inclusive")),
    zipf=OPT(T("num", minimum=0, description="Zipf exponent over 1..max: a few draws are large, most small")),
    lognormal=OPT(T("list", items=T("num", minimum=0), min_items=2, max_items=2, description="[median, sigma]")),
    weights=OPT(T("list", items=_WEIGHT, min_items=1, description="weight of each value 0, 1, 2, ...")),
    min=OPT(T("num", minimum=0, description="no draw below this")),
    max=OPT(T("num", minimum=0, description="no draw above this (Zipf: the largest value)")),
    first=OPT(T("any-of", options=(T("num", minimum=0), T("list", items=T("num", minimum=0))),
                description="the first draw(s): a value (one deliberate outlier) or a list, drawn in order")),
)
_DIST_PART = OBJ("One component of a mixture", weight=REQ(_WEIGHT), **_DIST_FIELDS)
DISTRIBUTION = OBJ("How a count or a length is drawn: one of fixed, uniform, zipf, lognormal, weights, mix",
                   mix=OPT(T("list", items=_DIST_PART, min_items=1, description="components drawn by weight")),
                   **_DIST_FIELDS)
GEN_FIELD = OBJ(
    "How one column's values are drawn; without a kind, the default of its type",
    seq=OPT(OBJ("1, 2, 3, ... (per parent item)", start=OPT(T("int")), width=OPT(T("int", minimum=0)),
                prefix=OPT(S()))),
    uuid=OPT(T("bool", description="random UUIDs (from the seed)")),
    timestamp=OPT(OBJ("Increasing timestamps (per parent item)", start=OPT(S(d="ISO 8601 UTC")),
                      per_day=OPT(T("num", minimum=0, description="mean events per day")),
                      format=OPT(S(enum=("iso", "epoch"))))),
    enum=OPT(T("map", items=_WEIGHT, description="value -> weight")),
    name=OPT(OBJ("Readable names (slugs), some in other scripts", unicode=OPT(T("num", minimum=0)))),
    cardinality=OPT(T("int", minimum=1, description="draw from this many distinct values (make a key hot on purpose)")),
    skew=OPT(T("num", minimum=0, description="with cardinality: Zipf exponent of the draw (0: uniform)")),
    length=OPT(DISTRIBUTION), size=OPT(DISTRIBUTION),
    min=OPT(_NUM), max=OPT(_NUM), decimals=OPT(T("int", minimum=0)),
    present=OPT(T("num", minimum=0, description="share of items that have the attribute, 0..1")),
    first=OPT(T("list", items=T("any-of", options=(S(), _NUM)), description="the first values, in order")),
    value=OPT(T("any-of", options=(S(), _NUM, T("bool")), description="always this value")),
    dist=OPT(DISTRIBUTION),
    ref=OPT(S(r"^[A-Za-z_][A-Za-z0-9_]*\.[^\s.]+$", d="Entity.column: a value of that column already drawn under "
                                                         "the same top-level item (a link to a sibling)")),
    members=OPT(T("map", items=_WEIGHT, description="a set's or list's members: value -> weight")),
)
GEN_ENTITY = OBJ(
    "How many items of an entity, and how their columns are drawn",
    parent=OPT(S(ENTITY_RE, d="the entity each item belongs to (default: inferred from the key templates)")),
    count=OPT(T("int", minimum=0, description="total items (an entity without a parent)")),
    per_parent=OPT(DISTRIBUTION),
    fields=OPT(T("map", items=GEN_FIELD, key_pattern=ATTR_NAME_RE)),
)
GENERATE = OBJ("Sample data declarations for blue-nb sample (optional)",
               entities=OPT(T("map", items=GEN_ENTITY, key_pattern=ENTITY_RE)))
SPEC = OBJ(
    "A blue_nb schema spec, version 1",
    spec_version=REQ(T("int", enum=(1,))), domain=REQ(S(DOMAIN_RE)), description=OPT(S()),
    rules=OPT(S(enum=RULE_PROFILES, d="the rules the design answers to: adr-0018 (the default: Blue's ADR 0018 and "
                                      "DynamoDB's own) or dynamodb (DynamoDB's limits and key checks alone: a design "
                                      "made elsewhere)")),
    table=REQ(TABLE), entities=REQ(T("map", items=ENTITY, key_pattern=ENTITY_RE)),
    access_patterns=OPT(T("list", items=PATTERN)),
    inferred=OPT(T("map", items=S(), description="what an import inferred from data, and how: spec path (e.g. "
                                                 "entities.Persp.key.sk) -> the evidence; review, then delete")),
    generate=OPT(GENERATE),
    stamp=OPT(STAMP),
)

_JSON_TYPES = {"str": "string", "int": "integer", "num": "number", "bool": "boolean", "null": "null",
               "obj": "object", "map": "object", "list": "array"}


def _type_ok(t: T, value: Any) -> bool:
    if t.kind == "str":
        return isinstance(value, str)
    if t.kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if t.kind == "num":                         # .nan and .inf would be read silently into rates
        return isinstance(value, int) and not isinstance(value, bool) or isinstance(value, float) and math.isfinite(value)
    if t.kind == "bool":
        return isinstance(value, bool)
    if t.kind == "null":
        return value is None
    if t.kind in ("obj", "map"):
        return isinstance(value, dict)
    return isinstance(value, list)


def _describe(t: T) -> str:
    if t.kind == "any-of":
        return " or ".join(_describe(o) for o in t.options)
    if t.enum:
        return "one of " + ", ".join(map(str, t.enum))
    return {"str": "a string", "int": "an integer", "num": "a number", "bool": "true or false", "null": "null",
            "obj": "a mapping", "map": "a mapping", "list": "a list"}[t.kind]


def _shown(value: Any) -> str:
    """A value as the message quotes it, cut to 80 characters (a bad spec can hold megabytes)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _join(path: str, key: Any) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))


def structure_problems(value: Any, t: T = SPEC, path: str = "") -> list[Problem]:
    """Every structural problem of ``value`` against the declaration, with its spec path."""
    if t.kind == "any-of":
        for option in t.options:
            if not structure_problems(value, option, path):
                return []
        matching = [o for o in t.options if _type_ok(o, value)]
        if matching:
            return structure_problems(value, matching[0], path)
        return [Problem(path, f"expected {_describe(t)}, got {_shown(value)}")]
    if not _type_ok(t, value):
        hint = "a spec is a mapping of spec_version, domain, table, entities and access_patterns" if not path else ""
        return [Problem(path, f"expected {_describe(t)}, got {_shown(value)}", hint)]
    if t.enum is not None and value not in t.enum:
        close = difflib.get_close_matches(str(value), [str(e) for e in t.enum], n=1)
        return [Problem(path, f"{_shown(value)} is not {_describe(t)}", f"did you mean {close[0]!r}?" if close else "")]
    if t.pattern and not re.fullmatch(t.pattern, value):    # fullmatch: "$" alone lets a trailing newline in
        return [Problem(path, f"{_shown(value)} does not match {t.pattern}")]
    if t.minimum is not None and value < t.minimum:
        return [Problem(path, f"{value!r} is below the minimum {t.minimum:g}")]
    if t.maximum is not None and not value <= t.maximum:
        return [Problem(path, f"{value!r} is above the maximum {t.maximum:,}", "a number that large is a typo here")]
    if t.kind == "obj":
        return _object_problems(value, t, path)
    if t.kind == "map":
        out = []
        for k, v in value.items():
            if t.key_pattern and not (isinstance(k, str) and re.fullmatch(t.key_pattern, k)):
                out.append(Problem(_join(path, k), f"name {_shown(k)} does not match {t.key_pattern}"))
            out += structure_problems(v, t.items, _join(path, k))
        return out
    if t.kind == "list":
        out = []
        if t.min_items is not None and len(value) < t.min_items or t.max_items is not None and len(value) > t.max_items:
            n = t.min_items if t.min_items == t.max_items else f"at least {t.min_items}"
            out.append(Problem(path, f"expected {n} elements, got {len(value)}"))
        for i, v in enumerate(value):
            out += structure_problems(v, t.items, _join(path, i))
        return out
    return []


def _object_problems(value: dict, t: T, path: str) -> list[Problem]:
    out = []
    for name, (ft, required) in t.fields.items():
        if name in value:
            out += structure_problems(value[name], ft, _join(path, name))
        elif required:
            out.append(Problem(_join(path, name), f"required field {name!r} is missing"))
    for name in value:
        if name not in t.fields:
            close = difflib.get_close_matches(str(name), list(t.fields), n=1)
            hint = f"did you mean {close[0]!r}?" if close else "known fields: " + ", ".join(t.fields)
            out.append(Problem(_join(path, name), f"unknown field {_shown(name)}", hint))
    return out


def _schema(t: T) -> dict[str, Any]:
    if t.kind == "any-of":
        return {"anyOf": [_schema(o) for o in t.options]}
    s: dict[str, Any] = {"type": _JSON_TYPES[t.kind]}
    if t.description:
        s["description"] = t.description
    if t.enum is not None:
        s["enum"] = list(t.enum)
    if t.pattern:
        s["pattern"] = t.pattern
    if t.minimum is not None:
        s["minimum"] = t.minimum
    if t.maximum is not None:
        s["maximum"] = t.maximum
    if t.kind == "obj":
        s["properties"] = {n: _schema(ft) for n, (ft, _) in t.fields.items()}
        s["required"] = [n for n, (_, req) in t.fields.items() if req]
        s["additionalProperties"] = False
    elif t.kind == "map":
        s["additionalProperties"] = _schema(t.items)
        if t.key_pattern:
            s["propertyNames"] = {"pattern": t.key_pattern}
    elif t.kind == "list":
        s["items"] = _schema(t.items)
        if t.min_items is not None:
            s["minItems"] = t.min_items
        if t.max_items is not None:
            s["maxItems"] = t.max_items
    return s


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a spec file, as shipped in ``spec.schema.json``."""
    s = _schema(SPEC)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "blue_nb schema spec", **s}
