"""A wrapper process for the interrupt tests: the ``blue-nb`` command, paused at one chosen moment.

    python -m tests.paused PHASE [blue-nb arguments ...]       (from the project root)

It wraps, from outside, the function at the phase's boundary, then runs :func:`blue_nb.cli.main`.
When the run reaches the phase it writes ``blue-nb-test-pause PHASE`` to stderr and sleeps there
(``BLUE_NB_PAUSE_SECONDS``, default 300), so the test can kill or interrupt it at that moment
(a SIGINT raises KeyboardInterrupt where it sleeps, as it would there). The phases:

* the loader (:mod:`blue_nb.stores.load`): ``staging`` after the first chunk is committed to the
  staging tables; ``staged`` before the commit point (the other stores marked ready, the commit
  transaction open); ``committing`` inside the commit transaction, the load marked done; ``switched``
  after the commit point, before the other stores swap; ``finishing`` inside the second store's
  swap, marked done there but not committed.
* the DynamoDB writer: ``dynamo-writing`` after the first BatchWriteItem call is answered; every
  later BatchWriteItem call waits there too (so with several writer threads no more is written).
* the migration (:mod:`blue_nb.app.migrate_run`): ``migrate-write-N`` after the N-th BatchWriteItem call is
  answered (the seed's puts, then the backfill's, then the deletes), ``migrate-scan-N`` before the N-th
  Scan of the whole table begins (1: the backfill's, 2: the verify step's, 3: the proof's), ``migrate-index-N``
  after the N-th UpdateTable call (a global index deleted or created) is answered.
* the command line's load: ``loaded`` after the load returned, as the command prints what it did.
* the importer (:mod:`blue_nb.app.imports`): ``import-staged`` with every table's spec and rows written
  aside, before the stores open; ``import-loaded`` after the stores' loads, before the files are
  switched into ``--out`` (the loader's phases pause an import's loads too).

:func:`install` does the same in a process of the test's own making (``python -c``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from typing import Any, Callable

from blue_nb.app import imports as app_imports
from blue_nb.cli import data as cli_data
from blue_nb.cli import main as blue_nb_main
from blue_nb.dynamo import DynamoClient
from blue_nb.imports.out_folder import OutFolder
from blue_nb.stores import journal, stage

MARK = "blue-nb-test-pause"
LOADER_PHASES = ("staging", "staged", "committing", "switched", "finishing")
IMPORT_PHASES = ("import-staged", "import-loaded")
PHASES = (*LOADER_PHASES, "dynamo-writing", "loaded", *IMPORT_PHASES)


def pause(phase: str | None) -> None:
    """Say so on stderr (unless ``phase`` is None), then sleep (a SIGINT interrupts the sleep)."""
    if phase:
        sys.stderr.write(f"{MARK} {phase}\n")
        sys.stderr.flush()
    time.sleep(float(os.environ.get("BLUE_NB_PAUSE_SECONDS", "300")))


def _wrap(owner: Any, name: str, before: Callable[..., None] | None = None,
          after: Callable[..., None] | None = None) -> None:
    """Replace ``owner.name`` by the same function with ``before`` / ``after`` called around it."""
    inner = getattr(owner, name)

    def wrapped(*args: Any, **kw: Any) -> Any:
        if before:
            before(*args, **kw)
        out = inner(*args, **kw)
        if after:
            after(*args, **kw)
        return out

    setattr(owner, name, wrapped)


def _install_loader(phase: str) -> None:
    staging = threading.Event()          # the later phases count only once staging began (not in a recovery)
    done_records = []

    def chunk_written(*_: Any) -> None:
        first = not staging.is_set()
        staging.set()
        if first and phase == "staging":
            pause(phase)

    def before_swap(*_: Any) -> None:
        if staging.is_set() and phase == "staged" and not done_records:
            pause(phase)

    def recorded(store: Any, load_id: str, table: str, state: str, *_: Any) -> None:
        if not staging.is_set() or state != journal.DONE:
            return
        done_records.append(store)
        if (phase, len(done_records)) in (("committing", 1), ("finishing", 2)):
            pause(phase)

    def before_finish(*_: Any) -> None:
        if staging.is_set() and phase == "switched" and len(done_records) == 1:
            pause(phase)

    _wrap(stage, "write_chunk", after=chunk_written)
    _wrap(journal, "swap_in", before=before_swap)
    _wrap(journal, "record", after=recorded)
    _wrap(journal, "finish", before=before_finish)


def _install_writer(phase: str) -> None:
    answered, lock = threading.Event(), threading.Lock()
    inner = DynamoClient.call

    def call(self: DynamoClient, method: str, **kw: Any) -> dict[str, Any]:
        if method != "batch_write_item":
            return inner(self, method, **kw)
        if answered.is_set():
            pause(None)                  # another writer thread: it waits too, silently
        out = inner(self, method, **kw)
        with lock:
            first = not answered.is_set()
            answered.set()
        pause(phase if first else None)
        return out

    DynamoClient.call = call


def _install_migration(phase: str) -> None:
    kind, _, n = phase.removeprefix("migrate-").partition("-")
    at, seen = int(n), {"write": 0, "scan": 0, "index": 0}
    call, scan = DynamoClient.call, DynamoClient.scan_items
    counted = {"batch_write_item": "write", "update_table": "index"}

    def counted_call(self: DynamoClient, method: str, **kw: Any) -> dict[str, Any]:
        out = call(self, method, **kw)
        if counted.get(method) == kind:
            seen[kind] += 1
            if seen[kind] == at:
                pause(phase)
        return out

    def counted_scan(self: DynamoClient, *args: Any, **kw: Any):
        if kind == "scan":
            seen["scan"] += 1
            if seen["scan"] == at:
                pause(phase)
        return scan(self, *args, **kw)

    DynamoClient.call = counted_call
    DynamoClient.scan_items = counted_scan


def install(phase: str) -> None:
    """Pause this process at ``phase`` (one of :data:`PHASES`, or ``migrate-write-N``, ``migrate-scan-N``,
    ``migrate-index-N``)."""
    if re.fullmatch(r"migrate-(write|scan|index)-[1-9][0-9]*", phase):
        _install_migration(phase)
        return
    if phase not in PHASES:
        raise SystemExit(f"unknown phase {phase!r}; one of {', '.join(PHASES)}")
    if phase in LOADER_PHASES:
        _install_loader(phase)
    elif phase == "loaded":
        _wrap(cli_data, "_say_loaded", before=lambda *_a, **_k: pause(phase))
    elif phase == "import-staged":
        _wrap(app_imports, "open_stores", before=lambda *_a, **_k: pause(phase))
    elif phase == "import-loaded":
        _wrap(OutFolder, "switch", before=lambda *_a, **_k: pause(phase))
    else:
        _install_writer(phase)


def signal_at(p: "subprocess.Popen", phase: str, sig: int, timeout: float = 240) -> tuple[int, str]:
    """For a test: read the paused command's stderr (a text pipe) until it reaches ``phase``, send it ``sig``
    and wait for it to end; its exit status and everything it wrote to stderr."""
    seen = []
    try:
        for line in p.stderr:
            seen.append(line)
            if line.strip() == f"{MARK} {phase}":
                break
        else:
            raise AssertionError(f"the command ended before {phase}: {''.join(seen)}")
        p.send_signal(sig)
        _, err = p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, "".join(seen) + (err or "")


def main() -> None:
    phase, *args = sys.argv[1:]
    install(phase)
    sys.argv = ["blue-nb", *args]
    blue_nb_main()


if __name__ == "__main__":
    main()
