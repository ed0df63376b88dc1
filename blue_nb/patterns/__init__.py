"""Access patterns: binding to parameters, the plan (SQL per store and the boto3 request),
DynamoDB's pages and what reads and writes cost. Pure (layer 1).

>>> p = plan(spec, "list_round", {"dialogue_id": "nvidia-dec", "round": "1"})
>>> print(p.show_sql()); print(p.show_boto3())
>>> result = store.run_plan(p)           # a ReadResult (items, pages, RCU) or a WriteResult (WCU)

* :mod:`.bind` - :class:`KeyRequest`, :func:`bind`, the comparison table, DynamoDB's key order
* :mod:`.layout` - the local tables and catalog: the one place that names them
* :mod:`.sql`, :mod:`.boto3_request` - the statement and the boto3 request of a request
* :mod:`.plan` - :class:`Plan`: all of the above, planned once
* :mod:`.paging` - pages and :class:`ReadResult`; :mod:`.writes` - :class:`WriteResult`
"""

from blue_nb.patterns.bind import (COMPARISONS, SK_OPS, Comparison, KeyRequest, bind, prefix_successor, row_values,
                                   sk_matches, sort_value)
from blue_nb.patterns.boto3_request import boto3_request, key_condition_expression
from blue_nb.patterns.create_table import create_table_request
from blue_nb.patterns.layout import (MAIN_COLUMNS, TableLayout, catalog_name, catalog_table_sql, index_column,
                                     main_table_sql, quote_ident, stored_key)
from blue_nb.patterns.paging import Page, ReadResult, index_entry, key_order, pages_of, paginate, project
from blue_nb.patterns.plan import BACKENDS, Plan, plan, show_boto3
from blue_nb.patterns.sql import Statement, data_bytes, get_sql, read_sql
from blue_nb.patterns.writes import WriteResult, write_cost

__all__ = ["BACKENDS", "COMPARISONS", "Comparison", "KeyRequest", "MAIN_COLUMNS", "Page", "Plan", "ReadResult",
           "SK_OPS", "Statement", "TableLayout", "WriteResult", "bind", "boto3_request", "catalog_name",
           "catalog_table_sql", "create_table_request", "data_bytes", "get_sql", "index_column", "index_entry",
           "key_condition_expression", "key_order", "main_table_sql", "pages_of", "paginate", "plan",
           "prefix_successor", "project", "quote_ident", "read_sql", "row_values", "show_boto3", "sk_matches",
           "sort_value", "stored_key", "write_cost"]
