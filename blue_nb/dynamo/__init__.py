"""DynamoDB for real: boto3, botocore and moto live here and nowhere else (layer 2).

>>> with resolve_endpoint() as ep:                 # the embedded moto_server unless told otherwise
...     client = ep.client(table_prefix="t1_")
...     client.create_table(spec)
...     report = client.write_items(spec.table_name, items)
...     result = client.run_plan(plan(spec, "list_round", {"dialogue_id": "d1", "round": "1"}))

* :mod:`.local` - :class:`LocalDynamo`: moto's server as a child process on 127.0.0.1 (started by
  :mod:`.serve`, behind :mod:`.middleware`: the identity check); ``KNOWN_GAPS``, ``MOTO_ITEM_LIMIT``
* :mod:`.endpoint` - :func:`resolve_endpoint` and :class:`Endpoint`: URL, environment, AWS, or embedded
* :mod:`.client` - :class:`DynamoClient`: every call through one ``call``, table prefix and name rule;
  tables (create from the spec's CreateTable request, wait, describe, delete, tag), writes
  (``write_items`` / :class:`BatchWriteReport`: BatchWriteItem with retries, a stall time, and
  :class:`WriteInterrupted` saying what is written; ``send_actions``: a transaction or a batch write sent
  for real, to a ``scratch_table``), reads (``run_plan``: a plan's request page by page, ``run_actions``,
  ``scan_items``, ``count_items``)
* :mod:`.batches` - the items cut into BatchWriteItem requests DynamoDB accepts
* :mod:`.calls` - botocore's errors as DynamoError, the retry backoff, values as boto3 sends them
* :mod:`.wire` - boto3's own serializer (the bench's naive baseline)
"""

from blue_nb.dynamo.client import RESUME_HINT, SCRATCH_SUFFIX, BatchWriteReport, DynamoClient, DynamoPage, WriteInterrupted
from blue_nb.dynamo.endpoint import Endpoint, resolve_endpoint
from blue_nb.dynamo.local import KNOWN_GAPS, MOTO_ITEM_LIMIT, LocalDynamo

__all__ = ["BatchWriteReport", "DynamoClient", "DynamoPage", "Endpoint", "KNOWN_GAPS", "LocalDynamo",
           "MOTO_ITEM_LIMIT", "RESUME_HINT", "SCRATCH_SUFFIX", "WriteInterrupted", "resolve_endpoint"]
