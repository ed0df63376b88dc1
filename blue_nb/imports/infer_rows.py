"""Items back to source rows for an inferred spec: the JSON Lines row of each item, proven by
rebuilding the item from it.

``rows = RowMaker(draft)``; ``entity, text = rows.assign(item)`` for every item: the entity the
item belongs to and the JSON line of its row (placeholder values and attributes), such that
``blue-nb load`` with the draft spec rebuilds exactly this item. Items that fit no entity go to
the catch-all entity; once every item was assigned, ``rows.settle()`` declares its attributes
from those items and ``rows.catch_all_row(item)`` makes their rows. Each row is checked by doing just that: the text
is parsed as the JSONL reader parses it and the item is built with the spec's key templates
(:class:`~blue_nb.items.ItemBuilder`); an item that does not come back identical goes to the
catch-all entity, and one that fails there too (``text`` None) is counted as not carried, with
the reason (:attr:`RowMaker.lost`).

What JSON rows cannot carry: binary values and sets *inside* lists and maps (JSON has neither;
top-level binary is base64 and top-level sets are lists, by the declared type), an empty binary
value (an empty cell means "no attribute"), binary key values that are not UTF-8 text, and
attribute names that a spec cannot declare (with whitespace, or over 255 bytes).
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, Iterable

from blue_nb.errors import BlueNbError
from blue_nb.imports.infer import ATTR_NAME, MAX_ATTRIBUTES, Draft, EntityPlan, type_tag
from blue_nb.imports.infer_shapes import SEP, template_text
from blue_nb.items import ItemBuilder
from blue_nb.items.build import MAX_NESTING, loads_json
from blue_nb.items.values import item_to_wire, number_text

__all__ = ["RowLost", "RowMaker", "RowWriter", "checked_value", "encode_row"]


class RowLost(ValueError):
    """An item the rows of an entity cannot carry (a JSON row cannot hold its value, or the row does not
    rebuild it); the message says why, and is what the import counts the item under."""


def checked_value(attr: str, value: Any, declared: str | None, undeclared: str) -> Any:
    """``value`` of attribute ``attr`` if a row may carry it under its ``declared`` type; else :class:`RowLost`
    (``undeclared`` says why an attribute is not declared)."""
    if declared is None:
        raise RowLost(f"attribute {attr[:40]!r} is not declared ({undeclared})")
    if declared != type_tag(value):
        raise RowLost(f"attribute {attr[:40]!r} has another type than declared")
    return value


def encode_row(row: dict[str, Any]) -> str:
    """One row as a JSON line: numbers as JSON numbers in DynamoDB's exact text (never through float),
    binary as base64, sets as lists, a top-level None (a NULL attribute) as ``true``."""
    return "{" + ",".join(_s(k) + ":" + _value(v, top=True) for k, v in row.items()) + "}"


def _s(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _value(v: Any, top: bool = False) -> str:
    if isinstance(v, str):
        return _s(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "true" if top else "null"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Decimal):
        return number_text(v)
    if isinstance(v, (bytes, bytearray)):
        if not top:
            raise RowLost("binary inside a list or map (JSON rows cannot carry it)")
        if not v:
            raise RowLost("an empty binary value (an empty cell means no attribute)")
        return _s(base64.b64encode(bytes(v)).decode("ascii"))
    if isinstance(v, dict):
        return "{" + ",".join(_s(k) + ":" + _value(x) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_value(x) for x in v) + "]"
    if isinstance(v, (set, frozenset)):
        if not top:
            raise RowLost("a set inside a list or map (JSON rows cannot carry it)")
        elements = sorted(v, key=lambda x: x.encode("utf-8")) if isinstance(next(iter(v)), str) else sorted(v)
        return "[" + ",".join(_s(base64.b64encode(x).decode("ascii")) if isinstance(x, bytes) else _value(x)
                              for x in elements) + "]"
    raise RowLost(f"a {type(v).__name__} value")


class RowMaker:
    """Assigns items to the draft's entities and makes their rows (see the module docstring)."""

    def __init__(self, draft: Draft):
        self.draft = draft
        self.spec = draft.spec()
        self.builder = ItemBuilder(self.spec)
        self.table_keys = {self.spec.table.partition_key, self.spec.table.sort_key} - {None}
        self.other = draft.plans[draft.catch_all]
        self.unmatched = 0                       # items given to the catch-all entity
        self.lost: Counter[str] = Counter()      # reason -> items no row can carry
        self.misfits: Counter[str] = Counter()   # entity -> its items that went to the catch-all
        self._other_types: dict[str, Counter[str]] = {}

    def assign(self, item: dict[str, Any]) -> tuple[str, str | None]:
        """(entity, JSON row) of an item. An item that fits no entity's rows is given to the catch-all
        entity without a row yet: its row comes from :meth:`catch_all_row`, after :meth:`settle`."""
        plan = self.draft.plan_for(item)
        if plan is not None:
            try:
                return plan.name, self._row(plan, item, item_to_wire(item))
            except RowLost:
                self.misfits[plan.name] += 1
        self.unmatched += 1
        for attr, v in item.items():
            if attr not in self.other.shapes:
                types = self._other_types.get(attr)
                if types is None and len(self._other_types) < MAX_ATTRIBUTES:
                    types = self._other_types[attr] = Counter()
                if types is not None:
                    types[type_tag(v)] += 1
        return self.other.name, None

    def settle(self) -> None:
        """Declare the catch-all entity's attributes from the items it was given (call after every
        :meth:`assign`): an attribute of mixed types across entities then keeps the catch-all's own type."""
        attrs = {a: c.most_common(1)[0][0] for a, c in self._other_types.items() if ATTR_NAME.match(a)}
        self.other.attributes = attrs
        self.draft.data["entities"][self.other.name]["attributes"] = dict(attrs)
        self.spec = self.draft.spec()
        self.builder = ItemBuilder(self.spec)

    def catch_all_row(self, item: dict[str, Any]) -> str | None:
        """The catch-all entity's row of an item, or None (counted in :attr:`lost`, with the reason)."""
        try:
            return self._row(self.other, item, item_to_wire(item))
        except RowLost as e:
            self.lost[str(e)] += 1
            return None

    def _row(self, plan: EntityPlan, item: dict[str, Any], wire: dict[str, Any]) -> str:
        row = self._keys(plan, item)
        for attr, v in item.items():
            if attr in plan.shapes or attr in self.table_keys:
                continue
            row[attr] = checked_value(attr, v, plan.attributes.get(attr), "its name cannot be, or too many attributes")
        text = encode_row(row)
        try:
            parsed = loads_json(text, plan.name, ints=int, max_depth=MAX_NESTING + 1)
            rebuilt = self.builder.build(self.spec.entities[plan.name], parsed)
        except BlueNbError as e:
            raise RowLost(f"the row does not build the item ({e.msg[:80]})") from e
        if item_to_wire(rebuilt) != wire:
            raise RowLost("the item built from the row differs")
        return text

    @staticmethod
    def _keys(plan: EntityPlan, item: dict[str, Any]) -> dict[str, Any]:
        row: dict[str, Any] = {}
        for attr, shape in plan.shapes.items():
            if attr not in item:
                continue
            v = item[attr]
            if shape.kind == "const":
                if v != shape.const:
                    raise RowLost("key value differs")
                continue
            if shape.kind == "whole":
                text = template_text(v)
                if text is None:
                    try:
                        text = bytes(v).decode("utf-8")
                    except UnicodeDecodeError:
                        raise RowLost("a binary key that is not UTF-8 text") from None
                _put(row, shape.slots[0].name, text)
                continue
            parts = v.split(SEP) if isinstance(v, str) else []
            if len(parts) != shape.width or any(parts[i] != lit for i, lit in shape.literal.items()):
                raise RowLost("key shape differs")
            for slot in shape.slots:
                text = parts[slot.position]
                if slot.fmt:
                    if not (text.isascii() and text.isdigit() and len(text) == int(slot.fmt[1:-1])):
                        raise RowLost("key part is not a number of the width")
                    _put(row, slot.name, int(text))
                else:
                    _put(row, slot.name, text)
        return row


def _put(row: dict[str, Any], name: str, value: Any) -> None:
    if name in row and row[name] != value:
        raise RowLost("one placeholder with two values")
    row[name] = value


class RowWriter:
    """One JSONL file per entity source in a folder, opened on the first row; counts rows."""

    def __init__(self, folder: str | Path, sources: dict[str, str]):
        self.folder = Path(folder)
        self.sources = sources                 # entity -> source name
        self.files: dict[str, IO[str]] = {}
        self.counts: Counter[str] = Counter()

    def write(self, entity: str, text: str) -> None:
        f = self.files.get(entity)
        if f is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            f = self.files[entity] = (self.folder / f"{self.sources[entity]}.jsonl").open("w", encoding="utf-8")
        f.write(text + "\n")
        self.counts[entity] += 1

    def path(self, entity: str) -> Path:
        return self.folder / f"{self.sources[entity]}.jsonl"

    def write_empty(self, entities: Iterable[str]) -> None:
        """An empty row file for each of ``entities`` that has no row (a load of the rows finds its source)."""
        for entity in entities:
            if not self.counts.get(entity):
                self.folder.mkdir(parents=True, exist_ok=True)
                self.path(entity).write_text("", encoding="utf-8")

    def close(self) -> None:
        for f in self.files.values():
            f.close()

    def __enter__(self) -> "RowWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
