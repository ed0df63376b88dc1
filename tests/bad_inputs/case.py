"""One bad input: the files to lay out, the command to run, and what must come back.

Each case runs in a fresh folder holding a copy of the library example (``library.yaml`` and its
data under ``data/``) and two stores (``store.sqlite``, ``store.duckdb``) already loaded from it.
``files`` adds or overwrites files there (str is written as UTF-8, bytes as they are; None
deletes); ``args`` is the ``blue-nb`` command line, with ``{dir}`` for the folder; ``stdin`` is
fed to it. The test checks the exit status, that the message (stderr; with exit status 0 or 1, the
output on stdout too) contains every one of
``words`` (case-insensitive), that no traceback was printed, and that both stores still hold
exactly what they held before, and (unless ``files_unchanged`` is False) that every other file
of the folder is as it was: nothing written, nothing left behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[str, ...]
    words: tuple[str, ...]                       # the message says what, where and how to fix it
    exit_code: int = 2
    files: dict[str, str | bytes | None] = field(default_factory=dict)
    stdin: str | bytes | None = None
    stores_unchanged: bool = True
    files_unchanged: bool = True

    def __post_init__(self):
        assert self.words, f"{self.name}: a case names the words its message must contain"
