"""What the review report measures on the data: :func:`review_data` gathers the checks, the partition
heat, the pictures, the monthly cost, example keys and requests (and, with ``against``, what changed
since the previous spec) into a :class:`blue_nb.export.ReviewData` for the ``report-html`` and
``report-md`` formats.

The data is loaded once into an in-memory DuckDB store; the heat model runs once and its timeline
gives the provisioned peaks of the cost too. Layer 3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from blue_nb.app.compare import action_cases
from blue_nb.app.filter_waste import filter_findings
from blue_nb.app.migrate import plan_migration
from blue_nb.app.reports import heat_figures
from blue_nb.app.workflows import (as_spec, beside_checks, data_store, heat_failed, load_checked, located_items,
                                   validate_into, with_heat_findings)
from blue_nb.errors import BlueNbError
from blue_nb.export import (
    Changes,
    Image,
    ReviewData,
    cost_reason,
    example_request,
    findings_changes,
    spec_changes,
)
from blue_nb.heat import HeatReport, partition_heat
from blue_nb.patterns import row_values
from blue_nb.layout import item_shape_digest
from blue_nb.plots.base import DPI
from blue_nb.pricing import Bill, as_prices, dollar_changes, monthly_bill
from blue_nb.rules import Findings, check_spec
from blue_nb.spec import Spec
from blue_nb.stores import Store

__all__ = ["EXAMPLE_KEYS", "FIGURE_CAPTIONS", "review_data"]

#: example keys shown per entity
EXAMPLE_KEYS = 3

#: figure name (or its start) -> (title, what it shows)
FIGURE_CAPTIONS = {
    "heat_": ("Partition heat", "Each row is a partition key (in key order), each column a simulated second; the colour "
                                "is the units the key took in that second, on a square-root scale that ends at the "
                                "per-partition limit when the load comes near it. The busiest keys are named on the "
                                "left, their peaks (units in their busiest second) are on the right."),
    "top_keys": ("Hottest keys", "The partition keys taking the most capacity, ranked by 3 x WCU + RCU, with their "
                                 "mean read and write units per second."),
    "partition_sizes": ("Item collection sizes", "Bytes per partition key against the 10 GB an item collection "
                                                 "may hold when the table has a local index."),
    "item_sizes": ("Item sizes", "Item sizes per entity against the 1 KB write unit, the 4 KB read unit and the "
                                 "400 KB item limit."),
    "attribute_sizes": ("Where the bytes are", "The attributes (names included) that make up each entity's items."),
    "index_entry_sizes": ("Index entry sizes", "Sizes of the table's items and of each index's entries, which "
                                               "every write to the index pays for."),
}


def _caption(name: str) -> tuple[str, str]:
    for start, (title, text) in FIGURE_CAPTIONS.items():
        if name.startswith(start):
            if start == "heat_":
                index, metric = name[len(start):].rsplit("_", 1)
                return f"{title}: {index}, {metric.upper()}", text
            return title, text
    return name.replace("_", " "), ""


#: figures the report shows as a table instead: capacity waste per request (the real items a call reads),
#: where the figure assumes one item per request
AS_TABLES = ("capacity_waste",)


def figures_of(report: HeatReport) -> list[Image]:
    """Every heat and size picture of ``report`` as PNG bytes with its title and caption (but :data:`AS_TABLES`)."""
    return [Image(name, *_caption(name), draw().png(DPI)) for name, draw in heat_figures(report).items()
            if name not in AS_TABLES]


HOT_SCAN = 50_000      # items of an entity looked through for one on a pattern's busiest key


def _on_key(store: Store, spec: Spec, entity: str, index: str, pk: Any) -> dict | None:
    """An item of ``entity`` whose partition key on ``index`` is ``pk`` (among its first HOT_SCAN items)."""
    attr = spec.key_attributes(index)[0]
    for n, item in enumerate(store.iter_items(spec.table_name, entity, limit=HOT_SCAN)):
        if str(item.get(attr)) == str(pk):
            return item
        if n >= HOT_SCAN:
            break
    return None


def _examples(store: Store, spec: Spec, busiest: dict[str, dict[str, Any]] | None = None
              ) -> tuple[dict[str, list[dict[str, str]]], dict[str, str]]:
    """Entity -> the key attributes of its first items; pattern -> its boto3 request bound to the values
    of an item on the key the pattern loads most (``busiest``: :func:`_busiest`), else of the first item of
    its first entity (a write: that item)."""
    examples: dict[str, list[dict[str, str]]] = {}
    first: dict[str, dict] = {}
    for name, entity in spec.entities.items():
        rows = []
        for item in store.iter_items(spec.table_name, name, limit=EXAMPLE_KEYS):
            first.setdefault(name, item)
            rows.append({k: str(item[k]) for k in entity.key if k in item})
            if len(rows) >= EXAMPLE_KEYS:
                break
        examples[name] = rows
    requests = {}
    for p in spec.access_patterns:
        if p.is_composite:                         # a transaction or a batch: parameters its actions find in the data
            cases = action_cases(store, spec, p)
            requests[p.name] = example_request(spec, p.name, cases[0].params if cases else None)
            continue
        hot = (busiest or {}).get(p.name)
        item = next((i for e in p.entities if hot and (i := _on_key(store, spec, e, hot["index"], hot["pk"]))),
                    None) or next((first[e] for e in p.entities if e in first), None)
        if item is None:
            continue
        params = {k: v for k, v in row_values(spec, p.entities[0], item).items() if k in p.parameters}
        requests[p.name] = example_request(spec, p.name, params, None if p.is_read else item)
    return examples, requests


def _busiest(report: HeatReport) -> dict[str, dict[str, Any]]:
    """Pattern -> the key it loads most (mean units/s it puts there)."""
    out: dict[str, dict[str, Any]] = {}
    d = report.drivers
    for name, g in d.groupby("pattern", sort=False):
        metric = "rcu_per_s" if g["rcu_per_s"].sum() >= g["wcu_per_s"].sum() else "wcu_per_s"
        row = g.loc[g[metric].idxmax()]
        out[str(name)] = {"index": row["index"], "pk": row["pk"], "rcu_per_s": float(row["rcu_per_s"]),
                          "wcu_per_s": float(row["wcu_per_s"])}
    return out


def _measured(spec: Spec, data_dir: str | Path | None, store: Store, prices: Any, utilisation: float,
              figures: bool) -> tuple[Findings, ReviewData, Bill | None]:
    """The checks, the heat and the monthly bill of ``spec`` on the items (the bill also as ``data.cost``)."""
    def heat(on: Store) -> HeatReport | BlueNbError:
        try:
            return partition_heat(spec, on)
        except BlueNbError as e:
            return e

    if data_dir is None:                                           # the loaded items: checks and model side by side
        findings, report = beside_checks(spec, store, heat)
    else:                                                          # each item built once: loaded and checked
        findings, failed = load_checked(spec, data_dir, store)
        report = failed or heat(store)
    data = ReviewData(source=str(data_dir if data_dir is not None else store.path), items=findings.items_checked)
    if isinstance(report, BlueNbError):
        return with_heat_findings(findings, [heat_failed(report)]), data, None
    findings = with_heat_findings(findings, [*report.findings, *filter_findings(spec, store, prices)])
    data.entity_stats = dict(report.size_stats)
    data.reads = {r["pattern"]: {"items_per_call": float(r["items_per_call"]), "bytes_per_call": float(r["bytes_per_call"])}
                  for r in report.patterns.to_dict("records") if r["rcu_per_call"] > 0}
    data.busiest = _busiest(report)
    data.examples, data.requests = _examples(store, spec, data.busiest)   # requests on each pattern's hot key
    summary = report.summary(top=10)
    data.top_keys = summary["top_keys"]
    data.load = summary["table"]
    data.peaks = {ix: {"peak_key_rcu": v.get("peak_key_rcu", 0.0), "peak_key_wcu": v.get("peak_key_wcu", 0.0)}
                  for ix, v in summary["indexes"].items() if "peak_key_rcu" in v}
    if len(report.partitions):
        lp = report.partitions.sort_values("bytes", ascending=False, kind="stable").iloc[0]
        data.largest_partition = {"index": lp["index"], "pk": lp["pk"], "bytes": int(lp["bytes"]),
                                  "items": int(lp["items"])}
    bill = monthly_bill(spec, store, prices=prices, utilisation=utilisation, heat=report)
    data.cost = bill.summary()
    if figures:
        data.figures = figures_of(report)
    return findings, data, bill


def _changes(old_spec: Spec, findings: Findings, bill: Bill | None, data_dir: str | Path | None,
             duckdb: str | Path | None, prices: Any, utilisation: float, spec: Spec) -> Changes:
    """What changed since ``old_spec``: keys, patterns, findings and, when both versions were priced on the
    same items, the dollars (``bill``: the new version's)."""
    label = old_spec.source_path or old_spec.domain
    old_items: list[tuple[str, dict, str]] = []
    old_bill, note = None, "Costs are compared when the report is made with --data or --duckdb."
    if data_dir is None and duckdb is not None and item_shape_digest(old_spec) != item_shape_digest(spec):
        duckdb = None                      # the loaded items are the new version's: the old one builds others
        note = ("The previous version builds other items (its table, keys, indexes or entities differ), so its "
                "cost needs the rows: make the report with --data to compare costs.")
    if data_dir is None and duckdb is None:
        old_findings = check_spec(old_spec)
    else:                                  # the previous version on the same rows: one load, checked as it is built
        store = data_store(old_spec, data_dir, duckdb)
        try:                               # its items kept as they are built, for the migration plan
            old_findings, failed = validate_into(old_spec, data_dir, store,
                                                 items=_kept(old_spec, data_dir, old_items))
            if not failed:
                try:
                    old_bill = monthly_bill(old_spec, store, prices=prices, utilisation=utilisation)
                except BlueNbError as e:
                    failed = e
        finally:
            store.close()
        if failed:
            note = f"The previous version's cost was not computed: {failed.msg}"
    new, gone = findings_changes(old_findings, findings)
    ch = Changes(label, spec_changes(old_spec, spec), new, gone)
    _migration(ch, old_spec, spec, data_dir, prices, old_items)
    if old_bill is None or bill is None:
        ch.costs_note = note
        return ch
    ch.costs = dollar_changes(old_bill, bill)
    lines = ({x.pattern: x for x in old_bill.patterns}, {x.pattern: x for x in bill.patterns})
    for row in ch.costs:                   # why each pattern's dollars moved (totals: the sum of the patterns')
        if row["what"] in lines[0] or row["what"] in lines[1]:
            row["reason"] = cost_reason(row["what"], lines[0].get(row["what"]), lines[1].get(row["what"]),
                                        old_spec, spec, ch.spec)
    return ch


def _kept(spec: Spec, data_dir: str | Path | None, kept: list) -> Iterator[tuple[str, dict, str]] | None:
    """:func:`located_items` of ``data_dir`` (None without it), each also appended to ``kept`` as it passes."""
    if data_dir is None:
        return None

    def keep() -> Iterator[tuple[str, dict, str]]:
        for located in located_items(spec, data_dir):
            kept.append(located)
            yield located
    return keep()


def _migration(ch: Changes, old_spec: Spec, spec: Spec, data_dir: str | Path | None, prices: Any,
               old_items: list[tuple[str, dict, str]]) -> None:
    """The migration of the items from ``old_spec`` to ``spec``, planned on the rows (with --data): on
    ``old_items``, the old version's items the cost's load built (every row's, or none: built here)."""
    if data_dir is None:
        ch.migration_note = ("The migration of the items already stored is planned on the rows: make the report "
                             "with --data, or run blue-nb migrate OLD NEW --data DIR.")
        return
    try:
        ch.migration = plan_migration(old_spec, spec, data_dir=data_dir, prices=prices,
                                      old_items=old_items or None).report_data()
    except BlueNbError as e:
        ch.migration_note = f"The migration of the items was not planned: {e.msg}"


def review_data(spec: Spec | str | Path, data_dir: str | Path | None = None, *, duckdb: str | Path | None = None,
                against: Spec | str | Path | None = None, prices: Any = None, utilisation: float = 0.6,
                figures: bool = True) -> tuple[Findings, ReviewData]:
    """The findings and the measured :class:`~blue_nb.export.ReviewData` of ``spec`` on the rows under
    ``data_dir``, or on the items a load put in the DuckDB file ``duckdb`` (neither: the spec alone);
    ``against``: the previous version of the spec, whose differences (spec, findings and, with data,
    costs on the same items) the report lists."""
    spec = as_spec(spec)
    old = as_spec(against) if against is not None else None        # a bad --against fails before the work
    prices = as_prices(prices)
    if data_dir is None and duckdb is None:
        findings, data, bill = check_spec(spec), ReviewData(), None
    else:
        with data_store(spec, data_dir, duckdb) as store:
            findings, data, bill = _measured(spec, data_dir, store, prices, utilisation, figures)
    if old is not None:
        data.changes = _changes(old, findings, bill, data_dir, duckdb, prices, utilisation, spec)
    return findings, data

