"""Rows -> items: a source row becomes one DynamoDB item by the spec's key templates.

An item holds the table key attributes rendered from their templates, the index key attributes
whose placeholders all have values (an index key with a missing value leaves the item out of
that index: a sparse index), and the entity's declared attributes converted to their DynamoDB
types. Items are Python values as boto3's TypeDeserializer returns them (str, Decimal, bytes,
bool, None, list, dict, set).
"""

from __future__ import annotations

import base64
import binascii
import json
from decimal import Decimal
from typing import Any, Iterable, Iterator, Mapping

from blue_nb.errors import ItemError, SourceError, TemplateError
from blue_nb.spec import Entity, Spec
from blue_nb.items.values import validate_number

__all__ = ["ItemBuilder", "coerce_attribute", "plain_to_value", "loads_json", "MISSING", "MAX_NESTING",
           "MAX_NUMBER_CHARS"]

MISSING = object()
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}
_NULL = {"true", "null", "1"}
# DynamoDB nests lists and maps at most 32 levels deep; deeper data is refused before it is
# converted (and long before Python's recursion limit).
MAX_NESTING = 32
# The longest JSON number literal read: a DynamoDB number has at most 38 significant digits and
# an exponent within 1E-130..1E+126, so every valid one, even written out with its zeros, fits;
# a longer one is refused before int()/Decimal() spend seconds (or memory) on a million digits.
MAX_NUMBER_CHARS = 400
_CELL_HINT = "lists, maps and sets in a CSV cell are written as JSON"


class _Refused(ValueError):
    """A JSON value refused by a parse hook (a number too long, NaN, a repeated key)."""


def _number(kind):
    def parse(text: str):
        if len(text) > MAX_NUMBER_CHARS:
            raise _Refused(f"a number of {len(text):,} characters (DynamoDB numbers hold at most 38 digits)")
        return kind(text)
    return parse


def _constant(name: str):
    raise _Refused(f"{name} is not a number DynamoDB stores")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Refused(f"key {k!r} appears twice in one object (the second would silently replace the first)")
        out[k] = v
    return out


def loads_json(text: str, where: str, *, ints: Any = Decimal, max_depth: int = MAX_NESTING, label: str = "",
               hint: str = _CELL_HINT) -> Any:
    """Parse JSON with bounds: numbers as ``Decimal`` (integers as ``ints``), no NaN/Infinity, no
    repeated keys, at most ``max_depth`` levels of lists and maps. Raises a located ItemError."""
    what = f"{label} is not JSON" if label else "not valid JSON"
    try:
        value = json.loads(text, parse_float=_number(Decimal), parse_int=_number(ints), parse_constant=_constant,
                           object_pairs_hook=_pairs)
    except json.JSONDecodeError as e:
        raise ItemError(f"{what}: {e.msg} (column {e.colno})", where=where, hint=hint, cause=e) from e
    except _Refused as e:
        raise ItemError(f"{what}: {e}", where=where, hint=hint, cause=e) from e
    except RecursionError as e:
        raise ItemError(f"{what}: nested deeper than {max_depth} levels", where=where,
                        hint=f"DynamoDB nests lists and maps at most {MAX_NESTING} levels deep", cause=e) from e
    _check_document(value, where, max_depth, numbers=False)
    return value


def _check_document(value: Any, where: str, max_depth: int = MAX_NESTING, numbers: bool = True) -> None:
    """Lists and maps at most ``max_depth`` deep; with ``numbers``, every number valid for DynamoDB.
    Iterative: a hostile depth never reaches Python's recursion limit."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            children: Iterable = v.values()
        elif isinstance(v, list):
            children = v
        else:
            if numbers and isinstance(v, Decimal):
                validate_number(v, where)
            continue
        if depth > max_depth:
            raise ItemError(f"value nested deeper than {max_depth} levels of lists and maps", where=where,
                            hint=f"DynamoDB nests lists and maps at most {MAX_NESTING} levels deep: flatten the value")
        stack.extend((c, depth + 1) for c in children)


def _json(value: str, where: str) -> Any:
    return loads_json(value, where, label=f"value {value[:60]!r}")


def _bytes(value: Any, where: str) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if not isinstance(value, str):
        raise ItemError(f"expected base64 text for a binary value, got {_kind(value)} {_show(value)}", where=where,
                        hint="binary values in source files are written as base64")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ItemError(f"value {value[:60]!r} is not base64 ({e})", where=where,
                        hint="binary values in source files are written as standard base64 (A-Z a-z 0-9 + /, padded "
                             "with =)", cause=e) from e


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, Mapping):
        return "a map"
    if isinstance(value, (list, tuple, set, frozenset)):
        return "a list"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes"
    if isinstance(value, (int, float, Decimal)):
        return "a number"
    return "a string" if isinstance(value, str) else type(value).__name__


def _show(value: Any) -> str:
    text = str(value) if isinstance(value, (Decimal, int)) and not isinstance(value, bool) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def plain_to_value(value: Any) -> Any:
    """A plain JSON/Python value -> the DynamoDB Python value model (numbers become Decimal)."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, bytes, Decimal)):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, Mapping):
        return {str(k): plain_to_value(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return {plain_to_value(v) for v in value}
    if isinstance(value, (list, tuple)):
        return [plain_to_value(v) for v in value]
    if hasattr(value, "tolist"):                     # numpy scalars and arrays from Parquet
        return plain_to_value(value.tolist())
    if hasattr(value, "isoformat"):                  # dates and timestamps
        return value.isoformat()
    return str(value)


def _set(value: Any, dtype: str, where: str) -> set:
    """A set value: a non-empty list of distinct elements of the set's type (DynamoDB rejects an
    empty set and a set with a repeated element; numbers repeat when numerically equal)."""
    if isinstance(value, str):
        value = _json(value, where) if value.lstrip().startswith("[") else [value]
    if not isinstance(value, (list, tuple, set, frozenset)) and hasattr(value, "tolist"):
        value = value.tolist()
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise ItemError(f"expected a list of set elements, got {_kind(value)} {_show(value)}", where=where,
                        hint=f"write a {dtype} value as a JSON list, e.g. [\"a\", \"b\"]")
    if not value:
        raise ItemError(f"empty {dtype} set: DynamoDB rejects a set with no elements", where=where,
                        hint="leave the cell empty (or the field out, or null) to store no attribute")
    seen: dict[Any, int] = {}
    for i, raw in enumerate(value, 1):
        if dtype == "SS":
            if not isinstance(raw, str):
                raise ItemError(f"element {i} of the SS set is {_kind(raw)} {_show(raw)}, not a string", where=where,
                                hint="write string set elements as JSON strings, or declare the attribute NS/L")
            element: Any = raw
        elif dtype == "NS":
            element = validate_number(raw if isinstance(raw, (str, Decimal, int)) else repr(raw), where)
        else:
            element = _bytes(raw, where)
        if element in seen:
            first = value[seen[element] - 1] if isinstance(value, (list, tuple)) else raw
            same = f" ({_show(first)} and {_show(raw)} are equal numbers)" if dtype == "NS" and str(first) != str(raw) else ""
            raise ItemError(f"{dtype} set holds {_show(raw)} twice (elements {seen[element]} and {i}){same}",
                            where=where, hint="DynamoDB rejects a set with a repeated element: remove the repeat")
        seen[element] = i
    return set(seen)


def coerce_attribute(value: Any, dtype: str, where: str = "") -> Any:
    """Convert a source value to the declared DynamoDB type; MISSING when the row has no value.
    A value that does not convert (N from "abc", BOOL from "maybe", a map for S) is an ItemError."""
    if value is None or (isinstance(value, str) and value == "" and dtype != "S"):
        return MISSING
    if hasattr(value, "item") and not isinstance(value, (str, bytes)) and not hasattr(value, "__len__"):
        value = value.item()                         # numpy scalar
    if dtype == "S":
        if isinstance(value, str):
            return value
        if isinstance(value, (bool, Mapping, list, tuple, set, frozenset, bytes, bytearray, memoryview)):
            raise ItemError(f"expected a string, got {_kind(value)} {_show(value)}", where=where,
                            hint="declare the attribute with the type of its values (M, L, BOOL, B), or write the "
                                 "value as a string")
        return str(plain_to_value(value))
    if dtype == "N":
        return validate_number(value if isinstance(value, (str, Decimal, int)) and not isinstance(value, bool)
                               else repr(value), where)
    if dtype == "B":
        return _bytes(value, where)
    if dtype == "BOOL":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        raise ItemError(f"value {_show(value)} is not a boolean", where=where, hint="use true/false (or 1/0)")
    if dtype == "NULL":
        if value is True or (isinstance(value, str) and value.strip().lower() in _NULL):
            return None
        raise ItemError(f"value {_show(value)} is not null", where=where,
                        hint="a NULL attribute is written true (or null); leave the cell empty to store no attribute")
    if dtype in ("L", "M"):
        v = plain_to_value(_json(value, where) if isinstance(value, str) else value)
        if not isinstance(v, list if dtype == "L" else dict):
            raise ItemError(f"expected a {'list' if dtype == 'L' else 'map'}, got {_kind(v)} {_show(value)}",
                            where=where, hint=_CELL_HINT)
        _check_document(v, where)
        return v
    return _set(value, dtype, where)


class ItemBuilder:
    """Turns rows of an entity's source into items."""

    def __init__(self, spec: Spec):
        self.spec = spec
        t = spec.table
        self._table_keys = [k for k in (t.partition_key, t.sort_key) if k]
        self._key_types = {t.partition_key: t.partition_key_type}
        if t.sort_key:
            self._key_types[t.sort_key] = t.sort_key_type
        for idx in t.indexes.values():
            for attr, typ in ((idx.partition_key, idx.partition_key_type), (idx.sort_key, idx.sort_key_type)):
                if attr:
                    self._key_types.setdefault(attr, typ)

    def entities_for_source(self, source: str) -> list[Entity]:
        return [e for e in self.spec.entities.values() if (e.source or e.name) == source]

    def _key_value(self, attr: str, rendered: str, where: str) -> Any:
        if rendered == "":
            raise ItemError(f"key attribute {attr!r} renders to an empty string", where=where,
                            hint="DynamoDB rejects empty key values; give the row a value")
        typ = self._key_types.get(attr, "S")
        if typ == "N":
            return validate_number(rendered, where)
        if typ == "B":
            return rendered.encode("utf-8")
        return rendered

    @staticmethod
    def _key_inputs(entity: Entity, attr: str, row: Mapping[str, Any], where: str) -> None:
        """A table key needs every placeholder: say which one the row lacks, and whether the row
        has no such column at all or an empty (or null) value in it."""
        template = entity.templates[attr]
        fix = f"DynamoDB rejects items without a key value: give every {entity.name} row a value for"
        for name in template.placeholders:
            if name not in row:
                raise ItemError(f"key {attr} {template.text!r} needs {name}, and the row has no {name!r} column",
                                where=where, hint=f"add a {name} column to the source, or change "
                                f"entities.{entity.name}.key.{attr}")
            value = row[name]
            if value is None or (isinstance(value, str) and value == ""):
                state = "null" if value is None else "empty"
                raise ItemError(f"key {attr} {template.text!r} needs {name}, which is {state} in this row",
                                where=f"{where} {name}".strip(), hint=f"{fix} {name}")

    def build(self, entity: Entity, row: Mapping[str, Any], where: str = "") -> dict[str, Any]:
        """One row -> one item. Raises SourceError naming the row and the attribute."""
        item: dict[str, Any] = {}
        try:
            for attr, template in entity.templates.items():
                rendered = template.render_plain(row)              # the common row: the key, fast
                if rendered is not None:
                    item[attr] = self._key_value(attr, rendered, where)
                elif attr in self._table_keys:
                    self._key_inputs(entity, attr, row, where)
                    item[attr] = self._key_value(attr, template.render(row, where), where)
                else:
                    rendered = template.render_optional(row, where)
                    if rendered is not None:
                        item[attr] = self._key_value(attr, rendered, where)
            for attr, dtype in entity.attributes.items():
                value = coerce_attribute(row.get(attr), dtype, f"{where} {attr}".strip())
                if value is not MISSING:
                    item[attr] = value
        except (TemplateError, ItemError) as e:
            raise SourceError(f"{entity.name}: {e.msg}", where=e.where or where, hint=e.hint, cause=e) from e
        return item

    def items(self, entity: Entity, rows: Iterable[tuple[str, Mapping[str, Any]]]) -> Iterator[dict[str, Any]]:
        """(where, row) pairs -> items; see :meth:`located`."""
        for _, item in self.located(entity, rows):
            yield item

    def located(self, entity: Entity, rows: Iterable[tuple[str, Mapping[str, Any]]]) -> Iterator[tuple[str, dict]]:
        """(where, row) pairs -> (where, item) pairs. No rows at all is an error unless the entity allows it
        (``allow_empty``): an empty file read in replace mode would delete every item of the entity."""
        n = 0
        for where, row in rows:
            item = self.build(entity, row, where)            # a key column missing is reported first
            if n == 0 and getattr(rows, "every_column", False):
                self._check_columns(entity, row, rows.path)
            n += 1
            yield where, item
        if n == 0 and not entity.allow_empty:
            path = getattr(rows, "path", None)           # sources.files.Rows names its file
            name = getattr(path, "name", None) or "the source"
            raise SourceError(
                f"{name} holds no rows, so there would be no {entity.name} items (a replace load would delete every "
                f"{entity.name} item in the store)", where=str(path or f"entities.{entity.name}.source"),
                hint=f"add the rows to {name}; or, if {entity.name} is meant to be empty, set "
                     f"entities.{entity.name}.allow_empty: true in the spec")

    @staticmethod
    def _check_columns(entity: Entity, row: Mapping[str, Any], path: Any) -> None:
        """A file whose rows hold every column (CSV) must have a column for each declared attribute:
        otherwise the attribute would be left out of every item without a word."""
        missing = [a for a in entity.attributes if a not in row]
        if missing:
            raise SourceError(f"{', '.join(map(repr, missing))} declared for {entity.name} but not a column of the file",
                              where=f"{path}:1", hint=f"add the column(s) to the header (an empty cell leaves the "
                              f"attribute out of that item), or remove them from entities.{entity.name}.attributes")
