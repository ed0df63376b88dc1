"""blue-nb migrate: the plan of a design change (counts, units, dollars, time, risks), its execution on the
embedded endpoint (the table equals apply NEW; consumed units equal planned ones), its refusal of blocking
risks, and its kill test: killed at several points, run again, the same table."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from blue_nb.app.migrate import delete_units, index_backfill_units, plan_migration, put_units, scan_read_units
from blue_nb.app.migrate_run import COPY_TAG, MIGRATION_TAG, execute_migration
from blue_nb.app.roundtrip import items_digest
from blue_nb.app.workflows import located_items
from blue_nb.dynamo import Endpoint
from blue_nb.errors import MigrationError
from blue_nb.items import ItemBuilder
from blue_nb.patterns import global_index_updates
from blue_nb.sizing import MAX_ITEM_BYTES, item_size
from blue_nb.spec import load_spec
from tests.paused import signal_at

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "data" / "specs"
OLD, NEW = SPECS / "dialogue.yaml", SPECS / "dialogue_v2.yaml"
SAMPLE = ROOT / "data" / "sample" / "dialogue"


def blue_nb(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "blue_nb.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ})


def kill_at(phase: str, args: list[str]) -> None:
    """Run ``blue-nb ARGS`` paused at ``phase`` (:mod:`tests.paused`) and kill it there (SIGKILL)."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.paused", phase, *args], stderr=subprocess.PIPE, text=True,
                            stdout=subprocess.DEVNULL, cwd=ROOT)
    code, _ = signal_at(proc, phase, signal.SIGKILL)
    assert code == -signal.SIGKILL


@pytest.fixture(scope="module")
def sample_plan():
    return plan_migration(OLD, NEW, data_dir=SAMPLE)


# -- the plan -------------------------------------------------------------------------------------

def test_the_shipped_change_moves_3576_perspectives_and_1135_tension_events(sample_plan):
    counts = sample_plan.counts()
    assert counts["Perspective"]["move sort"] == 3576 and counts["Perspective"]["stay"] == 0
    assert counts["TensionEvent"]["move partition"] == 1135
    for entity in ("Dialogue", "Expert", "Tension"):
        assert counts[entity]["stay"] == sum(counts[entity].values()) > 0
    table = sample_plan.indexes[0]
    assert (table.index, table.moved, table.kept, table.written, table.deleted) == ("table", 4711, 550, 0, 0)
    assert not sample_plan.blocked and not sample_plan.new_table


def test_the_plan_s_units_are_the_sum_of_its_puts_deletes_and_scans(sample_plan):
    new = sample_plan.new
    moved = [c for c in sample_plan.changes if c.fate.startswith("move")]
    steps = {s.name: s for s in sample_plan.steps}
    assert steps["2 backfill"].wcu == sum(put_units(new, None, c.new) for c in moved)
    assert steps["6 delete old"].wcu == sum(delete_units(new, c.old) for c in moved)
    assert steps["2 backfill"].rcu == scan_read_units([item_size(c.old) for c in sample_plan.changes])
    assert steps["7 prove"].rcu == scan_read_units([item_size(c.new) for c in sample_plan.changes])
    # one item's units by hand: a 1,500-byte put is 2 WCU; no gsi1 entry for a perspective
    p = next(c for c in moved if c.entity == "Perspective")
    assert put_units(new, None, p.new) == -(-item_size(p.new) // 1024)
    # the time at the rate, and the production size scaled
    assert steps["2 backfill"].seconds == pytest.approx(steps["2 backfill"].wcu / 1000 + steps["2 backfill"].rcu / 3000)
    big = plan_migration(OLD, NEW, data_dir=SAMPLE, items=50_000, rate=500)
    b = {s.name: s for s in big.steps}["2 backfill"]
    assert b.scaled_wcu == pytest.approx(b.wcu * 50_000 / 5261) and b.seconds == pytest.approx(b.wcu / 500 + b.rcu / 1500)


def test_a_duckdb_file_loaded_with_the_old_design_plans_the_same(tmp_path, small_dialogue):
    from blue_nb.app.workflows import load_data

    load_data(OLD, small_dialogue, duckdb=tmp_path / "old.duckdb", progress=False)
    from_rows = plan_migration(OLD, NEW, data_dir=small_dialogue)
    from_store = plan_migration(OLD, NEW, duckdb=tmp_path / "old.duckdb")
    assert from_store.counts() == from_rows.counts() and from_store.planned_units == from_rows.planned_units
    assert [vars(i) for i in from_store.indexes] == [vars(i) for i in from_rows.indexes]


def test_a_production_size_per_entity_scales_each_entity_s_units():
    plan = plan_migration(OLD, NEW, data_dir=SAMPLE, items={"Perspective": 3576 * 100})
    new = plan.new
    per = {e: sum(put_units(new, None, c.new) for c in plan.changes if c.entity == e and c.fate.startswith("move"))
           for e in ("Perspective", "TensionEvent")}
    steps = {s.name: s for s in plan.steps}
    assert steps["2 backfill"].wcu == per["Perspective"] + per["TensionEvent"]
    assert steps["2 backfill"].scaled_wcu == pytest.approx(per["Perspective"] * 100 + per["TensionEvent"])
    assert steps["6 delete old"].scaled_wcu == pytest.approx(
        sum(delete_units(new, c.old) * (100 if c.entity == "Perspective" else 1)
            for c in plan.changes if c.fate.startswith("move")))
    assert steps["4 switch reads"].scaled_wcu == 0


def test_the_backfill_heat_names_the_partition_and_a_safe_rate():
    plan = plan_migration(OLD, NEW, data_dir=SAMPLE, rate=40_000)
    heat = [r for r in plan.risks if r.kind == "backfill-heat"]
    assert heat and "partition nvidia-dec takes 1,546 of the backfill's 5,120 WCU" in heat[0].message
    assert "a rate up to 3,312 WCU/s keeps every partition under it" in heat[0].message
    assert not [r for r in plan_migration(OLD, NEW, data_dir=SAMPLE, rate=3000).risks if r.kind == "backfill-heat"]


def test_live_writes_are_named_with_the_patterns_that_write_the_moved_entities(sample_plan):
    live = next(r for r in sample_plan.risks if r.kind == "live-writes")
    # add_perspective has no rate of its own: post_perspective's transaction makes it
    assert live.items == ["record_tension_event (TensionEvent, 5 calls/s)",
                          "post_perspective (Perspective, Dialogue, 25 calls/s)"]
    assert not live.blocks


def test_cli_plan_prints_and_writes_it(tmp_path):
    out = tmp_path / "plan"
    r = blue_nb("migrate", str(OLD), str(NEW), "--data", str(SAMPLE), "--items", "Perspective=6000000",
                "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "Perspective   3,576  0     0               3,576" in r.stdout
    assert "(sample | production)" in r.stdout and "risk live-writes" in r.stdout
    saved = json.loads((out / "migration.json").read_text())
    assert saved["entities"]["TensionEvent"]["move partition"] == 1135
    assert saved["scale"]["Perspective"] == pytest.approx(6_000_000 / 3576)
    assert (out / "migration.txt").read_text().splitlines()[0] == r.stdout.splitlines()[0]


@pytest.mark.parametrize("args, words", [
    ([], "give the old design's items: --data DIR or --duckdb FILE"),
    (["--data", str(SAMPLE), "--items", "Nobody=3"], "--items names Nobody"),
    (["--data", str(SAMPLE), "--items", "lots"], "--items 'lots' is not a whole number"),
    (["--data", str(SAMPLE), "--force"], "--endpoint-url, --aws, --force, --new-table and --delete-old-table are for --execute"),
])
def test_cli_refuses_bad_options_with_exit_2(args, words):
    r = blue_nb("migrate", str(OLD), str(NEW), *args)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr


# -- blocking risks -------------------------------------------------------------------------------

def colliding_spec(tmp_path: Path) -> Path:
    text = NEW.read_text().replace('sk: "PERSP#{round:03d}#{expert}#{seq:03d}"\n    attributes',
                                   'sk: "PERSP#{round:03d}#{expert}"\n    attributes')
    assert text != NEW.read_text()
    path = tmp_path / "dialogue_collide.yaml"
    path.write_text(text)
    return path


def test_colliding_keys_are_named_and_not_executed_without_force(tmp_path, small_dialogue, dynamo_endpoint):
    spec = colliding_spec(tmp_path)
    plan = plan_migration(OLD, spec, data_dir=small_dialogue)
    clash = next(r for r in plan.risks if r.kind == "key-collision")
    assert clash.blocks and plan.blocked
    first = clash.items[0]
    assert first.startswith("Perspective (") and " and Perspective (" in first and "-> one key " in first
    assert "perspectives.csv:" in first
    r = blue_nb("migrate", str(OLD), str(spec), "--data", str(small_dialogue))
    assert r.returncode == 1 and "BLOCKS key-collision" in r.stdout
    p = f"m{uuid.uuid4().hex[:8]}-"
    r = blue_nb("migrate", str(OLD), str(spec), "--data", str(small_dialogue), "--execute", "--endpoint-url",
                dynamo_endpoint.url, "--table-prefix", p)
    assert r.returncode == 2 and "the migration is not executed" in r.stderr and "--force" in r.stderr, r.stderr
    assert first in r.stderr
    assert not Endpoint.embedded(dynamo_endpoint).client(table_prefix=p).table_exists("blue_dialogue")


def test_an_item_that_crosses_400_kb_in_the_new_shape_is_named(tmp_path, small_dialogue):
    data = tmp_path / "data"
    shutil.copytree(small_dialogue, data)
    path = data / "perspectives.csv"
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    n = next(i for i, r in enumerate(rows) if int(r["round"]) < 10 and int(r["seq"]) < 10)
    old = load_spec(OLD)
    rows[n]["content"] = "x"
    base = item_size(ItemBuilder(old).build(old.entities["Perspective"], rows[n]))
    rows[n]["content"] = "x" * (MAX_ITEM_BYTES - base + 1 - 2)      # the old item: 2 bytes under the limit
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plan = plan_migration(OLD, NEW, data_dir=data)
    big = next(r for r in plan.risks if r.kind == "item-size")
    assert big.blocks and len(big.items) == 1
    assert big.items[0].startswith(f"Perspective {rows[n]['dialogue_id']}/PERSP#") and \
        big.items[0].endswith(f"perspectives.csv:{n + 2}): {MAX_ITEM_BYTES + 2:,} bytes")
    with pytest.raises(MigrationError, match="not executed"):
        execute_migration(OLD, NEW, data_dir=data)


# -- execution ------------------------------------------------------------------------------------

def test_execute_leaves_the_table_apply_new_builds_and_consumes_the_planned_units(dynamo_endpoint, small_dialogue):
    p = f"m{uuid.uuid4().hex[:8]}-"
    ep = Endpoint.embedded(dynamo_endpoint)
    run = execute_migration(OLD, NEW, data_dir=small_dialogue, endpoint=ep, table_prefix=p)
    assert run.ok and run.units_match and not run.resumed
    assert run.units == run.plan.planned_units and run.units["wcu"] > 0
    client = ep.client(table_prefix=p)
    stored = items_digest(client.scan_items("blue_dialogue", progress=False))
    assert stored == items_digest(i for _, i, _ in located_items(load_spec(NEW), small_dialogue))
    assert client.tags("blue_dialogue")[MIGRATION_TAG].startswith("complete")
    moved = sum(v for e in run.plan.counts().values() for k, v in e.items() if k.startswith("move"))
    assert run.puts == run.deletes == moved > 0
    again = execute_migration(OLD, NEW, data_dir=small_dialogue, endpoint=ep, table_prefix=p)   # nothing left to do
    assert again.ok and again.puts == again.deletes == 0 and again.units["wcu"] == 0


@pytest.mark.parametrize("phase", ["migrate-write-3", "migrate-scan-1", "migrate-write-28", "migrate-scan-2",
                                   "migrate-write-45", "migrate-scan-3"])
def test_a_migration_killed_at_any_point_resumes_to_the_same_table(dynamo_endpoint, small_dialogue, phase):
    plan = plan_migration(OLD, NEW, data_dir=small_dialogue)
    old_items = sum(1 for c in plan.changes if c.old is not None)
    moved = sum(1 for c in plan.changes if c.fate.startswith("move"))
    seed, backfill = -(-old_items // 25), -(-moved // 25)
    assert seed < 28 <= seed + backfill < 45 <= seed + 2 * backfill   # seeding (20 calls), backfilling (17), deleting
    p = f"k{uuid.uuid4().hex[:8]}-"
    args = ["migrate", str(OLD), str(NEW), "--data", str(small_dialogue), "--execute", "--endpoint-url",
            dynamo_endpoint.url,
            "--table-prefix", p]
    kill_at(phase, args)
    client = Endpoint.embedded(dynamo_endpoint).client(table_prefix=p)
    assert not client.tags("blue_dialogue")[MIGRATION_TAG].startswith("complete")
    done = blue_nb(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)["run"]
    assert out["ok"] and out["items"]["match"] and out["resumed"]
    expected = items_digest(i for _, i, _ in located_items(load_spec(NEW), small_dialogue))
    assert items_digest(client.scan_items("blue_dialogue", progress=False)) == expected
    assert client.tags("blue_dialogue")[MIGRATION_TAG].startswith("complete")


# -- the review report ----------------------------------------------------------------------------

def test_the_review_report_against_the_previous_version_has_a_migration_part(tmp_path, small_dialogue):
    from blue_nb.app.exports import export_spec
    from blue_nb.app.review import review_data

    plan = plan_migration(OLD, NEW, data_dir=small_dialogue)
    moved = sum(v for e in plan.counts().values() for k, v in e.items() if k.startswith("move"))
    checked = review_data(NEW, small_dialogue, against=OLD, figures=False)
    data = checked[1]
    m = data.changes.migration
    assert m["summary"].startswith(f"{moved:,} of {len(plan.changes):,} items move to new keys")
    assert m["entities"][0] == ["entity", "items", "stay", "move partition", "move sort", "update", "disappear",
                                "appear"]
    assert [row[0] for row in m["steps"][1:]] == [s.name for s in plan.steps]
    out = tmp_path / "review.md"
    export_spec(NEW, "report-md", data_dir=small_dialogue, against=OLD, out=out, checked=checked)
    text = out.read_text()
    part = text[text.index("### Migration"):]
    assert "| 2 backfill |" in part and "risk live-writes" in part
    _, bare = review_data(NEW, against=OLD, figures=False)
    assert bare.changes.migration is None and "--data" in bare.changes.migration_note


def test_ctrl_c_during_a_migration_says_how_to_finish_it(dynamo_endpoint, small_dialogue):
    p = f"i{uuid.uuid4().hex[:8]}-"
    args = ["migrate", str(OLD), str(NEW), "--data", str(small_dialogue), "--execute", "--endpoint-url",
            dynamo_endpoint.url,
            "--table-prefix", p]
    proc = subprocess.Popen([sys.executable, "-m", "tests.paused", "migrate-scan-2", *args], stderr=subprocess.PIPE,
                            text=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    code, err = signal_at(proc, "migrate-scan-2", signal.SIGINT)
    assert code == 130 and "Traceback" not in err, err
    assert f"interrupted: the migration of {p}blue_dialogue on moto at {dynamo_endpoint.url}" in err
    assert "run the same command again: it finishes it, without duplicates or loss" in err
    assert "nothing was changed" not in err


# -- the first migration: Blue's SQLite file into the table ---------------------------------------

def test_blue_sqlite_import_plans_and_executes_the_first_migration(tmp_path, dialogue_spec, small_dialogue,
                                                                   dynamo_endpoint):
    from tests.test_import import _blue_sqlite

    items = _blue_sqlite(tmp_path / "blue.sqlite", dialogue_spec, small_dialogue)
    r = blue_nb("import", str(tmp_path / "blue.sqlite"), "--from", "sqlite", "--out", str(tmp_path / "out"), "--plan",
                "--no-progress", "--format", "json")
    assert r.returncode == 0, r.stderr
    [planned] = json.loads(r.stdout)
    plan = planned["migration"]
    assert plan["first"] is True and not plan["blocked"]
    assert sum(c["appear"] for c in plan["entities"].values()) == len(items)
    assert all(c["appear"] == sum(c.values()) for c in plan["entities"].values())
    steps = {s["name"]: s for s in plan["steps"]}
    assert steps["6 delete old"]["wcu"] == 0 and steps["2 backfill"]["wcu"] >= len(items)
    r = blue_nb("import", str(tmp_path / "blue.sqlite"), "--from", "sqlite", "--out", str(tmp_path / "out2"),
                "--execute", "--endpoint-url", dynamo_endpoint.url, "--no-progress")
    assert r.returncode == 0, r.stderr
    assert "first migration into blue_dialogue: every item written from the rows into a new table" in r.stdout
    assert "units: consumed equal to planned" in r.stdout
    assert f"items: {len(items):,} stored in blue_dialogue on moto at {dynamo_endpoint.url}" in r.stdout
    assert "content digests equal and to what apply NEW builds from the rows" in r.stdout
    client = Endpoint.embedded(dynamo_endpoint).client()
    spec = load_spec(tmp_path / "out2" / "dialogue.yaml")
    assert items_digest(client.scan_items("blue_dialogue", progress=False)) == \
        items_digest(i for _, i, _ in located_items(spec, tmp_path / "out2" / "dialogue"))
    client.delete_table("blue_dialogue")


def test_import_refuses_migration_options_for_other_sources(tmp_path):
    r = blue_nb("import", str(tmp_path), "--from", "s3-export", "--out", str(tmp_path / "o"), "--plan")
    assert r.returncode == 2 and "plan the first migration from Blue's SQLite file" in r.stderr


def test_attribute_and_index_changes_are_updates_executed_at_the_planned_units(tmp_path, small_dialogue,
                                                                              dynamo_endpoint):
    text = NEW.read_text()
    text = text.replace('gsi1sk: "{created_at}"        #', 'gsi1sk: "C#{created_at}"      #')
    text = text.replace("attributes: {label: S, content: S, status: S}", "attributes: {label: S, content: S}")
    assert text.count("C#{created_at}") == 1 and "attributes: {label: S, content: S}\n" in text
    path = tmp_path / "dialogue_v3.yaml"
    path.write_text(text)
    plan = plan_migration(NEW, path, data_dir=small_dialogue)
    counts = plan.counts()
    assert counts["Dialogue"]["update"] == sum(counts["Dialogue"].values()) > 0
    assert counts["Perspective"]["update"] == sum(counts["Perspective"].values())
    gsi = next(i for i in plan.indexes if i.index == "gsi1")
    assert gsi.moved == counts["Dialogue"]["update"] and gsi.kept == 0
    run = execute_migration(NEW, path, data_dir=small_dialogue, endpoint=Endpoint.embedded(dynamo_endpoint),
                            table_prefix=f"u{uuid.uuid4().hex[:8]}-")
    assert run.ok and run.units_match and run.deletes == 0
    assert run.puts == counts["Dialogue"]["update"] + counts["Perspective"]["update"]


def gsi_spec(tmp_path: Path) -> Path:
    """dialogue_v2 with a new global index gsi2 (experts by name) and gsi1's projection changed to ALL."""
    text = NEW.read_text().replace("  indexes:\n", "  indexes:\n    gsi2:\n      type: global\n"
                                   "      partition_key: gsi2pk\n      sort_key: gsi2sk\n", 1)
    text = text.replace('sk: "EXPERT#{expert}"', 'sk: "EXPERT#{expert}"\n      gsi2pk: "EXPERT#{expert}"\n'
                        '      gsi2sk: "{dialogue_id}"', 1)
    text = text.replace("      projection: [title, status, created_at]\n", "      projection: all\n", 1)
    assert text.count("gsi2pk") == 2 and "projection: all" in text
    path = tmp_path / "dialogue_gsi2.yaml"
    path.write_text(text)
    return path


def index_count(client, index: str) -> int:
    return client.call("scan", TableName="blue_dialogue", IndexName=index, Select="COUNT")["Count"]


def test_a_change_of_global_indexes_is_priced_with_the_entries_dynamodb_writes(tmp_path, small_dialogue):
    path = gsi_spec(tmp_path)
    plan = plan_migration(NEW, path, data_dir=small_dialogue)
    experts = [c for c in plan.changes if c.entity == "Expert"]
    dialogues = [c for c in plan.changes if c.entity == "Dialogue"]
    assert {c.fate for c in experts} == {"update"}           # the new key attributes: a put over each expert
    assert {c.fate for c in dialogues} == {"stay"}            # gsi1's keys are as they were: only its projection
    gsi2 = next(i for i in plan.indexes if i.index == "gsi2")
    assert gsi2.written == len(experts) and gsi2.backfill_wcu == len(experts)
    backfill = next(s for s in plan.steps if s.name == "2 backfill")
    # the puts of the experts (their gsi2 entries included), and DynamoDB's backfill of gsi1 created again:
    # one entry per dialogue, now with every attribute
    rebuilt = sum(index_backfill_units(plan.new, ["gsi1"], c.old) for c in dialogues)
    assert rebuilt == len(dialogues)
    assert backfill.wcu == sum(put_units(plan.new, c.old, c.new) for c in experts) + rebuilt
    assert "delete gsi1 (its keys or projection change), create gsi2, create gsi1 again" in backfill.what
    assert "one UpdateTable each, before the backfill's puts" in " ".join(plan.notes)


def test_a_change_of_global_indexes_is_executed_one_index_at_a_time(tmp_path, small_dialogue, dynamo_endpoint):
    path = gsi_spec(tmp_path)
    ep = Endpoint.embedded(dynamo_endpoint)
    p = f"g{uuid.uuid4().hex[:8]}-"
    run = execute_migration(NEW, path, data_dir=small_dialogue, endpoint=ep, table_prefix=p)
    assert run.ok and run.units_match and run.units == run.plan.planned_units
    assert (run.indexes_deleted, run.indexes_created) == (["gsi1"], ["gsi2", "gsi1"])
    assert "global indexes (one UpdateTable each, waited for until ACTIVE): deleted gsi1, created gsi2 " \
           "(DynamoDB backfilled it), created gsi1 (DynamoDB backfilled it)" in run.lines()
    client = ep.client(table_prefix=p)
    spec = load_spec(path)
    assert global_index_updates(spec, client.describe("blue_dialogue")) == ([], [])
    described = {i["IndexName"]: i for i in client.describe("blue_dialogue")["GlobalSecondaryIndexes"]}
    assert described["gsi1"]["Projection"]["ProjectionType"] == "ALL"
    counts = run.plan.counts()
    assert index_count(client, "gsi2") == sum(counts["Expert"].values()) > 0
    assert index_count(client, "gsi1") == sum(counts["Dialogue"].values()) > 0
    assert items_digest(client.scan_items("blue_dialogue", progress=False)) == \
        items_digest(i for _, i, _ in located_items(spec, small_dialogue))
    again = execute_migration(NEW, path, data_dir=small_dialogue, endpoint=ep, table_prefix=p)
    assert again.ok and again.puts == 0 and (again.indexes_deleted, again.indexes_created) == ([], [])


@pytest.mark.parametrize("phase", ["migrate-index-1", "migrate-index-2"])
def test_a_change_of_global_indexes_killed_between_its_updates_resumes(tmp_path, small_dialogue, dynamo_endpoint,
                                                                      phase):
    """Killed after gsi1 was deleted (index-1) or gsi2 created (index-2): the same command creates what is left."""
    path = gsi_spec(tmp_path)
    p = f"h{uuid.uuid4().hex[:8]}-"
    args = ["migrate", str(NEW), str(path), "--data", str(small_dialogue), "--execute", "--endpoint-url",
            dynamo_endpoint.url, "--table-prefix", p]
    kill_at(phase, args)
    client = Endpoint.embedded(dynamo_endpoint).client(table_prefix=p)
    assert set(client.global_indexes("blue_dialogue")) == ({"gsi2"} if phase == "migrate-index-2" else set())
    done = blue_nb(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)["run"]
    assert out["ok"] and out["resumed"] and out["indexes_deleted"] == []
    assert out["indexes_created"] == (["gsi1"] if phase == "migrate-index-2" else ["gsi2", "gsi1"])
    spec = load_spec(path)
    assert global_index_updates(spec, client.describe("blue_dialogue")) == ([], [])
    assert items_digest(client.scan_items("blue_dialogue", progress=False)) == \
        items_digest(i for _, i, _ in located_items(spec, small_dialogue))
    assert index_count(client, "gsi2") == sum(1 for c in plan_migration(NEW, path, data_dir=small_dialogue).changes
                                               if c.entity == "Expert")


# -- a change of the table's key schema: a new table and a full copy ------------------------------

def key_schema_spec(tmp_path: Path) -> Path:
    """dialogue_v2 with the table's sort key attribute renamed sk -> sk2: a new key schema."""
    text = NEW.read_text().replace("  sort_key: sk\n", "  sort_key: sk2\n", 1)
    text = re.sub(r"(?m)^(\s+)sk: ", r"\1sk2: ", text)
    assert text.count("sk2") == 6
    path = tmp_path / "dialogue_sk2.yaml"
    path.write_text(text)
    return path


def test_a_key_schema_change_is_copied_into_a_new_table_and_the_old_one_kept(tmp_path, small_dialogue,
                                                                            dynamo_endpoint):
    path = key_schema_spec(tmp_path)
    ep = Endpoint.embedded(dynamo_endpoint)
    p = f"c{uuid.uuid4().hex[:8]}-"
    run = execute_migration(NEW, path, data_dir=small_dialogue, endpoint=ep, table_prefix=p)
    plan = run.plan
    assert plan.new_table and run.ok and run.units_match and run.units == plan.planned_units
    assert run.table == f"{p}blue_dialogue-v2" and run.copied_from == f"{p}blue_dialogue"
    assert run.puts == len(plan.changes) and run.deletes == 0 and not run.old_table_deleted
    text = "\n".join(run.lines())
    assert f"switch: point the application's reads and writes at {p}blue_dialogue-v2; the old table " \
           f"{p}blue_dialogue is kept (delete it with --delete-old-table once nothing uses it)" in text
    client = ep.client(table_prefix=p)
    spec = load_spec(path)
    assert client.key_attributes("blue_dialogue-v2") == ("pk", "sk2")
    assert items_digest(client.scan_items("blue_dialogue-v2", progress=False)) == \
        items_digest(i for _, i, _ in located_items(spec, small_dialogue))
    assert items_digest(client.scan_items("blue_dialogue", progress=False)) == \
        items_digest(i for _, i, _ in located_items(load_spec(NEW), small_dialogue))   # the old table, untouched
    assert client.tags("blue_dialogue-v2")[COPY_TAG] == f"{p}blue_dialogue"
    # the old table goes only when asked, once the copy is proven; then a run again only proves the copy
    r = blue_nb("migrate", str(NEW), str(path), "--data", str(small_dialogue), "--execute", "--endpoint-url",
                dynamo_endpoint.url, "--table-prefix", p, "--delete-old-table")
    assert r.returncode == 0, r.stderr
    assert f"switch: the old table {p}blue_dialogue is deleted; the application uses {p}blue_dialogue-v2" in r.stdout
    assert not client.table_exists("blue_dialogue")
    last = execute_migration(NEW, path, data_dir=small_dialogue, endpoint=ep, table_prefix=p)
    assert last.ok and last.seeded == 0 and last.puts == 0 and not client.table_exists("blue_dialogue")


def test_a_key_schema_change_refuses_a_table_that_is_not_its_copy(tmp_path, small_dialogue, dynamo_endpoint):
    path = key_schema_spec(tmp_path)
    p = f"n{uuid.uuid4().hex[:8]}-"
    ep = Endpoint.embedded(dynamo_endpoint)
    ep.client(table_prefix=p).create_table(load_spec(path), name="other")
    args = ["migrate", str(NEW), str(path), "--data", str(small_dialogue), "--execute", "--endpoint-url",
            dynamo_endpoint.url, "--table-prefix", p]
    r = blue_nb(*args, "--new-table", "other")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"table '{p}other' already exists and is not blue_nb's copy of '{p}blue_dialogue'" in r.stderr
    assert "--new-table" in r.stderr
    r = blue_nb(*args, "--new-table", "blue_dialogue")
    assert r.returncode == 2 and "--new-table 'blue_dialogue' is the table the items are copied from" in r.stderr
    r = blue_nb("migrate", str(OLD), str(NEW), "--data", str(small_dialogue), "--execute", "--endpoint-url",
                dynamo_endpoint.url, "--table-prefix", p, "--delete-old-table")
    assert r.returncode == 2 and "this change keeps the table's keys and migrates its items in place" in r.stderr


@pytest.mark.parametrize("phase", ["migrate-scan-1", "migrate-write-30", "migrate-scan-2", "migrate-scan-3"])
def test_a_key_schema_copy_killed_at_any_point_resumes_to_the_same_table(tmp_path, small_dialogue, dynamo_endpoint,
                                                                         phase):
    path = key_schema_spec(tmp_path)
    plan = plan_migration(NEW, path, data_dir=small_dialogue)
    seed = -(-len(plan.changes) // 25)
    assert seed < 30 < 2 * seed                          # write-30 is in the copy's puts
    p = f"q{uuid.uuid4().hex[:8]}-"
    args = ["migrate", str(NEW), str(path), "--data", str(small_dialogue), "--execute", "--endpoint-url",
            dynamo_endpoint.url, "--table-prefix", p, "--new-table", "dialogue_keyed"]
    kill_at(phase, args)
    client = Endpoint.embedded(dynamo_endpoint).client(table_prefix=p)
    assert not client.tags("dialogue_keyed")[MIGRATION_TAG].startswith("complete")
    copied = client.count_items("dialogue_keyed")
    done = blue_nb(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)["run"]
    assert out["ok"] and out["resumed"] and out["copied_from"] == f"{p}blue_dialogue"
    assert out["puts"] == len(plan.changes) - copied and out["items"]["stored"] == len(plan.changes)
    expected = items_digest(i for _, i, _ in located_items(load_spec(path), small_dialogue))
    assert items_digest(client.scan_items("dialogue_keyed", progress=False)) == expected
    assert client.tags("dialogue_keyed")[MIGRATION_TAG].startswith("complete")
    assert client.count_items("blue_dialogue") == len(plan.changes)       # the old table, kept


# -- the same on dynalite, an independent implementation ------------------------------------------

@pytest.fixture(scope="module")
def dynalite():
    from tests.dynalite_server import Dynalite, dynalite_missing

    if dynalite_missing():
        pytest.skip(dynalite_missing())
    server = Dynalite().start()
    yield server
    server.stop()


def test_on_dynalite_a_key_schema_copy_runs_and_an_index_change_is_refused_clearly(tmp_path, small_dialogue,
                                                                                  dynalite):
    run = execute_migration(NEW, key_schema_spec(tmp_path), data_dir=small_dialogue, endpoint_url=dynalite.url)
    assert run.ok and run.units_match and run.table == "blue_dialogue-v2"
    moved = execute_migration(OLD, NEW, data_dir=small_dialogue, endpoint_url=dynalite.url, table_prefix="m-")
    assert moved.ok and moved.units_match
    # dynalite answers UpdateTable's GlobalSecondaryIndexUpdates without deleting or creating the index: said, exit 2
    r = blue_nb("migrate", str(NEW), str(gsi_spec(tmp_path)), "--data", str(small_dialogue), "--execute",
                "--endpoint-url", dynalite.url, "--table-prefix", "g-")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "the endpoint answered the UpdateTable that deletes index 'gsi1' of 'g-blue_dialogue' with the index " \
           "still ACTIVE: it does not delete global indexes of an existing table" in r.stderr
    assert "hint: run it on DynamoDB or moto_server" in r.stderr


@pytest.fixture
def blue_file(tmp_path, dialogue_spec, small_dialogue):
    from tests.test_import import _blue_sqlite

    return tmp_path / "blue.sqlite", _blue_sqlite(tmp_path / "blue.sqlite", dialogue_spec, small_dialogue)


@pytest.mark.parametrize("phase", ["migrate-scan-1", "migrate-write-1", "migrate-write-6", "migrate-scan-2",
                                   "migrate-scan-3"])
def test_the_first_migration_killed_at_any_point_resumes_to_the_same_table(tmp_path, blue_file, dynamo_endpoint,
                                                                           phase):
    """import --from sqlite --execute killed (SIGKILL) while it creates, backfills, verifies and proves the
    table; the same command again finishes it: every item once, the digest of apply, the units it used."""
    path, items = blue_file
    batches = -(-len(items) // 25)
    assert 6 < batches                                   # write-6 is in the middle of the backfill
    client = Endpoint.embedded(dynamo_endpoint).client()
    client.delete_table("blue_dialogue")                 # import has no --table-prefix: the table of its domain
    args = ["import", str(path), "--from", "sqlite", "--out", str(tmp_path / "out"), "--execute", "--endpoint-url",
            dynamo_endpoint.url, "--no-progress"]
    try:
        kill_at(phase, args)
        state = "deleting" if phase == "migrate-scan-3" else "backfill"
        assert client.tags("blue_dialogue")[MIGRATION_TAG].startswith(state)
        before = client.count_items("blue_dialogue")
        written = {"migrate-scan-1": 0, "migrate-write-1": 25, "migrate-write-6": 150}.get(phase, len(items))
        assert before == written
        done = blue_nb(*args, "--format", "json")
        assert done.returncode == 0, done.stderr
        [result] = json.loads(done.stdout)
        run, plan = result["migration"]["run"], result["migration"]["plan"]
        assert run["ok"] and run["resumed"] and run["items"]["match"]
        assert run["items"]["stored"] == run["items"]["expected"] == len(items)      # every item, once
        assert run["puts"] == len(items) - written and run["deletes"] == 0
        # the units it reports: the puts that were left, and its three Scans
        spec = load_spec(tmp_path / "out" / "dialogue.yaml")
        located = [i for _, i, _ in located_items(spec, tmp_path / "out" / "dialogue")]
        assert run["consumed"]["2 backfill"]["wcu"] <= plan["planned"]["wcu"]
        assert (run["consumed"]["2 backfill"]["wcu"] == plan["planned"]["wcu"]) == (written == 0)
        assert run["units_match"] == (written == 0 and phase == "migrate-scan-1")
        assert set(run["consumed"]) == {"2 backfill", "3 verify", "6 delete old", "7 prove"}
        assert run["consumed"]["7 prove"]["rcu"] == scan_read_units([item_size(i) for i in located])
        assert items_digest(client.scan_items("blue_dialogue", progress=False)) == items_digest(located)
        assert client.tags("blue_dialogue")[MIGRATION_TAG].startswith("complete")
    finally:
        client.delete_table("blue_dialogue")
