"""Bad data files and rows (CSV, JSON Lines, Parquet) given to ``blue-nb load``."""

from tests.bad_inputs.case import Case

LOAD = ("load", "{dir}/library.yaml", "--data", "{dir}/data", "--sqlite", "{dir}/store.sqlite",
        "--duckdb", "{dir}/store.duckdb", "--no-progress")

CASES = [
    Case("data-missing-folder", ("load", "{dir}/library.yaml", "--data", "{dir}/nowhere", "--sqlite", "{dir}/store.sqlite"),
         ("does not exist", "nowhere", "--data")),
]
