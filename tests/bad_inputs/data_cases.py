"""Bad data files and rows (CSV, JSON Lines, Parquet) given to ``blue-nb load`` and ``validate --data``.

Each case replaces one file of the library example (branches.csv, books.jsonl, loans.parquet);
the message must name the file and line (or column), say what is wrong and how to fix it.
"""

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tests.bad_inputs.case import Case

LOAD = ("load", "{dir}/library.yaml", "--data", "{dir}/data", "--sqlite", "{dir}/store.sqlite",
        "--duckdb", "{dir}/store.duckdb", "--no-progress")
VALIDATE = ("validate", "{dir}/library.yaml", "--data", "{dir}/data")
LIBRARY = Path(__file__).resolve().parents[2] / "data" / "examples" / "library"
LOANS = (LIBRARY / "loans.parquet").read_bytes()

HEADER = "branch_id,name,city,opened,open_days,address,shelves,logo\n"
CELLS = ["central", "Central", "Zürich", "1917-05-01", '"[""Mon""]"', '"{""zip"": ""8001""}"', "412", "iVBORw0KGgo="]


def branch(**changes: str) -> str:
    """A branches.csv with the header and one row (line 2), some cells changed."""
    names = HEADER.strip().split(",")
    cells = [changes.get(n, c) for n, c in zip(names, CELLS)]
    return HEADER + ",".join(cells) + "\n"


def book(**fields) -> str:
    """One books.jsonl line: a valid book with some fields changed (raw JSON text)."""
    base = {"branch_id": '"central"', "isbn": '"9780060883287"', "title": '"Cien años"', "tags": '["novel"]',
            "ratings": "[4.5]", "available": "true"}
    base.update(fields)
    return "{" + ", ".join(f'"{k}": {v}' for k, v in base.items()) + "}\n"


def parquet(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


EMPTY_LOANS = parquet(pq.read_table(LIBRARY / "loans.parquet").slice(0, 0))
DURATION_LOANS = parquet(pa.table({"branch_id": ["central"], "isbn": ["1"], "loan_id": [1], "member_id": ["m"],
                                   "due_date": ["2026-01-01"], "held_for": pa.array([5], pa.duration("s"))}))
# a Parquet frame (PAR1 ... footer length, PAR1) whose footer length claims 2 GB
HUGE_FOOTER = b"PAR1" + b"\0" * 64 + (2 << 30).to_bytes(4, "little") + b"PAR1"
# a whole frame around a footer of garbage bytes
BAD_FOOTER = b"PAR1" + b"\x99" * 64 + (64).to_bytes(4, "little") + b"PAR1"
DEEP = "[" * 5000 + "]" * 5000

CASES = [
    Case("data-missing-folder", ("load", "{dir}/library.yaml", "--data", "{dir}/nowhere", "--sqlite", "{dir}/store.sqlite"),
         ("does not exist", "nowhere", "--data")),
    # -- empty sources: a replace load would delete every item of the entity ---------------------
    Case("data-empty-csv", LOAD, ("branches.csv", "holds no rows", "Branch", "allow_empty: true"),
         files={"data/branches.csv": ""}),
    Case("data-header-only-csv", LOAD, ("branches.csv", "holds no rows", "entities.Branch.allow_empty"),
         files={"data/branches.csv": HEADER}),
    Case("data-blank-lines-jsonl", LOAD, ("books.jsonl", "holds no rows", "entities.Book.allow_empty"),
         files={"data/books.jsonl": "\n  \n\r\n"}),
    Case("data-zero-row-parquet", LOAD, ("loans.parquet", "holds no rows", "entities.Loan.allow_empty"),
         files={"data/loans.parquet": EMPTY_LOANS}),
    Case("data-zero-byte-parquet", LOAD, ("loans.parquet", "holds no rows", "entities.Loan.allow_empty"),
         files={"data/loans.parquet": b""}),
    Case("data-validate-empty-csv", VALIDATE, ("branches.csv", "holds no rows", "allow_empty: true"),
         files={"data/branches.csv": ""}),
    # -- Parquet files that pyarrow cannot read ----------------------------------------------------
    Case("data-parquet-truncated", LOAD, ("loans.parquet", "not a whole parquet file", "write it again"),
         files={"data/loans.parquet": LOANS[: len(LOANS) // 2]}),
    Case("data-parquet-huge-footer", LOAD, ("loans.parquet", "metadata claims 2,147,483,648 bytes", "write it again"),
         files={"data/loans.parquet": HUGE_FOOTER}),
    Case("data-parquet-garbage-footer", LOAD, ("loans.parquet", "cannot read parquet file", "write it again"),
         files={"data/loans.parquet": BAD_FOOTER}),
    Case("data-parquet-unsupported-type", LOAD, ("loans.parquet column held_for", "duration", "cast it"),
         files={"data/loans.parquet": DURATION_LOANS}),
    # -- text that is not UTF-8 text ---------------------------------------------------------------
    Case("data-csv-invalid-utf8", LOAD, ("branches.csv:2", "not utf-8", "column 12", "save the file as utf-8"),
         files={"data/branches.csv": HEADER.encode() + b"central,Caf\xe9 Lib,Z,1917,,,1,\n"}),
    Case("data-jsonl-invalid-utf8", LOAD, ("books.jsonl:2", "not utf-8", "save the file as utf-8"),
         files={"data/books.jsonl": book().encode() + b'{"title": "\xff"}\n'}),
    Case("data-csv-utf16", LOAD, ("branches.csv:1", "not utf-8", "utf-16"),
         files={"data/branches.csv": branch().encode("utf-16")}),
    Case("data-csv-nul-byte", LOAD, ("branches.csv:2", "nul byte", "binary"),
         files={"data/branches.csv": branch(name="Cen\0tral")}),
    # -- CSV structure -----------------------------------------------------------------------------
    Case("data-csv-unnamed-column", LOAD, ("branches.csv:1 column 2", "no name", "name every column"),
         files={"data/branches.csv": "branch_id,,city\ncentral,x,y\n"}),
    Case("data-csv-duplicate-column", LOAD, ("branches.csv:1 column 3", "appears twice", "own name"),
         files={"data/branches.csv": "branch_id,name,name\ncentral,x,y\n"}),
    Case("data-csv-spaced-column", LOAD, ("branches.csv:1 column 2", "spaces around it", "write it as 'name'"),
         files={"data/branches.csv": "branch_id, name\ncentral,x\n"}),
    Case("data-csv-extra-field", LOAD, ("branches.csv:3", "9 fields", "quote fields"),
         files={"data/branches.csv": branch() + branch().splitlines()[1] + ",extra\n"}),
    Case("data-csv-stray-quote", LOAD, ("branches.csv:2", "malformed csv", "doubling quotes"),
         files={"data/branches.csv": branch(name='"Cen"tral')}),
    Case("data-csv-unclosed-quote", LOAD, ("branches.csv:3", "malformed csv", "quote fields"),
         files={"data/branches.csv": branch() + 'kyoto,"Kyoto,x,y\n'}),
    Case("data-csv-huge-record", LOAD, ("branches.csv:2", "runs over 16 mb", "quote fields"),
         files={"data/branches.csv": HEADER + 'central,"' + ("x" * 1023 + "\n") * (17 * 1024)}),
    Case("data-csv-missing-key-column", LOAD, ("branches.csv:2", "no 'branch_id' column", "add a branch_id column"),
         files={"data/branches.csv": "name,city\nCentral,Z\n"}),
    # -- JSON Lines structure and bounds -----------------------------------------------------------
    Case("data-jsonl-huge-line", LOAD, ("books.jsonl:2", "longer than 16,777,216 bytes", "400 kb"),
         files={"data/books.jsonl": book() + '{"title": "' + "x" * (17 << 20) + '"}\n'}),
    Case("data-jsonl-deep-nesting", LOAD, ("books.jsonl:1", "nested deeper", "32 levels"),
         files={"data/books.jsonl": book(details=DEEP)}),
    Case("data-jsonl-nesting-33", LOAD, ("books.jsonl:1", "nested deeper than 33", "32 levels"),
         files={"data/books.jsonl": book(details="[" * 33 + "]" * 33)}),
    Case("data-jsonl-million-digit-number", LOAD, ("books.jsonl:1", "1,000,000 characters", "38 digits"),
         files={"data/books.jsonl": book(dewey="1" * 1_000_000)}),
    Case("data-jsonl-array-line", LOAD, ("books.jsonl:1", "got an array", "one json object"),
         files={"data/books.jsonl": '["central", "9780060883287"]\n'}),
    Case("data-jsonl-bad-json", LOAD, ("books.jsonl:2", "not valid json", "column"),
         files={"data/books.jsonl": book() + '{"title": "x",}\n'}),
    Case("data-jsonl-repeated-field", LOAD, ("books.jsonl:1", "'title' appears twice", "silently replace"),
         files={"data/books.jsonl": book(title='"a", "title": "b"')}),
    Case("data-jsonl-nan", LOAD, ("books.jsonl:1", "nan is not a number"),
         files={"data/books.jsonl": book(dewey="NaN")}),
    # -- values that are not what the spec declares ------------------------------------------------
    Case("data-set-repeated-member", LOAD, ("books.jsonl:2 tags", "'novel' twice", "remove the repeat"),
         files={"data/books.jsonl": book() + book(isbn='"2"', tags='["novel", "classic", "novel"]')}),
    Case("data-set-empty", LOAD, ("books.jsonl:1 tags", "empty ss set", "store no attribute"),
         files={"data/books.jsonl": book(tags="[]")}),
    Case("data-ns-equal-numbers", LOAD, ("books.jsonl:1 ratings", "equal numbers", "remove the repeat"),
         files={"data/books.jsonl": book(ratings="[1, 1.0]")}),
    Case("data-csv-set-repeated-member", LOAD, ("branches.csv:2 open_days", "'Mon' twice", "remove the repeat"),
         files={"data/branches.csv": branch(open_days='"[""Mon"", ""Mon""]"')}),
    Case("data-csv-empty-key", LOAD, ("branches.csv:2 branch_id", "which is empty", "value for branch_id"),
         files={"data/branches.csv": branch(branch_id="")}),
    Case("data-jsonl-null-key", LOAD, ("books.jsonl:1 isbn", "which is null", "value for isbn"),
         files={"data/books.jsonl": book(isbn="null")}),
    Case("data-csv-bad-number", LOAD, ("branches.csv:2 shelves", "'abc'", "plain decimal"),
         files={"data/branches.csv": branch(shelves="abc")}),
    Case("data-jsonl-bad-bool", LOAD, ("books.jsonl:1 available", "not a boolean", "true/false"),
         files={"data/books.jsonl": book(available='"maybe"')}),
    Case("data-csv-bad-base64", LOAD, ("branches.csv:2 logo", "not base64", "standard base64"),
         files={"data/branches.csv": branch(logo="not-base64!")}),
    Case("data-jsonl-map-for-string", LOAD, ("books.jsonl:1 title", "expected a string, got a map", "declare"),
         files={"data/books.jsonl": book(title='{"en": "x"}')}),
    Case("data-csv-bad-map-cell", LOAD, ("branches.csv:2 address", "not json", "written as json"),
         files={"data/branches.csv": branch(address="street 1")}),
    # -- the file itself ---------------------------------------------------------------------------
    Case("data-source-is-directory", LOAD, ("branches.csv is a directory", "Branch"),
         files={"data/branches.csv": None, "data/branches.csv/rows.csv": branch()}),
    Case("data-source-wrong-suffix", LOAD, ("branches.txt", "not a type blue_nb reads", "rename"),
         files={"data/branches.csv": None, "data/branches.txt": branch()}),
    Case("data-validate-bad-row", VALIDATE, ("books.jsonl:1 tags", "'novel' twice"),
         files={"data/books.jsonl": book(tags='["novel", "novel"]')}),
]


# a check's findings (exit 1): the report names the rule, the key and the fix
_BRANCHES = (Path(__file__).resolve().parents[2] / "data/examples/library/branches.csv").read_text(encoding="utf-8")
_CENTRAL = _BRANCHES.splitlines()[1]
CASES += [
    Case("data-validate-duplicate-item-key", ("validate", "{dir}/library.yaml", "--data", "{dir}/data"),
         ("DUPLICATE-ITEM-KEY", "BRANCH#central", "Branch"), exit_code=1,
         files={"data/branches.csv": _BRANCHES + _CENTRAL + "\n"}),
]

# a declared attribute with no column would be left out of every item without a word
_NO_CITY = "\n".join(",".join(c for i, c in enumerate(line.split(",")) if i != 2) for line in
                     ["branch_id,name,city,opened", "central,Central,Zürich,1917-05-01"]) + "\n"
CASES += [
    Case("data-declared-attribute-not-a-column", LOAD, ("branches.csv:1", "'city'", "add the column"),
         files={"data/branches.csv": _BRANCHES.replace("city,", "town,", 1)}),
]
