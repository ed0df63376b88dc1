"""The per-second model, stated once: calls drawn second by second, and the units they put on each key.

Both the report (:func:`~blue_nb.heat.partition_heat`, through
:meth:`~blue_nb.heat.model.HeatModel.simulate` and :meth:`~blue_nb.heat.model.HeatModel.timeline`)
and the sliders (:meth:`blue_nb.heat.rates.RateModel.evaluate`) draw with :func:`draw_calls` and
add up with :class:`CallUnits`, so the same rates, weights, seconds and seed give the same
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

numpy only; the SQL statement of the same draw and sum is the tests' oracle (tests/heat_oracle.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["CallUnits", "Calls", "FEW_CALLS", "MANY_CANDIDATES", "MAX_DRAWS", "draw_calls"]

#: calls drawn per pattern for the timeline; above it each draw stands for several. 250k keeps a heat slider's
#: redraw under 150 ms at 100k partitions with one pattern at 1,000x its rate (2M: 430 ms), and is above the
#: largest pattern of make bench's 1M modelled requests (~244k calls), whose baseline expands whole calls
MAX_DRAWS = 250_000
FEW_CALLS = 200_000          # up to this many calls of a pattern are drawn one by one ...
MANY_CANDIDATES = 10_000     # ... and so are more, over more candidates than this; else a multinomial per second


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


def draw_calls(rates: Sequence[float], weights: Sequence[np.ndarray], seconds: int, seed: int) -> Calls:
    """``seconds`` seconds of calls of each pattern (``rates[j]`` calls/s over the candidates weighted by
    ``weights[j]``, in candidate order), drawn as the module docstring says."""
    rng = np.random.default_rng(seed)
    parts = []
    for j, (rate, w) in enumerate(zip(rates, weights)):
        counts = rng.poisson(rate, size=seconds)
        if not len(w) or not counts.sum():
            continue
        if counts.sum() <= FEW_CALLS or len(w) > MANY_CANDIDATES:
            second, pos, k = _one_by_one(rng, counts, np.asarray(w, dtype=float))
        else:
            second, pos, k = _per_second(rng, counts, np.asarray(w, dtype=float))
        parts.append((second, np.full(len(k), j, dtype=np.int64), pos, k))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return Calls(empty, empty, empty, np.zeros(0))
    return Calls(*(np.concatenate(x) for x in zip(*parts)))


def _one_by_one(rng: np.random.Generator, counts: np.ndarray, w: np.ndarray):
    """Each call (or each ``mult`` calls) its own draw; the draws of one (second, candidate) added up."""
    seconds, total = len(counts), counts.sum()
    mult = max(1.0, total / MAX_DRAWS)
    k = np.maximum(np.rint(counts / mult), 0).astype(np.int64)
    second = np.repeat(np.arange(seconds), k)
    u = rng.random(len(second))
    each = total / max(k.sum(), 1)
    cum = np.cumsum(w)
    pos = np.searchsorted(cum - w, u * cum[-1], side="right") - 1
    cell, k = _sum_by_cell(second * len(w) + pos, np.full(len(pos), each), seconds * len(w))
    return cell // len(w), cell % len(w), k


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

    def per_second(self, second: np.ndarray, key: np.ndarray, k: np.ndarray):
        """(second, part, rcu, wcu) arrays, one row per (second, partition) a call reached, sorted by second
        then partition: Σ k x units over the calls (``k`` calls of candidate ``key`` in ``second``)."""
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
        cells = np.repeat(second, n) * self.partitions + self.part[rows]
        kk = np.repeat(k, n)
        size = (int(second.max()) + 1 if len(second) else 0) * self.partitions
        cell, rcu, wcu = _sum_by_cell(cells, kk * self.rcu[rows], size, kk * self.wcu[rows])
        return cell // self.partitions, cell % self.partitions, rcu, wcu
