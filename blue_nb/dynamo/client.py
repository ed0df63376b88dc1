"""DynamoClient: one boto3 DynamoDB client, every call through one place, every failure a DynamoError.

Every request goes through :meth:`DynamoClient._call`, which adds the table prefix to every table
name sent (``TableName`` and the keys of ``RequestItems``), checks the names against DynamoDB's
rule (3-255 characters of ``[A-Za-z0-9_.-]``), and turns botocore's exceptions into
:class:`~blue_nb.errors.DynamoError` with ``code`` = the AWS error code, ``where`` = the table or
the endpoint, and a hint on how to fix it. boto3's standard retry mode (up to 10 retries) retries
throttling and transient errors first (:mod:`.calls` has the error mapping).

Its methods come from :class:`~blue_nb.dynamo.tables.TablesMixin` (create, describe, delete, tag),
:class:`~blue_nb.dynamo.reads.ReadsMixin` (run a plan, scan, count) and
:func:`~blue_nb.dynamo.writes.write_items`.
"""

from __future__ import annotations

import os
import re
from typing import Any, Mapping

import boto3
import botocore.session
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from blue_nb.dynamo.calls import wrap_error
from blue_nb.dynamo.reads import ReadsMixin
from blue_nb.dynamo.tables import TablesMixin
from blue_nb.dynamo.writes import BatchWriteReport, write_items
from blue_nb.errors import DynamoError

__all__ = ["DynamoClient"]

TABLE_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]{3,255}")


def _isolated_session(credentials: Mapping[str, str], region: str) -> boto3.session.Session:
    """A boto3 session that reads no profile, config or credentials file: only what is passed."""
    core = botocore.session.Session(session_vars={"profile": (None, None, None, None)})
    core.set_config_variable("config_file", os.devnull)
    core.set_config_variable("credentials_file", os.devnull)
    return boto3.session.Session(botocore_session=core, region_name=region, **credentials)


def _loopback(url: str | None) -> bool:
    return bool(url) and url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] in ("127.0.0.1", "localhost")


class DynamoClient(TablesMixin, ReadsMixin):
    """One boto3 DynamoDB client; all its calls go through :meth:`_call`.

    ``credentials`` (a dict of boto3 session arguments) makes an isolated session that reads
    nothing of the user's AWS configuration; ``profile`` names a profile; with neither, boto3's
    default credential chain is used (real AWS). ``retries``: botocore's retries of a throttled
    or failed call (standard mode), after the first attempt; 0 leaves every retry to the caller.
    """

    def __init__(self, endpoint_url: str | None = None, *, region: str | None = "us-east-1",
                 credentials: Mapping[str, str] | None = None, profile: str | None = None, table_prefix: str = "",
                 label: str | None = None, emulator: str | None = None, retries: int = 10,
                 connect_timeout: float = 5, read_timeout: float = 60):
        self._args = dict(endpoint_url=endpoint_url, region=region, credentials=credentials, profile=profile,
                          table_prefix=table_prefix, label=label, emulator=emulator, retries=retries,
                          connect_timeout=connect_timeout, read_timeout=read_timeout)
        self.prefix = table_prefix or ""
        if self.prefix and not re.fullmatch(r"[A-Za-z0-9_.\-]+", self.prefix):
            raise DynamoError(f"table prefix {self.prefix!r} holds characters a table name cannot",
                              code="InvalidTableName", where="--table-prefix", hint="use only A-Z a-z 0-9 _ . -")
        self.label = label or (endpoint_url or f"AWS DynamoDB ({region or 'default region'})")
        self.emulator = emulator
        config = Config(retries={"mode": "standard", "max_attempts": retries}, connect_timeout=connect_timeout,
                        read_timeout=read_timeout, max_pool_connections=32,
                        proxies={} if _loopback(endpoint_url) else None)
        try:
            if credentials is not None:
                session = _isolated_session(credentials, region or "us-east-1")
            else:
                session = boto3.session.Session(profile_name=profile, region_name=region)
            self._client = session.client("dynamodb", endpoint_url=endpoint_url, config=config)
        except (BotoCoreError, ValueError) as e:
            raise wrap_error(e, self.label, self.label) from e

    @property
    def table_prefix(self) -> str:
        return self.prefix

    @property
    def endpoint_url(self) -> str:
        return self._client.meta.endpoint_url

    @property
    def region(self) -> str:
        return self._client.meta.region_name

    def __repr__(self) -> str:
        return f"DynamoClient({self.label!r}, prefix={self.prefix!r})"

    def clone(self) -> "DynamoClient":
        """Another client like this one, with its own boto3 client (one per thread)."""
        return DynamoClient(**self._args)

    def name(self, table: str) -> str:
        """The table name sent to the endpoint: the prefix added, DynamoDB's naming rule checked."""
        full = self.prefix + table
        if not TABLE_NAME_RE.fullmatch(full):
            raise DynamoError(f"table name {full!r} is not valid: DynamoDB needs 3-255 characters of "
                              "A-Z a-z 0-9 _ . -", code="InvalidTableName", where=full,
                              hint="rename the table (table.name in the spec) or change --table-prefix")
        return full

    def _call(self, method: str, **kw: Any) -> dict[str, Any]:
        """Call ``method`` with the table names prefixed; botocore failures become DynamoError."""
        if "TableName" in kw:
            kw["TableName"] = self.name(kw["TableName"])
        if "RequestItems" in kw:
            kw["RequestItems"] = {self.name(t): v for t, v in kw["RequestItems"].items()}
        where = kw.get("TableName") or next(iter(kw.get("RequestItems") or {}), None) or self.label
        try:
            return getattr(self._client, method)(**kw)
        except (ClientError, BotoCoreError) as e:
            raise wrap_error(e, where, self.label) from e

    def write_items(self, table: str, items, **kw: Any) -> BatchWriteReport:
        """:func:`blue_nb.dynamo.writes.write_items` on this client."""
        return write_items(self, table, items, **kw)
