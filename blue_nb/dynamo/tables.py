"""Tables on an endpoint: create one from a spec, wait until it is usable, describe, delete, tag.

:meth:`TablesMixin.create_table` sends :func:`blue_nb.patterns.create_table_request` (the same
request ``blue-nb`` shows and ``aws dynamodb create-table --cli-input-json`` takes), refuses an
existing table unless ``replace=True`` (then deletes it and waits until it is gone), and waits
until the table and each of its global indexes are ACTIVE. Tags mark a table blue_nb is loading,
so an interrupted load can be resumed. Table names are given without the client's prefix.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping

from blue_nb.errors import DynamoError
from blue_nb.patterns import create_table_request
from blue_nb.spec import Spec

__all__ = ["TablesMixin"]

WAIT_TIMEOUT = 600.0
MISSING = "ResourceNotFoundException"


def _poll(check: Callable[[], bool], timeout: float, what: str, where: str) -> None:
    """Call ``check`` until it is true, with a growing pause (50 ms to 2 s), at most ``timeout`` s."""
    deadline, pause = time.monotonic() + timeout, 0.05
    while not check():
        if time.monotonic() + pause > deadline:
            raise DynamoError(f"gave up waiting {timeout:g} s for {what}", code="WaitTimeout", where=where,
                              hint="look at the table in the console or with describe-table, then run again")
        time.sleep(pause)
        pause = min(pause * 1.5, 2.0)


def _tag_list(tags: Mapping[str, Any]) -> list[dict[str, str]]:
    return [{"Key": str(k), "Value": str(v)} for k, v in tags.items()]


class TablesMixin:
    """Table methods of :class:`~blue_nb.dynamo.client.DynamoClient` (they use its ``_call``)."""

    _call: Callable[..., dict[str, Any]]
    name: Callable[[str], str]

    def describe(self, table: str) -> dict[str, Any]:
        """DescribeTable's ``Table`` (DynamoError code ResourceNotFoundException when missing)."""
        return self._call("describe_table", TableName=table)["Table"]

    def table_exists(self, table: str) -> bool:
        try:
            self.describe(table)
        except DynamoError as e:
            if e.code == MISSING:
                return False
            raise
        return True

    def create_table(self, spec: Spec, *, replace: bool = False, wait: bool = True,
                     tags: Mapping[str, Any] | None = None, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """Create ``spec``'s table (prefixed); returns its description (ACTIVE when ``wait``)."""
        table = spec.table_name
        full = self.name(table)
        if self.table_exists(table):
            if not replace:
                raise DynamoError(f"table {full!r} already exists", code="TableExists", where=full,
                                  hint="give --replace to delete and recreate it, or --table-prefix to use another "
                                       "name")
            self.delete_table(table, wait=True, timeout=timeout)
        request = create_table_request(spec, table)
        if tags:
            request["Tags"] = _tag_list(tags)
        description = self._call("create_table", **request)["TableDescription"]
        return self.wait_active(table, timeout) if wait else description

    def wait_active(self, table: str, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """Wait until the table and its global indexes are ACTIVE; returns the last description."""
        seen: dict[str, Any] = {}

        def active() -> bool:
            seen.update(self.describe(table))
            indexes = seen.get("GlobalSecondaryIndexes") or []
            return seen.get("TableStatus") == "ACTIVE" and all(i.get("IndexStatus") == "ACTIVE" for i in indexes)

        _poll(active, timeout, "the table and its indexes to become ACTIVE", self.name(table))
        return seen

    def delete_table(self, table: str, *, wait: bool = True, timeout: float = WAIT_TIMEOUT) -> bool:
        """Delete the table; False when there was none. With ``wait``, returns once it is gone."""
        try:
            self._call("delete_table", TableName=table)
        except DynamoError as e:
            if e.code == MISSING:
                return False
            raise
        if wait:
            _poll(lambda: not self.table_exists(table), timeout, "the table to be deleted", self.name(table))
        return True

    def tags(self, table: str) -> dict[str, str]:
        """The table's tags as a dict."""
        arn = self.describe(table)["TableArn"]
        out: dict[str, str] = {}
        kw: dict[str, Any] = {"ResourceArn": arn}
        while True:
            resp = self._call("list_tags_of_resource", **kw)
            out.update({t["Key"]: t["Value"] for t in resp.get("Tags", [])})
            if not resp.get("NextToken"):
                return out
            kw["NextToken"] = resp["NextToken"]

    def tag(self, table: str, tags: Mapping[str, Any]) -> None:
        """Add or overwrite tags on the table (e.g. ``{"blue-nb:state": "complete"}``)."""
        if tags:
            self._call("tag_resource", ResourceArn=self.describe(table)["TableArn"], Tags=_tag_list(tags))
