"""The blue-nb command line: sample -> load, size, and clear errors (exit 2, no traceback)."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from blue_nb.cli import cli

BOOK = ('{"Id":{"N":"101"},"Title":{"S":"Book 101 Title"},"ISBN":{"S":"111-1111111111"},'
        '"Authors":{"L":[{"S":"Author1"}]},"Price":{"N":"2"},"Dimensions":{"S":"8.5 x 11.0 x 0.5"},'
        '"PageCount":{"N":"500"},"InPublication":{"BOOL":true},"ProductCategory":{"S":"Book"}}')
SHIRT = '{"shirt-color": {"S": "R"}, "shirt-size": {"S": "M"}}'


def run(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


def blue_nb(*args, input=None):
    """The installed console script, as a user runs it."""
    exe = Path(sys.executable).with_name("blue-nb")
    return subprocess.run([str(exe), *map(str, args)], input=input, capture_output=True, text=True, timeout=120)


def test_sample_then_load(tmp_path, root):
    data, db, ddb = tmp_path / "d", tmp_path / "d.sqlite", tmp_path / "d.duckdb"
    r = blue_nb("sample", "dialogue", "--scale", 800, "--seed", 5, "--out", data, "--no-progress")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1].split()[0] == "1,026"          # about the scale (800): whole dialogues
    r = blue_nb("load", root / "data/specs/dialogue.yaml", "--data", data, "--sqlite", db, "--duckdb", ddb,
                "--no-progress", "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [o["backend"] for o in out] == ["sqlite", "duckdb"] and out[0]["items"] == out[1]["items"] == 1026
    con = sqlite3.connect(db)
    info = [(c[1], c[2], c[3], c[5]) for c in con.execute("PRAGMA table_info(blue_dialogue)")]
    assert info == [("pk", "TEXT", 1, 1), ("sk", "TEXT", 1, 2), ("data", "JSON", 1, 0), ("created_at", "TEXT", 1, 0)]
    lite = con.execute("SELECT pk, sk, data FROM blue_dialogue ORDER BY pk, sk").fetchall()
    duck = duckdb.connect(str(ddb)).execute("SELECT pk, sk, data FROM blue_dialogue ORDER BY pk, sk").fetchall()
    assert len(lite) == 1026 and lite == duck


def test_size_examples_json():
    r = run("size", "--format", "json", input=f"{SHIRT}\n{{\"Item\": {BOOK}}}\n\n")
    assert r.exit_code == 0
    assert [json.loads(line) for line in r.output.splitlines()] == [
        {"size": 23, "rcu_strong": 1, "rcu_eventual": 0.5, "rcu_transactional": 2, "wcu": 1, "wcu_transactional": 2,
         "over_limit": False},
        {"size": 137, "rcu_strong": 1, "rcu_eventual": 0.5, "rcu_transactional": 2, "wcu": 1, "wcu_transactional": 2,
         "over_limit": False},
    ]


@pytest.mark.parametrize("size, rcu, wcu", [(1024, 1, 1), (1025, 1, 2), (4096, 1, 4), (4097, 2, 5),
                                            (409_600, 100, 400)])
def test_size_boundaries(tmp_path, size, rcu, wcu):
    name = "a"
    value = "x" * (size - len(name))
    f = tmp_path / "items.jsonl"
    f.write_text(json.dumps({name: {"S": value}}) + "\n")
    out = json.loads(run("size", f, "--format", "json").output)
    assert (out["size"], out["rcu_strong"], out["wcu"]) == (size, rcu, wcu)
    assert out["rcu_eventual"] == rcu / 2 and out["rcu_transactional"] == 2 * rcu


def test_size_over_the_item_limit_is_reported_and_exits_1(tmp_path):
    f = tmp_path / "items.jsonl"
    f.write_text(SHIRT + "\n" + json.dumps({"a": {"S": "x" * 409_600}}) + "\n", encoding="utf-8")
    r = CliRunner().invoke(cli, ["size", str(f), "--format", "json"])
    assert r.exit_code == 1
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(o["size"], o["over_limit"]) for o in rows] == [(23, False), (409_601, True)]
    assert rows[1]["wcu"] == 401                                            # sized and priced all the same
    assert f"{f}:2: the item is 409,601 bytes, over DynamoDB's item limit of 409,600 bytes" in r.stderr
    text = CliRunner().invoke(cli, ["size", str(f)])
    assert text.exit_code == 1 and text.stdout.splitlines()[2].split()[-1] == "OVER"


def test_size_text_output():
    r = run("size", input=SHIRT + "\n")
    lines = r.output.splitlines()
    assert lines[0].split()[:2] == ["line", "bytes"] and lines[1].split() == ["1", "23", "1", "0.5", "2", "1", "2"]


@pytest.mark.parametrize("args, input, message", [
    (["size"], '{"a": {"S": "x"}}\n{"broken"\n', "<stdin>:2"),
    (["size"], '{"a": {"N": "NaN"}}\n', "NaN"),
    (["size", "/nonexistent/items.jsonl"], None, "cannot read"),
    (["sample", "chess", "--out", "{tmp}/out"], None, "chess"),
    (["load", "data/specs/dialogue.yaml", "--data", "/nonexistent"], None, "nothing to load into"),
    (["load", "data/specs/dialogue.yaml", "--data", "/nonexistent", "--sqlite", "{tmp}/x.sqlite"], None,
     "does not exist"),
    (["load", "/nonexistent.yaml", "--data", ".", "--sqlite", "{tmp}/x.sqlite"], None, "cannot read spec file"),
])
def test_bad_input_exits_2_without_traceback(root, args, input, message, tmp_path):
    r = blue_nb(*(a.replace("{tmp}", str(tmp_path)) for a in args), input=input)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert message in r.stderr and "Traceback" not in r.stderr


def test_bad_spec_reports_file_and_line(tmp_path, root):
    bad = tmp_path / "bad.yaml"
    bad.write_text((root / "data/specs/dialogue.yaml").read_text().replace("billing_mode:", "biling_mode:"))
    r = blue_nb("load", bad, "--data", root / "data/sample/dialogue", "--sqlite", tmp_path / "x.sqlite")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{bad}:11 table.biling_mode: unknown field 'biling_mode' (did you mean 'billing_mode'?)" in r.stderr
    assert not (tmp_path / "x.sqlite").exists() or sqlite3.connect(tmp_path / "x.sqlite").execute(
        "SELECT count(*) FROM sqlite_master").fetchone()[0] == 0


def test_bad_row_names_file_line_and_leaves_store(tmp_path, root):
    data = tmp_path / "d"
    assert blue_nb("sample", "dialogue", "--scale", 300, "--out", data, "--no-progress").returncode == 0
    db = tmp_path / "d.sqlite"
    spec = root / "data/specs/dialogue.yaml"
    assert blue_nb("load", spec, "--data", data, "--sqlite", db, "--no-progress").returncode == 0
    before = sqlite3.connect(db).execute("SELECT count(*), group_concat(data) FROM blue_dialogue").fetchone()
    experts = data / "experts.csv"
    lines = experts.read_text(encoding="utf-8").splitlines()
    cells = lines[2].split(",")
    cells[4] = "very-high"                                    # score is N
    lines[2] = ",".join(cells)
    experts.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = blue_nb("load", spec, "--data", data, "--sqlite", db, "--no-progress")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{experts}:3 score" in r.stderr and "'very-high'" in r.stderr
    assert sqlite3.connect(db).execute("SELECT count(*), group_concat(data) FROM blue_dialogue").fetchone() == before


def test_every_command_has_help_and_is_in_the_readme(root):
    readme = (root / "README.md").read_text()
    for name, command in cli.commands.items():
        assert command.help, name
        assert run(name, "--help").exit_code == 0
        assert f"blue-nb {name}" in readme, f"README does not show blue-nb {name}"


def test_the_export_command_offers_every_format_and_help_loads_no_exporter():
    """The command line names the formats itself (so that `blue-nb --help` does not import the exporters):
    the same names, in the same order, as blue_nb.export.FORMATS."""
    import subprocess
    import sys

    from blue_nb.cli.handover import FORMAT_HELP
    from blue_nb.export import FORMATS

    assert list(FORMAT_HELP) == list(FORMATS)
    code = "import sys, blue_nb.cli; print(sorted(m for m in sys.modules if m.startswith('blue_nb.export')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_export_writes_several_formats_into_a_folder_in_one_run(tmp_path):
    spec = Path(__file__).parent.parent / "data" / "specs" / "dialogue_v2.yaml"
    r = run("export", spec, "--format", "spec-json", "--format", "create-table", "-o", tmp_path / "two")
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == ["dialogue.create-table.json",
                                                                    "dialogue.spec.json"]
    assert r.output.count("wrote ") == 2 and "validated (spec only)" in r.output
    r = run("export", spec, "--format", "all", "-o", tmp_path / "all")
    assert r.exit_code == 0 and r.output.count("wrote ") == 8
    r = CliRunner().invoke(cli, ["export", str(spec), "--format", "all", "-o", "-"])
    assert r.exit_code == 2 and "several formats go into a folder" in r.output and "Traceback" not in r.output


def test_a_name_value_option_written_as_two_words_says_how_to_write_it(root):
    r = run("query", root / "data/specs/dialogue.yaml", "list_round", "--param", "dialogue_id", "nvidia-dec")
    assert r.exit_code == 2 and "Got unexpected extra argument (nvidia-dec)" in r.output
    assert "hint: write --param dialogue_id=nvidia-dec (--param takes NAME=VALUE as one word)" in r.output
    r = run("cost", root / "data/specs/dialogue.yaml", "--data", root / "data/sample/dialogue", "--rate", "list_round", "300")
    assert r.exit_code == 2 and "hint: write --rate list_round=300 (--rate takes NAME=N as one word)" in r.output
    r = run("query", root / "data/specs/dialogue.yaml", "list_round", "extra", "words")     # no such option: no hint
    assert r.exit_code == 2 and "hint" not in r.output


def test_size_prints_no_header_before_an_error():
    r = run("size", "-", input="not json\n")
    assert r.exit_code == 2 and "line" not in r.stdout.split("error")[0] and r.stdout == ""
    r = run("size", "-", input='{"pk": {"S": "a"}}\n')
    assert r.exit_code == 0 and r.stdout.splitlines()[0].split()[:2] == ["line", "bytes"]


def test_query_prints_items_as_a_person_reads_them(root, dialogue_data, tmp_path):
    spec, db = root / "data/specs/dialogue.yaml", tmp_path / "d.sqlite"
    assert run("load", spec, "--data", dialogue_data, "--sqlite", db, "--no-progress").exit_code == 0
    r = run("query", spec, "list_experts", "--param", "dialogue_id=nvidia-dec", "--sqlite", db)
    lines = [line for line in r.stdout.splitlines() if line.startswith("nvidia-dec")]
    assert r.exit_code == 0 and lines and all("{role: \"" in line and "': " not in line for line in lines)
    r = run("query", spec, "add_perspective", *(f"--param={p}" for p in ("dialogue_id=nvidia-dec", "round=1",
                                                                         "expert=ada", "seq=999")), "--sqlite", db)
    assert r.exit_code == 0 and "old no item, new " in r.stdout and " B -> 1 WCU (table 1, indexes gsi1: 0)" in r.stdout


HEAVY = ("pandas", "numpy", "duckdb", "pyarrow", "matplotlib", "boto3", "botocore", "moto", "jsonschema", "tqdm",
         "ipywidgets")


def test_importing_the_command_line_loads_no_heavy_library():
    """`blue-nb --help` (and any command's parsing) pays for click and blue_nb's own light rooms only: what each
    command needs is imported when it runs. Not a timing (speed is `make bench`'s start-up stage): which modules."""
    code = f"import sys, blue_nb.cli; print(' '.join(m for m in {HEAVY!r} if m in sys.modules) or '-')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["-"]


@pytest.mark.parametrize("command", ["validate", "cost"])
def test_a_command_given_data_says_so_before_it_loads_a_heavy_library(dialogue_data, command):
    """The first line a command given data prints (on stderr: stdout keeps the result) comes before pandas, DuckDB
    or numpy are imported: ``-X importtime`` writes each import to the same stderr, in order."""
    spec = Path(__file__).parent.parent / "data" / "specs" / "dialogue.yaml"
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "blue_nb.cli", command, str(spec), "--data",
                        str(dialogue_data)], capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    lines = r.stderr.splitlines()
    said = next(i for i, line in enumerate(lines) if line == f"{command} {spec}: reading the rows in {dialogue_data} ...")
    heavy = [i for i, line in enumerate(lines) if line.startswith("import time:") and
             line.rsplit("|", 1)[-1].strip() in ("pandas", "numpy", "duckdb", "pyarrow")]
    assert heavy and said < min(heavy)


def test_a_query_on_a_sqlite_file_loads_no_heavy_library(dialogue_data, tmp_path):
    """A read on a SQLite file needs neither pandas (its items print with printing.compact) nor boto3 (only an
    endpoint does), nor DuckDB: -X importtime lists every module the command imported."""
    spec = Path(__file__).parent.parent / "data" / "specs" / "dialogue.yaml"
    db = tmp_path / "s.sqlite"
    assert run("load", spec, "--data", dialogue_data, "--sqlite", db, "--no-progress").exit_code == 0
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "blue_nb.cli", "query", str(spec), "get_dialogue",
                        "--param", "dialogue_id=nvidia-dec", "--sqlite", str(db)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.startswith("nvidia-dec "), r.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
    assert "blue_nb.stores.sqlite" in imported and not imported & set(HEAVY)
