"""Choosing the DynamoDB API endpoint to talk to, and nothing else.

:func:`resolve_endpoint` picks, in order: an explicit ``endpoint_url``; the environment variable
``AWS_ENDPOINT_URL_DYNAMODB``; ``aws=True`` (real AWS with boto3's default credential chain, or
``profile``); otherwise the embedded :class:`~blue_nb.dynamo.local.LocalDynamo`, started on enter
and stopped on exit. Without one of the first three, nothing contacts AWS: the embedded endpoint
is on 127.0.0.1 and its clients carry dummy credentials, passed explicitly, with no AWS profile,
config or credentials file read. A URL endpoint gets the credentials of the environment variables
``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` when both are set, else the same dummy ones
(no credential chain that could call AWS runs for it).
"""

from __future__ import annotations

import contextlib
import os
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from blue_nb.dynamo.client import DynamoClient
from blue_nb.dynamo.local import DUMMY_CREDENTIALS, KNOWN_GAPS, REGION, LocalDynamo
from blue_nb.errors import DynamoError
from blue_nb.printing import fields_html

__all__ = ["ENDPOINT_ENV", "Endpoint", "probe_emulator", "resolve_endpoint"]

ENDPOINT_ENV = "AWS_ENDPOINT_URL_DYNAMODB"
PROBE_PATH = "/moto-api/"
PROBE_TIMEOUT = 2.0


@dataclass(repr=False)
class Endpoint:
    """Where blue_nb talks to DynamoDB: ``kind`` is "embedded", "url" or "aws". Its repr is its label; a
    notebook shows it as a short table (never the credentials)."""

    kind: str
    url: str | None
    region: str | None
    label: str
    emulator: str | None = None
    profile: str | None = None
    credentials: Mapping[str, str] | None = field(default=None, repr=False)
    local: LocalDynamo | None = field(default=None, repr=False)

    @classmethod
    def embedded(cls, local: LocalDynamo, region: str | None = None) -> "Endpoint":
        """The endpoint of a started :class:`LocalDynamo` (dummy credentials, emulator "moto")."""
        return cls("embedded", local.url, region or REGION, f"embedded moto_server at {local.url}", "moto",
                   credentials=dict(DUMMY_CREDENTIALS), local=local)

    def __repr__(self) -> str:
        return f"<Endpoint {self.label}>"

    def _repr_html_(self) -> str:
        return fields_html({"endpoint": self.label, "kind": self.kind, "url": self.url or "(the SDK's default)",
                            "region": self.region or "(the SDK's default)", "emulator": self.emulator or "none"})

    @property
    def known_gaps(self) -> dict[str, str]:
        """The emulator's known differences from DynamoDB (empty for real AWS and unknown emulators)."""
        return dict(KNOWN_GAPS) if self.emulator == "moto" else {}

    def client(self, table_prefix: str = "", **kw: Any) -> DynamoClient:
        """A :class:`DynamoClient` for this endpoint; ``kw`` goes to DynamoClient (retries, timeouts)."""
        return DynamoClient(self.url, region=self.region, credentials=self.credentials, profile=self.profile,
                            table_prefix=table_prefix, label=self.label, emulator=self.emulator, **kw)


def probe_emulator(url: str, timeout: float = PROBE_TIMEOUT) -> str | None:
    """"moto" when ``url`` answers ``GET /moto-api/`` the way moto does, else None (one short try)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url.rstrip("/") + PROBE_PATH, timeout=timeout) as resp:
            body = resp.read(65536).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    return "moto" if resp.status == 200 and "moto" in body.lower() else None


def _url_credentials() -> dict[str, str]:
    key, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    if key and secret:
        creds = {"aws_access_key_id": key, "aws_secret_access_key": secret}
        if os.environ.get("AWS_SESSION_TOKEN"):
            creds["aws_session_token"] = os.environ["AWS_SESSION_TOKEN"]
        return creds
    return dict(DUMMY_CREDENTIALS)


def _url_endpoint(url: str, region: str | None, source: str) -> Endpoint:
    if not url.startswith(("http://", "https://")):
        raise DynamoError(f"endpoint URL {url!r} must start with http:// or https://", code="InvalidEndpoint",
                          where=source, hint="e.g. --endpoint-url http://localhost:8000")
    region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or REGION
    emulator = probe_emulator(url)
    label = f"{emulator + ' at ' if emulator else 'endpoint '}{url} (from {source})"
    return Endpoint("url", url, region, label, emulator, credentials=_url_credentials())


def _aws_endpoint(profile: str | None, region: str | None) -> Endpoint:
    client = DynamoClient(None, region=region, profile=profile)          # resolves the region; no call is made
    label = f"AWS DynamoDB in {client.region}" + (f" (profile {profile})" if profile else "")
    return Endpoint("aws", None, client.region, label, None, profile=profile)


@contextlib.contextmanager
def resolve_endpoint(endpoint_url: str | None = None, *, aws: bool = False, profile: str | None = None,
                     region: str | None = None) -> Iterator[Endpoint]:
    """The endpoint to use (see the module docstring for the order); the embedded one lives for the block."""
    if profile and not aws:
        raise DynamoError(f"--profile {profile} is only used with --aws", code="UsageError", where="--profile",
                          hint="add --aws to use real AWS with that profile, or drop --profile")
    if endpoint_url:
        yield _url_endpoint(endpoint_url, region, "--endpoint-url")
    elif os.environ.get(ENDPOINT_ENV):
        yield _url_endpoint(os.environ[ENDPOINT_ENV], region, ENDPOINT_ENV)
    elif aws:
        yield _aws_endpoint(profile, region)
    else:
        with LocalDynamo() as local:
            yield Endpoint.embedded(local, region)
