"""What a design costs per month (blue_nb.pricing, blue_nb.app.costs, ``blue-nb cost``):
THE worked case by hand, the price table as data (override, bad files), the what-if in dollars, the CLI."""

from __future__ import annotations

import dataclasses

import json
import math
from decimal import Decimal, localcontext
from pathlib import Path

import pytest
from click.testing import CliRunner

from blue_nb.app.costs import cost_whatif, design_cost
from blue_nb.cli import cli
from blue_nb.errors import QueryError, SourceError
from blue_nb.heat import partition_heat
from blue_nb.patterns import index_entry
from blue_nb.pricing import compare_bills, dollar_changes, load_prices, monthly_bill
from blue_nb.printing import cents
from blue_nb.sizing import item_size
from blue_nb.spec import loads_spec
from blue_nb.stores import load_items, open_store

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "data" / "specs"
D = Decimal

WORKED = """
spec_version: 1
domain: worked
table:
  partition_key: pk
  sort_key: sk
  indexes:
    gsi1: {type: global, partition_key: gsi1pk, sort_key: gsi1sk, projection: all}
entities:
  Doc:
    key: {pk: "DOC#{doc_id}", sk: "META"}
    attributes: {body: S}
  Event:
    key: {pk: "EVT#{event_id}", sk: "META", gsi1pk: "EVENTS", gsi1sk: "{event_id}"}
    attributes: {body: S}
access_patterns:
  - name: read_doc
    operation: get_item
    entities: [Doc]
    key_condition: {pk: "DOC#{doc_id}", sk: "META"}
    rate_per_second: 100
  - name: write_event
    operation: put_item
    entities: [Event]
    key_condition: {pk: "EVT#{event_id}", sk: "META"}
    rate_per_second: 10
"""


def exact(item: dict, size: int) -> dict:
    """``item`` with its ``body`` padded so that it weighs exactly ``size`` bytes."""
    item = {**item, "body": ""}
    item["body"] = "x" * (size - item_size(item))
    assert item_size(item) == size
    return item


def worked_items():
    docs = [("Doc", exact({"pk": f"DOC#d{i:02d}", "sk": "META"}, 6144)) for i in range(10)]            # 6 KB
    events = [("Event", exact({"pk": f"EVT#e{i:02d}", "sk": "META", "gsi1pk": "EVENTS", "gsi1sk": f"e{i:02d}"}, 1536))
              for i in range(20)]                                                                       # 1.5 KB
    return docs + events


@pytest.fixture(scope="module")
def worked():
    spec = loads_spec(WORKED)
    store = open_store("duckdb")
    load_items([store], spec, worked_items(), progress=False)
    yield spec, store
    store.close()


def test_the_worked_case_by_hand(worked):
    spec, store = worked
    r = monthly_bill(spec, store, peaks=False)             # provisioned for the mean: the hand arithmetic below
    read, write = r.pattern("read_doc"), r.pattern("write_event")
    # reads: a 6 KB item -> ceil(6144 / 4096) = 2 x 4 KB -> x 0.5 (eventual) = 1 RRU per read
    assert (read.rate, read.rcu_per_call, read.wcu_per_call) == (100, 1, 0)
    # 100 reads/s x 1 = 100 RRU/s; x 3600 x 730 = 262,800,000 RRU/month; x $0.125 / 10^6 = $32.85
    assert read.rcu_per_s == 100 and read.on_demand_usd == D("32.85")
    # writes: 1.5 KB -> ceil(1536 / 1024) = 2 WRU on the table + 2 WRU on gsi1 (projection all: the
    # entry is the whole item, 1536 B) = 4 WRU per write
    assert write.wcu_per_call == 4 and write.writes == {"table": 2, "gsi1": 2}
    # 10 writes/s x 4 = 40 WRU/s; x 3600 x 730 = 105,120,000 WRU/month; x $0.625 / 10^6 = $65.70
    assert write.wcu_per_s == 40 and write.on_demand_usd == D("65.70")
    t = r.totals
    assert t["rru_per_month"] == 262_800_000 and t["wru_per_month"] == 105_120_000
    assert t["on_demand_usd"] == D("98.55")                                       # 32.85 + 65.70
    # per index: table 100 RCU/s + 20 WCU/s ($32.85 + $32.85), gsi1 20 WCU/s ($32.85)
    table, gsi = r.indexes
    assert (table.rcu_per_s, table.wcu_per_s, table.on_demand_usd) == (100, 20, D("65.70"))
    assert (gsi.rcu_per_s, gsi.wcu_per_s, gsi.on_demand_usd) == (0, 20, D("32.85"))
    # provisioned at 60%, per table and per GSI (each has its own capacity; at least 1 unit):
    #   table RCU ceil(100 / 0.6) = 167 x 730 h x $0.00013 = $15.8483
    #   table WCU ceil( 20 / 0.6) =  34 x 730 h x $0.00065 = $16.133
    #   gsi1  RCU 0 -> the minimum 1 x 730 x $0.00013     = $0.0949
    #   gsi1  WCU ceil( 20 / 0.6) =  34 x 730 x $0.00065   = $16.133
    assert r.provisioned_capacity() == {"table": (167, 34), "gsi1": (1, 34)}
    cap = {c.name: c for c in r.capacity}
    assert (cap["table"].rcu_usd, cap["table"].wcu_usd) == (D("15.8483"), D("16.133"))
    assert (cap["gsi1"].rcu_usd, cap["gsi1"].wcu_usd) == (D("0.0949"), D("16.133"))
    assert t["provisioned_usd"] == D("48.2092") and (t["provisioned_rcu"], t["provisioned_wcu"]) == (168, 68)
    # storage: table 10 x (6144 + 100) + 20 x (1536 + 100) = 62,440 + 32,720 = 95,160 B;
    # gsi1 20 x (1536 + 100) = 32,720 B; together 127,880 B / 2^30 = 15,985 / 2^27 GB
    # = 0.000119097530841827392578125 GB (exact: 27 decimals) x $0.25 = $0.00002977438271045684814453125
    assert (table.entries, table.bytes, table.storage_bytes) == (30, 10 * 6144 + 20 * 1536, 95_160)
    assert (gsi.entries, gsi.bytes, gsi.storage_bytes) == (20, 20 * 1536, 32_720)
    assert t["storage_gb"] == D("0.000119097530841827392578125") == D(127_880) / D(2 ** 30)
    assert t["storage_usd"] == D("0.00002977438271045684814453125")
    # totals: requests or capacity + storage
    assert t["total_on_demand_usd"] == D("98.55002977438271045684814453125")          # 98.55 + storage
    assert t["total_provisioned_usd"] == D("48.20922977438271045684814453125")        # 48.2092 + storage
    assert (cents(t["total_on_demand_usd"]), cents(t["total_provisioned_usd"])) == (D("98.55"), D("48.21"))
    # the text: dollars to the cent, half up; the storage, under half a cent, to two significant digits (never $0.0000)
    text = str(r)
    assert "total on demand:   requests $98.55 + storage $0.000030 = $98.55/month" in text
    assert "total provisioned: capacity $48.21 + storage $0.000030 = $48.21/month" in text
    assert "  table        100.00 RCU/s, 20.00 WCU/s -> 167 RCU, 34 WCU: $31.98/month" in text
    assert repr(r) == "Bill(worked: on demand $98.55/month, provisioned $48.21/month, us-east-1 2024-11)"


def test_the_free_tier_and_standard_ia_are_applied_only_when_asked(worked):
    spec, store = worked
    assert monthly_bill(spec, store, peaks=False, free_storage=True).totals["storage_usd"] == 0      # 127,880 B < 25 GB
    ia = monthly_bill(spec, store, peaks=False, table_class="standard_ia").totals
    assert ia["storage_usd"] == D(127_880) / D(2 ** 30) * D("0.10") and ia["on_demand_usd"] == D("98.55")


def test_provisioned_capacity_covers_the_simulated_peak_of_the_heat_model(worked):
    spec, store = worked
    r = monthly_bill(spec, store)                                # peaks: the busiest of 60 simulated seconds
    heat = partition_heat(spec, store, sizes=False)              # same seconds and seed: the same draws
    table = next(c for c in r.capacity if c.name == "table")
    assert float(table.peak_rcu) == pytest.approx(heat.table["peak_rcu"], abs=1e-9)
    assert float(table.peak_wcu) == pytest.approx(heat.table["peak_wcu"], abs=1e-9)
    assert table.peak_rcu > 100                                  # Poisson(100) seconds: the busiest is above the mean
    for c in r.capacity:
        assert c.rcu == max(1, math.ceil(c.peak_rcu / D("0.6"))) and c.wcu == max(1, math.ceil(c.peak_wcu / D("0.6")))
        assert c.peak_rcu >= c.mean_rcu and c.peak_wcu >= c.mean_wcu
    assert r.totals["on_demand_usd"] == D("98.55")               # on demand pays the mean, whatever the peaks
    reused = monthly_bill(spec, store, heat=heat)                # the heat report's own seconds: the same peaks
    assert reused.provisioned_capacity() == r.provisioned_capacity() and "heat report" in reused.peaks
    assert heat.priced is not None                               # and its pricing of the patterns: the same bill
    assert reused.summary() == monthly_bill(spec, store, heat=dataclasses.replace(heat, priced=None)).summary()
    assert reused.summary()["patterns"] == r.summary()["patterns"] and reused.totals == r.totals
    with pytest.raises(QueryError, match="heat report's peaks"):
        monthly_bill(spec, store, heat=heat, rates={"read_doc": 1})


def test_rate_overrides_and_utilisation_change_the_dollars(worked):
    spec, store = worked
    r = monthly_bill(spec, store, peaks=False, rates={"read_doc": 200}, utilisation=0.5)
    assert r.pattern("read_doc").on_demand_usd == D("65.70") and r.pattern("write_event").on_demand_usd == D("65.70")
    assert r.provisioned_capacity()["table"] == (400, 40)       # 200 / 0.5, 20 / 0.5
    with pytest.raises(QueryError, match="no access pattern nope"):
        monthly_bill(spec, store, rates={"nope": 1})
    with pytest.raises(QueryError, match="rate of read_doc"):
        monthly_bill(spec, store, rates={"read_doc": -1})
    for bad in (0, 1.5, float("nan"), "0.6"):
        with pytest.raises(QueryError, match="utilisation"):
            monthly_bill(spec, store, utilisation=bad)


LSI = """
spec_version: 1
domain: lsi
table:
  partition_key: pk
  sort_key: sk
  indexes:
    by_time: {type: local, sort_key: ts, projection: keys_only}
entities:
  Event:
    key: {pk: "EVT#{event_id}", sk: "META"}
    attributes: {ts: S, body: S}
access_patterns:
  - name: write_event
    operation: put_item
    entities: [Event]
    key_condition: {pk: "EVT#{event_id}", sk: "META"}
    rate_per_second: 10
"""


def test_lsi_writes_are_split_out_but_provisioned_with_the_table():
    spec = loads_spec(LSI)
    items = [exact({"pk": f"EVT#e{i}", "sk": "META", "ts": f"2024-01-0{i}"}, 1536) for i in range(1, 5)]
    entry = item_size(index_entry(items[0], spec, "by_time"))        # keys only: pk, sk, ts
    assert entry < 1024
    with open_store("duckdb") as store:
        load_items([store], spec, [("Event", i) for i in items], progress=False)
        r = monthly_bill(spec, store, peaks=False)
    # 2 WRU on the table (1536 B) + 1 on the LSI (its keys-only entry is under 1 KB)
    assert r.pattern("write_event").writes == {"table": 2, "by_time": 1}
    assert [(i.index, i.kind, i.wcu_per_s, i.storage_bytes) for i in r.indexes] == [
        ("table", "table", 20, 4 * (1536 + 100)), ("by_time", "local", 10, 4 * (entry + 100))]
    assert r.provisioned_capacity() == {"table": (1, 50)}            # ceil(30 / 0.6): the LSI's units too
    assert any("LSI" in n for n in r.notes)


# -- the price table as data ------------------------------------------------------------------
def test_the_packaged_price_table_is_section_6():
    p = load_prices()
    assert (p.region, p.date, p.currency, p.hours_per_month) == ("us-east-1", "2024-11", "USD", 730)
    assert (p.on_demand_read_per_million, p.on_demand_write_per_million) == (D("0.125"), D("0.625"))
    assert (p.provisioned_rcu_hour, p.provisioned_wcu_hour) == (D("0.00013"), D("0.00065"))
    assert (p.storage_standard_gb_month, p.storage_standard_ia_gb_month) == (D("0.25"), D("0.10"))
    assert (p.storage_gb_bytes, p.free_storage_gb) == (2 ** 30, 25)
    with pytest.raises(SourceError, match="no price table for region 'mars-1'"):
        load_prices(region="mars-1")


def price_file(tmp_path: Path, **changes) -> Path:
    data = json.loads((ROOT / "blue_nb" / "pricing" / "tables" / "us-east-1.json").read_text())
    for k, v in changes.items():
        if v is None:
            data.pop(k)
        else:
            data[k] = v
    f = tmp_path / "prices.json"
    f.write_text(json.dumps(data))
    return f


def test_a_price_file_overrides_the_dollars(worked, tmp_path):
    spec, store = worked
    f = price_file(tmp_path, region="eu-west-1", date="2025-01", on_demand_read_per_million=0.25,
                   provisioned_rcu_hour=0.00026)
    r = monthly_bill(spec, store, prices=f, peaks=False)
    assert (r.prices.region, r.prices.date, r.prices.source) == ("eu-west-1", "2025-01", str(f))
    assert r.pattern("read_doc").on_demand_usd == D("65.70")          # 262,800,000 RRU x $0.25 / 10^6
    assert r.pattern("write_event").on_demand_usd == D("65.70")       # writes: the same price as before
    assert r.capacity[0].rcu_usd == D("31.6966")                      # 167 x 730 x $0.00026
    assert "eu-west-1 prices of 2025-01" in str(r)


@pytest.mark.parametrize("changes, field, message", [
    ({"on_demand_read_per_million": -0.1}, "on_demand_read_per_million", "must be >= 0, got -0.1"),
    ({"provisioned_wcu_hour": None}, "provisioned_wcu_hour", "missing price field 'provisioned_wcu_hour'"),
    ({"rcu_price": 0.1}, "rcu_price", "unknown price field 'rcu_price'"),
    ({"hours_per_month": 0}, "hours_per_month", "must be > 0"),
    ({"storage_standard_gb_month": "0.25"}, "storage_standard_gb_month", "must be a number"),
    ({"region": ""}, "region", "must be a non-empty string"),
])
def test_bad_price_files_name_the_file_and_the_field(tmp_path, changes, field, message):
    f = price_file(tmp_path, **changes)
    with pytest.raises(SourceError, match=message) as e:
        load_prices(f)
    assert e.value.where == f"{f}: {field}"


def test_a_price_file_that_is_not_json_names_its_line(tmp_path):
    f = tmp_path / "prices.json"
    f.write_text('{\n  "region": "us-east-1",\n  oops\n}')
    with pytest.raises(SourceError, match="not valid JSON") as e:
        load_prices(f)
    assert e.value.where == f"{f}:3"
    with pytest.raises(SourceError, match="cannot read the price file"):
        load_prices(tmp_path / "missing.json")


# -- what-if ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dialogue_whatif(dialogue_data):
    return cost_whatif(SPECS / "dialogue.yaml", SPECS / "dialogue_v2.yaml", dialogue_data)


def test_the_whatif_adds_up_per_pattern_to_the_totals(dialogue_whatif):
    old, new, diff = dialogue_whatif
    pats, totals = diff[diff["kind"] == "pattern"], diff[diff["kind"] == "total"].set_index("name")
    assert list(pats["name"]) == [p.pattern for p in old.patterns]
    for col in ("usd", "rcu", "wcu"):
        assert sum(pats[f"{col}_diff"], D(0)) == totals.loc["on demand requests", f"{col}_diff"]
        assert sum(pats[f"{col}_new"], D(0)) == totals.loc["on demand requests", f"{col}_new"]
    req = totals.loc["on demand requests", "usd_diff"]
    assert req == new.totals["on_demand_usd"] - old.totals["on_demand_usd"] != 0
    with localcontext() as ctx:
        ctx.prec = 50                # storage dollars carry ~30 decimals (bytes / 2^30): add them unrounded
        assert totals.loc["total on demand", "usd_diff"] == req + totals.loc["storage", "usd_diff"]
        assert totals.loc["total provisioned", "usd_diff"] == (totals.loc["provisioned capacity", "usd_diff"]
                                                               + totals.loc["storage", "usd_diff"])
    # v2 pads the perspective keys (PERSP#007#...): longer keys, bigger items, more units to read them
    lp = pats.set_index("name").loc["list_perspectives"]
    assert lp["rate_diff"] == 0 and lp["rcu_diff"] > 0 and lp["usd_diff"] > 0
    again = compare_bills(old, new)
    assert again.equals(diff)


def test_dollar_changes_are_the_bills_exact_dollars_and_none_where_a_pattern_is_missing(worked):
    spec, store = worked
    old = monthly_bill(spec, store, peaks=False)
    new = monthly_bill(spec, store, peaks=False, rates={"read_doc": 200})
    rows = {r["what"]: (r["old_usd"], r["new_usd"]) for r in dollar_changes(old, new)}
    assert list(rows) == ["read_doc", "write_event", "total on demand", "total provisioned", "storage"]
    assert rows["read_doc"] == (D("32.85"), D("65.70")) and rows["write_event"] == (D("65.70"), D("65.70"))
    assert rows["total on demand"] == (old.totals["total_on_demand_usd"], new.totals["total_on_demand_usd"])
    assert rows["storage"] == (old.totals["storage_usd"], new.totals["storage_usd"])
    without = dataclasses.replace(new, patterns=new.patterns[1:])              # a version without read_doc
    rows = {r["what"]: (r["old_usd"], r["new_usd"]) for r in dollar_changes(old, without)}
    assert rows["read_doc"] == (D("32.85"), None)
    with localcontext() as ctx:
        ctx.prec = 50                # the storage dollars carry ~30 decimals: add them unrounded
        assert rows["total on demand"][1] == D("65.70") + rows["storage"][1]


# -- the command line -------------------------------------------------------------------------
def test_cli_cost_text_and_json(dialogue_data, tmp_path):
    spec = str(SPECS / "dialogue.yaml")
    text = CliRunner().invoke(cli, ["cost", spec, "--data", str(dialogue_data), "--mean"])
    assert text.exit_code == 0, text.output
    assert "us-east-1 prices of 2024-11" in text.output and "get_dialogue" in text.output
    assert "total on demand:" in text.output and "total provisioned:" in text.output
    out = CliRunner().invoke(cli, ["cost", spec, "--data", str(dialogue_data), "--format", "json",
                                   "--utilisation", "0.5", "--rate", "get_dialogue=240"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)                 # stderr: the command's first line, "cost ...: reading ..."
    assert (doc["region"], doc["date"], doc["utilisation"]) == ("us-east-1", "2024-11", 0.5)
    get = next(p for p in doc["patterns"] if p["pattern"] == "get_dialogue")
    assert (get["rate"], get["rcu_per_call"], get["rcu_per_s"]) == (240, 0.5, 120)     # items under 4 KB: 0.5 RRU each
    assert get["on_demand_usd"] == 39.42                                              # 120 x 2,628,000 x 0.125e-6
    assert doc["totals"]["total_on_demand_usd"] == pytest.approx(
        doc["totals"]["on_demand_usd"] + doc["totals"]["storage_usd"])


def test_cli_cost_bad_prices_exit_2(dialogue_data, tmp_path):
    bad = price_file(tmp_path, on_demand_write_per_million=-1)
    r = CliRunner().invoke(cli, ["cost", str(SPECS / "dialogue.yaml"), "--data", str(dialogue_data), "--prices", str(bad)])
    assert r.exit_code == 2
    assert "on_demand_write_per_million" in r.output and str(bad) in r.output
    r = CliRunner().invoke(cli, ["cost", str(SPECS / "dialogue.yaml"), "--data", str(dialogue_data), "--rate", "x"])
    assert r.exit_code == 2 and "NAME=CALLS_PER_SECOND" in r.output


def test_design_cost_loads_the_data_itself(dialogue_data):
    r = design_cost(SPECS / "dialogue.yaml", dialogue_data, peaks=False)
    assert [p.pattern for p in r.patterns][:2] == ["get_dialogue", "list_experts"]
    assert r.frame("indexes")["index"].tolist() == ["table", "gsi1"]
    assert set(r.provisioned_capacity()) == {"table", "gsi1"}
    assert json.loads(r.to_json())["totals"]["on_demand_usd"] == float(r.totals["on_demand_usd"])


def test_storage_read_off_the_heat_reports_sizes_is_the_storage_the_store_sums(worked):
    spec, store = worked
    heat = partition_heat(spec, store)                           # with its item and index entry sizes
    assert len(heat.sizes) and len(heat.entries)
    sql = monthly_bill(spec, store, heat=dataclasses.replace(heat, sizes=heat.sizes.iloc[:0]))   # summed in SQL
    read = monthly_bill(spec, store, heat=heat)
    assert [(i.index, i.entries, i.bytes) for i in read.indexes] == [(i.index, i.entries, i.bytes) for i in sql.indexes]
    assert read.summary() == sql.summary() and any(i.bytes for i in read.indexes if i.index != "table")


def test_the_whatif_leaves_units_empty_where_a_row_has_none(dialogue_whatif):
    """Storage and the dollar totals have no RCU or WCU: None (an empty cell), not 0.00; a pattern's rate is there."""
    _, _, diff = dialogue_whatif
    rows = diff.set_index(["kind", "name"])
    for name in ("storage", "total on demand", "total provisioned"):
        assert rows.loc[("total", name), ["rcu_old", "rcu_new", "wcu_diff", "rate_new"]].isna().all(), name
        assert rows.loc[("total", name), "usd_new"] is not None
    assert rows.loc[("total", "on demand requests"), "rcu_new"] > 0 and rows.xs("pattern")["rate_new"].notna().all()
    assert rows.xs("index")["rate_new"].isna().all()


def test_the_whatif_table_shows_dollars_in_the_one_money_format(dialogue_whatif):
    """What notebook 06 shows: every dollar cell as printing.usd prints it (sub-cent storage to two significant
    digits, never 0.00; a change signed, a dash for none) and no units on storage and the totals."""
    from blue_nb.printing import usd

    table = dialogue_whatif.table()
    diff = dialogue_whatif.diff.set_index("name")
    html, text = table._repr_html_(), repr(table)
    storage = diff.loc["storage"]
    assert 0 < storage["usd_new"] < 0.005 and usd(storage["usd_new"]) in html      # not $0.00
    for name, row in diff.iterrows():
        assert usd(row["usd_new"]) in html and usd(row["usd_diff"], signed=True) in html, name
    line = next(t for t in text.splitlines() if t.startswith("storage"))
    assert line.split()[1:] == ["total", usd(storage["usd_old"]), usd(storage["usd_new"]),
                                usd(storage["usd_diff"], signed=True)]                 # no unit cells
