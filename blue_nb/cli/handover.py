"""Hand a design over: ``export`` writes the spec as a file other tools take (the canonical spec
with a validation stamp, the CreateTable request, a CloudFormation template, a NoSQL Workbench model)."""

from __future__ import annotations

import click

from blue_nb.cli.base import cli, handles_errors, loaded_option

__all__ = ["FORMAT_HELP", "PACKAGE_FORMATS", "export"]

# blue_nb.export.FORMATS' names and what each is (tests/test_cli.py holds them equal), written out here so that
# `blue-nb --help` does not load the exporters
FORMAT_HELP = {
    "spec-yaml": "the spec as YAML, with a validation stamp",
    "spec-json": "the spec as JSON, with a validation stamp",
    "create-table": "the CreateTable request",
    "cloudformation": "an AWS::DynamoDB::Table CloudFormation template (YAML)",
    "cloudformation-json": "the same template as JSON",
    "workbench": "a NoSQL Workbench data model with the items",
    "report-html": "the access-pattern review report, one HTML file",
    "report-md": "the review report as Markdown, pictures beside it",
}
#: formats that write a folder, not one document (not in --format all): their name and what they are
PACKAGE_FORMATS = {
    "python": "a Python package of the access patterns (SQLite and DynamoDB backends, tests beside it) in the "
              "folder -o DIR",
}


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--format", "export_formats", type=click.Choice([*FORMAT_HELP, *PACKAGE_FORMATS, "all"]), required=True,
              multiple=True, help="; ".join(f"{name}: {text}" for name, text in {**FORMAT_HELP, **PACKAGE_FORMATS}.items())
              + "; all: every format. Give --format more than once for several in one run (-o is then a folder)")
@click.option("--data", "data_dir", type=click.Path(file_okay=False),
              help="rows to check the items too; workbench: the items of each facet; cloudformation of a "
                   "PROVISIONED table: the modelled peaks as throughput")
@loaded_option
@click.option("--force", is_flag=True, help="replace a file already at -o; export a spec with errors (the file says "
                                           "it is NOT validated)")
@click.option("--sample", type=click.IntRange(min=1),
              help="workbench: this many items per facet, not all of them (the summary says how many of how many)")
@click.option("-o", "--out", "out", required=True,
              help="the file to write, or - for stdout; with several formats, the folder to write them into")
@click.option("--now", help="the export time written into the file (ISO 8601, UTC), for reproducible files")
@click.option("--against", "against", type=click.Path(dir_okay=False),
              help="report formats: the previous version of the spec; the report says what changed (keys, "
                   "patterns, indexes, findings and, with --data, costs)")
@click.option("--prices", type=click.Path(dir_okay=False),
              help="report formats: a price file for the cost section (default: the packaged us-east-1 table)")
@handles_errors
def export(spec, export_formats, data_dir, duckdb, force, out, now, against, prices, sample):
    """Export SPEC as --format FMT to the file -o PATH (- for stdout); with several --format (or all), every
    one of them into the folder -o DIR, the spec and its items checked once for them all.

    -o never names one of the export's own inputs (the spec, --against, --prices, --duckdb, a file
    under --data), and a file already there is replaced only with --force. The spec is checked first (with --data or --duckdb, its items too); a spec with errors is refused with exit
    status 2 unless --force, and then the file itself says it is NOT validated. The review reports
    (report-html, report-md) are made for a spec with errors too and show them; with data they
    add the heat, the pictures and the monthly cost (report-md writes its pictures to PATH_files/).
    --format python (on its own) writes a Python package of the access patterns into the folder -o DIR,
    with tests that check it against this tool's own query answers (docs/python-export.md).
    """
    from blue_nb.app.exports import export_all, export_spec  # deferred: keep `blue-nb --help` fast

    if "python" in export_formats:
        if len(set(export_formats)) > 1:
            raise click.UsageError("--format python writes a package folder: export it on its own")
        if against is not None or prices is not None or sample is not None:
            raise click.UsageError("--against, --prices and --sample are not options of --format python")
        from blue_nb.app.python_export import export_python  # deferred: keep `blue-nb --help` fast

        result = export_python(spec, out, data_dir=data_dir, duckdb=duckdb, force=force, now=now, overwrite=force)
        click.echo(result.summary())
        return
    chosen = list(FORMAT_HELP) if "all" in export_formats else list(dict.fromkeys(export_formats))
    if len(chosen) > 1:
        if out == "-":
            raise click.UsageError("several formats go into a folder: give -o DIR, not -")
        if prices is not None:
            raise click.UsageError("--prices is for one review report: export it on its own")
        results = export_all(spec, out, data_dir=data_dir, duckdb=duckdb, formats=chosen, against=against,
                             force=force, now=now, sample=sample, overwrite=force)
        for result in results.values():
            click.echo(result.summary())
            for note in result.notes:
                click.echo(f"  note: {note}")
        return
    result = export_spec(spec, chosen[0], data_dir=data_dir, duckdb=duckdb, force=force, out=out, now=now,
                         against=against, prices=prices, sample=sample, overwrite=force)
    if result.path is None:
        click.echo(result.text, nl=False)
    to_stderr = result.path is None                      # stdout carries the document
    click.echo(result.summary(), err=to_stderr)
    if result.capacity:
        click.echo(f"  provisioned throughput from {result.capacity}", err=to_stderr)
    for note in result.notes:
        click.echo(f"  note: {note}", err=to_stderr)
