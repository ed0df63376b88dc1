"""An import's ``--out`` folder, written aside and switched in: all of an import or none of it.

An import writes ``<domain>.yaml`` and ``<domain>/`` (its rows) for each table, and maybe
``workbench-extra.json``. :class:`OutFolder` writes them into a staging folder inside ``--out``
(``.blue-nb-import-*/next/``), then switches each table's names in by renaming, so no reader ever
sees an old spec beside new rows:

1. **one import per folder**: an exclusive ``flock`` on ``.blue-nb-import.lock`` is held for the
   whole import (and the file removed after); a second import into the folder is refused at once (the
   OS drops the lock when the process ends, however it ends);
2. **recovery** first: a switch an earlier import left half done (killed) is finished or rolled
   back (below), and staging folders it left are removed;
3. :meth:`OutFolder.promise`, before the stores' loads: the journal ``.blue-nb-import.json`` names
   the staging folder, each table's names and the load that puts its items in the stores (its id and
   commit store, :mod:`blue_nb.stores.journal`);
4. after the loads, :meth:`OutFolder.switch`: each table's old names are moved into the staging
   folder and the new ones renamed in; then the journal and the staging folder go.

A table whose load had not committed when the import stopped is rolled back (its old spec and rows
stay); one whose load committed is rolled forward, so the folder always describes the items the
stores hold. Without stores the journal itself is the commit point. Recovery runs at the next import
into the folder, or by :func:`recover_out` directly.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from blue_nb.errors import SourceError
from blue_nb.stores import journal

try:
    import fcntl
except ImportError:            # Windows has no flock: imports there are not guarded against each other
    fcntl = None

__all__ = ["JOURNAL", "LOCK", "STAGING_PREFIX", "OutFolder", "out_folder", "recover_out"]

JOURNAL = ".blue-nb-import.json"
LOCK = ".blue-nb-import.lock"
STAGING_PREFIX = ".blue-nb-import-"


@dataclass
class OutFolder:
    """``--out`` during one import: ``next`` is where its files are written; :meth:`promise` and
    :meth:`switch` put them in place (module docstring)."""

    path: Path
    staging: Path
    recovered: list[str] = field(default_factory=list)
    _entries: list[dict] = field(default_factory=list)

    @property
    def next(self) -> Path:
        return self.staging / "next"

    @property
    def scratch(self) -> Path:
        """A folder for the import's own scratch files (removed with the staging folder)."""
        return self.staging / "scratch"

    def promise(self, tables: list[tuple[list[str], str | None, str | None]]) -> None:
        """Record the switch to come: per table, its names, and its load's (id, commit store) or None."""
        self._entries = [{"names": [n for n in names if (self.next / n).exists()],
                          "gone": [n for n in names if not (self.next / n).exists()],   # old ones to take away
                          "load_id": load_id, "commit_store": commit_store}
                         for names, load_id, commit_store in tables]
        shared = [n for n in os.listdir(self.next) if not any(n in e["names"] for e in self._entries)]
        if shared:                           # names of no one table (workbench-extra.json) go with the first
            self._entries[0]["names"] += shared
        _write_json(self.path / JOURNAL, {"staging": self.staging.name, "tables": self._entries})

    def switch(self) -> None:
        """Put every table's files in place, then forget the journal: called by the import whose loads have all
        committed (so their stores, still open in this process, are not asked again)."""
        _settle(self.path, self.staging, self._entries, committed=True)


@contextmanager
def out_folder(out_dir: str | Path) -> Iterator[OutFolder]:
    """``--out`` locked for one import, recovered, with a fresh staging folder; on the way out (an
    error, an interrupt or the end) a switch that was promised is settled and the staging removed."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SourceError("--out names a file, not a folder", where=str(out), hint="give a folder for the spec and rows")
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SourceError(f"cannot create the output folder: {e.strerror or e}", where=str(out), cause=e) from e
    try:
        with _locked(out):
            notes = recover_out(out)
            staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=out))
            folder = OutFolder(out, staging, notes)
            folder.next.mkdir()
            folder.scratch.mkdir()
            try:
                yield folder
            finally:
                if (out / JOURNAL).exists():     # promised: settle by what the stores committed
                    _settle(out, staging, folder._entries)
                shutil.rmtree(staging, ignore_errors=True)
    finally:
        if created:                              # made for this import and left empty (it failed): removed
            try:
                out.rmdir()
            except OSError:
                pass


def recover_out(out: Path) -> list[str]:
    """Finish or roll back a switch an interrupted import left in ``out``; what was done, one line each."""
    notes = []
    path = out / JOURNAL
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            staging, entries = out / data["staging"], list(data["tables"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SourceError(f"the journal of an interrupted import cannot be read: {e}", where=str(path),
                              hint="look at the folder's files, then remove that file and import again") from e
        for line in _settle(out, staging, entries):
            notes.append(line)
    for left in out.glob(STAGING_PREFIX + "*"):
        if left.is_dir():
            shutil.rmtree(left, ignore_errors=True)
    return notes


def _settle(out: Path, staging: Path, entries: list[dict], committed: bool | None = None) -> list[str]:
    """Switch in each table whose load committed (or that had no load); drop the others; what was done.
    ``committed``: the loads' outcome when the caller knows it; else each commit store's journal says."""
    notes = []
    old = staging / "old"
    for entry in entries:
        names = _names(entry.get("names"))
        load_id, commit_store = entry.get("load_id"), entry.get("commit_store")
        done = True if load_id is None else committed if committed is not None else journal.decide(commit_store,
                                                                                                   load_id)
        if done is None:
            raise SourceError("an interrupted import is still pending: its store "
                              f"{str(commit_store).partition(':')[2]} cannot be read to tell whether it committed",
                              where=str(out / JOURNAL), hint="close any program that holds that file open, then "
                                                             "import again")
        if not done:
            notes.append(f"rolled back an interrupted import of {', '.join(names)}: its load had not committed; "
                         "the files are those of before it")
            continue
        moved = False
        for name in _names(entry.get("gone")):      # the import has none: an old one must not stay beside the new
            target = out / name
            if target.exists() or target.is_symlink():
                old.mkdir(exist_ok=True)
                target.rename(old / name)
                moved = True
        for name in names:
            new = staging / "next" / name
            if not new.exists():            # switched in already (a switch interrupted after this name)
                continue
            target = out / name
            old.mkdir(exist_ok=True)
            if target.exists() or target.is_symlink():
                target.rename(old / name)
            new.rename(target)
            moved = True
        if moved:
            notes.append(f"finished the switch of an interrupted import: {', '.join(names)} in place")
    (out / JOURNAL).unlink(missing_ok=True)
    shutil.rmtree(staging, ignore_errors=True)
    return notes


def _names(names: object) -> list[str]:
    """The plain file names of a journal entry (anything else in a damaged journal is passed over)."""
    return [n for n in names or [] if isinstance(n, str) and "/" not in n and n not in ("", ".", "..")] \
        if isinstance(names, list) else []


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, ensure_ascii=False))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """The folder's import lock, held for the block; its file is removed again on the way out (the lock
    is taken only on a file still at its path, so a removed one is never shared)."""
    if fcntl is None:
        yield
        return
    path = out / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if not path.exists() or os.stat(path).st_ino != os.fstat(fd).st_ino:
                raise BlockingIOError("the lock file was replaced")
        except BlockingIOError as e:
            raise SourceError("another import is writing to this folder right now", where=str(out),
                              hint="wait for it to finish (or stop it), or give another --out", cause=e) from e
        try:
            yield
        finally:
            path.unlink(missing_ok=True)
    finally:
        os.close(fd)
