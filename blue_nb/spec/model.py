"""The design model: one domain's single table, its entities and access patterns.

Plain dataclasses built by :mod:`blue_nb.spec.io` from a validated spec file, and turned back
into the file's mapping by :meth:`Spec.to_dict`. The names follow ``spec-format.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from blue_nb.errors import SpecError
from blue_nb.spec.display import spec_html, spec_text
from blue_nb.spec.expressions import Condition, parse_condition
from blue_nb.spec.templates import KeyTemplate

__all__ = [
    "READ_OPERATIONS", "WRITE_OPERATIONS", "OPERATIONS", "SK_OPERATORS", "ATTRIBUTE_TYPES", "KEY_TYPES", "RULE_PROFILES",
    "MAX_CAPACITY_UNITS", "MAX_RATE", "SELECTS", "ACTION_OPERATIONS", "ACTION_LIMITS", "SEGMENT_PARAMETER", "MAX_TOTAL_SEGMENTS", "Index", "Table", "Entity",
    "KeyCondition", "Filter", "Join", "Action", "AccessPattern", "Spec", "line_of", "named_pattern_path", "pattern_path",
]

READ_OPERATIONS = ("get_item", "query", "scan")
WRITE_OPERATIONS = ("put_item", "update_item", "delete_item")
#: a pattern made of other patterns' calls, sent as one request (DynamoDB's operations, as boto3 names them)
ACTION_OPERATIONS = ("transact_write_items", "transact_get_items", "batch_get_item", "batch_write_item")
#: the parameter that gives a parallel scan's Segment (0 to total_segments - 1)
SEGMENT_PARAMETER = "segment"
#: DynamoDB's most TotalSegments
MAX_TOTAL_SEGMENTS = 1_000_000
#: the most actions one request of each may carry (DynamoDB's limits: 100 per transaction, 100 keys, 25 writes)
ACTION_LIMITS = {"transact_write_items": 100, "transact_get_items": 100, "batch_get_item": 100, "batch_write_item": 25}
OPERATIONS = READ_OPERATIONS + WRITE_OPERATIONS + ACTION_OPERATIONS
SK_OPERATORS = ("sk", "sk_begins_with", "sk_between", "sk_lt", "sk_lte", "sk_gt", "sk_gte")
ATTRIBUTE_TYPES = ("S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS")
KEY_TYPES = ("S", "N", "B")
#: the most calls per second a pattern may be modelled at (far past any table: a billion calls/s); more is a typo
MAX_RATE = 1_000_000_000
#: the most provisioned read or write capacity units a spec may give a table or an index
MAX_CAPACITY_UNITS = 1_000_000_000
_PATTERN_PATH = re.compile(r"^access_patterns\[(\d+)\](?! \()")


def pattern_path(i: int, name: str) -> str:
    """The spec path of access pattern ``i``, named as a person knows it: ``access_patterns[5] (list_round)``;
    a finding or an error adds the rest of its path (``.key_condition.sk_begins_with``) after it."""
    return f"access_patterns[{i}] ({name})"


def named_pattern_path(path: str, names: list[Any]) -> str:
    """``path`` with a leading ``access_patterns[i]`` named by :func:`pattern_path` (``names``: the patterns' names
    in file order; a path already named, or one whose pattern has no name, stays as it is)."""
    def named(m: re.Match) -> str:
        i = int(m.group(1))
        name = names[i] if i < len(names) else None
        return pattern_path(i, name) if isinstance(name, str) and name else m.group(0)

    return _PATTERN_PATH.sub(named, path)


# which rules a spec answers to: Blue's own (ADR 0018 and DynamoDB's), or DynamoDB's alone (a design made elsewhere)
RULE_PROFILES = ("adr-0018", "dynamodb")


def _drop_defaults(d: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k not in defaults or v != defaults[k]}


@dataclass
class Index:
    """A GSI (own partition key) or an LSI (the table's partition key, another sort key)."""

    name: str
    type: str = "global"
    partition_key: str | None = None
    sort_key: str | None = None
    projection: str | list[str] = "all"
    partition_key_type: str = "S"
    sort_key_type: str = "S"

    def to_dict(self) -> dict[str, Any]:
        d = {"type": self.type, "partition_key": self.partition_key, "sort_key": self.sort_key,
             "projection": list(self.projection) if isinstance(self.projection, list) else self.projection,
             "partition_key_type": self.partition_key_type, "sort_key_type": self.sort_key_type}
        return _drop_defaults(d, {"partition_key": None, "sort_key": None,
                                  "partition_key_type": "S", "sort_key_type": "S"})


@dataclass
class Table:
    """The domain's one DynamoDB table: its key attributes and types, billing mode and capacity, and
    its secondary indexes by name; ``name`` None means ``blue_<domain>``."""

    partition_key: str = "pk"
    sort_key: str | None = "sk"
    name: str | None = None
    partition_key_type: str = "S"
    sort_key_type: str = "S"
    billing_mode: str = "PAY_PER_REQUEST"
    read_capacity: int | None = None
    write_capacity: int | None = None
    indexes: dict[str, Index] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "partition_key": self.partition_key, "sort_key": self.sort_key,
             "partition_key_type": self.partition_key_type, "sort_key_type": self.sort_key_type,
             "billing_mode": self.billing_mode, "read_capacity": self.read_capacity,
             "write_capacity": self.write_capacity,
             "indexes": {n: i.to_dict() for n, i in self.indexes.items()}}
        return _drop_defaults(d, {"name": None, "sort_key": None, "partition_key_type": "S", "sort_key_type": "S",
                                  "read_capacity": None, "write_capacity": None, "indexes": {}})


@dataclass
class Entity:
    """One kind of item in the table: key attribute -> key template, the other attributes' types, the
    source rows it is built from, and the service that writes it."""

    name: str
    key: dict[str, str]
    attributes: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    writer: str | None = None
    description: str = ""
    allow_empty: bool = False   # the source file may hold no rows (else an empty file is an error)

    @cached_property
    def templates(self) -> dict[str, KeyTemplate]:
        """Key attribute name -> its parsed template."""
        return {attr: KeyTemplate(text, where=f"entities.{self.name}.key.{attr}") for attr, text in self.key.items()}

    def to_dict(self) -> dict[str, Any]:
        d = {"description": self.description, "source": self.source, "key": dict(self.key),
             "attributes": dict(self.attributes), "writer": self.writer, "allow_empty": self.allow_empty}
        return _drop_defaults(d, {"description": "", "source": None, "writer": None, "attributes": {},
                                  "allow_empty": False})


@dataclass
class KeyCondition:
    """``pk`` equality plus at most one sort-key condition, on the table or on an index."""

    pk: str
    sk_op: str | None = None          # one of SK_OPERATORS, or None
    sk_value: str | list[str] | None = None

    @property
    def pk_template(self) -> KeyTemplate:
        return KeyTemplate(self.pk)

    @property
    def sk_templates(self) -> list[KeyTemplate]:
        if self.sk_value is None:
            return []
        values = self.sk_value if isinstance(self.sk_value, list) else [self.sk_value]
        return [KeyTemplate(v) for v in values]

    @property
    def placeholders(self) -> list[str]:
        names: dict[str, None] = {}
        for t in [self.pk_template, *self.sk_templates]:
            for n in t.placeholders:
                names.setdefault(n)
        return list(names)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"pk": self.pk}
        if self.sk_op:
            d[self.sk_op] = list(self.sk_value) if isinstance(self.sk_value, list) else self.sk_value
        return d


#: a read's Select: what it returns of each item (DynamoDB's names)
SELECTS = ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT")
#: the value types a filter's ``values`` may give in DynamoDB JSON (a one-key mapping)
FILTER_VALUE_TYPES = ("S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS")


@dataclass
class Filter:
    """A Query's or Scan's FilterExpression, or a write's ConditionExpression: the condition in DynamoDB's syntax (names bare, values
    ``:name``) and its values by name. A value is a YAML scalar (a string is a key template, so
    ``"{status}"`` is a parameter; a number is N; true/false BOOL; null NULL) or DynamoDB JSON with
    templates in its strings (``{N: "{min}"}``, ``{SS: ["a", "{tag}"]}``)."""

    expression: str
    values: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def tree(self) -> Condition:
        """The parsed condition (:mod:`blue_nb.spec.expressions`)."""
        return parse_condition(self.expression)

    def value_templates(self) -> dict[str, list[KeyTemplate]]:
        """Value name -> the key templates in it (its strings)."""
        out: dict[str, list[KeyTemplate]] = {}
        for name, v in self.values.items():
            inner = next(iter(v.values())) if isinstance(v, dict) and len(v) == 1 else v
            texts = [inner] if isinstance(inner, str) else [x for x in inner if isinstance(x, str)] \
                if isinstance(inner, list) else []
            out[name] = [KeyTemplate(t, where=f"filter.values.{name}") for t in texts]
        return out

    @property
    def placeholders(self) -> list[str]:
        names: dict[str, None] = {}
        for templates in self.value_templates().values():
            for t in templates:
                for n in t.placeholders:
                    names.setdefault(n)
        return list(names)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"expression": self.expression}
        if self.values:
            d["values"] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in self.values.items()}
        return d


@dataclass
class Join:
    """An application-level join: for each item returned, run ``pattern`` with ``params`` (its
    parameter -> an attribute of the item)."""

    pattern: str
    params: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"pattern": self.pattern, "params": dict(self.params)}


@dataclass
class Action:
    """One action of a transaction or a batch: another pattern's call, its parameters given as key templates
    over the enclosing pattern's parameters (``{dialogue_id: "{dialogue_id}"}``); ``check``: a
    TransactWriteItems ConditionCheck (the pattern's key and condition, nothing written)."""

    pattern: str
    params: dict[str, str] = field(default_factory=dict)
    check: bool = False

    @property
    def placeholders(self) -> list[str]:
        names: dict[str, None] = {}
        for n, text in self.params.items():
            for ph in KeyTemplate(text, where=f"actions.params.{n}").placeholders:
                names.setdefault(ph)
        return list(names)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"pattern": self.pattern, "params": dict(self.params)}
        if self.check:
            d["check"] = True
        return d


@dataclass
class AccessPattern:
    """One named read or write the application makes: the operation, the entities it touches, the
    table or index and key condition it uses, its read options, and its expected rate."""

    name: str
    operation: str
    entities: list[str]
    description: str = ""
    index: str = "table"
    key_condition: KeyCondition | None = None
    consistent_read: bool = False
    limit: int | None = None
    scan_forward: bool = True
    hot: bool = False
    rate_per_second: float = 0
    key_distribution: str = "uniform"
    joins: list[Join] = field(default_factory=list)
    filter: Filter | None = None
    select: str | None = None                 # one of SELECTS; None: DynamoDB's default for the read
    condition: Filter | None = None           # a write's ConditionExpression (the same language as a filter)
    update: Filter | None = None              # an update_item's UpdateExpression and its values
    return_values_on_condition_check_failure: str = "NONE"     # ALL_OLD: a failed condition returns the item
    projection: list[str] = field(default_factory=list)     # ProjectionExpression: document paths
    actions: list[Action] = field(default_factory=list)     # a transaction's or a batch's calls (ACTION_OPERATIONS)
    total_segments: int | None = None        # a parallel scan's TotalSegments; its Segment is the parameter `segment`

    @property
    def is_read(self) -> bool:
        return self.operation in READ_OPERATIONS

    @property
    def reads_only(self) -> bool:
        """A read, a TransactGetItems or a BatchGetItem: what it consumes is read units."""
        return self.is_read or self.operation in ("transact_get_items", "batch_get_item")

    @property
    def is_composite(self) -> bool:
        """A transaction or a batch: its calls are its ``actions``."""
        return self.operation in ACTION_OPERATIONS

    @property
    def parameters(self) -> list[str]:
        """Names of the values a caller must supply to run the pattern."""
        names = dict.fromkeys(self.key_condition.placeholders if self.key_condition else [])
        names.update(dict.fromkeys(self.filter.placeholders if self.filter else []))
        names.update(dict.fromkeys(self.condition.placeholders if self.condition else []))
        names.update(dict.fromkeys(self.update.placeholders if self.update else []))
        for a in self.actions:
            names.update(dict.fromkeys(a.placeholders))
        if self.total_segments:
            names.update(dict.fromkeys([SEGMENT_PARAMETER]))
        return list(names)

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "description": self.description, "operation": self.operation,
             "entities": list(self.entities), "index": self.index,
             "key_condition": self.key_condition.to_dict() if self.key_condition else None,
             "filter": self.filter.to_dict() if self.filter else None,
             "select": self.select, "projection": list(self.projection),
             "condition": self.condition.to_dict() if self.condition else None,
             "update": self.update.to_dict() if self.update else None,
             "return_values_on_condition_check_failure": self.return_values_on_condition_check_failure,
             "consistent_read": self.consistent_read, "limit": self.limit, "scan_forward": self.scan_forward,
             "hot": self.hot, "rate_per_second": self.rate_per_second, "key_distribution": self.key_distribution,
             "joins": [j.to_dict() for j in self.joins], "actions": [a.to_dict() for a in self.actions],
             "total_segments": self.total_segments}
        return _drop_defaults(d, {"actions": [], "total_segments": None, "description": "", "index": "table", "key_condition": None,
                                  "consistent_read": False, "limit": None, "scan_forward": True, "hot": False,
                                  "key_distribution": "uniform", "joins": [], "filter": None,
                                  "select": None, "projection": [], "condition": None, "update": None,
                                  "return_values_on_condition_check_failure": "NONE"})


def line_of(path: str, lines: dict[str, int]) -> int | None:
    """The line of a spec path, or of its nearest ancestor that the file has (the top level's for "")."""
    if not path:
        return lines.get("")
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return None


@dataclass
class Spec:
    """A domain's whole design, as one spec file states it: the table, the entities, the access
    patterns; ``inferred`` notes what an import guessed from data."""

    domain: str
    table: Table
    entities: dict[str, Entity]
    access_patterns: list[AccessPattern] = field(default_factory=list)
    description: str = ""
    spec_version: int = 1
    rules: str = "adr-0018"     # the rule profile (RULE_PROFILES): the checks the design answers to
    # spec path -> how that part was inferred from data (a draft made by an import); empty when written by hand
    inferred: dict[str, str] = field(default_factory=dict)
    # how blue-nb sample draws this design's rows (spec-format.md, "generate"); empty: the defaults
    generate: dict[str, Any] = field(default_factory=dict)
    source_path: str | None = field(default=None, compare=False, repr=False)
    # spec path -> its 1-based line in the file source_path names, as read (empty when not read from a file)
    source_lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    # the validation stamp of an exported spec file (blue_nb.export), as read: kept for checking the file's hash,
    # never part of equality, and not written back by to_dict (a re-saved spec is no longer that export)
    stamp: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def table_name(self) -> str:
        return self.table.name or f"blue_{self.domain}"

    def pattern(self, name: str) -> AccessPattern:
        for p in self.access_patterns:
            if p.name == name:
                return p
        raise SpecError(f"no access pattern named {name!r}", where="access_patterns",
                        hint="known patterns: " + ", ".join(p.name for p in self.access_patterns))

    def key_attributes(self, index: str = "table") -> tuple[str, str | None]:
        """(partition key, sort key) attribute names of the table or of one index."""
        if index in ("table", None):
            return self.table.partition_key, self.table.sort_key
        idx = self.table.indexes[index]
        pk = self.table.partition_key if idx.type == "local" else idx.partition_key
        return pk, idx.sort_key  # type: ignore[return-value]

    def index_key_attributes(self) -> dict[str, tuple[str, str | None]]:
        return {name: self.key_attributes(name) for name in self.table.indexes}

    def entity_for_key(self, pk: str, sk: str | None) -> str | None:
        """The entity whose table key templates match this item key, if exactly one does."""
        pk_attr, sk_attr = self.table.partition_key, self.table.sort_key
        found = [e.name for e in self.entities.values()
                 if e.templates.get(pk_attr) and e.templates[pk_attr].matches(pk)
                 and (sk_attr is None or (e.templates.get(sk_attr) and e.templates[sk_attr].matches(sk or "")))]
        return found[0] if len(found) == 1 else None

    def __repr__(self) -> str:
        """A compact summary (keys, indexes, entities, patterns), not the 40-line dataclass dump."""
        return spec_text(self)

    def _repr_html_(self) -> str:
        return spec_html(self)

    def with_changes(self, **changes: Any) -> "Spec":
        """A copy with fields replaced (the model is mutable, but notebooks prefer copies). A changed copy
        keeps no line numbers: the file no longer states it."""
        return replace(self, **changes, **({} if not changes or "source_lines" in changes else {"source_lines": {}}))

    def where(self, path: str) -> str:
        """Where a spec path is, for an error: ``file:line path`` when read from a file (the line of the
        path, or of its nearest ancestor the file has), ``file path`` without lines, the bare path else."""
        if not self.source_path or self.source_path == "<spec>":
            return path
        line = line_of(path, self.source_lines)
        return " ".join(w for w in (f"{self.source_path}:{line}" if line else self.source_path, path) if w)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"spec_version": self.spec_version, "domain": self.domain}
        if self.description:
            d["description"] = self.description
        if self.rules != RULE_PROFILES[0]:
            d["rules"] = self.rules
        d["table"] = self.table.to_dict()
        d["entities"] = {n: e.to_dict() for n, e in self.entities.items()}
        d["access_patterns"] = [p.to_dict() for p in self.access_patterns]
        if self.inferred:
            d["inferred"] = dict(self.inferred)
        if self.generate:
            d["generate"] = self.generate
        return d
