"""Exports that must write nothing: -o naming one of the export's own inputs (the spec, --against,
--prices, --duckdb, a source file), a file already there without --force, a report whose pictures
folder is a file, a folder that cannot be made."""

from pathlib import Path

from tests.bad_inputs.case import Case

LIBRARY = Path(__file__).resolve().parent.parent.parent / "data" / "examples" / "library"
SPEC = (LIBRARY / "library.yaml").read_text(encoding="utf-8")
EX = ("export", "{dir}/library.yaml")
INPUT = "an export never overwrites its own inputs"

CASES = [
    Case("export-o-is-the-spec", (*EX, "--format", "spec-yaml", "-o", "{dir}/library.yaml"),
         (INPUT, "the spec being exported", "library.yaml", "give another file to -o")),
    Case("export-o-is-the-spec-even-with-force", (*EX, "--format", "spec-yaml", "--force", "-o", "{dir}/library.yaml"),
         (INPUT, "the spec being exported")),
    Case("export-o-is-the-against-spec", (*EX, "--format", "report-md", "--against", "{dir}/prev.yaml",
                                          "-o", "{dir}/prev.yaml", "--force"),
         (INPUT, "the previous spec (--against)", "prev.yaml"), files={"prev.yaml": SPEC}),
    Case("export-o-is-the-price-file", (*EX, "--format", "report-html", "--prices", "{dir}/prices.json",
                                        "-o", "{dir}/prices.json"),
         (INPUT, "the price file (--prices)"), files={"prices.json": "{}"}),
    Case("export-o-is-a-source-file", (*EX, "--format", "workbench", "--data", "{dir}/data",
                                       "-o", "{dir}/data/branches.csv", "--force"),
         (INPUT, "a source file of the rows (--data)", "branches.csv")),
    Case("export-o-is-the-duckdb-file", (*EX, "--format", "create-table", "--duckdb", "{dir}/store.duckdb",
                                         "-o", "{dir}/store.duckdb", "--force"),
         (INPUT, "the DuckDB file read (--duckdb)")),
    Case("export-o-exists-without-force", (*EX, "--format", "create-table", "-o", "{dir}/old.json"),
         ("old.json", "is already there", "nothing was written", "add --force to replace it"),
         files={"old.json": '{"kept": true}\n'}),
    Case("export-report-pictures-folder-is-a-file", (*EX, "--format", "report-md", "-o", "{dir}/review.md"),
         ("review_files", "the report's pictures folder is a file", "would link to nothing"),
         files={"review_files": "not a folder\n"}),
    Case("export-report-pictures-folder-exists-without-force", (*EX, "--format", "report-md",
                                                                "-o", "{dir}/review.md"),
         ("review_files", "the pictures folder is already there", "--force"),
         files={"review_files/old.png": b"\x89PNG old"}),
    Case("export-o-below-a-file", (*EX, "--format", "create-table", "--force", "-o", "{dir}/library.yaml/t.json"),
         ("cannot create the folder to write to", "library.yaml")),
]
