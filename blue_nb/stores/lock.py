"""One load at a time per store file: an advisory lock held for the whole load.

A load stages into tables of fixed names (``{table}__next``), so two loads of one file running at
once would write into each other's staging tables. Each load of a file store holds an exclusive
``flock`` on ``<store file>.lock`` from before it prepares until after its switch (the file is
removed then); a second load is refused at once, naming the file. The operating system releases the lock when the process
ends, however it ends (SIGKILL included), so a killed load never leaves a stale lock behind.
"""

from __future__ import annotations

import os
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator

from blue_nb.errors import StoreError
from blue_nb.stores.base import Store

try:
    import fcntl
except ImportError:            # Windows has no flock: loads there are not guarded against each other
    fcntl = None

__all__ = ["load_lock"]


@contextmanager
def _lock(path: Path) -> Iterator[None]:
    """Hold ``path``'s exclusive lock; the file is removed when the load ends, so no empty ``.lock`` stays
    beside the store. A lock taken on a file that a finishing load has just removed is taken again on
    the new one (the inode of the path is the lock)."""
    for _ in range(5):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as e:
            os.close(fd)
            raise StoreError("another load is writing to this store right now", where=str(path.with_suffix("")),
                             hint="wait for it to finish (or stop it), then load again", cause=e) from e
        try:
            current = os.stat(path).st_ino
        except FileNotFoundError:
            current = None
        if current == os.fstat(fd).st_ino:
            break
        os.close(fd)                                   # removed (and maybe made again) meanwhile: lock the file there now
    else:
        raise StoreError("could not take the store's load lock", where=str(path.with_suffix("")),
                         hint="another load keeps starting and ending: load again")
    try:
        yield
    finally:
        try:
            os.unlink(path)                            # while held: a load waiting on this file takes the next one
        except FileNotFoundError:
            pass
        os.close(fd)                                   # closing the descriptor releases the lock


@contextmanager
def load_lock(stores: list[Store]) -> Iterator[None]:
    """Hold every file store's load lock (in-memory stores need none)."""
    with ExitStack() as held:
        if fcntl is not None:
            for store in stores:
                if not store.in_memory:
                    held.enter_context(_lock(Path(store.path + ".lock")))
        yield
