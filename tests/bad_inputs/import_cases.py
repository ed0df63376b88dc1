"""Imports that must change nothing: S3 exports whose manifests disagree with their files, items the
importer cannot place, a --out that cannot be written, stores that cannot be opened once the draft is
made. Each case's folder holds ``out/`` with an earlier import's spec, edited by hand, and its rows:
the test checks that they, like the stores, are exactly as they were."""

import base64
import gzip
import hashlib
import json
import sqlite3
import tempfile
from pathlib import Path

from tests.bad_inputs.case import Case

EXPORT = "exp/AWSDynamoDB/01767225600000-a1b2c3d4"
EARLIER = {"out/shop.yaml": "# edited by hand: must survive a failed import\ndomain: shop\n",
           "out/shop/User.jsonl": '{"pk": "USER#u0"}\n'}


def _gz(lines: list[str]) -> bytes:
    return gzip.compress("".join(line + "\n" for line in lines).encode("utf-8"), mtime=0)


def _item(i: int, sk: str | None = "PROFILE") -> str:
    item = {"pk": {"S": f"USER#u{i}"}, "name": {"S": f"n{i}"}}
    if sk is not None:
        item["sk"] = {"S": sk}
    return json.dumps({"Item": item})


def export(files: list[list[str]], *, listed: int | None = None, summary_count: int | None = None,
           md5_of: dict[int, bytes] | None = None) -> dict[str, bytes | str]:
    """An S3 export in AWS's layout under exp/: ``listed`` files named in manifest-files.json (all by
    default), the summary's itemCount (that of the listed files by default), md5s of other bytes."""
    out: dict[str, bytes | str] = dict(EARLIER)
    entries = []
    for n, lines in enumerate(files):
        data = _gz(lines)
        out[f"{EXPORT}/data/f{n}.json.gz"] = data
        md5 = base64.b64encode(hashlib.md5((md5_of or {}).get(n, data)).digest()).decode()
        entries.append({"itemCount": len(lines), "md5Checksum": md5, "etag": "e",
                        "dataFileS3Key": f"prefix/AWSDynamoDB/01767225600000-a1b2c3d4/data/f{n}.json.gz"})
    entries = entries[:listed] if listed is not None else entries
    out[f"{EXPORT}/manifest-files.json"] = "".join(json.dumps(e) + "\n" for e in entries)
    count = summary_count if summary_count is not None else sum(e["itemCount"] for e in entries)
    out[f"{EXPORT}/manifest-summary.json"] = json.dumps({
        "version": "2020-06-30", "tableArn": "arn:aws:dynamodb:us-east-1:123456789012:table/blue_shop",
        "exportTime": "2026-01-01T00:00:00.000Z", "exportType": "FULL_EXPORT", "outputFormat": "DYNAMODB_JSON",
        "manifestFilesS3Key": "prefix/AWSDynamoDB/01767225600000-a1b2c3d4/manifest-files.json", "itemCount": count})
    return out


def blue_sqlite(rows: list[tuple[str, str, str]]) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "blue.sqlite"
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE blue_dialogue (pk TEXT, sk TEXT, data JSON, created_at TEXT)")
        con.executemany("INSERT INTO blue_dialogue VALUES (?, ?, ?, '')", rows)
        con.commit()
        con.close()
        return path.read_bytes()


GOOD = [[_item(i) for i in range(3)], [_item(i, "ORDER#1") for i in range(3)], [_item(9)]]
EDITED = [GOOD[0][:2] + [GOOD[0][2].replace("n2", "n7")], *GOOD[1:]]
IMPORT = ("import", "{dir}/exp", "--from", "s3-export", "--out", "{dir}/out", "--no-progress")
STORES = ("--sqlite", "{dir}/store.sqlite", "--duckdb", "{dir}/store.duckdb")
WIRE = '{"n": {"N": "%d"}, "title": {"S": "t"}}'

CASES = [
    Case("import-s3-file-list-names-2-of-3-files", (*IMPORT, *STORES),
         ("1 data file(s) of the export are not in manifest-files.json", "f2.json.gz", "copy the export"),
         files=export(GOOD, listed=2)),
    Case("import-s3-summary-count-disagrees", (*IMPORT, *STORES),
         ("manifest-summary.json says itemCount 9, but manifest-files.json lists 7 items in 3 files",),
         files=export(GOOD, summary_count=9)),
    Case("import-s3-data-file-edited", (*IMPORT, *STORES),
         ("f0.json.gz does not have the md5checksum", "the file was changed or is damaged", "copy the file from S3"),
         files=export(EDITED, md5_of={0: _gz(GOOD[0])})),
    Case("import-s3-item-without-its-sort-key", (*IMPORT, *STORES),
         ("item 4 of the source", "pk='USER#u3'", "has no sk, which 6 of the first 7 items have",
          "an item without its sort key", "--key pk"),
         files=export([[_item(i) for i in range(3)] + [_item(3, None)], [_item(i, "ORDER#1") for i in range(3)]])),
    Case("import-stores-fail-after-the-draft-is-made", (*IMPORT, "--sqlite", "{dir}/library.yaml/s.sqlite"),
         ("cannot create the sqlite store", "library.yaml", "is a file, not a folder"),
         files=export(GOOD)),
    Case("import-out-is-a-file", ("import", "{dir}/exp", "--from", "s3-export", "--out", "{dir}/library.yaml",
                                  "--no-progress"),
         ("'--out'", "library.yaml", "is a file"), files=export(GOOD)),
    Case("import-into-its-own-source-file",
         ("import", "{dir}/blue.sqlite", "--from", "sqlite", "--out", "{dir}/out", "--no-progress",
          "--sqlite", "{dir}/blue.sqlite"),
         ("--sqlite names the file being imported", "write over its own input", "blue.sqlite"),
         files={**EARLIER, "blue.sqlite": blue_sqlite([(f"dlgn-{i:03d}", "META", WIRE % i) for i in range(3)])}),
    Case("import-sqlite-bad-json-row-among-the-first-sampled",
         ("import", "{dir}/blue.sqlite", "--from", "sqlite", "--out", "{dir}/out", "--no-progress", *STORES),
         ("pk='dlgn-003' sk='META'", "invalid JSON"),
         files={**EARLIER, "blue.sqlite": blue_sqlite([(f"dlgn-{i:03d}", "META", WIRE % i) for i in range(3)]
                                                     + [("dlgn-003", "META", '{"n": {"N": "3"}, "title": ')]
                                                     + [(f"dlgn-{i:03d}", "META", WIRE % i) for i in range(4, 9)])}),
]
