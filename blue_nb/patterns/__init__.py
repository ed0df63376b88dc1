"""Access patterns: binding to parameters, the plan (SQL per store and the boto3 request),
DynamoDB's pages and what reads and writes cost. Pure (layer 1). The local tables they read are named in
:mod:`blue_nb.layout`.

>>> p = plan(spec, "list_round", {"dialogue_id": "nvidia-dec", "round": "1"})
>>> print(p.show_sql()); print(p.show_boto3())
>>> result = store.run_plan(p)           # a ReadResult (items, pages, RCU) or a WriteResult (WCU)

* :mod:`.bind` - :class:`KeyRequest`, :func:`bind`, the comparison table, DynamoDB's key order
* :mod:`.sql`, :mod:`.boto3_request` - the statement and the boto3 request of a request
* :mod:`.plan` - :class:`Plan`: all of the above, planned once
* :mod:`.projection` - ProjectionExpression and Select: what a read returns, and a local index's fetch
* :mod:`.filters` - a FilterExpression evaluated on an item, as DynamoDB evaluates it
* :mod:`.paging` - pages and :class:`ReadResult`; :mod:`.writes` - :class:`WriteResult`
* :mod:`.actions` - :class:`ActionsResult`: a transaction's or a batch's outcome and units (its plan: :class:`ActionsPlan`)
"""

from blue_nb.patterns.bind import (COMPARISONS, SK_OPS, Comparison, KeyRequest, bind, prefix_successor, row_values,
                                   sk_matches, sort_value)
from blue_nb.patterns.boto3_request import boto3_request, filter_expression, key_condition_expression
from blue_nb.patterns.create_table import create_table_request, global_index_request, global_index_updates
from blue_nb.patterns.filters import matches
from blue_nb.patterns.paging import (Page, ReadResult, index_entry, key_order, pages_of, paginate, project, read_page,
                                    segment_of, sizing_request)
from blue_nb.patterns.plan import ACTION_KINDS, BACKENDS, ActionsPlan, Plan, plan, plan_actions, show_boto3
from blue_nb.patterns.sql import Statement, data_bytes, get_sql, read_sql
from blue_nb.patterns.writes import WriteResult, failed_write, observed_write, write_cost
from blue_nb.patterns.actions import ActionResult, ActionsResult, actions_cost

__all__ = ["ACTION_KINDS", "ActionResult", "ActionsPlan", "ActionsResult", "actions_cost", "plan_actions", "BACKENDS", "COMPARISONS", "Comparison", "KeyRequest", "Page", "Plan", "ReadResult", "SK_OPS",
           "Statement", "WriteResult", "bind", "boto3_request", "create_table_request", "global_index_request", "global_index_updates", "data_bytes", "failed_write", "filter_expression", "get_sql",
           "index_entry", "key_condition_expression", "key_order", "matches", "observed_write", "pages_of", "paginate", "plan",
           "prefix_successor", "project", "read_page", "read_sql", "segment_of", "sizing_request", "row_values", "show_boto3", "sk_matches", "sort_value",
           "write_cost"]
