"""FILTER-DISCARDS: a hot pattern's filter measured on the data, with what it costs in dollars.

:func:`filter_findings` runs each hot read pattern that has a filter once, on the parameters that hit its
largest partition (:func:`blue_nb.app.compare.parameter_cases`), and reports, when the call returns less
than :data:`~blue_nb.rules.heat_rules.FILTER_KEEP_SHARE` of what it reads, the share, what a month of
the pattern costs on demand and the part that buys dropped items (:func:`blue_nb.pricing.read_waste`),
and the key design that would read only what it returns. Layer 3: it runs patterns on a store and prices them.
"""

from __future__ import annotations

from pathlib import Path

from blue_nb.app.compare import parameter_cases
from blue_nb.errors import BlueNbError
from blue_nb.patterns import plan
from blue_nb.pricing import Prices, read_waste
from blue_nb.printing import number, usd
from blue_nb.rules import Finding
from blue_nb.rules.heat_rules import FILTER_DISCARDS, FILTER_KEEP_SHARE, FILTER_MIN_READ
from blue_nb.spec import Spec, pattern_path
from blue_nb.spec.expressions import condition_paths
from blue_nb.stores import Store

__all__ = ["filter_findings"]


def filter_findings(spec: Spec, store: Store, prices: Prices | str | Path | None = None) -> list[Finding]:
    """FILTER-DISCARDS for each hot filtered read pattern whose call, on its largest partition, returns less
    than half of what it reads."""
    out = []
    for i, p in enumerate(spec.access_patterns):
        if p.filter is None or not p.hot or not p.is_read:
            continue
        try:
            case = parameter_cases(store, spec, p)[0]
            result = store.run_plan(plan(spec, p, case.params))
        except BlueNbError:
            continue                                   # no parameters in the data to run it with
        waste = read_waste(result, prices=prices)
        if waste.scanned_count < FILTER_MIN_READ or waste.kept_share >= FILTER_KEEP_SHARE:
            continue
        names = list(dict.fromkeys(path.name for path in condition_paths(p.filter.tree)))
        shown = ", ".join(f"{k}={v}" for k, v in case.params.items()) or "no parameters"
        out.append(FILTER_DISCARDS.finding(
            pattern_path(i, p.name) + ".filter",
            f"{p.name} returns {number(waste.count)} of the {number(waste.scanned_count)} items a call reads "
            f"({waste.kept_share:.0%}; {shown}) and pays for all of them: at {number(waste.rate_per_second)} calls/s, "
            f"{usd(waste.dropped_usd_per_month)} of its {usd(waste.usd_per_month)} a month on demand buys items "
            "the filter drops",
            hint=f"read only what it returns: put {', '.join(names)} into the key it queries (a sort key that "
                 f"begins with it, e.g. '{names[0].upper()}#{{{names[0]}}}#...', so the key condition selects it), "
                 "or read a sparse index that holds only the items the filter keeps",
            evidence=[f"the filter: {p.filter.expression}",
                      f"{waste.rcu_per_call:g} RCU per call for {number(waste.scanned_count)} items read"]))
    return out
