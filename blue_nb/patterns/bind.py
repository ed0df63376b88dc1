"""Access patterns bound to parameter values: the key request, and DynamoDB's key order.

Pure (layer 1): :func:`bind` turns a pattern and its parameters into a :class:`KeyRequest` (the
key values, the sort-key condition, the index, paging and consistency), or refuses, in DynamoDB's words,
a request DynamoDB would refuse (:mod:`blue_nb.spec.refusals`). :attr:`KeyRequest.order_keys` is the order
of a read's items, DynamoDB's and, where it leaves it open, blue_nb's. :data:`COMPARISONS` is
the one table of sort-key comparison operators: the SQL plan, the boto3 request and the local
filter all read it.
"""

from __future__ import annotations

import difflib
import operator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable, Mapping

from blue_nb.errors import ItemError, QueryError, TemplateError
from blue_nb.items.values import to_wire, validate_number
from blue_nb.patterns.projection import index_attributes, needs_fetch, resolve_select
from blue_nb.printing import short
from blue_nb.spec import ATTRIBUTE_TYPES, SEGMENT_PARAMETER, AccessPattern, KeyTemplate, Spec
from blue_nb.spec.expressions import Between, Function, Value, condition_nodes, parse_path, parse_update
from blue_nb.spec.refusals import refusal

__all__ = ["COMPARISONS", "Comparison", "KeyRequest", "SK_OPS", "bind", "prefix_successor", "projection_of",
           "row_values", "sk_matches", "sort_value"]

SK_OPS = {"sk": "eq", "sk_begins_with": "begins_with", "sk_between": "between", "sk_lt": "lt", "sk_lte": "lte",
          "sk_gt": "gt", "sk_gte": "gte"}


@dataclass(frozen=True)
class Comparison:
    """A sort-key comparison: its symbol in SQL and in DynamoDB expressions (the same), and its test."""

    symbol: str
    test: Callable[[Any, Any], bool]


COMPARISONS = {"eq": Comparison("=", operator.eq), "lt": Comparison("<", operator.lt),
               "lte": Comparison("<=", operator.le), "gt": Comparison(">", operator.gt),
               "gte": Comparison(">=", operator.ge)}


@dataclass(frozen=True)
class KeyRequest:
    """One run of a pattern: everything a backend needs, as plain values."""

    pattern: str
    operation: str
    table: str
    index: str                       # "table" or an index name
    index_type: str                  # "table", "global" or "local"
    pk_attr: str
    sk_attr: str | None
    pk_type: str
    sk_type: str
    pk_value: Any = None             # None for a scan
    sk_op: str | None = None         # eq begins_with between lt lte gt gte
    sk_values: tuple = ()
    limit: int | None = None
    forward: bool = True
    consistent: bool = False
    projection: Any = "all"          # all | keys_only | tuple of attribute names
    table_keys: tuple[str, str | None] = ("pk", "sk")
    table_key_types: tuple[str, str] = ("S", "S")
    params: Mapping[str, str] = field(default_factory=dict)
    filter: Any = None               # the filter's condition tree (blue_nb.spec.expressions), or None
    filter_values: Mapping[str, Any] = field(default_factory=dict)   # its :values, bound, by name
    select: str = "ALL_ATTRIBUTES"   # what a read returns of each item (DynamoDB's Select, resolved)
    paths: tuple = ()                # the ProjectionExpression's document paths (blue_nb.spec.expressions.Path)
    fetch: bool = False              # a local index read that fetches each item from the table
    condition: Any = None            # a write's ConditionExpression tree, or None
    condition_values: Mapping[str, Any] = field(default_factory=dict)
    return_old_on_failure: bool = False    # ReturnValuesOnConditionCheckFailure ALL_OLD
    start_key: Mapping[str, Any] | None = None    # ExclusiveStartKey: read on after this key
    update: tuple = ()               # an update_item's UpdateExpression actions (blue_nb.spec.expressions)
    update_values: Mapping[str, Any] = field(default_factory=dict)
    segment: int | None = None       # a parallel scan's Segment (0 to total_segments - 1), or None
    total_segments: int | None = None

    @property
    def is_read(self) -> bool:
        return self.operation in ("get_item", "query", "scan")

    @property
    def read_mode(self) -> str:
        return "strong" if self.consistent and self.index_type != "global" else "eventual"

    @property
    def order_keys(self) -> tuple[tuple[str, str], ...]:
        """(attribute, type) of the keys a query or scan returns its items in the order of, first to last.

        DynamoDB defines the order of a query by its sort key; it leaves open the order of items with equal
        index keys (an index query) and the order of a scan across partitions. blue_nb closes both the same
        way: after the read's own keys come the table's partition key, then its sort key, each in its type's
        order (:func:`sort_value`). A scan reads partition by partition (partition key, then sort key); a
        query in descending order (``forward`` False) is exactly the reverse of its ascending order."""
        (tpk, tsk), (tpt, tst) = self.table_keys, self.table_key_types
        if self.index == "table":          # a query's partition key is one value: its sort key orders it
            out = [(tsk, tst)] if self.operation == "query" else [(tpk, tpt), (tsk, tst)]
        else:
            own = [(self.pk_attr, self.pk_type)] if self.operation == "scan" else []
            out = [*own, (self.sk_attr, self.sk_type), (tpk, tpt), (tsk, tst)]
        seen: dict[str, str] = {}
        for attr, typ in out:
            if attr and attr not in seen:
                seen[attr] = typ
        return tuple(seen.items())

    @property
    def ordered_in_sql(self) -> bool:
        """Whether the stores' SQL returns a query's or scan's items in :attr:`order_keys` order and already
        filtered by the sort-key condition: when every key it orders by is a string (TEXT compares by UTF-8
        bytes, as DynamoDB compares S). Otherwise :func:`~blue_nb.patterns.paging.key_order` filters and
        orders them (numbers numerically, binary by bytes)."""
        return all(t == "S" for _, t in self.order_keys)


def row_values(spec: Spec, entity: str, item: Mapping[str, Any]) -> dict[str, str]:
    """The source-row values an item came from: its key templates parsed back, plus its scalar
    attributes as text. These are the values a pattern's parameters take."""
    row: dict[str, str] = {}
    for attr, value in item.items():
        if isinstance(value, (str, Decimal, bool)) and not isinstance(value, bool):
            row[attr] = str(value)
    for attr, template in spec.entities[entity].templates.items():
        parsed = template.parse(str(item.get(attr, ""))) if attr in item else None
        if parsed:
            row.update(parsed)
    return row


def _typed(value: str, typ: str, where: str) -> Any:
    if typ == "N":
        return validate_number(value, where)
    if typ == "B":
        return value.encode("utf-8")
    return value


def bind(spec: Spec, pattern: AccessPattern | str, params: Mapping[str, Any] | None = None) -> KeyRequest:
    """Render a pattern's key condition with ``params``; every missing parameter is named at once."""
    p = spec.pattern(pattern) if isinstance(pattern, str) else pattern
    unknown = [n for n in (params or {}) if n not in p.parameters]
    if unknown:
        close = difflib.get_close_matches(str(unknown[0]), p.parameters, n=1)
        raise QueryError(f"pattern {p.name!r} has no parameter {', '.join(map(repr, unknown))}",
                         where=f"access_patterns.{p.name}",
                         hint=(f"did you mean {close[0]!r}? " if close else "") + "its parameters: "
                         + (", ".join(p.parameters) or "none (remove the parameters)"))
    params = {k: v for k, v in (params or {}).items() if v is not None and v != ""}
    missing = [n for n in p.parameters if n not in params]
    if missing:
        raise QueryError(f"pattern {p.name!r} needs {', '.join(missing)}", where=f"access_patterns.{p.name}",
                         hint="give " + " ".join(f"--param {n}=VALUE" for n in missing))
    index = spec.table.indexes.get(p.index) if p.index != "table" else None
    pk_attr, sk_attr = spec.key_attributes(p.index)
    t = spec.table
    pk_type = index.partition_key_type if index is not None and index.type == "global" else t.partition_key_type
    sk_type = index.sort_key_type if index is not None else t.sort_key_type
    paths = tuple(parse_path(t) for t in p.projection)
    select = resolve_select(p.select, index is not None, paths)
    held = index_attributes((*spec.key_attributes(p.index), t.partition_key, t.sort_key),
                            projection_of(index)) if index is not None else None
    base = dict(pattern=p.name, operation=p.operation, table=spec.table_name, index=p.index,
                index_type=index.type if index is not None else "table", pk_attr=pk_attr, sk_attr=sk_attr,
                pk_type=pk_type, sk_type=sk_type, limit=p.limit, forward=p.scan_forward,
                consistent=p.consistent_read, projection=projection_of(index),
                table_keys=(t.partition_key, t.sort_key), table_key_types=(t.partition_key_type, t.sort_key_type),
                params=dict(params), select=select, paths=paths,
                fetch=needs_fetch(index.type if index is not None else "table", select, paths, held))
    if p.total_segments:
        base.update(segment=_segment(p, params[SEGMENT_PARAMETER]), total_segments=p.total_segments)
    kc = p.key_condition
    if kc is None:
        if p.filter is not None:
            base.update(filter=p.filter.tree, filter_values=_filter_values(p, params))
        return KeyRequest(**base)
    where = f"access_patterns.{p.name}.key_condition"
    try:
        pk_value = _typed(kc.pk_template.render(params, where), pk_type, where)
        sk_values = tuple(_typed(tp.render(params, where), sk_type, where) for tp in kc.sk_templates)
    except (TemplateError, ItemError) as e:
        raise QueryError(e.msg, where=e.where, hint=e.hint, cause=e) from e
    sk_op = SK_OPS.get(kc.sk_op or "")
    refused = refusal(pk_attr=pk_attr, pk_type=pk_type, pk_value=pk_value, sk_attr=sk_attr, sk_type=sk_type,
                      sk_op=sk_op, sk_values=sk_values, shown=[next(iter(to_wire(v).values())) for v in sk_values])
    if refused is not None:
        shown = ", ".join(f"{n}={short(str(v), 40)!r}" for n, v in params.items())
        raise QueryError(f"DynamoDB refuses {p.name} with {shown or 'no parameters'}: {refused.text}", where=where,
                         hint=refused.hint)
    if p.filter is not None:                     # DynamoDB checks the key condition first, then the filter
        base.update(filter=p.filter.tree, filter_values=_filter_values(p, params))
    if p.update is not None:
        base.update(update=tuple(parse_update(p.update.expression)),
                    update_values=_filter_values(p, params, "update"))
    if p.condition is not None:
        base.update(condition=p.condition.tree, condition_values=_filter_values(p, params, "condition"),
                    return_old_on_failure=p.return_values_on_condition_check_failure == "ALL_OLD")
    return KeyRequest(**base, pk_value=pk_value, sk_op=sk_op, sk_values=sk_values)


def _segment(p: AccessPattern, text: Any) -> int:
    """A parallel scan's Segment from its parameter, refused in DynamoDB's words out of 0 .. TotalSegments - 1."""
    where = f"access_patterns.{p.name}.total_segments"
    try:
        segment = int(str(text))
    except ValueError:
        raise QueryError(f"the Segment of {p.name} is a whole number, not {text!r}", where=where,
                         hint=f"give --param segment=N with N from 0 to {p.total_segments - 1}") from None
    if not 0 <= segment < p.total_segments:
        raise QueryError(f"DynamoDB refuses {p.name}: The Segment parameter is zero-based and must be less than "
                         f"parameter TotalSegments: Segment: {segment} is out of bounds for TotalSegments: "
                         f"{p.total_segments}", where=where, hint=f"give a segment from 0 to {p.total_segments - 1}")
    return segment


_SET_OF = {"SS": "S", "NS": "N", "BS": "B"}


def _filter_value(value: Any, params: Mapping[str, Any], where: str) -> Any:
    """One of a filter's ``values`` as the Python value it binds to (strings are key templates)."""
    if isinstance(value, dict):
        (tag, body), = value.items()
        if tag in _SET_OF:
            return {_filter_value({_SET_OF[tag]: b}, params, where) for b in body}
        if tag in ("BOOL", "NULL"):
            return body if tag == "BOOL" else None
        text = KeyTemplate(body, where).render(params, where)
        return _typed(text, tag, where)
    if isinstance(value, str):
        return KeyTemplate(value, where).render(params, where)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return validate_number(str(value), where)
    return value


def _filter_values(p: AccessPattern, params: Mapping[str, Any], field: str = "filter") -> dict[str, Any]:
    """The values of the pattern's filter (or ``field="condition"``: its write condition) bound to ``params``;
    a condition DynamoDB refuses with them, in its words."""
    expr = getattr(p, field)
    assert expr is not None
    kind = {"filter": "FilterExpression", "condition": "ConditionExpression"}.get(field, "UpdateExpression")
    where = f"access_patterns.{p.name}.{field}.values"
    try:
        out = {n: _filter_value(v, params, f"{where}.{n}") for n, v in expr.values.items()}
    except (TemplateError, ItemError) as e:      # a parameter missing, or not a number where one is needed
        raise QueryError(e.msg, where=e.where, hint=e.hint, cause=e) from e
    for node in (condition_nodes(expr.tree) if field != "update" else ()):
        refused = _filter_refusal(node, out)
        if refused:
            raise QueryError(f"DynamoDB refuses {p.name}: Invalid {kind}: {refused}",
                             where=f"access_patterns.{p.name}.{field}", hint=f"change the {field} or its values")
    return out


def _shown_value(v: Any) -> str:
    (tag, body), = to_wire(v).items()
    return f"{{{tag}:{body}}}"


def _filter_refusal(node: Any, values: Mapping[str, Any]) -> str | None:
    """DynamoDB's words for a part of a condition it refuses with these values, or None."""
    def bound(o: Any) -> Any:
        return values[o.name] if isinstance(o, Value) else None

    if isinstance(node, Function) and node.name == "begins_with" and isinstance(node.args[1], Value):
        tag = next(iter(to_wire(bound(node.args[1]))))
        if tag not in ("S", "B"):
            return f"Incorrect operand type for operator or function; operator or function: begins_with, operand type: {tag}"
    if isinstance(node, Function) and node.name == "attribute_type":
        v = bound(node.args[1])
        tag = next(iter(to_wire(v)))
        if tag != "S":
            return f"Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {tag}"
        if v not in ATTRIBUTE_TYPES:
            return f"Invalid attribute type name found; type: {v}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
    if isinstance(node, Between) and isinstance(node.low, Value) and isinstance(node.high, Value):
        low, high = bound(node.low), bound(node.high)
        lt, ht = next(iter(to_wire(low))), next(iter(to_wire(high)))
        shown = f"lower bound operand: AttributeValue: {_shown_value(low)}, upper bound operand: AttributeValue: {_shown_value(high)}"
        if lt != ht:
            return f"The BETWEEN operator requires same data type for lower and upper bounds; {shown}"
        if lt in ("S", "N", "B") and sort_value(low) > sort_value(high):
            return f"The BETWEEN operator requires upper bound to be greater than or equal to lower bound; {shown}"
    return None


def projection_of(index) -> Any:
    if index is None:
        return "all"
    return tuple(index.projection) if isinstance(index.projection, list) else index.projection


def sort_value(value: Any) -> Any:
    """A key value in DynamoDB's order: strings by UTF-8 bytes, numbers numerically, binary by bytes."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return Decimal(value)


def sk_matches(req: KeyRequest, value: Any) -> bool:
    """Does a sort-key value satisfy the request's sort-key condition?"""
    if req.sk_op is None:
        return True
    if value is None:
        return False
    v, ops = sort_value(value), [sort_value(x) for x in req.sk_values]
    if req.sk_op == "begins_with":
        return v.startswith(ops[0]) if isinstance(v, bytes) else False
    if req.sk_op == "between":
        return ops[0] <= v <= ops[1]
    return COMPARISONS[req.sk_op].test(v, ops[0])


def prefix_successor(prefix: str) -> str | None:
    """The smallest string greater than every string that starts with ``prefix`` (UTF-8 order), or None."""
    chars = list(prefix)
    while chars:
        c = ord(chars.pop()) + 1
        if c == 0xD800:
            c = 0xE000
        if c <= 0x10FFFF:
            return "".join(chars) + chr(c)
    return None


