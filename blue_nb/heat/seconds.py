"""The per-second model, stated once: calls drawn second by second, and the units they put on each key.

Both the report (:func:`~blue_nb.heat.partition_heat`, through
:meth:`~blue_nb.heat.model.HeatModel.simulate` and :meth:`~blue_nb.heat.model.HeatModel.timeline`)
and the sliders (:meth:`blue_nb.heat.rates.RateModel.evaluate`) draw with :func:`draw_calls` (the sliders
with :func:`draw_parts` and a :class:`DrawMemo`, which gives the same calls) and add up with
:class:`CallUnits`, so the same rates, weights, seconds and seed give the same
``timeline`` (and the same peaks, throttled seconds and table capacity) in both:

* a pattern's calls in one second are Poisson(rate), drawn for every pattern in turn from one
  generator seeded by ``seed``;
* each call's candidate is drawn by weight: a uniform u times the total weight falls in one
  candidate's interval of the cumulative weights (in candidate order). Above :data:`MAX_DRAWS`
  calls of a pattern each draw stands for several calls. A pattern with more than
  :data:`FEW_CALLS` calls over at most :data:`MANY_CANDIDATES` candidates draws each second's
  calls at once, as a multinomial over its candidates;
* a key's units in a second are the sum, over the calls of that second, of calls x the units one
  call of the candidate puts on the key (the ``effects`` of :mod:`.costs`).

A slider moves one pattern, so the draw is kept per pattern: a pattern whose rate, weights and generator
state are those of its last draw is not drawn again, and its calls' units per key are not looked up again
(:meth:`CallUnits.per_second_of`). The uniforms of a second are sorted before they are looked up, so the
(second, candidate) cells come out in order and are counted without a sort; the partitions reached are
numbered densely so the (second, partition) sums need no sort either.

numpy only; the SQL statement of the same draw and sum is the tests' oracle, and so is the plain numpy that
drew and summed before (tests/heat_oracle.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Sequence

import numpy as np

__all__ = ["CallUnits", "Calls", "DrawMemo", "FEW_CALLS", "MANY_CANDIDATES", "MAX_DRAWS", "draw_calls", "draw_parts"]

#: calls drawn per pattern for the timeline; above it each draw stands for several. 250k keeps a heat slider's
#: redraw under 150 ms at 100k partitions with one pattern at 1,000x its rate (2M: 430 ms), and is above the
#: largest pattern of make bench's 1M modelled requests (~244k calls), whose baseline expands whole calls
MAX_DRAWS = 250_000
FEW_CALLS = 200_000          # up to this many calls of a pattern are drawn one by one ...
MANY_CANDIDATES = 10_000     # ... and so are more, over more candidates than this; else a multinomial per second
_UNIFORM_BITS = 53           # numpy's uniform doubles are whole multiples of 2**-53


@dataclass(frozen=True)
class Calls:
    """Drawn calls, one row per (second, pattern, candidate): ``pattern`` is the pattern's position in the
    rates given, ``pos`` the candidate's position in that pattern's weights, ``k`` the calls."""

    second: np.ndarray
    pattern: np.ndarray
    pos: np.ndarray
    k: np.ndarray

    def __len__(self) -> int:
        return len(self.k)

    @classmethod
    def empty(cls) -> Calls:
        """No calls."""
        none = np.zeros(0, dtype=np.int64)
        return cls(none, none, none, np.zeros(0))

    @classmethod
    def joined(cls, parts: Sequence[Calls]) -> Calls:
        """The calls of ``parts``, one after another."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("second", "pattern", "pos", "k")))


def draw_calls(rates: Sequence[float], weights: Sequence[np.ndarray], seconds: int, seed: int) -> Calls:
    """``seconds`` seconds of calls of each pattern (``rates[j]`` calls/s over the candidates weighted by
    ``weights[j]``, in candidate order), drawn as the module docstring says."""
    return Calls.joined(draw_parts(rates, weights, seconds, seed))


def draw_parts(rates: Sequence[float], weights: Sequence[np.ndarray], seconds: int, seed: int,
               *, settings: Sequence[Hashable] | None = None, memo: DrawMemo | None = None) -> list[Calls]:
    """The calls of :func:`draw_calls`, one :class:`Calls` per pattern (empty where it makes none).

    With a ``memo`` and ``settings`` (``settings[j]`` stands for ``weights[j]``: equal settings, equal
    weights), a pattern whose rate, setting and generator state are those of the memo's last draw is not
    drawn again: its calls (the same object) and the generator's state after them are taken from the memo.
    The calls are the same either way; a slider that moves one pattern re-draws that pattern and, when its
    rate moved (which moves the generator), the patterns after it."""
    rng = np.random.default_rng(seed)
    parts = []
    for j, (rate, w) in enumerate(zip(rates, weights)):
        key = (float(rate), settings[j], int(seconds)) if memo is not None and settings is not None else None
        if key is None:
            part = _draw_pattern(rng, j, rate, _Weights(w), seconds)
        else:
            before = rng.bit_generator.state
            hit = memo.get(j, key, before)
            if hit is not None:
                rng.bit_generator.state, part = hit
            else:
                part = _draw_pattern(rng, j, rate, memo.weights(j, settings[j], w), seconds)
                memo.put(j, key, before, rng.bit_generator.state, part)
        parts.append(part)
    return parts


class _Weights:
    """A pattern's candidate weights and, once asked for, where each candidate's interval starts on the
    cumulative weights and their total (what :func:`_one_by_one` looks a uniform up in)."""

    def __init__(self, w: np.ndarray) -> None:
        self.w = np.asarray(w, dtype=float)
        self._starts: tuple[np.ndarray, float] | None = None

    def starts(self) -> tuple[np.ndarray, float]:
        if self._starts is None:
            cum = np.cumsum(self.w)
            self._starts = (cum - self.w, cum[-1])
        return self._starts


def _draw_pattern(rng: np.random.Generator, j: int, rate: float, w: _Weights, seconds: int):
    """Pattern ``j``'s calls."""
    counts = rng.poisson(rate, size=seconds)
    if not len(w.w) or not counts.sum():
        return Calls.empty()
    if counts.sum() <= FEW_CALLS or len(w.w) > MANY_CANDIDATES:
        second, pos, k = _one_by_one(rng, counts, w)
    else:
        second, pos, k = _per_second(rng, counts, w.w)
    return Calls(second, np.full(len(k), j, dtype=np.int64), pos, k)


class DrawMemo:
    """The last draw of each pattern, keyed by its rate, weights' setting and the generator's state before
    it (see :func:`draw_calls`), and its weights prepared for lookups: what lets a slider re-draw only the
    patterns its move changed, and those without going over their weights again."""

    def __init__(self) -> None:
        self._last: dict[int, tuple] = {}
        self._weights: dict[int, tuple[Hashable, _Weights]] = {}

    def get(self, j: int, key: tuple, before: dict):
        """(generator state after, calls) of pattern ``j``'s last draw if it was drawn from ``before`` with
        ``key``; else None."""
        last = self._last.get(j)
        if last is None or last[0] != key or last[1] != before:
            return None
        return last[2], last[3]

    def put(self, j: int, key: tuple, before: dict, after: dict, part) -> None:
        """Remember pattern ``j``'s draw."""
        self._last[j] = (key, before, after, part)

    def weights(self, j: int, setting: Hashable, w: np.ndarray) -> _Weights:
        """Pattern ``j``'s weights ``w`` (those of ``setting``), prepared once per setting."""
        hit = self._weights.get(j)
        if hit is None or hit[0] != setting:
            hit = (setting, _Weights(w))
            self._weights[j] = hit
        return hit[1]


def _one_by_one(rng: np.random.Generator, counts: np.ndarray, w: _Weights):
    """Each call (or each ``mult`` calls) its own draw; the draws of one (second, candidate) added up.

    The uniforms of one second are sorted before they are looked up (the same candidates, found faster),
    so the (second, candidate) cells come out in order and are counted without a sort; the ``c`` draws of a
    cell add up to ``each`` added ``c`` times over, one after another."""
    seconds, total = len(counts), counts.sum()
    mult = max(1.0, total / MAX_DRAWS)
    k = np.maximum(np.rint(counts / mult), 0).astype(np.int64)
    second = np.repeat(np.arange(seconds), k)
    x = rng.random(len(second))
    each = total / max(k.sum(), 1)
    starts, weight = w.starts()
    if seconds <= 1 << (63 - _UNIFORM_BITS):         # a uniform is m / 2**53: sort (second, m) as one int64
        key = (second << _UNIFORM_BITS) | (x * (1 << _UNIFORM_BITS)).astype(np.int64)
        key.sort()
        x = (key & ((1 << _UNIFORM_BITS) - 1)) * (1.0 / (1 << _UNIFORM_BITS))
    else:
        end = np.cumsum(k)
        for a, b in zip((end - k).tolist(), end.tolist()):
            x[a:b].sort()
    x *= weight
    pos = np.searchsorted(starts, x, side="right") - 1
    new = np.empty(len(pos), dtype=bool)
    new[:1] = True
    np.not_equal(pos[1:], pos[:-1], out=new[1:])
    new[1:] |= second[1:] != second[:-1]
    first = np.flatnonzero(new)
    c = np.diff(np.append(first, len(pos)))
    sums = np.cumsum(np.full(int(c.max()) if len(c) else 0, each))     # each + each + ..., in order
    return second[first], pos[first], sums[c - 1] if len(c) else np.zeros(0)


def _per_second(rng: np.random.Generator, counts: np.ndarray, w: np.ndarray):
    """Each second's calls at once: a multinomial over the candidates."""
    per = np.stack([rng.multinomial(c, w / w.sum()) for c in counts])
    second, pos = np.nonzero(per)
    return second, pos, per[second, pos].astype(float)


def _sum_by_cell(cells: np.ndarray, values: np.ndarray, size: int, *more: np.ndarray):
    """The cells reached (sorted) and the sum of ``values`` (and of each of ``more``) in each: a dense
    ``bincount`` over ``size`` cells when they are not many more than the values, else through ``unique``."""
    if size <= 4 * len(cells) + 1_000_000:
        reached = np.bincount(cells, minlength=size) > 0
        cell = np.flatnonzero(reached)
        return (cell, *(np.bincount(cells, v, size)[cell] for v in (values, *more)))
    cell, at = np.unique(cells, return_inverse=True)
    return (cell, *(np.bincount(at, v, len(cell)) for v in (values, *more)))


class CallUnits:
    """The units one call of each candidate puts on each partition (the ``effects``: a row per candidate
    ``key`` and partition ``part``, with ``rcu`` and ``wcu``), grouped by candidate; :meth:`per_second`
    adds up a set of calls into units per (second, partition). The caller numbers the candidates (any
    int64 key) and the partitions (0..n-1, in the order the timeline is to be sorted in)."""

    def __init__(self, key: np.ndarray, part: np.ndarray, rcu: np.ndarray, wcu: np.ndarray, partitions: int):
        order = np.argsort(np.asarray(key, dtype=np.int64), kind="stable")
        self.keys, start = np.unique(np.asarray(key, dtype=np.int64)[order], return_index=True)
        self.start = np.append(start, len(order)).astype(np.int64)
        self.part = np.asarray(part, dtype=np.int64)[order]
        self.rcu, self.wcu = (np.asarray(x, dtype=float)[order] for x in (rcu, wcu))
        self.partitions = int(partitions)
        self.dense = bool(len(self.keys)) and self.keys[0] == 0 and self.keys[-1] == len(self.keys) - 1
        self._parts: dict[int, tuple] = {}          # per_second_of's last rows of each part

    def per_second(self, second: np.ndarray, key: np.ndarray, k: np.ndarray):
        """(second, part, rcu, wcu) arrays, one row per (second, partition) a call reached, sorted by second
        then partition: Σ k x units over the calls (``k`` calls of candidate ``key`` in ``second``), added up
        in the order of the calls."""
        return self._sum(*self._expand(second, key, k))

    def per_second_of(self, parts: Sequence[Calls], offsets: Sequence[int]):
        """:meth:`per_second` of the calls ``parts`` one after another, where a call's candidate is its
        pattern's offset plus its ``pos``. A part given again (the same object, at the same place) is not
        gone over again: its rows are kept from the last time."""
        rows = []
        for j, calls in enumerate(parts):
            last = self._parts.get(j)
            if last is None or last[0] is not calls or last[1] != offsets[j]:
                last = (calls, offsets[j], self._expand(calls.second, offsets[j] + calls.pos, calls.k))
                self._parts[j] = last
            rows.append(last[2])
        return self._sum(*(np.concatenate(x) for x in zip(*rows))) if rows else self._sum(*self._expand([], [], []))

    def _expand(self, second, key, k):
        """Per call and partition it reaches, in the order of the calls: second, partition, rcu and wcu."""
        key = np.asarray(key, dtype=np.int64)
        if self.dense:                                # the candidates are 0..n-1: a key is its position
            at = np.minimum(np.maximum(key, 0), max(len(self.keys) - 1, 0))
        else:
            at = np.minimum(np.searchsorted(self.keys, key), max(len(self.keys) - 1, 0))
        known = (self.keys[at] == key) if len(self.keys) else np.zeros(len(key), dtype=bool)
        at, second, k = at[known], np.asarray(second, dtype=np.int64)[known], np.asarray(k, dtype=float)[known]
        n = self.start[at + 1] - self.start[at]
        first = np.repeat(self.start[at] - (np.cumsum(n) - n), n)
        rows = first + np.arange(int(n.sum()))
        kk = np.repeat(k, n)
        return np.repeat(second, n), self.part[rows], kk * self.rcu[rows], kk * self.wcu[rows]

    def _sum(self, second: np.ndarray, part: np.ndarray, rcu: np.ndarray, wcu: np.ndarray):
        """The rows summed per (second, partition), in their order."""
        reached = np.zeros(self.partitions, dtype=bool)
        reached[part] = True                          # the partitions reached, numbered 0..m-1 in their order:
        m = int(reached.sum())                        # (second, partition) cells few enough to count densely
        cells = second * m + (np.cumsum(reached) - 1)[part]
        size = (int(second.max()) + 1 if len(second) else 0) * m
        cell, rcu, wcu = _sum_by_cell(cells, rcu, size, wcu)
        return cell // max(m, 1), np.flatnonzero(reached)[cell % max(m, 1)], rcu, wcu
