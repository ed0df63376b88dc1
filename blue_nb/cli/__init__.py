"""The ``blue-nb`` command line. Each command parses its options, calls one library function
and prints. Commands import the heavy parts of the library (pandas, DuckDB, matplotlib, boto3)
only when they run, so ``blue-nb --help`` answers at once. Exit status: 0 success, 1 a check
found errors, 2 bad input or usage (a message on stderr, never a traceback).

* :mod:`.base` - the group, error handling, ``--format``
* :mod:`.data` - ``sample``, ``load``, ``size``, ``prepare``, ``lab``
* :mod:`.design` - ``validate``, ``query``, ``heat``
* :mod:`.dynamo` - ``apply``, ``import`` (a DynamoDB API endpoint, real data in)
* :mod:`.handover` - ``export`` (the spec, CreateTable, CloudFormation, NoSQL Workbench)
* :mod:`.migrate` - ``migrate`` (a design change's migration: planned, priced, executed)
"""

from __future__ import annotations

from blue_nb.cli import data, design, dynamo  # noqa: F401  (registers the commands)
from blue_nb.cli import handover  # noqa: F401  (registers `export`)
from blue_nb.cli import cost  # noqa: F401  (registers `cost`)
from blue_nb.cli import migrate  # noqa: F401  (registers `migrate`)
from blue_nb.cli.base import cli

__all__ = ["cli", "main"]


def main() -> None:
    cli(prog_name="blue-nb")


if __name__ == "__main__":
    main()
