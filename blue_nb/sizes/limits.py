"""Partition and item sizes against DynamoDB's limits, from the catalog in SQL: PARTITION-SIZE (an item
collection over 10 GB, or near it with an LSI) and ITEM-SIZE-NEAR-LIMIT (items at >= 90% of 400 KB).

The rules and their thresholds are defined in :mod:`blue_nb.rules.heat_rules` (the 90% of an item's
limit is ITEM-SIZE's, :data:`blue_nb.rules.data_rules.NEAR_LIMIT_BYTES`); this module emits their findings."""

from __future__ import annotations

from blue_nb.layout import TableLayout
from blue_nb.rules import RULES, Finding
from blue_nb.rules.data_rules import NEAR_LIMIT_BYTES
from blue_nb.rules.heat_rules import EVIDENCE, WARN_FRACTION
from blue_nb.sizing import (MAX_ITEM_BYTES, PARTITION_BYTES, PARTITION_RCU, PARTITION_WCU, STORAGE_OVERHEAD,
                            read_units, write_units)
from blue_nb.spec import Spec
from blue_nb.spec.expressions import UpdateFunction, parse_update, path_text
from blue_nb.stores.analytics import Scratch, ident

__all__ = ["size_findings"]


def size_findings(scratch: Scratch, spec: Spec) -> list[Finding]:
    """PARTITION-SIZE, ITEM-SIZE-NEAR-LIMIT and UPDATE-NEAR-ITEM-LIMIT from the catalog, in SQL."""
    return _partition_size(scratch, spec) + _near_limit(scratch, spec) + _update_growth(scratch, spec)


def _update_growth(scratch: Scratch, spec: Spec) -> list[Finding]:
    """UPDATE-NEAR-ITEM-LIMIT: an update pattern whose expression can grow an item (a SET, an ADD) on an entity
    with items at >= 90% of the item limit in the data: the headroom left is what one more update may add."""
    cat = ident(TableLayout.of(spec).catalog)
    out = []
    for i, p in enumerate(spec.access_patterns):
        if p.operation != "update_item" or p.update is None:
            continue
        grows = [a for a in parse_update(p.update.expression) if a.clause in ("SET", "ADD")]
        if not grows:
            continue
        appends = any(isinstance(a.value, UpdateFunction) and a.value.name == "list_append" for a in grows)
        for entity in p.entities:
            rows = scratch.execute(f"SELECT count(*), max(size), arg_max(pk || ' / ' || sk, size) FROM {cat} "
                                   f"WHERE entity = ? AND size >= {NEAR_LIMIT_BYTES}", (entity,))
            n, biggest, key = rows[0]
            if not n:
                continue
            left = max(MAX_ITEM_BYTES - biggest, 0)
            paths = ", ".join(dict.fromkeys(path_text(a.path, str) for a in grows))
            out.append(RULES["UPDATE-NEAR-ITEM-LIMIT"].finding(
                f"access_patterns[{i}].update",
                f"{p.name} can grow {entity} items ({paths}{': list_append only ever grows a list' if appends else ''}) "
                f"and {n:,} of them are at >= 90% of {MAX_ITEM_BYTES:,} bytes; the largest ({key}) is {biggest:,} "
                f"bytes, {left:,} bytes from the limit: the update that takes an item past it is refused (Item size "
                "to update has exceeded the maximum allowed size), and each write of such an item costs "
                f"{write_units(min(biggest, MAX_ITEM_BYTES))} WCU",
                hint="keep what grows out of the item: one item per appended element (a sort key per entry) or a "
                     "pointer to S3 for large values; or cap the list and move old entries out",
                evidence=[f"{key}: {biggest:,} bytes ({left:,} left)", f"the update: {p.update.expression}"]))
    return out


def _partition_size(scratch: Scratch, spec: Spec) -> list[Finding]:
    layout = TableLayout.of(spec)
    cat = ident(layout.catalog)
    lsis = [n for n, i in spec.table.indexes.items() if i.type == "local"]
    extra = " + ".join(f"count({ident(layout.index_pk(n))}) * {STORAGE_OVERHEAD} + coalesce(sum(CASE WHEN "
                       f"{ident(layout.index_pk(n))} IS NOT NULL THEN size END), 0)" for n in lsis)
    sql = (f"SELECT pk, count(*), sum(size) + count(*) * {STORAGE_OVERHEAD}{' + ' + extra if extra else ''} AS b "
           f"FROM {cat} GROUP BY pk HAVING b >= {int(PARTITION_BYTES * WARN_FRACTION)} ORDER BY b DESC")
    rows = scratch.execute(sql)
    if not rows:
        return []
    over = [r for r in rows if r[2] > PARTITION_BYTES]
    rule = RULES["PARTITION-SIZE"]
    evidence = [f"{pk}: {n:,} items, {b / 2**30:,.2f} GB" for pk, n, b in rows[:EVIDENCE]]
    pk, n, b = rows[0]
    if lsis:
        sev = "error" if over else "warning"
        msg = (f"item collection {pk!r} holds {b / 2**30:,.2f} GB with its LSI entries ({len(rows)} key(s) at >= 80% "
               f"of 10 GB, {len(over)} over): with an LSI ({', '.join(lsis)}) a collection cannot grow past 10 GB; "
               "writes to it fail with ItemCollectionSizeLimitExceededException")
        return [rule.finding("table.partition_key", msg, evidence=evidence, severity=sev,
                             hint="use a GSI instead of the LSI, or split the collection over several keys")]
    if not over:
        return []
    msg = (f"partition key {pk!r} holds {b / 2**30:,.2f} GB ({len(over)} key(s) over 10 GB): it spans several "
           "partitions, and a query of the whole collection pages through all of them")
    return [rule.finding("table.partition_key", msg, evidence=evidence, severity="warning",
                         hint="split the collection over several keys (by time bucket or type)")]


def _near_limit(scratch: Scratch, spec: Spec) -> list[Finding]:
    cat = ident(TableLayout.of(spec).catalog)
    rows = scratch.execute(
        f"SELECT coalesce(entity, '?'), count(*), count(*) FILTER (WHERE size > {MAX_ITEM_BYTES}), max(size), "
        f"arg_max(pk || ' / ' || sk, size) FROM {cat} WHERE size >= {NEAR_LIMIT_BYTES} GROUP BY 1 ORDER BY 1")
    out = []
    for entity, n, over, biggest, key in rows:
        strong, wcu = read_units(min(biggest, MAX_ITEM_BYTES)), write_units(min(biggest, MAX_ITEM_BYTES))
        msg = (f"{n:,} {entity} item(s) at >= 90% of {MAX_ITEM_BYTES:,} bytes ({over:,} over it; largest "
               f"{biggest:,} bytes): one strongly consistent read of such an item costs {strong} RCU and one write "
               f"{wcu} WCU, so one item serves at most {PARTITION_RCU // strong} strong reads/s or "
               f"{PARTITION_WCU / wcu:.1f} writes/s")
        out.append(RULES["ITEM-SIZE-NEAR-LIMIT"].finding(
            f"entities.{entity}", msg, evidence=[f"{key}: {biggest:,} bytes"],
            hint="keep large bodies out of the item (S3, or chunk items under the same key), or compress them"))
    return out
