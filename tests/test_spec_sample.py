"""blue-nb sample SPEC: rows for any spec, from its templates, types and generate: section."""

from __future__ import annotations

import csv
import json
import random
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from blue_nb.cli import cli
from blue_nb.errors import SpecError
from blue_nb.samples import plan_sample, sample_spec
from blue_nb.spec import ATTRIBUTE_TYPES, load_spec, loads_spec

ORDERS = """
spec_version: 1
domain: shop
table:
  partition_key: pk
  sort_key: sk
  indexes:
    gsi1: {type: global, partition_key: gsi1pk, sort_key: gsi1sk}
entities:
  Customer:
    source: customers
    key: {pk: "CUST#{customer_id}", sk: "PROFILE"}
    attributes: {name: S, tier: S, joined_at: S}
  Order:
    source: orders
    key: {pk: "CUST#{customer_id}", sk: "ORDER#{order_id}", gsi1pk: "STATUS#{status}", gsi1sk: "{placed_at}"}
    attributes: {status: S, placed_at: S, total: N, note: S}
  Line:
    source: lines
    key: {pk: "CUST#{customer_id}", sk: "ORDER#{order_id}#LINE#{line:03d}"}
    attributes: {sku: S, qty: N}
access_patterns:
  - {name: orders_of, operation: query, entities: [Order], key_condition: {pk: "CUST#{customer_id}", sk_begins_with: "ORDER#"},
     rate_per_second: 30, key_distribution: "zipf:1.1"}
"""


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def rows(path: Path) -> list[dict]:
    csv.field_size_limit(1 << 24)
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def orders(extra: str = "") -> object:
    return loads_spec(ORDERS + extra, source="orders.yaml")


# ---------------------------------------------------------------- a spec never seen, no generate: section

def random_spec(seed: int) -> dict:
    """A spec drawn from ``seed``: random names, a parent with 1-3 children (one with a grandchild),
    every attribute type, integer-formatted and number keys, a GSI."""
    rng = random.Random(seed)
    word = lambda: "".join(rng.choices("bcdfghklmnprstvz", k=2)) + rng.choice("aeiou") + str(rng.randint(0, 99))  # noqa: E731
    root_col = f"{word()}_id"
    entities = {"Root": {"key": {"pk": f"R#{{{root_col}}}", "sk": "META"},
                         "attributes": {f"a{i}": t for i, t in enumerate(rng.sample(ATTRIBUTE_TYPES, 4))}}}
    for k in range(rng.randint(1, 3)):
        col = word()
        fmt = rng.choice(["", ":04d"])
        entities[f"Kid{k}"] = {"key": {"pk": f"R#{{{root_col}}}", "sk": f"K{k}#{{{col}{fmt}}}",
                                       "g1pk": f"G#{{{col}{fmt}}}"},
                               "attributes": {f"b{i}": t for i, t in enumerate(rng.sample(ATTRIBUTE_TYPES, 5))}}
        if k == 0:
            entities["Grand"] = {"key": {"pk": f"R#{{{root_col}}}", "sk": f"K0#{{{col}{fmt}}}#G#{{gseq}}"},
                                 "attributes": {"when_at": "S", "n": "N"}}
    return {"spec_version": 1, "domain": f"d{seed}",
            "table": {"partition_key": "pk", "sort_key": "sk",
                      "indexes": {"gsi1": {"type": "global", "partition_key": "g1pk"}}},
            "entities": entities,
            "access_patterns": [{"name": "get_root", "operation": "get_item", "entities": ["Root"],
                                 "key_condition": {"pk": f"R#{{{root_col}}}", "sk": "META"},
                                 "rate_per_second": 20, "key_distribution": "zipf:1.2"}]}


@pytest.mark.parametrize("seed", [101, 202])
def test_an_unseen_spec_goes_through_sample_load_validate_heat_and_the_report(tmp_path, seed):
    spec_file = tmp_path / "unseen.yaml"
    spec_file.write_text(yaml.safe_dump(random_spec(seed), sort_keys=False), encoding="utf-8")
    data = tmp_path / "data"
    r = run("sample", spec_file, "--scale", 1500, "--seed", 4, "--out", data, "--no-progress", "--format", "json")
    assert r.exit_code == 0, r.output
    written = json.loads(r.output)["rows"]
    assert set(written) == set(random_spec(seed)["entities"]) and all(n > 0 for n in written.values())
    assert 1200 <= sum(written.values()) <= 1800
    r = run("load", spec_file, "--data", data, "--duckdb", tmp_path / "x.duckdb", "--no-progress", "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)[0]["items"] == sum(written.values())          # every row an item, no key twice
    r = run("validate", spec_file, "--data", data, "--format", "json")
    assert r.exit_code in (0, 1), r.output                                    # findings, never a crash
    assert "items_checked" in r.output or "findings" in r.output
    r = run("heat", spec_file, "--data", data, "--out", tmp_path / "heat", "--no-progress")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "heat" / "summary.json").exists()
    r = run("export", spec_file, "--format", "report-html", "--data", data, "--out", tmp_path / "r.html", "--force")
    assert r.exit_code == 0, r.output
    assert "Root" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_children_name_parents_that_exist_and_keys_are_unique(tmp_path):
    counts = sample_spec(orders(), scale=3000, seed=1, out_dir=tmp_path)
    assert list(counts) == ["customers", "orders", "lines"]
    cust = rows(tmp_path / "customers.csv")
    ords = rows(tmp_path / "orders.csv")
    lines = rows(tmp_path / "lines.csv")
    ids = {c["customer_id"] for c in cust}
    assert len(ids) == len(cust)
    assert {o["customer_id"] for o in ords} <= ids
    order_keys = [(o["customer_id"], o["order_id"]) for o in ords]
    assert len(set(order_keys)) == len(order_keys)
    assert {(x["customer_id"], x["order_id"]) for x in lines} <= set(order_keys)
    assert len({(x["customer_id"], x["order_id"], x["line"]) for x in lines}) == len(lines)
    assert all(x["line"].isdigit() for x in lines)                      # {line:03d} gets integers
    assert all(o["placed_at"].endswith("Z") and o["placed_at"][:2] == "20" for o in ords)
    assert 2700 <= sum(counts.values()) <= 3300


def test_same_seed_same_bytes(tmp_path):
    spec = orders()
    sample_spec(spec, scale=800, seed=9, out_dir=tmp_path / "a")
    sample_spec(spec, scale=800, seed=9, out_dir=tmp_path / "b")
    sample_spec(spec, scale=800, seed=10, out_dir=tmp_path / "c")
    read = lambda d: {p.name: p.read_bytes() for p in sorted(d.iterdir())}  # noqa: E731
    assert read(tmp_path / "a") == read(tmp_path / "b") != read(tmp_path / "c")


# ---------------------------------------------------------------- the generate: section

GENERATE = """
generate:
  entities:
    Customer:
      count: 40
      fields:
        customer_id: {name: {unicode: 0.3}}
        tier: {enum: {gold: 1, silver: 3, bronze: 6}}
    Order:
      per_parent: {zipf: 1.3, max: 400, first: 500}
      fields:
        order_id: {uuid: true}
        status: {cardinality: 3, skew: 2}
        placed_at: {timestamp: {start: "2026-01-01T00:00:00Z", per_day: 2}}
        total: {min: 5, max: 90, decimals: 2}
        note: {present: 0.25, length: {mix: [{weight: 99, fixed: 10}, {weight: 1, uniform: [380000, 390000]}]}}
    Line:
      per_parent: {weights: [0, 6, 3, 1]}
      fields:
        qty: {min: 1, max: 3}
"""


def test_generate_section_counts_and_values(tmp_path):
    counts = sample_spec(orders(GENERATE), scale=5000, seed=2, out_dir=tmp_path)
    cust, ords, lines = (rows(tmp_path / f) for f in ("customers.csv", "orders.csv", "lines.csv"))
    assert counts["customers"] == len(cust) == 40                                   # a total
    per = Counter(o["customer_id"] for o in ords)
    assert per[cust[0]["customer_id"]] == 500                                       # first: the outlier
    assert max(n for c, n in per.items() if c != cust[0]["customer_id"]) <= 400     # zipf max
    assert sum(n <= 3 for n in per.values()) >= len(per) // 4                       # many are small,
    assert sum(sorted(per.values())[-4:]) > sum(per.values()) / 2                    # a few hold most
    assert any(not c["customer_id"].isascii() for c in cust)
    tiers = Counter(c["tier"] for c in cust)
    assert set(tiers) <= {"gold", "silver", "bronze"} and tiers["bronze"] > tiers["gold"]
    assert len({o["order_id"] for o in ords}) == len(ords) and all(len(o["order_id"]) == 36 for o in ords)
    statuses = Counter(o["status"] for o in ords)
    assert len(statuses) == 3 and statuses.most_common(1)[0][1] > len(ords) * 0.5  # a hot GSI key
    assert all(5 <= float(o["total"]) <= 90 for o in ords)
    notes = [o["note"] for o in ords if o["note"]]
    assert 0.15 * len(ords) < len(notes) < 0.35 * len(ords)
    first = [o["placed_at"] for o in ords if o["customer_id"] == cust[0]["customer_id"]]
    assert first == sorted(first) and len(set(first)) == len(first)                  # increasing per parent
    assert first[0] >= "2026-01-01"
    per_order = Counter((x["customer_id"], x["order_id"]) for x in lines)
    assert set(per_order.values()) <= {1, 2, 3} and {int(x["qty"]) for x in lines} <= {1, 2, 3}
    assert len(per_order) == len(ords)                                               # weights[0] = 0: none without


def test_generate_tail_near_the_item_limit(tmp_path):
    gen = GENERATE.replace("weight: 99, fixed: 10}, {weight: 1,", "weight: 1, fixed: 10}, {weight: 1,")
    sample_spec(orders(gen), scale=2000, seed=2, out_dir=tmp_path)
    big = [len(o["note"].encode()) for o in rows(tmp_path / "orders.csv") if len(o["note"]) > 1000]
    assert big and all(380_000 <= n <= 400_000 for n in big)


def test_the_generate_section_round_trips_through_the_spec(tmp_path):
    spec = orders(GENERATE)
    assert spec.generate["entities"]["Order"]["per_parent"]["first"] == 500
    again = loads_spec(yaml.safe_dump(spec.to_dict(), allow_unicode=True), source="again.yaml")
    assert again.generate == spec.generate
    assert "generate" not in orders().to_dict()
    shipped = load_spec(Path(__file__).parents[1] / "data/specs/dialogue.yaml")
    assert loads_spec(yaml.safe_dump(shipped.to_dict(), allow_unicode=True)).generate == shipped.generate


@pytest.mark.parametrize("gen,where,message", [
    ("    Order:\n      per_parent: {fixed: 9000}\n", "generate.entities.Order.per_parent",
     "more than the scale"),
    ("    Customer:\n      fields:\n        tier: {enum: {gold: -1}}\n", "generate.entities.Customer.fields.tier.enum.gold",
     "below the minimum"),
    ("    Order:\n      fields:\n        total: {enum: {a: 1}}\n", "generate.entities.Order.fields.total.enum",
     "is a number"),
    ("    Order:\n      per_parent: {uniform: [9, 2]}\n", "generate.entities.Order.per_parent.uniform", "low is above"),
    ("    Order:\n      per_parent: {fixed: 2, zipf: 1.1}\n", "generate.entities.Order.per_parent", "give one"),
    ("    Order:\n      count: 5\n", "generate.entities.Order.count", "per_parent instead"),
    ("    Nope:\n      count: 5\n", "generate.entities.Nope", "does not declare"),
    ("    Order:\n      fields:\n        colour: {value: red}\n", "generate.entities.Order.fields.colour", "no column"),
    ("    Line:\n      per_parent: {weights: [0, 0]}\n", "generate.entities.Line.per_parent.weights", "every weight"),
    ("    Order:\n      fields:\n        order_id: {present: 0.5}\n", "generate.entities.Order.fields.order_id.present",
     "every item needs it"),
    ("    Order:\n      fields:\n        placed_at: {timestamp: {start: yesterday}}\n",
     "generate.entities.Order.fields.placed_at.timestamp.start", "not an ISO 8601"),
])
def test_an_impossible_declaration_is_refused_with_its_spec_path(gen, where, message):
    with pytest.raises(SpecError) as e:
        plan_sample(orders("generate:\n  entities:\n" + gen), 1000)
    text = str(e.value)
    assert where in text and message in text, text


def test_a_refusal_at_sample_time_names_the_line_and_a_changed_spec_names_none():
    text = ORDERS + "generate:\n  entities:\n    Order:\n      per_parent: {fixed: 9000}\n"
    spec = loads_spec(text, source="shop.yaml")
    line = ORDERS.count("\n") + 4
    assert spec.where("generate.entities.Order.per_parent") == f"shop.yaml:{line} generate.entities.Order.per_parent"
    assert spec.where("generate.entities.Order.per_parent.fixed") == \
        f"shop.yaml:{line} generate.entities.Order.per_parent.fixed"          # in a flow mapping: on its line
    with pytest.raises(SpecError) as e:
        plan_sample(spec, 1000)
    assert e.value.where == f"shop.yaml:{line} generate.entities.Order.per_parent"
    changed = spec.with_changes(description="another")              # no longer the file: no line to name
    assert changed.where("generate.entities.Order.per_parent") == "shop.yaml generate.entities.Order.per_parent"
    assert loads_spec(text).where("generate.entities.Order") == "generate.entities.Order"     # no file at all


def test_a_bad_declaration_exits_2_naming_the_path(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(ORDERS + "generate:\n  entities:\n    Order:\n      per_parent: {fixed: 50000}\n", encoding="utf-8")
    r = CliRunner().invoke(cli, ["sample", str(f), "--out", str(tmp_path / "o"), "--scale", "100"])
    assert r.exit_code == 2
    line = ORDERS.count("\n") + 4                      # a refusal that needs the scale: at its file:line too
    assert f"{f}:{line} generate.entities.Order.per_parent" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_the_workbench_export_carries_generated_items_as_its_sample_data(tmp_path):
    spec_file = tmp_path / "shop.yaml"
    spec_file.write_text(ORDERS + GENERATE, encoding="utf-8")
    counts = sample_spec(load_spec(spec_file), scale=1500, seed=4, out_dir=tmp_path / "rows")
    r = run("export", spec_file, "--format", "workbench", "--data", tmp_path / "rows", "-o", tmp_path / "m.json", "--force")
    assert r.exit_code == 0, r.output
    model = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))["DataModel"][0]
    facets = {f["FacetName"]: f.get("TableData", []) for f in model["TableFacets"]}
    assert set(facets) == {"Customer", "Order", "Line"}
    assert [len(facets[name]) for name in ("Customer", "Line", "Order")] == \
        [counts[src] for src in ("customers", "lines", "orders")]                   # every generated item is carried
    customers = {row["customer_id"]["S"] if "customer_id" in row else row["pk"]["S"] for row in facets["Customer"]}
    generated = {c["customer_id"] for c in rows(tmp_path / "rows" / "customers.csv")}
    assert customers and all(any(g in c for g in generated) for c in customers)   # the generated items, as they are


def test_a_generate_section_naming_what_the_spec_lacks_is_refused_at_its_line(tmp_path):
    bad = ORDERS + ("generate:\n  entities:\n    Order:\n      fields:\n        colour: {value: red}\n"
                    "        total: {enum: {a: 1}}\n        note: {ref: Nope.x}\n    Nope:\n      count: 3\n")
    with pytest.raises(SpecError) as e:
        loads_spec(bad, source="shop.yaml")
    wheres = [p.where for p in e.value.problems]
    n = ORDERS.count("\n")
    assert wheres == [f"shop.yaml:{n + 5} generate.entities.Order.fields.colour",
                      f"shop.yaml:{n + 6} generate.entities.Order.fields.total.enum",
                      f"shop.yaml:{n + 7} generate.entities.Order.fields.note.ref",
                      f"shop.yaml:{n + 8} generate.entities.Nope"]
