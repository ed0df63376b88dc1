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

__all__ = ["ItemBuilder", "coerce_attribute", "plain_to_value", "MISSING"]

MISSING = object()
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


def _json(value: Any, where: str) -> Any:
    try:
        return json.loads(value, parse_float=Decimal, parse_int=Decimal)
    except json.JSONDecodeError as e:
        raise ItemError(f"value {value[:60]!r} is not JSON", where=where,
                        hint="lists, maps and sets in a CSV cell are written as JSON", cause=e) from e


def _bytes(value: Any, where: str) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError) as e:
        raise ItemError(f"value {str(value)[:60]!r} is not base64", where=where,
                        hint="binary values in source files are written as base64", cause=e) from e


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


def _set(value: Any, where: str) -> list:
    if isinstance(value, str):
        value = _json(value, where) if value.lstrip().startswith("[") else [value]
    if not isinstance(value, (list, tuple, set, frozenset)) and hasattr(value, "tolist"):
        value = value.tolist()
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise ItemError(f"expected a list of set elements, got {value!r}", where=where)
    return list(value)


def coerce_attribute(value: Any, dtype: str, where: str = "") -> Any:
    """Convert a source value to the declared DynamoDB type; MISSING when the row has no value."""
    if value is None or (value == "" and dtype != "S"):
        return MISSING
    if hasattr(value, "item") and not isinstance(value, (str, bytes)) and not hasattr(value, "__len__"):
        value = value.item()                         # numpy scalar
    if dtype == "S":
        return value if isinstance(value, str) else str(plain_to_value(value))
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
        raise ItemError(f"value {value!r} is not a boolean", where=where, hint="use true/false (or 1/0)")
    if dtype == "NULL":
        return None
    if dtype in ("L", "M"):
        v = _json(value, where) if isinstance(value, str) else value
        v = plain_to_value(v)
        if not isinstance(v, list if dtype == "L" else dict):
            raise ItemError(f"expected a {'list' if dtype == 'L' else 'map'}, got {value!r}", where=where)
        return v
    elements = _set(value, where)
    if dtype == "SS":
        return {str(e) for e in elements}
    if dtype == "NS":
        return {validate_number(e if isinstance(e, (str, Decimal, int)) else repr(e), where) for e in elements}
    return {_bytes(e, where) for e in elements}


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
        typ = self._key_types.get(attr, "S")
        if typ == "N":
            return validate_number(rendered, where)
        if typ == "B":
            return rendered.encode("utf-8")
        if rendered == "":
            raise ItemError(f"key attribute {attr!r} renders to an empty string", where=where,
                            hint="DynamoDB rejects empty key values; give the row a value")
        return rendered

    def build(self, entity: Entity, row: Mapping[str, Any], where: str = "") -> dict[str, Any]:
        """One row -> one item. Raises SourceError naming the row and the attribute."""
        item: dict[str, Any] = {}
        try:
            for attr, template in entity.templates.items():
                if attr in self._table_keys:
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
        """(where, row) pairs -> items."""
        for where, row in rows:
            yield self.build(entity, row, where)
