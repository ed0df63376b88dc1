"""Infer a draft spec from items, in one streaming pass with bounded memory.

``inferrer = SpecInferrer(domain, KeyInfo("pk", "sk"))``, ``inferrer.add(item)`` for every item,
then ``draft = inferrer.draft()``. Items are grouped into entities by the type prefix of their
sort key (the text before the first ``#``: ``PERSP#0#muffin#1`` -> ``Persp``; a constant such as
``META`` -> ``Meta``), or of their partition key when the sort key has none. Only counters and a
bounded sample of key parts are kept per entity (:mod:`.infer_shapes`), never the items.

The draft names every key part after an attribute of the same item that holds the same text in
nearly all items, else after the part of another entity's key whose values it takes (the second
part of ``PERSP#...`` is an ``EXPERT#{expert}``), else after the prefix and position
(``persp_1``). It declares attribute types (the most common; mixed types are noted), indexes
(from DescribeTable, or from names like ``gsi1pk``/``gsi1sk``), one draft access pattern per
entity and per index, and records how each part was inferred in the spec's ``inferred`` field.
A catch-all entity (``{pk}``/``{sk}``) takes the items that fit no entity (:mod:`.infer_plan`).
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal
from typing import Any

from blue_nb.sources.infer_keys import KeyInfo, index_candidate, indexes_from_names
from blue_nb.sources.infer_plan import Draft, EntityPlan, build_draft
from blue_nb.sources.infer_shapes import CONST_RE, SEP, TAG_RE, KeyShape, KeyStats, Slot, decide_shape

__all__ = ["MAX_ATTRIBUTES", "MAX_ENTITIES", "SpecInferrer", "domain_name", "infer_spec", "type_tag"]

MAX_ENTITIES = 500             # distinct type prefixes; items of more go to the catch-all entity
MAX_ATTRIBUTES = 2000          # distinct attribute names tracked per entity (and overall)
_MAX_MATCH_TEXT = 2048         # longer attribute values are never key parts (a key is at most 2 KB)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def domain_name(table: str) -> str:
    """A spec domain from a table name: ``blue_dialogue`` -> ``dialogue``, ``ProductCatalog`` -> ``product_catalog``."""
    name = table[5:] if table.startswith("blue_") and len(table) > 5 else table
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    name = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return name if re.match(r"[a-z]", name or "") else f"t_{name}".rstrip("_")


def type_tag(value: Any) -> str:
    """The DynamoDB type of a Python value (S N B BOOL NULL L M SS NS BS)."""
    if isinstance(value, str):
        return "S"
    if isinstance(value, bool):
        return "BOOL"
    if value is None:
        return "NULL"
    if isinstance(value, (Decimal, int)):
        return "N"
    if isinstance(value, (bytes, bytearray)):
        return "B"
    if isinstance(value, dict):
        return "M"
    if isinstance(value, (list, tuple)):
        return "L"
    if isinstance(value, (set, frozenset)):
        first = next(iter(value), "")
        return "SS" if isinstance(first, str) else "BS" if isinstance(first, (bytes, bytearray)) else "NS"
    return "S"


class _Group:
    """The counters of one would-be entity."""

    __slots__ = ("kind", "tag", "n", "order", "keys", "attrs")

    def __init__(self, kind: str, tag: str, order: int):
        self.kind, self.tag, self.order, self.n = kind, tag, order, 0
        self.keys: dict[str, KeyStats] = {}
        self.attrs: dict[str, Counter[str]] = {}


class SpecInferrer:
    """Counters over a stream of items, and the draft spec they suggest (:meth:`draft`)."""

    def __init__(self, domain: str, keys: KeyInfo, *, source: str = "", table_name: str | None = None):
        self.domain, self.keys, self.source, self.table_name = domain, keys, source, table_name
        self.n = self.overflow = 0
        self.groups: dict[tuple[str, str], _Group] = {}
        self.attrs: dict[str, Counter[str]] = {}
        self.key_types: dict[str, Counter[str]] = {}
        self.notes: list[str] = []
        self._index_like: dict[str, bool] = {}
        self._real = ({a for ix in keys.indexes.values() for a in (ix.partition_key, ix.sort_key) if a}
                      if keys.indexes is not None else None)

    # -- the pass ---------------------------------------------------------------------------
    def group_of(self, item: dict[str, Any]) -> tuple[str, str]:
        """The entity group of an item: ("sk", prefix), ("const", value), ("pk", prefix) or ("plain", "")."""
        pk, sk = self.keys.partition_key, self.keys.sort_key
        if sk is not None:
            v = item.get(sk)
            if isinstance(v, str):
                head, has_sep, _ = v.partition(SEP)
                if has_sep and TAG_RE.match(head):
                    return "sk", head
                if not has_sep and CONST_RE.match(v):
                    return "const", v
        v = item.get(pk)
        if isinstance(v, str):
            head, has_sep, _ = v.partition(SEP)
            if has_sep and TAG_RE.match(head):
                return "pk", head
        return "plain", ""

    def is_index_attribute(self, name: str) -> bool:
        """A real index key attribute (DescribeTable), or one named like one (gsi1pk)."""
        if self._real is not None:
            return name in self._real
        hit = self._index_like.get(name)
        if hit is None:
            hit = index_candidate(name) is not None
            if len(self._index_like) < MAX_ATTRIBUTES:
                self._index_like[name] = hit
        return hit

    def add(self, item: dict[str, Any]) -> None:
        """Count one item."""
        self.n += 1
        key = self.group_of(item)
        group = self.groups.get(key)
        if group is None and len(self.groups) < MAX_ENTITIES:
            group = self.groups[key] = _Group(key[0], key[1], len(self.groups))
        table_keys = self.keys.names
        keyed, by_text = [], {}
        for name, value in item.items():
            if name in table_keys:
                keyed.append(name)
                continue
            tag = type_tag(value)
            _count(self.attrs, name, tag)
            if self.is_index_attribute(name):
                keyed.append(name)
                if self._real is not None:
                    continue
            if group is not None:
                _count(group.attrs, name, tag)
            if tag in ("S", "N") and _IDENT.match(name):
                text = value if tag == "S" else str(value)
                if len(text) <= _MAX_MATCH_TEXT:
                    by_text.setdefault(text, []).append(name)
        for name in keyed:
            value = item[name]
            _count(self.key_types, name, type_tag(value))
            if group is not None:
                stats = group.keys.get(name)
                if stats is None:
                    stats = group.keys[name] = KeyStats()
                stats.add(value, by_text)
        if group is None:
            self.overflow += 1
        else:
            group.n += 1

    # -- the draft --------------------------------------------------------------------------
    def draft(self) -> Draft:
        """The draft spec (every entity, plus the catch-all) and the plans that turn items into rows."""
        indexes, notes = self._indexes()
        self.notes += notes
        index_attrs = {a for ix in indexes.values() for a in (ix.partition_key, ix.sort_key) if a}
        plans = [self._plan(g, index_attrs) for g in sorted(self.groups.values(), key=lambda g: g.order)]
        if self.overflow:
            self.notes.append(f"{self.overflow:,} items have more than {MAX_ENTITIES} kinds of key prefix: "
                              "those beyond went to the catch-all entity")
        return build_draft(self, plans, indexes, index_attrs)

    def key_type(self, attr: str) -> str:
        """S, N or B: as the source says, else the most common type of the values."""
        if attr in self.keys.types:
            return self.keys.types[attr]
        seen = self.key_types.get(attr)
        top = seen.most_common(1)[0][0] if seen else "S"
        return top if top in ("S", "N", "B") else "S"

    def _indexes(self):
        if self.keys.indexes is not None:
            return dict(self.keys.indexes), []
        types = {a: self.key_type(a) for a in self.key_types}
        return indexes_from_names(self.key_types, types, self.keys.sort_key is not None)

    def _plan(self, group: _Group, index_attrs: set[str]) -> EntityPlan:
        pk, sk = self.keys.partition_key, self.keys.sort_key
        shapes: dict[str, KeyShape] = {}
        pk_stats = group.keys.get(pk) or KeyStats()
        shapes[pk] = decide_shape(pk_stats, tag=group.tag if group.kind == "pk" else None)
        if sk is not None:
            sk_stats = group.keys.get(sk) or KeyStats()
            if group.kind in ("sk", "const"):
                shapes[sk] = decide_shape(sk_stats, tag=group.tag if group.kind == "sk" else None,
                                          const_ok=group.kind == "const")
            else:
                shapes[sk] = KeyShape("whole", sk_stats.whole.n, sk_stats.present, slots=[Slot(0, sk_stats.whole)])
        for attr in sorted(index_attrs):
            stats = group.keys.get(attr)
            if stats is not None and stats.present and attr not in shapes:
                shapes[attr] = decide_shape(stats, const_ok=True)
        attributes = {}
        for name, types in group.attrs.items():
            if name not in index_attrs and name not in (pk, sk):
                attributes[name] = types.most_common(1)[0][0]
        return EntityPlan(name="", group=(group.kind, group.tag), shapes=shapes, attributes=attributes,
                          count=group.n, attr_counts={a: sum(t.values()) for a, t in group.attrs.items()},
                          attr_types={a: dict(t) for a, t in group.attrs.items() if len(t) > 1})


def _count(table: dict[str, Counter[str]], name: str, tag: str) -> None:
    c = table.get(name)
    if c is None:
        if len(table) >= MAX_ATTRIBUTES:
            return
        c = table[name] = Counter()
    c[tag] += 1


def infer_spec(items, domain: str, keys: KeyInfo, **kw: Any) -> Draft:
    """Infer the draft from an iterable of items in one pass (see :class:`SpecInferrer`)."""
    inferrer = SpecInferrer(domain, keys, **kw)
    for item in items:
        inferrer.add(item)
    return inferrer.draft()
