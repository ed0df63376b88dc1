"""Sample rows for any spec, from its key templates, attribute types and ``generate:`` section.

``sample_spec(spec, scale=100_000, seed=7, out_dir="scratch/orders")`` writes one file per
entity source (CSV when every column is a string or a number, JSON Lines otherwise) that
``blue-nb load`` turns into items, and returns the rows written per source.

The entities form a tree: an entity's parent is the entity whose table-key columns are the
largest proper subset of its own (``Expert`` {dialogue_id, expert} under ``Dialogue``
{dialogue_id}), or the one ``generate.entities.<E>.parent`` names. Rows are written parent
first, each parent's children right after it, one top-level item at a time, so every child's
key names a parent that exists and memory stays flat at any scale. A child copies its parent's
key columns; its own key columns are drawn so that its key is unique under that parent.

How many: ``count`` (a total, for an entity without a parent) or ``per_parent`` (a distribution;
default uniform 1..5). Entities without a count share ``scale`` by the expected size of their
tree. The same ``(spec, scale, seed)`` always gives the same bytes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from blue_nb.errors import SourceError, SpecError
from blue_nb.printing import Fields
from blue_nb.samples.draws import (Distribution, FieldDraw, TextSource, compile_distribution, compile_field,
                                   looks_like_time)
from blue_nb.samples.writers import SourceFiles, row_ticks
from blue_nb.spec import Placeholder, Spec, load_spec

__all__ = ["DEFAULT_PER_PARENT", "EntityPlan", "SamplePlan", "check_scale_and_seed", "plan_sample", "sample_spec"]

DEFAULT_PER_PARENT = {"uniform": [1, 5]}
_SCALAR_TYPES = frozenset({"S", "N"})
_MAX_KEY_RETRIES = 20
_MAX_MISSES = 100           # rows in a row that found no new key: the key space is spent


@dataclass
class EntityPlan:
    """One entity's part of the plan: its source and columns, parent, count and column draws."""

    name: str
    source: str
    columns: tuple[str, ...]
    key_columns: tuple[str, ...]          # the columns of the table key templates
    inherited: tuple[str, ...]            # key columns copied from the parent row
    own_key: tuple[str, ...]              # key columns drawn here (unique under the parent)
    parent: str | None
    per_parent: Distribution | None
    count: int | None
    draws: dict[str, FieldDraw]
    fmt: str
    children: list["EntityPlan"] = field(default_factory=list)
    refs: dict[str, list] = field(default_factory=dict)   # column -> the values other columns refer to
    ref_keys: tuple[str, ...] = ()                        # own key columns drawn by reference

    def subtree_mean(self) -> float:
        """Expected rows of this entity's item and everything under it."""
        return 1.0 + sum(c.per_parent.mean * c.subtree_mean() for c in self.children)  # type: ignore[union-attr]

    def subtree_low(self) -> float:
        return 1.0 + sum(c.per_parent.low * c.subtree_low() for c in self.children)  # type: ignore[union-attr]


@dataclass
class SamplePlan:
    """The whole generation plan: top-level entities (with their trees) and their counts."""

    roots: list[EntityPlan]
    counts: dict[str, int]                # top-level entity -> rows
    entities: dict[str, EntityPlan]

    @property
    def sources(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        return {e.source: (e.fmt, e.columns) for e in self.entities.values()}


def _key_columns(spec: Spec, entity) -> tuple[str, ...]:
    names: dict[str, None] = {}
    for attr in (spec.table.partition_key, spec.table.sort_key):
        t = entity.templates.get(attr) if attr else None
        for p in (t.placeholders if t else ()):
            names.setdefault(p)
    return tuple(names)


def _all_columns(entity) -> tuple[str, ...]:
    names: dict[str, None] = {}
    for t in entity.templates.values():
        for p in t.placeholders:
            names.setdefault(p)
    for a in entity.attributes:
        names.setdefault(a)
    return tuple(names)


def _numeric_key(spec: Spec, entity, column: str) -> bool:
    """True when a key template formats ``column`` as an integer, or is ``{column}`` on an N key."""
    types = {spec.table.partition_key: spec.table.partition_key_type, spec.table.sort_key: spec.table.sort_key_type}
    for idx in spec.table.indexes.values():
        if idx.partition_key:
            types[idx.partition_key] = idx.partition_key_type
        if idx.sort_key:
            types[idx.sort_key] = idx.sort_key_type
    for attr, t in entity.templates.items():
        holders = [part for part in t.parts if isinstance(part, Placeholder)]
        if any(h.name == column and h.is_integer for h in holders):
            return True
        if len(t.parts) == 1 and holders and holders[0].name == column and types.get(attr) in ("N", "B"):
            return True
    return False


def _parent_of(spec: Spec, name: str, keys: dict[str, tuple[str, ...]], gen: dict) -> str | None:
    declared = (gen.get(name) or {}).get("parent")
    path = f"generate.entities.{name}.parent"
    if declared is not None:
        if declared not in spec.entities:
            raise SpecError(f"parent {declared!r} is not an entity", where=spec.where(path),
                            hint="known entities: " + ", ".join(spec.entities))
        if not set(keys[declared]) <= set(keys[name]) or declared == name:
            raise SpecError(f"{name}'s key does not hold {declared}'s key columns "
                            f"({', '.join(keys[declared])}), so a {name} cannot name its {declared}",
                            where=spec.where(path), hint="name an entity whose key columns the child's key repeats")
        return declared
    own = set(keys[name])
    best = [o for o in spec.entities if o != name and set(keys[o]) < own]
    if not best:
        return None
    return max(best, key=lambda o: (len(keys[o]), -list(spec.entities).index(o)))


def plan_sample(spec: Spec, scale: int) -> tuple[SamplePlan, Callable[[random.Random], None]]:
    """Check the spec's ``generate:`` section against the spec and the scale; the plan, and a
    function that compiles the column draws for one run's ``rng``."""
    gen = (spec.generate or {}).get("entities") or {}
    for name in gen:
        if name not in spec.entities:
            raise SpecError(f"generate names entity {name!r}, which the spec does not declare",
                            where=spec.where(f"generate.entities.{name}"),
                            hint="known entities: " + ", ".join(spec.entities))
    sources: dict[str, str] = {}
    for name, e in spec.entities.items():
        src = e.source or name
        if src in sources:
            raise SpecError(f"entities {sources[src]} and {name} read the same source {src!r}: blue-nb sample "
                            "writes one file per entity", where=spec.where(f"entities.{name}.source"),
                            hint="give each entity its own source to generate sample rows")
        sources[src] = name
    keys = {n: _key_columns(spec, e) for n, e in spec.entities.items()}
    plans: dict[str, EntityPlan] = {}
    for name, e in spec.entities.items():
        g = gen.get(name) or {}
        parent = _parent_of(spec, name, keys, gen)
        path = f"generate.entities.{name}"
        columns = _all_columns(e)
        for col in g.get("fields") or {}:
            if col not in columns:
                raise SpecError(f"{name} has no column {col!r} (not in its key templates or attributes)",
                                where=spec.where(f"{path}.fields.{col}"),
                                hint="columns: " + ", ".join(columns))
        if parent is None and "per_parent" in g:
            raise SpecError(f"{name} has no parent, so per_parent cannot apply", where=spec.where(f"{path}.per_parent"),
                            hint="give count (a total), or name a parent")
        if parent is not None and "count" in g:
            raise SpecError(f"{name} is drawn per {parent} item, so a total count cannot apply",
                            where=spec.where(f"{path}.count"), hint="give per_parent instead")
        per_parent = None
        if parent is not None:
            try:
                per_parent = compile_distribution(g.get("per_parent", DEFAULT_PER_PARENT), f"{path}.per_parent")
            except SpecError as err:
                raise SpecError(err.msg, where=spec.where(err.where), hint=err.hint) from None
        inherited = tuple(c for c in keys[name] if parent and c in keys[parent])
        fmt = "csv" if all(t in _SCALAR_TYPES for t in e.attributes.values()) else "jsonl"
        plans[name] = EntityPlan(name=name, source=e.source or name, columns=columns, key_columns=keys[name],
                                 inherited=inherited, own_key=tuple(c for c in keys[name] if c not in inherited),
                                 parent=parent, per_parent=per_parent, count=g.get("count"), draws={}, fmt=fmt)
    for p in plans.values():
        if p.parent:
            plans[p.parent].children.append(p)
    roots = [p for p in plans.values() if p.parent is None]
    for p in plans.values():
        low = p.per_parent.low if p.per_parent else 0
        if low > scale:
            raise SpecError(f"each {p.parent} item gets at least {low:g} {p.name} items, more than the scale "
                            f"({scale:,} rows in all)", where=spec.where(f"generate.entities.{p.name}.per_parent"),
                            hint="lower per_parent, or raise --scale")
    counted = sum(p.count * p.subtree_mean() for p in roots if p.count is not None)
    free = [p for p in roots if p.count is None]
    counts = {p.name: p.count for p in roots if p.count is not None}
    # first draws (a deliberate outlier) add rows to one top-level item: the others share what is left;
    # a sample smaller than twice what they add leaves them out
    extra = sum(p.per_parent.first_extra * p.subtree_mean() for p in plans.values()
                if p.per_parent is not None and plans[_root_of(plans, p.name)].count is None)
    if extra > scale / 2:
        for p in plans.values():
            if p.per_parent is not None:
                p.per_parent.drop_first()
        extra = 0.0
    left = max(0.0, scale - counted - extra)
    for p in free:
        counts[p.name] = max(1, round(left / len(free) / p.subtree_mean()))

    refs: dict[str, list] = {f"{n}.{c}": [] for n, p in plans.items() for c in p.columns}

    def compile_draws(rng: random.Random) -> None:
        text = TextSource(rng)
        for pool in refs.values():
            pool.clear()
        for name, p in plans.items():
            p.refs = {}
            p.ref_keys = tuple(c for c, d in ((gen.get(name) or {}).get("fields") or {}).items()
                               if "ref" in d and c in p.own_key)
        for name, p in plans.items():
            for col, decl in ((gen.get(name) or {}).get("fields") or {}).items():
                if "ref" in decl and decl["ref"] in refs:
                    owner, ref_col = decl["ref"].split(".", 1)
                    plans[owner].refs[ref_col] = refs[decl["ref"]]
        for name, p in plans.items():
            e = spec.entities[name]
            decls = ((gen.get(name) or {}).get("fields") or {})
            p.draws = {}
            for k, col in enumerate(p.columns):
                if col in p.inherited:
                    continue
                decl = decls.get(col)
                if decl is None and col in p.own_key and col == p.own_key[-1]:
                    decl = ({"timestamp": {}} if looks_like_time(col) else {"seq": {}} if p.parent
                            else {"seq": {"prefix": _stem(col) + "-", "width": 5}})
                try:
                    p.draws[col] = compile_field(decl or {}, name=col, dtype=e.attributes.get(col, "key"),
                                                 numeric_key=_numeric_key(spec, e, col),
                                                 path=f"generate.entities.{name}.fields.{col}", text=text,
                                                 refs=refs)
                except SpecError as err:
                    raise SpecError(err.msg, where=spec.where(err.where), hint=err.hint) from None
    compile_draws(random.Random(0))          # refuse a bad declaration before any file is opened
    return SamplePlan(roots=roots, counts=counts, entities=plans), compile_draws


def _root_of(plans: dict[str, EntityPlan], name: str) -> str:
    while plans[name].parent:
        name = plans[name].parent  # type: ignore[assignment]
    return name


def _stem(col: str) -> str:
    return col[:-3] if col.endswith("_id") else col


class _Writer:
    """Writes one entity's rows and, after each, its children's."""

    def __init__(self, rng: random.Random, files: SourceFiles, tick: Callable[[int], None],
                 entities: list[EntityPlan]):
        self.rng, self.files, self.tick = rng, files, tick
        self.pending = 0
        self.pools = [pool for p in entities for pool in p.refs.values()]

    @staticmethod
    def _to_itself(p: EntityPlan, row: dict[str, Any]) -> bool:
        """An item whose key refers to the same item twice (a link from a document to itself)."""
        return len(p.ref_keys) > 1 and len({row[c] for c in p.ref_keys}) < len(p.ref_keys)

    def flush(self) -> None:
        if self.pending:
            self.tick(self.pending)
            self.pending = 0

    def rows(self, p: EntityPlan, n: int, parent_row: dict[str, Any] | None) -> None:
        rng, draws, columns = self.rng, p.draws, p.columns
        write = self.files.writer(p.source)
        base = {c: parent_row[c] for c in p.inherited} if parent_row is not None else {}
        state: dict[str, dict] = {c: {} for c in draws}
        own_unique = not p.own_key or any(draws[c].unique for c in p.own_key if c in draws)
        seen: set = set()
        misses = 0
        for i in range(n):
            if parent_row is None:
                for pool in self.pools:
                    pool.clear()         # references stay within one top-level item
            row = dict(base)
            for c, d in draws.items():
                row[c] = d.draw(rng, i, state[c])
            if p.own_key and any(row[c] is None for c in p.own_key):
                continue                 # a reference with nothing to refer to yet: no row
            if not own_unique or p.ref_keys:
                key = tuple(row[c] for c in p.own_key)
                tries = 0
                while (key in seen or self._to_itself(p, row)) and tries < _MAX_KEY_RETRIES:
                    for c in p.own_key:
                        row[c] = draws[c].draw(rng, i, state[c])
                    key = tuple(row[c] for c in p.own_key)
                    tries += 1
                if key in seen or self._to_itself(p, row):   # the declared values hardly make another key here
                    misses += 1
                    if misses >= _MAX_MISSES:
                        break
                    continue
                misses = 0
                seen.add(key)
            write(tuple(row.get(c) for c in columns))
            for c, pool in p.refs.items():
                pool.append(row[c])
            self.pending += 1
            if self.pending >= 4096:
                self.flush()
            for child in p.children:
                self.rows(child, child.per_parent.draw(rng), row)  # type: ignore[union-attr]


def check_scale_and_seed(scale: Any, seed: Any) -> None:
    """Refuse a scale that is not a whole number >= 1 and a seed that is not an integer."""
    if isinstance(scale, bool) or not isinstance(scale, int) or scale < 1:
        raise SourceError(f"scale must be a whole number >= 1, got {scale!r}", where="scale",
                          hint="scale is the approximate total number of rows, e.g. --scale 5000")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SourceError(f"seed must be an integer, got {seed!r}", where="seed", hint="e.g. --seed 7")


def sample_spec(spec: Spec | str | Path, *, scale: int, seed: int, out_dir: str | Path, progress: bool = False,
                desc: str | None = None) -> dict[str, int]:
    """Write sample source files for ``spec`` (a Spec, or a spec file's path) into ``out_dir``; return
    the rows written per source (a dict a notebook shows as a table)."""
    if not isinstance(spec, Spec):
        spec = load_spec(spec)
    check_scale_and_seed(scale, seed)
    plan, compile_draws = plan_sample(spec, scale)
    rng = random.Random(seed)
    compile_draws(rng)
    expected = round(sum(plan.counts[p.name] * p.subtree_mean() for p in plan.roots))
    with row_ticks(expected, desc or f"sample {spec.domain}", progress) as tick, \
            SourceFiles(out_dir, plan.sources) as files:
        writer = _Writer(rng, files, tick, list(plan.entities.values()))
        for p in plan.roots:
            writer.rows(p, plan.counts[p.name], None)
        writer.flush()
    return Fields(files.counts)
