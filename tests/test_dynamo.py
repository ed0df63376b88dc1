"""blue_nb.dynamo against a real DynamoDB API server: moto_server in its own process on 127.0.0.1.

One server for the session (``dynamo_endpoint``); every test gets a client with its own table
prefix (``dynamo_client``). The fault tests start servers of their own, behind a proxy that injects
DynamoDB's faults (:mod:`tests.faults`).
Also documented here, by assertions on what moto does: its known gaps (LocalDynamo.KNOWN_GAPS).
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from decimal import Decimal
from pathlib import Path

import pytest

from blue_nb.dynamo import BatchWriteReport, DynamoClient, Endpoint, LocalDynamo, resolve_endpoint
from blue_nb.dynamo import calls
from blue_nb.dynamo.batches import batches
from blue_nb.dynamo.calls import boto_item
from blue_nb.dynamo.middleware import IDENTITY_PATH
from blue_nb.errors import DynamoError, ItemError, QueryError
from blue_nb.items.values import item_to_wire
from blue_nb.patterns import create_table_request, paginate, plan
from blue_nb.sizing import BATCH_MAX_BYTES, item_size, query_read_units, read_units
from blue_nb.spec import load_spec, loads_spec
from tests.faults import FaultProxy

pytestmark = pytest.mark.slow

SPECS = Path(__file__).resolve().parent.parent / "data" / "specs"
SPEC = loads_spec("""
spec_version: 1
domain: rows
table:
  partition_key: pk
  sort_key: sk
  indexes:
    by_kind: {type: global, partition_key: kind, sort_key: n, sort_key_type: N, projection: [body]}
entities:
  Row:
    key: {pk: "{part}", sk: "ROW#{n}", kind: "{kind}"}
    attributes: {body: S, extra: S, n: N}
access_patterns:
  - {name: rows, operation: query, entities: [Row], key_condition: {pk: "{part}"}}
  - {name: rows3, operation: query, entities: [Row], limit: 3, key_condition: {pk: "{part}"}}
  - {name: rows_desc, operation: query, entities: [Row], scan_forward: false,
     key_condition: {pk: "{part}", sk_begins_with: "ROW#"}}
  - {name: by_kind, operation: query, entities: [Row], index: by_kind, key_condition: {pk: "{kind}", sk_gt: "{min}"}}
  - {name: one, operation: get_item, entities: [Row], consistent_read: true,
     key_condition: {pk: "{part}", sk: "ROW#{n}"}}
  - {name: first5, operation: scan, entities: [Row], limit: 5}
  - {name: put_row, operation: put_item, entities: [Row], key_condition: {pk: "{part}", sk: "ROW#{n}"}}
""")
BINARY = loads_spec("""
spec_version: 1
domain: bins
table: {partition_key: pk, sort_key: sk, sort_key_type: B}
entities:
  Blob:
    key: {pk: "{part}", sk: "{tag}"}
access_patterns:
  - {name: tagged, operation: query, entities: [Blob], limit: 2,
     key_condition: {pk: "{part}", sk_begins_with: "{prefix}"}}
""")
TABLE = SPEC.table_name                     # blue_rows
FAULTS = {"unprocessed": 0.3, "throttle": 0.2, "seed": 7}


def every_type(i: int) -> dict:
    """An item with every DynamoDB type (unicode, 38-digit numbers, binary, sets, nesting)."""
    return {"pk": f"p{i % 10}", "sk": f"ITEM#{i:04d}", "s": f"héllo ✓ 日本 😀 {i}",
            "n": Decimal(f"12345678901234567890.123456789012{i:05d}7"),          # 38 significant digits
            "neg": Decimal("-0.000001"), "big": Decimal("9.9999999999999999999999999999999999999E+125"),
            "b": bytes([i % 256, 0, 255]), "t": True, "f": False, "null": None, "empty": "", "empty_b": b"",
            "l": [Decimal(i), "x", None, [b"\x00\x01"], {"k": False}],
            "m": {"a": {"b": ["c"]}, "ü": Decimal("1E-130")},
            "ss": {"a", "b", f"s{i}"}, "ns": {Decimal(1), Decimal("2.5"), Decimal(i + 3)}, "bs": {b"\x01", b"\x02\x03"}}


def small(i: int) -> dict:
    """A small item: its key and one attribute of one type (every type in turn); every 50th item has them all
    (moto serializes each value slowly, so most items stay small)."""
    if i % 50 == 0:
        return every_type(i)
    full = every_type(i)
    name = list(full)[2 + i % (len(full) - 2)]
    return {"pk": full["pk"], "sk": full["sk"], name: full[name]}


def sized(pk: str, size: int, char: str = "x") -> dict:
    """An item of exactly ``size`` bytes (DynamoDB's count) made of ``char`` (padded with "x")."""
    item = {"pk": pk, "sk": "S", "v": ""}
    room = size - item_size(item)
    item["v"] = char * (room // len(char.encode("utf-8"))) + "x" * (room % len(char.encode("utf-8")))
    assert item_size(item) == size
    return item


def row(part: str, n: int, **extra) -> dict:
    return {"pk": part, "sk": f"ROW#{n}", "kind": "k", "n": Decimal(n), "body": "b" * 10, "extra": "e" * 100, **extra}


def by_key(items) -> dict:
    return {(i["pk"], i["sk"]): i for i in items}


def port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


# -- the embedded server ------------------------------------------------------------------------------
def test_local_dynamo_starts_on_a_free_port_answers_and_stops(dynamo_endpoint):
    with LocalDynamo() as local:
        assert local.url == f"http://127.0.0.1:{local.port}" and local.port != dynamo_endpoint.port
        with urllib.request.urlopen(local.url + IDENTITY_PATH, timeout=5) as resp:
            assert json.loads(resp.read())["pid"] == local.pid != os.getpid()
        client = Endpoint.embedded(local).client()
        assert client.call("list_tables")["TableNames"] == []
        impostor = LocalDynamo()
        impostor.port = dynamo_endpoint.port           # the session's server answers with another token
        with pytest.raises(DynamoError) as e:
            impostor._check_identity("not-its-token")
        assert e.value.code == "EndpointIdentityMismatch"
        port, pid = local.port, local.pid
    assert not local.running
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert port_is_free(port)
    local.stop()                                       # idempotent
    assert dynamo_endpoint.running


def test_a_server_that_dies_at_start_is_reported_with_its_stderr(tmp_path, monkeypatch):
    broken = tmp_path / "moto"                         # a moto that fails to import, first on the child's path
    broken.mkdir()
    (broken / "__init__.py").write_text("raise ImportError('this moto is broken on purpose')\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), *sys.path]))
    with pytest.raises(DynamoError) as e:
        LocalDynamo().start()
    assert e.value.code == "EndpointStartFailed" and "exited with code 1" in e.value.msg
    assert "this moto is broken on purpose" in e.value.hint and "moto[server] is installed" in e.value.hint


# -- choosing the endpoint ------------------------------------------------------------------------
@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for var in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
                "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(var, raising=False)
    config = tmp_path / "config"
    config.write_text("[profile blue_nb_test]\nregion = eu-west-3\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    return monkeypatch


def test_resolve_endpoint_order(clean_env, dynamo_endpoint):
    dead = "http://127.0.0.1:9"
    clean_env.setenv("AWS_ENDPOINT_URL_DYNAMODB", dead)
    with resolve_endpoint(dynamo_endpoint.url, aws=True) as ep:          # explicit URL first
        assert (ep.kind, ep.url, ep.emulator) == ("url", dynamo_endpoint.url, "moto")
        assert set(ep.known_gaps) == set(LocalDynamo.KNOWN_GAPS) and "--endpoint-url" in ep.label
        assert ep.client().call("list_tables")["ResponseMetadata"]["HTTPStatusCode"] == 200
    with resolve_endpoint(aws=True) as ep:                                # then the environment
        assert (ep.kind, ep.url, ep.emulator, ep.known_gaps) == ("url", dead, None, {})
        assert "AWS_ENDPOINT_URL_DYNAMODB" in ep.label
    clean_env.delenv("AWS_ENDPOINT_URL_DYNAMODB")
    with resolve_endpoint(aws=True, region="ap-south-1") as ep:          # then AWS
        assert (ep.kind, ep.url, ep.region, ep.emulator) == ("aws", None, "ap-south-1", None)
        assert ep.client().endpoint_url == "https://dynamodb.ap-south-1.amazonaws.com"
    with resolve_endpoint(aws=True, profile="blue_nb_test") as ep:
        assert (ep.kind, ep.region) == ("aws", "eu-west-3") and "profile blue_nb_test" in ep.label


def test_without_configuration_nothing_contacts_aws(clean_env):
    clean_env.setenv("AWS_PROFILE", "a_profile_that_does_not_exist")     # never read for the embedded one
    with resolve_endpoint() as ep:
        assert (ep.kind, ep.emulator, ep.region) == ("embedded", "moto", "us-east-1")
        assert ep.label == f"embedded moto_server at {ep.url}"
        client = ep.client()
        assert client.endpoint_url.startswith("http://127.0.0.1:") and client.endpoint_url == ep.url
        assert client._client._request_signer._credentials.access_key == "testing"
        assert client.call("list_tables")["TableNames"] == []
        local = ep.local
    assert not local.running


def test_aws_without_region_or_credentials_says_what_to_give(clean_env):
    clean_env.setenv("AWS_EC2_METADATA_DISABLED", "true")     # no instance metadata call: nothing leaves the host
    with pytest.raises(DynamoError) as e:
        with resolve_endpoint(aws=True):
            pass
    assert e.value.code == "NoRegion" and "AWS_REGION" in e.value.hint and "--region" not in e.value.hint
    with resolve_endpoint(aws=True, region="us-east-1") as ep:
        with pytest.raises(DynamoError) as e:
            ep.client().table_exists("blue_rows")            # botocore finds no credentials before sending
    assert e.value.code == "NoCredentials"
    assert e.value.hint == "give --endpoint-url for a local endpoint, or --aws with configured credentials"


def test_profile_without_aws_is_refused(clean_env):
    with pytest.raises(DynamoError) as e:
        with resolve_endpoint(profile="blue_nb_test"):
            pass
    assert e.value.code == "UsageError" and "--aws" in e.value.hint


def test_table_names_get_the_prefix_and_are_checked(dynamo_endpoint):
    client = Endpoint.embedded(dynamo_endpoint).client(table_prefix="dev.")
    assert client.name("blue_x") == "dev.blue_x" and client.prefix == "dev."
    for bad in ("ab", "x" * 256, "blue dialogue"):
        with pytest.raises(DynamoError) as e:
            Endpoint.embedded(dynamo_endpoint).client().name(bad)
        assert e.value.code == "InvalidTableName"
    with pytest.raises(DynamoError, match="holds characters a table name cannot"):
        Endpoint.embedded(dynamo_endpoint).client(table_prefix="a/b")


# -- tables --------------------------------------------------------------------------------------
@pytest.mark.parametrize("file", ["dialogue.yaml", "document.yaml", "dialogue_v2.yaml"])
def test_example_tables_are_created_as_requested(dynamo_client, file):
    spec = load_spec(SPECS / file)
    request = create_table_request(spec, dynamo_client.name(spec.table_name))
    desc = dynamo_client.create_table(spec)
    assert desc["TableName"] == request["TableName"] and desc["TableStatus"] == "ACTIVE"
    assert desc["KeySchema"] == request["KeySchema"]
    assert sorted(desc["AttributeDefinitions"], key=str) == sorted(request["AttributeDefinitions"], key=str)
    assert [{k: g[k] for k in ("IndexName", "KeySchema", "Projection")} for g in desc["GlobalSecondaryIndexes"]] \
        == request["GlobalSecondaryIndexes"]
    assert all(g["IndexStatus"] == "ACTIVE" for g in desc["GlobalSecondaryIndexes"])
    assert desc["BillingModeSummary"]["BillingMode"] == request["BillingMode"] == "PAY_PER_REQUEST"


def test_existing_table_refused_unless_replaced(dynamo_client):
    dynamo_client.create_table(SPEC, tags={"blue-nb:state": "loading"})
    assert dynamo_client.tags(TABLE) == {"blue-nb:state": "loading"}
    dynamo_client.tag(TABLE, {"blue-nb:state": "complete", "owner": "tests"})
    assert dynamo_client.tags(TABLE) == {"blue-nb:state": "complete", "owner": "tests"}
    dynamo_client.write_items(TABLE, [row("p", 1)], progress=False)
    with pytest.raises(DynamoError) as e:
        dynamo_client.create_table(SPEC)
    assert e.value.code == "TableExists" and e.value.where == dynamo_client.name(TABLE)
    assert "--replace" in e.value.hint and dynamo_client.name(TABLE) in e.value.msg
    assert dynamo_client.count_items(TABLE) == 1
    dynamo_client.create_table(SPEC, replace=True)
    assert dynamo_client.count_items(TABLE) == 0 and dynamo_client.tags(TABLE) == {}
    assert dynamo_client.delete_table(TABLE) is True and dynamo_client.delete_table(TABLE) is False
    assert not dynamo_client.table_exists(TABLE)


def test_a_missing_table_is_resource_not_found(dynamo_client):
    with pytest.raises(DynamoError) as e:
        dynamo_client.describe("no_such_table")
    assert e.value.code == "ResourceNotFoundException" and e.value.where == dynamo_client.name("no_such_table")
    assert "create the table first" in e.value.hint and e.value.cause is not None
    with pytest.raises(DynamoError) as e:
        dynamo_client.run_plan(plan(SPEC, "rows", {"part": "p"}))
    assert e.value.code == "ResourceNotFoundException"


def test_an_unreachable_endpoint_is_a_clear_error():
    client = DynamoClient("http://127.0.0.1:9", credentials={"aws_access_key_id": "a", "aws_secret_access_key": "b"},
                          retries=0, connect_timeout=1)
    with pytest.raises(DynamoError) as e:
        client.table_exists("blue_rows")
    assert e.value.code == "EndpointConnectionError" and "--endpoint-url" in e.value.hint


def test_the_server_never_outlives_the_process_that_started_it(tmp_path):
    script = ("from blue_nb.dynamo import LocalDynamo; import sys, time\n"
              "l = LocalDynamo().start(); print(l.pid, flush=True); time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    os.kill(child, 0)                                  # the server runs
    parent.send_signal(signal.SIGKILL)                 # no atexit, no finalizer: only the closed pipe tells it
    parent.wait()
    parent.stdout.close()
    for _ in range(100):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the server outlived its parent")


# -- writing -------------------------------------------------------------------------------------------
def test_thousand_items_of_every_type_in_forty_calls_and_back_equal(dynamo_client):
    dynamo_client.create_table(SPEC)
    items = [small(i) for i in range(1000)]
    assert {type(v) for i in items for v in i.values()} == {str, Decimal, bytes, bool, type(None), list, dict, set}
    assert len(items[50]["n"].as_tuple().digits) == 38
    report = dynamo_client.write_items(TABLE, items, total=len(items), progress=False)
    assert isinstance(report, BatchWriteReport)
    assert (report.items, report.calls, report.unprocessed_retries, report.throttle_retries) == (1000, 40, 0, 0)
    back = by_key(dynamo_client.scan_items(TABLE, segments=3, progress=False))
    assert back == by_key(items)
    full = back[("p0", "ITEM#0050")]
    assert str(full["n"]) == "12345678901234567890.123456789012000507" and full["s"] == "héllo ✓ 日本 😀 50"
    assert full["bs"] == {b"\x01", b"\x02\x03"} and full["empty_b"] == b"" and full["null"] is None
    assert dynamo_client.count_items(TABLE) == 1000


def test_parallel_writers_store_every_item(dynamo_client):
    dynamo_client.create_table(SPEC)
    items = [row(f"p{i % 5}", i) for i in range(260)]
    report = dynamo_client.write_items(TABLE, items, workers=3, progress=False)
    assert (report.items, report.calls) == (260, 11)
    assert by_key(dynamo_client.scan_items(TABLE, segments=1, progress=False)) == by_key(items)


def test_batches_stop_at_25_requests_16_mb_and_repeated_keys():
    ascii_items = [sized(f"a{i}", 390_000) for i in range(26)]
    assert [len(b) for b in batches(ascii_items, ("pk", "sk"), "t")] == [25, 1]     # 25 x 390 KB < 16 MB
    euro = [sized(f"e{i}", 390_000, "€") for i in range(22)]   # 3 UTF-8 bytes, sent as 6 ("\u20ac")
    cut = list(batches(euro, ("pk", "sk"), "t"))
    assert [len(b) for b in cut] == [21, 1]
    body = sum(p.body_bytes for p in cut[0])
    assert body <= BATCH_MAX_BYTES < body + cut[1][0].body_bytes
    assert cut[0][0].body_bytes == len(json.dumps({"PutRequest": {"Item": json.loads(json.dumps(
        {"pk": {"S": "e0"}, "sk": {"S": "S"}, "v": {"S": euro[0]["v"]}}))}})) + 2
    twice = [{"pk": "a", "sk": "1"}, {"pk": "b", "sk": "1"}, {"pk": "a", "sk": "1", "v": "new"}]
    assert [[p.shown for p in b] for b in batches(twice, ("pk", "sk"))] == [["pk=a, sk=1", "pk=b, sk=1"],
                                                                           ["pk=a, sk=1"]]


def test_large_items_are_batched_by_request_bytes(dynamo_client):
    dynamo_client.create_table(SPEC)
    euro = [sized(f"e{i}", 390_000, "€") for i in range(22)]
    report = dynamo_client.write_items(TABLE, euro, progress=False)
    assert (report.items, report.calls) == (22, 2)
    assert by_key(dynamo_client.scan_items(TABLE, progress=False)) == by_key(euro)


def test_item_limit_is_dynamodbs_not_motos(dynamo_client):
    dynamo_client.create_table(SPEC)
    with pytest.raises(ItemError) as e:                # refused by blue_nb before anything is sent
        dynamo_client.write_items(TABLE, [sized("small", 100), sized("huge", 409_601)], progress=False)
    assert e.value.where == "pk=huge, sk=S" and "409,601 bytes; DynamoDB's limit is 409,600" in e.value.msg
    assert dynamo_client.count_items(TABLE) == 0
    limit = sized("limit", 409_600)
    assert [len(b) for b in batches([limit], ("pk", "sk"))] == [1]       # within DynamoDB's limit
    with pytest.raises(DynamoError) as e:
        dynamo_client.write_items(TABLE, [limit], progress=False)
    assert e.value.code == "ValidationException" and e.value.where == "pk=limit, sk=S"
    assert "moto refused an item DynamoDB would take" in e.value.msg and "a moto limitation" in e.value.msg
    assert "405,000" in e.value.msg and "409,600" in e.value.msg
    dynamo_client.write_items(TABLE, [sized("ok", 405_000)], progress=False)    # moto's own limit, inclusive
    assert dynamo_client.count_items(TABLE) == 1


def test_items_without_the_table_key_are_refused(dynamo_client):
    dynamo_client.create_table(SPEC)
    with pytest.raises(ItemError) as e:
        dynamo_client.write_items(TABLE, [{"pk": "a"}], progress=False)
    assert "item has no sk" in e.value.msg and e.value.where == "pk=a, sk=None"


# -- faults: UnprocessedItems and throttling ---------------------------------------------------------
@pytest.fixture(scope="module")
def faulty():
    with LocalDynamo() as local, FaultProxy(local.url, FAULTS) as proxy:
        yield proxy


def test_faults_are_retried_until_every_item_is_stored(faulty, monkeypatch):
    monkeypatch.setattr(calls, "BACKOFF_BASE", 0.002)      # the same backoff, scaled down: a quick test
    client = faulty.endpoint().client(table_prefix="faults_", retries=0)   # every retry is ours
    client.create_table(SPEC)
    items = [row(f"p{i % 7}", i, extra=f"x{i}") for i in range(600)]
    report = client.write_items(TABLE, items, progress=False)
    assert report.items == 600 and report.unprocessed_retries > 0 and report.throttle_retries > 0
    assert report.calls == 24 + report.unprocessed_retries + report.throttle_retries
    assert client.count_items(TABLE) == 600
    assert by_key(client.scan_items(TABLE, progress=False)) == by_key(items)


def test_backoff_is_exponential_with_full_jitter_and_capped():
    rng = random.Random(1)
    for attempt, ceiling in [(1, 0.05), (2, 0.1), (5, 0.8), (7, 3.2), (8, 5.0), (30, 5.0)]:
        waits = [calls.backoff(attempt, rng) for _ in range(300)]
        assert all(0 <= w <= ceiling for w in waits) and max(waits) > 0.9 * ceiling


def test_faults_beyond_max_attempts_say_how_many_items_are_not_written(faulty):
    client = faulty.endpoint().client(table_prefix="giveup_", retries=0)
    client.create_table(SPEC)
    items = [row("p", i) for i in range(600)]
    with pytest.raises(DynamoError) as e:
        client.write_items(TABLE, items, total=600, max_attempts=1, progress=False)
    assert e.value.code in ("ProvisionedThroughputExceededException", "UnprocessedItems")
    stored = client.count_items(TABLE)
    assert (f"the table is partly written: {stored:,} items of 600 are in it, {600 - stored:,} are not"
            in e.value.msg) and "it resumes where this stopped" in e.value.hint
    assert "puts are idempotent" in e.value.hint


def test_throttles_retried_by_botocore_are_counted():
    with LocalDynamo() as local, FaultProxy(local.url, {"throttle": 0.5, "seed": 3}) as proxy:
        client = proxy.endpoint().client()
        client.create_table(SPEC)
        report = client.write_items(TABLE, [row("p", i) for i in range(50)], progress=False)
        assert (report.items, report.calls, report.unprocessed_retries) == (50, 2, 0)
        assert report.throttle_retries > 0                 # botocore's own retries, from RetryAttempts
        assert client.count_items(TABLE) == 50


# -- reading: a plan's request, page by page -----------------------------------------------------------
def q_row(n: int) -> dict:
    return {"pk": "q", "sk": f"ROW#{n}", "kind": "k", "n": Decimal(n + 100), "body": "b", "extra": "e"}


@pytest.fixture(scope="module")
def loaded(dynamo_endpoint):
    """Six rows in partition p, five in q, all of kind k (the GSI by_kind projects body only)."""
    client = Endpoint.embedded(dynamo_endpoint).client(table_prefix="reads_")
    client.create_table(SPEC)
    items = [row("p", n) for n in range(6)] + [q_row(n) for n in range(5)]
    client.write_items(TABLE, items, progress=False)
    return client, items


def pages(result) -> list[tuple]:
    return [(p.count, p.last_evaluated_key) for p in result.pages]


def test_query_items_order_bytes_and_read_units(loaded):
    client, items = loaded
    r = client.run_plan(plan(SPEC, "rows_desc", {"part": "p"}))
    assert [i["sk"] for i in r.items] == [f"ROW#{n}" for n in range(5, -1, -1)] and r.items[0] == items[5]
    sizes = [item_size(i) for i in items[:6]]
    assert pages(r) == [(6, None)] and r.pages[0].scanned_count == 6 and r.pages[0].raw["Count"] == 6
    assert (r.bytes_read, r.rcu) == (sum(sizes), query_read_units(sizes, "eventual")) == (821, 0.5)


def test_limit_pages_and_motos_missing_trailing_page(loaded):
    client, items = loaded
    planned = plan(SPEC, "rows3", {"part": "q"})
    r = client.run_plan(planned)                         # 5 items, Limit 3: as DynamoDB pages them
    assert pages(r) == [(3, {"pk": "q", "sk": "ROW#2"}), (2, None)] and r.items == items[6:]
    assert pages(client.run_plan(planned, follow=False)) == [(3, {"pk": "q", "sk": "ROW#2"})]
    six = plan(SPEC, "rows3", {"part": "p"})
    r = client.run_plan(six)                             # 6 items, Limit 3: the gap
    assert pages(r) == [(3, {"pk": "p", "sk": "ROW#2"}), (3, None)] and r.items == items[:6]
    dynamodb = paginate(six, [(i, item_size(i)) for i in items[:6]], follow=True)
    assert [(p.count, p.last_evaluated_key) for p in dynamodb.pages] == [
        (3, {"pk": "p", "sk": "ROW#2"}), (3, {"pk": "p", "sk": "ROW#5"}), (0, None)]
    assert "no LastEvaluatedKey" in LocalDynamo.KNOWN_GAPS["no_trailing_page"]
    assert pages(client.run_plan(six, max_pages=1)) == [(3, {"pk": "p", "sk": "ROW#2"})]


def test_index_query_returns_projected_entries_priced_by_their_size(loaded):
    client, items = loaded
    r = client.run_plan(plan(SPEC, "by_kind", {"kind": "k", "min": "3"}))
    want = [{k: i[k] for k in ("pk", "sk", "kind", "n", "body")} for i in items if i["n"] > 3]
    assert r.items == want and [i["n"] for i in r.items] == [4, 5, 100, 101, 102, 103, 104]
    assert r.bytes_read == sum(item_size(e) for e in want) < sum(item_size(i) for i in items if i["n"] > 3)


def test_get_item_found_and_missing(loaded):
    client, items = loaded
    r = client.run_plan(plan(SPEC, "one", {"part": "p", "n": "2"}))
    size = item_size(items[2])
    assert r.items == [items[2]] and pages(r) == [(1, None)]
    assert (r.bytes_read, r.rcu) == (size, read_units(size, "strong")) == (137, 1)
    missing = client.run_plan(plan(SPEC, "one", {"part": "p", "n": "99"}))
    assert missing.items == [] and pages(missing) == [(0, None)] and (missing.bytes_read, missing.rcu) == (0, 1)


def test_scan_with_limit_follows_every_page(loaded):
    client, items = loaded
    r = client.run_plan(plan(SPEC, "first5", {}))
    assert [p.count for p in r.pages] == [5, 5, 1] and r.pages[-1].last_evaluated_key is None
    assert all(p.last_evaluated_key for p in r.pages[:2]) and by_key(r.items) == by_key(items)


def test_write_plans_are_not_sent(loaded):
    client, _ = loaded
    with pytest.raises(QueryError, match="run_plan runs reads"):
        client.run_plan(plan(SPEC, "put_row", {"part": "p", "n": "1"}))


def test_binary_keys_go_out_as_bytes_and_come_back_as_bytes(dynamo_client):
    dynamo_client.create_table(BINARY)
    blobs = [{"pk": "x", "sk": s} for s in (b"a1", b"a2", b"a3", b"b1", b"\xff")]
    dynamo_client.write_items(BINARY.table_name, blobs, progress=False)
    r = dynamo_client.run_plan(plan(BINARY, "tagged", {"part": "x", "prefix": "a"}))
    assert [i["sk"] for i in r.items] == [b"a1", b"a2", b"a3"]
    assert pages(r) == [(2, {"pk": "x", "sk": b"a2"}), (1, None)]


def test_scan_items_can_be_abandoned(loaded):
    client, items = loaded
    it = client.scan_items(TABLE, segments=2, progress=False)
    first = next(it)
    it.close()                                           # the segment threads stop; nothing hangs
    assert first in items and client.count_items(TABLE) == len(items)


def test_motos_other_known_gaps_as_moto_shows_them(dynamo_client):
    dynamo_client.create_table(SPEC)
    big = [{"pk": "p", "sk": f"S{i:02d}", "v": "x" * 100_000} for i in range(26)]
    requests = [{"PutRequest": {"Item": boto_item(item_to_wire(i))}} for i in big]
    answer = dynamo_client.call("batch_write_item", RequestItems={TABLE: requests}, ReturnConsumedCapacity="TOTAL")
    assert answer["UnprocessedItems"] == {} and answer["ConsumedCapacity"][0]["CapacityUnits"] == 1.0  # 26 taken
    planned = plan(SPEC, "rows", {"part": "p"})
    r = dynamo_client.run_plan(planned, follow=False)
    dynamodb = paginate(planned, [(i, item_size(i)) for i in big], max_pages=1)
    assert r.pages[0].count == 9 and dynamodb.pages[0].count == 11     # moto stops before 1,000,000 bytes
    assert r.rcu == query_read_units([item_size(i) for i in big[:9]], "eventual") == 110   # computed by blue_nb
    raw = dynamo_client.call("query", TableName=TABLE, KeyConditionExpression="pk = :p",
                              ExpressionAttributeValues={":p": {"S": "p"}}, ReturnConsumedCapacity="TOTAL")
    assert raw["ConsumedCapacity"]["CapacityUnits"] == 1.0              # fixed: DynamoDB charges 110 here
    assert set(LocalDynamo.KNOWN_GAPS) == {"consumed_capacity", "batch_of_26", "item_limit_405000",
                                           "no_trailing_page", "page_cut_1000000", "query_slows"}


@pytest.mark.parametrize("workers", [1, 3])
def test_the_wrapper_pauses_the_writer_after_its_first_batch(dynamo_client, workers):
    """tests/paused.py, which the interrupted-apply test relies on: nothing is written after the first batch."""
    dynamo_client.create_table(SPEC)
    script = (f"from tests.paused import install\n"
              f"install('dynamo-writing')\n"
              f"from blue_nb.dynamo import DynamoClient\n"
              f"c = DynamoClient({dynamo_client.endpoint_url!r}, credentials={{'aws_access_key_id': 'a', "
              f"'aws_secret_access_key': 'b'}}, table_prefix={dynamo_client.prefix!r})\n"
              f"c.write_items('blue_rows', [{{'pk': 'p', 'sk': str(i)}} for i in range(100)], workers={workers}, "
              f"progress=False)\n")
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True, cwd=root)
    try:
        assert proc.stderr.readline().strip() == "blue-nb-test-pause dynamo-writing"
        if workers == 1:
            assert dynamo_client.count_items(TABLE) == 25         # the first batch, and nothing more
        else:                                                     # and the batches already in flight
            time.sleep(1)
            stored = dynamo_client.count_items(TABLE)
            assert 25 <= stored <= 25 * workers and stored % 25 == 0
            time.sleep(0.5)
            assert dynamo_client.count_items(TABLE) == stored
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
