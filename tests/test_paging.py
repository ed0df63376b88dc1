"""DynamoDB's exact paging: a page ends at ``Limit`` items or with the item that takes its bytes read
to or past 1 MB (that item is on the page); such a page carries LastEvaluatedKey even when nothing is
left, so a caller following it pays one more, empty page at the minimum. The same numbers from
:func:`paginate`, from both stores' ``run_plan``, from the heat model's SQL and from ``blue-nb query``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from blue_nb.cli import cli
from blue_nb.heat import call_costs
from blue_nb.patterns import paginate, plan
from blue_nb.sizing import PAGE_BYTES, item_size
from blue_nb.spec import loads_spec
from blue_nb.stores import BACKENDS, load_items, open_store

SPEC_TEXT = """
spec_version: 1
domain: pages
table:
  partition_key: pk
  sort_key: sk
entities:
  Row:
    key: {pk: "{part}", sk: "ROW#{n}"}
    attributes: {body: S}
access_patterns:
  - {name: rows, operation: query, entities: [Row], key_condition: {pk: "{part}"}}
  - {name: rows_strong, operation: query, entities: [Row], consistent_read: true, key_condition: {pk: "{part}"}}
  - {name: rows3, operation: query, entities: [Row], limit: 3, key_condition: {pk: "{part}"}}
  - {name: rows5_strong, operation: query, entities: [Row], limit: 5, consistent_read: true,
     key_condition: {pk: "{part}"}}
  - {name: everything, operation: scan, entities: [Row]}
  - {name: first5, operation: scan, entities: [Row], limit: 5}
"""
SPEC = loads_spec(SPEC_TEXT)


def row(part: str, n: int, size: int) -> dict:
    """An item of exactly ``size`` bytes (DynamoDB's item size), keyed ROW#00000, ROW#00001, ..."""
    item = {"pk": part, "sk": f"ROW#{n:05d}", "body": ""}
    item["body"] = "x" * (size - item_size(item))
    assert item_size(item) == size
    return item


def rows_of(part: str, sizes: list[int]) -> list[tuple[dict, int]]:
    return [(row(part, n, s), s) for n, s in enumerate(sizes)]


def read(pattern: str, sizes: list[int], **kw):
    params = {"part": "p"} if SPEC.pattern(pattern).parameters else {}
    return paginate(plan(SPEC, pattern, params), rows_of("p", sizes), **kw)


# -- Limit: a full page carries LastEvaluatedKey, the call after it returns an empty page --------
def test_six_items_limit_three_take_three_calls():
    r = read("rows3", [1000] * 6, follow=True)
    assert r.page_sizes == [3, 3, 0] and [p.items for p in r.pages] == [3, 3, 0]
    assert r.last_keys == [{"pk": "p", "sk": "ROW#00002"}, {"pk": "p", "sk": "ROW#00005"}, None]
    assert [p.has_more for p in r.pages] == [True, True, False]
    assert [p.rcu for p in r.pages] == [0.5, 0.5, 0.5]          # the empty page still costs the minimum
    assert r.pages[2].bytes_read == 0
    assert r.summary() == {"count": 6, "scanned_count": 6, "bytes_read": 6000, "rcu": 1.5, "pages": 3}
    assert [i["sk"] for i in r.items] == [f"ROW#{n:05d}" for n in range(6)]
    strong = read("rows5_strong", [1000] * 10, follow=True)
    assert strong.page_sizes == [5, 5, 0] and [p.rcu for p in strong.pages] == [2, 2, 1] and strong.rcu == 5


def test_five_items_limit_three_take_two_calls_and_no_items_one():
    r = read("rows3", [1000] * 5, follow=True)
    assert r.page_sizes == [3, 2] and r.last_keys == [{"pk": "p", "sk": "ROW#00002"}, None] and r.rcu == 1
    empty = read("rows3", [], follow=True)
    assert empty.page_sizes == [0] and empty.last_keys == [None] and empty.rcu == 0.5
    assert read("rows_strong", []).summary() == {"count": 0, "scanned_count": 0, "bytes_read": 0, "rcu": 1,
                                                 "pages": 1}


def test_a_limit_pattern_reads_one_page_unless_followed():
    one = read("rows3", [1000] * 6)
    assert one.page_sizes == [3] and one.last_keys == [{"pk": "p", "sk": "ROW#00002"}] and one.rcu == 0.5
    exactly_limit = read("rows3", [1000] * 3)
    assert exactly_limit.page_sizes == [3] and exactly_limit.pages[0].has_more      # a caller would call again
    assert read("rows3", [1000] * 9, follow=True, max_pages=2).page_sizes == [3, 3]   # max_pages still caps
    assert read("rows3", [1000] * 9, max_pages=2).page_sizes == [3, 3]
    assert read("rows3", [1000] * 9, follow=True).page_sizes == [3, 3, 3, 0]


# -- 1 MB: the item that reaches 1,048,576 bytes read is the page's last ---------------------------
def test_the_item_crossing_one_megabyte_ends_its_page():
    sizes = [300_000] * 3 + [200_000, 1_000, 2_000]      # 900,000 then 1,100,000: the 4th item crosses
    r = read("rows", sizes)
    assert r.page_sizes == [4, 2]
    assert r.last_keys == [{"pk": "p", "sk": "ROW#00003"}, None]                  # the next page starts after it
    assert [p.bytes_read for p in r.pages] == [1_100_000, 3_000]
    assert [p.rcu for p in r.pages] == [134.5, 0.5]                               # ceil(1.1e6 / 4096) = 269


def test_a_page_reaching_exactly_one_megabyte_ends_there():
    r = read("rows", [262_144] * 4 + [100])                # 4 x 262,144 = 1,048,576 exactly
    assert r.page_sizes == [4, 1] and r.pages[0].bytes_read == PAGE_BYTES and r.pages[0].has_more
    one_short = read("rows", [262_144] * 3 + [262_143, 100])  # 1,048,575 after 4: the 5th item is on it too
    assert one_short.page_sizes == [5, 0] and one_short.pages[0].bytes_read == PAGE_BYTES + 99
    assert one_short.rcu == 128.5 + 0.5                    # 257 x 4 KB eventual, then the empty call


def test_the_1042_byte_example():
    # 1,006 x 1,042 = 1,048,252 < 1 MB; the 1,007th item takes the read to 1,049,294 bytes = 257 x 4 KB
    r = read("rows", [1042] * 1500)
    assert r.page_sizes == [1007, 493] and r.pages[0].bytes_read == 1_049_294 and r.pages[0].rcu == 128.5
    assert read("rows_strong", [1042] * 1007).pages[0].rcu == 257


@pytest.mark.parametrize("pattern, sizes, expected_pages, expected_rcu", [
    ("rows", [], [0], 0.5),                                       # nothing under the key: one empty page
    ("rows", [1000] * 7, [7], 1),                                 # 7,000 B: one page, 2 x 4 KB eventual
    ("rows3", [1000] * 2, [2], 0.5),                              # fewer than limit: the range ends the page
    ("rows3", [1000] * 3, [3, 0], 1),                             # exactly limit: one more, empty call
    ("rows3", [1000] * 6, [3, 3, 0], 1.5),                        # 6 with limit 3: 3 calls
    ("rows3", [1000] * 7, [3, 3, 1], 1.5),                        # the last page ends with the range
    ("rows", [400_000] * 3, [3, 0], 146.5 + 0.5),                 # 1.2 MB in one page (293 x 4 KB), then empty
    ("rows", [400_000] * 3 + [1000], [3, 1], 146.5 + 0.5),        # the item after the crossing opens page 2
    ("rows", [262_144] * 4, [4, 0], 128 + 0.5),                   # exactly 1 MB: carries a key, empty call
    ("rows", [262_143] * 4 + [100], [5, 0], 128.5 + 0.5),         # 1,048,572 + 100 crosses at the 5th item
    ("rows", [1042] * 1007, [1007, 0], 128.5 + 0.5),              # the worked example, nothing after it
    ("rows", [1042] * 2100, [1007, 1007, 86], 128.5 * 2 + 11),    # 86 x 1,042 = 89,612 B -> 22 x 4 KB
    ("rows_strong", [100_000] * 12, [11, 1], 269 + 25),           # strong: 1.1 MB -> 269, 100,000 B -> 25
    ("rows5_strong", [100_000] * 12, [5, 5, 2], 123 * 2 + 49),    # the limit ends pages below 1 MB
    ("rows5_strong", [300_000] * 8, [4, 4, 0], 293 * 2 + 1),      # 1 MB ends pages before the limit
    ("everything", [1000] * 5, [5], 1),                           # a scan pages the same way
])
def test_pages_table(pattern, sizes, expected_pages, expected_rcu):
    r = read(pattern, sizes, follow=True)
    assert r.page_sizes == expected_pages
    assert r.rcu == expected_rcu
    assert [k is not None for k in r.last_keys] == [True] * (len(expected_pages) - 1) + [False]
    assert r.scanned_count == r.count == len(sizes) and r.bytes_read == sum(sizes)


# -- the stores, the heat SQL and the CLI give the same pages --------------------------------------
PARTS = {
    "six": [1000] * 6,                        # limit 3: [3] per call; followed [3, 3, 0]
    "five": [1000] * 5,
    "three": [1000] * 3,
    "cross": [300_000] * 3 + [200_000, 1_000, 2_000],
    "cross_end": [400_000] * 3,               # the last page reaches 1 MB: one more, empty page
    "exact": [262_144] * 4,
    "exact_more": [262_144] * 4 + [100],
    "big": [1042] * 2100,
    "heavy": [300_000] * 8,                   # limit 5 strong: 1 MB ends the page at 4 items
    "skew": [400_000, 400_000, 300_000] * 2 + [4_000],    # [3, 3, 1] = 269 + 269 + 1 x 4 KB (the old rule
}                                                         # cut [2, 2, 3]; the first page alone: [2, 3, 2])


def all_items():
    return (("Row", item) for part, sizes in PARTS.items() for item, _ in rows_of(part, sizes))


@pytest.fixture(scope="module")
def stores():
    opened = {b: open_store(b) for b in BACKENDS}
    load_items(list(opened.values()), SPEC, all_items(), progress=False)
    yield opened
    for s in opened.values():
        s.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_stores_follow_last_evaluated_key(stores, backend):
    s = stores[backend]
    followed = s.run_plan(plan(SPEC, "rows3", {"part": "six"}), follow=True)
    assert followed.page_sizes == [3, 3, 0] and followed.rcu == 1.5
    assert followed.last_keys == [{"pk": "six", "sk": "ROW#00002"}, {"pk": "six", "sk": "ROW#00005"}, None]
    assert s.run_plan(plan(SPEC, "rows3", {"part": "six"})).page_sizes == [3]
    assert s.run_plan(plan(SPEC, "rows3", {"part": "five"}), follow=True).page_sizes == [3, 2]
    assert s.run_plan(plan(SPEC, "rows3", {"part": "none"}), follow=True).page_sizes == [0]
    cross = s.run_plan(plan(SPEC, "rows", {"part": "cross"}))
    assert cross.page_sizes == [4, 2] and cross.rcu == 134.5 + 0.5
    big = s.run_plan(plan(SPEC, "rows", {"part": "big"}))
    assert big.page_sizes == [1007, 1007, 86] and big.pages[0].rcu == 128.5 and big.rcu == 268
    assert s.run_plan(plan(SPEC, "rows", {"part": "cross_end"})).page_sizes == [3, 0]
    assert s.run_plan(plan(SPEC, "rows", {"part": "skew"})).page_sizes == [3, 3, 1]


EXPECTED_CALLS = {          # pattern -> part -> (rcu, items, pages) of one call, as the heat model reads it
    "rows": {"six": (1, 6, 1), "cross": (135, 6, 2), "cross_end": (147, 3, 2), "exact": (128.5, 4, 2),
             "exact_more": (128.5, 5, 2), "big": (268, 2100, 3), "skew": (269.5, 7, 3)},
    "rows_strong": {"exact": (257, 4, 2), "big": (536, 2100, 3), "three": (1, 3, 1), "skew": (539, 7, 3)},
    "rows3": {"six": (0.5, 3, 1), "three": (0.5, 3, 1), "cross": (110, 3, 1), "big": (0.5, 3, 1),
              "skew": (134.5, 3, 1)},
    "rows5_strong": {"heavy": (293, 4, 1), "five": (2, 5, 1), "cross": (269, 4, 1), "skew": (269, 3, 1)},
}


@pytest.mark.parametrize("pattern", sorted(EXPECTED_CALLS))
def test_heat_sql_pages_like_paginate(stores, pattern):
    costs = call_costs(stores["duckdb"], SPEC, pattern).set_index("part")
    assert sorted(costs.index) == sorted(PARTS)
    for part in PARTS:
        c = costs.loc[part]
        result = stores["duckdb"].run_plan(plan(SPEC, pattern, {"part": part}))
        assert (c["rcu"], c["items"], c["bytes"], c["pages"]) == (result.rcu, result.scanned_count, result.bytes_read,
                                                          len(result.pages)), part
    for part, expected in EXPECTED_CALLS[pattern].items():
        assert (costs.loc[part, "rcu"], costs.loc[part, "items"], costs.loc[part, "pages"]) == expected, part


def test_heat_scans_count_pages_by_the_same_rule():
    # uniform entries: pages and items agree with paginate exactly (the scan's units round once over all)
    spec = loads_spec(SPEC_TEXT)
    with open_store("duckdb") as s:
        load_items([s], spec, (("Row", i) for i, _ in rows_of("u", [1042] * 2014)), progress=False)
        full = call_costs(s, spec, "everything").iloc[0]
        r = s.run_plan(plan(spec, "everything", {}))
        assert r.page_sizes == [1007, 1007, 0]                               # 2 x 1,007: one more, empty call
        assert (full["items"], full["pages"]) == (2014, 3)
        assert full["rcu"] == -(-2014 * 1042 // 4096) * 0.5 + 0.5        # 513 x 4 KB eventual, then the empty call
        first = call_costs(s, spec, "first5").iloc[0]
        assert (first["items"], first["bytes"], first["pages"], first["rcu"]) == (5, 5210, 1, 1)


def test_cli_all_pages(stores, tmp_path):
    spec_file, db = tmp_path / "pages.yaml", tmp_path / "pages.sqlite"
    spec_file.write_text(SPEC_TEXT, encoding="utf-8")
    with open_store("sqlite", db) as s:
        load_items([s], SPEC, (("Row", i) for i, _ in rows_of("six", PARTS["six"])), progress=False)
    base = ["query", str(spec_file), "rows3", "--param", "part=six", "--sqlite", str(db)]
    r = CliRunner().invoke(cli, [*base, "--all-pages"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert r.stderr.strip() == "-- 6 items, 3 page(s) [3, 3, 0], 6,000 bytes read, 1.5 RCU (eventual)"
    r = CliRunner().invoke(cli, base, catch_exceptions=False)
    assert r.stderr.strip() == "-- 3 items, 1 page(s), 3,000 bytes read, 0.5 RCU (eventual)"
    r = CliRunner().invoke(cli, [*base, "--all-pages", "--format", "json"], catch_exceptions=False)
    assert '"pages": 3' in r.stdout and '"rcu": 1.5' in r.stdout and '"count": 6' in r.stdout
