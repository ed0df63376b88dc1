"""``blue-nb migrate OLD NEW``: the migration of the items from one design to the next, planned and priced;
with ``--execute``, run on a DynamoDB table and proven."""

from __future__ import annotations

import json
import sys

import click

from blue_nb.cli.base import (CliError, cli, echo_json, endpoint_options, endpoint_usage, format_option,
                              handles_errors, name_values)

__all__ = ["migrate"]


def _items(values: tuple[str, ...]) -> int | dict[str, int] | None:
    """--items N (a total) or --items ENTITY=N (repeat): the production size."""
    if not values:
        return None
    hint = "give one total (--items 10000000) or one count per entity (--items Perspective=6000000)"
    if len(values) == 1 and "=" not in values[0]:
        try:
            n = int(values[0].replace("_", "").replace(",", ""))
        except ValueError:
            raise CliError(f"--items {values[0]!r} is not a whole number\n  hint: {hint}") from None
        if n < 1:
            raise CliError(f"--items {values[0]} must be at least 1\n  hint: {hint}")
        return n
    out = {}
    for name, text in name_values("--items", values, "Perspective=6000000", "ENTITY=N", "entity").items():
        try:
            out[name] = int(text.replace("_", "").replace(",", ""))
        except ValueError:
            raise CliError(f"--items {name}={text!r}: the count is not a whole number\n  hint: {hint}") from None
        if out[name] < 0:
            raise CliError(f"--items {name}={text}: the count must be 0 or more\n  hint: {hint}")
    return out


@cli.command()
@click.argument("old", type=click.Path(dir_okay=False))
@click.argument("new", type=click.Path(dir_okay=False))
@click.option("--data", "data_dir", type=click.Path(file_okay=False),
              help="folder with the old design's source rows (one file per entity source)")
@click.option("--duckdb", type=click.Path(dir_okay=False), help="instead of --data: a DuckDB file loaded with OLD")
@click.option("--rate", type=click.FloatRange(min=0, min_open=True),
              help="write units per second of the backfill and the delete (default: NEW's provisioned write "
                   "capacity, else 1,000 WCU/s)")
@click.option("--read-rate", type=click.FloatRange(min=0, min_open=True),
              help="read units per second of the Scans (default: NEW's provisioned read capacity, else 3 x --rate)")
@click.option("--items", "items", multiple=True, metavar="N|ENTITY=N",
              help="the production size: a total, or per entity (repeat); the sample's units scaled to it")
@click.option("--out", "out", type=click.Path(file_okay=False),
              help="also write the plan to this folder: migration.txt and migration.json")
@click.option("--execute", is_flag=True, help="run the migration on the table (the embedded endpoint by default)")
@click.option("--force", is_flag=True, help="execute a plan with blocking risks (colliding keys, items over 400 KB)")
@click.option("--new-table", "new_table", metavar="NAME",
              help="a change of the table's key schema: the new table the items are copied into (default: "
                   "<table>-v2)")
@click.option("--delete-old-table", is_flag=True,
              help="a change of the table's key schema: delete the old table once the copy is proven (never without "
                   "this flag)")
@endpoint_options
@click.option("--workers", type=click.IntRange(1, 32), default=1, show_default=True, help="parallel batch writers")
@click.option("--deadline", type=click.FloatRange(min=1, max=86_400), default=120, show_default=True,
              help="seconds the endpoint may go without moving the migration forward before it gives up")
@format_option
@handles_errors
def migrate(old, new, data_dir, duckdb, rate, read_rate, items, out, execute, force, new_table, delete_old_table,
            endpoint_url, aws, profile, table_prefix, workers, deadline, fmt):
    """The migration of OLD's items to NEW's shape: per entity the items that stay, move, change or go;
    per index the entries written, moved, deleted; the steps with their units, dollars and time; and the
    risks found in the data. With --execute, run it on a table, resumably, and prove the result.

    Exit status 1 when the plan has a blocking risk (without --execute) or the table is not NEW's items.
    """
    from blue_nb.app.files import files_aside  # deferred: keep `blue-nb --help` fast
    from blue_nb.app.migrate import plan_migration  # deferred: keep `blue-nb --help` fast

    endpoint_usage(endpoint_url, aws, profile)
    if bool(data_dir) == bool(duckdb):
        raise CliError("give the old design's items: --data DIR or --duckdb FILE (one of them)\n"
                       "  hint: e.g. --data data/sample/dialogue")
    if not execute and (endpoint_url or aws or force or new_table or delete_old_table):
        raise CliError("--endpoint-url, --aws, --force, --new-table and --delete-old-table are for --execute\n"
                       "  hint: add --execute to run the plan")
    size = _items(items)
    if execute:
        from blue_nb.app.migrate_run import execute_migration  # deferred: boto3 only when run

        run = execute_migration(old, new, data_dir=data_dir, duckdb=duckdb, endpoint_url=endpoint_url, aws=aws,
                                profile=profile, table_prefix=table_prefix, force=force, rate=rate, items=size,
                                workers=workers, deadline=deadline, new_table=new_table,
                                delete_old_table=delete_old_table)
        plan, ok = run.plan, run.ok
        payload, text = {"plan": plan.to_json(), "run": run.to_json()}, [*plan.lines(), "", *run.lines()]
    else:
        plan = plan_migration(old, new, data_dir=data_dir, duckdb=duckdb, rate=rate, read_rate=read_rate,
                              items=size)
        ok = not plan.blocked
        payload, text = plan.to_json(), plan.lines()
    if out:
        with files_aside(out) as tmp:
            (tmp / "migration.txt").write_text("\n".join(text) + "\n", encoding="utf-8")
            (tmp / "migration.json").write_text(json.dumps(payload, ensure_ascii=False, indent=2, default=str),
                                                encoding="utf-8")
    if fmt == "json":
        echo_json(payload)
    else:
        for line in text:
            click.echo(line)
        if out:
            click.echo(f"wrote {out}/migration.txt and migration.json", err=True)
    if not ok:
        sys.stdout.flush()
        sys.exit(1)
