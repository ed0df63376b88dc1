"""Source rows for items of a given spec: the JSON line of each item's row (its key templates parsed
back into placeholder values, plus its declared attributes), proven by rebuilding the item from it
with :class:`~blue_nb.items.ItemBuilder`. A Workbench import writes these, so that ``blue-nb load``
with the imported spec rebuilds exactly the model's sample items.

``rows = SpecRows(spec)``; ``text = rows.make(entity, item)`` is the line, or :class:`~.infer_rows.RowLost`
saying why no row can carry the item: an attribute the entity does not declare, a value of another
type, a key that does not fit its template, or what JSON rows cannot hold (see :mod:`.infer_rows`,
whose :func:`~.infer_rows.proven_row` is the one check of a row).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from blue_nb.imports.infer_rows import RowLost, checked_value, proven_row
from blue_nb.items import ItemBuilder
from blue_nb.items.values import number_text
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
        return proven_row(self.builder, e, row, item)
