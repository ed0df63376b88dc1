"""Transactions and batches as patterns: the spec (its refusals by spec path), the plan (one SQL transaction
per store, one boto3 request), DynamoDB's limits and prices (2 units per item in a transaction, a batch the sum
of its items), a failed condition cancelling the whole transaction, and the same call on the endpoint."""

from __future__ import annotations

import copy
import re
from decimal import Decimal

import pytest

from blue_nb.errors import QueryError, SpecError
from blue_nb.patterns import ActionsPlan, plan
from blue_nb.sizing import item_size, read_units, write_units
from blue_nb.spec import dumps_spec, loads_spec, spec_from_dict
from blue_nb.stores import load_items, open_store

from .endpoints import own_client

BODY = "b" * 1500          # a perspective of 1.5 KB and more: 2 standard write units, 4 in a transaction


def spec_dict(**extra) -> dict:
    d = {"spec_version": 1, "domain": "tx", "table": {
        "partition_key": "pk", "sort_key": "sk",
        "indexes": {"by_expert": {"type": "global", "partition_key": "expert", "projection": "keys_only"}}},
        "entities": {
            "Dialogue": {"source": "dialogues", "key": {"pk": "DLG#{d}", "sk": "META"}, "attributes": {"n": "N"}},
            "Perspective": {"source": "perspectives", "key": {"pk": "DLG#{d}", "sk": "P#{p}", "expert": "EXP#{e}"},
                            "attributes": {"body": "S"}},
            "Expert": {"source": "experts", "key": {"pk": "EXP#{e}", "sk": "PROFILE"}, "attributes": {"bio": "S"}}},
        "access_patterns": [
            {"name": "put_perspective", "operation": "put_item", "entities": ["Perspective"],
             "key_condition": {"pk": "DLG#{d}", "sk": "P#{p}"},
             "condition": {"expression": "attribute_not_exists(pk)"}},
            {"name": "count_perspective", "operation": "update_item", "entities": ["Dialogue"],
             "key_condition": {"pk": "DLG#{d}", "sk": "META"},
             "update": {"expression": "SET n = n + :one", "values": {"one": 1}},
             "condition": {"expression": "n < :most", "values": {"most": {"N": "{most}"}}}},
            {"name": "drop_perspective", "operation": "delete_item", "entities": ["Perspective"],
             "key_condition": {"pk": "DLG#{d}", "sk": "P#{p}"}},
            {"name": "get_expert", "operation": "get_item", "entities": ["Expert"],
             "key_condition": {"pk": "EXP#{e}", "sk": "PROFILE"}},
            {"name": "add_perspective", "operation": "transact_write_items", "entities": ["Perspective", "Dialogue"],
             "rate_per_second": 5, "actions": [
                 {"pattern": "put_perspective", "params": {"d": "{dialogue}", "p": "{p}"}},
                 {"pattern": "count_perspective", "params": {"d": "{dialogue}", "most": "{most}"}}]},
            {"name": "two_experts", "operation": "batch_get_item", "entities": ["Expert"], "actions": [
                {"pattern": "get_expert", "params": {"e": "{a}"}}, {"pattern": "get_expert", "params": {"e": "{b}"}}]},
            {"name": "two_experts_tx", "operation": "transact_get_items", "entities": ["Expert"], "actions": [
                {"pattern": "get_expert", "params": {"e": "{a}"}}, {"pattern": "get_expert", "params": {"e": "{b}"}}]},
            {"name": "drop_two", "operation": "batch_write_item", "entities": ["Perspective"], "actions": [
                {"pattern": "drop_perspective", "params": {"d": "{dialogue}", "p": "{p}"}},
                {"pattern": "drop_perspective", "params": {"d": "{dialogue}", "p": "{q}"}}]},
        ]}
    d.update(extra)
    return d


ITEMS = [("Dialogue", {"pk": "DLG#d1", "sk": "META", "n": Decimal(3)}, "row 1"),
         ("Perspective", {"pk": "DLG#d1", "sk": "P#1", "expert": "EXP#ann", "body": BODY}, "row 1"),
         ("Perspective", {"pk": "DLG#d1", "sk": "P#2", "expert": "EXP#bob", "body": "short"}, "row 2"),
         ("Expert", {"pk": "EXP#ann", "sk": "PROFILE", "bio": "x" * 5000}, "row 1"),
         ("Expert", {"pk": "EXP#bob", "sk": "PROFILE", "bio": "y" * 100}, "row 2")]


@pytest.fixture(scope="module")
def spec():
    return spec_from_dict(spec_dict())


@pytest.fixture(scope="module", params=["sqlite", "duckdb"])
def store(request, spec):
    with open_store(request.param) as s:
        load_items([s], spec, ITEMS, progress=False)
        yield s


def test_the_spec_round_trips_and_names_each_parameter(spec):
    assert loads_spec(dumps_spec(spec)) == spec
    assert spec.pattern("add_perspective").parameters == ["dialogue", "p", "most"]
    assert spec.pattern("two_experts").parameters == ["a", "b"]


@pytest.mark.parametrize("change, where, words", [
    (lambda d: d["access_patterns"][4]["actions"].append({"pattern": "get_expert", "params": {"e": "x"}}),
     "access_patterns[4].actions[2].pattern", "transact_write_items cannot call 'get_expert', a get_item"),
    (lambda d: d["access_patterns"][4]["actions"][0].update(pattern="nope"),
     "access_patterns[4].actions[0].pattern", "unknown access pattern 'nope'"),
    (lambda d: d["access_patterns"][4]["actions"][0]["params"].pop("p"),
     "access_patterns[4].actions[0].params", "put_perspective needs p"),
    (lambda d: d["access_patterns"][4]["actions"][0]["params"].update(zz="1"),
     "access_patterns[4].actions[0].params.zz", "put_perspective has no parameter 'zz'"),
    (lambda d: d["access_patterns"][7]["actions"].extend(
        [{"pattern": "drop_perspective", "params": {"d": "d", "p": str(i)}} for i in range(24)]),
     "access_patterns[7].actions", "batch_write_item takes at most 25 actions, got 26"),
    (lambda d: d["access_patterns"][7]["actions"][0].update(pattern="put_perspective"),
     "access_patterns[7].actions[0].pattern", "BatchWriteItem takes no conditions"),
    (lambda d: d["access_patterns"][6].update(key_condition={"pk": "x"}),
     "access_patterns[6].key_condition", "transact_get_items takes no key_condition"),
    (lambda d: d["access_patterns"][3].update(actions=[{"pattern": "get_expert"}]),
     "access_patterns[3].actions", "actions are a transaction's or a batch's; get_item takes none"),
    (lambda d: d["access_patterns"].append({"name": "get_strong", "operation": "get_item", "entities": ["Expert"],
                                            "key_condition": {"pk": "EXP#{e}", "sk": "PROFILE"}, "consistent_read": True})
     or d["access_patterns"][5]["actions"][1].update(pattern="get_strong"),
     "access_patterns[5].actions[1].pattern", "BatchGetItem reads a table's keys with one ConsistentRead"),
    (lambda d: d["access_patterns"][4]["actions"][0].update(check=True, pattern="drop_perspective"),
     "access_patterns[4].actions[0].check", "a ConditionCheck is a transact_write_items action on a pattern with"),
])
def test_a_wrong_action_is_refused_at_its_spec_path(change, where, words):
    d = copy.deepcopy(spec_dict())
    change(d)
    with pytest.raises(SpecError) as e:
        spec_from_dict(d)
    # a pattern's path is named after its number: access_patterns[4] (add_perspective).actions[0]...
    assert any(re.sub(r"(access_patterns\[\d+\]) \([^)]*\)", r"\1", p.where).endswith(" " + where)
               and words in p.message for p in e.value.problems), e.value.problems


def test_the_plan_is_one_sql_transaction_and_one_boto3_request(spec):
    p = plan(spec, "add_perspective", {"dialogue": "d1", "p": "9", "most": "10"})
    assert isinstance(p, ActionsPlan) and [q.request.pattern for q in p.plans] == ["put_perspective",
                                                                                    "count_perspective"]
    sql = p.show_sql("sqlite")
    assert sql.startswith("BEGIN;\n-- action 0: put_perspective") and sql.endswith("COMMIT;")
    assert '["DLG#d1", "P#9"]' in sql and '["DLG#d1", "META"]' in sql
    method, kw = p.boto3
    assert method == "transact_write_items" and [next(iter(a)) for a in kw["TransactItems"]] == ["Put", "Update"]
    assert kw["TransactItems"][1]["Update"]["UpdateExpression"] == "SET #u0 = #u0 + :u_one"
    assert kw["TransactItems"][1]["Update"]["ExpressionAttributeValues"][":c_most"] == {"N": "10"}
    method, kw = plan(spec, "two_experts", {"a": "ann", "b": "bob"}).boto3
    assert method == "batch_get_item" and kw["RequestItems"]["blue_tx"]["Keys"] == [
        {"pk": {"S": "EXP#ann"}, "sk": {"S": "PROFILE"}}, {"pk": {"S": "EXP#bob"}, "sk": {"S": "PROFILE"}}]
    method, kw = plan(spec, "drop_two", {"dialogue": "d1", "p": "1", "q": "2"}).boto3
    assert method == "batch_write_item" and list(kw["RequestItems"]["blue_tx"][1]) == ["DeleteRequest"]
    assert "client.transact_get_items(" in plan(spec, "two_experts_tx", {"a": "ann", "b": "bob"}).show_boto3()


@pytest.mark.parametrize("name, params, words", [
    ("two_experts", {"a": "ann", "b": "ann"}, "Provided list of item keys contains duplicates"),
    ("two_experts_tx", {"a": "ann", "b": "ann"}, "Transaction request cannot include multiple operations on one item"),
    ("drop_two", {"dialogue": "d1", "p": "1", "q": "1"}, "Provided list of item keys contains duplicates"),
])
def test_one_item_twice_is_refused_in_dynamodbs_words(spec, name, params, words):
    with pytest.raises(QueryError, match=words) as e:
        plan(spec, name, params)
    assert e.value.where == f"access_patterns.{name}.actions[1]"


def test_a_transaction_pays_two_units_per_item_and_its_index_writes_once(store, spec):
    r = store.run_plan(plan(spec, "add_perspective", {"dialogue": "d1", "p": "9", "most": "10"}))
    put, count = r.results
    assert put.condition_passed and count.condition_passed and not r.cancelled
    # the put meets no item: priced on the entity's median perspective (re-keyed), with its GSI entry
    assert r.units == [2 * put.table_wcu + put.index_wcu["by_expert"], 2 * write_units(item_size(ITEMS[0][1]) + 1)]
    assert put.table_wcu == write_units(put.new_size) and r.wcu == sum(r.units)
    assert r.consumed_capacity()["GlobalSecondaryIndexes"] == {"by_expert": {"CapacityUnits": put.index_wcu["by_expert"]}}
    assert store.get_item("blue_tx", "DLG#d1", "META")["n"] == 3            # a dry run: nothing is written


def test_a_failed_condition_cancels_the_whole_transaction(store, spec):
    # the put's item exists (attribute_not_exists fails) and the counter is at its most (n < 3 fails)
    r = store.run_plan(plan(spec, "add_perspective", {"dialogue": "d1", "p": "1", "most": "3"}))
    assert r.cancelled and [c["Code"] for c in r.cancellation_reasons] == ["ConditionalCheckFailed"] * 2
    ok = store.run_plan(plan(spec, "add_perspective", {"dialogue": "d1", "p": "7", "most": "3"}))
    assert ok.cancelled and [c["Code"] for c in ok.cancellation_reasons] == ["None", "ConditionalCheckFailed"]
    put, count = ok.results
    assert ok.units == [put.table_wcu, count.table_wcu] == [write_units(put.old_size or 0), 1]   # the prepare alone
    assert ok.consumed_capacity()["CapacityUnits"] == ok.wcu == 2


def test_gets_in_a_batch_and_in_a_transaction(store, spec):
    ann, bob = item_size(ITEMS[3][1]), item_size(ITEMS[4][1])
    b = store.run_plan(plan(spec, "two_experts", {"a": "ann", "b": "bob"}))
    assert [i["pk"] for i in b.items] == ["EXP#ann", "EXP#bob"]
    assert b.units == [read_units(ann, "eventual"), read_units(bob, "eventual")] == [1, 0.5] and b.rcu == 1.5
    t = store.run_plan(plan(spec, "two_experts_tx", {"a": "ann", "b": "nobody"}))
    assert [i["pk"] for i in t.items] == ["EXP#ann"] and t.units == [4, 2]      # a missing item still costs 2
    assert b.unprocessed_keys() is None


def test_a_batch_write_is_the_sum_of_its_writes(store, spec):
    r = store.run_plan(plan(spec, "drop_two", {"dialogue": "d1", "p": "1", "q": "2"}))
    entry = {"pk": "DLG#d1", "sk": "P#1", "expert": "EXP#ann"}
    assert r.units[0] == write_units(item_size(ITEMS[1][1])) + write_units(item_size(entry)) == 3
    assert r.wcu == sum(r.units) and not r.cancelled


@pytest.fixture(scope="module")
def endpoint(dynamo_endpoint, spec):
    return own_client(dynamo_endpoint, spec, ITEMS)


@pytest.mark.parametrize("name, params", [
    ("two_experts", {"a": "ann", "b": "bob"}), ("two_experts", {"a": "bob", "b": "nobody"}),
    ("two_experts_tx", {"a": "ann", "b": "bob"}), ("two_experts_tx", {"a": "nobody", "b": "ann"}),
])
def test_gets_on_the_endpoint_return_what_the_stores_return(endpoint, store, spec, name, params):
    planned = plan(spec, name, params)
    local, remote = store.run_plan(planned), endpoint.run_plan(planned)
    assert remote.items == local.items and remote.units == local.units


@pytest.mark.parametrize("params, codes", [
    ({"dialogue": "d1", "p": "9", "most": "10"}, None),
    ({"dialogue": "d1", "p": "1", "most": "10"}, ["ConditionalCheckFailed", "None"]),
    ({"dialogue": "d1", "p": "7", "most": "3"}, ["None", "ConditionalCheckFailed"]),
])
def test_a_transaction_on_the_endpoint_is_a_probe_that_writes_nothing(endpoint, store, spec, params, codes):
    planned = plan(spec, "add_perspective", params)
    local = store.run_plan(planned)
    remote = endpoint.run_actions(planned, [r.item for r in local.results])
    assert [c["Code"] for c in local.cancellation_reasons or []] == [c["Code"] for c in remote.cancellation_reasons
                                                                     or []] == (codes or [])
    assert remote.cancelled == local.cancelled and remote.units == local.units
    assert endpoint.count_items(spec.table_name) == len(ITEMS)                    # nothing written
    got = endpoint.call("get_item", TableName=spec.table_name, Key={"pk": {"S": "DLG#d1"}, "sk": {"S": "META"}})
    assert got["Item"]["n"] == {"N": "3"}


def test_a_batch_write_is_not_sent(endpoint, spec):
    with pytest.raises(QueryError, match="a batch write would write"):
        endpoint.run_plan(plan(spec, "drop_two", {"dialogue": "d1", "p": "1", "q": "2"}))


def test_applys_compare_runs_each_transaction_and_batch_on_both_stores_and_the_endpoint(endpoint, spec):
    from blue_nb.app.roundtrip import compare_patterns

    with open_store("sqlite") as s, open_store("duckdb") as d:
        load_items([s, d], spec, ITEMS, progress=False)
        checks = {(c.pattern, c.case): c for c in compare_patterns(spec, [s, d], endpoint, emulator="moto")}
    assert all(c.ok for c in checks.values()), [c.difference for c in checks.values() if not c.ok]
    tx = checks["add_perspective", "from the data"]
    assert tx.params == {"dialogue": "d1", "p": "1", "most": "1"} and set(tx.rcu) == {"sqlite", "duckdb", "dynamodb"}
    assert tx.rcu["dynamodb"] == tx.rcu["sqlite"] == 3 and tx.unit == "WCU"          # cancelled: the prepare alone
    assert tx.note == "cancelled: ConditionalCheckFailed, ConditionalCheckFailed"
    batch = checks["two_experts", "from the data"]
    assert batch.counts == {"sqlite": 2, "duckdb": 2, "dynamodb": 2} and batch.rcu["dynamodb"] == 1.5
    assert checks["two_experts_tx", "from the data"].cells()[-1] == "match: 2 items, 1 call(s), 6 RCU"


def test_the_heat_model_puts_each_actions_units_on_its_items_partition():
    from blue_nb.heat import partition_heat

    d = spec_dict()
    d["access_patterns"][4]["actions"] = [d["access_patterns"][4]["actions"][1]]     # the counter alone
    d["access_patterns"][5]["rate_per_second"] = 10                                   # two gets in a batch
    spec = spec_from_dict(d)
    with open_store("duckdb") as s:
        load_items([s], spec, ITEMS, progress=False)
        report = partition_heat(spec, s, sizes=False, rate_model=True)
    parts = report.partitions.set_index(["index", "pk"])
    # the counter update: 5 transactions/s, each 2 units per 1 KB of the dialogue item (one block): 10 WCU/s
    assert parts.loc[("table", "DLG#d1"), "wcu_per_s"] == pytest.approx(5 * 2 * write_units(item_size(ITEMS[0][1])))
    # the batch's two gets are drawn from get_expert's candidates (ann and bob, uniform): 10 calls/s of each
    # action, half on each expert, each an eventually consistent GetItem of its own
    ann, bob = read_units(item_size(ITEMS[3][1]), "eventual"), read_units(item_size(ITEMS[4][1]), "eventual")
    assert parts.loc[("table", "EXP#ann"), "rcu_per_s"] == pytest.approx(2 * 10 * 0.5 * ann)
    assert parts.loc[("table", "EXP#bob"), "rcu_per_s"] == pytest.approx(2 * 10 * 0.5 * bob)
    costs = report.patterns.set_index("pattern")
    assert costs.loc["two_experts", "calls_per_s"] == pytest.approx(10)                # one call: both its gets
    assert costs.loc["two_experts", "rcu_per_call"] == pytest.approx(ann + bob)
    assert costs.loc["add_perspective", "wcu_per_call"] == pytest.approx(2 * write_units(item_size(ITEMS[0][1])))
    fast = report.rate_model.evaluate({"two_experts": 20})
    assert fast.partitions.set_index(["index", "pk"]).loc[("table", "EXP#ann"), "rcu_per_s"] == pytest.approx(
        2 * 20 * 0.5 * ann)


def test_the_cli_query_prints_the_transaction_its_plan_and_its_outcome(tmp_path, spec):
    import json

    from click.testing import CliRunner

    from blue_nb.cli import cli

    path = tmp_path / "tx.sqlite"
    with open_store("sqlite", path) as s:
        load_items([s], spec, ITEMS, progress=False)
    (tmp_path / "tx.yaml").write_text(dumps_spec(spec), encoding="utf-8")
    args = ["query", str(tmp_path / "tx.yaml"), "add_perspective", "--sqlite", str(path), "--param", "dialogue=d1",
            "--param", "p=7", "--param", "most=3", "--show-plan"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    assert "add_perspective: transact_write_items of 2 actions -> 2 WCU (per action 1, 1) CANCELLED " \
           "(TransactionCanceledException: None, ConditionalCheckFailed)" in r.stdout
    assert "BEGIN;" in r.stderr and "client.transact_write_items(" in r.stderr
    out = json.loads(CliRunner().invoke(cli, [*args[:-1], "--format", "json"]).stdout)
    assert out["cancellation_reasons"][1] == {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}
    assert out["consumed_capacity"] == {"TableName": "blue_tx", "CapacityUnits": 2, "Table": {"CapacityUnits": 2}}


def test_a_workbench_export_carries_the_actions_back_and_the_review_shows_their_cost(tmp_path, spec):
    import json

    from blue_nb.app.exports import export_spec
    from blue_nb.app.imports import import_data
    from blue_nb.export import export
    from blue_nb.spec import dump_spec

    model = export(spec, "workbench", now="2026-01-31T12:00:00Z")
    (tmp_path / "model.json").write_text(model, encoding="utf-8")
    (back,) = import_data(tmp_path / "model.json", "workbench", tmp_path / "out", progress=False)
    assert back.spec == spec and json.loads(model)["BlueNb"]["spec"]["access_patterns"][4]["actions"][1] == {
        "pattern": "count_perspective", "params": {"d": "{dialogue}", "most": "{most}"}}
    with open_store("duckdb", tmp_path / "tx.duckdb") as s:
        load_items([s], spec, ITEMS, progress=False)
    dump_spec(spec, tmp_path / "tx.yaml")
    export_spec(tmp_path / "tx.yaml", "report-md", duckdb=tmp_path / "tx.duckdb", now="2026-01-31T12:00:00Z",
                out=tmp_path / "r.md")
    report = (tmp_path / "r.md").read_text(encoding="utf-8")
    row = next(line for line in report.splitlines() if line.startswith("| add_perspective |"))
    assert "| transact_write_items | table | `put_perspective + count_perspective` |" in row
    assert "client.transact_write_items(" in report and "client.batch_get_item(" in report


def test_a_hot_item_in_a_transaction_and_an_update_near_400_kb_are_findings():
    from blue_nb.heat import partition_heat

    d = spec_dict()
    d["access_patterns"][4]["rate_per_second"] = 40                 # every add_perspective updates d1's counter
    d["access_patterns"].append({"name": "append_note", "operation": "update_item", "entities": ["Expert"],
                                 "key_condition": {"pk": "EXP#{e}", "sk": "PROFILE"},
                                 "update": {"expression": "SET notes = list_append(notes, :more)",
                                            "values": {"more": "{text}"}}})
    big = ("Expert", {"pk": "EXP#cat", "sk": "PROFILE", "bio": "z" * 380_000}, "row 3")
    spec = spec_from_dict(d)
    with open_store("duckdb") as s:
        load_items([s], spec, [*ITEMS, big], progress=False)
        report = partition_heat(spec, s, sizes=False)
    found = {f.rule: f for f in report.findings}
    tx = found["TRANSACTION-HOT-ITEM"]
    assert tx.where == "access_patterns[4].actions" and "touch item 'DLG#d1 / META'" in tx.message
    assert tx.evidence[0] == "DLG#d1 / META: 40 transactions/s"
    up = found["UPDATE-NEAR-ITEM-LIMIT"]
    size = item_size(big[1])
    assert up.where == "access_patterns[8].update" and f"is {size:,} bytes, {409_600 - size:,} bytes from" in up.message
    assert "list_append only ever grows a list" in up.message


def test_the_heat_model_prices_a_failed_condition_as_the_dry_run_does():
    from blue_nb.heat import call_costs

    d = spec_dict()
    d["access_patterns"][0]["rate_per_second"] = 10       # put_perspective: attribute_not_exists(pk) on its key
    d["access_patterns"][2].update(rate_per_second=10, condition={"expression": "begins_with(body, :b)",
                                                                  "values": {"b": "b"}})   # drop: only long bodies
    d["access_patterns"].pop(7)                                  # a batch write takes no condition
    spec = spec_from_dict(d)
    with open_store("duckdb") as s:
        load_items([s], spec, ITEMS, progress=False)
        for name in ("put_perspective", "drop_perspective"):
            costs = call_costs(s, spec, name)
            assert len(costs) == 2                          # the two perspectives of the data
            for r in costs.itertuples():
                dry = s.run_plan(plan(spec, name, {"d": r.d, "p": r.p}))
                assert r.wcu == dry.wcu, (name, r, dry.summary())
        put = call_costs(s, spec, "put_perspective").set_index("p")
        # every put meets its item: the condition fails, the item's units are paid, the index is not written
        assert put.loc["1", "wcu"] == write_units(item_size(ITEMS[1][1])) == 2 and put.loc["2", "wcu"] == 1
        drop = call_costs(s, spec, "drop_perspective").set_index("p")
        entry = {"pk": "DLG#d1", "sk": "P#1", "expert": "EXP#ann"}
        assert drop.loc["1", "wcu"] == 2 + write_units(item_size(entry)) and drop.loc["2", "wcu"] == 1
