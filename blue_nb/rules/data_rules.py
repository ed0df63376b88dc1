"""Item checks that need only one item at a time: item size, key size, keys that do not parse
back. Each keeps counters and a few sample keys, never the items (the size check, a batch of them
while it sizes them together)."""

from __future__ import annotations

import hashlib
import heapq
from collections import defaultdict
from decimal import Decimal
from typing import Any, Iterable

from blue_nb.errors import BlueNbError
from blue_nb.items import number_text
from blue_nb.rules.findings import Finding, counted
from blue_nb.rules.key_rows import KeyRows
from blue_nb.rules.key_rules import KEY_SIZE, SEPARATOR_RULE
from blue_nb.rules.keyspace import key_string
from blue_nb.rules.registry import DataCheck, data_check, define
from blue_nb.sizing import MAX_ITEM_BYTES, PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES, item_size, item_sizes
from blue_nb.spec import SEPARATOR

__all__ = ["NEAR_LIMIT_FRACTION", "NEAR_LIMIT_BYTES", "ItemSizeCheck", "KeySizeCheck", "KeyParseCheck",
           "DuplicateKeyCheck", "short"]

# Warn at 90% of the 400 KB cap (368,640 bytes): such an item fails the first time it grows by
# another ~40 KB (one more edit, one more appended entry), and already costs 90 RCU per strong
# read and 360 WCU per write.
NEAR_LIMIT_FRACTION = 0.9
NEAR_LIMIT_BYTES = int(MAX_ITEM_BYTES * NEAR_LIMIT_FRACTION)
SAMPLES = 3

ITEM_SIZE = define("ITEM-SIZE", "error", f"an item over {MAX_ITEM_BYTES:,} bytes (error) or at "
                   f">= {NEAR_LIMIT_FRACTION:.0%} of it (warning)")


def short(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def item_label(spec, item: dict[str, Any]) -> str:
    """``pk / sk`` of an item, for evidence."""
    t = spec.table
    parts = [key_string(item.get(a)) or str(item.get(a)) for a in (t.partition_key, t.sort_key) if a]
    return " / ".join(short(p, 60) for p in parts)


@data_check("ITEM-SIZE")
class ItemSizeCheck(DataCheck):
    """Per entity: items over the limit, items near it; the largest few of each as evidence."""

    BATCH = 2_000                  # items sized together (item_sizes: several times faster than one by one)

    def __init__(self, ctx):
        super().__init__(ctx)
        self.over: dict[str, list] = defaultdict(list)      # entity -> heap of (size, n, label)
        self.near: dict[str, list] = defaultdict(list)
        self.counts: dict[tuple[str, str], int] = defaultdict(int)
        self.invalid: dict[str, list[str]] = defaultdict(list)
        self.n = 0
        self.batch: list[tuple[str, dict[str, Any]]] = []

    def add(self, entity: str, item: dict[str, Any]) -> None:
        self.batch.append((entity, item))
        if len(self.batch) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        batch, self.batch = self.batch, []
        try:
            sizes = item_sizes([item for _, item in batch])
        except BlueNbError:                   # an invalid item in the batch: one by one, to name it
            sizes = None
        for k, (entity, item) in enumerate(batch):
            if sizes is not None:
                self.sized(entity, item, sizes[k])
                continue
            try:
                self.sized(entity, item, item_size(item))
            except BlueNbError as e:
                self.invalid[entity].append(f"{item_label(self.spec, item)}: {e.msg}")

    def add_chunk(self, entries: list[tuple[str, dict[str, Any], int | None]]) -> None:
        """Items with the size their load recorded are not sized again."""
        for entity, item, size in entries:
            if size is None:
                self.add(entity, item)
            else:
                self.sized(entity, item, size)

    def add_rows(self, rows: KeyRows) -> None:
        """A loaded table's items: only those whose recorded size is near the limit (or unknown) are looked at."""
        self.add_chunk([(rows.entities[i], rows.item(i), s) for i, s in enumerate(rows.sizes)
                        if (s is None or s >= NEAR_LIMIT_BYTES) and rows.entities[i] is not None])

    def sized(self, entity: str, item: dict[str, Any], size: int) -> None:
        """An item whose size is known already (a loaded item: the size its load recorded)."""
        if size >= NEAR_LIMIT_BYTES:
            kind = "over" if size > MAX_ITEM_BYTES else "near"
            self.counts[(entity, kind)] += 1
            self.n += 1
            heap = getattr(self, kind)[entity]
            entry = (size, self.n, item_label(self.spec, item))
            if len(heap) < SAMPLES:
                heapq.heappush(heap, entry)
            else:
                heapq.heappushpop(heap, entry)

    def findings(self) -> Iterable[Finding]:
        self._flush()
        for entity, heap in self.over.items():
            yield self._finding(entity, heap, "over")
        for entity, heap in self.near.items():
            yield self._finding(entity, heap, "near")
        for entity, problems in self.invalid.items():
            yield ITEM_SIZE.finding(f"entities.{entity}", f"{counted(len(problems), entity + ' item')} not valid "
                                    "DynamoDB items", evidence=problems[:SAMPLES], hint="fix the source rows")

    def _finding(self, entity: str, heap: list, kind: str) -> Finding:
        n = self.counts[(entity, kind)]
        biggest = sorted(heap, reverse=True)
        evidence = [f"{label}: {size:,} bytes" for size, _, label in biggest]
        if kind == "over":
            msg = (f"{counted(n, entity + ' item')} over DynamoDB's {MAX_ITEM_BYTES:,}-byte item limit "
                   f"(largest {biggest[0][0]:,} bytes): the write is rejected")
            return ITEM_SIZE.finding(f"entities.{entity}", msg, hint=self._hint(entity), evidence=evidence)
        msg = (f"{counted(n, entity + ' item')} at {NEAR_LIMIT_FRACTION:.0%} or more of the {MAX_ITEM_BYTES:,}-byte "
               f"limit (>= {NEAR_LIMIT_BYTES:,} bytes; largest {biggest[0][0]:,}): one more edit can push them over")
        return ITEM_SIZE.finding(f"entities.{entity}", msg, hint=self._hint(entity), evidence=evidence,
                                 severity="warning")

    def _hint(self, entity: str) -> str:
        sk = self.spec.entities[entity].templates.get(self.spec.table.sort_key or "")
        chunk = f"{sk.text}#CHUNK#{{part:03d}}" if sk is not None else "...#CHUNK#{part:03d}"
        return (f"keep large bodies out of the item: store them in S3 and keep the object key on the {entity}, "
                f"or split the body into chunk items (sk {chunk!r}) read back with one query; "
                "compressing (gzip into a B attribute) also helps")


@data_check("KEY-SIZE")
class KeySizeCheck(DataCheck):
    """Key attribute values over 2048 (partition) / 1024 (sort) bytes."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.limits: dict[str, int] = {}
        for space in ctx.layout.spaces.values():
            self.limits.setdefault(space.pk_attr, PARTITION_KEY_MAX_BYTES)
            if space.sk_attr:
                self.limits.setdefault(space.sk_attr, SORT_KEY_MAX_BYTES)
        self.bad: dict[tuple[str, str], list] = defaultdict(lambda: [0, 0, []])   # count, max, samples

    def add(self, entity: str, item: dict[str, Any]) -> None:
        for attr, limit in self.limits.items():
            v = item.get(attr)
            if isinstance(v, str):
                if len(v) * 4 <= limit:            # at most 4 UTF-8 bytes a character: no need to encode it
                    continue
                n = len(v.encode("utf-8"))
            else:
                n = len(v) if isinstance(v, (bytes, bytearray)) else 0
            if n > limit:
                rec = self.bad[(entity, attr)]
                rec[0] += 1
                rec[1] = max(rec[1], n)
                if len(rec[2]) < SAMPLES:
                    rec[2].append(f"{short(key_string(v) or '', 70)} ({n:,} bytes)")

    def add_chunk(self, entries: list[tuple[str, dict[str, Any], int | None]]) -> None:
        """An item whose known size is within the smallest limit is passed over: each key value is part of
        the item, so none can be larger than the item."""
        least = min(self.limits.values(), default=0)
        for entity, item, size in entries:
            if size is None or size > least:
                self.add(entity, item)

    def add_rows(self, rows: KeyRows) -> None:
        """:meth:`add_chunk`'s screen, before any row becomes an item."""
        least = min(self.limits.values(), default=0)
        self.add_chunk([(rows.entities[i], rows.item(i), s) for i, s in enumerate(rows.sizes)
                        if (s is None or s > least) and rows.entities[i] is not None])

    def findings(self) -> Iterable[Finding]:
        for (entity, attr), (count, biggest, samples) in self.bad.items():
            limit = self.limits[attr]
            yield KEY_SIZE.finding(f"entities.{entity}.key.{attr}",
                                   f"{counted(count, f'{entity} {attr} value')} over {limit:,} bytes "
                                   f"(largest {biggest:,}): "
                                   "DynamoDB rejects these items", evidence=samples,
                                   hint="key on a short id (or a hash of the long value) and keep the long value "
                                        "as a plain attribute")


@data_check("KEY-SEPARATOR-IN-VALUE")
class KeyParseCheck(DataCheck):
    """Keys that do not parse back with their template, or whose values contain the separator."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.bad: dict[tuple[str, str], list] = defaultdict(lambda: [0, []])
        self.targets = {name: [(attr, t, t.open_values) for attr, t in e.templates.items() if not t.is_constant]
                        for name, e in self.spec.entities.items()}

    def add(self, entity: str, item: dict[str, Any]) -> None:
        for attr, t, opened in self.targets.get(entity, ()):
            key = key_string(item.get(attr))
            if key is not None:
                self._key(entity, attr, t, opened, key)

    def add_chunk(self, entries: list[tuple[str, dict[str, Any], int | None]]) -> None:
        """Per entity and key template, the chunk's keys at once: when all of them split cleanly (no placeholder
        value holds the separator: one regex pass over them) they are fine; otherwise each key that does not is
        split and judged, in the chunk's order."""
        by_entity: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for entity, item, _ in entries:
            if entity in self.targets:
                by_entity[entity].append(item)
        for entity, items in by_entity.items():
            for attr, t, opened in self.targets[entity]:
                self._keys(entity, attr, t, opened, [i.get(attr) for i in items])

    def add_rows(self, rows: KeyRows) -> None:
        for entity, idx in rows.by_entity().items():
            for attr, t, opened in self.targets.get(entity, ()):
                self._keys(entity, attr, t, opened, rows.values(attr, idx), rows)

    def _keys(self, entity: str, attr: str, t, opened: tuple[str, ...], values: list,
              rows: KeyRows | None = None) -> None:
        keys = [k for k in (v if type(v) is str else key_string(v) for v in values) if k is not None]
        if t.all_split_cleanly(keys, rows.lines_found(t, keys) if rows is not None else None):
            return
        for key in keys:
            if not t.splits_cleanly(key):
                self._key(entity, attr, t, opened, key)

    def _key(self, entity: str, attr: str, t, opened: tuple[str, ...], key: str) -> None:
        got = t.split(key)
        if got is None or any(SEPARATOR in got[0][n] for n in opened):
            rec = self.bad[(entity, attr)]
            rec[0] += 1
            if len(rec[1]) < SAMPLES:
                rec[1].append(f"{short(key)!r} does not parse back with {t.text!r}")

    def findings(self) -> Iterable[Finding]:
        for (entity, attr), (count, samples) in self.bad.items():
            t = self.spec.entities[entity].templates[attr]
            yield SEPARATOR_RULE.finding(
                f"entities.{entity}.key.{attr}",
                f"{counted(count, f'{entity} {attr} key')} with a placeholder value that contains {SEPARATOR!r} "
                f"(template {t.text!r}), so the key does not split back into its values",
                evidence=samples, hint=f"keep {SEPARATOR} out of the values ({', '.join(t.placeholders)}): replace it "
                "where the ids are made, or encode it (e.g. %23) before rendering the key")


DUPLICATE_KEY = define("DUPLICATE-ITEM-KEY", "error", "two or more items with the same table key (pk, sk): in "
                       "DynamoDB the later write replaces the earlier item")
# The keys seen are kept as 128-bit digests (Python ints of ~44 bytes each, plus the set's slot):
# about 100 bytes per item, whatever the key's length; two different keys share a digest with a
# probability of about n^2 / 2^129 (1e-25 at 5M items). Only repeated keys keep their text.
MAX_DUPLICATES_KEPT = 1000


def _key_part(value: Any) -> bytes:
    """A key value as bytes that are equal exactly when DynamoDB's key values are: numbers by value."""
    if isinstance(value, (bytes, bytearray)):
        return b"B" + bytes(value)
    if isinstance(value, Decimal) or (isinstance(value, int) and not isinstance(value, bool)):
        return b"N" + number_text(Decimal(value)).encode()
    return b"S" + str(value).encode("utf-8", "surrogatepass")


@data_check("DUPLICATE-ITEM-KEY")
class DuplicateKeyCheck(DataCheck):
    """Items whose (pk, sk) repeats: a digest of every key seen, and for each repeated key its
    label, the entities of its items and how many share it."""

    def __init__(self, ctx):
        super().__init__(ctx)
        t = ctx.spec.table
        self.attrs = [a for a in (t.partition_key, t.sort_key) if a]
        self.seen: set[int] = set()
        self.repeated: dict[int, list] = {}      # digest -> [items sharing the key, label, entities]
        self.extra = 0                           # repeats of keys beyond MAX_DUPLICATES_KEPT (counted only)

    def add(self, entity: str, item: dict[str, Any]) -> None:
        h = hashlib.blake2b(digest_size=16)
        for a in self.attrs:
            part = _key_part(item.get(a))
            h.update(len(part).to_bytes(4, "big") + part)
        d = int.from_bytes(h.digest(), "big")
        if d not in self.seen:
            self.seen.add(d)
            return
        rec = self.repeated.get(d)
        if rec is None:
            if len(self.repeated) >= MAX_DUPLICATES_KEPT:
                self.extra += 1
                return
            rec = self.repeated[d] = [1, item_label(self.spec, item), {}]
        rec[0] += 1
        rec[2][entity] = None

    def findings(self) -> Iterable[Finding]:
        by_entity: dict[str, list] = defaultdict(list)
        for count, label, entities in self.repeated.values():
            by_entity[next(iter(entities))].append((count, label, entities))
        for entity, recs in by_entity.items():
            recs.sort(key=lambda r: (-r[0], r[1]))
            rows = sum(c for c, _, _ in recs)
            evidence = [f"{label}: {c:,} {'/'.join(e)} items share this key" for c, label, e in recs[:SAMPLES]]
            more = f"; {self.extra:,} more repeats not itemised" if self.extra else ""
            sk = self.spec.entities[entity].templates.get(self.spec.table.sort_key or "")
            where_sk = f"entities.{entity}.key.{self.spec.table.sort_key}" if sk is not None else f"entities.{entity}.key"
            yield DUPLICATE_KEY.finding(
                f"entities.{entity}", f"{counted(len(recs), entity + ' key')} shared by several items ({rows:,} items in "
                f"all{more}): the later write replaces the earlier item, so {rows - len(recs):,} would be lost",
                evidence=evidence, hint=f"give every row its own key: add what tells the rows apart to {where_sk} "
                f"({sk.text if sk is not None else 'the key templates'}), or remove the repeated rows from the source")
