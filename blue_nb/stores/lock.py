"""One load at a time per store file: an advisory lock held for the whole load.

A load stages into tables of fixed names (``{table}__next``), so two loads of one file running at
once would write into each other's staging tables. Each load of a file store holds an exclusive
``flock`` on ``<store file>.lock`` from before it prepares until after its switch; a second load
is refused at once, naming the file. The operating system releases the lock when the process
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
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as e:
            raise StoreError("another load is writing to this store right now", where=str(path.with_suffix("")),
                             hint="wait for it to finish (or stop it), then load again", cause=e) from e
        yield
    finally:
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
