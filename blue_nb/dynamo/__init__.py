"""DynamoDB: boto3 only here. Requests are built as data (:mod:`.requests`) before anything runs."""

from blue_nb.dynamo.requests import boto3_request, key_condition_expression

__all__ = ["boto3_request", "key_condition_expression"]
