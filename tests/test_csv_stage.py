"""A CSV file built column by column into the rows a load stages (sources.csv_stage) gives the rows the item
way gives (the oracle, tests/csv_oracle.py: ItemBuilder, then TableLayout.rows), byte for byte, and the same
located errors."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from blue_nb.app.workflows import located_items, staged_items
from blue_nb.errors import SourceError
from blue_nb.items.values import number_text, validate_number
from blue_nb.layout import TableLayout
from blue_nb.layout import StagedRows
from blue_nb.samples import generate_sample
from blue_nb.sources import csv_stage
from blue_nb.sources.csv_stage import arrow_batches, column_batches, csv_staged_rows
from blue_nb.sources.files import csv_records
from blue_nb.spec import load_spec, loads_spec

from .csv_oracle import item_way_rows, staged

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


@pytest.mark.parametrize("domain,spec_name,scale", [("dialogue", "dialogue", 3000), ("document", "document", 400),
                                                    ("dialogue", "dialogue_v2", 3000)])     # v2: format specs
def test_the_samples_stage_the_rows_their_items_make(tmp_path, root, domain, spec_name, scale):
    generate_sample(domain, scale=scale, seed=3, out_dir=tmp_path)
    spec = load_spec(root / "data" / "specs" / f"{spec_name}.yaml")
    parts = list(staged_items(spec, tmp_path, CREATED))
    assert any(isinstance(x, StagedRows) for x in parts)              # the column way was taken
    if domain == "dialogue":                                          # all CSV: every row the column way
        assert all(isinstance(x, StagedRows) for x in parts)
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


@pytest.mark.parametrize("reader", ["csv module", "pyarrow"])     # a blank line: pyarrow's reader is not used
@pytest.mark.parametrize("chunk", [1, 2, 5000])
def test_odd_values_stage_as_their_items_do(tmp_path, chunk, reader):
    _write(tmp_path, ODD if reader == "csv module" else ODD.replace("\n\n", "\n"))
    assert (arrow_batches(tmp_path / "orders.csv", HEADER.strip().split(",")) is None) == (reader == "csv module")
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


def test_a_declared_attribute_the_header_lacks_is_the_item_ways_error(tmp_path):
    spec = loads_spec(SPEC_TEXT.replace("qty: N}", "qty: N, gone: S}"))
    (tmp_path / "orders.csv").write_text(HEADER + "s1,1,red,7,1,n,Oslo,,2,x\n", encoding="utf-8")
    with pytest.raises(SourceError, match="'gone' declared for Order but not a column of the file"):
        list(csv_staged_rows(spec, spec.entities["Order"], tmp_path / "orders.csv", CREATED))


@pytest.mark.parametrize("change,refused", [
    (('gsk: "{day}"', 'gsk: "{nowhere}"'), False),                 # an index key the file has no column for: none
    (('sk: "ORDER#{order_id}"', 'sk: "ORDER#{nowhere}"'), True),   # a table key: the first row's error
    (("partition_key: city}", "partition_key: qty, partition_key_type: N}"), False),   # an index on a number
])
def test_keys_the_header_lacks_and_number_attribute_indexes_stage_as_their_items_do(tmp_path, change, refused):
    spec = loads_spec(SPEC_TEXT.replace(*change))
    path = tmp_path / "orders.csv"
    path.write_text(HEADER + "s1,1,red,7,1,n,Oslo,,2.50,x\ns1,2,red,7,1,n,Oslo,,,x\n", encoding="utf-8")
    entity = spec.entities["Order"]
    got = _outcome(lambda: staged(list(csv_staged_rows(spec, entity, path, CREATED)), spec, CREATED))
    assert got == _outcome(lambda: item_way_rows(spec, entity, path, CREATED))
    assert (got[0] == "error") == refused
    if not refused:
        assert all(isinstance(x, StagedRows) for x in csv_staged_rows(spec, entity, path, CREATED))


FORMATTED = ('key: {pk: "SHOP#{shop:>4}", sk: "ORDER#{order_id:05d}#{day}", gpk: "TAG#{tag:.1s}", '
             'gsk: "{total:08.2f}"}')


@pytest.mark.parametrize("bad", ["", "s3,x,red,d,1,n,Oslo,,1,x\n", "s3,7,red,d,1x,n,Oslo,,1,x\n",
                                 "s3,,red,d,1,n,Oslo,,1,x\n"])
@pytest.mark.parametrize("chunk", [1, 5000])
def test_templates_with_format_specs_stage_as_their_items_do(tmp_path, bad, chunk):
    spec = loads_spec(SPEC_TEXT.replace('key: {pk: "SHOP#{shop}", sk: "ORDER#{order_id}", gpk: "TAG#{tag}", '
                                        'gsk: "{day}"}', FORMATTED))
    path = tmp_path / "orders.csv"
    path.write_text(HEADER + "s1,1,red,d,1,n,Oslo,,2,x\ns22222,02,,d,-3.14159,n,,,,x\nsé,3,é😀,e,,n,,,,x\n" + bad,
                    encoding="utf-8")
    entity = spec.entities["Order"]
    got = _outcome(lambda: staged(list(csv_staged_rows(spec, entity, path, CREATED, chunk=chunk)), spec, CREATED))
    assert got == _outcome(lambda: item_way_rows(spec, entity, path, CREATED))
    if not bad:
        assert all(isinstance(x, StagedRows) for x in csv_staged_rows(spec, entity, path, CREATED, chunk=chunk))
        assert [m[:2] for m in got[0]] == [("SHOP#  s1", "ORDER#00001#d"), ("SHOP#s22222", "ORDER#00002#d"),
                                           ("SHOP#  sé", "ORDER#00003#e")]
        assert [c[4:6] for c in got[1]] == [("TAG#r", "00001.00"), (None, None), (None, None)]   # both keys or none
    else:
        assert got[0] == "error"


# ---------------------------------------------------------------- every attribute type, against the oracle

TYPES_SPEC_TEXT = (SPEC_TEXT.replace("qty: N}", "qty: N, ok: BOOL, gone: \"NULL\", raw: B, tags: SS, nums: NS, "
                                                     "blobs: BS, parts: L, meta: M}"))
TYPES_SPEC = loads_spec(TYPES_SPEC_TEXT)
TYPES_FORMATTED = loads_spec(TYPES_SPEC_TEXT.replace(
    'key: {pk: "SHOP#{shop}", sk: "ORDER#{order_id}", gpk: "TAG#{tag}", gsk: "{day}"}',
    'key: {pk: "SHOP#{shop:>4}", sk: "ORDER#{order_id:05d}", gpk: "TAG#{tag:.1s}", gsk: "{total:08.2f}"}'))
TYPES_KEYED = loads_spec(TYPES_SPEC_TEXT.replace("  sort_key: sk\n", "  sort_key: sk\n  sort_key_type: N\n").replace(
    "partition_key: gpk, sort_key: gsk}", "partition_key: gpk, sort_key: gsk, partition_key_type: B, sort_key_type: N}"
).replace('key: {pk: "SHOP#{shop}", sk: "ORDER#{order_id}", gpk: "TAG#{tag}", gsk: "{day}"}',
          'key: {pk: "SHOP#{shop}", sk: "{order_id:05d}", gpk: "TAG#{tag:.1s}", gsk: "{total}"}'))
TYPES_HEADER = ["shop", "order_id", "tag", "day", "total", "note", "city", "created_at", "qty", "ok", "gone", "raw",
                "tags", "nums", "blobs", "parts", "meta"]
TYPE_CELLS = {   # per column: (cells its type takes, cells the item rules refuse)
    "ok": (["true", "False", "1", "no", "", " yes "], ["maybe"]),
    "gone": (["true", "null", "", "1"], ["false"]),
    "raw": (["aGk=", "", "AA==", "QR=="], ["not base64"]),
    "tags": (['["a","b"]', "solo", "", '["é","😀"]'], ['["a","a"]', "[]", "[1]"]),
    "nums": (["[1, 2.50]", '["3"]', "", "[-0.001]", "7"], ["[1, 1.0]", "[1E+200]"]),
    "blobs": (['["aGk=","AA=="]', "", "aGk="], ['["x"]']),
    "parts": (['[1, "a", null, true, [], {"k": 2.5}]', "", "[]", '["😀"]'], ["{}", "[1"]),
    "meta": (['{"a": {"b": [1]}, "c": null}', "", "{}"], ["[]", '{"a": 1, "a": 2}', '{"n": 1e400}']),
    "total": (["1", "007", "-1.50", ""], ["12abc"]),
    "order_id": ([str(i) for i in range(9)], ["", "x"]),
    "tag": (["t", "", "é😀"], []),
    "day": (["d", ""], []),
    "shop": (["s1", "é", "s12345"], []),
}


def _types_rows(draw_cells) -> str:
    lines = [",".join(TYPES_HEADER)]
    for n, cells in enumerate(draw_cells):
        row = {"shop": "s1", "order_id": str(n), "tag": "t", "day": "d", "total": "1", "note": "x", "city": "c",
               "created_at": "", "qty": "2", **cells}
        lines.append(",".join('"' + row[c].replace('"', '""') + '"' for c in TYPES_HEADER))
    return "\n".join(lines) + "\n"


def _outcome(fn):
    try:
        got = fn()
    except SourceError as e:
        return ("error", e.msg, e.where, e.hint)
    return (got.main, got.cat, got.entities, got.wheres)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.booleans().flatmap(lambda clean: st.lists(st.fixed_dictionaries(
           {c: st.sampled_from(ok if clean else ok + bad) for c, (ok, bad) in TYPE_CELLS.items()}), min_size=1,
           max_size=6)),
       chunk=st.sampled_from([1, 2, 5000]), spec=st.sampled_from([TYPES_SPEC, TYPES_FORMATTED, TYPES_KEYED]))
def test_every_attribute_type_stages_as_its_items_do(tmp_path, rows, chunk, spec):
    path = tmp_path / "orders.csv"
    path.write_text(_types_rows(rows), encoding="utf-8")
    entity = spec.entities["Order"]
    got = _outcome(lambda: staged(list(csv_staged_rows(spec, entity, path, CREATED, chunk=chunk)), spec, CREATED))
    assert got == _outcome(lambda: item_way_rows(spec, entity, path, CREATED))
    event("refused" if got[0] == "error" else "staged")
    parts = [] if got[0] == "error" else list(csv_staged_rows(spec, entity, path, CREATED, chunk=chunk))
    assert all(isinstance(x, StagedRows) for x in parts)                          # the column way, every row


# ---------------------------------------------------------------- pyarrow's reader: the csv module's records, or none

def _both(path):
    """(the csv module's records after the header, pyarrow's records or None)."""
    records = csv_records(path)
    header = next(records)[1]
    want = [(line, tuple(row)) for line, row in records]
    got = arrow_batches(path, header, chunk=3)
    return want, None if got is None else [r for b in got for r in b.records()]


READ_ALIKE = {
    "plain": "a,b\nx,y\nz,w\n",
    "no final line break": "a,b\nx,y\nz,w",
    "CRLF": "a,b\r\nx,y\r\nz,w\r\n",
    "quoted breaks": 'a,b\n"x\ny\n\nz",1\n2,"say ""hi"",\r\nthen"\n3,""\n',
    "Unicode": "a,b\nTromsø,東京 😀\n\"é,\",ü\n",
    "one column": "a\nx\n\"\"\ny\n",
    "literal backslashes": "a,b\n\\u001f,\\\\n\n",
}


@pytest.mark.parametrize("body", READ_ALIKE.values(), ids=READ_ALIKE)
def test_pyarrow_reads_a_plain_file_as_the_csv_module_does(tmp_path, body):
    path = tmp_path / "t.csv"
    path.write_bytes(body.encode("utf-8"))
    want, got = _both(path)
    assert got is not None and got == want


NOT_ALIKE = {   # pyarrow would read these otherwise (or not at all): the csv module reads them
    "blank line": "a,b\nx,y\n\nz,w\n",
    "blank line at the end": "a,b\nx,y\n\n",
    "text after a closing quote": 'a,b\n"x"y,z\n',
    "space after a closing quote": 'a,b\n"x" ,z\n',
    "quote inside a plain cell": 'a,b\nx"y,z\n',
    "empty quotes then text": 'a,b\n""x,z\n',
    "NUL": "a,b\nx\x00,y\n",
    "lone CR": "a,b\nx,y\rz,w\n",
    "CR at the end": "a,b\nx,y\r",
    "quote left open": 'a,b\n"x,y\nz,w\n',
    "too many fields": "a,b\nx,y,z\n",
    "too few fields": "a,b\nx\n",
    "not UTF-8": b"a,b\nx,\xff\n",
    "BOM before a quoted header": '\ufeff"a",b\nx,y\n',
}


@pytest.mark.parametrize("body", NOT_ALIKE.values(), ids=NOT_ALIKE)
def test_pyarrow_leaves_a_file_it_may_read_otherwise_to_the_csv_module(tmp_path, body):
    path = tmp_path / "t.csv"
    path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    try:
        _both(path)[0]
    except SourceError:
        pass                                     # the csv module refuses it, and names where
    assert arrow_batches(path, ["a", "b"]) is None


def test_a_record_longer_than_pyarrows_block_goes_to_the_csv_module(tmp_path, monkeypatch):
    monkeypatch.setattr(csv_stage, "_ARROW_BLOCK", 64)
    path = tmp_path / "t.csv"
    path.write_text("a,b\nx,y\n" + f'"{"long " * 40}",z\n', encoding="utf-8")
    assert arrow_batches(path, ["a", "b"]) is None
    monkeypatch.setattr(csv_stage, "_ARROW_BLOCK", 1 << 20)
    assert _both(path)[1] == _both(path)[0]


def test_the_first_pass_checks_quotes_across_its_blocks(tmp_path, monkeypatch):
    """A quote at the end of one scanned block and its neighbour at the start of the next."""
    body = 'a,b\n"x""y",z\n"p",""\n"q\n""",r\n'
    for block in range(1, len(body) + 2):
        monkeypatch.setattr(csv_stage, "_SCAN_BLOCK", block)
        path = tmp_path / "t.csv"
        path.write_text(body, encoding="utf-8")
        assert _both(path)[1] == _both(path)[0] != []
        path.write_text(body.replace('"p"', '"p"!'), encoding="utf-8")
        assert arrow_batches(path, ["a", "b"]) is None, block


_CHARS = list('ab,"\n\r é\x00')
CELLS = st.one_of(                                                      # mostly well-formed, now and then not
    st.text(alphabet=st.sampled_from(list("ab é")), max_size=4),                               # plain
    st.text(alphabet=st.sampled_from(_CHARS), max_size=5).map(lambda t: '"' + t.replace('"', '""') + '"'),
    st.text(alphabet=st.sampled_from(_CHARS), max_size=5))                                    # anything
ROWS = st.lists(st.tuples(CELLS, CELLS, st.sampled_from(["\n", "\r\n", "\n\n"])), min_size=1, max_size=5)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, last=st.booleans())
def test_pyarrow_never_reads_a_file_otherwise_than_the_csv_module(tmp_path, rows, last):
    text = "a,b\n" + "".join(f"{x},{y}{end}" for x, y, end in rows)
    path = tmp_path / "t.csv"
    path.write_bytes((text if last else text.rstrip("\r\n")).encode("utf-8"))
    try:
        want = _both(path)[0]
    except SourceError:
        want = None
    records = csv_records(path)
    got = arrow_batches(path, next(records)[1], chunk=2)
    if got is not None:
        assert [r for b in got for r in b.records()] == want


def test_a_chunk_sized_from_python_lists_is_sized_as_from_arrow(tmp_path):
    """The csv module's chunks (Python lists) and pyarrow's (Arrow arrays) give the same sizes."""
    path = tmp_path / "orders.csv"
    path.write_text(HEADER + ODD.replace("\n\n", "\n"), encoding="utf-8")
    plan, batches = column_batches(SPEC, SPEC.entities["Order"], path)
    fast = list(batches)
    assert all(b.arrays is not None for b in fast)
    slow = [csv_stage.Batch(b.lines, cols=[b.col(i) for i in range(len(b.arrays))]) for b in fast]
    assert [plan.sizes(b).tolist() for b in slow] == [plan.sizes(b).tolist() for b in fast]
    assert sum(len(b) for b in fast) == 4


@settings(max_examples=500, deadline=None)
@given(text=st.from_regex(csv_stage._CANONICAL, fullmatch=True).filter(lambda t: len(t) < 38))
def test_a_number_text_taken_as_it_is_is_the_canonical_text(text):
    assert number_text(validate_number(text)) == text


@pytest.mark.parametrize("spec", [TYPES_SPEC, TYPES_FORMATTED, TYPES_KEYED], ids=["plain", "formatted", "keyed"])
def test_each_refused_cell_alone_is_refused_as_the_item_way_refuses_it(tmp_path, spec):
    entity, clean = spec.entities["Order"], {c: ok[0] for c, (ok, bad) in TYPE_CELLS.items()}
    for column, (_, bad) in TYPE_CELLS.items():
        for cell in bad:
            path = tmp_path / "orders.csv"
            path.write_text(_types_rows([clean, {**clean, "order_id": "5", column: cell}]), encoding="utf-8")
            got = _outcome(lambda: staged(list(csv_staged_rows(spec, entity, path, CREATED)), spec, CREATED))
            assert got == _outcome(lambda: item_way_rows(spec, entity, path, CREATED)), (column, cell)


def test_valid_cells_of_every_type_take_the_column_way(tmp_path):
    valid = {"ok": ["true", "no", ""], "gone": ["null", ""], "raw": ["aGk=", "QR==", ""], "tags": ['["é","😀"]', "solo"],
             "nums": ["[1, 2.50]", "[-0.001]"], "blobs": ['["aGk=","AA=="]', "aGk="], "parts": ['[1, "a", null, {}]', "[]"],
             "meta": ['{"a": {"b": [1]}, "c": null}', "{}"], "total": ["007", ""], "order_id": ["1", "2", "3"]}
    rows = [{c: v[n % len(v)] for c, v in valid.items()} for n in range(3)]
    path = tmp_path / "orders.csv"
    path.write_text(_types_rows(rows), encoding="utf-8")
    entity = TYPES_SPEC.entities["Order"]
    parts = list(csv_staged_rows(TYPES_SPEC, entity, path, CREATED, chunk=2))
    assert len(parts) == 2 and all(isinstance(x, StagedRows) for x in parts)
    got, want = staged(parts, TYPES_SPEC, CREATED), item_way_rows(TYPES_SPEC, entity, path, CREATED)
    assert (got.main, got.cat, got.wheres) == (want.main, want.cat, want.wheres)
    assert '"raw":{"B":"QQ=="}' in got.main[1][2] and '"ok":{"BOOL":false}' in got.main[1][2]
