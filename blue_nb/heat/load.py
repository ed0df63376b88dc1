"""The mean load per partition, stated once: what the report's ``partitions`` and a slider's say.

Both :meth:`~blue_nb.heat.model.HeatModel.partitions` (the report, ``summary.json``, the review) and
:meth:`~blue_nb.heat.rates.RateModel.evaluate` (a :class:`~blue_nb.heat.rates.RateResult`, the
sliders) count with these functions, so the same rates and weights give the same numbers:

* :func:`load_by_pattern`: per (pattern, partition), ``Σ calls/s × units`` over the ``effects``
  rows (the units one call of a candidate puts on a partition, :mod:`.costs`), where a candidate's
  calls/s are its pattern's rate times its weight;
* :func:`ranked`: per partition the sum over patterns, Contributor Insights' consumed throughput
  units ``3 × WCU + RCU``, the hottest first (then by bytes, then in key order: index, pk) and the
  patterns with load on it (:func:`~blue_nb.heat.rankings.pattern_lists`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from blue_nb.heat.rankings import pattern_lists

__all__ = ["Ranked", "load_by_pattern", "ranked", "size_order"]


def load_by_pattern(pattern: np.ndarray, part: np.ndarray, calls: np.ndarray, units: np.ndarray, patterns: int,
                    partitions: int) -> np.ndarray:
    """A (patterns x partitions) matrix: ``Σ calls × units`` of the effect rows of each pattern on each partition
    (``calls``: the calls/s of the row's candidate, rate × weight; ``units``: what one call puts there)."""
    cell = np.asarray(pattern, dtype=np.int64) * partitions + np.asarray(part, dtype=np.int64)
    return np.bincount(cell, calls * units, patterns * partitions).reshape(patterns, partitions)


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
    k = len(names)
    r, w = np.ones(k) @ rcu, np.ones(k) @ wcu
    ctu = 3 * w + r
    order = tiebreak[np.argsort(-ctu[tiebreak], kind="stable")]
    codes, texts = pattern_lists(3 * wcu + rcu, names)
    return Ranked(order, r, w, ctu, codes, texts)
