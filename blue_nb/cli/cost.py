"""``blue-nb cost``: what a design costs per month, on demand and provisioned."""

from __future__ import annotations

import click

from blue_nb.cli.base import (CliError, announce, cli, format_option, handles_errors, loaded_option, name_values,
                            rows_option)

__all__ = ["cost"]


def _rates(values: tuple[str, ...]) -> dict[str, float]:
    """--rate NAME=CALLS_PER_S options as a dict of numbers."""
    out: dict[str, float] = {}
    for name, num in name_values("--rate", values, "get_dialogue=300", "NAME=CALLS_PER_SECOND", "rate").items():
        try:
            out[name] = float(num)
        except ValueError:
            raise CliError(f"--rate {name}={num!r}: the rate is not a number\n  hint: e.g. --rate {name}=300") from None
    return out


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False))
@rows_option
@loaded_option
@click.option("--prices", "prices", type=click.Path(dir_okay=False),
              help="a price table (JSON, the fields of the packaged us-east-1 table); default: us-east-1, 2024-11")
@click.option("--utilisation", type=float, default=0.6, show_default=True,
              help="provisioned target utilisation: capacity = peak / utilisation")
@click.option("--rate", "rate", multiple=True, metavar="NAME=N", help="calls/s of a pattern instead of the spec's")
@click.option("--mean/--peak", "mean", default=False, show_default=True,
              help="size provisioned capacity for the mean load instead of the busiest simulated second")
@click.option("--seconds", type=click.IntRange(min=1, max=3600), default=60, show_default=True,
              help="seconds of traffic to simulate for the peak")
@click.option("--seed", type=int, default=18, show_default=True, help="same seed, same simulated seconds")
@click.option("--table-class", type=click.Choice(["standard", "standard_ia"]), default="standard", show_default=True,
              help="the table class whose storage price applies")
@click.option("--free-storage", is_flag=True, help="take the free tier's 25 GB off the storage bill")
@click.option("--progress/--no-progress", default=False, help="show a progress bar while loading")
@format_option
@handles_errors
def cost(spec, data_dir, duckdb, prices, utilisation, rate, mean, seconds, seed, table_class, free_storage, progress, fmt):
    """Monthly cost of SPEC's design on the items under --data (or in the loaded store --duckdb): per pattern (calls/s, units per call,
    units/s, on-demand $), per index (storage, units), provisioned capacity per table and GSI, and the
    totals on demand vs provisioned."""
    announce("cost", spec, data_dir, duckdb)
    from blue_nb.app.costs import design_cost  # deferred: keep `blue-nb --help` fast

    report = design_cost(spec, data_dir, duckdb=duckdb, prices=prices, utilisation=utilisation, rates=_rates(rate),
                         progress=progress, peaks=not mean, seconds=seconds, seed=seed, table_class=table_class,
                         free_storage=free_storage)
    click.echo(report.to_json() if fmt == "json" else str(report), nl=fmt == "json")
