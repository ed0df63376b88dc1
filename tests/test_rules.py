"""The design checks (blue_nb.rules): one spec per rule with exactly one violation, a clean spec
with none, the example specs' real findings on the committed samples, dialogue_v2 without errors,
and ``blue-nb validate`` end to end."""

from __future__ import annotations

import ast
import copy
import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blue_nb.rules import RULES, Finding, Findings, check_spec, check_specs, is_reserved, reserved_words
from blue_nb.rules import single_table_findings, spec_check
from blue_nb.rules.registry import DATA_CHECKS, SOURCES, SPEC_CHECKS, Context
from blue_nb.rules.data_rules import NEAR_LIMIT_BYTES, DuplicateKeyCheck
from blue_nb.sizing import MAX_ITEM_BYTES, item_size
from blue_nb.spec import load_spec, spec_from_dict
from blue_nb.app.workflows import validate

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "data" / "specs"
SAMPLE = ROOT / "data" / "sample"
BLUE_NB = Path(sys.executable).with_name("blue-nb")

# A small shop: customers and their orders, one GSI for the orders of a day. No findings at all.
CLEAN = {
    "spec_version": 1,
    "domain": "shop",
    "table": {"partition_key": "pk", "sort_key": "sk",
              "indexes": {"gsi1": {"type": "global", "partition_key": "gsi1pk", "sort_key": "gsi1sk",
                                   "projection": ["amount"]}}},
    "entities": {
        "Customer": {"key": {"pk": "{customer_id}", "sk": "META"}, "attributes": {"email": "S"}, "writer": "shop"},
        "Order": {"key": {"pk": "{customer_id}", "sk": "ORDER#{order_no:06d}", "gsi1pk": "DAYS#{order_day}",
                          "gsi1sk": "{placed_at}"},
                  "attributes": {"amount": "N", "order_day": "S", "placed_at": "S"}, "writer": "shop"},
    },
    "access_patterns": [
        {"name": "get_customer", "operation": "get_item", "entities": ["Customer"],
         "key_condition": {"pk": "{customer_id}", "sk": "META"}, "hot": True},
        {"name": "list_orders", "operation": "query", "entities": ["Order"],
         "key_condition": {"pk": "{customer_id}", "sk_begins_with": "ORDER#"}, "hot": True},
        {"name": "orders_of_day", "operation": "query", "entities": ["Order"], "index": "gsi1",
         "key_condition": {"pk": "DAYS#{order_day}"}},
        {"name": "place_order", "operation": "put_item", "entities": ["Order"],
         "key_condition": {"pk": "{customer_id}", "sk": "ORDER#{order_no:06d}"}},
    ],
}


def order(no: str, customer: str = "c1", **extra) -> tuple[str, dict]:
    item = {"pk": customer, "sk": f"ORDER#{no}", "gsi1pk": "DAYS#2026-01-01", "gsi1sk": "2026-01-01T10:00:00Z",
            "amount": Decimal("12.5"), "order_day": "2026-01-01", "placed_at": "2026-01-01T10:00:00Z"}
    item.update(extra)
    return "Order", item


CLEAN_ITEMS = [("Customer", {"pk": "c1", "sk": "META", "email": "ann@example.com"}),
               order("000002"), order("000010"), order("000100")]


def spec_of(change=None):
    d = copy.deepcopy(CLEAN)
    if change:
        change(d)
    return spec_from_dict(d)


def where_of(findings, rule):
    return {(f.severity, f.where) for f in findings if f.rule == rule}


# -- the clean spec ------------------------------------------------------------------------------
def test_clean_spec_has_no_findings():
    assert list(check_spec(spec_of())) == []


def test_clean_spec_and_items_have_no_findings():
    findings = check_spec(spec_of(), iter(CLEAN_ITEMS))
    assert list(findings) == [], findings.to_text()
    assert findings.items_checked == 4 and not findings.has_errors


# -- one violation per rule (spec only) ----------------------------------------------------------
def _add(path, value):
    def change(d):
        target = d
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value
    return change


def _pattern(**p):
    return lambda d: d["access_patterns"].append(p)


def _several(*changes):
    def change(d):
        for c in changes:
            c(d)
    return change


def _drop_pattern(name):
    return lambda d: d.update(access_patterns=[p for p in d["access_patterns"] if p["name"] != name])


SPEC_CASES = [
    # hot scan: not scoped to one partition key value
    ("ADR2-PARTITION-SCOPED", _pattern(name="all_orders", operation="scan", entities=["Order"], hot=True),
     "error", "access_patterns[4] (all_orders).operation"),
    # a hot query joins a GSI pattern: another partition per item
    ("ADR3-NO-CROSS-PARTITION-JOIN", _add(("access_patterns", 1, "joins"),
                                          [{"pattern": "orders_of_day", "params": {"order_day": "order_day"}}]),
     "error", "access_patterns[1] (list_orders).joins[0]"),
    # two writers under {customer_id}
    ("ADR4-SINGLE-WRITER", _add(("entities", "Order", "writer"), "billing"), "error", "entities.Order.writer"),
    # a lower-case constant sort key
    ("ADR5-SORT-KEY-FORMAT", _several(_add(("entities", "Customer", "key", "sk"), "meta"),
                                      _add(("access_patterns", 0, "key_condition", "sk"), "meta")),
     "error", "entities.Customer.key.sk"),
    # begins_with "ORDER" also returns ORDERLINE# items
    ("KEY-PREFIX-COLLISION", _several(
        _add(("entities", "OrderLine"), {"key": {"pk": "{customer_id}", "sk": "ORDERLINE#{sku}"}, "writer": "shop"}),
        _pattern(name="list_lines", operation="query", entities=["OrderLine"],
                 key_condition={"pk": "{customer_id}", "sk_begins_with": "ORDERLINE#"}),
        _add(("access_patterns", 1, "key_condition", "sk_begins_with"), "ORDER")),
     "error", "access_patterns[1] (list_orders).key_condition.sk_begins_with"),
    # {order_no:d}: a number without a width
    ("KEY-SORT-ORDER", _several(_add(("entities", "Order", "key", "sk"), "ORDER#{order_no:d}"),
                                _add(("access_patterns", 3, "key_condition", "sk"), "ORDER#{order_no:d}")),
     "warning", "entities.Order.key.sk"),
    # two placeholders glued together cannot be split back
    ("KEY-SEPARATOR-IN-VALUE", _add(("entities", "Order", "key", "gsi1sk"), "{placed_at}{order_day}"),
     "warning", "entities.Order.key.gsi1sk"),
    # a constant sort key over 1024 bytes
    ("KEY-SIZE", _several(_add(("entities", "Customer", "key", "sk"), "M" * 1025),
                          _add(("access_patterns", 0, "key_condition", "sk"), "M" * 1025)),
     "error", "entities.Customer.key.sk"),
    # 21 INCLUDE attributes
    ("INDEX-LIMITS", _several(*[_add(("entities", "Order", "attributes", f"a{n}"), "S") for n in range(20)],
                              _add(("table", "indexes", "gsi1", "projection"),
                                   ["amount"] + [f"a{n}" for n in range(20)])),
     "error", "table.indexes.gsi1.projection"),
    # a projected name no entity has
    ("INDEX-PROJECTION", _add(("table", "indexes", "gsi1", "projection"), ["amount", "amonut"]),
     "warning", "table.indexes.gsi1.projection"),
    # blue_ + 251 characters: a table name over 255
    ("NAME-RULES", _add(("domain",), "d" * 251), "error", "domain"),
    # status is reserved
    ("RESERVED-WORD", _add(("entities", "Customer", "attributes", "status"), "S"),
     "info", "entities.Customer.attributes.status"),
    # nothing reads gsi1
    ("UNUSED-INDEX", _drop_pattern("orders_of_day"), "warning", "table.indexes.gsi1"),
    # nothing reads Customer
    ("UNSERVED-ENTITY", _drop_pattern("get_customer"), "warning", "entities.Customer"),
    # get_customer looks up a key Customer items do not have
    ("PATTERN-KEY-MISMATCH", _add(("access_patterns", 0, "key_condition", "pk"), "CUSTOMER#{customer_id}"),
     "error", "access_patterns[0] (get_customer).key_condition.pk"),
    # an N index sort key with a TYPE# literal
    ("KEY-TYPE", _several(_add(("table", "indexes", "gsi1", "sort_key_type"), "N"),
                          _add(("entities", "Order", "key", "gsi1sk"), "AT#{placed_at}")),
     "error", "entities.Order.key.gsi1sk"),
]


@pytest.mark.parametrize("rule, change, severity, where", SPEC_CASES, ids=[c[0] for c in SPEC_CASES])
def test_one_violation_fires_its_rule(rule, change, severity, where):
    findings = check_spec(spec_of(change))
    assert findings.rule_ids == {rule}, findings.to_text()
    assert (severity, where) in where_of(findings, rule)
    f = findings.by_rule(rule)[0]
    assert f.message and f.hint


def test_a_local_index_read_that_asks_for_what_the_index_does_not_hold_fetches_from_the_table():
    """INDEX-FETCH (an LSI also brings INDEX-LIMITS' note, so it is not among the one-rule SPEC_CASES)."""
    lsi = _add(("table", "indexes", "lsi1"), {"type": "local", "sort_key": "placed_at", "projection": "keys_only"})
    read = dict(name="orders_by_time", operation="query", entities=["Order"], index="lsi1",
                key_condition={"pk": "{customer_id}"}, hot=True)
    found = check_spec(spec_of(_several(lsi, _pattern(**read, projection=["amount", "placed_at"])))).by_rule("INDEX-FETCH")
    assert [(f.severity, f.where) for f in found] == [("warning", "access_patterns[4] (orders_by_time).projection")]
    assert "does not hold amount:" in found[0].message and found[0].hint.startswith("project them into lsi1")
    cold = check_spec(spec_of(_several(lsi, _pattern(**{**read, "hot": False}, select="ALL_ATTRIBUTES"))))
    assert [(f.severity, f.where) for f in cold.by_rule("INDEX-FETCH")] == [("info", "access_patterns[4] (orders_by_time).select")]
    held = check_spec(spec_of(_several(lsi, _pattern(**read, projection=["placed_at", "sk"]))))
    assert held.by_rule("INDEX-FETCH") == []


def test_a_join_within_the_partition_is_fine():
    join = _add(("access_patterns", 1, "joins"),
                [{"pattern": "get_customer", "params": {"customer_id": "customer_id"}}])
    assert list(check_spec(spec_of(join))) == []


def test_a_cold_scan_is_only_a_note():
    findings = check_spec(spec_of(_pattern(name="export", operation="scan", entities=["Order"])))
    assert [(f.rule, f.severity) for f in findings] == [("ADR2-PARTITION-SCOPED", "info")]


def test_a_pattern_must_render_numbers_like_the_keys():
    findings = check_spec(spec_of(_add(("access_patterns", 3, "key_condition", "sk"), "ORDER#{order_no}")))
    assert where_of(findings, "PATTERN-KEY-MISMATCH") == {("error", "access_patterns[3] (place_order).key_condition.sk")}


def test_open_ended_begins_with_is_a_warning_without_data():
    change = _pattern(name="orders_from", operation="query", entities=["Order"],
                      key_condition={"pk": "{customer_id}", "sk_begins_with": "ORDER#{order_ref}"})
    d = copy.deepcopy(CLEAN)
    d["entities"]["Order"]["key"]["sk"] = "ORDER#{order_ref}"
    d["access_patterns"][3]["key_condition"]["sk"] = "ORDER#{order_ref}"
    change(d)
    findings = check_spec(spec_from_dict(d))
    expected = {("warning", "access_patterns[4] (orders_from).key_condition.sk_begins_with")}
    assert where_of(findings, "KEY-PREFIX-COLLISION") == expected
    assert findings.rule_ids == {"KEY-PREFIX-COLLISION"}
    # with data that really collides (A1 / A10 under one customer) it is an error with the keys
    items = [order("A1"), order("A10"), order("A10"), order("B2")]
    findings = check_spec(spec_from_dict(d), items)
    f, = findings.by_rule("KEY-PREFIX-COLLISION")
    assert f.severity == "error" and "2 of 4 Order items" in f.message
    assert any("'ORDER#A1'" in e and "'ORDER#A10'" in e for e in f.evidence)


# -- one violation per rule (items) --------------------------------------------------------------
def _sized(n: int) -> tuple[str, dict]:
    item = {"pk": "c9", "sk": "META", "email": ""}          # c9: not the key of CLEAN_ITEMS[0] (no DUPLICATE-ITEM-KEY)
    item["email"] = "x" * (n - item_size(item))
    assert item_size(item) == n
    return "Customer", item


DATA_CASES = [
    # ORDER#2 / ORDER#10: the data decides that order_no holds numbers of varying width
    ("KEY-SORT-ORDER", lambda d: (d["entities"]["Order"]["key"].update(sk="ORDER#{order_no}"),
                                  d["access_patterns"][3]["key_condition"].update(sk="ORDER#{order_no}")),
     [order("2"), order("10")], "error", "entities.Order.key.sk"),
    ("KEY-SEPARATOR-IN-VALUE", None, [("Customer", {"pk": "acme#1", "sk": "META", "email": "a"})],
     "error", "entities.Customer.key.pk"),
    ("KEY-SIZE", None, [("Customer", {"pk": "p" * 2049, "sk": "META"})], "error", "entities.Customer.key.pk"),
    ("ITEM-SIZE", None, [_sized(MAX_ITEM_BYTES + 1)], "error", "entities.Customer"),
    ("UNMATCHED-ITEM", None, [{"pk": "c1", "sk": "OTHER#1"}], "warning", "entities"),
    ("DUPLICATE-ITEM-KEY", None, [("Customer", {"pk": "c1", "sk": "META", "email": "bob@example.com"})],
     "error", "entities.Customer"),
]


@pytest.mark.parametrize("rule, change, items, severity, where", DATA_CASES, ids=[c[0] for c in DATA_CASES])
def test_one_bad_item_fires_its_rule(rule, change, items, severity, where):
    findings = check_spec(spec_of(change), iter(CLEAN_ITEMS[:1] + items))
    assert findings.rule_ids == {rule}, findings.to_text()
    assert (severity, where) in where_of(findings, rule)
    assert all(f.evidence for f in findings.by_rule(rule))


def test_sort_order_evidence_and_fix_from_the_data():
    change = DATA_CASES[0][1]
    f, = check_spec(spec_of(change), [order("2"), order("10"), order("7")]).by_rule("KEY-SORT-ORDER")
    assert f.evidence == ("'ORDER#10' sorts before 'ORDER#2', but order_no 10 > 2",)
    assert "'ORDER#{order_no:03d}'" in f.hint and "place_order" in f.hint


@pytest.mark.parametrize("size, severity", [
    (NEAR_LIMIT_BYTES - 1, None),          # under 90%: nothing
    (NEAR_LIMIT_BYTES, "warning"),          # 90% of 400 KB
    (MAX_ITEM_BYTES, "warning"),            # the limit itself is accepted (inclusive)
    (MAX_ITEM_BYTES + 1, "error"),          # one byte over is rejected
])
def test_item_size_thresholds(size, severity):
    findings = check_spec(spec_of(), [_sized(size)])
    assert [f.severity for f in findings.by_rule("ITEM-SIZE")] == ([severity] if severity else [])


def test_duplicate_keys_evidence_counts_and_numbers_compare_by_value():
    items = [*CLEAN_ITEMS, order("000002"), order("000002"), order("000010"), ("Customer", dict(CLEAN_ITEMS[0][1]))]
    f, g = sorted(check_spec(spec_of(), items).by_rule("DUPLICATE-ITEM-KEY"), key=lambda f: f.where)
    assert (f.severity, f.where) == ("error", "entities.Customer") and "1 Customer key" in f.message
    assert g.where == "entities.Order" and "2 Order keys" in g.message and "5 items in all" in g.message
    assert g.evidence[0] == "c1 / ORDER#000002: 3 Order items share this key"
    assert "entities.Order.key.sk" in g.hint
    checker = DuplicateKeyCheck(Context(spec_of(), with_data=True))
    for pk in (Decimal("1"), Decimal("1.00"), "1", b"1"):       # N 1 == N 1.00; S "1" and B "1" are other keys
        checker.add("Customer", {"pk": pk, "sk": "META"})
    assert [r[0] for r in checker.repeated.values()] == [2]
    assert check_spec(spec_of(), CLEAN_ITEMS).by_rule("DUPLICATE-ITEM-KEY") == []


def test_key_size_limits_are_inclusive():
    ok = [("Customer", {"pk": "p" * 2048, "sk": "META"}), order("0" * 6, customer="é" * 1024)]
    assert check_spec(spec_of(), ok).by_rule("KEY-SIZE") == []


def test_items_are_streamed_once():
    seen = []

    def items():
        for pair in CLEAN_ITEMS:
            seen.append(pair)
            yield pair
    assert list(check_spec(spec_of(), items())) == [] and len(seen) == len(CLEAN_ITEMS)


# -- ADR1 across specs ---------------------------------------------------------------------------
def test_two_specs_for_one_domain_break_adr1():
    a, b = spec_of(), spec_of(_add(("table", "name"), "shop_orders"))
    findings = check_specs([a, b, spec_of(_add(("domain",), "other"))])
    f, = findings
    assert (f.rule, f.severity, f.where) == ("ADR1-SINGLE-TABLE", "error", "domain")
    assert "shop_orders" in f.message and "blue_shop" in f.message
    assert single_table_findings(a, [a]) == [] and len(single_table_findings(a, [b])) == 1
    assert list(check_specs([a])) == []


# -- the example specs on their samples ----------------------------------------------------------
@pytest.fixture(scope="module")
def dialogue_findings():
    return validate(SPECS / "dialogue.yaml", SAMPLE / "dialogue")


def test_dialogue_findings_on_the_sample(dialogue_findings):
    f = dialogue_findings
    assert f.rule_ids == {"ADR4-SINGLE-WRITER", "KEY-PREFIX-COLLISION", "KEY-SORT-ORDER", "RESERVED-WORD"}
    assert {(e.rule, e.where) for e in f.errors} == {
        ("ADR4-SINGLE-WRITER", "entities.TensionEvent.writer"),
        ("KEY-PREFIX-COLLISION", "access_patterns[5] (tension_history).key_condition.sk_begins_with"),
        ("KEY-SORT-ORDER", "entities.Perspective.key.sk"),
    }
    assert f.counts == {"error": 3, "warning": 0, "info": 4}
    assert {(i.rule, i.where) for i in f.by_severity("info")} == {
        ("KEY-SORT-ORDER", "entities.Tension.key.sk"), ("KEY-SORT-ORDER", "entities.TensionEvent.key.sk"),
        ("RESERVED-WORD", "entities.Dialogue.attributes.status"), ("RESERVED-WORD", "entities.Expert.attributes.role")}


def test_dialogue_unpadded_rounds(dialogue_findings):
    f = next(x for x in dialogue_findings.errors if x.rule == "KEY-SORT-ORDER")
    assert "'PERSP#12#muffin#1' sorts before 'PERSP#2#muffin#2', but round 12 > 2" in f.evidence
    assert "'PERSP#{round:03d}#{expert}#{seq:04d}'" in f.hint                  # seq reaches 260: 3 digits and one to grow


def test_dialogue_tension_prefix_collision(dialogue_findings):
    f = next(x for x in dialogue_findings.errors if x.rule == "KEY-PREFIX-COLLISION")
    assert any("'TEVENT#T10'" in e and "'TEVENT#T10#" in e and "'TEVENT#T100#" in e for e in f.evidence)
    assert re.search(r"[\d,]+ of 1,135 TensionEvent items", f.message)
    assert "'TEVENT#{tension_id}#'" in f.hint


def test_document_findings_on_the_sample():
    f = validate(SPECS / "document.yaml", SAMPLE / "document")
    # the heat model adds one real warning: list_documents reads the whole 1.8 MB 'letemcook' realm
    # 20 times a second, close to (and in some seconds over) 3,000 RCU/s
    assert f.rule_ids == {"ITEM-SIZE", "RESERVED-WORD", "HOT-PARTITION"}
    error, = f.errors
    sizes = [int(s.replace(",", "")) for e in error.evidence for s in re.findall(r"([\d,]+) bytes", e)]
    assert error.where == "entities.Document" and sizes and all(s > MAX_ITEM_BYTES for s in sizes)
    size_warning, = [w for w in f.by_severity("warning") if w.rule == "ITEM-SIZE"]
    assert "90%" in size_warning.message
    hot, = f.by_rule("HOT-PARTITION")
    assert hot.severity == "warning" and "letemcook" in hot.message
    assert {i.where for i in f.by_severity("info")} == {
        "entities.Document.attributes.status", "entities.Realm.attributes.name", "entities.Realm.attributes.path"}


def test_dialogue_v2_fixes_every_error_and_warning():
    f = validate(SPECS / "dialogue_v2.yaml", SAMPLE / "dialogue")
    assert f.counts["error"] == 0 and f.counts["warning"] == 0, f.to_text()
    assert {(i.rule, i.where) for i in f} == {
        ("KEY-SORT-ORDER", "entities.Tension.key.sk"), ("KEY-SORT-ORDER", "entities.TensionEvent.key.sk"),
        ("RESERVED-WORD", "entities.Dialogue.attributes.status"), ("RESERVED-WORD", "entities.Expert.attributes.role")}
    assert check_spec(load_spec(SPECS / "dialogue_v2.yaml")).counts == {"error": 0, "warning": 0, "info": 2}


def test_dialogue_without_data_shows_what_the_templates_alone_say():
    f = check_spec(load_spec(SPECS / "dialogue.yaml"))
    assert where_of(f, "KEY-PREFIX-COLLISION") == {("warning", "access_patterns[5] (tension_history).key_condition.sk_begins_with")}
    assert ("info", "entities.Perspective.key.sk") in where_of(f, "KEY-SORT-ORDER")
    assert [e.rule for e in f.errors] == ["ADR4-SINGLE-WRITER"]


# -- the registry, the report, the reserved words ------------------------------------------------
ISSUE_RULES = ["ADR1-SINGLE-TABLE", "ADR2-PARTITION-SCOPED", "ADR3-NO-CROSS-PARTITION-JOIN", "ADR4-SINGLE-WRITER",
               "ADR5-SORT-KEY-FORMAT", "KEY-PREFIX-COLLISION", "KEY-SORT-ORDER", "KEY-SEPARATOR-IN-VALUE", "KEY-SIZE",
               "ITEM-SIZE", "INDEX-LIMITS", "NAME-RULES", "RESERVED-WORD", "UNUSED-INDEX", "UNSERVED-ENTITY"]


HEAT_RULE_IDS = ["HOT-PARTITION", "HOT-INDEX-PARTITION", "PARTITION-SIZE", "MONOTONIC-WRITES", "ITEM-SIZE-NEAR-LIMIT",
                 "TABLE-CAPACITY", "FILTER-DISCARDS", "TRANSACTION-HOT-ITEM", "UPDATE-NEAR-ITEM-LIMIT", "HEAT-MODEL"]


def test_every_rule_is_registered_and_tested():
    assert set(ISSUE_RULES) <= set(RULES)
    for rule in RULES.values():
        assert rule.severity in ("error", "warning", "info") and rule.description and rule.source in SOURCES
    checked = {r for r, rule in RULES.items() if rule.source == "check"}
    tested = {c[0] for c in SPEC_CASES} | {c[0] for c in DATA_CASES} | {"ADR1-SINGLE-TABLE", "INDEX-FETCH"}
    assert tested == checked
    assert [r for r, rule in RULES.items() if rule.source == "heat"] == HEAT_RULE_IDS   # tested in test_heat.py, test_actions.py
    assert list(RULES)[-len(HEAT_RULE_IDS):] == HEAT_RULE_IDS        # after every check rule: the report's order
    assert {r for r, _ in [*SPEC_CHECKS, *DATA_CHECKS]} <= checked   # check_spec evaluates the check rules only
    with pytest.raises(ValueError, match="emitted by heat"):
        spec_check("HOT-PARTITION")(lambda ctx: [])


RULE_ID = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def emitted_rule_ids() -> dict[str, list[str]]:
    """Every rule id the package's code names, with where: the first argument (or ``rule=``) of
    ``Finding(...)``, a ``RULES["..."]`` subscript, ``spec_check`` / ``data_check`` / ``define``, a
    comparison with a finding's ``.rule`` - and, to leave no path out, any string literal anywhere in
    ``blue_nb`` that looks like a rule id (``UPPER-CASE-WORDS``)."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "blue_nb").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and RULE_ID.match(node.value):
                found.setdefault(node.value, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Call) and _call_name(node) == "Finding":
                arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "rule"), None)
                if isinstance(arg, ast.Constant):        # a literal id: must be a rule (an f-string or a name is not)
                    found.setdefault(str(arg.value), []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
                    assert path.parent.name == "rules", (
                        f"{path.relative_to(ROOT)}:{node.lineno} builds Finding({arg.value!r}, ...) itself: emit "
                        f"through the registry, RULES[{arg.value!r}].finding(...)")
                else:
                    assert not isinstance(arg, ast.JoinedStr), f"{path.relative_to(ROOT)}:{node.lineno}: a built rule id"
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "RULES":
                key = node.slice
                if isinstance(key, ast.Constant):
                    found.setdefault(str(key.value), []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_emitted_rule_id_is_defined_in_the_registry():
    found = emitted_rule_ids()
    assert {"HEAT-MODEL", "HOT-PARTITION", "TABLE-CAPACITY", "UNMATCHED-ITEM", "ITEM-SIZE"} <= set(found)
    undefined = {rule: where for rule, where in found.items() if rule not in RULES}
    assert not undefined, f"rule ids emitted but not defined in blue_nb.rules.RULES: {undefined}"
    heat_emitters = {w.split(":")[0] for r in HEAT_RULE_IDS[:-1] for w in found[r]}
    assert any(p.startswith("blue_nb/heat/") for p in heat_emitters)


def test_report_orders_counts_and_serializes():
    fs = [Finding("B", "info", "x", "m"), Finding("A", "error", "access_patterns[10]", "m", "h", ("k",)),
          Finding("A", "error", "access_patterns[2]", "m")]
    report = Findings(fs, spec="s.yaml", items_checked=3)
    assert [f.where for f in report] == ["access_patterns[2]", "access_patterns[10]", "x"]
    assert report.counts == {"error": 2, "warning": 0, "info": 1} and report.has_errors
    d = json.loads(report.to_json())
    assert set(d) == {"spec", "findings", "counts"}
    assert d["findings"][1] == {"rule": "A", "severity": "error", "where": "access_patterns[10]", "message": "m",
                                "hint": "h", "evidence": ["k"]}
    text = report.to_text()
    assert text.index("Errors (2)") < text.index("Notes (1)") and "fix: h" in text and "- k" in text
    with pytest.raises(ValueError):
        Finding("A", "fatal", "x", "m")


def test_reserved_words():
    words = reserved_words()
    assert len(words) == 573
    assert (ROOT / "blue_nb" / "rules" / "reserved_words.txt").read_text().count("\n") == 573
    assert {"STATUS", "NAME", "DATA", "COMMENT", "ROLE", "PATH", "TTL"} <= words
    assert is_reserved("status") and is_reserved("Status") and not is_reserved("title")


# -- the command line ----------------------------------------------------------------------------
def run(*args):
    return subprocess.run([str(BLUE_NB), "validate", *args], capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_cli_errors_exit_1_with_a_review():
    r = run("data/specs/dialogue.yaml", "--data", "data/sample/dialogue")
    assert r.returncode == 1, r.stderr
    assert "3 errors, 0 warnings, 4 notes" in r.stdout
    assert "[ADR4-SINGLE-WRITER] entities.TensionEvent.writer" in r.stdout and "Traceback" not in r.stderr


def test_cli_json_shape():
    r = run("data/specs/dialogue.yaml", "--data", "data/sample/dialogue", "--format", "json")
    assert r.returncode == 1
    d = json.loads(r.stdout)
    assert set(d) == {"spec", "findings", "counts"} and d["spec"] == "data/specs/dialogue.yaml"
    assert d["counts"] == {"error": 3, "warning": 0, "info": 4}
    for f in d["findings"]:
        assert {"rule", "severity", "where", "message", "hint", "evidence"} <= set(f)


def test_cli_v2_exits_0():
    r = run("data/specs/dialogue_v2.yaml", "--data", "data/sample/dialogue")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 errors, 0 warnings" in r.stdout


@pytest.mark.parametrize("args, message", [
    (("data/specs/nope.yaml",), "cannot read spec file"),
    (("data/specs/dialogue.yaml", "--data", "data/sample/nope"), "does not exist"),
])
def test_cli_bad_input_exits_2_without_traceback(args, message):
    r = run(*args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def _pair_by_scan(values: list[str]) -> tuple | None:
    """KEY-SORT-ORDER's evidence pair found the plain way: each new value against every earlier kept one."""
    from blue_nb.rules.data_keys import GROUP_VALUES, _number
    kept: dict[str, str] = {}
    for v in values:
        if v in kept:
            continue
        n = _number(v)
        for other, other_key in kept.items():
            m = _number(other)
            (a, ka, b, kb) = (other, other_key, v, f"K{v}") if m < n else (v, f"K{v}", other, other_key)
            if _number(a) < _number(b) and a > b:
                return (a, ka, b, kb)
        if len(kept) < GROUP_VALUES:
            kept[v] = f"K{v}"
    return None


@pytest.mark.parametrize("seed", range(40))
def test_sort_order_evidence_pair_is_the_one_a_full_scan_finds(seed):
    """The sorted-by-number search answers like comparing each value with every kept one (the same first pair)."""
    import random

    from blue_nb.rules.data_keys import _Values
    rng = random.Random(seed)
    pad, fixed = rng.choice([0, 0, 2, 3]), seed % 3 == 0           # a third padded to one width: no pair
    values = [f"{rng.randrange(0, 99_999):05d}" if fixed else
              f"{'0' * rng.choice([0, pad])}{rng.randrange(0, rng.choice([9, 99, 999, 50_000]))}"
              for _ in range(rng.randrange(1, 400))]
    v = _Values()
    for x in values:
        v.add(x, f"K{x}", 0)                                        # the text before the value: none
    assert v.pair == _pair_by_scan(values) and (v.pair is None) == fixed


def test_checks_fed_in_chunks_find_what_item_by_item_finds(dialogue_spec):
    """ItemChecks.add_chunk (a store's items, with the sizes the load recorded) takes shortcuts (a key that
    splits cleanly, an item smaller than any key limit): the findings are those of one item at a time."""
    from blue_nb.items import ItemBuilder
    from blue_nb.rules import ItemChecks
    from blue_nb.sizing import item_sizes

    spec, build = dialogue_spec, ItemBuilder(dialogue_spec).build
    items = [("Dialogue", build(spec.entities["Dialogue"], {"dialogue_id": d, "status": "open", "title": "t",
                                                             "created_at": "2026-01-01"}))
             for d in ("d1", "d2", "x" * 2100)]                                     # a partition key over 2,048 bytes
    for n, (rnd, expert) in enumerate([(1, "ann"), (2, "bob"), (10, "a#b"), (12, "cy"), (9, "dee"), (11, "e#f")]):
        items.append(("Perspective", build(spec.entities["Perspective"], {
            "dialogue_id": "d1", "round": str(rnd), "expert": expert, "seq": str(n), "label": "l", "content": "c",
            "status": "final"})))
    one = ItemChecks(spec, stored=True)
    for entity, item in items:
        one.add(entity, item)
    sizes = item_sizes([item for _, item in items])
    chunked = ItemChecks(spec, stored=True)
    entries = [(e, i, s) for (e, i), s in zip(items, sizes)]
    chunked.add_chunk(entries[:4])
    chunked.add_chunk(entries[4:])
    a, b = one.findings(), chunked.findings()
    assert {"KEY-SIZE", "KEY-SEPARATOR-IN-VALUE", "KEY-SORT-ORDER"} <= {f.rule for f in a}
    assert [(f.rule, f.where, f.message, f.evidence) for f in a] == [(f.rule, f.where, f.message, f.evidence) for f in b]
    assert a.items_checked == b.items_checked == len(items)


@pytest.mark.parametrize("kind", ["sqlite", "duckdb"])
def test_checks_fed_key_columns_find_what_items_find(root, kind):
    """check_loaded feeds the checks a loaded store's key columns (KeyRows): the same findings, evidence
    included, as the same items fed as (entity, item, size) entries and as items one by one; also with an
    item of no entity and an item whose sort key is a number (kept whole)."""
    from blue_nb.app.workflows import check_loaded, load_data
    from blue_nb.layout import TableLayout
    from blue_nb.rules import ItemChecks
    from blue_nb.spec import load_spec
    from blue_nb.stores import open_store

    spec = load_spec(root / "data" / "specs" / "dialogue.yaml")
    store = open_store(kind)
    load_data(spec, root / "data" / "sample" / "dialogue", stores=[store], progress=False)
    layout = TableLayout.of(spec)
    store.execute(f"UPDATE {layout.catalog} SET entity = NULL WHERE sk = 'META' AND pk IN "
                  f"(SELECT min(pk) FROM {layout.catalog})")                  # found again from its keys
    store.insert_rows(layout.table, ["pk", "sk", "data", "created_at"],
                      [("zz", "7", '{"pk":{"S":"zz"},"sk":{"N":"7"}}', "now")])
    store.insert_rows(layout.catalog, ["pk", "sk", "entity", "size"], [("zz", "7", None, 9)])
    columns = check_loaded(spec, store)
    chunked, one = ItemChecks(spec, stored=True), ItemChecks(spec, stored=True)
    entries = list(store.iter_key_items(layout, batch=700))
    for n in range(0, len(entries), 700):
        chunked.add_chunk(entries[n:n + 700])
    for entity, item, _ in entries:
        one.add(entity, item)
    seen = [[(f.rule, f.where, f.message, f.evidence) for f in x] for x in (columns, chunked.findings(), one.findings())]
    assert seen[0] == seen[1] == seen[2]
    assert {"KEY-SORT-ORDER", "KEY-PREFIX-COLLISION", "UNMATCHED-ITEM"} <= {f.rule for f in columns}
    assert columns.items_checked == len(entries) == store.count(spec.table_name)
    store.close()


@settings(max_examples=300, deadline=None)
@given(entries=st.lists(st.tuples(st.sampled_from(["", "R", "X#", "v"]), st.sampled_from(["", "0", "00"]),
                                  st.integers(0, 120), st.sampled_from(["", "T1#", "T2#", "T10#"])),
                        min_size=1, max_size=60),
       cuts=st.lists(st.integers(1, 60), max_size=4), odd=st.sampled_from([None, "abc", "", "1\n2"]))
def test_values_taken_a_run_at_a_time_are_values_taken_one_by_one(entries, cuts, odd):
    """_Values.add_many (a chunk's values of one placeholder) leaves the state add() value by value leaves:
    counts, heads, digit lengths, low and high, the last value, the pair found and the values kept."""
    from blue_nb.rules.data_keys import _Values

    values = [f"{name}{pad}{n}" for name, pad, n, _ in entries]
    keys = [f"{head}{v}#end" for (_, _, _, head), v in zip(entries, values)]
    starts = [len(head) for *_, head in entries]
    if odd is not None:                                   # a value that is not NAME+number, or holds a line break
        values.insert(len(values) // 2, odd)
        keys.insert(len(keys) // 2, f"T1#{odd}#end")
        starts.insert(len(starts) // 2, 3)
    one, runs = _Values(), _Values()
    for v, k, s in zip(values, keys, starts):
        one.add(v, k, s)
    bounds = sorted({0, len(values), *(c for c in cuts if c < len(values))})
    for a, b in zip(bounds, bounds[1:]):
        runs.add_many(values[a:b], keys[a:b], starts[a:b])
    state = ("items", "digits", "numbered", "heads", "lens", "low", "high", "pair", "last", "head")
    assert [getattr(runs, s) for s in state] == [getattr(one, s) for s in state]
    assert {h: g.keys for h, g in runs.groups.items()} == {h: g.keys for h, g in one.groups.items()}
