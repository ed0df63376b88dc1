"""A CSV file built column by column into the rows a load stages (sources.csv_stage) gives the rows the item
way gives (ItemBuilder, then TableLayout.rows), byte for byte, and the same located errors."""

from __future__ import annotations

import pytest

from blue_nb.app.workflows import located_items, staged_items
from blue_nb.errors import SourceError
from blue_nb.patterns import TableLayout
from blue_nb.patterns.staged import StagedRows
from blue_nb.sources import generate_sample
from blue_nb.sources.csv_stage import csv_staged_rows
from blue_nb.spec import load_spec, loads_spec

CREATED = "2026-12-04T00:00:00Z"

SPEC_TEXT = """
spec_version: 1
domain: shop
table:
  partition_key: pk
  sort_key: sk
  indexes:
    by_tag: {type: global, partition_key: gpk, sort_key: gsk}
    by_city: {type: global, partition_key: city}
entities:
  Order:
    source: orders
    key: {pk: "SHOP#{shop}", sk: "ORDER#{order_id}", gpk: "TAG#{tag}", gsk: "{day}"}
    attributes: {total: N, note: S, city: S, created_at: S, qty: N}
"""
SPEC = loads_spec(SPEC_TEXT)
HEADER = "shop,order_id,tag,day,total,note,city,created_at,qty,unused\n"


def _rows(spec, layout, parts) -> StagedRows:
    """Everything a load gets, as staged rows (tuples built the way the loader builds them)."""
    out = StagedRows()
    for x in parts:
        out.extend(x if isinstance(x, StagedRows) else StagedRows.of_items(layout, [x], CREATED))
    return out


def _item_way(spec, data) -> StagedRows:
    return StagedRows.of_items(TableLayout.of(spec), list(located_items(spec, data)), CREATED)


@pytest.mark.parametrize("domain,scale", [("dialogue", 3000), ("document", 400)])
def test_the_samples_stage_the_rows_their_items_make(tmp_path, root, domain, scale):
    generate_sample(domain, scale=scale, seed=3, out_dir=tmp_path)
    spec = load_spec(root / "data" / "specs" / f"{domain}.yaml")
    parts = list(staged_items(spec, tmp_path, CREATED))
    assert any(isinstance(x, StagedRows) for x in parts)              # the column way was taken
    got, want = _rows(spec, TableLayout.of(spec), parts), _item_way(spec, tmp_path)
    assert len(got) == len(want) > 0
    assert (got.main, got.cat, got.entities, got.wheres) == (want.main, want.cat, want.entities, want.wheres)


def _write(tmp_path, body: str):
    (tmp_path / "orders.csv").write_text(HEADER + body, encoding="utf-8")


ODD = (  # sparse index values, numbers written oddly, empty and quoted strings, Unicode, a created_at of its own
    's1,1,red,2026-01-01,007,"say ""hi"", then\nleave",Oslo,2026-01-01T00:00:00Z,1.50,x\n'
    "s1,2,,2026-01-02,-0,,Tromsø 東京 😀,,,x\n"
    "s2,3,blue,,1E+3,plain,,2026-02-02,0.000,x\n"
    "\n"
    "s2,4,green,2026-01-04,12345678901234567890123456789012345678,\\back\\slash\t,Bergen,,-12.5e-3,x\n"
)


@pytest.mark.parametrize("chunk", [1, 2, 5000])
def test_odd_values_stage_as_their_items_do(tmp_path, chunk):
    _write(tmp_path, ODD)
    layout = TableLayout.of(SPEC)
    parts = list(csv_staged_rows(SPEC, SPEC.entities["Order"], tmp_path / "orders.csv", CREATED, chunk=chunk))
    got, want = _rows(SPEC, layout, parts), _item_way(SPEC, tmp_path)
    assert (got.main, got.cat, got.wheres) == (want.main, want.cat, want.wheres)
    assert all(isinstance(x, StagedRows) for x in parts)
    assert [m[3] for m in got.main] == ["2026-01-01T00:00:00Z", "", "2026-02-02", ""]     # its own created_at
    assert [c[4:] for c in got.cat][1:3] == [(None, None, "Tromsø 東京 😀", None), (None, None, "", None)]


@pytest.mark.parametrize("bad,fault", [
    ("s3,,red,2026-01-05,1,n,Oslo,,1,x\n", "needs order_id, which is empty"),   # a table key without a value
    ("s3,5,red,2026-01-05,12abc,n,Oslo,,1,x\n", "total"),                       # not a number
    ("s3,5,red,2026-01-05,1E+200,n,Oslo,,1,x\n", "total"),                      # out of DynamoDB's range
])
@pytest.mark.parametrize("chunk", [2, 5000])
def test_a_bad_row_is_refused_as_the_item_way_refuses_it(tmp_path, bad, fault, chunk):
    _write(tmp_path, ODD + bad)
    with pytest.raises(SourceError) as want:
        list(located_items(SPEC, tmp_path))
    with pytest.raises(SourceError) as got:
        list(csv_staged_rows(SPEC, SPEC.entities["Order"], tmp_path / "orders.csv", CREATED, chunk=chunk))
    assert (got.value.msg, got.value.where, got.value.hint) == (want.value.msg, want.value.where, want.value.hint)
    assert got.value.where.startswith(f"{tmp_path / 'orders.csv'}:8 ") and fault in got.value.msg + got.value.where


@pytest.mark.parametrize("body,fault", [("", "holds no rows"), ("\n\n", "holds no rows")])
def test_a_file_without_rows_is_refused_as_the_item_way_refuses_it(tmp_path, body, fault):
    _write(tmp_path, body)
    with pytest.raises(SourceError, match=fault) as got:
        list(csv_staged_rows(SPEC, SPEC.entities["Order"], tmp_path / "orders.csv", CREATED))
    assert got.value.where.endswith("orders.csv")


def test_an_entity_the_columns_do_not_cover_takes_the_item_way(tmp_path):
    spec = loads_spec(SPEC_TEXT.replace("qty: N", "qty: BOOL"))          # BOOL: not a column-way type
    (tmp_path / "orders.csv").write_text(HEADER + "s1,1,red,d,1,n,Oslo,,true,x\n", encoding="utf-8")
    parts = list(csv_staged_rows(spec, spec.entities["Order"], tmp_path / "orders.csv", CREATED))
    assert parts and all(isinstance(x, tuple) for x in parts) and parts[0][1]["qty"] is True
