"""Item checks over key values: numbers whose byte order is not their number order, and prefixes
that match the keys of other values or other entities. Memory is bounded by the distinct
placeholder values (capped), never by the items."""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from itertools import accumulate
from typing import Any, Iterable

from blue_nb.rules.data_rules import SAMPLES, short
from blue_nb.rules.findings import Finding, counted
from blue_nb.rules.key_rows import KeyRows
from blue_nb.rules.key_rules import (PREFIX, SORT, begins_with_tail, fixed_template, open_prefix_hint, probe_finding,
                                     sort_key_placeholders, suggested_width)
from blue_nb.rules.keyspace import key_string, placeholders_of, render_parts
from blue_nb.rules.registry import DataCheck, data_check
from blue_nb.spec import KeyTemplate

__all__ = ["MAX_DISTINCT", "PrefixProbeCheck", "PrefixValueCheck", "SortOrderCheck"]

MAX_DISTINCT = 100_000          # distinct (partition, value) pairs remembered per begins_with
MAX_GROUPS = 10_000             # distinct key heads remembered per placeholder while looking for evidence
GROUP_VALUES = 64               # values remembered per key head
_NUMBERED = re.compile(r"([^0-9]*?)([0-9]+)\Z")
_ABSENT = object()              # an item without the attribute


def _number(value: str) -> int:
    return int(_NUMBERED.match(value).group(2))


class _Group:
    """The values kept for one key head (value -> its key, in the order seen), and what answers "does a new
    value sort against its number order with any of them" without a loop over them: the kept values by
    number, with the largest text among the smaller numbers and the smallest among the larger ones."""

    __slots__ = ("keys", "numbers", "texts", "max_below", "min_above")

    def __init__(self):
        self.keys: dict[str, str] = {}
        self.numbers: list[int] = []
        self.texts: list[str] = []
        self.max_below: list[str] = []     # max(texts[:i + 1])
        self.min_above: list[str] = []     # min(texts[i:])

    def keep(self, value: str, n: int, key: str) -> None:
        self.keys[value] = key
        i = bisect.bisect_right(self.numbers, n)
        self.numbers.insert(i, n)
        self.texts.insert(i, value)
        self.max_below = list(accumulate(self.texts, max))
        self.min_above = list(accumulate(reversed(self.texts), min))[::-1]

    def pairs_with(self, value: str, n: int) -> bool:
        """A kept value with a smaller number and a larger text, or a larger number and a smaller text."""
        i = bisect.bisect_left(self.numbers, n)
        j = bisect.bisect_right(self.numbers, n)
        return (i > 0 and self.max_below[i - 1] > value) or (j < len(self.numbers) and self.min_above[j] < value)


class _Values:
    """What one placeholder's values look like (numbers, or NAME+number, and their digit counts),
    and the first pair of keys with the same text before the value that sort out of number order."""

    __slots__ = ("items", "digits", "numbered", "heads", "lens", "low", "high", "groups", "pair", "last", "head")

    def __init__(self):
        self.items, self.digits, self.numbered = 0, True, True
        self.heads: set[str] = set()
        self.lens: Counter = Counter()
        self.low = self.high = None
        self.groups: dict[str, _Group] = {}            # text before the value -> the values kept for it
        self.pair: tuple[str, str, str, str] | None = None   # a, key of a, b, key of b: a < b, key b first
        self.last: tuple[str, int, int] | None = None  # the last value, its digit count and number
        self.head: str | None = None                   # the key head the last value was looked up under

    def add(self, value: str, key: str, start: int) -> None:
        """One key's value of the placeholder; ``start``: where the value starts in the key (the text before it
        is the key's head)."""
        self.items += 1
        last = self.last
        if last is not None and last[0] == value:     # keys in order repeat a value: all but its count is known
            self.lens[last[1]] += 1
            n = last[2]
            if self.pair is not None or key[:start] == self.head:
                return                                 # the same value under the same head: looked up already
        else:
            m = _NUMBERED.match(value) if self.numbered else None
            if m is None or len(self.heads) > 20:
                self.digits = self.numbered = False
                self.groups, self.last = {}, None
                return
            self.digits = self.digits and m.group(1) == ""
            self.heads.add(m.group(1))
            digits = m.group(2)
            self.lens[len(digits)] += 1
            n = int(digits)
            self.low, self.high = min(n, self.low if self.low is not None else n), max(n, self.high or 0)
            self.last = (value, len(digits), n)
        if self.pair is None:
            self.head = key[:start]
            self._look_for_pair(value, n, key, self.head)

    def _look_for_pair(self, value: str, n: int, key: str, head: str) -> None:
        group = self.groups.get(head)
        if group is None:
            if len(self.groups) >= MAX_GROUPS:
                return
            group = self.groups[head] = _Group()
        if value in group.keys:
            return
        if group.pairs_with(value, n):     # rare (then the groups are dropped): the first such value, as kept
            for other, other_key in group.keys.items():
                m = _number(other)
                (a, ka, b, kb) = (other, other_key, value, key) if m < n else (value, key, other, other_key)
                if _number(a) < _number(b) and a > b:
                    self.pair, self.groups = (a, ka, b, kb), {}
                    return
        if len(group.keys) < GROUP_VALUES:
            group.keep(value, n, key)

    @property
    def varies(self) -> bool:
        return self.numbered and len(self.lens) > 1 and len(self.heads) == 1


@data_check("KEY-SORT-ORDER")
class SortOrderCheck(DataCheck):
    """Sort key placeholders whose values are numbers of differing digit counts."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.targets = defaultdict(list)     # entity -> [(space, template, where, [placeholder names])]
        self.values: dict[tuple[str, str], _Values] = {}
        for space, e, t, where in ctx.layout.sort_key_templates():
            names = [p.name for p in sort_key_placeholders(t)]
            if names:
                self.targets[e.name].append((space, t, where, names))

    def add(self, entity: str, item: dict[str, Any]) -> None:
        for space, t, where, names in self.targets.get(entity, ()):
            key = key_string(item.get(space.sk_attr))
            got = t.split(key) if key is not None else None
            if got is None:
                continue
            parsed, starts = got
            for name in names:
                self._values(where, name).add(parsed[name], key, starts[name])

    def add_chunk(self, entries: list[tuple[str, dict[str, Any], int | None]]) -> None:
        """:meth:`add` over a chunk: each sort key matched once for just the placeholders checked."""
        targets = self._chunk_targets()
        for entity, item, _ in entries:
            for attr, t, names, values in targets.get(entity, ()):
                self._keys(t, names, values, [item.get(attr)])

    def add_rows(self, rows: KeyRows) -> None:
        """:meth:`add_chunk` over key columns: an entity's keys in their order (each placeholder's values are
        the entity's own)."""
        targets = self._chunk_targets()
        for entity, idx in rows.by_entity().items():
            for attr, t, names, values in targets.get(entity, ()):
                self._keys(t, names, values, rows.values(attr, idx))

    def _chunk_targets(self) -> dict[str, list]:
        return {e: [(space.sk_attr, t, names, [self._values(where, n) for n in names])
                    for space, t, where, names in ts] for e, ts in self.targets.items()}

    @staticmethod
    def _keys(t: KeyTemplate, names: list[str], values: list[_Values], keys: list) -> None:
        for v in keys:
            key = v if type(v) is str else key_string(v)
            got = t.values_at(key, names) if key is not None else None
            if got is not None:
                for vals, (value, start) in zip(values, got):
                    vals.add(value, key, start)

    def _values(self, where: str, name: str) -> _Values:
        v = self.values.get((where, name))
        if v is None:
            v = self.values[(where, name)] = _Values()
        return v

    def findings(self) -> Iterable[Finding]:
        for entity, targets in self.targets.items():
            for space, t, where, names in targets:
                found = {n: self.values[(where, n)] for n in names if (where, n) in self.values}
                numbers = {n: v for n, v in found.items() if v.digits and v.varies}
                if numbers:
                    yield self._numbers_finding(entity, t, where, numbers)
                for name, v in found.items():
                    if not v.digits and v.varies:
                        yield self._ids_finding(entity, t, where, name, v)

    def _numbers_finding(self, entity: str, t: KeyTemplate, where: str, numbers: dict[str, _Values]) -> Finding:
        parts, evidence = [], []
        for name, v in numbers.items():
            shorter = sum(c for n, c in v.lens.items() if n < max(v.lens))
            parts.append(f"{{{name}}} holds {v.low}..{v.high} with {min(v.lens)} to {max(v.lens)} digits "
                         f"({shorter:,} of {v.items:,} keys are shorter than the longest)")
            evidence += _pair_evidence(name, v)
        widths = {n: suggested_width(n, max(v.lens)) for n, v in numbers.items()}
        users = self._pattern_users(t, list(numbers))
        return SORT.finding(
            where, f"{entity}: in {t.text!r}, " + "; ".join(parts) + ". Keys sort by bytes, not by number, so "
            "queries return these items out of order and range conditions on them are wrong.",
            hint=f"pad the numbers: {fixed_template(t, widths)!r}" + (f", and render them the same way in {users}"
                                                                       if users else ""),
            evidence=evidence)

    def _ids_finding(self, entity: str, t: KeyTemplate, where: str, name: str, v: _Values) -> Finding:
        head = next(iter(v.heads))
        example = f" ({v.pair[2]} sorts before {v.pair[0]})" if v.pair else ""
        return SORT.finding(
            where, f"{entity}: {{{name}}} values are {head!r} plus a number of {min(v.lens)} to {max(v.lens)} digits"
            f"{example}, so keys do not sort in number order", severity="info", evidence=_pair_evidence(name, v),
            hint=f"harmless unless you need {name} in number order; if you do, pad the number where the ids are "
                 f"made ({head}{'1'.zfill(max(v.lens))})")

    def _pattern_users(self, t: KeyTemplate, names: list[str]) -> str:
        users = [p.name for p in self.spec.access_patterns if p.key_condition
                 and any(n in st.placeholders for st in p.key_condition.sk_templates for n in names)]
        return ", ".join(users)


def _pair_evidence(name: str, v: _Values) -> list[str]:
    if not v.pair:
        return []
    a, key_a, b, key_b = v.pair
    return [f"{key_b!r} sorts before {key_a!r}, but {name} {b} > {a}"]


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
                for sk, pk in zip(rows.values(tracker.space.sk_attr, idx), rows.values(tracker.space.pk_attr, idx)):
                    tracker.add_key(key_string(sk), pk)
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
        self.where, self.hint = f"access_patterns[{i}].key_condition.sk_begins_with", hint
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
        self.items += 1
        context = (key_string(pk) or "",) + tuple(parsed[b] for _, b in self.names[:-1])
        values = self.seen[context]
        value = parsed[self.names[-1][1]]
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
