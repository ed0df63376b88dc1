"""Commands that make and move data: ``sample``, ``profile``, ``load``, ``size``, ``prepare``, ``lab``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from blue_nb.cli.base import CliError, announce, cli, data_option, echo_json, format_option, handles_errors
from blue_nb.errors import ItemError, SourceError

__all__ = ["lab", "load", "prepare", "profile", "sample", "size"]


@cli.command()
@click.argument("spec_or_domain", metavar="SPEC")
@click.option("--scale", type=click.IntRange(min=1), default=5000, show_default=True,
              help="about how many rows (= items) to write, over all sources")
@click.option("--seed", type=int, default=18, show_default=True, help="same seed, same files")
@click.option("--out", "out", type=click.Path(file_okay=False), required=True, help="folder to write the source files to")
@click.option("--progress/--no-progress", default=True, help="show a progress bar")
@format_option
@handles_errors
def sample(spec_or_domain, scale, seed, out, progress, fmt):
    """Generate source rows for SPEC (a spec file: its key templates, types and generate: section),
    or for a shipped domain by name (dialogue, document)."""
    from blue_nb.samples import SAMPLE_DOMAINS, generate_sample, sample_spec  # deferred: keep --help fast

    if spec_or_domain in SAMPLE_DOMAINS:
        counts = generate_sample(spec_or_domain, scale=scale, seed=seed, out_dir=out, progress=progress)
        domain = spec_or_domain
    elif not Path(spec_or_domain).exists() and not Path(spec_or_domain).suffix:
        raise SourceError(f"unknown sample domain {spec_or_domain!r}, and no spec file by that name", where="SPEC",
                          hint=f"give a spec file, or a shipped domain: {', '.join(SAMPLE_DOMAINS)}")
    else:
        counts = sample_spec(spec_or_domain, scale=scale, seed=seed, out_dir=out, progress=progress)
        domain = None
    if fmt == "json":
        echo_json({"domain": domain, "spec": None if domain else spec_or_domain, "out": out, "rows": counts})
    else:
        for source, n in counts.items():
            click.echo(f"{n:>10,}  {source}")
        click.echo(f"{sum(counts.values()):>10,}  rows written to {out}")


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--data", "data_dir", type=click.Path(file_okay=False), help="folder of source rows to profile")
@click.option("--duckdb", type=click.Path(dir_okay=False), help="a DuckDB store that blue-nb load filled")
@click.option("--labels/--no-labels", default=True, show_default=True,
              help="keep the labels of enum-like columns (--no-labels: only their count and skew)")
@click.option("--out", type=click.Path(dir_okay=False), help="write SPEC with the fitted generate: section here")
@handles_errors
def profile(spec, data_dir, duckdb, labels, out):
    """Fit SPEC's generate: section to real data (rows or a loaded store), for a synthetic twin:
    `blue-nb sample` of the result draws data of the same shape, without the original's values."""
    import yaml  # deferred: keep `blue-nb --help` fast

    from blue_nb.app.profile import profile_data  # deferred: keep `blue-nb --help` fast
    from blue_nb.spec import dump_spec, load_spec  # deferred: keep `blue-nb --help` fast

    fitted = profile_data(spec, data_dir=data_dir, duckdb=duckdb, labels=labels)
    if out:
        dump_spec(load_spec(spec).with_changes(generate=fitted), out)
        click.echo(f"wrote {out}: {spec} with a generate: section fitted to {data_dir or duckdb}")
    else:
        click.echo(yaml.safe_dump({"generate": fitted}, sort_keys=False, allow_unicode=True, width=100), nl=False)


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@data_option
@click.option("--sqlite", type=click.Path(dir_okay=False), help="SQLite file to load into")
@click.option("--duckdb", type=click.Path(dir_okay=False), help="DuckDB file to load into")
@click.option("--mode", type=click.Choice(["replace", "upsert"]), default="replace", show_default=True,
              help="replace: the table mirrors the data; upsert: keep other items")
@click.option("--progress/--no-progress", default=True, help="show a progress bar")
@format_option
@handles_errors
def load(spec, data_dir, sqlite, duckdb, mode, progress, fmt):
    """Turn the rows under --data into items by SPEC's templates and load them into the stores."""
    if not sqlite and not duckdb:
        raise CliError("nothing to load into: give --sqlite FILE and/or --duckdb FILE")
    announce("load", spec, data_dir)
    from blue_nb.app.workflows import load_data  # deferred: keep `blue-nb --help` fast

    results = load_data(spec, data_dir, sqlite=sqlite, duckdb=duckdb, mode=mode, progress=progress)
    targets = [t for t in (("sqlite", sqlite), ("duckdb", duckdb)) if t[1]]
    try:
        _say_loaded(targets, results, fmt)
    except KeyboardInterrupt:               # the load is done: say so, not that nothing changed
        where = " and ".join(f"{b} {p}" for b, p in targets)
        click.echo(f"interrupted after the load completed: the new items are in {where}", err=True)
        sys.exit(130)


def _say_loaded(targets, results, fmt) -> None:
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
@click.argument("file", required=False, default="-")
@format_option
@handles_errors
def size(file, fmt):
    """Size DynamoDB JSON items (one per line; FILE or stdin) and what one read or write costs."""
    from blue_nb.items import parse_item_line  # deferred: keep `blue-nb --help` fast
    from blue_nb.sizing import MAX_ITEM_BYTES, item_costs, wire_item_size  # deferred: keep `blue-nb --help` fast

    name = "<stdin>" if file == "-" else file
    try:
        stream = sys.stdin.buffer if file == "-" else open(file, "rb")
    except OSError as e:
        raise CliError(f"{file}: cannot read: {e.strerror}\n  hint: check the path, or give - to read stdin") from e
    over, header = [], fmt == "text"                   # the header goes out with the first row, never before an error
    with stream:
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
                if header:
                    click.echo(f"{'line':>6} {'bytes':>8} {'RCU strong':>10} {'eventual':>8} {'transact':>8} "
                               f"{'WCU':>5} {'transact':>8} limit")
                    header = False
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
    from blue_nb.samples import prepare_samples  # deferred: keep `blue-nb --help` fast

    for domain, (path, made) in prepare_samples(Path(root) / "data" / "sample").items():
        click.echo(f"{domain}: {'generated' if made else 'present'} in {path}")


@cli.command()
@click.option("--port", type=click.IntRange(1, 65535), default=8888, show_default=True,
              help="the first port to try; when it is in use, the next free one is taken")
@click.option("--notebook", default="notebooks/00_quickstart.ipynb", show_default=True)
@click.option("--browser/--no-browser", default=True, help="open a browser tab")
@handles_errors
def lab(port, notebook, browser):
    """Start JupyterLab on 127.0.0.1 with the quickstart notebook open, and print its URL once it answers.

    A port in use is skipped (the next free one is taken); the URL printed is always this server's,
    with its token. Stop it with Ctrl-C twice."""
    from blue_nb.cli.labserver import run_lab  # deferred: keep `blue-nb --help` fast

    if not Path(notebook).is_file():
        raise CliError(f"{notebook}: no such notebook; run this from the project folder")
    try:
        status = run_lab(port, notebook, browser, root=os.getcwd(), say=lambda text: click.echo(text, err=True))
    except (RuntimeError, TimeoutError) as e:
        raise CliError(f"{e}\n  hint: read JupyterLab's messages above; `make venv` reinstalls it") from e
    sys.exit(status)
