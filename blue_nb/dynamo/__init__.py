"""DynamoDB for real: boto3, botocore and moto live here and nowhere else (layer 2).

>>> with resolve_endpoint() as ep:                 # the embedded moto_server unless told otherwise
...     client = ep.client(table_prefix="t1_")
...     client.create_table(spec)
...     report = client.write_items(spec.table_name, items)
...     result = client.run_plan(plan(spec, "list_round", {"dialogue_id": "d1", "round": "1"}))

* :mod:`.local` - :class:`LocalDynamo`: moto's server as a child process on 127.0.0.1 (started by
  :mod:`.serve`, behind :mod:`.middleware`: identity check and test faults); ``KNOWN_GAPS``
* :mod:`.endpoint` - :func:`resolve_endpoint` and :class:`Endpoint`: URL, environment, AWS, or embedded
* :mod:`.client` - :class:`DynamoClient`: every call through one ``_call``, errors as DynamoError
  (:mod:`.calls`); table prefix and name rule
* :mod:`.tables` - create (from the spec's CreateTable request), wait, describe, delete, tag
* :mod:`.writes` - :func:`write_items` / :class:`BatchWriteReport`: BatchWriteItem with retries
* :mod:`.reads` - ``run_plan`` (a plan's request, page by page), ``scan_items``, ``count_items``
"""

from blue_nb.dynamo.client import DynamoClient
from blue_nb.dynamo.endpoint import Endpoint, resolve_endpoint
from blue_nb.dynamo.local import KNOWN_GAPS, LocalDynamo
from blue_nb.dynamo.reads import DynamoPage
from blue_nb.dynamo.writes import BatchWriteReport, write_items

__all__ = ["BatchWriteReport", "DynamoClient", "DynamoPage", "Endpoint", "KNOWN_GAPS", "LocalDynamo",
           "resolve_endpoint", "write_items"]
