"""A schema change's migration plan: what happens to the items already stored, what it costs, how long it
takes, and what can go wrong (``blue-nb migrate OLD NEW``).

:func:`plan_migration` reads the items of the old design (built from ``--data`` rows, or a DuckDB file
that ``blue-nb load`` filled) and gives each its new shape (:func:`new_shape`: the new key templates
rendered from the values the old item holds, its attributes kept). Each item then **stays** (same key,
same content), **moves** (a new key: put new, delete old; ``partition`` when the partition key changes,
``sort`` when only the sort key does), is **updated** (same key, other attributes), **disappears** (its
entity is gone) or **appears** (an entity of the new design only, built from the rows). Each index entry
is kept, written, moved (its key changes: a delete and a put), updated or deleted.

The steps are those of an online migration: write both shapes from the application, backfill (a
parallel Scan of the table and BatchWriteItem puts of the new shapes), verify (a Scan), switch the
reads, stop the old writes, delete the old items, and prove the table is the new design's. Each step
has its read and write units (as blue_nb counts them: a Scan page rounded once to 4 KB, eventually
consistent; each put or delete rounded to 1 KB, one more per index entry written or deleted), its
dollars on demand and provisioned, and its time at a write rate; the same for a production size
(``items``: a total, or per entity), scaled per entity by the sample's units per item.

The risks are named from the data: new items over 400 KB, new keys that collide (two old items, one new
key; or a new key that is another item's old key), the backfill's own heat per partition at the chosen
rate, and the application writes that land on old keys while the backfill runs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from blue_nb.app.text import table_lines
from blue_nb.app.workflows import as_spec, located_items, open_loaded, source_files
from blue_nb.errors import SpecError
from blue_nb.items import ItemBuilder
from blue_nb.patterns import row_values
from blue_nb.patterns.paging import index_entry
from blue_nb.pricing import as_prices
from blue_nb.printing import number, usd
from blue_nb.sizing import (MAX_ITEM_BYTES, PAGE_BYTES, PARTITION_WCU, delete_write_units, item_size,
                            put_write_units, query_read_units, write_units)
from blue_nb.sources.files import iter_rows
from blue_nb.spec import Spec

__all__ = ["FATES", "Change", "EntityCounts", "IndexCounts", "MigrationPlan", "Risk", "Step", "new_shape",
           "delete_units", "global_index_changes", "index_backfill_units", "needs_new_table", "plan_migration",
           "put_units", "scan_read_units"]

FATES = ("stay", "move partition", "move sort", "update", "disappear", "appear")
DEFAULT_WRITE_RATE = PARTITION_WCU           # WCU/s when neither --rate nor a provisioned capacity says
READ_PER_WRITE = 3                           # a partition serves 3,000 RCU/s for its 1,000 WCU/s


@dataclass
class Change:
    """One item of the migration: its entity, where it came from, its old and new shapes and their keys."""

    entity: str
    where: str
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    old_key: tuple | None
    new_key: tuple | None
    fate: str = ""

    @property
    def shown(self) -> str:
        key = self.new_key if self.new_key is not None else self.old_key
        return f"{self.entity} {'/'.join(str(k) for k in key or ())} ({self.where})"


@dataclass
class EntityCounts:
    """Items of one entity by what the migration does to them."""

    entity: str
    fates: Counter = field(default_factory=Counter)

    @property
    def items(self) -> int:
        return sum(self.fates.values())

    def row(self) -> list[str]:
        return [self.entity, number(self.items, 0), *(number(self.fates[f], 0) for f in FATES)]


@dataclass
class IndexCounts:
    """Entries of one index (``table`` for the table's own items) by what the migration does to them."""

    index: str
    kept: int = 0
    written: int = 0
    moved: int = 0
    updated: int = 0
    deleted: int = 0
    backfill_wcu: int = 0            # units of the entries put (backfill)
    delete_wcu: int = 0              # units of the entries deleted (the last step)

    def row(self) -> list[str]:
        return [self.index, *(number(v, 0) for v in (self.kept, self.written, self.moved, self.updated,
                                                    self.deleted, self.backfill_wcu, self.delete_wcu))]


@dataclass
class Step:
    """One step of the migration, its units, dollars and time (sample and production)."""

    name: str
    what: str
    rcu: float = 0
    wcu: int = 0
    scaled_rcu: float = 0
    scaled_wcu: float = 0
    on_demand_usd: Decimal = Decimal(0)
    provisioned_usd: Decimal = Decimal(0)
    seconds: float = 0
    scaled_on_demand_usd: Decimal = Decimal(0)
    scaled_provisioned_usd: Decimal = Decimal(0)
    scaled_seconds: float = 0

    def to_dict(self) -> dict[str, Any]:
        return {k: (float(v) if isinstance(v, Decimal) else v) for k, v in vars(self).items()}


@dataclass
class Risk:
    """A risk named from the data: its kind, what it is, the items or keys it concerns, and whether it blocks."""

    kind: str                        # item-size, key-collision, key-overlap, backfill-heat, live-writes, key-schema
    message: str
    items: list[str] = field(default_factory=list)
    blocks: bool = False             # not executed without --force

    def lines(self) -> list[str]:
        head = f"{'BLOCKS' if self.blocks else 'risk'} {self.kind}: {self.message}"
        shown = [f"    {i}" for i in self.items[:10]]
        more = [f"    ... and {len(self.items) - 10:,} more"] if len(self.items) > 10 else []
        return [head, *shown, *more]


@dataclass
class MigrationPlan:
    """What :func:`plan_migration` found: per entity and index counts, the steps, the risks."""

    old: Spec | None                  # None: the first migration, from rows (Blue's SQLite) into an empty table
    new: Spec
    changes: list[Change]
    entities: list[EntityCounts]
    indexes: list[IndexCounts]
    steps: list[Step]
    risks: list[Risk]
    rate: float                       # write units per second of the backfill and the delete
    read_rate: float
    scale: dict[str, float]           # entity -> production items per sample item
    new_table: bool                   # the table's key schema changes: a new table and a full copy
    notes: list[str] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        return any(r.blocks for r in self.risks)

    @property
    def planned_units(self) -> dict[str, float]:
        """The sample's read and write units of every step together."""
        return {"rcu": sum(s.rcu for s in self.steps), "wcu": sum(s.wcu for s in self.steps)}

    def counts(self) -> dict[str, dict[str, int]]:
        return {e.entity: {f: e.fates[f] for f in FATES} for e in self.entities}

    def lines(self) -> list[str]:
        head = (f"migration of {self.new.table_name}: the items of the old design in the new one's shape"
                if self.old is not None else
                f"first migration into {self.new.table_name}: every item written from the rows into a new table")
        if self.new_table:
            head += (f" (the key schema changes: a new table, {self.new.table_name}-v2 unless --new-table names it, "
                     "and a full copy)")
        out = [head, "", "items per entity:"]
        out += table_lines([["entity", "items", *FATES], *(e.row() for e in self.entities)])
        out += ["", "index entries (table = the items themselves):"]
        out += table_lines([["index", "kept", "written", "moved", "updated", "deleted", "backfill WCU", "delete WCU"],
                            *(i.row() for i in self.indexes)])
        scaled = any(f != 1 for f in self.scale.values())
        out += ["", f"steps at {number(self.rate, 0)} WCU/s and {number(self.read_rate, 0)} RCU/s"
                + (" (sample | production)" if scaled else "") + ":"]
        head = ["step", "RCU", "WCU", "on demand", "provisioned", "time"]
        rows = []
        for s in self.steps:
            row = [s.name, number(s.rcu, None), number(s.wcu, 0), usd(s.on_demand_usd), usd(s.provisioned_usd),
                   _duration(s.seconds)]
            if scaled:
                row = [s.name, f"{number(s.rcu, None)} | {number(s.scaled_rcu, 0)}",
                       f"{number(s.wcu, 0)} | {number(s.scaled_wcu, 0)}",
                       f"{usd(s.on_demand_usd)} | {usd(s.scaled_on_demand_usd)}",
                       f"{usd(s.provisioned_usd)} | {usd(s.scaled_provisioned_usd)}",
                       f"{_duration(s.seconds)} | {_duration(s.scaled_seconds)}"]
            rows.append(row)
        out += table_lines([head, *rows])
        out += [f"  {s.name}: {s.what}" for s in self.steps]
        out += ["", "risks:" if self.risks else "risks: none found in the data"]
        for r in self.risks:
            out += ["  " + line for line in r.lines()]
        out += [f"note: {n}" for n in self.notes]
        return out

    def report_data(self) -> dict[str, Any]:
        """The plan as the review report shows it: cells as text (the report's "Migration" part)."""
        moved = sum(e.fates[f] for e in self.entities for f in ("move partition", "move sort"))
        p = self.planned_units
        scaled = any(f != 1 for f in self.scale.values())
        return {
            "summary": (f"{moved:,} of {sum(e.items for e in self.entities):,} items move to new keys "
                        f"(put new, delete old), {sum(e.fates['update'] for e in self.entities):,} are rewritten in "
                        f"place; {number(p['rcu'], None)} RCU and {number(p['wcu'], 0)} WCU in all, at "
                        f"{number(self.rate, 0)} WCU/s and {number(self.read_rate, 0)} RCU/s"
                        + (" (a new table: the key schema changes)" if self.new_table else "")),
            "entities": [["entity", "items", *FATES], *(e.row() for e in self.entities)],
            "steps": [["step", "RCU", "WCU", "on demand", "provisioned", "time", "what"],
                      *([s.name, number(s.rcu, None), number(s.wcu, 0), usd(s.on_demand_usd), usd(s.provisioned_usd),
                         _duration(s.seconds), s.what] for s in self.steps)],
            "scaled": scaled,
            "risks": [" ".join(line.strip() for line in r.lines()[:1]) + (f" ({'; '.join(r.items[:3])}"
                                                                         + (", ..." if len(r.items) > 3 else "") + ")"
                                                                         if r.items else "") for r in self.risks],
            "command": "blue-nb migrate OLD NEW --data DIR [--execute]",
        }

    def to_json(self) -> dict[str, Any]:
        return {"table": self.new.table_name, "first": self.old is None, "new_table": self.new_table,
                "rate_wcu_per_s": self.rate,
                "read_rate_rcu_per_s": self.read_rate, "entities": self.counts(),
                "indexes": [vars(i) for i in self.indexes], "steps": [s.to_dict() for s in self.steps],
                "planned": self.planned_units, "scale": self.scale, "blocked": self.blocked,
                "risks": [vars(r) for r in self.risks], "notes": self.notes}


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{number(seconds, 1, trim=True)} s"
    if seconds < 3600:
        return f"{number(seconds / 60, 1, trim=True)} min"
    return f"{number(seconds / 3600, 1, trim=True)} h"


def _key(item: Mapping[str, Any] | None, attrs: tuple[str, ...]) -> tuple | None:
    if item is None:
        return None
    return tuple(item.get(a) for a in attrs)


def _table_keys(spec: Spec) -> tuple[str, ...]:
    return tuple(a for a in spec.key_attributes() if a)


def needs_new_table(old: Spec, new: Spec) -> bool:
    """Whether the change needs a new table and a full copy: the table's key attributes or their types
    change, or a local index (DynamoDB defines those with the table only)."""
    t, u = old.table, new.table
    local = {n: i for n, i in t.indexes.items() if i.type == "local"}
    return ((t.partition_key, t.partition_key_type, t.sort_key, t.sort_key_type if t.sort_key else None)
            != (u.partition_key, u.partition_key_type, u.sort_key, u.sort_key_type if u.sort_key else None)
            or local != {n: i for n, i in u.indexes.items() if i.type == "local"})


def global_index_changes(old: Spec, new: Spec) -> tuple[list[str], list[str]]:
    """The global indexes the change deletes and creates: (deleted, created). A removed index is deleted, an
    added one created, and one whose keys or projection change is both (DynamoDB cannot change them in
    place: the execution deletes it, then creates it again, one UpdateTable per index)."""
    before = {n: i for n, i in old.table.indexes.items() if i.type == "global"}
    after = {n: i for n, i in new.table.indexes.items() if i.type == "global"}
    return ([n for n in before if after.get(n) != before[n]], [n for n in after if before.get(n) != after[n]])


def new_shape(old: Spec, new: Spec, entity: str, item: Mapping[str, Any], where: str = "") -> dict[str, Any]:
    """An old item in the new design's shape: the new key templates rendered from the values the old item
    holds (its templates parsed back, its attributes), and the attributes the new entity declares kept as
    they are (typed, nested values included)."""
    row = row_values(old, entity, item)
    e_new = new.entities[entity]
    out = ItemBuilder(new).build(e_new, row, where)
    for attr in e_new.attributes:
        if attr in item:
            out[attr] = item[attr]
        else:
            out.pop(attr, None)
    return out


def _old_items(old: Spec, data_dir: str | Path | None, duckdb: str | Path | None) -> Iterator[tuple[str, dict, str]]:
    """(entity, item, where) of the old design: from the rows, or from a DuckDB file loaded with them."""
    if duckdb is None:
        yield from located_items(old, data_dir)
        return
    store = open_loaded(old, duckdb)
    try:
        for entity in old.entities:
            for n, item in enumerate(store.iter_items(old.table_name, entity), 1):
                yield entity, item, f"{Path(duckdb).name} {entity} item {n}"
    finally:
        store.close()


def _appearing(old: Spec | None, new: Spec, data_dir: str | Path | None) -> Iterator[tuple[str, dict, str]]:
    """(entity, item, where) of the entities only the new design has (every one without an old design),
    built from their rows."""
    names = [n for n in new.entities if old is None or n not in old.entities]
    if not names or data_dir is None:
        return
    files = source_files(new, data_dir)
    builder = ItemBuilder(new)
    for name in names:
        for where, item in builder.located(new.entities[name], iter_rows(files[name])):
            yield name, item, where


def changes_of(old: Spec | None, new: Spec, data_dir: str | Path | None = None, duckdb: str | Path | None = None,
               old_items: Iterable[tuple[str, dict, str]] | None = None) -> list[Change]:
    """Every item of the migration with its fate (see the module). ``old_items``: the old design's
    (entity, item, where), already built from ``data_dir``'s rows by the caller (not built again)."""
    ok, nk = _table_keys(old or new), _table_keys(new)
    out: list[Change] = []
    if old is None:
        old_items = ()
    elif old_items is None:
        old_items = _old_items(old, data_dir, duckdb)
    for entity, item, where in old_items:
        if entity not in new.entities:
            out.append(Change(entity, where, item, None, _key(item, ok), None, "disappear"))
            continue
        shaped = new_shape(old, new, entity, item, where)
        c = Change(entity, where, item, shaped, _key(item, ok), _key(shaped, nk))
        if ok != nk or c.old_key != c.new_key:
            c.fate = "move partition" if ok != nk or c.old_key[0] != c.new_key[0] else "move sort"
        else:
            c.fate = "stay" if item == shaped else "update"
        out.append(c)
    for entity, item, where in _appearing(old, new, data_dir):
        out.append(Change(entity, where, None, item, None, _key(item, nk), "appear"))
    return out


def scan_read_units(sizes: list[int]) -> float:
    """Read units of a Scan over items of these sizes, eventually consistent: pages cut after the item that
    reaches 1 MB, each page rounded once to 4 KB. The items are taken in size order: DynamoDB's pages follow
    its hash order, which blue_nb does not model; the two differ by less than one unit per page."""
    total, page, used = 0.0, [], 0
    for s in sorted(sizes):
        page.append(s)
        used += s
        if used >= PAGE_BYTES:
            total += query_read_units(page, "eventual")
            page, used = [], 0
    return total + (query_read_units(page, "eventual") if page or not sizes else 0)


def put_units(spec: Spec, before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> int:
    """Write units of putting ``after`` where ``before`` is (None: nothing): the item, charged on the larger
    of the two, and each of ``spec``'s indexes whose entry changes (a new or a changed entry one write, a
    removed one a delete, a moved one both)."""
    units = put_write_units(item_size(before) if before is not None else None, item_size(after))
    for index in spec.table.indexes:
        eb, ea = index_entry(before, spec, index), index_entry(after, spec, index)
        if eb == ea:
            continue
        keys = tuple(a for a in spec.key_attributes(index) if a)
        if eb is not None and (ea is None or _key(eb, keys) != _key(ea, keys)):
            units += delete_write_units(item_size(eb))
        if ea is not None:
            units += write_units(item_size(ea))
    return units


def delete_units(spec: Spec, before: Mapping[str, Any]) -> int:
    """Write units of deleting ``before``: the item and each of its entries in ``spec``'s indexes."""
    entries = (index_entry(before, spec, index) for index in spec.table.indexes)
    return delete_write_units(item_size(before)) + sum(delete_write_units(item_size(e)) for e in entries if e)


def _entry_size(item: Mapping[str, Any] | None, spec: Spec, index: str) -> int | None:
    entry = index_entry(item, spec, index)
    return item_size(entry) if entry is not None else None


def _index_counts(changes: list[Change], old: Spec | None, new: Spec, new_table: bool) -> list[IndexCounts]:
    """The table's items and each index's entries: kept, written, moved, updated, deleted, and their units."""
    out = []
    old = old or new
    names = ["table", *dict.fromkeys([*new.table.indexes, *old.table.indexes])]
    for name in names:
        ic = IndexCounts(name)
        for c in changes:
            if name == "table":
                so = item_size(c.old) if c.old is not None else None
                sn = item_size(c.new) if c.new is not None else None
                ko, kn = c.old_key, c.new_key
                same = c.old == c.new
            else:
                so = _entry_size(c.old, old, name) if name in old.table.indexes else None
                sn = _entry_size(c.new, new, name) if name in new.table.indexes else None
                eo = index_entry(c.old, old, name) if so is not None else None
                en = index_entry(c.new, new, name) if sn is not None else None
                ko = _key(eo, tuple(a for a in old.key_attributes(name) if a)) if eo is not None else None
                kn = _key(en, tuple(a for a in new.key_attributes(name) if a)) if en is not None else None
                same = eo == en and not (c.old_key != c.new_key)
            if so is None and sn is None:
                continue
            if so is None:
                ic.written += 1
                ic.backfill_wcu += write_units(sn)
            elif sn is None:
                ic.deleted += 1
                ic.delete_wcu += delete_write_units(so)
            elif new_table or ko != kn or c.old_key != c.new_key:
                # the item moves (or a new table is filled): its entry is put new, the old one deleted
                ic.moved += 1
                ic.backfill_wcu += write_units(sn)
                ic.delete_wcu += delete_write_units(so)
            elif same:
                ic.kept += 1
            else:
                ic.updated += 1
                ic.backfill_wcu += put_write_units(so, sn) if name == "table" else write_units(sn)
        out.append(ic)
    return out


def _risks(changes: list[Change], old: Spec | None, new: Spec, rate: float, new_table: bool) -> list[Risk]:
    risks: list[Risk] = []
    big = [f"{c.shown}: {item_size(c.new):,} bytes" for c in changes
           if c.new is not None and item_size(c.new) > MAX_ITEM_BYTES]
    if big:
        risks.append(Risk("item-size", f"{len(big):,} item(s) would be over DynamoDB's limit of "
                          f"{MAX_ITEM_BYTES:,} bytes in the new shape", big, blocks=True))
    by_new: dict[tuple, list[Change]] = defaultdict(list)
    for c in changes:
        if c.new_key is not None:
            by_new[c.new_key].append(c)
    clash = [" and ".join(f"{c.entity} ({c.where})" for c in group) + f" -> one key {'/'.join(map(str, k))}"
             for k, group in by_new.items() if len(group) > 1]
    if clash:
        risks.append(Risk("key-collision", f"{len(clash):,} new key(s) would each hold two or more old items: "
                          "the last one written wins and the others are lost", clash, blocks=True))
    if not new_table:
        old_keys = {c.old_key: c for c in changes if c.old_key is not None}
        overlap = [f"{c.shown} lands on the old key of {old_keys[c.new_key].shown}" for c in changes
                   if c.new_key is not None and c.new_key in old_keys and old_keys[c.new_key] is not c
                   and old_keys[c.new_key].new_key != c.new_key]
        if overlap:
            risks.append(Risk("key-overlap", f"{len(overlap):,} new key(s) are another item's old key: the backfill "
                              "overwrites that item before it is moved, and the delete step would remove the new one",
                              overlap, blocks=True))
    risks += _heat_risks(changes, old, new, rate)
    live = _live_writes(changes, new)
    if live:
        risks.append(live)
    return risks


def _heat_risks(changes: list[Change], old: Spec | None, new: Spec, rate: float) -> list[Risk]:
    """The backfill's own heat: its puts arrive in Scan order, spread over the partitions in proportion to
    each one's units, so a partition that takes a share s of the units takes s x rate WCU/s."""
    out = []
    for index in ["table", *new.table.indexes]:
        per: Counter = Counter()
        for c in changes:
            if c.new is None or c.fate == "stay":
                continue
            if index == "table":
                per[c.new_key[0]] += write_units(item_size(c.new))
            else:
                entry = index_entry(c.new, new, index)
                if entry is not None:
                    per[entry[new.key_attributes(index)[0]]] += write_units(item_size(entry))
        total = sum(per.values())
        if not total:
            continue
        pk, units = max(per.items(), key=lambda kv: (kv[1], str(kv[0])))
        at = rate * units / total
        if at > PARTITION_WCU:
            safe = PARTITION_WCU * total / units
            out.append(Risk("backfill-heat", f"on {index}, partition {pk!s} takes {units:,} of the backfill's "
                            f"{total:,} WCU: {number(at, 0)} WCU/s at {number(rate, 0)} WCU/s, over the "
                            f"{PARTITION_WCU:,} WCU/s one partition serves; a rate up to {number(safe, 0)} WCU/s "
                            "keeps every partition under it", [f"{k!s}: {v:,} WCU" for k, v in per.most_common(5)]))
    return out


def _live_writes(changes: list[Change], new: Spec) -> Risk | None:
    moved = {c.entity for c in changes if c.fate in ("move partition", "move sort", "update", "appear")}
    writers = [p for p in new.access_patterns if not p.reads_only and set(p.entities) & moved]
    if not moved:
        return None
    inside = {a.pattern for p in writers if p.is_composite for a in p.actions}   # a transaction's writes: under it
    writers = [p for p in writers if p.name not in inside or p.rate_per_second]
    shown = [f"{p.name} ({', '.join(p.entities)}, {number(p.rate_per_second, None)} calls/s)" for p in writers]
    return Risk("live-writes", f"the application keeps writing {', '.join(sorted(moved))} while the backfill runs: "
                "a write on an old key after the Scan passed it would be lost in the new shape. Step 1 writes both "
                "shapes, so every such write lands on the new key too; the verify step compares each old item with "
                "its new shape and copies again any that differ, before the reads switch", shown)


def _scale(changes: list[Change], items: Mapping[str, int] | int | None) -> dict[str, float]:
    per = Counter(c.entity for c in changes)
    if items is None:
        return {e: 1.0 for e in per}
    if isinstance(items, int):
        total = sum(per.values())
        return {e: items / total for e in per}
    unknown = [e for e in items if e not in per]
    if unknown:
        raise SpecError(f"--items names {', '.join(unknown)}, which the migration has no items of",
                        where="--items", hint=f"entities: {', '.join(per)}; or give one total, e.g. --items 10000000")
    return {e: (items[e] / per[e] if e in items else 1.0) for e in per}


def plan_migration(old: Spec | str | Path | None, new: Spec | str | Path, *, data_dir: str | Path | None = None,
                   duckdb: str | Path | None = None, rate: float | None = None, read_rate: float | None = None,
                   items: Mapping[str, int] | int | None = None, prices=None,
                   old_items: Iterable[tuple[str, dict, str]] | None = None) -> MigrationPlan:
    """The migration from ``old`` to ``new`` of the items under ``data_dir`` (or in the DuckDB file ``duckdb``,
    loaded with ``old``'s items): see the module. ``rate``: write units per second of the backfill and the
    delete (default: the new table's provisioned write capacity, else 1,000 WCU/s); ``read_rate``: read units
    per second of the Scans (default: the provisioned read capacity, else 3 x the write rate); ``items``: the
    production size, a total or per entity. ``old=None``: the first migration, every item of ``new`` written
    from its rows (say, those ``import --from sqlite`` wrote from Blue's SQLite file) into a new table.
    ``old_items``: the old design's (entity, item, where) of ``data_dir``'s rows, when the caller built them
    already (the review report, which loads them for its checks): they are not built again."""
    old, new = (as_spec(old) if old is not None else None), as_spec(new)
    if old is None and data_dir is None:
        raise SpecError("the first migration writes the items built from the rows: give --data DIR", where="migrate",
                        hint="import --from sqlite writes the rows beside the draft spec")
    if (data_dir is None) == (duckdb is None):
        raise SpecError("give the old design's items: --data DIR (its rows) or --duckdb FILE (loaded with it)",
                        where="migrate", hint="e.g. --data data/sample/dialogue")
    if old is not None and old.table_name != new.table_name:
        raise SpecError(f"the designs name different tables ({old.table_name!r}, {new.table_name!r})",
                        where="table.name", hint="a migration changes one table: give both designs its name")
    rate = float(rate or new.table.write_capacity or DEFAULT_WRITE_RATE)
    read_rate = float(read_rate or new.table.read_capacity or READ_PER_WRITE * rate)
    if rate <= 0 or read_rate <= 0:
        raise SpecError("the rates must be above 0 units per second", where="--rate", hint="e.g. --rate 500")
    new_table = old is not None and needs_new_table(old, new)
    changes = changes_of(old, new, data_dir, duckdb, old_items)
    entities: dict[str, EntityCounts] = {}
    for c in changes:
        entities.setdefault(c.entity, EntityCounts(c.entity)).fates[c.fate] += 1
    indexes = _index_counts(changes, old, new, new_table)
    scale = _scale(changes, items)
    steps = _steps(changes, indexes, old, new, new_table, scale, rate, read_rate, as_prices(prices))
    notes = []
    if old is not None and duckdb is not None and any(n not in old.entities for n in new.entities):
        notes.append("the entities only the new design has appear from their rows: give --data to count them")
    dropped, created = global_index_changes(old, new) if old is not None and not new_table else ([], [])
    if dropped or created:
        notes.append(f"global index(es) change: {_index_ops(dropped, created)}, one UpdateTable each, before the "
                     "backfill's puts; DynamoDB backfills a created index itself, at the cost of its entries' writes "
                     "(counted in the backfill); the reads of a deleted or re-created index wait until it is ACTIVE")
    return MigrationPlan(old, new, changes, list(entities.values()), indexes, steps,
                         _risks(changes, old, new, rate, new_table), rate, read_rate, scale, new_table, notes)


def index_backfill_units(new: Spec, indexes: list[str], item: Mapping[str, Any]) -> int:
    """Write units DynamoDB spends on ``item`` (already in the table) when it backfills the created global
    ``indexes`` of ``new``: one write per entry the item has there, on the entry's size."""
    return sum(write_units(item_size(e)) for e in (index_entry(item, new, i) for i in indexes) if e is not None)


def _index_ops(dropped: list[str], created: list[str]) -> str:
    """The UpdateTable calls of a change of global indexes, in order, as text."""
    again = [n for n in dropped if n in created]
    return ", ".join([*(f"delete {n}" + (" (its keys or projection change)" if n in again else "") for n in dropped),
                      *(f"create {n}" + (" again" if n in again else "") for n in created)])


def _steps(changes: list[Change], indexes: list[IndexCounts], old: Spec | None, new: Spec, new_table: bool,
           scale: dict[str, float], rate: float, read_rate: float, prices) -> list[Step]:
    old_by_key = {c.old_key: c.old for c in changes if c.old is not None}
    new_keys = {c.new_key for c in changes if c.new is not None}
    gone = [c for c in changes if c.old is not None and c.old_key not in new_keys]
    puts = [(c.entity, None if new_table else old_by_key.get(c.new_key), c.new) for c in changes
            if c.new is not None and (new_table or old_by_key.get(c.new_key) != c.new)]
    old_sizes = [(c.entity, item_size(c.old)) for c in changes if c.old is not None]
    final = [(c.entity, item_size(c.new)) for c in changes if c.new is not None]
    during = final + ([] if new_table else [(c.entity, item_size(c.old)) for c in gone])
    put_w, delete_w = Counter(), Counter()
    for entity, before, after in puts:
        put_w[entity] += put_units(new, before, after)
    for c in [] if new_table else gone:
        delete_w[c.entity] += delete_units(new, c.old)
    # a created global index (new, or changed: deleted and created again) before the puts: DynamoDB writes the
    # entries of the items already there itself, at their cost; the puts and deletes then pay for the entries
    # they change (put_units, delete_units count the new design's indexes)
    dropped, fresh = global_index_changes(old, new) if old is not None and not new_table else ([], [])
    for c in changes:
        if c.old is not None:
            put_w[c.entity] += index_backfill_units(new, fresh, c.old)
    backfill_wcu, delete_wcu = sum(put_w.values()), sum(delete_w.values())

    def bytes_of(sized: list[tuple[str, int]]) -> Counter:
        out: Counter = Counter()
        for entity, size in sized:
            out[entity] += size
        return out

    def factor(weights: Counter) -> float:
        """The production size over the sample's, for units spread over the entities as ``weights``."""
        total = sum(weights.values())
        if not total:
            return sum(scale.values()) / len(scale) if scale else 1.0
        return sum(scale.get(e, 1.0) * w for e, w in weights.items()) / total

    first = old is None
    steps = [
        Step("1 dual writes", "the application writes to its SQLite files and to the table (its own write units "
             "are its bill, not the migration's)" if first else "the application writes both shapes of every item "
             "it changes (its own write units, doubled for the moved entities, are its bill, not the migration's)"),
        Step("2 backfill", "the table created, every item built from the rows put with BatchWriteItem (index "
             "entries included), retried with backoff; resumable: a put is idempotent" if first else
             (f"a new table created with the new design ({new.table_name}-v2 unless --new-table names it), the old "
              "table kept as it is; " if new_table else "")
             + "a parallel Scan of the old items, each new shape put with BatchWriteItem (index entries included), "
             "retried with backoff; resumable: a put is idempotent"
             + (f"; first, one UpdateTable per index: {_index_ops(dropped, fresh)}, each waited for (ACTIVE), "
                "DynamoDB backfilling a created index itself from the items already there (its entries' writes "
                "included)" if dropped or fresh else ""), scan_read_units([z for _, z in old_sizes]),
             backfill_wcu),
        Step("3 verify", "a Scan of the " + ("new " if new_table else "") + "table: each old item's new shape must be "
             "there, equal (a missing or different one is put again)", scan_read_units([z for _, z in during])),
        Step("4 switch reads", "the application reads the new table" if new_table else
             "the application reads the new keys"),
        Step("5 stop old writes", "the application writes the new table only" if new_table else
             "the application writes the new shape only"),
        Step("6 delete old", ("the old table deleted whole, once nothing uses it (no units; --execute keeps it "
                              "unless --delete-old-table)" if new_table else
                              "each old item no longer in the new design deleted with BatchWriteItem (index entries "
                              "included)"), 0, delete_wcu),
        Step("7 prove", "a Scan of the " + ("new " if new_table else "") + "table: it equals what apply NEW builds, "
             "item for item",
             scan_read_units([z for _, z in final])),
    ]
    # each step's units scaled entity by entity: writes by each entity's units, Scans by its bytes
    weights = {"2 backfill": (bytes_of(old_sizes), put_w), "3 verify": (bytes_of(during), Counter()),
               "6 delete old": (Counter(), delete_w), "7 prove": (bytes_of(final), Counter())}
    hours = Decimal(1) / 3600
    for s in steps:
        read_w, write_w = weights.get(s.name, (Counter(), Counter()))
        s.scaled_rcu, s.scaled_wcu = s.rcu * factor(read_w), s.wcu * factor(write_w)
        for attr, (r, w) in (("", (s.rcu, s.wcu)), ("scaled_", (s.scaled_rcu, s.scaled_wcu))):
            rd, wd = Decimal(str(r)), Decimal(str(w))
            setattr(s, attr + "on_demand_usd", (rd * prices.on_demand_read_per_million
                                                + wd * prices.on_demand_write_per_million) / Decimal(1_000_000))
            # capacity provisioned at the step's rate for the step's time: units x price per unit-hour / 3600
            setattr(s, attr + "provisioned_usd", (rd * prices.provisioned_rcu_hour
                                                  + wd * prices.provisioned_wcu_hour) * hours)
            setattr(s, attr + "seconds", r / read_rate + w / rate)
    return steps
