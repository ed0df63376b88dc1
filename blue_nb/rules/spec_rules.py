"""ADR 0018's principles, checked on the spec alone (ADR2..ADR5 here; ADR1 needs several specs),
plus whether each access pattern's key condition can find the keys of the entities it returns."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Iterable

from blue_nb.rules.findings import Finding
from blue_nb.rules.keyspace import can_start_with, pattern_where, shape
from blue_nb.rules.registry import Context, define, spec_check
from blue_nb.spec import SEPARATOR, AccessPattern, Entity, KeyTemplate, Placeholder, Spec

__all__ = ["single_table_findings"]

ADR1 = define("ADR1-SINGLE-TABLE", "error", "one domain is modeled as several tables (several specs share a domain)")
ADR2 = define("ADR2-PARTITION-SCOPED", "error", "a hot read is not a GetItem or Query on one partition key value")
ADR3 = define("ADR3-NO-CROSS-PARTITION-JOIN", "error",
              "a hot pattern joins items that live under another partition key")
ADR4 = define("ADR4-SINGLE-WRITER", "error", "more than one writer writes items under the same partition key template")
ADR5 = define("ADR5-SORT-KEY-FORMAT", "error",
              "a sort key template is not TYPE#subkey... with an upper-case TYPE, nor a bare constant such as META")
MISMATCH = define("PATTERN-KEY-MISMATCH", "error",
                  "an access pattern's key condition cannot find the keys of the entities it returns")
KEY_TYPE = define("KEY-TYPE", "error",
                  "a key template cannot render its key attribute's type (an N key takes digits only)")

_TYPE = re.compile(r"[A-Z][A-Z0-9_]*\Z")
_NUMBER_LITERAL = re.compile(r"[0-9.eE+\-]*\Z")


# -- ADR 1 ---------------------------------------------------------------------------------------
def single_table_findings(spec: Spec, others: Iterable[Spec]) -> list[Finding]:
    """ADR1 for one spec: an error when one of ``others`` models the same domain."""
    same = [o for o in others if o is not spec and o.domain == spec.domain]
    if not same:
        return []
    names = ", ".join(f"{o.table_name} ({o.source_path or 'unsaved spec'})" for o in same)
    return [ADR1.finding(
        "domain", f"domain {spec.domain!r} is already modeled by {names}; this spec makes table "
        f"{spec.table_name} a second table for it",
        hint="merge the entities into one spec and one table (keys TYPE#subkey under the shared partition key), "
             "or give the other model its own domain if it really is another domain")]


# -- ADR 2 ---------------------------------------------------------------------------------------
@spec_check("ADR2-PARTITION-SCOPED")
def hot_reads_are_partition_scoped(ctx: Context) -> Iterable[Finding]:
    for i, p in enumerate(ctx.spec.access_patterns):
        if p.operation == "scan":
            yield _scan_finding(ctx, i, p)
        elif p.is_read and p.hot and (p.key_condition is None or not p.key_condition.pk):
            yield ADR2.finding(pattern_where(i, p) + ".key_condition",
                               f"hot pattern {p.name} has no partition key equality",
                               hint="give the key condition pk: one partition key value")


def _scan_finding(ctx: Context, i: int, p: AccessPattern) -> Finding:
    label = ctx.layout.space(p.index).label
    if not p.hot:
        return ADR2.finding(pattern_where(i, p) + ".operation", f"{p.name} scans {label}: a cold path may, "
                            "but each run reads every partition", severity="info",
                            hint="keep it off hot paths; run it as a parallel Scan or from an S3 export")
    return ADR2.finding(
        pattern_where(i, p) + ".operation",
        f"hot pattern {p.name} scans {label}: it reads every partition instead of one partition key value"
        + (f" ({p.rate_per_second:g}/s)" if p.rate_per_second else ""),
        hint="make it a query on one partition key value (add a GSI keyed by what the scan filters on), "
             "or take it off the hot path (hot: false)")


# -- ADR 3 ---------------------------------------------------------------------------------------
@spec_check("ADR3-NO-CROSS-PARTITION-JOIN")
def hot_joins_stay_in_the_partition(ctx: Context) -> Iterable[Finding]:
    spec = ctx.spec
    names = {p.name: p for p in spec.access_patterns}
    for i, p in enumerate(spec.access_patterns):
        if not p.hot:
            continue
        for j, join in enumerate(p.joins):
            q = names.get(join.pattern)
            if q is None or _same_partition(ctx, p, q, join.params):
                continue
            target = (f"pk {q.key_condition.pk!r} on {ctx.layout.space(q.index).label}" if q.key_condition
                      else f"a {q.operation}")
            yield ADR3.finding(
                f"{pattern_where(i, p)}.joins[{j}]",
                f"hot pattern {p.name} joins {q.name}, which reads {target} with params {dict(join.params) or '{}'}: "
                f"not the partition {p.key_condition.pk if p.key_condition else '?'!r} that {p.name} reads",
                hint="denormalize what the join fetches into the items the pattern returns (copy the fields, "
                     "keep them up to date on write), or keep the join off the hot path")


def _same_partition(ctx: Context, p: AccessPattern, q: AccessPattern, params: dict[str, str]) -> bool:
    if not p.key_condition or not q.key_condition:
        return False
    if ctx.layout.space(p.index).partition_space != ctx.layout.space(q.index).partition_space:
        return False
    renamed = tuple(part if isinstance(part, str) else ("{", params.get(part.name, part.name), part.fmt)
                    for part in q.key_condition.pk_template.parts)
    return renamed == shape(p.key_condition.pk_template, names=True)


# -- ADR 4 ---------------------------------------------------------------------------------------
@spec_check("ADR4-SINGLE-WRITER")
def one_writer_per_partition(ctx: Context) -> Iterable[Finding]:
    pk, sk = ctx.spec.table.partition_key, ctx.spec.table.sort_key
    groups: dict[str, list[Entity]] = defaultdict(list)
    for e in ctx.spec.entities.values():
        if e.writer and pk in e.key:
            groups[e.key[pk]].append(e)
    for template, ents in groups.items():
        writers = Counter(e.writer for e in ents)
        if len(writers) < 2:
            continue
        main = writers.most_common(1)[0][0]
        who = "; ".join(f"{w}: {', '.join(e.name for e in ents if e.writer == w)}" for w in writers)
        for e in ents:
            if e.writer != main:
                own = (e.templates[sk].type_prefix if sk in e.key else "") or e.name.upper()
                yield ADR4.finding(
                    f"entities.{e.name}.writer",
                    f"{e.writer} writes {e.name} items under the partition key {template!r}, where {main} writes too "
                    f"({who}): two writers contend for one partition",
                    hint=f"let one service own every write under {template!r} (e.g. {e.writer} sends its writes "
                         f"through {main}), or move {e.name} to a partition of its own such as "
                         f"'{own}S#{template}'")


# -- ADR 5 ---------------------------------------------------------------------------------------
@spec_check("ADR5-SORT-KEY-FORMAT")
def sort_keys_are_typed(ctx: Context) -> Iterable[Finding]:
    t = ctx.spec.table
    if not t.sort_key:
        yield ADR5.finding("table.sort_key", "the table has no sort key, so items cannot be typed TYPE#subkey",
                           hint="add sort_key: sk and give every entity an sk template such as META or TYPE#{id}")
        return
    if t.sort_key_type != "S":
        yield ADR5.finding("table.sort_key_type", f"the sort key is of type {t.sort_key_type}; TYPE#subkey needs S",
                           hint="use sort_key_type: S")
        return
    for e in ctx.spec.entities.values():
        tmpl = e.templates.get(t.sort_key)
        problem = _sort_key_problem(tmpl) if tmpl else ""
        if problem:
            yield ADR5.finding(f"entities.{e.name}.key.{t.sort_key}", f"{e.name} sort key {tmpl.text!r} {problem}",
                               hint=f"write it as {_typed_example(e, tmpl)} (an upper-case TYPE, then the subkeys)")


def _sort_key_problem(t: KeyTemplate) -> str:
    if t.is_constant and SEPARATOR not in t.text:
        return "" if _TYPE.match(t.text) else "is a constant that is not upper case"
    head, sep, rest = t.text.partition(SEPARATOR)
    if not sep or not t.type_prefix:
        return "does not start with a literal TYPE#"
    if not _TYPE.match(head):
        return f"starts with {head!r}, not an upper-case TYPE"
    return "" if rest else "has no subkey after TYPE#"


def _typed_example(e: Entity, t: KeyTemplate) -> str:
    subkeys = SEPARATOR.join(str(p) for p in t.parts if isinstance(p, Placeholder)) or "{id}"
    typ = re.sub(r"[^A-Z0-9_]", "", (t.type_prefix or e.name).upper()) or e.name.upper()
    return f"{typ}{SEPARATOR}{subkeys}" if t.placeholders else typ


# -- the patterns' key conditions ----------------------------------------------------------------
@spec_check("PATTERN-KEY-MISMATCH")
def patterns_find_their_entities(ctx: Context) -> Iterable[Finding]:
    for i, p in enumerate(ctx.spec.access_patterns):
        if p.key_condition is None:
            continue
        space = ctx.layout.space(p.index)
        for j, name in enumerate(p.entities):
            e = ctx.spec.entities.get(name)
            if e is not None:
                yield from _pattern_entity_findings(i, j, p, e, space)


def _pattern_entity_findings(i, j, p: AccessPattern, e: Entity, space) -> Iterable[Finding]:
    kc = p.key_condition
    need = [a for a in (space.pk_attr, space.sk_attr if kc.sk_op else None) if a]
    missing = [a for a in need if a not in e.key]
    if missing:
        yield MISMATCH.finding(f"{pattern_where(i, p)}.entities[{j}]",
                               f"{p.name} reads {space.label}, but {e.name} has no {' / '.join(missing)} template, "
                               f"so its items are not there", hint=f"add {missing[0]} under entities.{e.name}.key")
        return
    if shape(kc.pk_template) != shape(e.templates[space.pk_attr]):
        yield MISMATCH.finding(pattern_where(i, p, "pk"),
                               f"{p.name} looks up pk {kc.pk!r}, but {e.name} items have {space.pk_attr} "
                               f"{e.key[space.pk_attr]!r}", hint=f"use pk: {e.key[space.pk_attr]!r}")
    if not kc.sk_op:
        return
    entity_sk = e.templates[space.sk_attr]
    for n, st in enumerate(kc.sk_templates):
        problem = _sk_problem(kc.sk_op, st, entity_sk)
        if problem:
            where = pattern_where(i, p, kc.sk_op) + (f"[{n}]" if isinstance(kc.sk_value, list) else "")
            yield MISMATCH.finding(where, f"{p.name}: {kc.sk_op} {st.text!r} {problem} ({e.name} keys are "
                                   f"{entity_sk.text!r})", hint="render the condition with the entity's template "
                                   "and formats, so it produces the same key text")


def _sk_problem(op: str, st: KeyTemplate, entity_sk: KeyTemplate) -> str:
    formats = {p.name: p.fmt for p in entity_sk.parts if isinstance(p, Placeholder)}
    for p in st.parts:
        if isinstance(p, Placeholder) and p.name in formats and formats[p.name] != p.fmt:
            return f"formats {{{p.name}}} as {str(p)!r}, the keys as {str(Placeholder(p.name, formats[p.name]))!r}"
    if op == "sk" and shape(st) != shape(entity_sk):
        return "is not a key of this shape"
    if op == "sk_begins_with" and not can_start_with(entity_sk, st):
        return "is the start of none of them"
    return ""


# -- key types -----------------------------------------------------------------------------------
@spec_check("KEY-TYPE")
def key_templates_fit_key_types(ctx: Context) -> Iterable[Finding]:
    seen = set()
    for space in ctx.layout.spaces.values():
        for attr, typ in ((space.pk_attr, space.pk_type), (space.sk_attr, space.sk_type)):
            if typ != "N" or not attr:
                continue
            for e in ctx.layout.members(space):
                t = e.templates[attr]
                if (e.name, attr) in seen:
                    continue
                seen.add((e.name, attr))
                bad = "".join(p for p in t.parts if isinstance(p, str) and not _NUMBER_LITERAL.match(p))
                if bad or len(t.placeholders) > 1:
                    one = "{" + (t.placeholders[0] if t.placeholders else "n") + "}"
                    yield KEY_TYPE.finding(f"entities.{e.name}.key.{attr}",
                                           f"{attr} is a number (N) key, but the template {t.text!r} renders text",
                                           hint=f"declare the key type S, or template {attr} as one number: {one!r}")


INDEX_FETCH = define("INDEX-FETCH", "warning",
                     "a read of a local index asks for attributes the index does not hold: each item is fetched "
                     "from the table and paid there too (a note when the pattern is not hot)")


@spec_check("INDEX-FETCH")
def local_index_reads_stay_in_the_index(ctx: Context) -> Iterable[Finding]:
    spec = ctx.spec
    for i, p in enumerate(spec.access_patterns):
        index = spec.table.indexes.get(p.index) if p.is_read else None
        if index is None or index.type != "local" or index.projection == "all":
            continue
        held = {a for a in (*spec.key_attributes(p.index), spec.table.partition_key, spec.table.sort_key) if a}
        held |= set(index.projection) if isinstance(index.projection, list) else set()
        asked = [t.split(".")[0].split("[")[0] for t in p.projection]
        missing = list(dict.fromkeys(a for a in asked if a not in held))
        if p.select != "ALL_ATTRIBUTES" and not missing:
            continue
        what = "every attribute (select ALL_ATTRIBUTES)" if p.select == "ALL_ATTRIBUTES" else ", ".join(missing)
        yield INDEX_FETCH.finding(
            pattern_where(i, p) + (".select" if p.select == "ALL_ATTRIBUTES" else ".projection"),
            f"{p.name} reads local index {p.index}, which does not hold {what}: DynamoDB fetches each item it "
            "returns from the table, and the read pays the index entries and the whole table items",
            hint=f"project {'them' if missing else 'all'} into {p.index} (its projection), or ask only for what it "
                 "holds", severity=None if p.hot else "info")
