"""The import's kill test: an S3 export imported into an --out folder holding an earlier import (its spec
edited by hand) and into SQLite and DuckDB holding that earlier import's items, killed (SIGKILL) or
interrupted (SIGINT) at several moments - with the drafts written aside, while the load stages, after the
load's commit point, after the loads and before the switch of the files. After each: the folder's spec and
rows and both stores hold one whole version, the same one - the old or the new - once the next import
into the folder settled what the killed one left (:func:`blue_nb.imports.out_folder.recover_out`);
SIGINT's message says which; and the next import succeeds.

Each import runs in the wrapper process :mod:`tests.paused`, which stops it at a phase and says so."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from blue_nb.imports.out_folder import JOURNAL, LOCK, STAGING_PREFIX, recover_out
from blue_nb.stores import open_store
from tests.bad_inputs.import_cases import export
from tests.paused import signal_at

ROOT = Path(__file__).resolve().parent.parent
TABLE = "blue_shop"
OLD_SPEC = "# the earlier import, edited by hand\n"
# (phase, signal, the version the folder and the stores hold after, words SIGINT's message holds)
SCENARIOS = [
    ("import-staged", signal.SIGKILL, "old", ()),
    ("import-staged", signal.SIGINT, "old", ("interrupted: nothing was changed",)),
    ("staging", signal.SIGKILL, "old", ()),
    ("staging", signal.SIGINT, "old", ("shop: interrupted: nothing was changed", "is as it was for shop")),
    ("switched", signal.SIGKILL, "new", ()),
    ("switched", signal.SIGINT, "new", ("shop: interrupted after the switch", "its spec and rows are switched into")),
    ("import-loaded", signal.SIGKILL, "new", ()),
    ("import-loaded", signal.SIGINT, "new", ("interrupted: shop imported", "switched into")),
]
IDS = [f"{phase}-{sig.name}" for phase, sig, _, _ in SCENARIOS]


def lines(n: int, sk: str) -> list[str]:
    return [f'{{"Item": {{"pk": {{"S": "USER#u{i:05d}"}}, "sk": {{"S": "{sk}"}}, "n": {{"N": "{i}"}}}}}}'
            for i in range(n)]


def write(folder: Path, files: dict) -> None:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def run(*args: str, phase: str | None = None) -> subprocess.Popen:
    command = ["tests.paused", phase] if phase else ["blue_nb.cli"]
    return subprocess.Popen([sys.executable, "-m", *command, *args], cwd=ROOT, text=True,
                            env={**os.environ, "BLUE_NB_PAUSE_SECONDS": "300"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def import_args(export_dir: Path, folder: Path) -> list[str]:
    return ["import", str(export_dir), "--from", "s3-export", "--out", str(folder / "out"), "--sqlite",
            str(folder / "a.sqlite"), "--duckdb", str(folder / "b.duckdb"), "--no-progress"]


def state(folder: Path) -> tuple:
    """What the folder and the stores hold: the spec's and rows' bytes, each store's items."""
    out = folder / "out"
    files = tuple(sorted((str(p.relative_to(out)), hashlib.sha256(p.read_bytes()).hexdigest())
                         for p in [out / "shop.yaml", *sorted((out / "shop").rglob("*"))] if p.is_file()))
    stores = []
    for backend, name in (("duckdb", "b.duckdb"), ("sqlite", "a.sqlite")):
        with open_store(backend, folder / name) as s:
            stores.append(tuple(s.execute(f'SELECT pk, sk, data FROM "{TABLE}" ORDER BY pk, sk')))
    return files, stores[0], stores[1]


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict:
    """Two exports (old: 500 items, new: 12,000), the folder after the old one's import with its spec edited
    by hand, and the state a clean import of the new one gives."""
    w = tmp_path_factory.mktemp("import-kill")
    write(w / "old", export([lines(500, "OLD")]))
    write(w / "new", export([lines(6_000, "A"), lines(6_000, "B")]))
    for name in ("old", "new"):
        shutil.rmtree(w / name / "out")                  # export() lays out an earlier import's files too
    p = run(*import_args(w / "old" / "exp", w / "base"))
    _, err = p.communicate(timeout=240)
    assert p.returncode == 0, err
    spec = w / "base" / "out" / "shop.yaml"
    spec.write_text(OLD_SPEC + spec.read_text(encoding="utf-8"), encoding="utf-8")
    shutil.copytree(w / "base", w / "clean")
    p = run(*import_args(w / "new" / "exp", w / "clean"))
    _, err = p.communicate(timeout=240)
    assert p.returncode == 0, err
    old, new = state(w / "base"), state(w / "clean")
    assert len(old[1]) == 500 and len(new[1]) == 12_000 and old[1] == old[2] and new[1] == new[2]
    return {"dir": w, "old": old, "new": new}


def kill_at(w: Path, phase: str, sig: signal.Signals) -> dict:
    folder = w / f"{phase}-{sig.name}"
    shutil.copytree(w / "base", folder)
    code, stderr = signal_at(run(*import_args(w / "new" / "exp", folder), phase=phase), phase, sig)
    return {"folder": folder, "code": code, "stderr": stderr}


@pytest.fixture(scope="module")
def killed(world) -> dict:
    before = signal.getsignal(signal.SIGINT)          # see tests/test_load_kill.py: a background run ignores SIGINT
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            futures = {i: pool.submit(kill_at, world["dir"], phase, sig) for i, (phase, sig, _, _) in zip(IDS, SCENARIOS)}
            return {i: f.result() for i, f in futures.items()}
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("phase, sig, version, words", SCENARIOS, ids=IDS)
def test_a_killed_import_leaves_the_folder_and_the_stores_at_one_whole_version(world, killed, phase, sig, version,
                                                                                words):
    k = killed[f"{phase}-{sig.name}"]
    folder, out = k["folder"], k["folder"] / "out"
    if sig == signal.SIGKILL:
        assert k["code"] == -signal.SIGKILL
        if version == "old":                       # what a reader sees before any recovery: the old spec, whole
            assert (out / "shop.yaml").read_text(encoding="utf-8").startswith(OLD_SPEC)
    else:
        assert k["code"] == 130, k["stderr"]
        assert "Traceback" not in k["stderr"]
        for w in words:
            assert w in k["stderr"], k["stderr"]
        assert not (out / JOURNAL).exists() and not list(out.glob(STAGING_PREFIX + "*")), "SIGINT settles at once"
    notes = recover_out(out)                       # what the next import into the folder does first
    assert state(folder) == world[version], f"not the {version} version after {phase}/{sig.name} ({notes})"
    assert not (out / JOURNAL).exists() and not list(out.glob(STAGING_PREFIX + "*"))
    assert recover_out(out) == []                  # settling again changes nothing
    # a SIGKILL leaves the lock's file (the OS released the lock itself): the next import takes it and removes it
    p = run(*import_args(world["dir"] / "new" / "exp", folder))
    _, err = p.communicate(timeout=240)
    assert p.returncode == 0, err
    assert state(folder) == world["new"] and not (out / LOCK).exists()


def test_two_imports_into_one_folder_the_second_is_refused_at_once(world, tmp_path):
    shutil.copytree(world["dir"] / "base", tmp_path / "f")
    first = run(*import_args(world["dir"] / "new" / "exp", tmp_path / "f"), phase="import-staged")
    try:
        for line in first.stderr:
            if "blue-nb-test-pause" in line:
                break
        second = run(*import_args(world["dir"] / "new" / "exp", tmp_path / "f"))
        _, err = second.communicate(timeout=240)
        assert second.returncode == 2 and "another import is writing to this folder right now" in err, err
    finally:
        first.kill()
        first.wait()
    assert state(tmp_path / "f") == world["old"]


def blue_file(path: Path, n: int, tag: str) -> Path:
    """Blue's SQLite file with two tables (blue_shop, blue_audit) of ``n`` rows each."""
    con = sqlite3.connect(path)
    for table in ("blue_shop", "blue_audit"):
        con.execute(f"CREATE TABLE {table} (pk TEXT, sk TEXT, data JSON, created_at TEXT)")
        con.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, '')",
                        [(f"K#{i:05d}", f"{tag}#{i % 7}", f'{{"n": {i}}}') for i in range(n)])
    con.commit()
    con.close()
    return path


def two_tables(folder: Path) -> tuple:
    out, found = folder / "out", []
    for domain in ("shop", "audit"):
        files = tuple(sorted(hashlib.sha256(p.read_bytes()).hexdigest()
                             for p in [out / f"{domain}.yaml", *sorted((out / domain).rglob("*"))] if p.is_file()))
        with open_store("sqlite", folder / "a.sqlite") as s:
            found.append((files, tuple(s.execute(f'SELECT pk, sk, data FROM "blue_{domain}" ORDER BY pk, sk'))))
    return tuple(found)


def two_table_args(src: Path, folder: Path) -> list[str]:
    return ["import", str(src), "--from", "sqlite", "--out", str(folder / "out"), "--sqlite",
            str(folder / "a.sqlite"), "--duckdb", str(folder / "b.duckdb"), "--no-progress"]


@pytest.fixture(scope="module")
def two_table_world(tmp_path_factory) -> Path:
    """Two blue.sqlite files (old.sqlite: 300 rows a table, new.sqlite: 6,000) and the folders their imports give,
    made once for the phases: base (old imported), clean (new imported over base)."""
    w = tmp_path_factory.mktemp("two-tables")
    old, new = blue_file(w / "old.sqlite", 300, "OLD"), blue_file(w / "new.sqlite", 6_000, "NEW")
    for name, src in (("base", old), ("clean", new)):
        if name == "clean":
            shutil.copytree(w / "base", w / "clean")
        p = run(*two_table_args(src, w / name))
        _, err = p.communicate(timeout=240)
        assert p.returncode == 0, err
    assert two_tables(w / "base") != two_tables(w / "clean")
    return w


@pytest.mark.parametrize("phase, version", [("committing", "old"), ("switched", "new")])
def test_a_two_table_import_killed_at_its_commit_leaves_both_tables_at_one_version(tmp_path, two_table_world, phase,
                                                                                  version):
    w = two_table_world
    want = two_tables(w / ("base" if version == "old" else "clean"))
    shutil.copytree(w / "base", tmp_path / "k")
    p = run(*two_table_args(w / "new.sqlite", tmp_path / "k"), phase=phase)
    for line in p.stderr:
        if line.strip() == f"blue-nb-test-pause {phase}":
            break
    p.kill()
    p.wait()
    recover_out(tmp_path / "k" / "out")
    open_store("duckdb", tmp_path / "k" / "b.duckdb").close()          # its recovery settles the other store
    assert two_tables(tmp_path / "k") == want
