"""The item check of begins_with prefixes: values under one partition that start with another value (T10 and
T100), and items of other entities that a begins_with or an entity's prefix matches. Memory is bounded by
the distinct placeholder values (capped), never by the items."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from blue_nb.rules.data_rules import SAMPLES, short
from blue_nb.rules.findings import Finding, counted
from blue_nb.rules.key_rows import KeyRows
from blue_nb.rules.key_rules import PREFIX, begins_with_tail, open_prefix_hint, probe_finding
from blue_nb.rules.keyspace import key_string, placeholders_of, render_parts
from blue_nb.rules.registry import DataCheck, data_check
from blue_nb.spec import KeyTemplate, pattern_path

__all__ = ["MAX_DISTINCT", "PrefixProbeCheck", "PrefixValueCheck"]

MAX_DISTINCT = 100_000          # distinct (partition, value) pairs remembered per begins_with
_ABSENT = object()              # an item without the attribute


@data_check("KEY-PREFIX-COLLISION")
class PrefixValueCheck(DataCheck):
    """begins_with templates ending in a placeholder: values under one partition that start with
    another value (T10 and T100), and how many items a begins_with would wrongly return."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.trackers: dict[str, list[_Tracker]] = defaultdict(list)
        for i, p in enumerate(ctx.spec.access_patterns):
            kc = p.key_condition
            if not kc or kc.sk_op != "sk_begins_with" or not isinstance(kc.sk_value, str):
                continue
            t, space = KeyTemplate(kc.sk_value), ctx.layout.space(p.index)
            if begins_with_tail(t) is None:
                continue
            for name in p.entities:
                e = ctx.spec.entities.get(name)
                if e and space.pk_attr in e.key and space.sk_attr in e.key:
                    self.trackers[name].append(_Tracker(i, p.name, name, t, e.templates[space.sk_attr], space,
                                                        open_prefix_hint(ctx, p, t)))
        self.probes = PrefixProbeCheck(ctx)

    def add(self, entity: str, item: dict[str, Any]) -> None:
        for tracker in self.trackers.get(entity, ()):
            tracker.add(item)
        self.probes.add(entity, item)

    def add_rows(self, rows: KeyRows) -> None:
        for entity, idx in rows.by_entity().items():
            for tracker in self.trackers.get(entity, ()):
                tracker.add_keys(rows.values(tracker.space.sk_attr, idx), rows.values(tracker.space.pk_attr, idx), rows)
        self.probes.add_rows(rows)

    def findings(self) -> Iterable[Finding]:
        for trackers in self.trackers.values():
            for tracker in trackers:
                f = tracker.finding()
                if f:
                    yield f
        yield from self.probes.findings()


class _Tracker:
    """Per (partition, earlier values): the distinct last values of one begins_with, with counts."""

    def __init__(self, i, pattern, entity, t: KeyTemplate, entity_sk: KeyTemplate, space, hint: str):
        self.where, self.hint = pattern_path(i, pattern) + ".key_condition.sk_begins_with", hint
        self.pattern, self.entity, self.t, self.entity_sk, self.space = pattern, entity, t, entity_sk, space
        mine, theirs = [p.name for p in placeholders_of(t)], [p.name for p in placeholders_of(entity_sk)]
        self.names = list(zip(mine, theirs)) if len(mine) <= len(theirs) else []
        self.seen: dict[tuple, dict[str, list]] = defaultdict(dict)    # context -> value -> [count, sample key]
        self.size = self.items = 0

    def add(self, item: dict[str, Any]) -> None:
        self.add_key(key_string(item.get(self.space.sk_attr)), item.get(self.space.pk_attr))

    def add_key(self, key: str | None, pk: Any) -> None:
        """An item of the entity: its sort key's text and its partition key's value."""
        got = self.entity_sk.split(key) if key is not None and self.names else None
        if got is None:
            return
        parsed = got[0]
        self._value(key, (key_string(pk) or "",) + tuple(parsed[b] for _, b in self.names[:-1]),
                    parsed[self.names[-1][1]])

    def add_keys(self, sks: list, pks: list, rows: KeyRows) -> None:
        """:meth:`add_key` for each item of a run: the placeholder values of all the sort keys from one regex pass
        when every key splits cleanly (:meth:`~blue_nb.spec.KeyTemplate.clean_values`)."""
        pairs = [(k, pk) for k, pk in zip(map(key_string, sks), pks) if k is not None]
        keys, t = [k for k, _ in pairs], self.entity_sk
        cols = (t.clean_values(keys, [b for _, b in self.names], rows.lines_found(t, keys))
                if self.names and len(pairs) > 1 else None)
        if cols is None:
            for key, pk in pairs:
                self.add_key(key, pk)
            return
        for j, (key, pk) in enumerate(pairs):
            self._value(key, (key_string(pk) or "",) + tuple(col[j] for col in cols[:-1]), cols[-1][j])

    def _value(self, key: str, context: tuple, value: str) -> None:
        self.items += 1
        values = self.seen[context]
        if value in values:
            values[value][0] += 1
        elif self.size < MAX_DISTINCT:
            values[value] = [1, key]
            self.size += 1

    def finding(self) -> Finding | None:
        collisions, wrong = [], 0
        for context, values in self.seen.items():
            for v2, (count, _) in values.items():
                shorter = [v2[:n] for n in range(1, len(v2)) if v2[:n] in values]
                wrong += count if shorter else 0
                collisions += [(context, v, v2) for v in shorter]
        if not collisions:
            return None
        collisions.sort(key=lambda c: (-len(c[1]), c))
        tail = self.names[-1][0]
        queries = len({(c[0], c[1]) for c in collisions})
        return PREFIX.finding(
            self.where, f"{self.pattern}: begins_with {self.t.text!r} returns items of other {tail} values: in the "
            f"data, {counted(queries, tail + ' value')} under one {self.space.pk_attr} "
            f"{'is the prefix' if queries == 1 else 'are prefixes'} of longer ones (like {collisions[0][1]} of "
            f"{collisions[0][2]}), so {wrong:,} of {counted(self.items, self.entity + ' item')} "
            "would be returned for the wrong one",
            hint=self.hint,
            evidence=[self._evidence(c) for c in _one_per_query(collisions)[:SAMPLES]])

    def _evidence(self, collision) -> str:
        context, v, v2 = collision
        values = dict(zip((a for a, _ in self.names), (*context[1:], v)))
        (n1, k1), (n2, k2) = self.seen[context][v], self.seen[context][v2]
        return (f"under {self.space.pk_attr} {short(context[0], 40)!r}, begins_with "
                f"{render_parts(self.t, values)!r} matches {k1!r} ({_items(n1)}) and also {k2!r} ({_items(n2)})")


def _one_per_query(collisions: list) -> list:
    """The first collision of each (partition, prefix): evidence that shows different queries."""
    seen, out = set(), []
    for c in collisions:
        if (c[0], c[1]) not in seen:
            seen.add((c[0], c[1]))
            out.append(c)
    return out


class PrefixProbeCheck(DataCheck):
    """Items of other entities that a begins_with or an entity's prefix matches (run by
    :class:`PrefixValueCheck`, which owns the rule's data pass)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.by_entity = defaultdict(list)
        self.hits: dict[int, list] = {}
        for n, probe in enumerate(ctx.layout.probes()):
            self.hits[n] = [probe, 0, []]
            for target in probe.targets:
                self.by_entity[target].append(n)

    def add(self, entity: str, item: dict[str, Any]) -> None:
        for n in self.by_entity.get(entity, ()):
            space = self.hits[n][0].space
            self._key(n, entity, item.get(space.sk_attr), item.get(space.pk_attr, _ABSENT))

    def add_rows(self, rows: KeyRows) -> None:
        """:meth:`add` over key columns, in the rows' order (the samples are the first items in key order)."""
        none = [None] * len(rows)
        probed = {e: [(n, rows.keys.get(self.hits[n][0].space.sk_attr, none),
                       rows.keys.get(self.hits[n][0].space.pk_attr, none)) for n in ns]
                  for e, ns in self.by_entity.items()}
        for i, entity in enumerate(rows.entities):
            for n, sks, pks in probed.get(entity, ()):
                if i in rows.whole:
                    self.add(entity, rows.whole[i])
                    break
                self._key(n, entity, sks[i], _ABSENT if pks[i] is None else pks[i])

    def _key(self, n: int, entity: str, sk: Any, pk: Any) -> None:
        """One item of a probe's target entity: its sort key value and its partition key value (or _ABSENT)."""
        rec = self.hits[n]
        sk = key_string(sk)
        if sk is not None and pk is not _ABSENT and rec[0].regex.match(sk):
            rec[1] += 1
            if len(rec[2]) < SAMPLES:
                rec[2].append(f"{entity} {key_string(pk)!r} / {short(sk)!r}")

    def findings(self) -> Iterable[Finding]:
        for probe, count, samples in self.hits.values():
            if count:
                yield probe_finding(self.ctx, probe, count, samples)


def _items(n: int) -> str:
    return counted(n, "item")
