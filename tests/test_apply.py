"""blue-nb apply: the design on a real DynamoDB API (a moto_server process on 127.0.0.1), compared
pattern by pattern with SQLite and DuckDB; the items proven to arrive, through faults and interrupts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path

import pytest

from blue_nb.app.compare import MOTO_NO_TRAILING_PAGE, first_difference, parameter_cases
from blue_nb.app.roundtrip import apply_spec, compare_patterns, items_digest, run_on_endpoint
from blue_nb.dynamo import Endpoint, LocalDynamo
from blue_nb.errors import DynamoError
from blue_nb.patterns import Page, ReadResult, plan
from blue_nb.spec import load_spec, loads_spec
from blue_nb.stores import load_items, open_store
from tests.faults import FaultProxy

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "data" / "specs"
pytestmark = pytest.mark.slow


def prefix() -> str:
    return f"a{uuid.uuid4().hex[:8]}-"


@pytest.fixture(scope="module")
def endpoint(dynamo_endpoint):
    return Endpoint.embedded(dynamo_endpoint)


@pytest.fixture(scope="module")
def document_data(tmp_path_factory) -> Path:
    from blue_nb.samples import generate_sample

    out = tmp_path_factory.mktemp("document")
    generate_sample("document", scale=300, seed=5, out_dir=out)
    return out


def blue_nb(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "blue_nb.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, **(env or {})})


# -- the round trip ------------------------------------------------------------------------------

@pytest.mark.parametrize("spec_name, data", [("dialogue.yaml", "dialogue_data"), ("dialogue_v2.yaml", "dialogue_data"),
                                             ("document.yaml", "document_data")])
def test_every_read_pattern_matches_on_the_endpoint(request, endpoint, spec_name, data):
    spec = load_spec(SPECS / spec_name)
    data_dir = request.getfixturevalue(data)
    result = apply_spec(spec, data_dir, endpoint=endpoint, table_prefix=prefix(), progress=False)
    assert [c.difference for c in result.checks if c.difference] == []
    assert result.ok and result.items_match
    with open_store("sqlite") as local:
        built = load_items([local], spec, _items(spec, data_dir, result.left_out), progress=False)[0].items_after
    assert result.items_built == result.items_stored == built
    reads = [p.name for p in spec.access_patterns if p.is_read]
    # every transaction and batch is compared too, each action on an item of its own (three gets of one
    # dialogue's experts name three experts)
    composite = [p.name for p in spec.access_patterns if p.is_composite]
    assert composite and sorted({c.pattern for c in result.checks}) == sorted(reads + composite)
    if spec_name == "dialogue.yaml":
        batch = next(c for c in result.checks if c.pattern == "tension_experts" and c.case == "from the data")
        assert len({batch.params[n] for n in ("raised_by", "answered_by", "resolved_by")}) == 3
        assert batch.counts == {"sqlite": 3, "duckdb": 3, "dynamodb": 3}
        tx = next(c for c in result.checks if c.pattern == "post_perspective" and c.case == "from the data")
        assert tx.unit == "WCU" and tx.counts["dynamodb"] == 2 and tx.cells()[-1].startswith("match: 2 items written")
    client = endpoint.client(table_prefix=result.table[:-len(spec.table_name)])
    assert not client.table_exists(spec.table_name + ".blue-nb-scratch")       # the writes' scratch table: gone
    for c in result.checks:                              # the same counts on all three engines
        assert len(set(c.counts.values())) == 1, c
        if c.case == "missing key" and c.pattern in reads:
            assert c.counts["dynamodb"] == 0 and c.rcu["dynamodb"] == 0.5
    assert {c.case for c in result.checks if c.pattern in reads} == {"most items read", "fewest items read",
                                                                     "missing key"}
    for name in composite:
        assert {c.case for c in result.checks if c.pattern == name} == {"from the data", "missing key"}
    assert result.write.items == built and result.write.calls >= -(-built // 25)


def _items(spec, data_dir, left_out):
    from blue_nb.app.workflows import located_items

    skip = {w.split(" (")[0] for w in left_out}
    pk, sk = spec.key_attributes()
    return ((e, i) for e, i, _ in located_items(spec, data_dir) if f"{pk}={i[pk]}, {sk}={i[sk]}" not in skip)


def test_a_missing_item_on_the_endpoint_is_a_mismatch(endpoint, dialogue_data, dialogue_spec):
    p = prefix()
    result = apply_spec(dialogue_spec, dialogue_data, endpoint=endpoint, table_prefix=p, progress=False)
    assert result.ok
    case = next(c for c in result.checks if c.pattern == "list_experts" and c.case == "most items read")
    client = endpoint.client(table_prefix=p)
    victim = run_on_endpoint(dialogue_spec, "list_experts", case.params, endpoint=endpoint, table_prefix=p).items[1]
    client.call("delete_item", TableName=dialogue_spec.table_name,
                 Key={"pk": {"S": victim["pk"]}, "sk": {"S": victim["sk"]}})
    with open_store("sqlite") as s, open_store("duckdb") as d:
        from blue_nb.app.workflows import load_data

        load_data(dialogue_spec, dialogue_data, stores=[s, d], progress=False)
        checks = compare_patterns(dialogue_spec, [s, d], client, emulator="moto")
    bad = {(c.pattern, c.case): c.difference for c in checks if c.difference}
    assert bad[("list_experts", "most items read")].startswith(
        f"dynamodb: item 2: sqlite has pk={victim['pk']}, sk={victim['sk']}, dynamodb has pk={victim['pk']}, sk=")
    assert ("list_experts", "fewest items read") not in bad and ("get_dialogue", "most items read") not in bad


# -- comparing pages -------------------------------------------------------------------------------

def _result(spec, counts, lek, sizes=None):
    """A ReadResult with pages of ``counts`` items; ``lek[i]`` says whether page i carries a key."""
    planned = plan(spec, "list_experts", {"dialogue_id": "d"})
    items, pages, n = [], [], 0
    for i, k in enumerate(counts):
        page_items = [{"pk": "d", "sk": f"EXPERT#{n + j:03d}"} for j in range(k)]
        n += k
        items += page_items
        pages.append(Page(k, (sizes or [100] * len(counts))[i], 0.5, {"pk": "d"} if lek[i] else None))
    return ReadResult(planned, items, pages)


@pytest.mark.parametrize("local, remote, emulator, expected", [
    # the same pages: no difference, no note
    (([3, 3], [True, False]), ([3, 3], [True, False]), "moto", (None, None)),
    # DynamoDB's final empty page after a page cut at Limit; moto makes no such call: a named gap
    (([3, 3, 0], [True, True, False]), ([3, 3], [True, False]), "moto", (None, MOTO_NO_TRAILING_PAGE)),
    # the same difference on an endpoint that is not moto is a mismatch
    (([3, 3, 0], [True, True, False]), ([3, 3], [True, False]), None,
     ("pages: sqlite [3+, 3+, 0], dynamodb [3+, 3] (items per page; + = carries LastEvaluatedKey)", None)),
    # a page boundary moto cannot explain (the local page read far less than 1,000,000 bytes)
    (([4, 2], [True, False]), ([3, 3], [True, False]), "moto",
     ("pages: sqlite [4+, 2], dynamodb [3+, 3] (items per page; + = carries LastEvaluatedKey)", None)),
])
def test_first_difference(dialogue_spec, local, remote, emulator, expected):
    a, b = _result(dialogue_spec, *local), _result(dialogue_spec, *remote)
    assert first_difference(a, b, names=("sqlite", "dynamodb"), emulator=emulator) == expected


def test_moto_page_cut_is_named_only_above_its_cut(dialogue_spec):
    a = _result(dialogue_spec, [118, 46], [True, False], sizes=[1_213_251, 400_000])
    b = _result(dialogue_spec, [117, 47], [True, False])
    diff, note = first_difference(a, b, names=("sqlite", "dynamodb"), emulator="moto")
    assert diff is None and note.startswith("moto cut a page at 117 items where DynamoDB reads 118 (1,213,251 bytes")


def test_items_digest_ignores_order_and_sees_every_value():
    items = [{"pk": "a", "sk": "1", "n": Decimal("1.50")}, {"pk": "a", "sk": "2", "b": b"\x00"}]
    assert items_digest(items) == items_digest(list(reversed(items)))
    assert items_digest(items)[0] == 2
    assert items_digest(items)[1] != items_digest([items[0], {**items[1], "b": b"\x01"}])[1]


def test_parameter_cases_draw_from_the_data(dialogue_spec, dialogue_data):
    from blue_nb.app.workflows import load_data

    with open_store("sqlite") as s:
        load_data(dialogue_spec, dialogue_data, stores=[s], progress=False)
        cases = parameter_cases(s, dialogue_spec, dialogue_spec.pattern("list_round"))
        assert [c.label for c in cases] == ["most items read", "fewest items read", "missing key"]
        big, small, missing = cases
        assert big.items > small.items > 0 and missing.items == 0
        for c in (big, small):                           # each case's partition really holds that many items
            r = s.run_plan(plan(dialogue_spec, "list_round", c.params), follow=True)
            assert r.count == c.items
        assert missing.params["round"] == big.params["round"] and missing.params["dialogue_id"] != big.params[
            "dialogue_id"]
        assert s.run_plan(plan(dialogue_spec, "list_round", missing.params)).count == 0


LIMIT_SPEC = """
spec_version: 1
domain: paged
table: {partition_key: pk, sort_key: sk}
entities:
  Row: {source: rows, key: {pk: "{p}", sk: "ROW#{n}"}, attributes: {v: S}, writer: svc}
access_patterns:
  - {name: three_at_a_time, operation: query, entities: [Row], key_condition: {pk: "{p}", sk_begins_with: "ROW#"},
     limit: 3}
"""


def test_six_items_with_limit_three_take_three_calls_on_dynamodb_paging(endpoint):
    """blue_nb pages as DynamoDB does (3 calls); moto makes 2, and the comparison names that gap."""
    spec = loads_spec(LIMIT_SPEC)
    items = [("Row", {"pk": "p1", "sk": f"ROW#{n}", "v": "x" * 10}) for n in range(6)]
    client = endpoint.client(table_prefix=prefix())
    client.create_table(spec)
    client.write_items(spec.table_name, [i for _, i in items], progress=False)
    with open_store("sqlite") as s:
        load_items([s], spec, items, progress=False)
        planned = plan(spec, "three_at_a_time", {"p": "p1"})
        local = s.run_plan(planned, follow=True)
        remote = client.run_plan(planned, follow=True)
    assert local.page_sizes == [3, 3, 0] and local.rcu == 1.5
    assert remote.page_sizes == [3, 3]                   # moto's gap: no key on the last full page
    assert first_difference(local, remote, names=("sqlite", "dynamodb"), emulator="moto") == (
        None, MOTO_NO_TRAILING_PAGE)


# -- faults, interrupts, the command line ------------------------------------------------------------

def test_throttling_and_unprocessed_items_still_store_every_item(dialogue_spec, small_dialogue):
    with LocalDynamo() as local, FaultProxy(local.url, {"unprocessed": 0.3, "throttle": 0.2, "seed": 11}) as proxy:
        result = apply_spec(dialogue_spec, small_dialogue, endpoint=proxy.endpoint(), progress=False)
    assert result.write.unprocessed_retries > 0 and result.write.throttle_retries > 0
    assert result.items_match and result.items_stored == result.items_built and result.ok
    # the batch get too: its UnprocessedKeys sent again, every expert read, as the stores read them
    batch = [c for c in result.checks if c.pattern == "tension_experts"]
    assert {c.counts["dynamodb"] for c in batch if c.case == "from the data"} == {3}


def test_a_batch_gets_unprocessed_keys_are_sent_again_or_left_as_the_model_leaves_them(endpoint, dialogue_spec,
                                                                                      dialogue_data):
    p = prefix()
    apply_spec(dialogue_spec, dialogue_data, endpoint=endpoint, table_prefix=p, progress=False)
    with open_store("sqlite") as s:
        from blue_nb.app.compare import action_cases
        from blue_nb.app.workflows import load_data

        load_data(dialogue_spec, dialogue_data, stores=[s], progress=False)
        case = action_cases(s, dialogue_spec, dialogue_spec.pattern("tension_experts"))[0]
        local = s.run_plan(plan(dialogue_spec, "tension_experts", case.params))
    with FaultProxy(endpoint.url, {"unprocessed": 1.0, "seed": 2}) as proxy:
        client = proxy.endpoint().client(table_prefix=p)
        planned = plan(dialogue_spec, "tension_experts", case.params)
        again = client.run_actions(planned)
        left = client.run_actions(planned, retry_unprocessed=False)
    assert again.resent >= 1 and again.units == local.units and len(again.items) == len(local.items) == 3
    assert again.unprocessed == [] and 1 <= len(left.unprocessed) <= 2 and len(left.items) == 3 - len(left.unprocessed)
    assert [left.units[i] for i in left.unprocessed] == [0] * len(left.unprocessed)
    assert left.unprocessed_keys()["blue_dialogue"]["Keys"] == [
        planned.boto3[1]["RequestItems"]["blue_dialogue"]["Keys"][i] for i in left.unprocessed]


def test_write_transactions_and_batches_are_sent_for_real_and_every_item_checked_after(endpoint):
    """A design nobody here wrote that uses every write a request can make (a number sort key, binary and set
    attributes, a conditional delete that returns the item, a ConditionCheck): apply sends its transaction and
    its batch write to a scratch table, through UnprocessedItems, and the items after each call are the stores'."""
    ledger = ROOT / "tests" / "fixtures" / "python_export"
    spec = load_spec(ledger / "ledger.yaml")
    with LocalDynamo() as local, FaultProxy(local.url, {"unprocessed": 1.0, "seed": 3}) as proxy:
        result = apply_spec(spec, ledger / "ledger", endpoint=proxy.endpoint(), progress=False)
        client = proxy.endpoint().client()
        assert not client.table_exists("blue_ledger.blue-nb-scratch") and client.count_items("blue_ledger") == 15
    assert result.ok, [c.difference for c in result.checks if c.difference]
    checks = {(c.pattern, c.case): c for c in result.checks}
    batch = checks["load_entries", "from the data"]
    assert batch.counts == {"sqlite": 2, "duckdb": 2, "dynamodb": 2} and batch.rcu["dynamodb"] == 4
    # every batch of two or more requests or keys came back partly unprocessed, and was sent again
    for name in ("load_entries", "get_many"):
        assert all("unprocessed: 1 call(s) re-sent them" in (c.note or "") for c in result.checks if c.pattern == name)
    tx = checks["post_transfer", "from the data"]
    assert tx.note == "cancelled: None, ConditionalCheckFailed, None" and tx.counts["dynamodb"] == 0
    # a range's bounds come from the data: the first and the last entry of the account
    assert checks["entries_between", "most items read"].params == {"account": "alice", "low": "10", "high": "70"}
    assert checks["entries_between", "most items read"].counts["dynamodb"] == 7


def test_an_operation_the_endpoint_does_not_implement_is_named_not_compared(dialogue_spec, small_dialogue):
    """dynalite, an independent DynamoDB implementation, has no TransactWriteItems: the transaction's runs say so
    and the apply still proves the items and compares everything else."""
    from tests.dynalite_server import Dynalite, dynalite_missing

    if dynalite_missing():
        pytest.skip(dynalite_missing())
    server = Dynalite().start()
    try:
        result = apply_spec(dialogue_spec, small_dialogue, endpoint_url=server.url, progress=False)
    finally:
        server.stop()
    skipped = [c for c in result.checks if c.not_compared]
    assert {c.pattern for c in skipped} == {"post_perspective"} and len(skipped) == 2
    assert skipped[0].not_compared.endswith("does not implement TransactWriteItems")
    assert skipped[0].cells()[-1].startswith("NOT COMPARED: endpoint http://127.0.0.1:")
    assert result.ok and result.items_match and result.summary()["pattern runs not compared"] == 2
    assert result.lines()[-1].endswith("; 2 not compared (an operation the endpoint does not implement)")
    assert result.summary()["pattern runs matching"] == len(result.checks) - 2


def test_an_endpoint_that_writes_otherwise_is_a_mismatch(endpoint, dialogue_spec):
    """The endpoint's item after a transaction is read back: one it holds differently is named."""
    from blue_nb.app.compare import action_difference

    client = endpoint.client(table_prefix=prefix())
    client.create_table(dialogue_spec)
    with open_store("sqlite") as s:
        load_items([s], dialogue_spec, [("Dialogue", {"pk": "d1", "sk": "META", "perspective_count": Decimal(4),
                                                      "title": "t", "status": "open"}, "row 1")], progress=False)
        planned = plan(dialogue_spec, "post_perspective",
                       {"dialogue_id": "d1", "round": "0", "expert": "ann", "seq": "1"})
        local = s.run_plan(planned)
    client.put_at(dialogue_spec.table_name, planned.plans, [w.before for w in local.results])
    client.call("put_item", TableName=dialogue_spec.table_name, Item={"pk": {"S": "d1"}, "sk": {"S": "META"},
                                                                     "perspective_count": {"N": "40"}})
    remote = client.send_actions(planned, local.item_list())
    assert [w.before for w in local.results][1]["perspective_count"] == 4
    assert remote.after[1]["perspective_count"] == 41 and not remote.cancelled
    assert action_difference(local, remote, ("sqlite", "dynamodb")).startswith(
        "the item at action 1's key (pk=d1, sk=META) after the call: sqlite {")


@pytest.mark.parametrize("faults, code, words", [
    ({"throttle": 1.0}, "Stalled", ["no item written to", "for 6 s: every call was answered with "
                                    "ProvisionedThroughputExceededException", "no item of 477 is written"]),
    ({"hang": 60}, "ReadTimeout", ["did not answer in time", "no item of 477 is known to be written (and up to 25 more"]),
    ({"error500": 2}, "InternalServerError", ["InternalServerError", "the table is partly written: 50 items of 477 "
                                                                     "are in it, 427 are not"]),
], ids=["always-throttled", "never-answers", "error-500"])
def test_an_endpoint_that_stalls_fails_within_the_deadline_saying_what_is_written(dialogue_spec, small_dialogue,
                                                                                  faults, code, words):
    with LocalDynamo() as local, FaultProxy(local.url, faults) as proxy:
        start = time.monotonic()
        with pytest.raises(DynamoError) as e:
            apply_spec(dialogue_spec, small_dialogue, endpoint=proxy.endpoint(), progress=False, deadline=6)
        took = time.monotonic() - start
        written = proxy.endpoint().client().count_items("blue_dialogue")
    assert took < 30, f"{took:.0f} s"
    assert e.value.code == code
    for w in words:
        assert w in str(e.value), str(e.value)
    assert "run the same command again: it resumes where this stopped" in e.value.hint
    assert written == (50 if code == "InternalServerError" else 0)


def test_ctrl_c_while_writing_says_how_many_items_are_written_and_how_to_resume(dynamo_endpoint, small_dialogue):
    p = prefix()
    args = ["apply", str(SPECS / "dialogue.yaml"), "--data", str(small_dialogue), "--endpoint-url",
            dynamo_endpoint.url, "--table-prefix", p, "--no-progress"]
    proc = subprocess.Popen([sys.executable, "-m", "tests.paused", "dynamo-writing", *args], stderr=subprocess.PIPE,
                            text=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    try:
        line = ""
        while "blue-nb-test-pause" not in line:
            line = proc.stderr.readline()
            assert line, "the apply ended before it wrote"
        proc.send_signal(signal.SIGINT)
        err = proc.stderr.read()
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err
    written = Endpoint.embedded(dynamo_endpoint).client(table_prefix=p).count_items("blue_dialogue")
    assert written == 25
    # the call was answered, but its answer not yet counted: the message stays true
    assert f"interrupted while writing: 0 items of 477 are known to be written to {p}blue_dialogue" in err, err
    assert "(and up to 25 more, sent in calls that got no clear answer, may be in it)" in err
    assert "nothing was changed" not in err and "run the same command again" in err


def test_an_interrupted_apply_resumes_to_completion(dynamo_endpoint, small_dialogue):
    p = prefix()
    args = ["apply", str(SPECS / "dialogue.yaml"), "--data", str(small_dialogue), "--endpoint-url",
            dynamo_endpoint.url, "--table-prefix", p, "--no-progress"]
    proc = subprocess.Popen([sys.executable, "-m", "tests.paused", "dynamo-writing", *args], stderr=subprocess.PIPE,
                            text=True, stdout=subprocess.DEVNULL, cwd=ROOT)      # stopped after its first batch
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if "blue-nb-test-pause dynamo-writing" in line or not line:
                break
        assert "blue-nb-test-pause" in line
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    client = Endpoint.embedded(dynamo_endpoint).client(table_prefix=p)
    half = client.count_items("blue_dialogue")
    assert 0 < half < 477
    assert client.tags("blue_dialogue")["blue-nb:state"] == "loading"
    done = blue_nb(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["resumed"] is True and out["ok"] is True
    assert out["items"]["built"] == out["items"]["stored"] == client.count_items("blue_dialogue")
    assert client.tags("blue_dialogue")["blue-nb:state"] == "complete"


def test_cli_apply_refuses_an_existing_table_unless_replace(dynamo_endpoint, small_dialogue):
    p = prefix()
    args = ["apply", str(SPECS / "dialogue.yaml"), "--data", str(small_dialogue), "--endpoint-url",
            dynamo_endpoint.url, "--table-prefix", p, "--no-progress"]
    first = blue_nb(*args)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    runs = sum(" match: " in line for line in lines)
    assert runs >= 14 and lines[-1] == f"{runs} of {runs} pattern runs match on moto at {dynamo_endpoint.url} (from --endpoint-url)"
    again = blue_nb(*args)
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert f"table '{p}blue_dialogue' already exists" in again.stderr and "--replace" in again.stderr
    replaced = blue_nb(*args, "--replace")
    assert replaced.returncode == 0, replaced.stderr


def test_cli_query_runs_a_pattern_on_the_endpoint(dynamo_endpoint, small_dialogue, dialogue_spec, tmp_path):
    p = prefix()
    apply_spec(dialogue_spec, small_dialogue, endpoint=Endpoint.embedded(dynamo_endpoint), table_prefix=p,
               progress=False)
    db = tmp_path / "d.sqlite"
    assert blue_nb("load", str(SPECS / "dialogue.yaml"), "--data", str(small_dialogue), "--sqlite", str(db),
                   "--no-progress").returncode == 0
    common = [str(SPECS / "dialogue.yaml"), "dialogues_by_status", "--param", "status=open", "--format", "json",
              "--all-pages"]
    remote = blue_nb("query", *common, "--backend", "dynamodb", "--endpoint-url", dynamo_endpoint.url,
                     "--table-prefix", p)
    local = blue_nb("query", *common, "--sqlite", str(db))
    assert remote.returncode == 0 and local.returncode == 0, remote.stderr + local.stderr
    assert json.loads(remote.stdout)["items"] == json.loads(local.stdout)["items"] != []
    write = blue_nb("query", str(SPECS / "dialogue.yaml"), "set_dialogue_status", "--param", "dialogue_id=x",
                    "--backend", "dynamodb", "--endpoint-url", dynamo_endpoint.url)
    assert write.returncode == 2 and "runs reads only" in write.stderr
    nowhere = blue_nb("query", *common, "--backend", "dynamodb", env={"AWS_ENDPOINT_URL_DYNAMODB": ""})
    assert nowhere.returncode == 2 and "no DynamoDB endpoint" in nowhere.stderr


def test_cli_apply_starts_its_own_endpoint_when_none_is_given(small_dialogue):
    env = {k: "" for k in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL")}
    done = blue_nb("apply", str(SPECS / "dialogue_v2.yaml"), "--data", str(small_dialogue), "--no-progress",
                   "--format", "json", env=env)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["endpoint"].startswith("embedded moto_server at http://127.0.0.1:") and out["ok"]
    assert "--profile is only used with --aws" in blue_nb("apply", "x.yaml", "--data", ".", "--profile",
                                                          "p").stderr
