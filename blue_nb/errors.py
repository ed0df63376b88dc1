"""The one exception tree of blue_nb.

Every error blue_nb raises on purpose is a :class:`BlueNbError`; callers (the CLI, the
notebooks) catch that one class. Each carries a message that names the object and quotes the
bad value, ``where`` it happened (``file:line``, an item key, or a spec path such as
``entities.Perspective.key.sk``), a ``hint`` on how to fix it, and the driver exception it
wraps as ``cause`` (also chained with ``raise ... from``).

::

    BlueNbError                  msg, where, hint, cause
    ├── SpecError                a spec file is unreadable or invalid; .problems lists them all
    ├── TemplateError            a key template is malformed, or a row/key does not fit it
    ├── ItemError                a value or item is not valid DynamoDB data (bad number, empty set, ...)
    ├── SourceError              an input data file or row is bad (file:line, column)
    ├── QueryError               an access pattern cannot run: missing parameters, bad values
    ├── StoreError               SQLite/DuckDB failed (wraps sqlite3/duckdb errors)
    ├── DynamoError              a DynamoDB endpoint call failed; .code is the AWS error code
    └── MigrationError           a migration refused: a blocking risk without --force, a table in another state
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BlueNbError",
    "DynamoError",
    "ItemError",
    "MigrationError",
    "QueryError",
    "Problem",
    "SourceError",
    "SpecError",
    "StoreError",
    "TemplateError",
]


@dataclass(frozen=True)
class Problem:
    """One problem found while validating: where it is, what is wrong, how to fix it."""

    where: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        return f"{text} ({self.hint})" if self.hint else text


class BlueNbError(Exception):
    """Root of every blue_nb error."""

    def __init__(self, msg: str, *, where: str = "", hint: str = "", cause: BaseException | None = None):
        self.msg = msg
        self.where = where
        self.hint = hint
        self.cause = cause
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"{self.where}: {self.msg}" if self.where else self.msg
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class SpecError(BlueNbError):
    """A spec file could not be read or is not valid; ``problems`` holds every problem found."""

    def __init__(self, msg: str, *, problems: list[Problem] | None = None, **kw):
        self.problems = list(problems or [])
        super().__init__(msg, **kw)

    def __str__(self) -> str:
        text = f"{self.where}: {self.msg}" if self.where else self.msg
        text += "".join(f"\n  - {p}" for p in self.problems)
        return text + (f"\n  hint: {self.hint}" if self.hint else "")


class TemplateError(BlueNbError):
    """A key template is malformed, or a value/key does not fit it."""


class ItemError(BlueNbError):
    """A value or an item is not valid DynamoDB data."""


class SourceError(BlueNbError):
    """An input data file or one of its rows is bad."""


class QueryError(BlueNbError):
    """An access pattern cannot run as asked (missing parameters, values that do not fit)."""


class StoreError(BlueNbError):
    """A local store (SQLite or DuckDB) failed; wraps the driver's exception."""


class DynamoError(BlueNbError):
    """A call to a DynamoDB endpoint failed; ``code`` is the AWS error code when there is one."""

    def __init__(self, msg: str, *, code: str = "", **kw):
        self.code = code
        super().__init__(msg, **kw)


class MigrationError(BlueNbError):
    """A migration that cannot run as asked: a blocking risk without ``--force``, a table in another state."""
