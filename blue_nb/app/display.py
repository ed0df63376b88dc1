"""Tables sized for a notebook: :class:`DisplayTable`, a DataFrame that shows itself compactly.

The frame keeps the real values (Decimals, bytes, maps); only its HTML is shaped for reading:
text and key columns left-aligned, numbers right-aligned with thousands separators, floats
rounded, maps and lists on one truncated line (``{title: "x", n: 3}``), binary as
its kind and size (``<jpeg 12.3 KB>``, ``<binary 13 B>``). Anything computed from a DisplayTable (a slice,
a sum) is a plain DataFrame.
Numbers and cut cells print with :mod:`blue_nb.printing`'s helpers, as in every other table and figure.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any, Iterable

import pandas as pd

from blue_nb.printing import compact, number, usd
from blue_nb.spec.display import html_table

__all__ = ["DisplayTable", "StoreComparison"]

MAX_ROWS = 60       # rows a table shows (then a note says how many were left out)
WRAP_FROM = 16      # a text column with a cell longer than this wraps (keys never do), so wide tables fit


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v))


class DisplayTable(pd.DataFrame):
    """A DataFrame whose notebook display is compact; ``signed`` columns show ``+``/``-``; ``money`` columns
    are dollars as :func:`~blue_nb.printing.usd` prints them everywhere (``$0.0023``, ``+$4.31``, ``—``).

    ``left`` names columns always left-aligned (keys, even when they hold numbers); other columns
    are right-aligned when every value in them is a number.
    """

    _metadata = ["left", "signed", "money", "caption"]

    def __init__(self, *args, left: Iterable[str] = (), signed: Iterable[str] = (), money: Iterable[str] = (),
                 caption: str = "", **kw):
        super().__init__(*args, **kw)
        self.left, self.signed, self.money, self.caption = list(left), list(signed), list(money), caption

    @property
    def _constructor(self):
        return pd.DataFrame

    def __repr__(self) -> str:
        """The same compact cells as plain text (a terminal, a test log)."""
        shown = self.head(MAX_ROWS)
        text = pd.DataFrame({c: [self._cell(c, v) for v in shown[c].tolist()] for c in shown.columns},
                            index=[compact(i) for i in shown.index]).to_string()
        more = len(self) - len(shown)
        return text + (f"\n({more:,} more rows not shown)" if more > 0 else "")

    def _repr_html_(self) -> str:
        shown = self.head(MAX_ROWS)
        columns = list(shown.columns)
        right = [i for i, c in enumerate(columns) if c not in self.left and len(shown)
                 and all(_is_number(v) or v is None or (c in self.money and isinstance(v, Decimal))
                         for v in shown[c].tolist())]
        rows = [[self._cell(c, v) for c, v in zip(columns, row)] for row in shown.itertuples(index=False)]
        index = [compact(i) for i in shown.index]
        more = len(self) - len(shown)
        note = f"<p><small>{more:,} more rows not shown</small></p>" if more > 0 else ""
        wrap = [i for i, c in enumerate(columns) if i not in right and c not in self.left    # long text: it wraps
                and any(len(r[i]) > WRAP_FROM for r in rows)]
        return html_table([str(c) for c in columns], rows, right=right, index=index, caption=self.caption,
                          wrap=wrap) + note

    def _cell(self, column: str, v: Any) -> str:
        if column in self.money and (_is_number(v) or isinstance(v, Decimal)):
            return usd(v, signed=column in self.signed)
        if _is_number(v):
            return number(v, signed=column in self.signed, trim=True)
        return compact(v)


class StoreComparison(dict):
    """compare_stores' result: a plain dict (its repr too) that shows a short table in a notebook."""

    def _repr_html_(self) -> str:
        stores = [(k, v) for k, v in self.items() if isinstance(v, dict)]
        rows = [[k, f"{v['items']:,}", v["sha256"]] for k, v in stores]
        verdict = ("<b>identical</b>: every store holds the same items, byte for byte" if self.get("identical")
                   else "<b>NOT identical</b>: the stores differ")
        return f"<p>{verdict}</p>" + html_table(["store", "items", "sha256 of every item in key order"], rows,
                                                 right=(1,))
