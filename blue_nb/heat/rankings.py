"""Which patterns load each partition key, in order: the ``patterns`` column of ``partitions``, for the report
and for :class:`~blue_nb.heat.rates.RateModel` alike (through :func:`blue_nb.heat.load.ranked`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["LOAD_DECIMALS", "pattern_lists"]


LOAD_DECIMALS = 9    # units/s: places of a load that rank a key's patterns (the rest is float rounding)


def pattern_lists(units: np.ndarray, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """Per partition, the patterns with load on it by 3×WCU + RCU descending, then by name (loads to 9
    decimal places: only equal ones are ties): (code per partition, texts). Each key's ranking is packed into one integer, 4 bits per
    pattern; each distinct ranking is joined once. ``units`` has a row per pattern, in the order of ``names``
    (sorted, so ties go to the first name)."""
    k = len(names)
    # rows: patterns by name, so ties go to the first name; loads to LOAD_DECIMALS places, as equal loads summed
    # in another order (the report, the sliders' model) differ in their last bits
    u = np.round(units.astype(np.float64), LOAD_DECIMALS)
    ahead = np.zeros(u.shape, np.int8)                # per key, a pattern's place: the patterns ahead of it
    for c in range(k):                               # a loop over pairs of patterns (a stable sort of each key's
        for o in range(k):                           # column, without the sort: k^2 compares of whole rows)
            if o != c:
                ahead[c] += (u[o] >= u[c]) if o < c else (u[o] > u[c])
    none = 15 if k < 15 else k
    np.putmask(ahead, units <= 0, none)
    if k < 15:
        code = np.zeros(u.shape[1], np.int64)
        for c in range(k):
            code |= ahead[c].astype(np.int64) << (4 * c)
        codes, uniq = pd.factorize(code)
        ranks = [[(int(x) >> (4 * c)) & 15 for c in range(k)] for x in uniq]
    else:
        uniq, codes = np.unique(ahead.T, axis=0, return_inverse=True)
        ranks = uniq.tolist()
    texts = [", ".join(names[c] for c in sorted((c for c in range(k) if row[c] != none), key=row.__getitem__))
             for row in ranks]
    same, texts = pd.factorize(np.array(texts, dtype=object))     # (equal rankings of different codes: one text)
    return same[codes.reshape(-1)], list(texts)
