"""Files a command writes into a folder of the user's, written aside and moved in at the end.

``with files_aside(out) as tmp: ...write into tmp...`` creates ``out`` (and says which folders it
made), hands over a scratch folder inside it, and on success moves each file written there into
``out``, replacing a file of the same name; on any failure or interrupt the scratch folder goes and
``out`` holds what it held (and a folder made for the run is removed again). A command that fails
half-way through its figures leaves no half-written report.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from blue_nb.errors import SourceError

__all__ = ["files_aside"]


@contextmanager
def files_aside(out_dir: str | Path) -> Iterator[Path]:
    """A scratch folder inside ``out_dir`` whose files are moved into it when the block ends well."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SourceError("the output folder is a file", where=str(out), hint="give a folder (or a new name)")
    made = [p for p in (out, *out.parents) if not p.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".blue-nb-writing-", dir=out))
    except OSError as e:
        _remove(made)
        raise SourceError(f"cannot create the output folder: {e.strerror or e}", where=str(out), cause=e) from e
    try:
        yield tmp
        for f in sorted(tmp.iterdir()):
            os.replace(f, out / f.name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove(made)
        raise
    shutil.rmtree(tmp, ignore_errors=True)


def _remove(made: list[Path]) -> None:
    for p in made:                                   # deepest first: only folders this run made, if empty
        try:
            p.rmdir()
        except OSError:
            pass
