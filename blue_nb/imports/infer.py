"""Infer a draft spec from items, in one streaming pass with bounded memory: :class:`SpecInferrer`.

``inferrer = SpecInferrer(domain, KeyInfo("pk", "sk"))``, ``inferrer.add(item)`` for every item,
then ``draft = inferrer.draft()``. Items are grouped into entities by the type prefix of their
sort key (the text before the first separator: ``PERSP#0#muffin#1`` -> ``Persp``, ``User:UserA`` ->
``User``; a constant such as ``META`` -> ``Meta``), or of their partition key when the sort key has
none. The separator is ``#``, or the one the values use (:func:`~.infer_shapes.key_separator` over a
sample of each key attribute's values, given as ``separators``; :func:`~.infer_shapes.value_separator`
for a value that holds another: ``:``, ``|`` or ``/``), the same functions the Workbench import uses.
Only counters and a bounded sample of key parts are kept per entity (:mod:`.infer_shapes`), never the
items.

The draft (:class:`Draft`: the spec as a mapping, and one :class:`EntityPlan` per entity) names
every key part after an attribute of the same item that holds the same text in nearly all items,
else after the part of another entity's key whose values it takes (the second part of
``PERSP#...`` is an ``EXPERT#{expert}``), else after the prefix and position (``persp_1``). It
declares attribute types (the most common; mixed types are noted), indexes (from DescribeTable,
or from names like ``gsi1pk``/``gsi1sk``), one draft access pattern per entity and per index,
and records how each part was inferred in the spec's ``inferred`` field. A catch-all entity
(``{pk}``/``{sk}``) takes the items that fit no entity.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable

from blue_nb.imports.infer_keys import KeyInfo, index_candidate, indexes_from_names
from blue_nb.imports.infer_shapes import (CONST_RE, NEARLY_ALL, SEP, TAG_RE, KeyShape, KeyStats, Slot, decide_shape,
                                          identifier, key_separator, shape_text, value_separator)
from blue_nb.spec import ATTRIBUTE_TYPES, Index, Spec, spec_from_dict

__all__ = ["ATTR_NAME", "CATCH_ALL", "FOREIGN_RULES", "SEPARATOR_SAMPLE", "TYPE_NAMES", "Draft", "EntityPlan",
           "MAX_ATTRIBUTES", "MAX_ENTITIES", "SpecInferrer", "as_foreign", "camel", "domain_name", "infer_spec",
           "key_separators", "snake", "type_tag", "unique_name"]

MAX_ENTITIES = 500             # distinct type prefixes; items of more go to the catch-all entity
MAX_ATTRIBUTES = 2000          # distinct attribute names tracked per entity (and overall)
SEPARATOR_SAMPLE = 10_000      # key values per attribute that decide its separator (key_separators)
CATCH_ALL = "Other"            # the catch-all entity's name (made unique)
ATTR_NAME = re.compile(r"[^\s]{1,255}\Z")      # an attribute name a spec can declare
_MAX_MATCH_TEXT = 2048         # longer attribute values are never key parts (a key is at most 2 KB)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# attributes items name their kind in (compared in lower case): items of one value are one entity
TYPE_NAMES = ("type", "entity", "entitytype", "entity_type", "_type", "__type", "__typename", "_et", "kind",
              "itemtype", "item_type", "recordtype", "record_type", "doctype", "doc_type", "objecttype")
FOREIGN_RULES = ("a design made elsewhere: checked against DynamoDB's own limits and key checks (rules: dynamodb), not "
                 "Blue's ADR 0018; write rules: adr-0018 to hold it to Blue's conventions")


# ---------------------------------------------------------------- names


def domain_name(table: str) -> str:
    """A spec domain from a table name: ``blue_dialogue`` -> ``dialogue``, ``ProductCatalog`` -> ``product_catalog``."""
    name = table[5:] if table.startswith("blue_") and len(table) > 5 else table
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    name = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return name if re.match(r"[a-z]", name or "") else f"t_{name}".rstrip("_")


def camel(text: str) -> str:
    """An entity name from a prefix: ``PERSP`` -> ``Persp``, ``user_profile`` -> ``UserProfile``."""
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", text) if p]
    out = "".join(p.capitalize() if p.isupper() or p.islower() else p[0].upper() + p[1:] for p in parts)
    return out if out[:1].isalpha() else f"E{out}"


def snake(name: str) -> str:
    """``UserProfile`` -> ``user_profile``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def unique_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base`` with the first free number: ``Order`` -> ``Order2``, ``persp_1`` -> ``persp_1_2``
    (a base that ends in a digit takes ``_`` before the number). ``taken`` is not changed."""
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}" if base[-1:].isdigit() else f"{base}{n}", n + 1
    return name


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


# ---------------------------------------------------------------- the draft


@dataclass
class EntityPlan:
    """One entity of the draft: its key shapes (key attribute -> shape) and declared attributes."""

    name: str
    group: tuple[str, str] | None            # ("sk", "PERSP"), ...; None for the catch-all
    shapes: dict[str, KeyShape]
    attributes: dict[str, str]
    count: int = 0
    attr_counts: dict[str, int] = field(default_factory=dict)
    attr_types: dict[str, dict[str, int]] = field(default_factory=dict)     # mixed types only
    used: set[str] = field(default_factory=set)
    sep: str = SEP                           # the separator after its type prefix

    def templates(self) -> dict[str, str]:
        return {attr: shape.template() for attr, shape in self.shapes.items()}

    @property
    def source(self) -> str:
        return snake(self.name)


@dataclass
class Draft:
    """The inferred spec (as a spec mapping, every entity and the catch-all) and its entity plans."""

    data: dict[str, Any]
    plans: dict[str, EntityPlan]
    catch_all: str
    group_of: Any                            # item -> group key (the inferrer's)
    notes: list[str]

    def plan_for(self, item: dict[str, Any]) -> EntityPlan | None:
        return self._by_group.get(self.group_of(item))

    def __post_init__(self) -> None:
        self._by_group = {p.group: p for p in self.plans.values() if p.group is not None}

    def spec(self, counts: dict[str, int] | None = None, rows: dict[str, int] | None = None) -> Spec:
        """The spec; with ``counts`` (entity -> items given to it), entities without items are left out;
        with ``rows`` (entity -> rows written), an entity with items but no rows may have an empty source."""
        d = copy.deepcopy(self.data)
        for name in (e for e in d["entities"] if rows is not None and not rows.get(e)):
            d["entities"][name]["allow_empty"] = True
        if counts is not None:
            drop = {e for e in d["entities"] if not counts.get(e)}
            d["entities"] = {k: v for k, v in d["entities"].items() if k not in drop}
            d["access_patterns"] = [p for p in d["access_patterns"] if not set(p["entities"]) & drop]
            d["inferred"] = {k: v for k, v in d["inferred"].items() if not _under(k, drop)}
            if counts.get(self.catch_all):
                d["inferred"][f"entities.{self.catch_all}"] = (
                    f"catch-all: {counts[self.catch_all]:,} items whose keys or values fit no entity above, with "
                    "their whole key values as placeholders")
        for i, p in enumerate(d["access_patterns"]):
            d["inferred"][f"access_patterns[{i}]"] = p.pop("_why")
        return spec_from_dict(d, source=f"<inferred {d['domain']}>")


def as_foreign(spec: Spec) -> Spec:
    """``spec`` under the DynamoDB rule profile (a draft of a design made elsewhere), the choice explained
    in its ``inferred`` field."""
    return spec.with_changes(rules="dynamodb", inferred={"rules": FOREIGN_RULES, **spec.inferred})


def _under(path: str, entities: set[str]) -> bool:
    return any(path == f"entities.{e}" or path.startswith(f"entities.{e}.") for e in entities)


# ---------------------------------------------------------------- the inferrer


class _Group:
    """The counters of one would-be entity."""

    __slots__ = ("kind", "tag", "n", "order", "keys", "attrs")

    def __init__(self, kind: str, tag: str, order: int):
        self.kind, self.tag, self.order, self.n = kind, tag, order, 0
        self.keys: dict[str, KeyStats] = {}
        self.attrs: dict[str, Counter[str]] = {}


class SpecInferrer:
    """Counters over a stream of items, and the draft spec they suggest (:meth:`draft`)."""

    def __init__(self, domain: str, keys: KeyInfo, *, source: str = "", table_name: str | None = None,
                 by_type: bool = False, separators: dict[str, str] | None = None):
        self.domain, self.keys, self.source, self.table_name = domain, keys, source, table_name
        self.separators = dict(separators or {})     # key attribute -> its values' separator (key_separators)
        self.by_type = by_type          # an item that names its kind (TYPE_NAMES) is grouped by it
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
        """The entity group of an item: ("type", its kind) when ``by_type`` and it names one in an attribute of
        :data:`TYPE_NAMES`, else ("sk", prefix), ("const", value), ("pk", prefix) or ("plain", "")."""
        pk, sk = self.keys.partition_key, self.keys.sort_key
        if self.by_type:
            for name, v in item.items():
                if isinstance(v, str) and name.lower() in TYPE_NAMES and TAG_RE.match(v) and name not in (pk, sk):
                    return "type", v
        if sk is not None:
            v = item.get(sk)
            if isinstance(v, str):
                sep = self.separator(sk, v)
                if sep is not None and TAG_RE.match(head := v.partition(sep)[0]):
                    return "sk", head
                if sep is None and CONST_RE.match(v):
                    return "const", v
        v = item.get(pk)
        if isinstance(v, str):
            sep = self.separator(pk, v)
            if sep is not None and TAG_RE.match(head := v.partition(sep)[0]):
                return "pk", head
        return "plain", ""

    def separator(self, attr: str, value: str) -> str | None:
        """The separator of one value of key attribute ``attr`` (:func:`~.infer_shapes.value_separator`, the
        attribute's own first); None when the value has no parts."""
        return value_separator(value, self.separators.get(attr, SEP))

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
                if stats is None:                    # the group's first value of it says where its parts part
                    sep = self.separator(name, value) if isinstance(value, str) else None
                    stats = group.keys[name] = KeyStats(sep or self.separators.get(name, SEP))
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
        taken = self._name_entities(plans)
        _name_across(plans, self.keys.partition_key, self.keys.sort_key)
        other = self._catch_all(index_attrs, taken)
        everything = {p.name: p for p in [*plans, other]}
        return Draft(self._spec_data(plans, other, indexes), everything, other.name, self.group_of, list(self.notes))

    def _spec_data(self, plans: list[EntityPlan], other: EntityPlan, indexes: dict[str, Index]) -> dict[str, Any]:
        """The draft spec as a mapping: the table, the entities (the catch-all last), draft access patterns
        and the ``inferred`` notes."""
        return {"spec_version": 1, "domain": self.domain,
                "description": f"Draft inferred from {self.source or 'data'}: review the entities, keys and access "
                               "patterns",
                "table": self._table(indexes),
                "entities": {p.name: _entity(p, p is other) for p in [*plans, other]},
                "access_patterns": _patterns(plans, indexes, self.keys.partition_key, self.keys.sort_key),
                "inferred": self._inferred(plans, indexes)}

    def _name_entities(self, plans: list[EntityPlan]) -> set[str]:
        """Name each entity after its type prefix and each part of its keys; the entity names taken."""
        pk, sk = self.keys.partition_key, self.keys.sort_key
        taken: set[str] = set()
        for plan in plans:
            tag = plan.group[1]
            plan.name = unique_name(camel(tag) if tag else camel(self.domain), taken)
            taken.add(plan.name)
            plan.attributes = {a: t for a, t in plan.attributes.items() if ATTR_NAME.match(a)}
            _name_by_attribute(plan)
            _name_generic(plan, self.domain, pk, sk)
        return taken

    def _catch_all(self, index_attrs: set[str], taken: set[str]) -> EntityPlan:
        """The entity of the items that fit no other: the whole key values as placeholders, every attribute."""
        pk, sk = self.keys.partition_key, self.keys.sort_key
        attributes = {a: t.most_common(1)[0][0] for a, t in self.attrs.items()
                      if a not in index_attrs and a not in (pk, sk) and ATTR_NAME.match(a)}
        plan = EntityPlan(unique_name(CATCH_ALL, taken), None, {}, attributes)
        for attr in [pk, *([sk] if sk else []), *sorted(index_attrs)]:
            slot = Slot(0, _EmptyStats())
            slot.name = unique_name(identifier(attr, "key"), plan.used | set(attributes))
            plan.used.add(slot.name)
            plan.shapes[attr] = KeyShape("whole", 0, 0, slots=[slot])
        return plan

    def _table(self, indexes: dict[str, Index]) -> dict[str, Any]:
        """The spec's ``table`` mapping: keys and their types, what the source says of the table, indexes."""
        pk, sk = self.keys.partition_key, self.keys.sort_key
        table = {"partition_key": pk, "sort_key": sk, "partition_key_type": self.key_type(pk),
                 **({"sort_key_type": self.key_type(sk)} if sk else {}), **self.keys.table,
                 "indexes": {n: ix.to_dict() for n, ix in indexes.items()}}
        if self.table_name and self.table_name != f"blue_{self.domain}":
            table["name"] = self.table_name
        return table

    def _inferred(self, plans: list[EntityPlan], indexes: dict[str, Index]) -> dict[str, str]:
        """The spec's ``inferred`` notes: how the keys, indexes, key parts and attribute types were found."""
        notes = {"table.partition_key": self.keys.how or "given"}
        for name, ix in indexes.items():
            keys = ", ".join(a for a in (ix.partition_key, ix.sort_key) if a)
            notes[f"table.indexes.{name}"] = ("from DescribeTable" if self.keys.indexes is not None else
                                              f"from attribute names that look like index keys ({keys}); "
                                              "projection all assumed")
        for plan in plans:
            notes.update(_plan_notes(plan))
        return notes

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
            if group.kind in ("sk", "const", "type"):
                shapes[sk] = decide_shape(sk_stats, tag=group.tag if group.kind == "sk" else None,
                                          const_ok=group.kind != "sk")
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
        by = sk if group.kind == "sk" else pk
        return EntityPlan(name="", group=(group.kind, group.tag), shapes=shapes, attributes=attributes,
                          count=group.n, attr_counts={a: sum(t.values()) for a, t in group.attrs.items()},
                          attr_types={a: dict(t) for a, t in group.attrs.items() if len(t) > 1},
                          sep=getattr(shapes.get(by), "sep", SEP))


def _count(table: dict[str, Counter[str]], name: str, tag: str) -> None:
    c = table.get(name)
    if c is None:
        if len(table) >= MAX_ATTRIBUTES:
            return
        c = table[name] = Counter()
    c[tag] += 1


def key_separators(items: Iterable[dict[str, Any]], names: Iterable[str],
                   limit: int = SEPARATOR_SAMPLE) -> dict[str, str]:
    """Each key attribute's separator (:func:`~.infer_shapes.key_separator`, as the Workbench import decides it)
    over the text values of the first ``limit`` items that hold it; the attributes whose separator is not ``#``."""
    names = list(names)
    values: dict[str, list[str]] = {n: [] for n in names}
    for item in items:
        for n in names:
            v = item.get(n)
            if isinstance(v, str) and len(values[n]) < limit:
                values[n].append(v)
        if all(len(v) >= limit for v in values.values()):
            break
    found = {n: key_separator(v) for n, v in values.items()}
    return {n: sep for n, sep in found.items() if sep != SEP}


def infer_spec(items, domain: str, keys: KeyInfo, **kw: Any) -> Draft:
    """Infer the draft from an iterable of items in one pass (see :class:`SpecInferrer`)."""
    inferrer = SpecInferrer(domain, keys, **kw)
    for item in items:
        inferrer.add(item)
    return inferrer.draft()


# ---------------------------------------------------------------- naming the parts of the plans


def _slots(plan: EntityPlan):
    for attr, shape in plan.shapes.items():
        for slot in shape.slots:
            yield attr, shape, slot


def _name_by_attribute(plan: EntityPlan) -> None:
    """A part that equals an attribute of the same item in nearly all items takes its name."""
    for _, shape, slot in _slots(plan):
        for name, hits in slot.stats.matches.most_common(8):
            if hits < NEARLY_ALL * slot.stats.n:
                break
            if name in plan.used or plan.attributes.get(name) not in ("S", "N"):
                continue
            if plan.attr_counts.get(name, 0) > shape.present:     # a sparse index key: the attribute is also elsewhere
                continue
            slot.name, slot.fmt, slot.from_attribute = name, "", True
            slot.why = f"equals attribute {name} in {hits:,} of {slot.stats.n:,} items"
            plan.used.add(name)
            break


def _name_generic(plan: EntityPlan, domain: str, pk: str, sk: str | None) -> None:
    """Other parts: after the prefix (``expert``, ``persp_1``), or ``<domain>_id`` for a bare partition key."""
    for attr, shape, slot in _slots(plan):
        if slot.name:
            continue
        n, i = len(shape.slots), shape.slots.index(slot) + 1
        head = shape.literal.get(0)
        if attr == sk and plan.group[0] == "sk":
            base = identifier(plan.group[1])
        elif head:
            base = identifier(head)
        elif attr == pk:
            base, n = (f"{domain}_id", n) if n == 1 else (domain, n)
        else:
            base = identifier(attr)
        base = base if n == 1 else f"{base}_{i}"
        slot.name = unique_name(base, plan.used | set(plan.attributes))
        slot.why = f"named after the {'prefix' if head or attr == sk else 'key'}"
        plan.used.add(slot.name)


def _name_across(plans: list[EntityPlan], pk: str, sk: str | None) -> None:
    """A part whose values are those of another entity's one-part sort key takes that part's name."""
    singles = []
    for p in plans:
        shape = p.shapes.get(sk) if sk else None
        if shape and shape.kind == "parts" and len(shape.slots) == 1 and not shape.slots[0].from_attribute \
                and not shape.slots[0].stats.overflow and shape.slots[0].stats.values:
            singles.append((p, shape.slots[0]))
    for plan in plans:
        for attr, _, slot in _slots(plan):
            st = slot.stats
            if slot.from_attribute or st.overflow or not st.values or st.all_digits or attr not in (pk, sk):
                continue
            best = max(((len(st.values & o.stats.values) / len(st.values), o.stats.n, o.name, owner.name)
                        for owner, o in singles if owner is not plan), default=None)
            taken = plan.used | set(plan.attributes)
            if best and best[0] >= NEARLY_ALL and best[2] != slot.name and best[2] not in taken:
                plan.used.discard(slot.name)
                slot.name, slot.fmt = best[2], ""
                slot.why = f"its values are those of {best[3]}'s key ({best[0]:.0%} of {len(st.values):,} seen)"
                plan.used.add(slot.name)


class _EmptyStats:
    n, values, overflow, all_digits, matches = 0, set(), False, False, None


def _entity(plan: EntityPlan, catch_all: bool) -> dict[str, Any]:
    kind, tag = plan.group or ("", "")
    what = ("items whose keys or values fit no other entity" if catch_all else
            f"items whose sort key starts with {tag}{plan.sep}" if kind == "sk" else f"items whose sort key is {tag}"
            if kind == "const" else f"items whose partition key starts with {tag}{plan.sep}" if kind == "pk"
            else f"items of the kind {tag}" if kind == "type" else "items whose keys have no type prefix")
    out = {"description": f"{what} (inferred)", "source": plan.source, "key": plan.templates(),
           "attributes": {a: t for a, t in plan.attributes.items() if t in ATTRIBUTE_TYPES}}
    return out


def _patterns(plans: list[EntityPlan], indexes: dict[str, Index], pk: str, sk: str | None) -> list[dict[str, Any]]:
    out, names = [], set()
    for plan in plans:
        cond: dict[str, Any] = {"pk": plan.shapes[pk].template()}
        sk_shape = plan.shapes.get(sk) if sk else None
        if sk_shape is None or sk_shape.kind == "const":
            op, verb = "get_item", "get"
            if sk_shape is not None:
                cond["sk"] = sk_shape.template()
        else:
            op, verb = "query", "list"
            if sk_shape.kind == "parts" and 0 in sk_shape.literal:
                cond["sk_begins_with"] = sk_shape.literal[0] + sk_shape.sep
        name = unique_name(f"{verb}_{snake(plan.name)}", names)
        names.add(name)
        out.append({"name": name, "description": "draft (inferred): review the rate and whether it is hot",
                    "operation": op, "entities": [plan.name], "key_condition": cond, "rate_per_second": 1,
                    "_why": f"draft: one {op} per entity on its table key, rate 1/s, cold"})
    for iname, ix in indexes.items():
        attr = ix.partition_key if ix.type == "global" else pk
        users = [p for p in plans if attr in p.shapes and (ix.sort_key is None or ix.sort_key in p.shapes)]
        if not users:
            continue
        top = max(users, key=lambda p: p.count)
        name = unique_name(f"query_{identifier(iname)}", names)
        names.add(name)
        out.append({"name": name, "description": "draft (inferred): one query per index", "operation": "query",
                    "entities": [top.name], "index": iname, "key_condition": {"pk": top.shapes[attr].template()},
                    "rate_per_second": 1, "_why": f"draft: a query of {iname} on the partition key of {top.name}, its "
                                                  f"largest entity, rate 1/s, cold"})
    return out


def _plan_notes(plan: EntityPlan) -> dict[str, str]:
    """The ``inferred`` notes of one entity: how it was grouped, its key shapes and part names, its types."""
    e, notes = f"entities.{plan.name}", {}
    notes[e] = f"{plan.count:,} items grouped by key prefix"
    for attr, shape in plan.shapes.items():
        text = f"from {shape.count:,} of {shape.present:,} keys shaped {shape_text(shape)}"
        if shape.kind == "parts" and shape.sep != SEP:
            text = (f"its values' parts are separated by {shape.sep!r}, not '#' (the first of '#', ':', '|', '/' "
                    "after a type-like head in its values; '_' only when most values use it): to split them "
                    f"otherwise, edit the template; {text}")
        named = [f"{{{s.name}}} {s.why}" for s in shape.slots if s.why]
        notes[f"{e}.key.{attr}"] = "; ".join([text, *named])
    mixed = [f"{a}: " + ", ".join(f"{t} in {n:,}" for t, n in sorted(ts.items(), key=lambda x: -x[1]))
             for a, ts in plan.attr_types.items() if a in plan.attributes]
    notes[f"{e}.attributes"] = (f"types of the values in {plan.count:,} items (the most common type)"
                                + (f"; mixed types: {'; '.join(mixed)}" if mixed else ""))
    return notes
