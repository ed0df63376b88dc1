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
from blue_nb.imports.infer import ATTR_NAME, camel, infer_spec, snake, type_tag, unique_name
from blue_nb.imports.infer_keys import KeyInfo, canonical_key
from blue_nb.imports.infer_shapes import identifier
from blue_nb.spec import ATTRIBUTE_TYPES, Index, KeyTemplate, Spec, spec_from_dict

__all__ = ["ModelTable", "model_spec", "spec_differences"]

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
    mine = {n: (ix.partition_key, ix.partition_key_type, ix.sort_key, ix.sort_key_type if ix.sort_key else "S",
                _raw_projection(ix.projection)) for n, ix in t.indexes.items() if ix.type == "global"}
    theirs = {n: (ix.partition_key, ix.partition_key_type, ix.sort_key, ix.sort_key_type, table.raw_projections[n])
              for n, ix in table.indexes.items()}
    if mine != theirs:
        out.append("the global secondary indexes")
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


class _Builder:
    def __init__(self, table: ModelTable, domain: str):
        self.table, self.domain = table, domain
        self.entities: dict[str, dict[str, Any]] = {}
        self.inferred: dict[str, str] = {}
        self.notes: list[str] = []
        self.taken: set[str] = set()
        self.assigned: dict[int, str] = {}          # index into table.items -> entity

    def _take(self, base: str) -> str:
        """An entity name not taken yet (:func:`~.infer.unique_name`), now taken."""
        name = unique_name(base, self.taken)
        self.taken.add(name)
        return name

    def _infer(self, items: list[dict[str, Any]]):
        draft = infer_spec(items, self.domain, self.table.key_info(), source=f"the Workbench table {self.table.name}")
        plans = sorted((p for n, p in draft.plans.items() if n != draft.catch_all and p.count),
                       key=lambda p: -p.count)
        return draft, plans

    def _copy_notes(self, draft, old: str, new: str, skip: tuple[str, ...] = ()) -> None:
        for path, why in draft.data["inferred"].items():
            if path == f"entities.{old}" or path.startswith(f"entities.{old}."):
                rest = path[len(f"entities.{old}"):]
                if not any(rest == f".key.{s}" for s in skip):
                    self.inferred[f"entities.{new}{rest}"] = why

    def facet(self, fname: str, pk_alias: Any, sk_alias: Any, listed: list[str], rows: list[int]) -> None:
        t = self.table
        name = self._take(camel(fname))
        items = [t.items[i][1] for i in rows]
        inferred_keys: dict[str, str] = {}
        shapes: dict[str, str] = {}
        if items:
            draft, plans = self._infer(items)
            best = plans[0]
            inferred_keys = best.templates()
            shapes = {a: draft.data["inferred"].get(f"entities.{best.name}.key.{a}", "") for a in inferred_keys}
            if len(plans) > 1:
                self.notes.append(f"facet {fname}: its items have {len(plans)} key shapes; the templates of the "
                                  f"largest group ({best.count} of {len(items)} items) were taken")
        key: dict[str, str] = {}
        for attr, alias in ((t.partition_key, pk_alias), (t.sort_key, sk_alias)):
            if attr is None:
                continue
            if _alias_fits(alias, [it.get(attr) for it in items]):
                key[attr] = alias
                continue
            label = f"its key alias {alias!r} is a label, not a template that fits the items" if alias else \
                "it has no key alias"
            if attr in inferred_keys:
                key[attr] = inferred_keys[attr]
                self.inferred[f"entities.{name}.key.{attr}"] = f"{label}: {shapes[attr]}"
            else:
                key[attr] = "{" + identifier(attr, "key") + "}"
                self.inferred[f"entities.{name}.key.{attr}"] = (f"the facet has no items and {label}: the whole "
                                                                "value as one placeholder")
        for attr, template in inferred_keys.items():
            if attr not in key:
                key[attr] = template
                self.inferred[f"entities.{name}.key.{attr}"] = f"the facet's items: {shapes[attr]}"
        self._add(name, f"Facet {fname} of the Workbench model", key, listed, items)
        for i in rows:
            self.assigned[i] = name

    def rest(self, rows: list[int]) -> None:
        """Items outside every facet: to the facet entity whose table templates they fit, else grouped anew."""
        t = self.table
        templates = {n: [KeyTemplate(e["key"][a]) for a in t.key_names] for n, e in self.entities.items()}
        left = []
        for i in rows:
            item = t.items[i][1]
            values = [item.get(a) for a in t.key_names]
            fits = [n for n, ts in templates.items()
                    if all(isinstance(v, (str, Decimal)) and tp.matches(str(v)) for tp, v in zip(ts, values))]
            if len(fits) == 1:
                self.assigned[i] = fits[0]
            else:
                left.append(i)
        if not left:
            return
        items = [t.items[i][1] for i in left]
        draft, _ = self._infer(items)
        groups: dict[str, list[int]] = {}
        for i, item in zip(left, items):
            plan = draft.plan_for(item)
            groups.setdefault(plan.name if plan is not None else draft.catch_all, []).append(i)
        for old, rows_of in groups.items():
            name = self._take(old)
            members = [t.items[i][1] for i in rows_of]
            seen = list(dict.fromkeys(a for it in members for a in it))
            self._add(name, draft.data["entities"][old]["description"], draft.plans[old].templates(), seen, members)
            self._copy_notes(draft, old, name)
            self.inferred.setdefault(f"entities.{name}", f"{len(members):,} items outside every facet, grouped by "
                                                         "key prefix")
            for i in rows_of:
                self.assigned[i] = name

    def _add(self, name: str, description: str, key: dict[str, str], listed: list[str], items: list[dict]) -> None:
        names = [a for a in listed if a not in key] + [a for it in items for a in it if a not in key]
        attributes: dict[str, str] = {}
        for a in dict.fromkeys(names):
            if a in self.table.key_names:
                continue
            if not ATTR_NAME.match(a):
                self.notes.append(f"{name}: attribute {a[:40]!r} cannot be declared in a spec (whitespace): left out")
                continue
            attributes[a] = self._type(name, a, items, a in listed)
        self.entities[name] = {"description": description, "source": snake(name), "key": key,
                               "attributes": attributes}
        if not items:
            self.entities[name]["allow_empty"] = True

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
            users = [n for n, e in self.entities.items() if ix.partition_key in e["key"]]
            if users:
                top = max(users, key=lambda n: counts.get(n, 0))
                out.append({"name": f"query_{identifier(iname)}", "description": _DRAFT, "operation": "query",
                            "entities": [top],
                            "index": iname, "key_condition": {"pk": self.entities[top]["key"][ix.partition_key]},
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
    data = {"spec_version": 1, "domain": domain,
            "description": f"Imported from the NoSQL Workbench table {table.name}: review the entities, keys and "
                           "access patterns",
            "table": spec_table, "entities": b.entities, "access_patterns": patterns, "inferred": b.inferred}
    spec = spec_from_dict(data, source=f"<workbench table {table.name}>")
    items = [(b.assigned[i], item, where) for i, (_, item, where) in enumerate(table.items)]
    return spec, items, b.notes
