"""blue-nb migrate: the plan of a design change (counts, units, dollars, time, risks), its execution on the
embedded endpoint (the table equals apply NEW; consumed units equal planned ones), its refusal of blocking
risks, and its kill test: killed at several points, run again, the same table."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from blue_nb.app.migrate import delete_units, plan_migration, put_units, scan_read_units
from blue_nb.app.migrate_run import MIGRATION_TAG, execute_migration
from blue_nb.app.roundtrip import items_digest
from blue_nb.app.workflows import located_items
from blue_nb.dynamo import Endpoint
from blue_nb.errors import MigrationError
from blue_nb.items import ItemBuilder
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


@pytest.fixture(scope="module")
def sample_plan():
    return plan_migration(OLD, NEW, data_dir=SAMPLE)


# -- the plan -------------------------------------------------------------------------------------

def test_the_shipped_change_moves_3063_perspectives_and_1169_tension_events(sample_plan):
    counts = sample_plan.counts()
    assert counts["Perspective"]["move sort"] == 3063 and counts["Perspective"]["stay"] == 0
    assert counts["TensionEvent"]["move partition"] == 1169
    for entity in ("Dialogue", "Expert", "Tension"):
        assert counts[entity]["stay"] == sum(counts[entity].values()) > 0
    table = sample_plan.indexes[0]
    assert (table.index, table.moved, table.kept, table.written, table.deleted) == ("table", 4232, 768, 0, 0)
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
    assert b.scaled_wcu == pytest.approx(b.wcu * 10) and b.seconds == pytest.approx(b.wcu / 500 + b.rcu / 1500)


def test_a_duckdb_file_loaded_with_the_old_design_plans_the_same(tmp_path, small_dialogue):
    from blue_nb.app.workflows import load_data

    load_data(OLD, small_dialogue, duckdb=tmp_path / "old.duckdb", progress=False)
    from_rows = plan_migration(OLD, NEW, data_dir=small_dialogue)
    from_store = plan_migration(OLD, NEW, duckdb=tmp_path / "old.duckdb")
    assert from_store.counts() == from_rows.counts() and from_store.planned_units == from_rows.planned_units
    assert [vars(i) for i in from_store.indexes] == [vars(i) for i in from_rows.indexes]


def test_a_production_size_per_entity_scales_each_entity_s_units():
    plan = plan_migration(OLD, NEW, data_dir=SAMPLE, items={"Perspective": 3063 * 100})
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
    assert heat and "partition nvidia-dec takes 1,015 of the backfill's 4,289 WCU" in heat[0].message
    assert "a rate up to 4,226 WCU/s keeps every partition under it" in heat[0].message
    assert not [r for r in plan_migration(OLD, NEW, data_dir=SAMPLE, rate=4000).risks if r.kind == "backfill-heat"]


def test_live_writes_are_named_with_the_patterns_that_write_the_moved_entities(sample_plan):
    live = next(r for r in sample_plan.risks if r.kind == "live-writes")
    assert live.items == ["add_perspective (Perspective, 25 calls/s)", "record_tension_event (TensionEvent, 5 calls/s)"]
    assert not live.blocks


def test_cli_plan_prints_and_writes_it(tmp_path):
    out = tmp_path / "plan"
    r = blue_nb("migrate", str(OLD), str(NEW), "--data", str(SAMPLE), "--items", "Perspective=6000000",
                "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "Perspective   3,063  0     0               3,063" in r.stdout
    assert "(sample | production)" in r.stdout and "risk live-writes" in r.stdout
    saved = json.loads((out / "migration.json").read_text())
    assert saved["entities"]["TensionEvent"]["move partition"] == 1169
    assert saved["scale"]["Perspective"] == pytest.approx(6_000_000 / 3063)
    assert (out / "migration.txt").read_text().splitlines()[0] == r.stdout.splitlines()[0]


@pytest.mark.parametrize("args, words", [
    ([], "give the old design's items: --data DIR or --duckdb FILE"),
    (["--data", str(SAMPLE), "--items", "Nobody=3"], "--items names Nobody"),
    (["--data", str(SAMPLE), "--items", "lots"], "--items 'lots' is not a whole number"),
    (["--data", str(SAMPLE), "--force"], "--endpoint-url, --aws and --force are for --execute"),
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


@pytest.mark.parametrize("phase", ["migrate-write-3", "migrate-scan-1", "migrate-write-17", "migrate-scan-2",
                                   "migrate-write-28", "migrate-scan-3"])
def test_a_migration_killed_at_any_point_resumes_to_the_same_table(dynamo_endpoint, small_dialogue, phase):
    plan = plan_migration(OLD, NEW, data_dir=small_dialogue)
    old_items = sum(1 for c in plan.changes if c.old is not None)
    moved = sum(1 for c in plan.changes if c.fate.startswith("move"))
    seed, backfill = -(-old_items // 25), -(-moved // 25)
    assert seed < 17 <= seed + backfill < 28 <= seed + 2 * backfill   # seeding, backfilling, deleting
    p = f"k{uuid.uuid4().hex[:8]}-"
    args = ["migrate", str(OLD), str(NEW), "--data", str(small_dialogue), "--execute", "--endpoint-url",
            dynamo_endpoint.url,
            "--table-prefix", p]
    proc = subprocess.Popen([sys.executable, "-m", "tests.paused", phase, *args], stderr=subprocess.PIPE, text=True,
                            stdout=subprocess.DEVNULL, cwd=ROOT)
    code, _ = signal_at(proc, phase, signal.SIGKILL)
    assert code == -signal.SIGKILL
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


def test_a_new_global_index_is_priced_with_the_entries_dynamodb_writes(tmp_path, small_dialogue):
    text = NEW.read_text().replace("  indexes:\n", "  indexes:\n    gsi2:\n      type: global\n"
                                   "      partition_key: gsi2pk\n      sort_key: gsi2sk\n", 1)
    text = text.replace('sk: "EXPERT#{expert}"', 'sk: "EXPERT#{expert}"\n      gsi2pk: "EXPERT#{expert}"\n'
                        '      gsi2sk: "{dialogue_id}"', 1)
    path = tmp_path / "dialogue_gsi2.yaml"
    path.write_text(text)
    plan = plan_migration(NEW, path, data_dir=small_dialogue)
    experts = [c for c in plan.changes if c.entity == "Expert"]
    assert {c.fate for c in experts} == {"update"}           # the new key attributes: a put over each expert
    gsi2 = next(i for i in plan.indexes if i.index == "gsi2")
    assert gsi2.written == len(experts) and gsi2.backfill_wcu == len(experts)
    backfill = next(s for s in plan.steps if s.name == "2 backfill")
    assert backfill.wcu == sum(put_units(plan.new, c.old, c.new) for c in experts)
    assert "new index(es) gsi2: DynamoDB backfills a new GSI itself" in " ".join(plan.notes)
    with pytest.raises(MigrationError, match=r"the table's global indexes change \(gsi1 -> gsi1, gsi2\)"):
        execute_migration(NEW, path, data_dir=small_dialogue)


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
        proc = subprocess.Popen([sys.executable, "-m", "tests.paused", phase, *args], stderr=subprocess.PIPE,
                                text=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        code, _ = signal_at(proc, phase, signal.SIGKILL)
        assert code == -signal.SIGKILL
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
