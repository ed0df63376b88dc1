"""A NoSQL Workbench model checked as strictly as an S3 export, before anything is made of it.

:func:`parse_model` reads the JSON text: nesting deeper than :data:`MAX_JSON_DEPTH` is refused at its
line (never a ``RecursionError``), and a name given twice in one object (an item's attribute, a
table's key) is refused with both values and the place, where ``json`` would keep the last one
silently. :func:`check_tables` then checks each table as read: every item's key attributes (the
table's and each index's) have the declared type, no item is over DynamoDB's 400 KB, and each
index's key attributes are defined somewhere (a key of the table, a declared attribute, a facet's
attribute or an item's).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, Iterable

from blue_nb.errors import ItemError, SourceError
from blue_nb.sizing import MAX_ITEM_BYTES, item_size

__all__ = ["MAX_JSON_DEPTH", "check_tables", "parse_model"]

#: a model's own structure takes about 8 levels, an item's values at most 32 more (DynamoDB's limit)
MAX_JSON_DEPTH = 64
_HINT = "export the model again from NoSQL Workbench (File > Export), or fix the JSON at that place"
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_TYPES = {"S": (str,), "N": (int, Decimal), "B": (bytes, bytearray)}


class _Twice(dict):
    """An object whose JSON text gave a name twice: the name and both values."""

    twice: tuple[str, Any, Any]


def parse_model(text: str, source: str) -> Any:
    """The model's JSON (floats as Decimal); too deep a nesting, or a name given twice, is a SourceError."""
    _check_depth(text, source)
    try:
        data = json.loads(text, parse_float=Decimal, object_pairs_hook=_pairs)
    except json.JSONDecodeError as e:
        raise SourceError(f"not valid JSON: {e.msg}", where=f"{source}:{e.lineno}:{e.colno}", hint=_HINT,
                          cause=e) from e
    _find_twice(data, source)
    return data


def _check_depth(text: str, source: str) -> None:
    depth = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                line = text.count("\n", 0, m.start()) + 1
                raise SourceError(f"the JSON is nested deeper than {MAX_JSON_DEPTH} levels (a model takes about 8, "
                                  "an item's values at most 32 more: DynamoDB's limit)",
                                  where=f"{source}:{line}", hint="flatten the value there, or " + _HINT)
        elif c in "]}":
            depth -= 1


def _pairs(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out and not isinstance(out, _Twice):
            first = out[k]
            out = _Twice(out)
            out.twice = (k, first, v)
        out[k] = v
    return out


def _find_twice(data: Any, source: str) -> None:
    """Walk the parsed JSON (without recursion) for an object that gave a name twice; say where."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _Twice):
            name, first, second = value.twice
            shown = [json.dumps(v, default=str, ensure_ascii=False)[:60] for v in (first, second)]
            raise SourceError(f"{name!r} is given twice in one object ({shown[0]}, then {shown[1]}): JSON readers "
                              "keep one of them silently", where=f"{source}: {path or 'the top'}",
                              hint=f"keep one {name!r} in that object")
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))


def check_tables(tables: Iterable[Any], source: str) -> None:
    """Each table as read (:class:`blue_nb.imports.workbench_spec.ModelTable`): key types, item sizes,
    index attributes (module docstring)."""
    for t in tables:
        keys = {t.partition_key: (t.partition_key_type, "the table's partition key")}
        if t.sort_key:
            keys[t.sort_key] = (t.sort_key_type, "the table's sort key")
        for ix in t.indexes.values():
            for name, typ, role in ((ix.partition_key, ix.partition_key_type, "partition key"),
                                    (ix.sort_key, ix.sort_key_type, "sort key")):
                if name:
                    keys.setdefault(name, (typ, f"index {ix.name}'s {role}"))
        _indexes_defined(t, source)
        for _, item, where in t.items:
            _item_keys(item, keys, where)
            _item_size(item, where, t.key_names)


def _item_keys(item: dict[str, Any], keys: dict[str, tuple[str, str]], where: str) -> None:
    for name, (typ, role) in keys.items():
        if name not in item:
            continue
        value = item[name]
        if not isinstance(value, _TYPES[typ]) or isinstance(value, bool):
            raise SourceError(f"{name} is {_type_of(value)} here ({str(value)[:60]!r}), but it is {role}, declared "
                              f"{typ}: DynamoDB refuses the item", where=f"{where}.{name}",
                              hint=f"write it as {{{typ!r}: ...}}, or declare the key's AttributeType as it is")


def _type_of(value: Any) -> str:
    for tag, kinds in _TYPES.items():
        if isinstance(value, kinds) and not isinstance(value, bool):
            return tag
    return type(value).__name__


def _item_size(item: dict[str, Any], where: str, key_names: tuple[str, ...]) -> None:
    try:
        size = item_size(item)
    except ItemError as e:
        raise SourceError(f"bad item: {e.msg}", where=where, hint=e.hint or _HINT, cause=e) from e
    if size > MAX_ITEM_BYTES:
        key = ", ".join(f"{k}={str(item.get(k))[:40]!r}" for k in key_names)
        raise SourceError(f"the item ({key}) is {size:,} bytes, over DynamoDB's item limit of {MAX_ITEM_BYTES:,} "
                          "bytes (400 KB): DynamoDB refuses it", where=where,
                          hint="move large values to S3 and keep a pointer, or split the item")


def _indexes_defined(t: Any, source: str) -> None:
    known = set(t.key_names) | set(t.attribute_types)
    for _, _, _, attrs in t.facets:
        known.update(attrs)
    for _, item, _ in t.items:
        known.update(item)
    for ix in t.indexes.values():
        for role, name in (("partition key", ix.partition_key), ("sort key", ix.sort_key)):
            if name and name not in known:
                raise SourceError(f"index {ix.name}'s {role} {name!r} is defined nowhere: not a key of the table, "
                                  "not in NonKeyAttributes, in no facet and in no item", where=f"{source}: {t.name}",
                                  hint=f"add {name!r} to the table's NonKeyAttributes (with its type), or fix the "
                                       "index's KeyAttributes")
