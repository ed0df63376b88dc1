"""Notebook displays: a spec, a load's results, size tables and item tables show compactly and truthfully."""

from decimal import Decimal
from pathlib import Path

from blue_nb.app.display import DisplayTable, StoreComparison
from blue_nb.app.frames import item_table, size_stats_frame
from blue_nb.app.workflows import compare_stores, load_data, sample_items
from blue_nb.printing import compact, number
from blue_nb.spec import load_spec, loads_spec
from blue_nb.stores import LoadResults, load_items, open_store

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "data" / "examples" / "library"
SPEC = loads_spec("""
spec_version: 1
domain: kit
table:
  partition_key: pk
  sort_key: sk
  indexes: {gsi1: {type: global, partition_key: gsi1pk, sort_key: gsi1sk, projection: [title]}}
entities:
  Doc:
    key: {pk: "R#{realm}", sk: "DOC#{n}", gsi1pk: "T#{title}", gsi1sk: "{n}"}
    attributes: {title: S}
    writer: docs-service
access_patterns:
  - {name: get_doc, operation: get_item, entities: [Doc], key_condition: {pk: "R#{realm}", sk: "DOC#{n}"}}
  - {name: by_title, operation: query, index: gsi1, entities: [Doc], key_condition: {pk: "T#{title}"},
     rate_per_second: 5}
""")


def test_a_spec_shows_its_keys_entities_and_patterns_in_a_few_lines():
    text = repr(SPEC)
    assert text.splitlines() == [
        "Spec kit: table blue_kit, key pk (S) + sk (S), PAY_PER_REQUEST; 1 index, 1 entity, 2 access patterns",
        "  index gsi1 (global): gsi1pk + gsi1sk, projection title",
        "  entity  Doc  pk=R#{realm}  sk=DOC#{n}  gsi1pk=T#{title}  gsi1sk={n}",
        '  pattern get_doc   get_item: pk = "R#{realm}" AND sk = "DOC#{n}"',
        '  pattern by_title  query on gsi1: gsi1pk = "T#{title}"  5/s',
    ]
    html = SPEC._repr_html_()
    for cell in (">R#{realm}<", ">DOC#{n}<", ">title:S<", ">docs-service<", ">gsi1pk = &quot;T#{title}&quot;<", ">5/s<"):
        assert cell in html
    assert "Entity(" not in html and "KeyTemplate" not in text


def test_numbers_are_rounded_and_values_compact():
    assert [number(860.308153, trim=True), number(3255674, trim=True), number(2.0, trim=True),
            number(-3.0, signed=True, trim=True), number(0, signed=True, trim=True)] == ["860.31", "3,255,674", "2", "-3", "0"]
    assert compact(b"\x89PNG\r\n\x1a\n" * 200) == "<png 1.56 KB>" and compact(b"\xff\xd8\xff" + bytes(12)) == "<jpeg 15 B>"
    assert compact(b"\x89PNG" * 400) == "<binary 1.56 KB>"                          # a kind by its whole signature only
    assert compact({"title": "x", "n": Decimal(3), "tags": {"b", "a"}, "raw": b"\x00", "none": None}, 80) == \
        '{title: "x", n: 3, tags: {"a", "b"}, raw: <binary 1 B>, none: null}'
    assert compact(["x" * 100]) == '["' + "x" * 45 + "…"
    assert compact(Decimal("516.37500000000000000000000000000000001")) == "516.37500000000000000000000000000000001"
    assert compact(float("nan")) == "" and compact(True) == "true"


def test_a_table_keeps_its_values_and_aligns_its_html():
    t = DisplayTable([{"pk": "7", "size": 3255674, "rate": 860.308153, "doc": {"a": [1, 2]}}], left=["pk"])
    assert t.loc[0, "rate"] == 860.308153 and t.loc[0, "doc"] == {"a": [1, 2]}      # the values stay real
    html = t._repr_html_()
    assert "text-align:left;white-space:nowrap'>7<" in html                       # a key: left, though numeric
    assert "text-align:right;white-space:nowrap'>3,255,674<" in html
    assert ">860.31<" in html and ">{a: [1, 2]}<" in html and "860.308" not in html
    assert "860.31" in repr(t) and "3,255,674" in repr(t)
    assert type(t.head(1)) is not DisplayTable                                             # derived frames are plain


def test_item_tables_put_the_keys_then_the_costs_first():
    items = [{"title": "t", "pk": "R#1", "gsi1sk": "1", "sk": "DOC#1", "blob": b"\x00" * 1500}]
    t = item_table(items, ["pk", "sk", "gsi1pk", "gsi1sk"])
    assert list(t.columns) == ["pk", "sk", "gsi1sk", "_size", "_rcu", "_wcu", "title", "blob"]
    assert t.loc[0, "_size"] == 2 + 3 + 2 + 5 + 6 + 1 + 5 + 1 + 4 + 1500 and t.loc[0, "_wcu"] == 2
    assert "&lt;binary 1.46 KB&gt;" in t._repr_html_()


def test_the_library_books_show_keys_first_and_binary_as_its_size():
    spec = load_spec(LIBRARY / "library.yaml")
    stores = [open_store("sqlite"), open_store("duckdb")]
    load_data(spec, LIBRARY, stores=stores, progress=False)
    books = sample_items(stores[1], spec, "Book")
    assert list(books.columns[:5]) == ["pk", "sk", "_size", "_rcu", "_wcu"]
    assert books.loc[0, "cover"].startswith(b"\xff\xd8")                          # the frame holds the bytes
    html = books._repr_html_()
    assert "&lt;jpeg 13 B&gt;" in html and "&lt;png 13 B&gt;" in html and "\\x" not in html
    assert "{&lt;binary 3 B&gt;, &lt;binary 3 B&gt;}" in html                            # a binary set: each member's size and "{pages: 417, language: &quot;es&quot;" in html
    proof = compare_stores(stores, spec)
    assert isinstance(proof, StoreComparison) and proof["identical"] is True
    assert eval(repr(proof)) == proof                                               # still a plain dict's repr
    assert "<b>identical</b>" in proof._repr_html_() and ">13<" in proof._repr_html_()


def test_a_second_load_says_it_replaced_the_items_that_were_there():
    s = open_store("sqlite")
    rows = [("Doc", {"pk": "R#1", "sk": f"DOC#{n}", "title": "t"}) for n in range(3)]
    first = load_items([s], SPEC, rows, progress=False)
    assert isinstance(first, LoadResults) and first[0].replaced == 0
    assert "replace: the table was empty" in repr(first)
    again = load_items([s], SPEC, rows[:2], progress=False)
    r = again[0]
    assert (r.mode, r.store, r.items_before, r.items_written, r.items_after, r.replaced) == \
        ("replace", "sqlite", 3, 2, 2, 3)
    assert "the 3 items that were in the table were replaced" in str(r)
    html = again._repr_html_()
    assert "<b>Loaded blue_kit</b>" in html and ">SQLite<" in html and "replaced=0" not in repr(again)
    up = load_items([s], SPEC, [*rows[1:], ("Doc", {"pk": "R#1", "sk": "DOC#9", "title": "t"})], mode="upsert",
                    progress=False)[0]
    assert (up.items_before, up.items_written, up.items_after, up.replaced) == (2, 3, 4, 1)
    assert "upsert: 1 written over an item with the same key, 2 new, 1 other items kept" in str(up)


def test_size_stats_show_as_a_table_largest_entity_first():
    t = size_stats_frame({"A": {"count": 2, "p50": 10, "p95": 12, "max": 12, "bytes": 22},
                          "B": {"count": 1, "p50": 5000, "p95": 5000, "max": 5000, "bytes": 5000}})
    assert t["entity"].tolist() == ["B", "A"] and t.loc[0, "p95_bytes"] == 5000
    assert ">5,000<" in t._repr_html_()


def test_the_spec_table_shows_the_writer_and_keys_before_the_long_attributes():
    """ADR 0018's writer column comes right after the entity; the long attributes column is last, where a
    narrow notebook cuts it."""
    from blue_nb.app.frames import spec_frame

    spec = load_spec(Path(__file__).resolve().parents[1] / "data/specs/dialogue.yaml")
    frame = spec_frame(spec)
    assert list(frame.columns) == ["entity", "writer", "source", "pk", "sk", "index keys", "attributes"]
    assert frame["writer"].tolist() == [e.writer for e in spec.entities.values()]


def test_a_wide_table_wraps_its_long_text_and_never_its_keys():
    """Every column of a wide table stays in view: a long text cell wraps (keys and numbers stay on one line)."""
    t = DisplayTable([{"pk": "BRANCH#central-" + "x" * 20, "n": 3, "title": "Cien años de soledad " * 3, "tag": "short"}],
                     left=["pk"])
    html = t._repr_html_()
    assert "white-space:normal;overflow-wrap:anywhere" in html and html.count("white-space:normal") == 1   # title only
    assert "text-align:left;white-space:nowrap'>BRANCH#central-" in html and "text-align:right;white-space:nowrap'>3<" in html
