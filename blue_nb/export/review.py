"""The access-pattern review report (``report-html``, ``report-md``): what a team reads in the
meeting where a design is accepted or sent back.

Its sections, in order: the verdict and the numbers at a glance; what changed since the previous
version (``--against``); the table and its indexes; each entity with its key templates and example
keys; each access pattern with its operation, index, key condition, cost per call, rate, units/s,
dollars per month, hot or cold, and the boto3 request; the findings by severity with their evidence
and fix; the heat and size pictures with the hottest keys; the monthly cost; how to reproduce it.

Everything measured on data arrives in :class:`ReviewData` (made by :mod:`blue_nb.app.review`);
without it the report is the spec's alone and says which sections need ``--data``. Pure.
"""

from __future__ import annotations

import shlex
from decimal import Decimal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blue_nb.errors import BlueNbError
from blue_nb.export.base import ExportContext, content_hash, version
from blue_nb.export.review_diff import Changes
from blue_nb.export.review_render import (
    Code,
    Details,
    Heading,
    Image,
    Items,
    Para,
    TableBlock,
    to_html,
    to_markdown,
)
from blue_nb.patterns import plan
from blue_nb.printing import human_bytes, number, per_second, usd
from blue_nb.rules import SEVERITIES, SEVERITY_TITLES
from blue_nb.sizing import MAX_ITEM_BYTES, PARTITION_RCU, PARTITION_WCU, READ_UNIT_BYTES
from blue_nb.spec import Spec
from blue_nb.spec.display import pattern_condition_text

__all__ = ["ReviewData", "example_request", "render_report_html", "render_report_md", "report_blocks"]


@dataclass
class ReviewData:
    """What the report shows besides the spec, measured on the data (all plain values)."""

    source: str = ""                                   # the data folder the numbers come from
    items: int | None = None                           # items built and checked
    entity_stats: dict[str, dict[str, int]] = field(default_factory=dict)   # entity -> count, p50, p95, max, bytes
    examples: dict[str, list[dict[str, str]]] = field(default_factory=dict)  # entity -> key attribute -> value
    requests: dict[str, str] = field(default_factory=dict)   # pattern -> its boto3 request with example values
    busiest: dict[str, dict[str, Any]] = field(default_factory=dict)   # pattern -> index, pk, rcu_per_s, wcu_per_s
    reads: dict[str, dict[str, float]] = field(default_factory=dict)   # read pattern -> items_per_call, bytes_per_call
    cost: dict[str, Any] | None = None                 # Bill.summary() (blue_nb.pricing)
    load: dict[str, Any] = field(default_factory=dict)  # the heat report's table: billing, mean and peak units/s
    top_keys: list[dict[str, Any]] = field(default_factory=list)
    peaks: dict[str, dict[str, float]] = field(default_factory=dict)   # index -> peak_key_rcu, peak_key_wcu
    largest_partition: dict[str, Any] = field(default_factory=dict)   # index, pk, bytes, items
    figures: list[Image] = field(default_factory=list)
    changes: Changes | None = None
    figure_dir: str | None = None                      # report-md: where the PNGs are, relative to the file


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:,.1f}%" if whole else "-"


def example_request(spec: Spec, pattern: str, params: dict[str, Any] | None = None,
                    item: dict[str, Any] | None = None) -> str:
    """The boto3 call of one pattern, bound to ``params`` (else a placeholder per parameter)."""
    p = spec.pattern(pattern)
    tries = [params] if params else [{n: f"<{n}>" for n in p.parameters}, {n: "1" for n in p.parameters}]
    for values in tries:
        try:
            return plan(spec, p, values).show_boto3(item)
        except BlueNbError as e:
            problem = e.msg
    return f"# no request: {problem}"


def _verdict(spec: Spec, ctx: ExportContext, data: ReviewData) -> list:
    checked = (f"{data.items:,} items checked from `{shown_path(data.source)}`" if data.items is not None
               else "the spec alone; pass --data to check items, heat and cost")
    if ctx.validated:
        kind = "warn" if ctx.findings.counts["warning"] else "ok"
        head = Para(f"Validated: {ctx.counts_text()} ({checked}).", kind)
    else:
        n = len(ctx.findings.errors)
        head = Para(f"NOT VALIDATED: {n} error{'s' if n != 1 else ''} ({', '.join(ctx.error_rules())}); "
                    f"{ctx.counts_text()} ({checked}).", "bad")
    meta = (f"blue_nb {version()} · {ctx.timestamp} · spec `{shown_path(spec.source_path, spec.domain)}` · "
            f"content sha256 `{content_hash(spec)[:16]}…`")
    blocks = [head, Para(meta, "muted")]
    serious = [f for f in ctx.findings if f.severity in ("error", "warning")]
    if serious:
        blocks.append(Items([f"{f.severity} **{f.rule}** at `{f.where}`: {f.message}" for f in serious]))
    return blocks


def _headroom(peak: dict[str, float]) -> str:
    """How many times the busiest key's traffic can grow before its busiest second reaches a partition's
    limit (the nearer of the read and the write limit)."""
    room = [limit / peak[key] for key, limit in (("peak_key_rcu", PARTITION_RCU), ("peak_key_wcu", PARTITION_WCU))
            if peak.get(key)]
    if not room:
        return "no traffic"
    growth = min(room)
    return (f"over the limit now ({number(1 / growth, 1)}x it)" if growth < 1 else
            f"{number(growth, significant=2)}x the traffic (+{number(100 * (growth - 1), 0)}%)")


def _caveat(data: ReviewData) -> Para:
    """What the numbers rest on: the items they were measured on and the rates the spec assumes."""
    return Para(f"These numbers rest on their inputs: the items of `{shown_path(data.source)}` (the shipped "
                "samples are generated, not production data) and the calls per second the spec assumes for each "
                "pattern. Check both against production before sizing capacity on them.", "muted")


def _glance(spec: Spec, ctx: ExportContext, data: ReviewData) -> list:
    rows = [["findings", ctx.counts_text(), ""]]
    if data.items is not None:
        rows.append(["items", f"{data.items:,} in {len(spec.entities)} entities", ""])
    for index, peak in data.peaks.items():
        rows.append([f"busiest key, {index}", f"{per_second(peak['peak_key_rcu'])} RCU/s, "
                     f"{per_second(peak['peak_key_wcu'])} WCU/s (busiest second)",
                     f"{_pct(peak['peak_key_rcu'], PARTITION_RCU)} of {PARTITION_RCU:,} RCU, "
                     f"{_pct(peak['peak_key_wcu'], PARTITION_WCU)} of {PARTITION_WCU:,} WCU per partition"])
        rows.append([f"headroom, {index}", _headroom(peak), "before the busiest key reaches a partition's limit"])
    if data.largest_partition:
        lp = data.largest_partition
        rows.append(["largest item collection", f"`{lp['pk']}`: {human_bytes(lp['bytes'])}", f"{lp['items']:,} items"])
    if data.entity_stats:
        name, st = max(data.entity_stats.items(), key=lambda kv: kv[1]["max"])
        rows.append(["largest item", f"{st['max']:,} bytes ({name})", f"{_pct(st['max'], MAX_ITEM_BYTES)} of 400 KB"])
    if data.cost:
        t = data.cost["totals"]
        rows.append(["monthly cost", f"{usd(t['total_on_demand_usd'])} on demand, "
                     f"{usd(t['total_provisioned_usd'])} provisioned",
                     f"{data.cost['region']} prices of {data.cost['date']}"])
    caveat = [_caveat(data)] if data.items is not None else []
    return [Heading(2, "At a glance", "glance"), TableBlock(["", "value", "against the limits"], rows), *caveat]


def _changes(data: ReviewData) -> list:
    ch = data.changes
    if ch is None:
        return []
    out: list = [Heading(2, f"Since the previous version ({shown_path(ch.against)})", "changes")]
    if ch.empty:
        return [*out, Para("Nothing changed: same keys, indexes, patterns, findings and costs.")]
    if ch.spec:
        out.append(TableBlock(["what", "name", "change", "before", "after"],
                         [[c.area, c.name, c.change, f"`{c.before}`" if c.before else "",
                           f"`{c.after}`" if c.after else ""] for c in ch.spec]))
    else:
        out.append(Para("The spec's keys, indexes and patterns are the same."))
    if ch.new_findings or ch.resolved_findings:
        rows = [[f.severity, f.rule, f"`{f.where}`", "new"] for f in ch.new_findings]
        rows += [[f.severity, f.rule, f"`{f.where}`", "resolved"] for f in ch.resolved_findings]
        out += [Heading(3, "Findings"), TableBlock(["severity", "rule", "where", ""], rows)]
    if ch.costs:
        rows = [[r["what"], usd(r["old_usd"]), usd(r["new_usd"]),
                 usd(None if r["old_usd"] is None or r["new_usd"] is None else r["new_usd"] - r["old_usd"], True),
                 r.get("reason", "")] for r in ch.costs]
        out += [Heading(3, "Cost per month"), TableBlock(["", "before", "after", "change", "why"], rows, (1, 2, 3),
                                                         caption="On demand, per pattern, then the totals (the sum "
                                                                 "of the patterns' changes and the storage).")]
    elif ch.costs_note:
        out.append(Para(ch.costs_note, "muted"))
    return out + _migration(ch)


def _migration(ch: Changes) -> list:
    """The items already stored: what the change does to them, its steps, cost, time and risks."""
    m = ch.migration
    if m is None:
        return [Heading(3, "Migration"), Para(ch.migration_note, "muted")] if ch.migration_note else []
    out: list = [Heading(3, "Migration"), Para(m["summary"]),
                 TableBlock(m["entities"][0], m["entities"][1:], tuple(range(1, len(m["entities"][0]))),
                            "items per entity: stay, move to new keys, rewritten in place, gone, new"),
                 TableBlock(m["steps"][0], m["steps"][1:], (1, 2, 3, 4, 5),
                            "the steps of an online migration: dual writes, backfill, verify, switch, delete")]
    if m["risks"]:
        out.append(Items(m["risks"]))
    else:
        out.append(Para("No risk found in the data: no key collides, every item fits 400 KB.", "ok"))
    out.append(Para(f"Plan it on other sizes and run it with `{m['command']}`.", "muted"))
    return out


def _tables(spec: Spec, data: ReviewData) -> list:
    t = spec.table
    storage = {r["index"]: r for r in (data.cost or {}).get("indexes", [])}
    cols = ["name", "kind", "partition key", "sort key", "projection", "entries", "storage"]
    rows = [[spec.table_name, f"table, {t.billing_mode}", f"`{t.partition_key}` ({t.partition_key_type})",
             f"`{t.sort_key}` ({t.sort_key_type})" if t.sort_key else "-", "all"]]
    for name, ix in t.indexes.items():
        proj = ix.projection if isinstance(ix.projection, str) else "keys + " + ", ".join(ix.projection)
        rows.append([name, ix.type, f"`{ix.partition_key or t.partition_key}` ({ix.partition_key_type})",
                     f"`{ix.sort_key}` ({ix.sort_key_type})" if ix.sort_key else "-", proj])
    for row, key in zip(rows, ["table", *t.indexes]):
        s = storage.get(key)
        row += [f"{s['entries']:,}", human_bytes(s["storage_bytes"])] if s else ["-", "-"]
    blocks: list = [Heading(2, "Table and indexes", "table"), TableBlock(cols, rows, (5, 6))]
    if t.billing_mode == "PROVISIONED":
        blocks.append(Para(f"Provisioned in the spec: {t.read_capacity} RCU, {t.write_capacity} WCU.", "muted"))
    return blocks


def _entities(spec: Spec, data: ReviewData) -> list:
    out: list = [Heading(2, "Entities", "entities")]
    rows = []
    for name, e in spec.entities.items():
        st = data.entity_stats.get(name)
        keys = "; ".join(f"{k}: `{v}`" for k, v in e.key.items())
        rows.append([name, keys, e.writer or "-", *(
            [f"{st['count']:,}", f"{st['p50']:,}", f"{st['p95']:,}", f"{st['max']:,}"] if st else ["-"] * 4)])
    out.append(TableBlock(["entity", "key templates", "writer", "items", "p50 B", "p95 B", "max B"], rows, (3, 4, 5, 6)))
    if data.examples:
        for name, keys in data.examples.items():
            if keys:
                attrs = list(dict.fromkeys(k for row in keys for k in row))
                out.append(TableBlock(attrs, [[f"`{row.get(a, '')}`" for a in attrs] for row in keys],
                                 caption=f"{name}: example keys from the data"))
    else:
        out.append(Para("Example keys come from the data: pass --data.", "muted"))
    return out


def _pattern_rows(spec: Spec, data: ReviewData) -> list[list[str]]:
    costs = {r["pattern"]: r for r in (data.cost or {}).get("patterns", [])}
    rows = []
    for p in spec.access_patterns:
        c, b = costs.get(p.name), data.busiest.get(p.name)
        temp = "hot path" if p.hot else "cold"
        if b:
            units, limit = (b["rcu_per_s"], PARTITION_RCU) if p.reads_only else (b["wcu_per_s"], PARTITION_WCU)
            temp += f"; busiest key `{b['pk']}` {_pct(units, limit)} of a partition"
        rows.append([p.name, p.operation, p.index, f"`{pattern_condition_text(spec, p)}`",
                     number(c["rcu_per_call"] if p.reads_only else c["wcu_per_call"])
                     if c and c.get("note") != "no rate" else "-",           # no rate: not priced on its own
                     f"{p.rate_per_second:g}",
                     number(c["rcu_per_s"] if p.reads_only else c["wcu_per_s"], 1) if c else "-",
                     usd(c["on_demand_usd"]) if c else "-", temp])
    return rows


def _patterns(spec: Spec, data: ReviewData) -> list:
    cols = ["pattern", "operation", "index", "key condition", "units/call", "calls/s", "units/s", "$/month",
            "hot or cold"]
    out: list = [Heading(2, "Access patterns", "patterns"), TableBlock(cols, _pattern_rows(spec, data), (4, 5, 6, 7),
                 caption="Units are RCU for reads, WCU for writes (index writes included), on average over the "
                         "keys the workload draws; $/month on demand. Busiest key: its mean units/s against "
                         f"{PARTITION_RCU:,} RCU / {PARTITION_WCU:,} WCU per partition.")]
    for p in spec.access_patterns:
        request = data.requests.get(p.name) or example_request(spec, p.name)
        what = p.description or p.name
        reads = ", ".join(p.entities)
        details = Details(f"{p.name}: the boto3 request", [Code(request, "python")])
        out += [Heading(3, f"{p.name}", f"pattern-{p.name}"),
                Para(f"{what}. {p.operation} on {p.index} for {reads}"
                     f"{', limit ' + str(p.limit) if p.limit else ''}"
                     f"{', strongly consistent' if p.consistent_read else ''}"
                     f"{', newest first' if not p.scan_forward else ''}; keys drawn {p.key_distribution}."),
                details]
    return out


def _findings(ctx: ExportContext) -> list:
    out: list = [Heading(2, "Findings", "findings")]
    if not len(ctx.findings):
        return [*out, Para("No findings.")]
    out.append(Para(ctx.counts_text() + "."))
    for severity in SEVERITIES:
        group = [f for f in ctx.findings if f.severity == severity]
        if not group:
            continue
        out.append(Heading(3, f"{SEVERITY_TITLES[severity]} ({len(group)})", f"findings-{severity}"))
        for f in group:
            out += [Para(f"**{f.rule}** at `{f.where}`{' (' + f.spec + ')' if f.spec else ''}"),
                    Items([f.message, *([f"Fix: {f.hint}"] if f.hint else [])])]
            if f.evidence:
                out.append(Details(f"evidence ({len(f.evidence)})", [Code("\n".join(f.evidence))]))
    return out


def _heat(data: ReviewData) -> list:
    out: list = [Heading(2, "Partition heat and item sizes", "heat")]
    if not data.figures and not data.top_keys:
        return [*out, Para("Heat and sizes are measured on data: pass --data.", "muted")]
    if data.load:
        ld = data.load
        out.append(Para(f"In the busiest simulated second the table took {number(ld.get('peak_rcu'), 1)} RCU and "
                        f"{number(ld.get('peak_wcu'), 1)} WCU in all; the provisioned capacity in the cost section "
                        "is sized for it."))
    if data.top_keys:
        rows = [[k["index"], f"`{k['pk']}`", number(k["rcu_per_s"], 1), number(k["wcu_per_s"], 1),
                 f"{int(k['items']):,}", human_bytes(k["bytes"]), k["patterns"]] for k in data.top_keys]
        out.append(TableBlock(["index", "partition key", "RCU/s", "WCU/s", "items", "size", "patterns"], rows,
                         (2, 3, 4, 5), caption="The hottest keys, by 3 x WCU + RCU; units/s are means over "
                                               "the simulated seconds."))
    return [*out, *data.figures]


def _waste(spec: Spec, data: ReviewData) -> list:
    """Capacity paid for but not used, per read pattern and per call: the bytes a call really reads (its items,
    as many as it reads) against the bytes its read units pay for (4 KB a unit, 8 KB eventually consistent),
    and the share of the pattern's read dollars of the cost section that buys nothing."""
    costs = {r["pattern"]: r for r in (data.cost or {}).get("patterns", [])}
    rows = []
    for p in spec.access_patterns:
        r, c = data.reads.get(p.name), costs.get(p.name)
        if not r or not c or not c["rcu_per_call"]:
            continue
        paid = float(c["rcu_per_call"]) * READ_UNIT_BYTES * (1 if p.consistent_read else 2)
        unused = max(0.0, 1 - r["bytes_per_call"] / paid) if paid else 0.0
        rows.append([p.name, number(r["items_per_call"], None), human_bytes(r["bytes_per_call"]),
                     number(float(c["rcu_per_call"]), None), human_bytes(paid), f"{unused:.0%}",
                     usd(Decimal(str(unused)) * Decimal(str(c["on_demand_read_usd"])))])
    if not rows:
        return []
    return [Heading(3, "Capacity paid for but not used"),
            TableBlock(["pattern", "items per call", "bytes read per call", "RCU per call", "bytes paid for",
                        "not used", "$/month not used"], rows, (1, 2, 3, 4, 5, 6),
                       caption="Per call, with the items a call really reads: a read unit pays for 4 KB (8 KB "
                               "eventually consistent), each page rounded up; the dollars are the pattern's on-demand "
                               "read dollars (the patterns section) times the share not used.")]


def _cost(data: ReviewData) -> list:
    out: list = [Heading(2, "Cost per month", "cost")]
    c = data.cost
    if not c:
        return [*out, Para("The cost is computed from the data's sizes and the patterns' rates: pass --data.",
                           "muted")]
    t = c["totals"]
    rows = [["on demand", usd(t["on_demand_usd"]), usd(t["storage_usd"]), usd(t["total_on_demand_usd"])],
            ["provisioned", usd(t["provisioned_usd"]), usd(t["storage_usd"]), usd(t["total_provisioned_usd"])]]
    out.append(TableBlock(["billing", "requests / capacity", "storage", "total"], rows, (1, 2, 3),
                     caption=f"{c['region']} prices of {c['date']} ({c['currency']}), "
                             f"{c['prices'].get('hours_per_month', 730)} hours a month."))
    cap = [[r["name"], number(r["mean_rcu"], 1), number(r["peak_rcu"], 1), f"{r['rcu']:,}", number(r["mean_wcu"], 1),
            number(r["peak_wcu"], 1), f"{r['wcu']:,}", usd(r["usd"])] for r in c["capacity"]]
    if cap:
        out.append(TableBlock(["provisioned", "mean RCU/s", "peak RCU/s", "RCU", "mean WCU/s", "peak WCU/s", "WCU",
                          "$/month"], cap, (1, 2, 3, 4, 5, 6, 7),
                         caption=f"Capacity = peak / {c['utilisation']:.0%} target utilisation, rounded up; "
                                 f"peaks: {c['peaks']}."))
    if c["notes"]:
        out.append(Items(list(c["notes"])))
    return out


def report_blocks(spec: Spec, ctx: ExportContext, fmt: str = "report-html") -> list:
    """The report as blocks, in reading order (``fmt`` names the format in the command that remakes it)."""
    data = ctx.data if isinstance(ctx.data, ReviewData) else ReviewData()
    title = f"Access-pattern review: {spec.domain}"
    blocks: list = [Heading(1, title)]
    if spec.description:
        blocks.append(Para(spec.description))
    blocks += _verdict(spec, ctx, data)
    for part in (_glance(spec, ctx, data), _changes(data), _tables(spec, data), _entities(spec, data),
                 _patterns(spec, data), _findings(ctx), _heat(data), _cost(data) + _waste(spec, data)):
        blocks += part
    return [*blocks, Heading(2, "Reproduce", "reproduce"),
            Para("From the project folder (the one that holds `pyproject.toml`):", "muted"),
            Code(_command(spec, data, fmt), "sh")]


def project_folder(start: Path | None = None) -> Path:
    """The project folder: the nearest folder from ``start`` (the working folder) up that holds a
    ``pyproject.toml``; the working folder when none does (a notebook runs in ``notebooks/``, the
    commands in the project folder: paths shown relative to it work from there)."""
    here = (start or Path.cwd()).resolve()
    return next((d for d in (here, *here.parents) if (d / "pyproject.toml").is_file()), here)


def shown_path(path: str | None, default: str = "") -> str:
    """A file as a reader of the report sees it: relative to the project folder (:func:`project_folder`)
    when it is inside it, so the report's command works from there, else its name (no home folders or
    machine paths in a report that is shared)."""
    if not path:
        return default
    p = Path(path) if Path(path).is_absolute() else Path.cwd() / path
    try:
        return p.resolve().relative_to(project_folder()).as_posix()
    except ValueError:
        return p.name


def _command(spec: Spec, data: ReviewData, fmt: str) -> str:
    """The ``blue-nb export`` call that makes this report again."""
    parts = ["blue-nb", "export", shown_path(spec.source_path, f"{spec.domain}.yaml"), "--format", fmt]
    if data.source:
        parts += ["--data", shown_path(data.source)]
    if data.changes is not None:
        parts += ["--against", shown_path(data.changes.against)]
    return " ".join(shlex.quote(p) for p in [*parts, "-o", "review" + (".md" if fmt == "report-md" else ".html")])


def _comment(spec: Spec, ctx: ExportContext) -> str:
    state = "validated" if ctx.validated else f"NOT VALIDATED ({', '.join(ctx.error_rules())})"
    return f"blue_nb {version()} review of {spec.domain} at {ctx.timestamp}; {state}; sha256 {content_hash(spec)}"


def render_report_html(spec: Spec, ctx: ExportContext) -> str:
    return to_html(f"Access-pattern review: {spec.domain}", report_blocks(spec, ctx), comment=_comment(spec, ctx))


def render_report_md(spec: Spec, ctx: ExportContext) -> str:
    figure_dir = ctx.data.figure_dir if isinstance(ctx.data, ReviewData) else None
    return to_markdown(report_blocks(spec, ctx, "report-md"), figure_dir=figure_dir, comment=_comment(spec, ctx))
