"""DynamoDB's limits and naming rules, and what the spec declares but never uses: indexes,
names, reserved words, unused indexes and entities no read returns."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

from blue_nb.rules.findings import Finding
from blue_nb.rules.registry import Context, define, spec_check
from blue_nb.rules.reserved import needs_alias

__all__: list[str] = []

INDEX_LIMITS = define("INDEX-LIMITS", "error",
                      "more indexes or projected attributes than DynamoDB allows "
                      "(20 GSIs, 5 LSIs, 20/100 INCLUDE names)")
PROJECTION = define("INDEX-PROJECTION", "warning", "an index projects an attribute that no entity in the index has")
NAMES = define("NAME-RULES", "error", "a table, index or key attribute name breaks DynamoDB's naming rules")
RESERVED = define("RESERVED-WORD", "info", "an attribute name is a reserved word (or has special characters): "
                  "expressions must alias it")
UNUSED_INDEX = define("UNUSED-INDEX", "warning",
                      "no access pattern reads an index, which still costs writes and storage")
UNSERVED = define("UNSERVED-ENTITY", "warning", "no read pattern returns an entity")

MAX_GSI, MAX_LSI, MAX_INCLUDE, MAX_INCLUDE_TOTAL = 20, 5, 20, 100
MAX_KEY_NAME_BYTES = 255
_TABLE_NAME = re.compile(r"[A-Za-z0-9_.\-]{3,255}\Z")


@spec_check("INDEX-LIMITS")
def index_limits(ctx: Context) -> Iterable[Finding]:
    indexes = ctx.spec.table.indexes
    gsis = [n for n, i in indexes.items() if i.type == "global"]
    lsis = [n for n, i in indexes.items() if i.type == "local"]
    if len(gsis) > MAX_GSI:
        yield INDEX_LIMITS.finding("table.indexes",
                                   f"{len(gsis)} global indexes; the default quota is {MAX_GSI} per table",
                                   hint="merge indexes (overload gsi1pk/gsi1sk with TYPE# prefixes) or raise the "
                                        "quota with AWS first", severity="warning")
    if len(lsis) > MAX_LSI:
        yield INDEX_LIMITS.finding("table.indexes", f"{len(lsis)} local indexes; DynamoDB allows {MAX_LSI} per table",
                                   hint="turn some into global indexes")
    yield from _projection_limits(indexes)
    for name in lsis:
        yield INDEX_LIMITS.finding(
            f"table.indexes.{name}", f"local index {name}: with an LSI, each partition key's items are capped at "
            "10 GB, an item plus its LSI entries at 400 KB, and adaptive capacity cannot split a hot partition",
            hint="LSIs can only be created with the table; prefer a GSI unless you need strongly consistent reads",
            severity="info")


def _projection_limits(indexes) -> Iterable[Finding]:
    total = 0
    for name, idx in indexes.items():
        if isinstance(idx.projection, list):
            total += len(idx.projection)
            if len(idx.projection) > MAX_INCLUDE:
                yield INDEX_LIMITS.finding(f"table.indexes.{name}.projection",
                                           f"{len(idx.projection)} projected attributes; an INCLUDE projection "
                                           f"takes at most {MAX_INCLUDE}", hint="project all, or fewer attributes")
    if total > MAX_INCLUDE_TOTAL:
        yield INDEX_LIMITS.finding("table.indexes", f"{total} projected attributes over all indexes; "
                                   f"DynamoDB allows {MAX_INCLUDE_TOTAL}", hint="use projection: all on some indexes")


@spec_check("INDEX-PROJECTION")
def projections_exist(ctx: Context) -> Iterable[Finding]:
    for name, idx in ctx.spec.table.indexes.items():
        if not isinstance(idx.projection, list):
            continue
        members = ctx.layout.members(ctx.layout.space(name))
        known = {a for e in members for a in (*e.attributes, *e.key)}
        unknown = [a for a in idx.projection if a not in known]
        if unknown:
            yield PROJECTION.finding(f"table.indexes.{name}.projection",
                                     f"{name} projects {', '.join(unknown)}, which no entity in the index "
                                     f"({', '.join(e.name for e in members) or 'none'}) declares",
                                     hint="fix the name, or declare the attribute on the entity")


@spec_check("NAME-RULES")
def names_follow_the_rules(ctx: Context) -> Iterable[Finding]:
    t = ctx.spec.table
    if not _TABLE_NAME.match(ctx.spec.table_name):
        where = "table.name" if t.name else "domain"
        yield NAMES.finding(where, f"table name {ctx.spec.table_name[:80]!r} is not 3-255 characters of "
                            "A-Z a-z 0-9 _ . -", hint="shorten the domain or set table.name")
    for name in t.indexes:
        if not _TABLE_NAME.match(name):
            yield NAMES.finding(f"table.indexes.{name}",
                                f"index name {name!r} is not 3-255 characters of A-Z a-z 0-9 _ . -",
                                hint="rename the index, e.g. gsi1")
    for where, name in _key_names(ctx):
        if len(name.encode("utf-8")) > MAX_KEY_NAME_BYTES:
            yield NAMES.finding(where, f"{name[:40]!r}... is {len(name.encode('utf-8'))} bytes; key and projected "
                                f"attribute names take at most {MAX_KEY_NAME_BYTES}", hint="use a shorter name")


def _key_names(ctx: Context):
    t = ctx.spec.table
    yield "table.partition_key", t.partition_key
    if t.sort_key:
        yield "table.sort_key", t.sort_key
    for name, idx in t.indexes.items():
        for field in ("partition_key", "sort_key"):
            if getattr(idx, field):
                yield f"table.indexes.{name}.{field}", getattr(idx, field)
        if isinstance(idx.projection, list):
            yield from ((f"table.indexes.{name}.projection[{k}]", a) for k, a in enumerate(idx.projection))


@spec_check("RESERVED-WORD")
def reserved_words(ctx: Context) -> Iterable[Finding]:
    places: dict[str, list[str]] = defaultdict(list)
    for where, name in _attribute_names(ctx):
        places[name].append(where)
    for name, wheres in places.items():
        why = needs_alias(name)
        if not why:
            continue
        users = sorted({w.split(".")[1] for w in wheres if w.startswith("entities.")})
        used = f" (in {', '.join(users)})" if users else ""
        what = "a DynamoDB reserved word" if why == "reserved word" else "a name with special characters"
        yield RESERVED.finding(wheres[0], f"{name!r} is {what}{used}: every condition, projection or update "
                               f"expression that names it must alias it", hint=f"requests alias it: "
                               f"ExpressionAttributeNames {{'#{_alias(name)}': '{name}'}}; or rename it")


def _alias(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def _attribute_names(ctx: Context):
    for where, name in _key_names(ctx):
        if ".projection[" not in where:
            yield where, name
    for e in ctx.spec.entities.values():
        yield from ((f"entities.{e.name}.attributes.{a}", a) for a in e.attributes)


@spec_check("UNUSED-INDEX")
def indexes_are_used(ctx: Context) -> Iterable[Finding]:
    used = {p.index for p in ctx.spec.access_patterns}
    for name in ctx.spec.table.indexes:
        if name not in used:
            yield UNUSED_INDEX.finding(f"table.indexes.{name}", f"no access pattern reads index {name}, yet every "
                                       "write of its items also writes the index (and pays for it)",
                                       hint=f"drop {name}, or add the access pattern that needs it (index: {name})")


@spec_check("UNSERVED-ENTITY")
def entities_are_read(ctx: Context) -> Iterable[Finding]:
    read = {e for p in ctx.spec.access_patterns if p.is_read for e in p.entities}
    for name in ctx.spec.entities:
        if name not in read:
            yield UNSERVED.finding(f"entities.{name}", f"no read pattern returns {name}: its items are written "
                                   "but never read", hint=f"add the access pattern that reads {name} "
                                   "(get_item or query), or drop the entity")
