"""boto3's own serializer as a function: the DynamoDB JSON a plain boto3 program sends for an item.

Blue_nb's codec is :func:`blue_nb.items.values.item_to_wire`; this is boto3's ``TypeSerializer``,
kept here because boto3 is imported in this package only. ``make bench`` sizes items naively
over it (the baseline the product's sizing is measured against)."""

from __future__ import annotations

from typing import Any, Mapping

from boto3.dynamodb.types import TypeSerializer

__all__ = ["boto3_wire_item"]

_SERIALIZER = TypeSerializer()


def boto3_wire_item(item: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``item`` (Python values) as boto3's ``TypeSerializer`` writes it: attribute -> ``{"S": ...}`` etc."""
    return {name: _SERIALIZER.serialize(value) for name, value in item.items()}
