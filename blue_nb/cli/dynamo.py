"""Commands that talk to a DynamoDB API endpoint or bring real data in: ``apply`` and ``import``.

Where to talk: ``--endpoint-url URL`` (DynamoDB Local, a moto_server, LocalStack), the environment's
``AWS_ENDPOINT_URL_DYNAMODB``, or ``--aws [--profile P]`` for real AWS. Without one of those, blue_nb
starts its own moto_server on 127.0.0.1 for the command and stops it after: it never contacts AWS
unless told to.
"""

from __future__ import annotations

import os
import sys

import click

from blue_nb.cli.base import (CliError, announce, cli, echo_json, endpoint_options, endpoint_usage, format_option,
                            handles_errors, loaded_option, rows_option)

__all__ = ["apply", "import_"]


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@rows_option
@loaded_option
@endpoint_options
@click.option("--replace", is_flag=True, help="delete and recreate the table if it exists")
@click.option("--workers", type=click.IntRange(1, 32), default=1, show_default=True, help="parallel batch writers")
@click.option("--deadline", type=click.FloatRange(min=1, max=86_400), default=120, show_default=True,
              help="seconds the endpoint may go without moving the apply forward (no answer, the table not "
                   "active, every write throttled) before it gives up, saying what is written and how to resume")
@click.option("--progress/--no-progress", default=True, help="show a progress bar")
@format_option
@handles_errors
def apply(spec, data_dir, duckdb, endpoint_url, aws, profile, table_prefix, replace, workers, deadline, progress, fmt):
    """Create SPEC's table on a DynamoDB endpoint, write the items from --data (or the loaded store --duckdb),
    and compare every read pattern with SQLite and DuckDB.

    One line per pattern run (the parameters reading the most items, the fewest, a missing key): match, or the
    first difference. Exit status 1 when any pattern differs or an item did not arrive.
    """
    endpoint_usage(endpoint_url, aws, profile)
    announce("apply", spec, data_dir, duckdb)
    from blue_nb.app.roundtrip import apply_spec  # deferred: keep `blue-nb --help` fast

    result = apply_spec(spec, data_dir, duckdb=duckdb, endpoint_url=endpoint_url, aws=aws, profile=profile,
                        table_prefix=table_prefix, replace=replace, workers=workers, progress=progress,
                        deadline=deadline)
    if fmt == "json":
        echo_json(result.to_json())
    else:
        if result.resumed:
            click.echo(f"{result.table}: resumed an interrupted apply of this spec", err=True)
        w = result.write
        if w:
            click.echo(f"wrote {w.items:,} items in {w.calls:,} BatchWriteItem calls "
                       f"({w.unprocessed_retries} unprocessed and {w.throttle_retries} throttled retries) "
                       f"to {result.endpoint}", err=True)
        for line in result.lines():
            click.echo(line)
    if not result.ok:
        sys.stdout.flush()
        sys.exit(1)


@cli.command("import")
@click.argument("source")
@click.option("--from", "fmt_from", required=True,
              type=click.Choice(["s3-export", "sqlite", "dynamodb", "workbench", "cloudformation", "describe-table"]),
              help="s3-export: a DynamoDB S3 export folder (DYNAMODB_JSON, full and incremental); "
                   "sqlite: Blue's SQLite file (blue_<domain> tables); dynamodb: a live table (SOURCE = its name); "
                   "workbench: a NoSQL Workbench model file; cloudformation: a template's AWS::DynamoDB::Table and "
                   "GlobalTable resources; describe-table: the JSON of aws dynamodb describe-table (the last two: "
                   "the design, no items)")
@click.option("--out", "out", type=click.Path(file_okay=False), required=True,
              help="folder for the inferred spec (<domain>.yaml) and its rows (<domain>/)")
@click.option("--sqlite", type=click.Path(dir_okay=False), help="SQLite file to load the items into")
@click.option("--duckdb", type=click.Path(dir_okay=False), help="DuckDB file to load the items into")
@click.option("--domain", help="the domain name (default: from the table name, blue_<domain>)")
@click.option("--key", help="partition and sort key attribute names, as pk,sk (a full S3 export does not say)")
@click.option("--segments", type=click.IntRange(1, 64), default=4, show_default=True,
              help="parallel Scan segments (dynamodb)")
@endpoint_options(prefix=False)
@click.option("--plan", "plan", is_flag=True,
              help="sqlite: plan the first migration, Blue's items into the table (blue-nb migrate's plan)")
@click.option("--execute", is_flag=True, help="sqlite: run that migration on a DynamoDB endpoint (the embedded one "
                                               "unless --endpoint-url or --aws)")
@click.option("--force", is_flag=True, help="with --execute: run a plan with blocking risks")
@click.option("--rate", type=click.FloatRange(min=0, min_open=True), help="with --plan: write units per second")
@click.option("--progress/--no-progress", default=True, help="show a progress bar")
@format_option
@handles_errors
def import_(source, fmt_from, out, sqlite, duckdb, domain, key, segments, endpoint_url, aws, profile, plan, execute,
            force, rate, progress, fmt):
    """Bring real data in: items from SOURCE into the stores, and a draft spec inferred from them.

    Every inferred part of the spec is listed under `inferred:` in it; the draft is validated at once.
    From Blue's SQLite file, --plan plans the first migration of its items into the table, and --execute
    runs it (resumably) and proves the table holds them.
    """
    from blue_nb.app.imports import import_data  # deferred: keep `blue-nb --help` fast

    endpoint_usage(endpoint_url, aws, profile)
    if (plan or execute or force or rate) and fmt_from != "sqlite":
        raise CliError("--plan, --execute, --force and --rate plan the first migration from Blue's SQLite file\n"
                       "  hint: use --from sqlite, or blue-nb migrate OLD NEW for a design change")
    if (endpoint_url or aws) and fmt_from == "sqlite" and not execute:
        raise CliError("--endpoint-url and --aws are where --execute writes\n  hint: add --execute")
    if fmt_from == "dynamodb" and not (endpoint_url or aws or os.environ.get("AWS_ENDPOINT_URL_DYNAMODB")):
            raise CliError("--from dynamodb reads a live table: give --endpoint-url URL or --aws [--profile P]\n"
                           "  hint: blue_nb never contacts AWS unless told to")
    results = import_data(source, fmt_from, out, sqlite=sqlite, duckdb=duckdb, endpoint_url=endpoint_url, aws=aws,
                          profile=profile, domain=domain, key=key, segments=segments, progress=progress)
    migrations = _first_migrations(results, plan, execute, force, rate, endpoint_url, aws, profile)
    if fmt == "json":
        echo_json([{**r.to_dict(), **{k: v for k, v in m.items() if k != "lines"}}
                   for r, m in zip(results, migrations)])
    else:
        _say_imported(results, migrations)
    if any(m.get("ok") is False for m in migrations):
        sys.stdout.flush()
        sys.exit(1)


def _say_imported(results, migrations) -> None:
    for r, m in zip(results, migrations):
        click.echo(str(r))
        for note in r.notes:
            click.echo(f"  note: {note}")
        if r.findings is not None:
            c = r.findings.counts
            click.echo(f"  draft checked: {c['error']} errors, {c['warning']} warnings, {c['info']} notes; every inferred "
                       f"part is listed under 'inferred:'; review: blue-nb validate {r.spec_path} --data {r.rows_dir}")
        for line in m.get("lines", []):
            click.echo(line)


def _first_migrations(results, plan: bool, execute: bool, force: bool, rate, endpoint_url, aws, profile) -> list[dict]:
    """Per imported domain, its first migration planned (and run): {"lines": text, "migration": its JSON}."""
    out: list[dict] = []
    for r in results:
        if execute:
            from blue_nb.app.migrate_run import execute_migration  # deferred: boto3 only when run

            run = execute_migration(None, r.spec_path, data_dir=r.rows_dir, endpoint_url=endpoint_url, aws=aws,
                                    profile=profile, force=force, rate=rate)
            out.append({"ok": run.ok, "lines": [*run.plan.lines(), "", *run.lines()],
                        "migration": {"plan": run.plan.to_json(), "run": run.to_json()}})
        elif plan:
            from blue_nb.app.migrate import plan_migration  # deferred: keep `blue-nb --help` fast

            p = plan_migration(None, r.spec_path, data_dir=r.rows_dir, rate=rate)
            out.append({"lines": p.lines(), "migration": p.to_json()})
        else:
            out.append({})
    return out
