"""The draft spec an inference makes: entity plans with named key placeholders, the catch-all
entity, draft access patterns and the ``inferred`` notes (see :mod:`.infer`)."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from blue_nb.spec import ATTRIBUTE_TYPES, Index, Spec, spec_from_dict
from blue_nb.sources.infer_shapes import NEARLY_ALL, KeyShape, Slot, identifier, shape_text

if TYPE_CHECKING:
    from blue_nb.sources.infer import SpecInferrer

__all__ = ["ATTR_NAME", "CATCH_ALL", "Draft", "EntityPlan", "build_draft", "camel", "snake"]

CATCH_ALL = "Other"
ATTR_NAME = re.compile(r"[^\s]{1,255}\Z")


def camel(text: str) -> str:
    """An entity name from a prefix: ``PERSP`` -> ``Persp``, ``user_profile`` -> ``UserProfile``."""
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", text) if p]
    out = "".join(p.capitalize() if p.isupper() or p.islower() else p[0].upper() + p[1:] for p in parts)
    return out if out[:1].isalpha() else f"E{out}"


def snake(name: str) -> str:
    """``UserProfile`` -> ``user_profile``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


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


def _under(path: str, entities: set[str]) -> bool:
    return any(path == f"entities.{e}" or path.startswith(f"entities.{e}.") for e in entities)


# ---------------------------------------------------------------- building


def build_draft(inf: "SpecInferrer", plans: list[EntityPlan], indexes: dict[str, Index],
                index_attrs: set[str]) -> Draft:
    pk, sk = inf.keys.partition_key, inf.keys.sort_key
    taken: set[str] = set()
    for plan in plans:
        kind, tag = plan.group
        plan.name = _unique(camel(tag) if tag else camel(inf.domain), taken)
        taken.add(plan.name)
        plan.attributes = {a: t for a, t in plan.attributes.items() if ATTR_NAME.match(a)}
        _name_by_attribute(plan)
        _name_generic(plan, inf.domain, pk, sk)
    _name_across(plans, pk, sk)
    other = _catch_all(inf, index_attrs, taken)
    everything = {p.name: p for p in [*plans, other]}
    table = {"partition_key": pk, "sort_key": sk, "partition_key_type": inf.key_type(pk),
             **({"sort_key_type": inf.key_type(sk)} if sk else {}), **inf.keys.table,
             "indexes": {n: ix.to_dict() for n, ix in indexes.items()}}
    if inf.table_name and inf.table_name != f"blue_{inf.domain}":
        table["name"] = inf.table_name
    notes = _notes(inf, plans, indexes)
    data = {"spec_version": 1, "domain": inf.domain,
            "description": f"Draft inferred from {inf.source or 'data'}: review the entities, keys and access patterns",
            "table": table,
            "entities": {p.name: _entity(p, other is p) for p in everything.values()},
            "access_patterns": _patterns(plans, indexes, pk, sk),
            "inferred": notes}
    return Draft(data, everything, other.name, inf.group_of, list(inf.notes))


def _unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}" if base[-1:].isdigit() else f"{base}{n}", n + 1
    return name


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
        slot.name = _unique(base, plan.used | set(plan.attributes))
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


def _catch_all(inf: "SpecInferrer", index_attrs: set[str], taken: set[str]) -> EntityPlan:
    pk, sk = inf.keys.partition_key, inf.keys.sort_key
    attributes = {a: t.most_common(1)[0][0] for a, t in inf.attrs.items()
                  if a not in index_attrs and a not in (pk, sk) and ATTR_NAME.match(a)}
    plan = EntityPlan(_unique(CATCH_ALL, taken), None, {}, attributes)
    for attr in [pk, *([sk] if sk else []), *sorted(index_attrs)]:
        slot = Slot(0, _EmptyStats())
        slot.name = _unique(identifier(attr, "key"), plan.used | set(attributes))
        plan.used.add(slot.name)
        plan.shapes[attr] = KeyShape("whole", 0, 0, slots=[slot])
    return plan


class _EmptyStats:
    n, values, overflow, all_digits, matches = 0, set(), False, False, None


def _entity(plan: EntityPlan, catch_all: bool) -> dict[str, Any]:
    kind, tag = plan.group or ("", "")
    what = ("items whose keys or values fit no other entity" if catch_all else
            f"items whose sort key starts with {tag}#" if kind == "sk" else f"items whose sort key is {tag}"
            if kind == "const" else f"items whose partition key starts with {tag}#" if kind == "pk"
            else "items whose keys have no type prefix")
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
                cond["sk_begins_with"] = sk_shape.literal[0] + "#"
        name = _unique(f"{verb}_{snake(plan.name)}", names)
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
        name = _unique(f"query_{identifier(iname)}", names)
        names.add(name)
        out.append({"name": name, "description": "draft (inferred): one query per index", "operation": "query",
                    "entities": [top.name], "index": iname, "key_condition": {"pk": top.shapes[attr].template()},
                    "rate_per_second": 1, "_why": f"draft: a query of {iname} on the partition key of {top.name}, its "
                                                  f"largest entity, rate 1/s, cold"})
    return out


def _notes(inf: "SpecInferrer", plans: list[EntityPlan], indexes: dict[str, Index]) -> dict[str, str]:
    notes = {"table.partition_key": inf.keys.how or "given"}
    for name, ix in indexes.items():
        keys = ", ".join(a for a in (ix.partition_key, ix.sort_key) if a)
        notes[f"table.indexes.{name}"] = ("from DescribeTable" if inf.keys.indexes is not None else
                                          f"from attribute names that look like index keys ({keys}); projection "
                                          "all assumed")
    for plan in plans:
        e = f"entities.{plan.name}"
        notes[e] = f"{plan.count:,} items grouped by key prefix"
        for attr, shape in plan.shapes.items():
            text = f"from {shape.count:,} of {shape.present:,} keys shaped {shape_text(shape)}"
            named = [f"{{{s.name}}} {s.why}" for s in shape.slots if s.why]
            notes[f"{e}.key.{attr}"] = "; ".join([text, *named])
        mixed = [f"{a}: " + ", ".join(f"{t} in {n:,}" for t, n in sorted(ts.items(), key=lambda x: -x[1]))
                 for a, ts in plan.attr_types.items() if a in plan.attributes]
        notes[f"{e}.attributes"] = (f"types of the values in {plan.count:,} items (the most common type)"
                                    + (f"; mixed types: {'; '.join(mixed)}" if mixed else ""))
    return notes
