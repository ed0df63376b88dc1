"""The mean load, stated once: what the report's ``partitions``, ``hot_items`` and ``patterns`` and a slider's say.

Both :meth:`~blue_nb.heat.model.HeatModel.partitions` (the report, ``summary.json``, the review) and
:meth:`~blue_nb.heat.rates.RateModel.evaluate` (a :class:`~blue_nb.heat.rates.RateResult`, the
sliders) count with these functions, so the same rates and weights give the same numbers:

* :func:`load_per`: the rule itself, ``Σ calls/s × units`` per cell, where a candidate's calls/s are
  its pattern's rate times its weight and its units what one call costs there (:mod:`.costs`);
* :func:`load_by_pattern`: per (pattern, partition), over the ``effects`` rows (the units one call puts
  on a partition); :meth:`~blue_nb.heat.model.HeatModel.pattern_costs` counts per pattern over the
  ``calls`` rows (a call's units, the sum of its ``effects``), the same load summed over the partitions;
* :func:`ranked`: per partition the sum over patterns, Contributor Insights' consumed throughput
  units ``3 × WCU + RCU``, the hottest first (then by bytes, then in key order: index, pk) and the
  patterns with load on it (:func:`~blue_nb.heat.rankings.pattern_lists`);
* :func:`warm_keys` and :func:`hot_items`: per item, over the ``hits`` rows (the units one call puts on
  an item), the hottest items of the hottest keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from blue_nb.heat.rankings import pattern_lists
from blue_nb.sizing import PARTITION_RCU, PARTITION_WCU

__all__ = ["HOT_ITEMS", "HOT_KEYS", "HotItems", "Ranked", "hot_items", "load_by_pattern", "load_per", "ranked",
           "size_order", "warm_keys"]

HOT_KEYS = 200          # the hottest keys whose items are ranked (and every key at half a limit)
HOT_ITEMS = 100         # the hottest items kept (and the hottest of every key at half a limit)


def load_per(cell: np.ndarray, calls: np.ndarray, units: np.ndarray, cells: int) -> np.ndarray:
    """Units/s per cell, ``Σ calls × units`` of the rows in each cell (``calls``: the calls/s of the row's
    candidate, rate × weight; ``units``: what one call costs there), summed in the order of the rows."""
    return np.bincount(np.asarray(cell, dtype=np.int64), calls * units, cells)


def load_by_pattern(pattern: np.ndarray, part: np.ndarray, calls: np.ndarray, units: np.ndarray, patterns: int,
                    partitions: int) -> np.ndarray:
    """A (patterns x partitions) matrix: :func:`load_per` of the effect rows of each pattern on each partition."""
    cell = np.asarray(pattern, dtype=np.int64) * partitions + np.asarray(part, dtype=np.int64)
    return load_per(cell, calls, units, patterns * partitions).reshape(patterns, partitions)


def size_order(nbytes: np.ndarray, index_rank: np.ndarray) -> np.ndarray:
    """The order of partitions of equal load: more bytes first, then by index name (``index_rank``: the rank of
    the partition's index name), then as given (the partitions given in key order within an index)."""
    return np.lexsort((np.arange(len(nbytes)), index_rank, -np.asarray(nbytes)))


@dataclass(frozen=True)
class Ranked:
    """Partitions ranked by load: ``order`` (hottest first), and per partition (in the order given, not ranked)
    ``rcu``, ``wcu``, ``ctu`` (3 × WCU + RCU) and the code of its ``patterns`` list among ``texts``."""

    order: np.ndarray
    rcu: np.ndarray
    wcu: np.ndarray
    ctu: np.ndarray
    codes: np.ndarray
    texts: list[str]


def ranked(rcu: np.ndarray, wcu: np.ndarray, names: list[str], tiebreak: np.ndarray) -> Ranked:
    """The load per partition of the (pattern x partition) matrices ``rcu`` and ``wcu`` (rows: the patterns
    ``names``, sorted), hottest first by consumed throughput units, ties in the order ``tiebreak``
    (:func:`size_order`)."""
    r, w = rcu.sum(axis=0), wcu.sum(axis=0)             # pattern by pattern, in order (a BLAS product: 25x slower)
    ctu = 3 * w + r
    order = tiebreak[np.argsort(-ctu[tiebreak], kind="stable")]
    codes, texts = pattern_lists(3 * wcu + rcu, names)
    return Ranked(order, r, w, ctu, codes, texts)


def warm_keys(load: Ranked, reached: np.ndarray, key_rank: np.ndarray, keys: int = HOT_KEYS) -> np.ndarray:
    """The partitions whose items :func:`hot_items` ranks, ascending: of those ``reached`` (any call puts units
    there, a bool per partition), the ``keys`` hottest by consumed throughput units (ties in key order,
    ``key_rank``: the rank of a partition by index name, then pk) and every one at half a limit."""
    at = np.flatnonzero(reached)
    k = min(max(int(keys), 0), len(at))
    if 0 < k < len(at):                                 # only the keys as hot as the k-th are sorted
        at = at[load.ctu[at] >= -np.partition(-load.ctu[at], k - 1)[k - 1]]
    top = at[np.lexsort((key_rank[at], -load.ctu[at]))[:k]]
    return np.union1d(top, np.flatnonzero(reached & _half(load)))


def _half(load: Ranked) -> np.ndarray:
    """Per partition: at half a limit (RCU or WCU) on average."""
    return (load.rcu >= PARTITION_RCU / 2) | (load.wcu >= PARTITION_WCU / 2)


@dataclass(frozen=True)
class HotItems:
    """The hottest items, hottest first: per row its partition, its item (a code), ``rcu`` and ``wcu`` per second."""

    part: np.ndarray
    item: np.ndarray
    rcu: np.ndarray
    wcu: np.ndarray


def hot_items(part: np.ndarray, item: np.ndarray, calls: np.ndarray, rcu: np.ndarray, wcu: np.ndarray, load: Ranked,
              key_rank: np.ndarray, item_rank: np.ndarray, n: int = HOT_ITEMS) -> HotItems:
    """The hottest items of the hits rows given: those of the :func:`warm_keys`, grouped by (``part``, ``item``: a
    code, ``item_rank`` its rank by text), each item's rows pattern by pattern (by name), the order they are summed
    in; ``calls``: the calls/s of the row's candidate, ``rcu`` and ``wcu``: what one call puts on the item. Their
    load by :func:`load_per`; the top ``n`` by ``3 × WCU + RCU`` (ties in key order, then by item), and the
    hottest item of every key at half a limit (what no split goes below)."""
    part, item = np.asarray(part, dtype=np.int64), np.asarray(item, dtype=np.int64)
    new = np.ones(len(part), dtype=bool)
    new[1:] = (part[1:] != part[:-1]) | (item[1:] != item[:-1])
    cell = np.cumsum(new) - 1
    r, w = (load_per(cell, calls, u, int(new.sum())) for u in (rcu, wcu))
    p, i = part[new], item[new]
    ctu = 3 * w + r
    top = np.arange(len(ctu))
    if 0 < n < len(ctu):                               # only the items as hot as the n-th are sorted
        top = np.flatnonzero(ctu >= -np.partition(-ctu, int(n) - 1)[int(n) - 1])
    top = top[np.lexsort((item_rank[i[top]], key_rank[p[top]], -ctu[top]))][:max(int(n), 0)]
    half = np.flatnonzero(_half(load)[p])
    half = half[np.lexsort((item_rank[i[half]], -ctu[half], p[half]))]
    firsts = half[np.r_[True, p[half][1:] != p[half][:-1]]] if len(half) else half
    o = np.union1d(top, firsts)
    o = o[np.lexsort((item_rank[i[o]], key_rank[p[o]], -ctu[o]))]
    return HotItems(p[o], i[o], r[o], w[o])
