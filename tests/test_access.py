"""Access patterns: binding parameters, DynamoDB's paging and Query rounding, index entries,
write amplification, and the plans (SQL, boto3 requests) as data."""

from dataclasses import replace
from decimal import Decimal

import pytest

from blue_nb.errors import QueryError
from blue_nb.patterns import (Statement, bind, boto3_request, index_entry, paginate, plan, prefix_successor, read_sql,
                              write_cost)
from blue_nb.layout import TableLayout
from blue_nb.sizing import item_size
from blue_nb.spec import loads_spec

SPEC = loads_spec("""
spec_version: 1
domain: shop
table:
  partition_key: pk
  sort_key: sk
  indexes:
    by_status: {type: global, partition_key: gpk, sort_key: gsk, projection: [title]}
    by_date: {type: local, sort_key: lsk, projection: keys_only}
    plain: {type: global, partition_key: gpk}
entities:
  Order:
    key: {pk: "{customer}", sk: "ORDER#{order:05d}", gpk: "STATUS#{status}", gsk: "{date}", lsk: "{date}"}
    attributes: {title: S, status: S, date: S, body: S}
access_patterns:
  - {name: get_order, operation: get_item, entities: [Order], key_condition: {pk: "{customer}", sk: "ORDER#{order:05d}"}}
  - {name: orders, operation: query, entities: [Order], key_condition: {pk: "{customer}", sk_begins_with: "ORDER#"}}
  - {name: page, operation: query, entities: [Order], limit: 3, scan_forward: false, consistent_read: true,
     key_condition: {pk: "{customer}", sk_between: ["ORDER#{lo:05d}", "ORDER#{hi:05d}"]}}
  - {name: by_status, operation: query, entities: [Order], index: by_status, key_condition: {pk: "STATUS#{status}"}}
  - {name: recent, operation: query, entities: [Order], index: by_date, consistent_read: true,
     key_condition: {pk: "{customer}", sk_gte: "{since}"}}
  - {name: everything, operation: scan, entities: [Order]}
  - {name: put_order, operation: put_item, entities: [Order], key_condition: {pk: "{customer}", sk: "ORDER#{order:05d}"}}
  - {name: delete_order, operation: delete_item, entities: [Order], key_condition: {pk: "{customer}", sk: "ORDER#{order:05d}"}}
""")


def order(n, status="open", body="", customer="c1"):
    return {"pk": customer, "sk": f"ORDER#{n:05d}", "gpk": f"STATUS#{status}", "gsk": "2026-01-01",
            "lsk": "2026-01-01", "title": f"t{n}", "status": status, "date": "2026-01-01", "body": body}


@pytest.mark.parametrize("pattern, params, expected", [
    ("get_order", {"customer": "c1", "order": "7"}, ("eq", ("ORDER#00007",), "c1", "table")),
    ("orders", {"customer": "東京"}, ("begins_with", ("ORDER#",), "東京", "table")),
    ("page", {"customer": "c1", "lo": 1, "hi": "20"}, ("between", ("ORDER#00001", "ORDER#00020"), "c1", "table")),
    ("by_status", {"status": "open"}, (None, (), "STATUS#open", "by_status")),
    ("recent", {"customer": "c1", "since": "2026"}, ("gte", ("2026",), "c1", "by_date")),
    ("everything", {}, (None, (), None, "table")),
])
def test_bind(pattern, params, expected):
    r = bind(SPEC, pattern, params)
    assert (r.sk_op, r.sk_values, r.pk_value, r.index) == expected


def test_bind_names_every_missing_parameter():
    with pytest.raises(QueryError) as e:
        bind(SPEC, "page", {"customer": "c1"})
    assert "needs lo, hi" in e.value.msg and "--param lo=VALUE --param hi=VALUE" in e.value.hint
    with pytest.raises(QueryError, match="'x'.*format spec"):
        bind(SPEC, "get_order", {"customer": "c", "order": "x"})


def test_bind_refuses_unknown_parameters_naming_the_patterns_own():
    with pytest.raises(QueryError) as e:
        bind(SPEC, "page", {"customer": "c1", "lo": 1, "hi": 2, "custmer": "c2", "nosuch": 1})
    assert "has no parameter 'custmer', 'nosuch'" in e.value.msg and e.value.where == "access_patterns.page"
    assert "did you mean 'customer'?" in e.value.hint and "its parameters: customer, lo, hi" in e.value.hint


def test_read_modes():
    assert bind(SPEC, "orders", {"customer": "c"}).read_mode == "eventual"
    assert bind(SPEC, "page", {"customer": "c", "lo": 1, "hi": 2}).read_mode == "strong"
    assert bind(SPEC, "recent", {"customer": "c", "since": "x"}).read_mode == "strong"    # LSIs read strongly
    assert bind(SPEC, "by_status", {"status": "x"}).read_mode == "eventual"


def sized(items):
    return [(i, item_size(i)) for i in items]


def test_a_read_returns_the_items_it_was_given_whole_and_projects_the_others():
    """The stores pass items of their own, just decoded: a table read keeps them as they are (no copy per
    item); an index that does not project all returns new dicts of its attributes and leaves the items alone."""
    rows = [({"pk": "c1", "sk": f"ORDER#{n:05d}", "gpk": "STATUS#open", "gsk": str(n), "title": "t", "x": n}, 90)
            for n in range(3)]
    whole = paginate(plan(SPEC, "orders", {"customer": "c1"}), rows)
    assert [id(i) for i in whole.items] == [id(i) for i, _ in rows]
    projected = paginate(plan(SPEC, "by_status", {"status": "open"}), rows)
    assert projected.items == [{k: i[k] for k in ("pk", "sk", "gpk", "gsk", "title")} for i, _ in rows]
    assert all("x" in i for i, _ in rows) and not {id(i) for i in projected.items} & {id(i) for i, _ in rows}
    one = paginate(plan(SPEC, "get_order", {"customer": "c1", "order": 0}), rows[:1])
    assert one.items[0] is rows[0][0]


def test_query_rounds_once_over_the_page():
    # AWS: a Query of 10 items totalling 40.8 KB reads 44 KB: 11 RCU strong, 5.5 eventual
    total = int(40.8 * 1024)                                   # 41,779 bytes
    sizes = [total // 10] * 9 + [total - 9 * (total // 10)]
    req = plan(SPEC, "orders", {"customer": "c1"})
    rows = [({"pk": "c1", "sk": f"ORDER#{n:05d}"}, s) for n, s in enumerate(sizes)]
    r = paginate(req, rows)
    assert (r.count, r.bytes_read, r.rcu, len(r.pages)) == (10, 41_779, 5.5, 1)
    strong = paginate(plan(SPEC, "page", {"customer": "c1", "lo": 0, "hi": 99}), rows, max_pages=10)
    assert strong.rcu == 3 * 4 + 2          # limit 3: pages of 3 x 4,177 B (12,531 -> 4 units) x3, then 4,186 B -> 2
    assert [p.count for p in strong.pages] == [3, 3, 3, 1]
    # AWS: 1500 items of 64 B = 96 KB -> 24 RCU strong (one page)
    paged = plan(SPEC, "page", {"customer": "c1", "lo": 0, "hi": 1})
    unlimited = replace(paged, request=replace(paged.request, limit=None))
    r = paginate(unlimited, [({"pk": "c", "sk": str(n)}, 64) for n in range(1500)])
    assert (r.rcu, r.bytes_read) == (24, 96_000)


def test_pages_stop_at_one_megabyte():
    req = plan(SPEC, "orders", {"customer": "c1"})
    rows = [({"pk": "c1", "sk": f"ORDER#{n:05d}"}, 100_000) for n in range(25)]
    r = paginate(req, rows)
    assert [p.count for p in r.pages] == [11, 11, 3]           # the 11th 100,000 B item reaches 1,048,576: on the page
    assert r.pages[0].bytes_read == 1_100_000 and r.pages[0].rcu == 134.5     # ceil(1.1e6 / 4096) = 269 x 0.5
    assert r.pages[0].last_evaluated_key == {"pk": "c1", "sk": "ORDER#00010"}
    assert r.pages[-1].last_evaluated_key is None
    exact = paginate(req, [({"pk": "c", "sk": str(n)}, 262_144) for n in range(5)])
    assert [p.count for p in exact.pages] == [4, 1]            # exactly 1 MB reached: the page ends, 128 RCU eventual
    assert exact.pages[0].rcu == 128 and exact.pages[0].last_evaluated_key == {"pk": "c", "sk": "3"}


def test_empty_query_and_missing_get_cost_the_minimum():
    assert paginate(plan(SPEC, "orders", {"customer": "x"}), []).summary() == {
        "count": 0, "scanned_count": 0, "bytes_read": 0, "rcu": 0.5, "pages": 1}
    assert paginate(plan(SPEC, "get_order", {"customer": "x", "order": 1}), []).rcu == 0.5
    eight_kb = {"pk": "p", "sk": "s"}
    r = paginate(plan(SPEC, "get_order", {"customer": "x", "order": 1}), [(eight_kb, 8192)])
    assert r.rcu == 1                                          # 8 KB eventual: 1; strong would be 2


def test_gsi_reads_index_entries():
    # AWS: a GSI query of 8 entries x 2000 B = 16 KB -> 2 RCU (eventually consistent)
    req = plan(SPEC, "by_status", {"status": "open"})
    items = [order(n, body="x" * 3000) for n in range(8)]
    r = paginate(req, sized(items))
    assert set(r.items[0]) == {"pk", "sk", "gpk", "gsk", "title"}          # only keys + projected attributes
    entry = index_entry(items[0], SPEC, "by_status")
    assert r.bytes_read == 8 * item_size(entry) and r.rcu == 0.5
    big = [({**e, "title": "t" * (2000 - item_size(e) + 2)}, 0) for e in [index_entry(i, SPEC, "by_status") for i in items]]
    assert all(item_size(index_entry(i, SPEC, "by_status")) == 2000 for i, _ in big)
    assert paginate(req, big).rcu == 2
    keys_only = index_entry(items[0], SPEC, "by_date")
    assert set(keys_only) == {"pk", "sk", "lsk"}
    assert index_entry({"pk": "a", "sk": "b"}, SPEC, "by_status") is None     # sparse


@pytest.mark.parametrize("old, new, table, by_status, by_date, plain", [
    (None, order(1), 1, 1, 1, 1),                                    # a new item: one write per index
    (order(1), order(1), 1, 0, 0, 0),                                 # unchanged entries: no index writes
    (order(1), order(1, status="done"), 1, 2, 0, 2),                  # index key changes: delete + put
    (order(1), {**order(1), "title": "new"}, 1, 1, 0, 1),             # a projected attribute changes
    (order(1), {**order(1), "body": "b" * 1900}, 2, 0, 0, 2),         # 1,9xx bytes -> 2 WCU; only 'plain' projects it
    ({"pk": "c1", "sk": "ORDER#00001"}, order(1), 1, 1, 1, 1),        # gains its index keys
])
def test_write_amplification(old, new, table, by_status, by_date, plain):
    r = write_cost(plan(SPEC, "put_order", {"customer": "c1", "order": 1}), old, new)
    assert (r.table_wcu, r.index_wcu) == (table, {"by_status": by_status, "by_date": by_date, "plain": plain})
    assert r.wcu == table + by_status + by_date + plain


def test_delete_costs():
    req = plan(SPEC, "delete_order", {"customer": "c1", "order": 1})
    assert write_cost(req, None, None).wcu == 1                 # deleting a missing item costs 1
    assert write_cost(req, order(1, body="x" * 1100), None).summary()["index_wcu"] == {
        "by_status": 1, "by_date": 1, "plain": 2}                         # 'plain' projects all: 1,1xx B


@pytest.mark.parametrize("prefix, successor", [
    ("ORDER#", "ORDER$"), ("a", "b"), ("é", "ê"), ("\U0010ffff", None), ("a\U0010ffff", "b"),
    ("\ud7ff", "\ue000"), ("", None),
])
def test_prefix_successor(prefix, successor):
    assert prefix_successor(prefix) == successor


LAYOUT = TableLayout.of(SPEC)
JOIN = ('SELECT CAST(t.data AS BLOB) AS data, c.size FROM "blue_shop" t JOIN "blue_shop__items" c '
        'ON c.pk = t.pk AND c.sk = t.sk')


@pytest.mark.parametrize("pattern, params, sql, args", [
    ("get_order", {"customer": "c", "order": 3}, JOIN + " WHERE t.pk = ? AND t.sk = ?", ["c", "ORDER#00003"]),
    # begins_with as a range, so the primary key index serves it
    ("orders", {"customer": "c"}, JOIN + " WHERE t.pk = ? AND t.sk >= ? AND t.sk < ? ORDER BY t.sk",
     ["c", "ORDER#", "ORDER$"]),
    ("page", {"customer": "c", "lo": 1, "hi": 9},
     JOIN + " WHERE t.pk = ? AND t.sk BETWEEN ? AND ? ORDER BY t.sk DESC", ["c", "ORDER#00001", "ORDER#00009"]),
    # an index: its keys live in the catalog; ties broken by the table key
    ("by_status", {"status": "open"}, JOIN + ' WHERE c."by_status__pk" = ? ORDER BY c."by_status__sk", c.pk, c.sk',
     ["STATUS#open"]),
    ("recent", {"customer": "c", "since": "2026"},
     JOIN + ' WHERE c."by_date__pk" = ? AND c."by_date__sk" >= ? ORDER BY c."by_date__sk", c.pk, c.sk', ["c", "2026"]),
    ("everything", {}, JOIN + " ORDER BY c.pk, c.sk", []),
])
def test_read_sql(pattern, params, sql, args):
    req = bind(SPEC, pattern, params)
    assert read_sql(LAYOUT, req, "sqlite") == Statement(sql, tuple(args))
    # DuckDB runs the same statement, but for how it returns data as bytes (a CAST would read backslash escapes)
    duck = sql.replace("CAST(t.data AS BLOB) AS data", "encode(t.data) AS data", 1)
    assert duck != sql and read_sql(LAYOUT, req, "duckdb") == Statement(duck, tuple(args))


@pytest.mark.parametrize("pattern, params, expected", [
    ("get_order", {"customer": "c", "order": 3},
     ("get_item", {"TableName": "blue_shop", "Key": {"pk": {"S": "c"}, "sk": {"S": "ORDER#00003"}},
                   "ConsistentRead": False})),
    ("page", {"customer": "c", "lo": 1, "hi": 9},
     ("query", {"TableName": "blue_shop", "KeyConditionExpression": "#pk = :pk AND #sk BETWEEN :sk0 AND :sk1",
                "ExpressionAttributeNames": {"#pk": "pk", "#sk": "sk"},
                "ExpressionAttributeValues": {":pk": {"S": "c"}, ":sk0": {"S": "ORDER#00001"},
                                              ":sk1": {"S": "ORDER#00009"}},
                "ScanIndexForward": False, "ConsistentRead": True, "Limit": 3})),
    ("by_status", {"status": "open"},
     ("query", {"TableName": "blue_shop", "IndexName": "by_status", "KeyConditionExpression": "#pk = :pk",
                "ExpressionAttributeNames": {"#pk": "gpk"}, "ExpressionAttributeValues": {":pk": {"S": "STATUS#open"}},
                "ScanIndexForward": True, "ConsistentRead": False})),
    ("everything", {}, ("scan", {"TableName": "blue_shop", "ConsistentRead": False})),
    ("delete_order", {"customer": "c", "order": 3},
     ("delete_item", {"TableName": "blue_shop", "Key": {"pk": {"S": "c"}, "sk": {"S": "ORDER#00003"}}})),
])
def test_boto3_requests(pattern, params, expected):
    assert boto3_request(bind(SPEC, pattern, params)) == expected


def test_boto3_write_requests_alias_every_name():
    req = bind(SPEC, "put_order", {"customer": "c", "order": 3})
    method, kw = boto3_request(req, item={"status": "open", "n": Decimal("1.50")})
    assert method == "put_item" and kw["Item"] == {"status": {"S": "open"}, "n": {"N": "1.5"},
                                                   "pk": {"S": "c"}, "sk": {"S": "ORDER#00003"}}
    upd = bind(SPEC, "put_order", {"customer": "c", "order": 3}).__class__(
        **{**req.__dict__, "operation": "update_item"})
    method, kw = boto3_request(upd, item={"status": "done", "data": "x"})
    assert kw["UpdateExpression"] == "SET #a0 = :v0, #a1 = :v1"
    assert kw["ExpressionAttributeNames"] == {"#a0": "status", "#a1": "data"}     # reserved words aliased
