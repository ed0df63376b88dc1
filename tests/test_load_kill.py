"""The kill test: a load of 20,000 items into SQLite and DuckDB, killed (SIGKILL) or interrupted
(SIGINT) at several moments - while staging, before the commit point, inside the commit, between
the two stores' switches, inside the second switch, after the load returned (before the command
printed). After each: both stores open (recovery runs),
agree item for item, and hold one whole version - the old one or the new one, each equal to a
clean load of it; SIGINT's message says which; and the next load succeeds.

Each load runs in a wrapper process (:mod:`tests.paused`) that stops it at a phase and says so on
stderr, so each kill lands where it is meant to. The sample data and the
stores holding the old version are made once; each scenario copies the store files. Scenarios run
two at a time."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from blue_nb.stores import open_store
from tests.paused import signal_at

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "data" / "specs" / "dialogue.yaml"
TABLE = "blue_dialogue"
NEW_ITEMS, OLD_ITEMS = 20_000, 1_000        # the pause hooks stop each load at its phase: no need for more
# (phase the loader stops at, signal, the version the stores must then hold, words SIGINT's message must hold)
SCENARIOS = [
    ("staging", signal.SIGKILL, "old", ()),
    ("staging", signal.SIGINT, "old", ("interrupted: nothing was changed",)),
    ("staged", signal.SIGKILL, "old", ()),
    ("committing", signal.SIGINT, "old", ("interrupted: nothing was changed",)),
    ("switched", signal.SIGKILL, "new", ()),
    ("switched", signal.SIGINT, "new", ("interrupted after the switch", "new items are in SQLite",
                                        "DuckDB", "finishes the switch when next opened")),
    ("finishing", signal.SIGKILL, "new", ()),
    ("loaded", signal.SIGINT, "new", ("interrupted after the load completed", "the new items are in sqlite",
                                      "duckdb")),
]
IDS = [f"{phase}-{sig.name}" for phase, sig, _, _ in SCENARIOS]


def cli(*args: str, paused_at: str | None = None, **kw) -> subprocess.Popen:
    """``blue-nb args``; with ``paused_at``, in the wrapper process that stops it at that phase."""
    command = ["tests.paused", paused_at] if paused_at else ["blue_nb.cli"]
    return subprocess.Popen([sys.executable, "-m", *command, *args], cwd=ROOT,
                            env={**os.environ, "BLUE_NB_PAUSE_SECONDS": "300"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def run(*args: str) -> str:
    p = cli(*args)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    return out


def load_args(data: Path, folder: Path) -> list[str]:
    return ["load", str(SPEC), "--data", str(data), "--sqlite", str(folder / "a.sqlite"),
            "--duckdb", str(folder / "b.duckdb"), "--no-progress"]


def open_both(folder: Path):
    """Open DuckDB first (its recovery asks SQLite, the commit store), then SQLite."""
    duck = open_store("duckdb", folder / "b.duckdb")
    lite = open_store("sqlite", folder / "a.sqlite")
    return lite, duck


def digest(store) -> tuple[int, str]:
    h, n = hashlib.sha256(), 0
    for row in store.rows(f'SELECT pk, sk, data FROM "{TABLE}" ORDER BY pk, sk', [], 5_000):
        h.update(repr(tuple(row)).encode())
        n += 1
    return n, h.hexdigest()


def versions(folder: Path) -> tuple[tuple[int, str], tuple[int, str], list[str]]:
    lite, duck = open_both(folder)
    try:
        return digest(lite), digest(duck), [*duck.recovered, *lite.recovered]
    finally:
        lite.close()
        duck.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict:
    """The data of both versions, the stores holding the old one, and each version's clean digest."""
    w = tmp_path_factory.mktemp("kill")
    run("sample", "dialogue", "--scale", str(NEW_ITEMS), "--seed", "5", "--out", str(w / "new"), "--no-progress")
    run("sample", "dialogue", "--scale", str(OLD_ITEMS), "--seed", "1", "--out", str(w / "old"), "--no-progress")
    run(*load_args(w / "old", w / "base"))
    shutil.copytree(w / "base", w / "clean")
    run(*load_args(w / "new", w / "clean"))
    out = {"dir": w}
    for name in ("base", "clean"):
        lite, duck, _ = versions(w / name)
        assert lite == duck
        out["old" if name == "base" else "new"] = lite
    # --scale counts source rows; a row may make more than one item (a tension and its pointer)
    assert OLD_ITEMS <= out["old"][0] < out["new"][0]
    return out


def kill_at(w: Path, phase: str, sig: signal.Signals) -> dict:
    """Copy the old stores, start the new load, and send ``sig`` when it reaches ``phase``."""
    folder = w / f"{phase}-{sig.name}"
    shutil.copytree(w / "base", folder)
    start = time.monotonic()
    code, stderr = signal_at(cli(*load_args(w / "new", folder), paused_at=phase), phase, sig)
    return {"folder": folder, "code": code, "stderr": stderr, "seconds": time.monotonic() - start}


@pytest.fixture(scope="module")
def killed(world) -> dict:
    # A test run started as a background job (`make test &`) ignores SIGINT, and children inherit an ignored
    # signal: the loads would never see Ctrl-C. A handled signal is reset to the default in a child, so
    # handle it here while the loads run.
    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            futures = {i: pool.submit(kill_at, world["dir"], phase, sig)
                       for i, (phase, sig, _, _) in zip(IDS, SCENARIOS)}
            return {i: f.result() for i, f in futures.items()}
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("phase, sig, version, words", SCENARIOS, ids=IDS)
def test_a_killed_load_leaves_one_whole_version_in_both_stores(world, killed, phase, sig, version, words):
    k = killed[f"{phase}-{sig.name}"]
    if sig == signal.SIGKILL:
        assert k["code"] == -signal.SIGKILL
    else:
        assert k["code"] == 130, k["stderr"]
        assert "Traceback" not in k["stderr"]
        for w in words:
            assert w in k["stderr"], k["stderr"]
    lite, duck, notes = versions(k["folder"])
    assert lite == duck, f"the stores disagree after {phase}/{sig.name}: {lite[0]} vs {duck[0]} items ({notes})"
    assert lite == world[version], f"not the {version} version: {lite[0]} items"
    if phase in ("switched", "finishing") and sig == signal.SIGKILL:
        assert any("finished the switch" in n for n in notes), notes
    lite, duck, notes = versions(k["folder"])       # opening again changes nothing more
    assert lite == duck == world[version] and not notes
    # the next load succeeds, and leaves exactly its version
    run(*load_args(world["dir"] / "old", k["folder"]))
    lite, duck, _ = versions(k["folder"])
    assert lite == duck == world["old"]
    for leftover in ("blue_dialogue__next", "blue_dialogue__next__items", "blue_dialogue__next__src"):
        for backend, name in (("sqlite", "a.sqlite"), ("duckdb", "b.duckdb")):
            with open_store(backend, k["folder"] / name) as s:
                assert not s.has_table(leftover)
