"""What every command shares: the ``cli`` group, the error handling (exit 2, no traceback), the
``--format`` option and JSON output."""

from __future__ import annotations

import functools
import json
import sys

import click

from blue_nb.errors import BlueNbError

__all__ = ["CliError", "Command", "Group", "announce", "cli", "data_option", "echo_json", "endpoint_options",
           "endpoint_usage", "format_option", "handles_errors", "loaded_option", "name_values", "rows_option"]


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


def announce(command: str, spec: str, data_dir: str | None = None, duckdb: str | None = None) -> None:
    """The first line of a command given data (``--data`` or ``--duckdb``), on stderr, before the command imports
    its heavy libraries (pandas, DuckDB, ...) and reads anything: whoever runs it sees at once that it started
    and on what. stdout keeps the result alone (``--format json`` stays one document)."""
    if data_dir or duckdb:                  # the spec alone: the answer itself comes at once
        what = f"the rows in {data_dir}" if data_dir else f"the items loaded in {duckdb}"
        click.echo(f"{command} {spec}: reading {what} ...", err=True)


def format_option(fn):
    return click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
                        help="text for people, json for machines")(fn)


def echo_json(obj) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, default=str))


class Command(click.Command):
    """A command whose usage errors say how to fix a NAME=VALUE option written as two words
    (``--param dialogue_id nvidia-dec``: click reads ``nvidia-dec`` as an extra argument)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            hint = self._two_words(given)
            if hint and "unexpected extra argument" in e.message:
                e.message += f"\n  hint: {hint}"
            raise

    def _two_words(self, args: list[str]) -> str | None:
        """How to write the first NAME=VALUE option of ``args`` that was given as two words, if one was."""
        options = {o: p for p in self.params if isinstance(p, click.Option) and "=" in (p.metavar or "")
                   for o in p.opts}
        for i, arg in enumerate(args[:-2]):
            name, value = args[i + 1], args[i + 2]
            if arg in options and "=" not in name and not value.startswith("-"):
                return f"write {arg} {name}={value} ({arg} takes {options[arg].metavar} as one word)"
        return None


class Group(click.Group):
    """The ``blue-nb`` group: its commands are :class:`Command`."""

    command_class = Command


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="blue_nb")
def cli():
    """Design DynamoDB single-table schemas (ADR 0018) before committing to one."""


def endpoint_options(fn=None, *, prefix: bool = True):
    """--endpoint-url, --aws, --profile (and --table-prefix): where the DynamoDB API is, which name to use."""
    opts = [
        click.option("--endpoint-url", help="a DynamoDB API endpoint, e.g. http://127.0.0.1:8000 (DynamoDB Local); "
                                            "default: $AWS_ENDPOINT_URL_DYNAMODB, else an embedded moto_server"),
        click.option("--aws", is_flag=True, help="talk to real AWS with the default credential chain (costs money)"),
        click.option("--profile", help="the AWS profile to use with --aws"),
    ]
    if prefix:
        opts.append(click.option("--table-prefix", default="", help="prefix for table names, for shared accounts"))

    def decorate(f):
        for opt in reversed(opts):
            f = opt(f)
        return f

    return decorate(fn) if fn is not None else decorate


def endpoint_usage(endpoint_url, aws, profile) -> None:
    """Refuse endpoint options that contradict each other."""
    if profile and not aws:
        raise CliError("--profile is only used with --aws\n  hint: add --aws to talk to real AWS with that profile")
    if aws and endpoint_url:
        raise CliError("give either --endpoint-url or --aws, not both")


#: ``--data DIR`` for the commands that need the source rows
data_option = click.option("--data", "data_dir", type=click.Path(file_okay=False), required=True,
                           help="folder with one file per entity source (.csv, .parquet or .jsonl)")
rows_option = click.option("--data", "data_dir", type=click.Path(file_okay=False),
                           help="folder with one file per entity source (.csv, .parquet or .jsonl); or --duckdb")
loaded_option = click.option("--duckdb", "duckdb", type=click.Path(dir_okay=False),
                             help="instead of --data: a DuckDB file that blue-nb load filled with this spec's items; "
                                  "they are checked where they are, not built from the rows again")


def name_values(option: str, values: tuple[str, ...], example: str, form: str = "NAME=VALUE",
                noun: str = "parameter") -> dict[str, str]:
    """Repeated ``--option NAME=VALUE`` as a dict; a malformed or repeated one is refused (never the last
    one silently)."""
    out: dict[str, str] = {}
    for v in values:
        name, sep, value = v.partition("=")
        if not sep or not name.strip():
            raise CliError(f"{option} {v!r} is not {form}\n  hint: write {option} {example}")
        if name in out:
            raise CliError(f"{option} {name!r} is given twice ({out[name]!r} and {value!r})\n"
                           f"  hint: give each {noun} once")
        out[name] = value
    return out
