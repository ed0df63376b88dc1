"""Source rows for items of a given spec: the JSON line of each item's row (its key templates parsed
back into placeholder values, plus its declared attributes), proven by rebuilding the item from it
with :class:`~blue_nb.items.ItemBuilder`. A Workbench import writes these, so that ``blue-nb load``
with the imported spec rebuilds exactly the model's sample items.

``rows = SpecRows(spec)``; ``text = rows.row(entity, item)`` is the line, or None when no row can
carry the item (the reason is counted in :attr:`SpecRows.lost`: an attribute the entity does not
declare, a value of another type, a key that does not fit its template, or what JSON rows cannot
hold, see :mod:`.infer_rows`).
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

from blue_nb.errors import BlueNbError
from blue_nb.imports.infer_rows import RowLost, checked_value, encode_row
from blue_nb.items import ItemBuilder
from blue_nb.items.build import MAX_NESTING, loads_json
from blue_nb.items.values import item_to_wire, number_text
from blue_nb.spec import Spec

__all__ = ["SpecRows"]


def _key_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Decimal):
        return number_text(value)
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise RowLost("a binary key that is not UTF-8 text") from None
    raise RowLost("a key value that is not S, N or B")


class SpecRows:
    """Makes and proves the rows of items of ``spec``'s entities."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.builder = ItemBuilder(spec)
        self.lost: Counter[str] = Counter()

    def row(self, entity: str, item: dict[str, Any]) -> str | None:
        """The JSON line of ``item``'s row as an ``entity`` row, or None (counted in :attr:`lost`)."""
        try:
            return self.make(entity, item)
        except RowLost as e:
            self.lost[str(e)] += 1
            return None

    def make(self, entity: str, item: dict[str, Any]) -> str:
        """The JSON line of ``item``'s row as an ``entity`` row; raises :class:`~.infer_rows.RowLost` saying
        why no row carries it (nothing counted)."""
        e = self.spec.entities[entity]
        row: dict[str, Any] = {}
        for attr, value in item.items():
            if attr in e.key:
                continue
            row[attr] = checked_value(attr, value, e.attributes.get(attr), "for the entity")
        for attr, template in e.templates.items():
            if attr not in item:
                continue
            values = template.parse(_key_string(item[attr]))
            if values is None:
                raise RowLost(f"key {attr!r} does not fit its template")
            for name, text in values.items():
                row.setdefault(name, text)
        try:
            text = encode_row(row)
            parsed = loads_json(text, entity, ints=int, max_depth=MAX_NESTING + 1)
            rebuilt = self.builder.build(e, parsed)
        except BlueNbError as err:
            raise RowLost(f"the row does not build the item ({err.msg[:80]})") from err
        except ValueError as err:              # RowLost from encode_row (what JSON rows cannot hold), or a build's
            raise RowLost(str(err)) from err
        if item_to_wire(rebuilt) != item_to_wire(item):
            raise RowLost("the item built from the row differs")
        return text
