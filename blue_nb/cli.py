"""The ``blue-nb`` command line. Each command parses its options, calls one library function
and prints. Commands import the heavy parts of the library (pandas, DuckDB, matplotlib) only
when they run, so ``blue-nb --help`` answers at once. Exit status: 0 success, 1 a check found
errors, 2 bad input or usage (a message on stderr, never a traceback).
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import sys
from pathlib import Path

import click

from blue_nb.errors import BlueNbError, ItemError
from blue_nb.items import parse_item_line
from blue_nb.patterns import WriteResult
from blue_nb.sizing import MAX_ITEM_BYTES, item_costs, wire_item_size

__all__ = ["main", "cli"]


class CliError(click.ClickException):
    """Bad input: a clear message, exit 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def handles_errors(fn):
    """Turn blue_nb errors (and interrupts) into a message and exit status 2, without a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BlueNbError as e:
            raise CliError(str(e)) from e
        except KeyboardInterrupt as e:      # a load's LoadInterrupted says what it left; others change nothing
            click.echo(getattr(e, "message", None) or "interrupted: nothing was changed", err=True)
            sys.exit(130)

    return wrapper


def format_option(fn):
    return click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
                        help="text for people, json for machines")(fn)


def echo_json(obj) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, default=str))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="blue_nb")
def cli():
    """Design DynamoDB single-table schemas (ADR 0018) before committing to one."""


@cli.command()
@click.argument("domain")
@click.option("--scale", type=click.IntRange(min=1), default=5000, show_default=True,
              help="about how many rows (= items) to write, over all sources")
@click.option("--seed", type=int, default=18, show_default=True, help="same seed, same files")
@click.option("--out", "out", type=click.Path(file_okay=False), required=True, help="folder to write the source files to")
@click.option("--progress/--no-progress", default=True, help="show a progress bar")
@format_option
@handles_errors
def sample(domain, scale, seed, out, progress, fmt):
    """Generate relational sample rows for DOMAIN (dialogue or document)."""
    from blue_nb.sources import generate_sample  # deferred: keep `blue-nb --help` fast

    counts = generate_sample(domain, scale=scale, seed=seed, out_dir=out, progress=progress)
    if fmt == "json":
        echo_json({"domain": domain, "out": out, "rows": counts})
    else:
        for source, n in counts.items():
            click.echo(f"{n:>10,}  {source}")
        click.echo(f"{sum(counts.values()):>10,}  rows written to {out}")


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--data", "data_dir", type=click.Path(file_okay=False), required=True,
              help="folder with one file per entity source (.csv, .parquet or .jsonl)")
@click.option("--sqlite", type=click.Path(dir_okay=False), help="SQLite file to load into")
@click.option("--duckdb", type=click.Path(dir_okay=False), help="DuckDB file to load into")
@click.option("--mode", type=click.Choice(["replace", "upsert"]), default="replace", show_default=True,
              help="replace: the table mirrors the data; upsert: keep other items")
@click.option("--progress/--no-progress", default=True, help="show a progress bar")
@format_option
@handles_errors
def load(spec, data_dir, sqlite, duckdb, mode, progress, fmt):
    """Turn the rows under --data into items by SPEC's templates and load them into the stores."""
    from blue_nb.app.workflows import load_data  # deferred: keep `blue-nb --help` fast

    if not sqlite and not duckdb:
        raise CliError("nothing to load into: give --sqlite FILE and/or --duckdb FILE")
    results = load_data(spec, data_dir, sqlite=sqlite, duckdb=duckdb, mode=mode, progress=progress)
    targets = [t for t in (("sqlite", sqlite), ("duckdb", duckdb)) if t[1]]
    for (backend, path), r in zip(targets, results):
        for note in r.notes:                # a folder created, an interrupted load settled
            click.echo(f"{backend} {path}: {note}", err=True)
    if fmt == "json":
        echo_json([{"backend": b, "path": p, "table": r.table, "items_written": r.items_written,
                    "items": r.items_after, "per_entity": r.per_entity, "replaced": r.replaced}
                   for (b, p), r in zip(targets, results)])
        return
    for (backend, path), r in zip(targets, results):
        click.echo(f"{backend} {path}: {r}")


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--data", "data_dir", type=click.Path(file_okay=False),
              help="folder with one file per entity source: check the items built from it too")
@format_option
@handles_errors
def validate(spec, data_dir, fmt):
    """Check SPEC against ADR 0018 and DynamoDB's limits (and its items, with --data).

    Exit status 1 when there are errors, 0 when there are only warnings and notes.
    """
    from blue_nb.app.workflows import validate as validate_spec  # deferred: keep `blue-nb --help` fast

    findings = validate_spec(spec, data_dir)
    if fmt == "json":
        echo_json({"spec": spec, "findings": findings.to_dicts(), "counts": findings.counts})
    else:
        click.echo(findings.to_text(), nl=False)
    if findings.has_errors:
        sys.stdout.flush()
        sys.exit(1)


@cli.command()
@click.argument("file", required=False, default="-")
@format_option
@handles_errors
def size(file, fmt):
    """Size DynamoDB JSON items (one per line; FILE or stdin) and what one read or write costs."""

    name = "<stdin>" if file == "-" else file
    try:
        stream = sys.stdin.buffer if file == "-" else open(file, "rb")
    except OSError as e:
        raise CliError(f"{file}: cannot read: {e.strerror}\n  hint: check the path, or give - to read stdin") from e
    over = []
    with stream:
        if fmt == "text":
            click.echo(f"{'line':>6} {'bytes':>8} {'RCU strong':>10} {'eventual':>8} {'transact':>8} "
                       f"{'WCU':>5} {'transact':>8} limit")
        for n, line in _item_lines(stream, name):
            where = f"{name}:{n}"
            wire = parse_item_line(line, where=where)        # every value checked, as DynamoDB would
            if not wire:
                raise ItemError("an item with no attributes", where=where,
                                hint='an item holds at least its key: {"pk": {"S": "x"}}')
            costs = item_costs(wire_item_size(wire))
            if costs["size"] > MAX_ITEM_BYTES:
                over.append(n)
                click.echo(f"{where}: the item is {costs['size']:,} bytes, over DynamoDB's item limit of "
                           f"{MAX_ITEM_BYTES:,} bytes (400 KB); DynamoDB refuses it (hint: move large values to "
                           f"S3 and keep a pointer, or split the item)", err=True)
            if fmt == "json":
                echo_json({**costs, "over_limit": costs["size"] > MAX_ITEM_BYTES})
            else:
                click.echo(f"{n:>6} {costs['size']:>8} {costs['rcu_strong']:>10} {costs['rcu_eventual']:>8} "
                           f"{costs['rcu_transactional']:>8} {costs['wcu']:>5} {costs['wcu_transactional']:>8}"
                           + (" OVER" if costs["size"] > MAX_ITEM_BYTES else ""))
    if over:
        click.echo(f"{len(over)} item{'s' if len(over) > 1 else ''} over the {MAX_ITEM_BYTES:,}-byte item limit "
                   f"(line{'s' if len(over) > 1 else ''} {', '.join(map(str, over[:20]))})", err=True)
        sys.stdout.flush()
        sys.exit(1)


def _item_lines(stream, name: str):
    """(line number, text) of each non-blank line, bounded and strictly UTF-8 (:func:`blue_nb.sources.text_lines`)."""
    from blue_nb.sources import text_lines  # deferred: keep `blue-nb --help` fast

    for n, text in text_lines(stream, name):
        if text.strip():
            yield n, text


@cli.command()
@click.option("--root", type=click.Path(exists=True, file_okay=False), default=".", show_default=True,
              help="the project folder (it must exist)")
@handles_errors
def prepare(root):
    """Generate the example domains' sample data under data/sample/ where it is missing."""
    from blue_nb.sources import prepare_samples  # deferred: keep `blue-nb --help` fast

    for domain, (path, made) in prepare_samples(Path(root) / "data" / "sample").items():
        click.echo(f"{domain}: {'generated' if made else 'present'} in {path}")


@cli.command()
@click.option("--port", type=click.IntRange(1, 65535), default=8888, show_default=True)
@click.option("--notebook", default="notebooks/00_quickstart.ipynb", show_default=True)
@click.option("--browser/--no-browser", default=True, help="open a browser tab")
@handles_errors
def lab(port, notebook, browser):
    """Start JupyterLab on 127.0.0.1 with the quickstart notebook open, and print its URL."""
    if not Path(notebook).is_file():
        raise CliError(f"{notebook}: no such notebook; run this from the project folder")
    token = os.environ.get("BLUE_NB_LAB_TOKEN") or secrets.token_hex(16)
    click.echo(f"JupyterLab: http://127.0.0.1:{port}/lab/tree/{notebook}?token={token}", err=True)
    args = [sys.executable, "-m", "jupyterlab", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={os.getcwd()}",
            f"--LabApp.default_url=/lab/tree/{notebook}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--ServerApp.allow_root=True")      # containers and CI run as root
    if not browser:
        args.append("--no-browser")
    sys.stdout.flush()
    os.execv(sys.executable, args)


def _params(values: tuple[str, ...]) -> dict[str, str]:
    """--param NAME=VALUE options as a dict; a malformed or repeated one is refused (never the last one silently)."""
    out: dict[str, str] = {}
    for v in values:
        name, sep, value = v.partition("=")
        if not sep or not name.strip():
            raise CliError(f"--param {v!r} is not NAME=VALUE\n  hint: write --param name=value, e.g. "
                           "--param branch_id=B1 (run the pattern without parameters to see which it needs)")
        if name in out:
            raise CliError(f"--param {name!r} is given twice ({out[name]!r} and {value!r})\n"
                           "  hint: give each parameter once")
        out[name] = value
    return out


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.argument("pattern")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="a parameter of the pattern (repeat)")
@click.option("--backend", type=click.Choice(["sqlite", "duckdb"]), help="which store to run on")
@click.option("--sqlite", type=click.Path(dir_okay=False), help="the SQLite file (from blue-nb load)")
@click.option("--duckdb", type=click.Path(dir_okay=False), help="the DuckDB file (from blue-nb load)")
@click.option("--max-pages", type=click.IntRange(min=1), help="stop after N pages (a pattern with a limit reads 1)")
@click.option("--show-plan", is_flag=True, help="print the SQL the store ran and the boto3 request to stderr")
@format_option
@handles_errors
def query(spec, pattern, params, backend, sqlite, duckdb, max_pages, show_plan, fmt):
    """Run access PATTERN of SPEC on a local store; print the items and what they cost.

    Writes are dry runs: they print the write units the write would take, index writes included.
    With --show-plan, the pattern's plan goes to stderr: the statement the store ran, with its
    parameters, and the boto3 request that does the same on DynamoDB.
    """
    from blue_nb.app.workflows import run_pattern  # deferred: keep `blue-nb --help` fast

    backend = backend or ("sqlite" if sqlite else "duckdb" if duckdb else None)
    path = {"sqlite": sqlite, "duckdb": duckdb}.get(backend or "")
    if not backend or not path:
        raise CliError(f"--backend {backend} needs --{backend} FILE" if backend else
                       "give the store: --sqlite FILE or --duckdb FILE (and --backend to choose)")
    result = run_pattern(spec, pattern, _params(params), backend=backend, path=path, max_pages=max_pages)
    if show_plan:
        item = result.item if isinstance(result, WriteResult) else None
        click.echo(f"-- {backend}:\n{result.plan.show_sql(backend)}\n-- boto3:\n{result.plan.show_boto3(item)}", err=True)
    if isinstance(result, WriteResult):
        summary = result.summary()
        if fmt == "json":
            echo_json(summary)
        else:
            click.echo(f"{pattern}: {summary['operation']} (dry run) old {summary['old_size']} B, "
                       f"new {summary['new_size']} B -> {summary['wcu']} WCU (table {summary['table_wcu']}, "
                       f"indexes {summary['index_wcu']})")
        return
    if fmt == "json":
        echo_json(result.to_json())
        return
    req = result.request
    for item in result.items:
        rest = {k: v for k, v in item.items() if k not in (req.pk_attr, req.sk_attr)}
        line = f"{item.get(req.pk_attr)!s:<24} {item.get(req.sk_attr, '')!s:<36} {rest}"
        click.echo(line if len(line) <= 160 else line[:157] + "...")
    s = result.summary()
    click.echo(f"-- {s['count']} items, {s['pages']} page(s), {s['bytes_read']:,} bytes read, "
               f"{s['rcu']} RCU ({req.read_mode})", err=True)


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--data", "data_dir", type=click.Path(file_okay=False), required=True,
              help="folder with one file per entity source (.csv, .parquet or .jsonl)")
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
def heat(spec, data_dir, log, out, seconds, seed, progress, fmt):
    """Partition heat and item sizes of SPEC's items under --data: per key RCU/s and WCU/s against
    the per-partition limits, throttle predictions, and PNG plots plus summary.json in --out."""
    from blue_nb.app.reports import heat_report  # deferred: keep `blue-nb --help` fast

    summary = heat_report(spec, data_dir, out, log=log, seconds=seconds, seed=seed, progress=progress)
    if fmt == "json":
        echo_json(summary)
        return
    click.echo(f"{summary['partitions']:,} partition keys ({summary['source']}, {summary['seconds']} s); hottest:")
    for k in summary["top_keys"][:10]:
        click.echo(f"  {k['index']:<8} {str(k['pk'])[:40]:<40} {k['rcu_per_s']:>10,.1f} RCU/s {k['wcu_per_s']:>9,.1f} "
                   f"WCU/s {k['items']:>8,} items")
    for f in summary["findings"]:
        click.echo(f"{f['severity']} [{f['rule']}] {f['where']}: {f['message']}")
    c = summary["counts"]
    click.echo(f"{c['error']} errors, {c['warning']} warnings, {c['info']} notes; "
               f"{len(summary['files'])} files written to {out}")


def main() -> None:
    cli(prog_name="blue-nb")


if __name__ == "__main__":
    main()
