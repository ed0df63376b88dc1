"""Item checks over key values: numbers whose byte order is not their number order (the prefixes that match
the keys of other values or entities: :mod:`.data_prefix`). Memory is bounded by the distinct placeholder
values (capped), never by the items."""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from itertools import accumulate
from operator import itemgetter
from typing import Any, Iterable

from blue_nb.rules.findings import Finding
from blue_nb.rules.key_rows import KeyRows
from blue_nb.rules.key_rules import SORT, fixed_template, sort_key_placeholders, suggested_width
from blue_nb.rules.keyspace import key_string
from blue_nb.rules.registry import DataCheck, data_check
from blue_nb.spec import KeyTemplate

__all__ = ["SortOrderCheck"]

MAX_GROUPS = 10_000             # distinct key heads remembered per placeholder while looking for evidence
GROUP_VALUES = 64               # values remembered per key head
_NUMBERED = re.compile(r"([^0-9]*?)([0-9]+)\Z")
_NUMBERED_LINES = re.compile(r"^([^0-9\n]*?)([0-9]+)$", re.MULTILINE)     # _NUMBERED, line by line


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

    def add_many(self, values: list[str], keys: list[str], starts: list[int]) -> None:
        """:meth:`add` for the values of a run of keys (``starts[j]``: where ``values[j]`` starts in ``keys[j]``):
        the counts taken over the run at once, the pair looked for value by value until one is found. A run
        with a value that is not NAME+number, or that brings the key heads past 20, goes value by value."""
        if not self.numbered or not values:
            self.items += len(values)
            return
        text = "\n".join(values)
        found = _NUMBERED_LINES.findall(text) if text.count("\n") == len(values) - 1 else []
        heads = set(map(itemgetter(0), found))
        if len(found) != len(values) or len(self.heads | heads) > 20:
            for v, key, start in zip(values, keys, starts):
                self.add(v, key, start)
            return
        digits = list(map(itemgetter(1), found))
        numbers = list(map(int, digits))
        before = self.last[0] if self.last is not None else None
        self.items += len(values)
        self.digits = self.digits and heads <= {""}
        self.heads |= heads
        self.lens.update(map(len, digits))
        low, high = min(numbers), max(numbers)
        self.low = low if self.low is None else min(self.low, low)
        self.high = max(high, self.high or 0)
        self.last = (values[-1], len(digits[-1]), numbers[-1])
        for j, v in enumerate(values):
            if self.pair is not None:
                break
            head = keys[j][:starts[j]]
            if v == (values[j - 1] if j else before) and head == self.head:
                continue                               # the same value under the same head: looked up already
            self.head = head
            self._look_for_pair(v, numbers[j], keys[j], head)

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
                self._keys(t, names, values, rows.values(attr, idx), rows)

    def _chunk_targets(self) -> dict[str, list]:
        return {e: [(space.sk_attr, t, names, [self._values(where, n) for n in names])
                    for space, t, where, names in ts] for e, ts in self.targets.items()}

    @staticmethod
    def _keys(t: KeyTemplate, names: list[str], values: list[_Values], keys: list, rows: KeyRows | None = None) -> None:
        ks = [k for k in (v if type(v) is str else key_string(v) for v in keys) if k is not None]
        found = (rows.lines_found(t, ks) if rows is not None else t.lines_found(ks)) if len(ks) > 1 else False
        cols = t.clean_values(ks, names, found)
        if cols is not None:                       # every key splits cleanly: each placeholder's values at once
            for vals, col, name in zip(values, cols, names):
                vals.add_many(col, ks, t.clean_starts(found, name))
            return
        for key in ks:
            got = t.values_at(key, names)
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
