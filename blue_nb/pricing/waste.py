"""What a read pays for and does not return: a filter's or a Select's items read, in units and dollars.

:func:`read_waste` takes one call's :class:`~blue_nb.patterns.ReadResult` (a filtered query returns
Count items of the ScannedCount it read, and pays for all of them) and the pattern's rate, and says
what a month of such calls costs on demand, and how much of it buys items the filter drops.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from blue_nb.patterns import ReadResult
from blue_nb.pricing.prices import Prices, as_prices, request_usd
from blue_nb.printing import number, usd

__all__ = ["ReadWaste", "read_waste"]


@dataclass(frozen=True)
class ReadWaste:
    """One call's items returned and read, its units, and a month of calls at ``rate_per_second`` on demand:
    all it pays and the share that buys items dropped (by the filter: ``1 - count / scanned_count``)."""

    pattern: str
    count: int                   # items returned (Count)
    scanned_count: int           # items read and paid for (ScannedCount)
    rcu_per_call: float
    rate_per_second: float
    usd_per_month: Decimal
    dropped_usd_per_month: Decimal

    @property
    def kept_share(self) -> float:
        """The share of the items read that the call returns (1 when it read none)."""
        return self.count / self.scanned_count if self.scanned_count else 1.0

    def __repr__(self) -> str:
        return (f"{self.pattern}: returns {number(self.count)} of {number(self.scanned_count)} items read "
                f"({self.kept_share:.0%}); {self.rcu_per_call:g} RCU per call, at {number(self.rate_per_second)}/s "
                f"{usd(self.usd_per_month)}/month on demand, {usd(self.dropped_usd_per_month)} of it for items "
                "the filter drops")


def read_waste(result: ReadResult, rate_per_second: float | None = None,
               prices: Prices | str | Path | None = None) -> ReadWaste:
    """A month of calls like ``result`` (at ``rate_per_second``, default the pattern's own rate) on demand."""
    rate = rate_per_second if rate_per_second is not None else (result.plan.pattern.rate_per_second
                                                                 if result.plan.pattern is not None else 0)
    p = as_prices(prices)
    paid = request_usd(Decimal(str(result.rcu)) * Decimal(str(rate)), p.on_demand_read_per_million, p.hours_per_month)
    read = result.scanned_count
    dropped = paid * (read - result.count) / read if read else Decimal(0)
    return ReadWaste(result.request.pattern, result.count, read, result.rcu, rate, paid, dropped)

