"""Bad command lines: options, parameters, store paths."""

from tests.bad_inputs.case import Case

CASES = [
    Case("query-no-store", ("query", "{dir}/library.yaml", "branch"), ("--sqlite", "--duckdb")),
]
