"""Loads that must be refused whole: two source rows making one item key (within a chunk, across
chunks, in upsert mode), and store paths that cannot be a store file."""

from pathlib import Path

from tests.bad_inputs.case import Case

LIBRARY = Path(__file__).resolve().parent.parent.parent / "data" / "examples" / "library"
BRANCHES = (LIBRARY / "branches.csv").read_text(encoding="utf-8")
HEADER, CENTRAL = BRANCHES.splitlines()[:2]
BOOKS = (LIBRARY / "books.jsonl").read_text(encoding="utf-8")
# 6,000 branches, the first repeated as the last: the two rows land in different chunks of the load
MANY = "\n".join([HEADER, CENTRAL, *(f'b{n:05d},B{n},C,2000-01-01,"[""Mon""]","{{}}",1,' for n in range(5_998)),
                  CENTRAL]) + "\n"

LOAD = ("load", "{dir}/library.yaml", "--data", "{dir}/data", "--no-progress")
STORES = ("--sqlite", "{dir}/store.sqlite", "--duckdb", "{dir}/store.duckdb")
DUP = ("two source rows make the same item key", "BRANCH#central", "make the key templates unique")

CASES = [
    Case("load-duplicate-key-in-a-file", (*LOAD, *STORES),
         (*DUP, "branches.csv:2", "branches.csv:5", "the second would silently replace the first"),
         files={"data/branches.csv": BRANCHES + CENTRAL + "\n"}),
    Case("load-duplicate-key-adjacent-rows", (*LOAD, *STORES), (*DUP, "branches.csv:2", "branches.csv:3"),
         files={"data/branches.csv": "\n".join([HEADER, CENTRAL, *BRANCHES.splitlines()[1:]]) + "\n"}),
    Case("load-duplicate-key-across-chunks", (*LOAD, *STORES), (*DUP, "branches.csv:2", "branches.csv:6001"),
         files={"data/branches.csv": MANY}),
    Case("load-duplicate-key-in-upsert-mode", (*LOAD, *STORES, "--mode", "upsert"),
         (*DUP, "branches.csv:2", "branches.csv:5"), files={"data/branches.csv": BRANCHES + CENTRAL + "\n"}),
    Case("load-duplicate-key-jsonl", (*LOAD, *STORES),
         ("two source rows make the same item key", "books.jsonl:1", "books.jsonl:6", "BOOK#"),
         files={"data/books.jsonl": BOOKS + BOOKS.splitlines()[0] + "\n"}),
    Case("load-sqlite-below-a-file", (*LOAD, "--sqlite", "{dir}/library.yaml/store.sqlite", "--duckdb",
                                      "{dir}/store.duckdb"),
         ("cannot create the sqlite store", "library.yaml", "is a file, not a folder", "folder")),
    Case("load-duckdb-below-a-file", (*LOAD, "--sqlite", "{dir}/store.sqlite", "--duckdb",
                                      "{dir}/data/branches.csv/deep/store.duckdb"),
         ("cannot create the duckdb store", "branches.csv", "is a file, not a folder")),
    Case("load-sqlite-not-a-database", (*LOAD, "--sqlite", "{dir}/library.yaml", "--duckdb", "{dir}/store.duckdb"),
         ("sqlite", "library.yaml", "not a database")),
    Case("load-duckdb-not-a-database", (*LOAD, "--sqlite", "{dir}/store.sqlite", "--duckdb", "{dir}/library.yaml"),
         ("duckdb", "library.yaml", "check the path")),
    Case("load-store-folder-missing-is-said", (*LOAD, "--sqlite", "{dir}/new/dir/x.sqlite"),
         ("created folder", "new/dir"), exit_code=0, files_unchanged=False),
]
