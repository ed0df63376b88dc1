"""Importing real data: DynamoDB S3 exports (full and incremental), Blue's SQLite files and live
tables become a draft spec, row files that rebuild the items exactly, and items in the stores.

The exports are written in AWS's layout (AWSDynamoDB/<ExportId>/manifest-summary.json,
manifest-files.json, gzip JSON lines; incremental data under AWSDynamoDB/data/); the stores are
real SQLite and DuckDB files; the live table is on the session's moto_server."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from blue_nb.app.imports import import_data
from blue_nb.app.workflows import compare_stores, load_data, spec_items, validate
from blue_nb.errors import SourceError
from blue_nb.imports.infer import SpecInferrer, unique_name
from blue_nb.imports.infer_keys import KeyInfo, canonical_key
from blue_nb.items import dumps_wire, item_to_wire
from blue_nb.sources import s3_export
from blue_nb.spec import load_spec
from blue_nb.stores import open_store

DIGITS_38 = Decimal("12345678901234567890.123456789012345678")
ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/{table}"


# ---------------------------------------------------------------- writing exports as AWS does


def _gz(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))


def write_export(root: Path, export_id: str, files: list[list[str]], *, table: str = "blue_shop",
                 incremental: tuple[str, str] | None = None, counts: list[int] | None = None) -> Path:
    """One export under root/AWSDynamoDB/<export_id>; ``files`` holds each data file's lines."""
    folder = root / "AWSDynamoDB" / export_id
    folder.mkdir(parents=True)
    (folder / "_started").write_text("")
    entries = []
    for n, lines in enumerate(files):
        key = (f"prefix/AWSDynamoDB/data/{export_id}-{n}.json.gz" if incremental
               else f"prefix/AWSDynamoDB/{export_id}/data/f{n}.json.gz")
        _gz(root / key.removeprefix("prefix/"), lines)
        count = counts[n] if counts else len(lines)
        md5 = base64.b64encode(hashlib.md5((root / key.removeprefix("prefix/")).read_bytes()).digest()).decode()
        entries.append({"itemCount": count, "md5Checksum": md5, "etag": "e", "dataFileS3Key": key})
    (folder / "manifest-files.json").write_text("".join(json.dumps(e) + "\n" for e in entries))
    summary = {"version": "2023-08-01" if incremental else "2020-06-30",
               "exportArn": ARN.format(table=table) + f"/export/{export_id}", "startTime": "2026-01-01T00:00:00.000Z",
               "endTime": "2026-01-01T00:05:00.000Z", "tableArn": ARN.format(table=table), "tableId": "t-1",
               "s3Bucket": "bucket", "s3Prefix": "prefix", "s3SseAlgorithm": "AES256", "s3SseKmsKeyId": None,
               "manifestFilesS3Key": f"prefix/AWSDynamoDB/{export_id}/manifest-files.json", "billedSizeBytes": 0,
               "itemCount": sum(counts) if counts else sum(len(f) for f in files), "outputFormat": "DYNAMODB_JSON"}
    if incremental:
        summary.update(exportFromTime=incremental[0], exportToTime=incremental[1], outputView="NEW_AND_OLD_IMAGES",
                       exportType="INCREMENTAL_EXPORT")
    else:
        summary.update(exportTime="2026-01-01T00:00:00.000Z", exportType="FULL_EXPORT")
    (folder / "manifest-summary.json").write_text(json.dumps(summary))
    return folder


def full_lines(items: list[dict]) -> list[str]:
    return [dumps_wire({"Item": item_to_wire(i)}) for i in items]


def change(ts, keys: dict, new: dict | None = None, old: dict | None = None, bare_ts: bool = False) -> str:
    rec = {"Metadata": {"WriteTimestampMicros": str(ts) if bare_ts else {"N": str(ts)}}, "Keys": item_to_wire(keys)}
    if new is not None:
        rec["NewImage"] = item_to_wire(new)
    if old is not None:
        rec["OldImage"] = item_to_wire(old)
    return json.dumps(rec, ensure_ascii=False)


def profile(i: int) -> dict:
    """A user profile with every DynamoDB type."""
    return {"pk": f"USER#u{i}", "sk": "PROFILE", "name": f"Zoë 日本 😀 {i}", "score": DIGITS_38 + i,
            "tiny": Decimal("-1.5E-100"), "huge": Decimal("9.9999999999999999999999999999999999999E+125"),
            "avatar": bytes([0, 255, i % 256, 10]), "active": i % 2 == 0, "nothing": None,
            "tags_list": ["a", Decimal(1), True, None, ["deep"], {"k": "v"}],
            "meta": {"city": "Kraków", "n": Decimal("2.5")},
            "roles": {"admin", "ädmin"}, "lucky": {Decimal(7), Decimal("-0.5")}, "keys": {b"\x00\x01", b"\xff"}}


def order(i: int, j: int) -> dict:
    return {"pk": f"USER#u{i}", "sk": f"ORDER#{j:04d}", "total": Decimal(f"{j}.99"),
            "status": "open" if j % 2 else "shipped",
            "gsi1pk": f"STATUS#{'open' if j % 2 else 'shipped'}", "gsi1sk": f"2026-01-{j:02d}"}


def shop_items(users: int = 4, orders: int = 3) -> list[dict]:
    return [profile(i) for i in range(users)] + [order(i, j) for i in range(users) for j in range(1, orders + 1)]


def _text(wire: dict) -> str:
    """A wire item as JSON text with its attributes in name order (an item's attributes have no order)."""
    return json.dumps(wire, sort_keys=True, ensure_ascii=False)


def store_wire(path: Path, backend: str, table: str) -> list[str]:
    with open_store(backend, path) as s:
        return sorted(_text(w) for w in s.iter_items(table, wire=True))


def wire_set(items: list[dict]) -> list[str]:
    return sorted(_text(item_to_wire(i)) for i in items)


def digest(path: Path, spec) -> str:
    with open_store("sqlite", path) as s:
        return compare_stores([s], spec)["sqlite"]["sha256"]


# ---------------------------------------------------------------- full exports


def test_full_export_every_type_round_trips_into_both_stores_and_a_draft(tmp_path):
    items = shop_items()
    write_export(tmp_path / "exp", "01767225600000-a1b2c3d4", [full_lines(items[:7]), full_lines(items[7:]), []])
    [r] = import_data(tmp_path / "exp", "s3-export", tmp_path / "out", sqlite=tmp_path / "s.sqlite",
                      duckdb=tmp_path / "d.duckdb", progress=False)
    assert (r.domain, r.items, r.per_entity) == ("shop", 16, {"Profile": 4, "Order": 12})
    assert store_wire(tmp_path / "s.sqlite", "sqlite", "blue_shop") == wire_set(items)
    assert store_wire(tmp_path / "d.duckdb", "duckdb", "blue_shop") == wire_set(items)
    spec = load_spec(r.spec_path)
    assert spec.entities["Profile"].key == {"pk": "USER#{user}", "sk": "PROFILE"}
    assert spec.entities["Order"].key == {"pk": "USER#{user}", "sk": "ORDER#{order:04d}",
                                          "gsi1pk": "STATUS#{status}", "gsi1sk": "{gsi1sk}"}
    assert spec.entities["Profile"].attributes == {
        "name": "S", "score": "N", "tiny": "N", "huge": "N", "avatar": "B", "active": "BOOL", "nothing": "NULL",
        "tags_list": "L", "meta": "M", "roles": "SS", "lucky": "NS", "keys": "BS"}
    assert spec.table.indexes["gsi1"].partition_key == "gsi1pk" and spec.table.indexes["gsi1"].sort_key == "gsi1sk"
    assert [(p.name, p.operation, p.index) for p in spec.access_patterns] == [
        ("list_order", "query", "table"), ("get_profile", "get_item", "table"), ("query_gsi1", "query", "gsi1")]
    assert spec.inferred["entities.Order.key.sk"].startswith("from 12 of 12 keys shaped ORDER#<int>")
    assert "equals attribute status in 12 of 12 items" in spec.inferred["entities.Order.key.gsi1pk"]
    # the rows rebuild every item: a load of the draft gives the same digest as the import's load
    load_data(r.spec_path, r.rows_dir, sqlite=tmp_path / "again.sqlite", progress=False)
    assert digest(tmp_path / "again.sqlite", spec) == digest(tmp_path / "s.sqlite", spec)
    assert (r.unmatched, r.not_in_rows, r.findings.items_checked) == (0, 0, 16)


def test_items_that_fit_no_template_go_to_the_catch_all_and_every_item_is_in_the_rows(tmp_path):
    items = shop_items(3, 8) + [
        {"pk": "USER#u0", "sk": "ORDER#7#x", "total": Decimal(1)},            # another key shape
        {"pk": "USER#u1", "sk": "ORDER#12", "total": Decimal(2)},             # not a 4-digit order number
        {"pk": "USER#u2", "sk": "ORDER#7#y", "total": "two"},                 # total a string: another catch-all
    ]
    write_export(tmp_path / "exp", "01767225600000-a1b2c3d4", [full_lines(items)])
    [r] = import_data(tmp_path / "exp", "s3-export", tmp_path / "out", sqlite=tmp_path / "s.sqlite", progress=False)
    assert r.per_entity == {"Order": 24, "Profile": 3, "Other": 2, "Other2": 1} and (r.unmatched, r.not_in_rows) == (3, 0)
    spec = load_spec(r.spec_path)
    assert spec.entities["Order"].key["sk"] == "ORDER#{order:04d}"
    assert spec.entities["Other"].key == {"pk": "{pk}", "sk": "{sk}", "gsi1pk": "{gsi1pk}", "gsi1sk": "{gsi1sk}"}
    assert spec.entities["Other2"].key == spec.entities["Other"].key
    assert (spec.entities["Other"].attributes["total"], spec.entities["Other2"].attributes["total"]) == ("N", "S")
    assert spec.inferred["entities.Other2"].startswith("catch-all of other attribute types: total S where Other")
    assert store_wire(tmp_path / "s.sqlite", "sqlite", "blue_shop") == wire_set(items)
    load_data(r.spec_path, r.rows_dir, sqlite=tmp_path / "again.sqlite", progress=False)
    assert store_wire(tmp_path / "again.sqlite", "sqlite", "blue_shop") == wire_set(items)     # nothing is left out
    assert digest(tmp_path / "again.sqlite", spec) == digest(tmp_path / "s.sqlite", spec)


@pytest.mark.parametrize("value, what, fix", [
    ({"blob": [b"\x01"]}, "binary inside a list or map", "its own B or BS attribute"),
    ({"meta": {"tags": {"a", "b"}}}, "a set inside a list or map", "its own SS, NS or BS attribute"),
    ({"empty": b""}, "an empty binary value", "remove the empty binary attribute"),
    ({"two words": "x"}, "attribute 'two words' is not declared", "rename the attribute"),
])
def test_an_item_no_row_can_carry_stops_the_import_naming_its_key(tmp_path, value, what, fix):
    """Nothing is dropped with only a note (issue 27): the import stops, names the item's key, its file and line,
    what cannot be carried and how to change it; the stores and the out folder are untouched."""
    items = shop_items(2, 2) + [{"pk": "USER#u9", "sk": "odd-one", **value}]
    write_export(tmp_path / "exp", "01767225600000-a1b2c3d4", [full_lines(items)])
    with pytest.raises(SourceError) as e:
        import_data(tmp_path / "exp", "s3-export", tmp_path / "out", sqlite=tmp_path / "s.sqlite", progress=False)
    assert '{"pk":{"S":"USER#u9"},"sk":{"S":"odd-one"}}' in e.value.msg and what in e.value.msg
    assert e.value.where.endswith("f0.json.gz:7") and fix in e.value.hint
    assert not (tmp_path / "out" / "shop.yaml").exists() and not (tmp_path / "s.sqlite").exists()


# ---------------------------------------------------------------- incremental exports


def _incremental_history(root: Path, items: list[dict]) -> list[dict]:
    """A full export and two incrementals (written out of order on disk); the final items."""
    write_export(root, "01767225600000-full0001", [full_lines(items)])
    u0, o11 = items[0], items[5]
    newer = dict(u0, name="Zoë renamed", score=Decimal("-1"))
    added = order(9, 1)
    # the second window first on disk: the order comes from the manifests, not the folder names
    write_export(root, "01767400000000-incr0002", [[
        change(3_000_000, {"pk": added["pk"], "sk": added["sk"]}, old=added, bare_ts=True),          # delete it again
        change(2_500_000, {"pk": u0["pk"], "sk": u0["sk"]}, new=dict(newer, score=Decimal(42)), old=newer),
    ]], incremental=("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"))
    write_export(root, "01767300000000-incr0001", [[
        change(2_000_000, {"pk": u0["pk"], "sk": u0["sk"]}, new=newer, old=u0),                      # update (later)
        change(1_000_000, {"pk": u0["pk"], "sk": u0["sk"]}, new=dict(u0, name="first"), old=u0),      # (earlier)
        change(1_500_000, {"pk": o11["pk"], "sk": o11["sk"]}, old=o11, bare_ts=True),                 # delete
    ], [change(1_200_000, {"pk": added["pk"], "sk": added["sk"]}, new=added)]],                      # insert
        incremental=("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"))
    return [dict(newer, score=Decimal(42)), *[i for i in items[1:] if i is not o11]]


@pytest.mark.parametrize("run_records", [20_000, 1])          # 1: every record spilled to its own sorted run
def test_incremental_exports_apply_inserts_updates_and_deletes_in_order(tmp_path, monkeypatch, run_records):
    monkeypatch.setattr(s3_export, "RUN_RECORDS", run_records)
    final = _incremental_history(tmp_path / "exp", shop_items(3, 2))
    exports = s3_export.find_exports(tmp_path / "exp")
    assert [e.export_id for e in exports] == ["01767225600000-full0001", "01767300000000-incr0001",
                                              "01767400000000-incr0002"]
    [r] = import_data(tmp_path / "exp", "s3-export", tmp_path / "out", sqlite=tmp_path / "s.sqlite",
                      duckdb=tmp_path / "d.duckdb", progress=False)
    assert (r.inserted, r.updated, r.deleted, r.items) == (1, 3, 2, len(final))
    assert store_wire(tmp_path / "s.sqlite", "sqlite", "blue_shop") == wire_set(final)
    assert store_wire(tmp_path / "d.duckdb", "duckdb", "blue_shop") == wire_set(final)
    assert load_spec(r.spec_path).inferred["table.partition_key"].startswith("from the Keys of the incremental")


def test_an_update_of_a_key_that_was_never_put_is_a_gap_not_an_insert(tmp_path):
    items = shop_items(2, 1)
    write_export(tmp_path / "exp", "01767225600000-full0001", [full_lines(items)])
    ghost = order(7, 7)
    write_export(tmp_path / "exp", "01767300000000-incr0001", [[
        change(1_000_000, {"pk": ghost["pk"], "sk": ghost["sk"]}, new=dict(ghost, status="x"), old=ghost)]],
        incremental=("2026-01-01T00:05:00Z", "2026-01-02T00:00:00Z"))
    [r] = import_data(tmp_path / "exp", "s3-export", tmp_path / "out", progress=False)
    assert (r.inserted, r.updated, r.items) == (0, 0, len(items) + 1)
    assert any("1 updates of keys that were not there" in n and "the history has a gap" in n for n in r.notes), r.notes


def test_write_timestamps_in_both_shapes_order_records_within_an_export(tmp_path):
    write_export(tmp_path, "01767300000000-incr0001", [[
        change(20, {"pk": "A#1", "sk": "X"}, new={"pk": "A#1", "sk": "X", "v": "late"}, bare_ts=True),
        change(10, {"pk": "A#1", "sk": "X"}, new={"pk": "A#1", "sk": "X", "v": "early"})]],
        incremental=("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"))
    changes = list(s3_export.iter_changes(tmp_path, progress=False))
    assert [(c.timestamp, c.item["v"], c.kind) for c in changes] == [(10, "early", "insert"), (20, "late", "insert")]


# ---------------------------------------------------------------- bad exports


def _loaded(tmp_path) -> str:
    """A store that already holds an import, and its digest."""
    write_export(tmp_path / "good", "01767225600000-a1b2c3d4", [full_lines(shop_items(2, 1))])
    [r] = import_data(tmp_path / "good", "s3-export", tmp_path / "out", sqlite=tmp_path / "s.sqlite", progress=False)
    return digest(tmp_path / "s.sqlite", r.spec)


def test_manifest_item_count_mismatch_names_the_file_and_loads_nothing(tmp_path):
    before = _loaded(tmp_path)
    folder = write_export(tmp_path / "bad", "01767225600000-a1b2c3d4", [full_lines(shop_items(3, 1))], counts=[7])
    with pytest.raises(SourceError) as e:
        import_data(tmp_path / "bad", "s3-export", tmp_path / "out2", sqlite=tmp_path / "s.sqlite", progress=False)
    assert e.value.where == str(folder / "data" / "f0.json.gz")
    assert "holds 6 items, but manifest-files.json says itemCount 7" in e.value.msg
    assert digest(tmp_path / "s.sqlite", load_spec(tmp_path / "out" / "shop.yaml")) == before
    assert not (tmp_path / "out2").exists()                   # a failed import leaves no empty --out folder


def _drop_md5(folder: Path) -> None:
    manifest = folder / "manifest-files.json"
    entries = [json.loads(line) for line in manifest.read_text().splitlines()]
    manifest.write_text("".join(json.dumps({k: v for k, v in e.items() if k != "md5Checksum"}) + "\n"
                                for e in entries))


@pytest.mark.parametrize("damage, message, where", [
    ("edited", "f0.json.gz does not have the md5Checksum manifest-files.json gives it", "data/f0.json.gz"),
    ("unlisted", "1 data file(s) of the export are not in manifest-files.json (f2.json.gz)", "data/f2.json.gz"),
    ("summary", "manifest-summary.json says itemCount 6, but manifest-files.json lists 4 items in 2 files",
     "manifest-summary.json"),
])
def test_the_manifests_are_checked_against_the_files_before_anything_is_read(tmp_path, damage, message, where):
    before = _loaded(tmp_path)
    items = shop_items(3, 1)
    folder = write_export(tmp_path / "bad", "01767225600000-a1b2c3d4", [full_lines(items[:2]), full_lines(items[2:4]),
                                                                       full_lines(items[4:])])
    manifest = folder / "manifest-files.json"
    lines = manifest.read_text().splitlines()
    if damage == "edited":                   # one value changed, the line count kept
        _gz(folder / "data" / "f0.json.gz", [full_lines(items[:2])[0].replace("USER#u0", "USER#u9"),
                                             full_lines(items[:2])[1]])
    elif damage == "unlisted":               # the list names 2 of the 3 files, and the summary agrees with it
        manifest.write_text("\n".join(lines[:2]) + "\n")
        summary = json.loads((folder / "manifest-summary.json").read_text())
        (folder / "manifest-summary.json").write_text(json.dumps({**summary, "itemCount": 4}))
    else:
        manifest.write_text("\n".join(lines[:2]) + "\n")
        (folder / "data" / "f2.json.gz").unlink()
    with pytest.raises(SourceError) as e:
        import_data(tmp_path / "bad", "s3-export", tmp_path / "out2", sqlite=tmp_path / "s.sqlite", progress=False)
    assert message in e.value.msg and e.value.where == str(folder / where)
    assert digest(tmp_path / "s.sqlite", load_spec(tmp_path / "out" / "shop.yaml")) == before
    assert not (tmp_path / "out2" / "shop.yaml").exists()


@pytest.mark.parametrize("damage, message", [
    ("json", "invalid JSON"),
    ("number", "not a valid DynamoDB number"),
    ("gzip", "corrupt gzip data"),
])
def test_a_bad_line_names_file_and_line_and_loads_nothing(tmp_path, damage, message):
    before = _loaded(tmp_path)
    lines = full_lines(shop_items(3, 1))
    if damage == "json":
        lines[2] = lines[2][:-5]
    elif damage == "number":
        lines[2] = '{"Item":{"pk":{"S":"USER#x"},"sk":{"S":"PROFILE"},"n":{"N":"1e"}}}'
    folder = write_export(tmp_path / "bad", "01767225600000-a1b2c3d4", [lines])
    data = folder / "data" / "f0.json.gz"
    if damage == "gzip":                     # cut the stream: the lines after the cut cannot be read
        raw = data.read_bytes()
        data.write_bytes(raw[: len(raw) // 2])
        _drop_md5(folder)                    # (a manifest without checksums: the md5 would tell first)
    with pytest.raises(SourceError) as e:
        import_data(tmp_path / "bad", "s3-export", tmp_path / "out2", sqlite=tmp_path / "s.sqlite", progress=False)
    assert message in e.value.msg
    if damage == "gzip":
        assert e.value.where.startswith(f"{data}:")
    else:
        assert e.value.where.startswith(f"{data}:3")
    assert digest(tmp_path / "s.sqlite", load_spec(tmp_path / "out" / "shop.yaml")) == before


def test_a_full_export_without_keys_named_is_guessed_and_can_be_overridden(tmp_path):
    items = [{"PK": f"USER#{i}", "SK": "PROFILE", "n": Decimal(i)} for i in range(3)]
    write_export(tmp_path / "e1", "01767225600000-a1b2c3d4", [full_lines(items)], table="Shop-Prod")
    [r] = import_data(tmp_path / "e1", "s3-export", tmp_path / "o1", progress=False)
    assert (r.domain, r.spec.table.name, r.spec.table.partition_key, r.spec.table.sort_key) == \
        ("shop_prod", "Shop-Prod", "PK", "SK")
    assert r.spec.inferred["table.partition_key"].startswith("guessed: every item of the first 3 has PK and SK")
    with pytest.raises(SourceError, match="two items with the same key"):
        import_data(tmp_path / "e1", "s3-export", tmp_path / "o2", key=("SK", None), progress=False)
    [r] = import_data(tmp_path / "e1", "s3-export", tmp_path / "o3", key="PK", progress=False)
    assert (r.spec.table.partition_key, r.spec.table.sort_key) == ("PK", None)


# ---------------------------------------------------------------- Blue's SQLite files


def _blue_sqlite(path: Path, spec, data_dir: Path) -> list[dict]:
    """ADR 0018's table holding the dialogue items, ``data`` as plain JSON of the non-key attributes
    (numbers as JSON numbers; one of 38 digits)."""
    items = [i for _, i in spec_items(spec, data_dir)]
    items.append({"pk": "dlg-x", "sk": "EXPERT#zed", "role": "r", "tier": "t", "score": DIGITS_38})
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE blue_dialogue (pk TEXT NOT NULL, sk TEXT NOT NULL, data JSON NOT NULL, "
                "created_at TEXT NOT NULL, PRIMARY KEY (pk, sk))")
    con.execute("CREATE TABLE notes (x TEXT)")
    rows = []
    for i in items:
        rest = {k: v for k, v in i.items() if k not in ("pk", "sk")}
        data = json.dumps({k: (f"@{v}@" if isinstance(v, Decimal) else v) for k, v in rest.items()}, ensure_ascii=False)
        for v in rest.values():
            if isinstance(v, Decimal):
                data = data.replace(f'"@{v}@"', str(v))
        rows.append((i["pk"], i["sk"], data, "2026-01-01T00:00:00Z"))
    con.executemany("INSERT INTO blue_dialogue VALUES (?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return items


def test_blue_sqlite_plain_json_becomes_the_adr_dialogue_draft_and_rebuilds_identically(tmp_path, dialogue_spec,
                                                                                      dialogue_data):
    items = _blue_sqlite(tmp_path / "blue.sqlite", dialogue_spec, dialogue_data)
    [r] = import_data(tmp_path / "blue.sqlite", "sqlite", tmp_path / "out", sqlite=tmp_path / "s.sqlite",
                      duckdb=tmp_path / "d.duckdb", progress=False)
    assert r.domain == "dialogue" and r.items == len(items) and r.unmatched == 0
    spec = load_spec(tmp_path / "out" / "dialogue.yaml")
    assert {n: e.key for n, e in spec.entities.items()} == {
        "Expert": {"pk": "{dialogue_id}", "sk": "EXPERT#{expert}"},
        "Meta": {"pk": "{dialogue_id}", "sk": "META", "gsi1pk": "STATUS#{status}", "gsi1sk": "{created_at}"},
        "Persp": {"pk": "{dialogue_id}", "sk": "PERSP#{persp_1}#{expert}#{persp_3}"},
        "Tension": {"pk": "{dialogue_id}", "sk": "TENSION#{tension}"},
        "Tevent": {"pk": "{dialogue_id}", "sk": "TEVENT#{tension}#{tevent_2}"}}
    assert spec.entities["Expert"].attributes == {"role": "S", "tier": "S", "score": "N"}
    assert store_wire(tmp_path / "s.sqlite", "sqlite", "blue_dialogue") == wire_set(items)
    findings = validate(r.spec_path, r.rows_dir)
    assert findings.items_checked == len(items) and "KEY-SORT-ORDER" in findings.rule_ids
    load_data(r.spec_path, r.rows_dir, sqlite=tmp_path / "again.sqlite", duckdb=tmp_path / "again.duckdb",
              progress=False)
    with open_store("sqlite", tmp_path / "s.sqlite") as a, open_store("sqlite", tmp_path / "again.sqlite") as b, \
            open_store("duckdb", tmp_path / "again.duckdb") as c:
        digests = {k: v["sha256"] for k, v in compare_stores([b, c], spec).items() if k != "identical"}
        assert set(digests.values()) == {compare_stores([a], spec)["sqlite"]["sha256"]}


def test_blue_sqlite_in_wire_json_and_blue_nb_store_files_are_read_exactly(tmp_path):
    items = shop_items(2, 2)
    write_export(tmp_path / "exp", "01767225600000-a1b2c3d4", [full_lines(items)])
    import_data(tmp_path / "exp", "s3-export", tmp_path / "o1", sqlite=tmp_path / "store.sqlite", progress=False)
    [r] = import_data(tmp_path / "store.sqlite", "sqlite", tmp_path / "o2", sqlite=tmp_path / "s2.sqlite",
                      progress=False)                               # blue_nb's own store file: data in DynamoDB JSON
    assert r.domain == "shop" and any("DynamoDB JSON" in n for n in r.notes)
    assert store_wire(tmp_path / "s2.sqlite", "sqlite", "blue_shop") == wire_set(items)


def test_sqlite_without_the_table_or_with_other_columns_is_a_clear_error(tmp_path):
    path = tmp_path / "x.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE blue_bad (pk TEXT, sk TEXT, payload TEXT)")
    con.commit()
    con.close()
    with pytest.raises(SourceError) as e:
        import_data(path, "sqlite", tmp_path / "out", progress=False)
    assert e.value.where == f"{path}:blue_bad"
    assert "has columns (pk, sk, payload); it needs ADR 0018's (pk, sk, data, created_at): data, created_at missing" \
        in e.value.msg
    with pytest.raises(SourceError) as e:
        import_data(path, "sqlite", tmp_path / "out", domain="dialogue", progress=False)
    assert e.value.where == f"{path}:blue_dialogue" and "its blue_ tables: blue_bad" in e.value.msg


def test_each_blue_table_of_a_sqlite_file_is_one_spec(tmp_path):
    path = tmp_path / "two.sqlite"
    con = sqlite3.connect(path)
    for t, rows in (("blue_a", [("A#1", "X#1", '{"v": "1"}'), ("A#1", "X#2", '{"v": 2}')]),
                    ("blue_b", [("B#1", "", '{"w": [1, {"z": null}]}')])):
        con.execute(f"CREATE TABLE {t} (pk TEXT, sk TEXT, data JSON, created_at TEXT)")
        con.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, '')", rows)
    con.commit()
    con.close()
    a, b = import_data(path, "sqlite", tmp_path / "out", progress=False)
    assert (a.domain, a.spec.table.sort_key, a.per_entity, a.not_in_rows) == ("a", "sk", {"X": 1, "Other": 1}, 0)
    assert "mixed types: v: S in 1, N in 1" in a.spec.inferred["entities.X.attributes"]
    assert (a.spec.entities["X"].attributes, a.spec.entities["Other"].attributes) == ({"v": "S"}, {"v": "N"})
    assert (b.domain, b.spec.table.sort_key, b.spec.entities["B"].key) == ("b", None, {"pk": "B#{b}"})
    assert b.spec.entities["B"].attributes == {"w": "L"} and (tmp_path / "out" / "b.yaml").is_file()
    [only] = import_data(path, "sqlite", tmp_path / "out2", domain="b", progress=False)
    assert only.domain == "b"


def test_bad_json_in_a_blue_sqlite_row_names_the_row(tmp_path):
    path = tmp_path / "x.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE blue_t (pk TEXT, sk TEXT, data JSON, created_at TEXT)")
    con.executemany("INSERT INTO blue_t VALUES (?, ?, ?, ?)", [("a", "X#1", '{"n": 1}', ""),
                                                               ("a", "X#2", '{"n": 1e999}', "")])
    con.commit()
    con.close()
    with pytest.raises(SourceError) as e:
        import_data(path, "sqlite", tmp_path / "out", progress=False)
    assert e.value.where.startswith(f"{path}:blue_t pk='a' sk='X#2'") and "out of range" in e.value.msg


# ---------------------------------------------------------------- our own dialogue, round trip


def test_dialogue_sample_exported_and_imported_gives_the_adr_keys(tmp_path, dialogue_spec):
    from blue_nb.samples import generate_sample

    generate_sample("dialogue", scale=400, seed=11, out_dir=tmp_path / "rows")
    with open_store("sqlite", tmp_path / "src.sqlite") as store:
        load_data(dialogue_spec, tmp_path / "rows", stores=[store], progress=False)
        wire = [dumps_wire({"Item": w}) for w in store.iter_items("blue_dialogue", wire=True)]
    write_export(tmp_path / "exp", "01767225600000-dlg00001", [wire[::2], wire[1::2]], table="blue_dialogue")
    [r] = import_data(tmp_path / "exp", "s3-export", tmp_path / "out", progress=False)
    spec = r.spec
    assert spec.entities["Persp"].key["sk"] == "PERSP#{persp_1}#{expert}#{persp_3}"
    assert spec.entities["Tevent"].key["sk"] == "TEVENT#{tension}#{tevent_2}"
    assert spec.entities["Meta"].key == {"pk": "{dialogue_id}", "sk": "META", "gsi1pk": "STATUS#{status}",
                                         "gsi1sk": "{created_at}"}
    assert sum(r.per_entity.values()) == len(wire) and r.unmatched == 0
    assert "its values are those of Expert's key" in spec.inferred["entities.Persp.key.sk"]


def test_inference_keeps_counters_not_items():
    inf = SpecInferrer("big", KeyInfo("pk", "sk"))
    for i in range(3000):
        inf.add({"pk": f"D#{i}", "sk": f"EV#{i:06d}", "body": "x" * 50})
    part = inf.groups[("sk", "EV")].keys["sk"].parts[2][1]
    assert part.overflow and part.values == set() and part.widths == {6: 3000}
    assert inf.draft().spec().entities["Ev"].key == {"pk": "D#{d}", "sk": "EV#{ev:06d}"}


def test_one_rule_makes_a_taken_name_unique():
    """Entity, placeholder and pattern names, inferred or from a Workbench model, take the same suffix:
    the first free number, after ``_`` when the name ends in a digit (``persp_1_2``, never ``persp_12``)."""
    assert unique_name("Order", set()) == "Order"
    assert unique_name("Order", {"Order", "Order2"}) == "Order3"
    assert unique_name("persp_1", {"persp_1"}) == "persp_1_2"
    assert unique_name("query_gsi1", {"query_gsi1", "query_gsi1_2"}) == "query_gsi1_3"


def test_an_items_identity_is_its_key_attributes_dynamodb_json():
    """One key text for the raw import store and the Workbench reader: the key attributes' DynamoDB JSON
    in the table's key order; none when a key attribute is missing or empty."""
    assert canonical_key({"x": 1, "sk": Decimal("1"), "pk": "A"}, ("pk", "sk")) == '{"pk":{"S":"A"},"sk":{"N":"1"}}'
    assert canonical_key({"pk": "A", "sk": b"\x01"}, ("pk", "sk")) == '{"pk":{"S":"A"},"sk":{"B":"AQ=="}}'
    assert canonical_key({"pk": "A"}, ("pk", "sk")) is None
    assert canonical_key({"pk": ""}, ("pk",)) is None
    assert canonical_key({"pk": True}, ("pk",)) is None


# ---------------------------------------------------------------- a live table


@pytest.mark.slow
def test_live_table_import_uses_describe_table_and_scans_every_item(tmp_path, dynamo_client, dynamo_endpoint,
                                                                    dialogue_spec, dialogue_data):
    items = [i for _, i in spec_items(dialogue_spec, dialogue_data)][:600]
    dynamo_client.create_table(dialogue_spec)
    dynamo_client.write_items(dialogue_spec.table_name, items, progress=False)
    [r] = import_data("blue_dialogue", "dynamodb", tmp_path / "out", sqlite=tmp_path / "s.sqlite", domain="dialogue",
                      client=dynamo_client, segments=3, progress=False)
    assert r.items == len(items) and store_wire(tmp_path / "s.sqlite", "sqlite", r.spec.table_name) == wire_set(items)
    ix = r.spec.table.indexes["gsi1"]
    assert (ix.partition_key, ix.sort_key, ix.projection) == ("gsi1pk", "gsi1sk", ["title", "status", "created_at"])
    assert r.spec.inferred["table.indexes.gsi1"] == "from DescribeTable"
    full = dynamo_client.name("blue_dialogue")
    [r2] = import_data(full, "dynamodb", tmp_path / "out2", endpoint_url=dynamo_endpoint.url, progress=False)
    assert r2.spec.table.name == full and r2.items == len(items)


def test_a_second_import_replaces_the_first_whole_and_leaves_nothing_beside(tmp_path):
    write_export(tmp_path / "one", "01767225600000-a1b2c3d4", [full_lines(shop_items(3, 2))])
    write_export(tmp_path / "two", "01767225600000-b1b2c3d4", [full_lines(shop_items(2, 1))])
    import_data(tmp_path / "one", "s3-export", tmp_path / "out", sqlite=tmp_path / "s.sqlite", progress=False)
    (tmp_path / "out" / "shop" / "Stale.jsonl").write_text("{}\n")
    (tmp_path / "out" / "notes.txt").write_text("mine\n")
    [r] = import_data(tmp_path / "two", "s3-export", tmp_path / "out", sqlite=tmp_path / "s.sqlite", progress=False)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["notes.txt", "shop", "shop.yaml"]
    assert "Stale.jsonl" not in {p.name for p in r.rows_dir.iterdir()}          # the rows folder is the new one
    assert load_spec(r.spec_path) == r.spec and r.items == 4


def test_an_export_of_items_that_name_their_kind_gives_an_entity_per_kind_under_the_dynamodb_rules(tmp_path):
    """A design made elsewhere (issue 27): items with a ``type`` attribute are grouped by it, not by their
    key values (A1, A2 ... would each be an entity); the draft answers to DynamoDB's rules, not the ADR's."""
    items = ([{"PK": "C1", "SK": "A", "type": "customer", "name": "Ann"}]
             + [{"PK": "C1", "SK": f"A{i}", "type": "account", "balance": Decimal(i)} for i in (1, 2, 3)]
             + [{"PK": "C1", "SK": f"A{i}#2021-05-2{i}", "type": "transaction", "amount": Decimal(i)} for i in (1, 2)])
    write_export(tmp_path / "exp", "01767225600000-a1b2c3d4", [full_lines(items)], table="data")
    [r] = import_data(tmp_path / "exp", "s3-export", tmp_path / "out", key="PK,SK", sqlite=tmp_path / "s.sqlite",
                      progress=False)
    assert set(r.per_entity) == {"Customer", "Account", "Transaction"} and r.not_in_rows == 0
    spec = load_spec(r.spec_path)
    assert spec.rules == "dynamodb" and not [f for f in r.findings if f.rule.startswith("ADR")]
    assert spec.entities["Account"].description.startswith("items of the kind account")
    load_data(r.spec_path, r.rows_dir, sqlite=tmp_path / "again.sqlite", progress=False)
    assert store_wire(tmp_path / "again.sqlite", "sqlite", "data") == wire_set(items)


SEPARATED = {
    "colon": ([{"pk": f"User:User{c}", "sk": f"Room:{r}", "text": "hi"} for c in "ABC" for r in ("Art", "Music")]
              + [{"pk": f"User:User{c}", "sk": "PROFILE", "name": c} for c in "ABC"],
              {"Room": {"pk": "User:{user}", "sk": "Room:{room}"}, "Profile": {"pk": "User:{user}", "sk": "PROFILE"}}),
    "pipe": ([{"pk": f"ORDER|2024|{n}", "sk": f"LINE|{m}", "qty": Decimal(m)} for n in (17, 18) for m in (1, 2, 3)],
             {"Line": {"pk": "ORDER|{order_1}|{order_2}", "sk": "LINE|{qty}"}}),
    "slash": ([{"pk": f"a/b{n}/c{m}", "sk": "v/1", "body": "x"} for n in (1, 2) for m in (1, 2, 3)],
              {"V": {"pk": "a/{a_1}/{a_2}", "sk": "v/{v}"}}),
    "underscore": ([{"pk": f"cust_{n}", "sk": f"order_{m}", "total": Decimal(m)} for n in (12, 13) for m in (1, 2)],
                   {"Order": {"pk": "cust_{cust}", "sk": "order_{total}"}}),
    "mixed": ([{"pk": f"User:User{c}", "sk": "2024-01-0" + str(i), "x": "1"} for i, c in enumerate("ABC", 1)]
              + [{"pk": f"ORDER|2024|{n}", "sk": "2024-02-01", "y": "2"} for n in (17, 18, 19)]
              + [{"pk": f"a#b{n}", "sk": "2024-03-01", "z": "3"} for n in (1, 2)],
              {"User": {"pk": "User:{user}", "sk": "{sk}"}, "Order": {"pk": "ORDER|{order_1}|{order_2}", "sk": "{sk}"},
               "A": {"pk": "a#{a}", "sk": "{sk}"}}),
}


@pytest.mark.parametrize("case", list(SEPARATED))
def test_keys_split_at_the_separator_their_values_use_as_the_workbench_import_does(tmp_path, case):
    """Issue 27: ``User:UserA``, ``ORDER|2024|17``, ``a/b/c``, ``cust_12`` and a mix of them in one attribute are
    split where their parts part (infer_shapes.key_separator, shared with the Workbench import), each choice
    explained in the draft; the rows rebuild every item."""
    items, keys = SEPARATED[case]
    write_export(tmp_path / "exp", "01767225600000-a1b2c3d4", [full_lines(items)], table=case)
    [r] = import_data(tmp_path / "exp", "s3-export", tmp_path / "out", key="pk,sk", sqlite=tmp_path / "s.sqlite",
                      progress=False)
    spec = load_spec(r.spec_path)
    assert {e: spec.entities[e].key for e in keys} == keys and (r.unmatched, r.not_in_rows) == (0, 0)
    for entity, key in keys.items():
        for attr, template in key.items():
            sep = next((c for c in ":|/_" if c in template), None)
            note = spec.inferred[f"entities.{entity}.key.{attr}"]
            assert (f"parts are separated by {sep!r}, not '#'" in note) == (sep is not None), note
    load_data(r.spec_path, r.rows_dir, sqlite=tmp_path / "again.sqlite", progress=False)
    assert store_wire(tmp_path / "again.sqlite", "sqlite", case) == wire_set(items)
