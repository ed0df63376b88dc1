"""Commands that check and run the design: ``validate``, ``query``, ``heat``."""

from __future__ import annotations

import sys

import click

from blue_nb.cli.base import (CliError, announce, cli, echo_json, endpoint_options, loaded_option,
                            endpoint_usage, format_option, handles_errors, name_values)
from blue_nb.printing import compact, number, short, value_text

__all__ = ["heat", "query", "validate"]


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--data", "data_dir", type=click.Path(file_okay=False),
              help="folder with one file per entity source: check the items built from it too")
@loaded_option
@format_option
@handles_errors
def validate(spec, data_dir, duckdb, fmt):
    """Check SPEC against ADR 0018 and DynamoDB's limits (and its items, with --data or --duckdb).

    Exit status 1 when there are errors, 0 when there are only warnings and notes.
    """
    announce("validate", spec, data_dir, duckdb)
    from blue_nb.app.workflows import validate as validate_spec  # deferred: keep `blue-nb --help` fast

    findings = validate_spec(spec, data_dir, duckdb=duckdb)
    if fmt == "json":
        echo_json({"spec": spec, "findings": findings.to_dicts(), "counts": findings.counts})
    else:
        click.echo(findings.to_text(), nl=False)
    if findings.has_errors:
        sys.stdout.flush()
        sys.exit(1)


def _params(values: tuple[str, ...]) -> dict[str, str]:
    """--param NAME=VALUE options as a dict."""
    return name_values("--param", values, "name=value, e.g. --param branch_id=B1 (run the pattern without "
                                          "parameters to see which it needs)")


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.argument("pattern")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="a parameter of the pattern (repeat)")
@click.option("--backend", type=click.Choice(["sqlite", "duckdb", "dynamodb"]),
              help="where to run: a local store, or a DynamoDB endpoint (reads only)")
@click.option("--sqlite", type=click.Path(dir_okay=False), help="the SQLite file (from blue-nb load)")
@click.option("--duckdb", type=click.Path(dir_okay=False), help="the DuckDB file (from blue-nb load)")
@click.option("--max-pages", type=click.IntRange(min=1), help="stop after N pages (a pattern with a limit reads 1)")
@click.option("--all-pages", is_flag=True, help="read every page, following LastEvaluatedKey (even with a limit)")
@click.option("--show-plan", is_flag=True, help="print the SQL the store ran and the boto3 request to stderr")
@endpoint_options
@format_option
@handles_errors
def query(spec, pattern, params, backend, sqlite, duckdb, max_pages, all_pages, show_plan, endpoint_url, aws, profile,
          table_prefix, fmt):
    """Run access PATTERN of SPEC on a local store; print the items and what they cost.

    A pattern with a limit reads one page; --all-pages reads every page as a caller following
    LastEvaluatedKey would (a page that ends at the limit or at 1 MB carries one, so the last
    call may return an empty page that still costs the minimum); --max-pages N caps the pages.
    Writes are dry runs: they print the write units the write would take, index writes included.
    With --show-plan, the pattern's plan goes to stderr: the statement the store ran, with its
    parameters, and the boto3 request that does the same on DynamoDB.
    """
    from blue_nb.patterns import ActionsResult, WriteResult  # deferred: keep `blue-nb --help` fast

    endpoint_usage(endpoint_url, aws, profile)
    backend = backend or ("sqlite" if sqlite else "duckdb" if duckdb else "dynamodb" if endpoint_url or aws else None)
    path = {"sqlite": sqlite, "duckdb": duckdb}.get(backend or "")
    if backend == "dynamodb":
        from blue_nb.app.roundtrip import run_on_endpoint  # deferred: boto3 loads only for an endpoint

        result = run_on_endpoint(spec, pattern, _params(params), endpoint_url=endpoint_url, aws=aws, profile=profile,
                                 table_prefix=table_prefix, max_pages=max_pages, follow=all_pages)
    elif not backend or not path:
        raise CliError(f"--backend {backend} needs --{backend} FILE" if backend else
                       "give the store: --sqlite FILE, --duckdb FILE or --endpoint-url URL (and --backend to choose)")
    else:
        from blue_nb.app.workflows import run_pattern  # deferred: keep `blue-nb --help` fast

        result = run_pattern(spec, pattern, _params(params), backend=backend, path=path, max_pages=max_pages,
                             follow=all_pages)
    if show_plan:
        item = result.item if isinstance(result, WriteResult) else \
            result.item_list() if isinstance(result, ActionsResult) else None
        shown = "(sent as the boto3 request below)" if backend == "dynamodb" else result.plan.show_sql(backend, max_pages, all_pages)
        click.echo(f"-- {backend}:\n{shown}\n-- boto3:\n{result.plan.show_boto3(item)}", err=True)
    if isinstance(result, ActionsResult):         # a transaction or a batch: one call, its units per action
        if fmt == "json":
            echo_json(result.to_json())
            return
        s = result.summary()
        unit = "RCU" if result.is_read else "WCU"
        outcome = (" CANCELLED (TransactionCanceledException: " + ", ".join(
            c["Code"] for c in result.cancellation_reasons or []) + ")") if result.cancelled else ""
        click.echo(f"{pattern}: {s['operation']} of {s['actions']} actions -> {s[unit.lower()]} {unit} "
                   f"(per action {', '.join(f'{u:g}' for u in result.units)}){outcome}")
        for item in result.items:
            click.echo(compact(item, 120))
        return
    if isinstance(result, WriteResult):
        summary = result.summary()
        if fmt == "json":
            echo_json(summary)
        else:
            old, new = (f"{n:,} B" if n is not None else "no item" for n in (summary["old_size"], summary["new_size"]))
            click.echo(f"{pattern}: {summary['operation']} (dry run) old {old}, "
                       f"new {new} -> {summary['wcu']} WCU (table {summary['table_wcu']}, "
                       f"indexes {value_text(summary['index_wcu']) or 'none'})")
        return
    if fmt == "json":
        echo_json(result.to_json())
        return
    req = result.request
    for item in result.items:             # keys, then the other attributes on one line as a person reads them
        rest = {k: v for k, v in item.items() if k not in (req.pk_attr, req.sk_attr)}
        click.echo(f"{item.get(req.pk_attr)!s:<24} {item.get(req.sk_attr, '')!s:<36} {compact(rest, 96)}")
    s = result.summary()
    per_page = f" {result.page_sizes}" if s["pages"] > 1 else ""
    click.echo(f"-- {s['count']} items, {s['pages']} page(s){per_page}, {s['bytes_read']:,} bytes read, "
               f"{s['rcu']} RCU ({req.read_mode})", err=True)


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--data", "data_dir", type=click.Path(file_okay=False),
              help="folder with one file per entity source (.csv, .parquet or .jsonl)")
@loaded_option
@click.option("--log", "log", type=click.Path(dir_okay=False),
              help="recorded access log (.csv, .parquet or .jsonl) to use instead of the spec's rates")
@click.option("--out", "out", type=click.Path(file_okay=False), required=True,
              help="folder to write summary.json, the CSVs and the PNGs to")
@click.option("--seconds", type=click.IntRange(min=1, max=3600), default=60, show_default=True,
              help="seconds of traffic to simulate from the model")
@click.option("--seed", type=int, default=18, show_default=True, help="same seed, same simulated seconds")
@click.option("--progress/--no-progress", default=True, help="show a progress bar while loading")
@format_option
@handles_errors
def heat(spec, data_dir, duckdb, log, out, seconds, seed, progress, fmt):
    """Partition heat and item sizes of SPEC's items (built from --data, or loaded in --duckdb): per key
    RCU/s and WCU/s against the per-partition limits, throttle predictions, and PNG plots plus
    summary.json in --out."""
    if data_dir is None and duckdb is None:
        raise CliError("no items to model: give --data DIR (the rows) or --duckdb FILE (a store blue-nb load filled)")
    announce("heat", spec, data_dir, duckdb)
    from blue_nb.app.reports import heat_report  # deferred: keep `blue-nb --help` fast

    summary = heat_report(spec, data_dir, out, log=log, seconds=seconds, seed=seed, progress=progress, duckdb=duckdb)
    if fmt == "json":
        echo_json(summary)
        return
    click.echo(f"{summary['partitions']:,} partition keys ({summary['source']}, {summary['seconds']} s); "
               f"the hottest, by consumed throughput (mean units/s over the run):")
    for line in _top_keys_table(summary["top_keys"][:10]):
        click.echo("  " + line)
    for f in summary["findings"]:
        click.echo(f"{f['severity']} [{f['rule']}] {f['where']}: {f['message']}")
    c, v = summary["counts"], summary["validate_counts"]
    click.echo(f"heat findings (above): {_counts(c)}")
    click.echo(f"blue-nb validate (spec, items and heat): {_counts(v)}"
               + (f"; see them with: blue-nb validate {spec} "
                  + (f"--data {data_dir}" if data_dir else f"--duckdb {duckdb}") if sum(v.values()) > sum(c.values())
                  else ""))
    click.echo(f"{len(summary['files'])} files written to {out}")


def _counts(c: dict[str, int]) -> str:
    return f"{c['error']} errors, {c['warning']} warnings, {c['info']} notes"


UNIT_COLUMNS = ("rcu_per_s", "wcu_per_s", "consumed_throughput_units")     # the hottest keys' units, as printed


def _top_keys_table(top: list[dict]) -> list[str]:
    """The hottest keys as aligned columns (keys in any script: widths as the terminal shows them)."""
    from blue_nb.app.text import table_lines  # deferred: keep `blue-nb --help` fast

    head = ["index", "partition key", "RCU/s", "WCU/s", "3×WCU+RCU", "items"]
    cells = [[str(k["index"]), short(k["pk"], 40), *(number(float(k[c]), 1) for c in UNIT_COLUMNS),
              number(int(k["items"]))] for k in top]
    widths = [max(len(r[i]) for r in [head, *cells]) for i in range(2, len(head))]
    rows = [r[:2] + [x.rjust(w) for x, w in zip(r[2:], widths)] for r in [head, *cells]]   # numbers right-aligned
    return table_lines(rows)


