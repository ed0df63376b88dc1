"""botocore's failures as DynamoError, the retry pause, and values as boto3's low-level client wants them.

:func:`wrap_error` turns a botocore exception into :class:`~blue_nb.errors.DynamoError` with
``code`` = the AWS error code (``ResourceNotFoundException``, ...), ``where`` and a hint on how to
fix it; :data:`THROTTLE_CODES` are the codes a call is retried on, after :func:`backoff`.
blue_nb's DynamoDB JSON carries binary as base64 text while boto3 wants raw bytes:
:func:`boto_value` / :func:`boto_item` / :func:`boto_request` convert (only B and BS values change).
"""

from __future__ import annotations

import base64
import random
from typing import Any, Mapping

from botocore.exceptions import (ClientError, ConnectTimeoutError, EndpointConnectionError, NoCredentialsError,
                                 NoRegionError, ParamValidationError, ProfileNotFound, ReadTimeoutError)

from blue_nb.errors import DynamoError

__all__ = ["CREDENTIALS_HINT", "THROTTLE_CODES", "backoff", "boto_item", "boto_request", "boto_value", "wrap_error"]

BACKOFF_BASE, BACKOFF_CAP = 0.05, 5.0
THROTTLE_CODES = frozenset({"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"})
CREDENTIALS_HINT = "give --endpoint-url for a local endpoint, or --aws with configured credentials"
_HINTS = {
    "ResourceNotFoundException": "create the table first (blue-nb apply), or check the table prefix and the region",
    "ResourceInUseException": "the table is being created, updated or deleted: wait, then run again",
    "ValidationException": "the request breaks one of DynamoDB's rules: see the message",
    "UnrecognizedClientException": "the endpoint refused the credentials: " + CREDENTIALS_HINT,
    "InvalidSignatureException": "the endpoint refused the request signature: check the credentials and clock",
    "ExpiredTokenException": "the credentials expired: refresh them (aws sso login, ...)",
    "AccessDeniedException": "the credentials lack a DynamoDB permission: see the message for the action",
    "LimitExceededException": "too many tables are being created or deleted at once: wait, then run again",
}
_HINTS.update({c: "the table is throttled: write with fewer --workers, or raise its capacity" for c in THROTTLE_CODES})


def wrap_error(e: Exception, where: str, endpoint: str) -> DynamoError:
    """One botocore exception as a DynamoError (code, where, hint, cause)."""
    if isinstance(e, ClientError):
        err = e.response.get("Error", {})
        code = err.get("Code") or "ClientError"
        msg = err.get("Message") or str(e)
        op = getattr(e, "operation_name", "")
        return DynamoError(f"{op}: {code}: {msg}" if op else f"{code}: {msg}", code=code, where=where,
                           hint=_HINTS.get(code, f"see the {code} error in the DynamoDB API reference"), cause=e)
    if isinstance(e, NoCredentialsError):
        return DynamoError(f"no AWS credentials found for {endpoint}", code="NoCredentials", where=where,
                           hint=CREDENTIALS_HINT, cause=e)
    if isinstance(e, NoRegionError):
        return DynamoError("no AWS region configured", code="NoRegion", where=where,
                           hint="set AWS_REGION (or AWS_DEFAULT_REGION), or a region in the profile given with "
                                "--profile (aws configure set region us-east-1)", cause=e)
    if isinstance(e, ProfileNotFound):
        return DynamoError(str(e), code="ProfileNotFound", where=where,
                           hint="name a profile of ~/.aws/config (aws configure list-profiles)", cause=e)
    if isinstance(e, (EndpointConnectionError, ConnectTimeoutError)):
        return DynamoError(f"cannot connect to {endpoint}: {e}", code="EndpointConnectionError", where=where,
                           hint="is the endpoint running? check --endpoint-url (or drop it to use the embedded one)",
                           cause=e)
    if isinstance(e, ReadTimeoutError):
        return DynamoError(f"{endpoint} did not answer in time: {e}", code="ReadTimeout", where=where,
                           hint="the endpoint is overloaded or stuck: check that it answers (apply: fewer --workers, or a "
                                "longer --deadline)", cause=e)
    if isinstance(e, ParamValidationError):
        return DynamoError(f"invalid request: {e}", code="ParamValidationError", where=where,
                           hint="blue_nb built a request boto3 refuses: report it with the spec", cause=e)
    return DynamoError(f"{type(e).__name__}: {e}", code=type(e).__name__, where=where,
                       hint=f"the call to {endpoint} failed before DynamoDB answered", cause=e)


def backoff(attempt: int, rng: random.Random | None = None) -> float:
    """Full-jitter exponential backoff: uniform(0, min(5 s, 50 ms x 2^(attempt-1)))."""
    return (rng or random).uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1)))


def _b64(text: Any) -> Any:
    return base64.b64decode(text) if isinstance(text, str) else text


def boto_value(wire: Mapping[str, Any]) -> dict[str, Any]:
    """A DynamoDB JSON value with B / BS as raw bytes (what boto3's low-level client sends)."""
    ((tag, body),) = wire.items()
    if tag == "B":
        return {"B": _b64(body)}
    if tag == "BS":
        return {"BS": [_b64(b) for b in body]}
    if tag == "L":
        return {"L": [boto_value(v) for v in body]}
    if tag == "M":
        return {"M": boto_item(body)}
    return {tag: body}


def boto_item(wire_item: Mapping[str, Any]) -> dict[str, Any]:
    """A DynamoDB JSON item (attribute -> value) with binary as raw bytes."""
    return {k: boto_value(v) for k, v in wire_item.items()}


def boto_request(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """A plan's boto3 keyword arguments with binary values as raw bytes."""
    out = dict(kwargs)
    for k in ("Key", "ExclusiveStartKey", "Item"):
        if k in out:
            out[k] = boto_item(out[k])
    if "TransactItems" in out:                   # a transaction: each action's request the same way
        out["TransactItems"] = [{kind: boto_request(kw) for kind, kw in a.items()} for a in out["TransactItems"]]
    if "RequestItems" in out:                    # a batch get's keys; a batch write's put items and delete keys
        out["RequestItems"] = {t: {**v, "Keys": [boto_item(k) for k in v["Keys"]]} if isinstance(v, dict) else
                               [{kind: {n: boto_item(x) for n, x in body.items()} for kind, body in r.items()}
                                for r in v]
                               for t, v in out["RequestItems"].items()}
    if "ExpressionAttributeValues" in out:
        out["ExpressionAttributeValues"] = {k: boto_value(v) for k, v in out["ExpressionAttributeValues"].items()}
    return out
