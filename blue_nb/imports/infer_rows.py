"""Items back to source rows for an inferred spec: the JSON Lines row of each item, proven by
rebuilding the item from it; every item gets one, or the import stops naming the item.

``rows = RowMaker(draft)``; ``entity, text = rows.assign(item)`` for every item: the entity the
item belongs to and the JSON line of its row (placeholder values and attributes), such that
``blue-nb load`` with the draft spec rebuilds exactly this item. Items that fit no entity go to
the catch-all entity; once every item was assigned, ``rows.settle()`` declares its attributes
from those items and ``rows.catch_all_row(item, key, where)`` makes their rows. An item whose
attribute has another type than the catch-all declares gets a catch-all entity of its own types
(``Other2``, ...), so that no item is left out for its types. Each row is checked by doing just
what a load does (:func:`proven_row`, the one check the Workbench import's rows pass too): the text
is parsed as the JSONL reader parses it and the item is built with the spec's key templates
(:class:`~blue_nb.items.ItemBuilder`); an item that does not come back identical goes to the
catch-all entity, and one that no row can carry at all stops the import with a
:class:`~blue_nb.errors.SourceError` naming the item's key, what cannot be carried and how to change
the item (:func:`not_carried`).

What JSON rows cannot carry: binary values and sets *inside* lists and maps (JSON has neither;
top-level binary is base64 and top-level sets are lists, by the declared type), an empty binary
value (an empty cell means "no attribute"), binary key values that are not UTF-8 text, and
attribute names that a spec cannot declare (with whitespace, or over 255 bytes).
"""

from __future__ import annotations

import base64
import copy
import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, Iterable

from blue_nb.errors import BlueNbError, SourceError
from blue_nb.imports.infer import ATTR_NAME, MAX_ATTRIBUTES, Draft, EntityPlan, type_tag, unique_name
from blue_nb.imports.infer_shapes import template_text
from blue_nb.items import ItemBuilder
from blue_nb.items.build import MAX_NESTING, loads_json
from blue_nb.items.values import item_to_wire, number_text
from blue_nb.spec import Entity

__all__ = ["MAX_CATCH_ALLS", "RowLost", "RowMaker", "RowWriter", "checked_value", "encode_row", "not_carried",
           "proven_row"]

MAX_CATCH_ALLS = 100        # catch-all entities (one per mix of attribute types); more stops the import
_TYPE_CLASH = "has another type than declared"
#: how to change an item that no row can carry, by the start of the reason (RowLost's message)
_FIXES = (("binary inside", "a row holds binary only as an attribute's whole value (base64): make the binary value "
                            "its own B or BS attribute, or store it as base64 text (S) inside the list or map"),
          ("a set inside", "a row holds a set only as an attribute's whole value: make the set its own SS, NS or "
                           "BS attribute, or a list (L) inside the list or map"),
          ("an empty binary", "an empty cell means no attribute: remove the empty binary attribute, or give it a byte"),
          ("a binary key", "key templates are text: give the key attribute UTF-8 bytes, or import with --key naming "
                           "text key attributes"),
          ("attribute", "a spec declares attribute names without whitespace, at most 255 bytes, and at most "
                        f"{MAX_ATTRIBUTES:,} names: rename the attribute in the items"))


class RowLost(ValueError):
    """An item the rows of an entity cannot carry (a JSON row cannot hold its value, or the row does not
    rebuild it); the message says why, and is what the import counts the item under."""


def checked_value(attr: str, value: Any, declared: str | None, undeclared: str) -> Any:
    """``value`` of attribute ``attr`` if a row may carry it under its ``declared`` type; else :class:`RowLost`
    (``undeclared`` says why an attribute is not declared)."""
    if declared is None:
        raise RowLost(f"attribute {attr[:40]!r} is not declared ({undeclared})")
    if declared != type_tag(value):
        raise RowLost(f"attribute {attr[:40]!r} {_TYPE_CLASH}")
    return value


def not_carried(key: str, reason: str, where: str) -> SourceError:
    """The error that stops an import at an item no row can carry: its key, why, and how to change the item."""
    fix = next((f for start, f in _FIXES if reason.startswith(start)),
               "change the value so that a JSON row holds it exactly (docs/guide.md, Real data in)")
    return SourceError(f"no row can carry the item {key} exactly ({reason}): the import stops rather than leave it "
                       "out of the rows, which a load of the draft must rebuild", where=where,
                       hint=f"{fix}; then export or import again")


def proven_row(builder: ItemBuilder, entity: Entity, row: dict[str, Any], item: dict[str, Any],
               wire: dict[str, Any] | None = None) -> str:
    """The JSON line of ``row``, proven to be ``entity``'s row of ``item``: parsed as the JSONL reader parses
    it and built by ``builder`` as a load builds it, the item must come back identical (``wire``: the item's
    DynamoDB JSON, when already at hand); else :class:`RowLost`."""
    try:
        text = encode_row(row)
        parsed = loads_json(text, entity.name, ints=int, max_depth=MAX_NESTING + 1)
        rebuilt = builder.build(entity, parsed)
    except BlueNbError as e:
        raise RowLost(f"the row does not build the item ({e.msg[:80]})") from e
    except RowLost:
        raise
    except ValueError as e:                # a build's own refusal
        raise RowLost(str(e)) from e
    if item_to_wire(rebuilt) != (wire if wire is not None else item_to_wire(item)):
        raise RowLost("the item built from the row differs")
    return text


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
        self.others = [draft.catch_all]          # the catch-all entities: the first, then one per mix of types
        self.unmatched = 0                       # items given to the catch-all entities
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
        :meth:`assign`): each attribute the type most of them hold."""
        attrs = {a: c.most_common(1)[0][0] for a, c in self._other_types.items() if ATTR_NAME.match(a)}
        self.other.attributes = attrs
        self.draft.data["entities"][self.other.name]["attributes"] = dict(attrs)
        self._respec()

    def _respec(self) -> None:
        self.spec = self.draft.spec()
        self.builder = ItemBuilder(self.spec)

    def catch_all_row(self, item: dict[str, Any], key: str = "", where: str = "") -> tuple[str, str]:
        """(catch-all entity, JSON row) of an item given to the catch-all: the first catch-all entity whose
        attribute types carry it, else a new one of the item's types (``Other2``, ...). An item no row can
        carry stops the import: the :func:`not_carried` error, naming ``key`` at ``where``."""
        wire = item_to_wire(item)
        reason = ""
        for name in self.others:
            try:
                return name, self._row(self.draft.plans[name], item, wire)
            except RowLost as e:
                reason = reason or str(e)
                if _TYPE_CLASH not in str(e):
                    raise not_carried(key, str(e), where) from None
        if len(self.others) >= MAX_CATCH_ALLS:
            raise not_carried(key, f"{reason}, and {MAX_CATCH_ALLS} catch-all entities of other attribute types "
                                   "are already drafted", where)
        name = self._another(item)
        try:
            return name, self._row(self.draft.plans[name], item, wire)
        except RowLost as e:
            raise not_carried(key, str(e), where) from None

    def _another(self, item: dict[str, Any]) -> str:
        """A new catch-all entity: the first one's keys, its attributes typed as ``item`` holds them."""
        first = self.other
        attrs = dict(first.attributes)
        attrs.update((a, type_tag(v)) for a, v in item.items() if a in attrs)
        name = unique_name(first.name, set(self.draft.data["entities"]) | set(self.draft.plans))
        plan = EntityPlan(name, None, first.shapes, attrs, used=set(first.used))
        self.draft.plans[name] = plan
        entity = copy.deepcopy(self.draft.data["entities"][first.name])
        entity.update(source=plan.source, attributes=dict(attrs),
                      description=f"items whose keys fit no entity and whose attribute types differ from "
                                  f"{first.name}'s (inferred)")
        self.draft.data["entities"][name] = entity
        clash = sorted(a for a in attrs if a in first.attributes and attrs[a] != first.attributes[a])
        self.draft.data["inferred"][f"entities.{name}"] = (
            f"catch-all of other attribute types: {', '.join(f'{a} {attrs[a]}' for a in clash[:8])} where "
            f"{first.name} declares {', '.join(first.attributes[a] for a in clash[:8])} (one entity per mix of types, "
            "so that every item is in the rows; merge them by making the values one type)")
        self.others.append(name)
        self._respec()
        return name

    def _row(self, plan: EntityPlan, item: dict[str, Any], wire: dict[str, Any]) -> str:
        row = self._keys(plan, item)
        for attr, v in item.items():
            if attr in plan.shapes or attr in self.table_keys:
                continue
            row[attr] = checked_value(attr, v, plan.attributes.get(attr), "its name cannot be, or too many attributes")
        return proven_row(self.builder, self.spec.entities[plan.name], row, item, wire)

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
            parts = v.split(shape.sep) if isinstance(v, str) else []
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
