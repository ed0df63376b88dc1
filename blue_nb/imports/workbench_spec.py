"""The spec of one Workbench table: built from the model (:func:`model_spec`), or checked against the
blue_nb spec the model carries (:func:`spec_differences`). See :mod:`.workbench`.

Built from the model: the table's keys, GSIs (projections), billing; one entity per facet
(``FacetName`` in CamelCase) whose key templates are the facet's key aliases when they are
templates that fit the facet's items (``PERSP#{round}#{expert}``), else inferred from the items' keys
by :func:`blue_nb.imports.infer.infer_spec` (``EXPERT#muffin`` -> ``EXPERT#{expert}``); index key
templates are inferred from the items; attributes are the facet's, typed by the table's list or by
the values. Items outside every facet that fit no facet's templates are grouped by the same
inference into more entities. Each entity gets one draft access pattern (and each GSI one), as the
other imports do; every guessed part is listed in the spec's ``inferred`` field.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from blue_nb.errors import SourceError, TemplateError
from blue_nb.imports.infer import (ATTR_NAME, FOREIGN_RULES, TYPE_NAMES, camel, infer_spec, key_separators, snake,
                                   type_tag, unique_name)
from blue_nb.imports.infer_keys import KeyInfo, canonical_key
from blue_nb.imports.infer_rows import RowLost
from blue_nb.imports.infer_shapes import TAG_RE, identifier
from blue_nb.imports.workbench_rows import SpecRows
from blue_nb.items.values import number_text
from blue_nb.spec import ATTRIBUTE_TYPES, SEPARATOR, Index, KeyTemplate, Spec, spec_from_dict

__all__ = ["ModelTable", "model_spec", "spec_differences",
           "type_attribute"]

_DRAFT = "draft (imported): review the rate and whether it is hot"


@dataclass
class ModelTable:
    """One ``DataModel`` entry as read: keys, indexes, billing, facets and the items (merged by key)."""

    name: str
    partition_key: str
    partition_key_type: str
    sort_key: str | None
    sort_key_type: str
    attribute_types: dict[str, str] = field(default_factory=dict)      # table-level NonKeyAttributes
    indexes: dict[str, Index] = field(default_factory=dict)
    raw_projections: dict[str, Any] = field(default_factory=dict)     # index -> ProjectionType or INCLUDE list
    billing: dict[str, Any] = field(default_factory=dict)
    facets: list[tuple[str, Any, Any, list[str]]] = field(default_factory=list)   # name, pk alias, sk alias, attrs
    items: list[tuple[str | None, dict[str, Any], str]] = field(default_factory=list)   # (facet, item, where)
    notes: list[str] = field(default_factory=list)
    differing: int = 0            # table-level copies that differ from a facet's item of the same key
    repeated: int = 0             # one key in two facets (the first kept)
    _seen: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def key_names(self) -> tuple[str, ...]:
        return (self.partition_key,) + ((self.sort_key,) if self.sort_key else ())

    def add(self, facet: str | None, item: dict[str, Any], where: str) -> None:
        """One item; a key seen before keeps its first copy (facets are read before the table's list)."""
        k = canonical_key(item, self.key_names)
        if k is None:
            raise SourceError(f"the item has no value for the table key ({', '.join(self.key_names)})",
                              where=where, hint="every item needs its key attributes, with S, N or B values")
        if k in self._seen:
            first_facet, first, _ = self.items[self._seen[k]]
            if facet is not None:
                self.repeated += 1
            elif first != item:
                self.differing += 1
            return
        self._seen[k] = len(self.items)
        self.items.append((facet, item, where))

    def key_info(self) -> KeyInfo:
        types = {self.partition_key: self.partition_key_type}
        if self.sort_key:
            types[self.sort_key] = self.sort_key_type
        for ix in self.indexes.values():
            if ix.partition_key:                       # a local index has the table's
                types.setdefault(ix.partition_key, ix.partition_key_type)
            if ix.sort_key:
                types.setdefault(ix.sort_key, ix.sort_key_type)
        return KeyInfo(self.partition_key, self.sort_key, "the model's KeyAttributes", types, dict(self.indexes))


# ---------------------------------------------------------------- blue_nb's own spec, still what the model says?


def _raw_projection(projection: str | list[str]) -> Any:
    if isinstance(projection, list):
        return list(projection) if projection else "KEYS_ONLY"
    return "KEYS_ONLY" if projection == "keys_only" else "ALL"


def spec_differences(spec: Spec, table: ModelTable) -> list[str]:
    """What the model's table says otherwise than ``spec`` (as blue_nb's export writes it); empty: the same."""
    t, out = spec.table, []
    if (t.partition_key, t.partition_key_type, t.sort_key, t.sort_key_type if t.sort_key else "S") != \
            (table.partition_key, table.partition_key_type, table.sort_key, table.sort_key_type):
        out.append("the table's keys")
    mine = {n: (ix.type, ix.partition_key, ix.partition_key_type, ix.sort_key,
                ix.sort_key_type if ix.sort_key else "S", _raw_projection(ix.projection)) for n, ix in t.indexes.items()}
    theirs = {n: (ix.type, ix.partition_key, ix.partition_key_type, ix.sort_key, ix.sort_key_type,
                  table.raw_projections[n]) for n, ix in table.indexes.items()}
    if mine != theirs:
        out.append("the secondary indexes")
    billing = {"billing_mode": t.billing_mode}
    if t.billing_mode == "PROVISIONED":
        billing.update(read_capacity=t.read_capacity, write_capacity=t.write_capacity)
    if table.billing and table.billing != billing:
        out.append("the billing mode or capacity")
    facets = [(name, e.key.get(t.partition_key, t.partition_key), e.key.get(t.sort_key, t.sort_key) if t.sort_key
               else None, [a for a in e.key if a not in (t.partition_key, t.sort_key)] + list(e.attributes))
              for name, e in spec.entities.items()]
    if facets != table.facets:
        out.append("the facets (entities, key templates or attributes)")
    return out


# ---------------------------------------------------------------- the spec built from the model


def _text(value: Any) -> str:
    """A key value as its template text (numbers in DynamoDB's text)."""
    return value if isinstance(value, str) else number_text(value) if isinstance(value, Decimal) else str(value)


def _alias_fits(alias: Any, values: list[Any]) -> bool:
    """A key alias is a template when it parses as one and fits every item's value (with no items:
    when it has a placeholder; a bare label such as "PK" is no template)."""
    if not isinstance(alias, str) or not alias:
        return False
    try:
        template = KeyTemplate(alias)
    except TemplateError:
        return False
    if not values:
        return not template.is_constant
    return all(isinstance(v, (str, Decimal)) and template.matches(str(v)) for v in values)


def type_attribute(items: list[dict[str, Any]], skip: set[str]) -> tuple[str | None, str]:
    """The attribute the items use to say what they are, and why: one named like a type (``type``,
    ``entity``, ``_type``, ``EntityType``, ...) held as text by every item with two or more values; else
    the text attribute of every item whose values best partition the items by their attribute names (each
    value's items alike, the values' items unlike); (None, "") when none does."""
    if len(items) < 2:
        return None, ""
    common = [a for a in items[0] if a not in skip and all(isinstance(it.get(a), str) and it[a] for it in items)]
    values = {a: Counter(it[a] for it in items) for a in common}
    named = [a for a in common if a.lower() in TYPE_NAMES and len(values[a]) >= 2]
    if named:
        return named[0], f"every item names its kind in {named[0]!r}"
    best, best_score = None, 0.0
    tag = TAG_RE.match
    for a in common:
        distinct = len(values[a])
        if not 2 <= distinct <= max(2, len(items) // 2) or any(not tag(v) for v in values[a]):
            continue
        shapes: dict[str, set[frozenset]] = {}
        for it in items:
            shapes.setdefault(it[a], set()).add(frozenset(it))
        alike = sum(len(v) == 1 for v in shapes.values()) / distinct
        apart = len({frozenset().union(*v) for v in shapes.values()}) / distinct
        score = alike * apart
        if score > best_score:
            best, best_score = a, score
    if best is not None and best_score >= 0.75:
        return best, f"the values of {best!r} partition the items by the attributes they hold"
    return None, ""


class _Builder:
    def __init__(self, table: ModelTable, domain: str):
        self.table, self.domain = table, domain
        self.entities: dict[str, dict[str, Any]] = {}
        self.inferred: dict[str, str] = {}
        self.notes: list[str] = []
        self.taken: set[str] = set()
        self.assigned: dict[int, str] = {}          # index into table.items -> entity
        self.key_names = set(table.key_info().types)

    def _take(self, base: str) -> str:
        """An entity name not taken yet (:func:`~.infer.unique_name`), now taken."""
        name = unique_name(base, self.taken)
        self.taken.add(name)
        return name

    # -- inference over a group of items ---------------------------------------------------------------
    def _infer(self, items: list[dict[str, Any]]):
        """The draft of ``items`` (split at each key attribute's separator, :func:`~.infer.key_separators`, as the
        other imports split theirs), its plans (largest first) and the separators."""
        seps = key_separators(items, self.key_names, limit=len(items))
        draft = infer_spec(items, self.domain, self.table.key_info(), source=f"the Workbench table {self.table.name}",
                           separators=seps)
        plans = sorted((p for n, p in draft.plans.items() if n != draft.catch_all and p.count),
                       key=lambda p: -p.count)
        return draft, plans, seps

    def _placeholder(self, attr: str, items: list[dict[str, Any]], key: dict[str, str], literal: bool = True) -> str:
        """A template for ``attr`` by the ``#``-separated parts of most of its values (a placeholder holds no
        ``#``): a part the same in all of them stays literal (when ``literal``), the others are placeholders,
        each no attribute of the items and no other key's placeholder (values of another part count do not fit)."""
        used = {a for it in items for a in it} | {n for t in key.values() for n in KeyTemplate(t).placeholders}
        values = [_text(it[attr]) for it in items if attr in it]
        common = Counter(v.count(SEPARATOR) for v in values).most_common(1)
        width = 1 + (common[0][0] if common else 0)
        columns = list(zip(*(v.split(SEPARATOR) for v in values if v.count(SEPARATOR) == width - 1))) or [()] * width
        parts = []
        for column in columns:
            if literal and len(set(column)) == 1:
                parts.append(column[0].replace("{", "{{").replace("}", "}}"))
            else:
                parts.append("{" + unique_name(identifier(attr, "key"), used) + "}")
                used.add(parts[-1][1:-1])
        return SEPARATOR.join(parts)

    def _sparse(self, key: dict[str, str], items: list[dict[str, Any]]) -> list[str]:
        """Index keys some items lack whose template would render anyway (a constant such as ``GSI1PK: C1``, or
        placeholders all filled by the other keys): made placeholders of their own, so those items stay out of
        the index as they are in the model."""
        t, changed = self.table, []
        for attr in list(key):
            if attr in (t.partition_key, t.sort_key) or all(attr in it for it in items):
                continue
            others = {n for a, tx in key.items() if a != attr for n in KeyTemplate(tx).placeholders}
            if set(KeyTemplate(key[attr]).placeholders) & (others | {a for it in items for a in it} - set(key)) or \
                    KeyTemplate(key[attr]).is_constant:
                key[attr] = self._placeholder(attr, items, {a: x for a, x in key.items() if a != attr}, literal=False)
                changed.append(attr)
        return changed

    def _misfits(self, key: dict[str, str], items: list[dict[str, Any]]) -> list[str]:
        """The key attributes whose template does not fit some item's value."""
        out = []
        for attr, text in key.items():
            tp = KeyTemplate(text)
            if any(attr in it and not (isinstance(it[attr], (str, Decimal)) and tp.matches(str(it[attr])))
                   for it in items):
                out.append(attr)
        return out

    def _entity(self, name: str, description: str, key: dict[str, str], listed: list[str],
                items: list[dict[str, Any]]) -> dict[str, Any]:
        names = [a for a in listed if a not in key] + [a for it in items for a in it if a not in key]
        attributes: dict[str, str] = {}
        for a in dict.fromkeys(names):
            if a in self.table.key_names:
                continue
            if not ATTR_NAME.match(a):
                raise SourceError(f"{name}: attribute {a[:40]!r} cannot be declared in a spec (whitespace)",
                                  where=f"the Workbench table {self.table.name}",
                                  hint="rename the attribute in the model: a spec's attribute names hold no spaces")
            attributes[a] = self._type(name, a, items, a in listed)
        entity = {"description": description, "source": snake(name), "key": key, "attributes": attributes}
        if not items:
            entity["allow_empty"] = True
        return entity

    def _carried(self, name: str, entity: dict[str, Any], rows: list[int]) -> tuple[list[int], list[int], str]:
        """The rows of ``rows`` whose items the entity's rows rebuild exactly, the others, and the first reason."""
        t = self.table
        table = {"partition_key": t.partition_key, "sort_key": t.sort_key, "partition_key_type": t.partition_key_type,
                 "indexes": {n: ix.to_dict() for n, ix in t.indexes.items()}}
        if t.sort_key:
            table["sort_key_type"] = t.sort_key_type
        spec = spec_from_dict({"spec_version": 1, "domain": self.domain, "table": table, "entities": {name: entity}},
                              source=f"<workbench table {t.name}: entity {name}>")
        maker = SpecRows(spec)
        fit, rest, why = [], [], ""
        for i in rows:
            try:
                maker.make(name, t.items[i][1])
                fit.append(i)
            except RowLost as e:
                rest.append(i)
                why = why or str(e)
        return fit, rest, why

    def place(self, base: str, description: str, rows: list[int], *, listed: list[str] = (),
              aliases: dict[str, Any] | None = None, why: str = "", whole: bool = True) -> None:
        """Make entities of the items ``rows`` and give each item to one, nothing left out: one entity
        named ``base`` when its key templates (the aliases that fit, else those inferred) carry every item,
        after making the keys that do not fit placeholders per part (``whole``: a facet, a type, the
        designer's entity); the items it still cannot carry become more entities by the shape of their keys
        (``base`` and their type prefix). An item no row can carry at all stops the import, named."""
        left: tuple | None = (base, rows, aliases, whole, why)
        while left is not None:
            name_base, rows_of, aliases_of, whole, why_of = left
            left = self._place_one(name_base, description, rows_of, listed=listed, aliases=aliases_of,
                                   whole=whole, why=why_of, family=base)

    def _place_one(self, base: str, description: str, rows: list[int], *, listed: list[str],
                   aliases: dict[str, Any] | None, whole: bool, why: str, family: str) -> tuple | None:
        """One entity of :meth:`place`; what it leaves, as the next call's arguments (None: nothing)."""
        t = self.table
        items = [t.items[i][1] for i in rows]
        key: dict[str, str] = {}
        reasons: dict[str, str] = {}
        draft = plans = None
        if items:
            draft, plans, _ = self._infer(items)
            best = plans[0]
            for attr, text in best.templates().items():
                key[attr] = text
                reasons[attr] = draft.data["inferred"].get(f"entities.{best.name}.key.{attr}", "")
            if len(plans) > 1:
                self.notes.append(f"{base}: its items have {len(plans)} key shapes")
        for attr, alias in (aliases or {}).items():
            if _alias_fits(alias, [it.get(attr) for it in items]):
                key[attr] = alias
                reasons[attr] = ""                        # the designer's own template: nothing to explain
            elif attr in reasons:
                label = (f"its key alias {alias!r} is a label, not a template that fits the items" if alias else
                         "it has no key alias")
                reasons[attr] = f"{label}: {reasons[attr]}"
        if aliases is not None:
            for attr in key:
                if attr not in aliases and reasons.get(attr):
                    reasons[attr] = f"the facet's items: {reasons[attr]}"
        for attr in t.key_names:
            if attr not in key:
                key[attr] = self._placeholder(attr, items, key)
                reasons[attr] = "no items and no key alias that is a template: the whole value as one placeholder"
        for attr in self._sparse(key, items):
            reasons[attr] = ("a sparse index key (some items have none): a placeholder of its own, so those items "
                             "stay out of the index")
        name = self._take(base)
        entity = self._entity(name, description, key, listed, items)
        fit, rest, lost = self._carried(name, entity, rows)
        if rest and (whole or not fit):
            for attr in self._misfits(key, items) or list(key):
                key[attr] = self._placeholder(attr, items, {a: x for a, x in key.items() if a != attr})
                reasons[attr] = (f"the items' values have {len(plans or [])} shapes: a placeholder for each part "
                                 "(split the entity to give each shape a template of its own)")
            for attr in self._sparse(key, items):
                reasons[attr] = ("a sparse index key (some items have none): a placeholder of its own, so those "
                                 "items stay out of the index")
            entity = self._entity(name, description, key, listed, items)
            fit, rest, lost = self._carried(name, entity, rows)
        if rest and not fit:
            where = t.items[rest[0]][2]
            raise SourceError(f"no row of a spec can carry this item exactly ({lost}), so the import would leave "
                              "it out", where=where, hint="change the item in the model (each attribute one "
                              "type per entity, values a JSON row can hold), then import again")
        if rest:                                   # the entity of the items it carries; the others get their own
            entity = self._entity(name, description, key, listed, [t.items[i][1] for i in fit])
        self.entities[name] = entity
        if why:
            self.inferred[f"entities.{name}"] = why
        for attr, text in reasons.items():
            if text:
                self.inferred[f"entities.{name}.key.{attr}"] = text
        for i in fit:
            self.assigned[i] = name
        if not rest:
            return None
        _, others, _ = self._infer([t.items[i][1] for i in rest])
        suffix = others[0].name if others and others[0].name.lower() not in family.lower() else ""
        self.notes.append(f"{name}: {len(rest):,} of its {len(rows):,} items do not fit its keys or attribute "
                          f"types ({lost}): they make the entity {family}{suffix} (and more, by key shape)")
        return (f"{family}{suffix}", rest, None, False,
                f"items like those of {name} whose keys or attribute types differ ({lost})")

    def facet(self, fname: str, pk_alias: Any, sk_alias: Any, listed: list[str], rows: list[int]) -> None:
        t = self.table
        aliases = {t.partition_key: pk_alias, **({t.sort_key: sk_alias} if t.sort_key else {})}
        self.place(camel(fname), f"Facet {fname} of the Workbench model", rows, listed=listed, aliases=aliases,
                   why=f"the facet {fname} of the model")

    def rest(self, rows: list[int]) -> None:
        """Items outside every facet: to the facet entity whose table templates they fit; the others by the
        attribute they name their kind in (``type``, ...), else grouped by the shape of their keys."""
        t = self.table
        templates = {n: [KeyTemplate(e["key"][a]) for a in t.key_names] for n, e in self.entities.items()}
        left = []
        for i in rows:
            item = t.items[i][1]
            values = [item.get(a) for a in t.key_names]
            fits = [n for n, ts in templates.items()
                    if all(isinstance(v, (str, Decimal)) and tp.matches(str(v)) for tp, v in zip(ts, values))]
            if len(fits) == 1 and not self._carried(fits[0], self.entities[fits[0]], [i])[1]:
                self.assigned[i] = fits[0]
            else:
                left.append(i)
        if not left:
            return
        items = [t.items[i][1] for i in left]
        attr, why = type_attribute(items, set(t.key_names) | self.key_names)
        if attr is not None:
            groups: dict[str, list[int]] = {}
            for i, item in zip(left, items):
                groups.setdefault(item[attr], []).append(i)
            self.notes.append(f"entities by the attribute {attr!r}: {why} (one entity per value; to group "
                              "otherwise, rename or merge the entities)")
            for value, rows_of in groups.items():
                self.place(camel(value), f"Items whose {attr} is {value!r}", rows_of,
                           why=f"{len(rows_of):,} items whose {attr} is {value!r}: {why}")
            return
        draft, _, _ = self._infer(items)
        groups = {}
        for i, item in zip(left, items):
            plan = draft.plan_for(item)
            groups.setdefault(plan.name if plan is not None else draft.catch_all, []).append(i)
        for old, rows_of in groups.items():
            self.place(old, draft.data["entities"][old]["description"], rows_of, whole=False,
                       why=f"{len(rows_of):,} items grouped by key prefix")

    def unclaimed(self) -> None:
        """Attributes the model's table declares that no entity has (no facet lists them, no item holds
        them): declared on the entity of the most items, so that nothing the model says is lost."""
        t = self.table
        have = {a for e in self.entities.values() for a in (*e["key"], *e["attributes"])} | set(t.key_names)
        left = [a for a in t.attribute_types if a not in have and ATTR_NAME.match(a)]
        if not left or not self.entities:
            return
        counts = Counter(self.assigned.values())
        name = max(self.entities, key=lambda n: counts.get(n, 0))
        for a in left:
            typ = t.attribute_types[a]
            self.entities[name]["attributes"][a] = typ if typ in ATTRIBUTE_TYPES else "S"
            self.inferred[f"entities.{name}.attributes.{a}"] = ("declared by the model's table, held by no item and "
                                                               "listed by no facet: kept here so that an export "
                                                               "carries it; move it to the entity that holds it")

    def _type(self, entity: str, attr: str, items: list[dict], listed: bool) -> str:
        declared = self.table.attribute_types.get(attr)
        seen = Counter(type_tag(it[attr]) for it in items if attr in it)
        typ = seen.most_common(1)[0][0] if seen else declared if declared in ATTRIBUTE_TYPES else "S"
        if declared and seen and declared != typ:
            self.inferred[f"entities.{entity}.attributes.{attr}"] = (f"the model declares {declared}, the items "
                                                                    f"hold {typ}: typed as the items")
        elif not listed:
            self.inferred[f"entities.{entity}.attributes.{attr}"] = "in the items, not in the facet's attribute list"
        elif not seen and not declared:
            self.inferred[f"entities.{entity}.attributes.{attr}"] = "no type in the model and no value: S assumed"
        return typ

    def patterns(self) -> list[dict[str, Any]]:
        """One draft pattern per entity on its table key, and one query per GSI."""
        t, out = self.table, []
        counts = Counter(self.assigned.values())
        for name, e in self.entities.items():
            cond: dict[str, Any] = {"pk": e["key"][t.partition_key]}
            sk = KeyTemplate(e["key"][t.sort_key]) if t.sort_key else None
            if sk is None or sk.is_constant:
                op, verb = "get_item", "get"
                if sk is not None:
                    cond["sk"] = sk.text
            else:
                op, verb = "query", "list"
                if sk.type_prefix:
                    cond["sk_begins_with"] = sk.type_prefix + "#"
            out.append({"name": f"{verb}_{snake(name)}", "description": _DRAFT, "operation": op, "entities": [name],
                        "key_condition": cond, "rate_per_second": 1})
        for iname, ix in t.indexes.items():
            pk = ix.partition_key or t.partition_key
            users = [n for n, e in self.entities.items() if pk in e["key"] and (ix.sort_key in e["key"] or
                                                                                 ix.type == "global")]
            if users:
                top = max(users, key=lambda n: counts.get(n, 0))
                out.append({"name": f"query_{identifier(iname)}", "description": _DRAFT, "operation": "query",
                            "entities": [top],
                            "index": iname, "key_condition": {"pk": self.entities[top]["key"][pk]},
                            "rate_per_second": 1})
        seen: set[str] = set()
        for i, p in enumerate(out):
            p["name"] = unique_name(p["name"], seen)
            seen.add(p["name"])
            self.inferred[f"access_patterns[{i}]"] = "draft: one pattern per entity (and per index), rate 1/s, cold"
        return out


def model_spec(table: ModelTable, domain: str) -> tuple[Spec, list[tuple[str, dict[str, Any], str]], list[str]]:
    """The spec built from the model's table, its items as ``(entity, item, where)``, and notes."""
    b = _Builder(table, domain)
    by_facet: dict[str, list[int]] = {}
    for i, (facet, _, _) in enumerate(table.items):
        if facet is not None:
            by_facet.setdefault(facet, []).append(i)
    done: set[str] = set()
    for fname, pk_alias, sk_alias, listed in table.facets:
        if fname not in done:                   # a repeated FacetName: its items are already the first's
            done.add(fname)
            b.facet(fname, pk_alias, sk_alias, listed, by_facet.get(fname, []))
    b.rest([i for i, (facet, _, _) in enumerate(table.items) if facet is None])
    b.unclaimed()
    if table.differing:
        b.notes.append(f"{table.differing:,} items of the table's TableData differ from a facet's item with the "
                       "same key: the facet's kept")
    if table.repeated:
        b.notes.append(f"{table.repeated:,} keys are in two facets: the first facet's item kept")
    spec_table: dict[str, Any] = {"partition_key": table.partition_key, "sort_key": table.sort_key,
                                  "partition_key_type": table.partition_key_type, **table.billing,
                                  "indexes": {n: ix.to_dict() for n, ix in table.indexes.items()}}
    if table.sort_key:
        spec_table["sort_key_type"] = table.sort_key_type
    if table.name != f"blue_{domain}":
        spec_table["name"] = table.name
    patterns = b.patterns()
    b.inferred["rules"] = FOREIGN_RULES
    data = {"spec_version": 1, "domain": domain, "rules": "dynamodb",
            "description": f"Imported from the NoSQL Workbench table {table.name}: review the entities, keys and "
                           "access patterns",
            "table": spec_table, "entities": b.entities, "access_patterns": patterns, "inferred": b.inferred}
    spec = spec_from_dict(data, source=f"<workbench table {table.name}>")
    items = [(b.assigned[i], item, where) for i, (_, item, where) in enumerate(table.items)]
    return spec, items, b.notes
